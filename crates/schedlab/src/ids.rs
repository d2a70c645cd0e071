//! Identifiers shared by every layer.

pub use crate::machine::CpuId;

/// A task: index into the kernel model's task table (pid = 1000 + id).
pub type TaskId = usize;
