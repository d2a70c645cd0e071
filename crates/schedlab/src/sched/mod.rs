//! The kernel model. Files mirror kernel/sched so a kernel developer finds things where
//! they expect them.

pub mod fair;
pub mod features;
