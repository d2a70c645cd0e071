//! The scheduling attributes user space sets (include/uapi/linux/sched.h and
//! sched/types.h: policies, struct sched_attr, sched_setaffinity), and what a new task
//! starts with (sched_fork).

use crate::machine::CpuId;
use crate::time::Ns;
use serde::Serialize;

/// Fair-class scheduling policies (SCHED_OTHER is called Normal, as in the kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Policy {
    Normal,
    Batch,
    Idle,
}

impl Policy {
    /// The name as rt-app and chrt spell it.
    pub fn kernel_name(self) -> &'static str {
        match self {
            Policy::Normal => "SCHED_OTHER",
            Policy::Batch => "SCHED_BATCH",
            Policy::Idle => "SCHED_IDLE",
        }
    }
}

/// Requested utilization clamps (sched_attr.sched_util_min / _max, 0..=1024); `None` =
/// not requested.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UclampReq {
    pub min: Option<u32>,
    pub max: Option<u32>,
}

/// A change of scheduling attributes (sched_setattr / sched_setaffinity); `None` = unchanged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedChange {
    pub policy: Option<Policy>,
    pub nice: Option<i32>,
    /// Custom slice (sched_attr.sched_runtime), ns; `Some(0)` returns to the base slice.
    pub slice_ns: Option<Ns>,
    pub uclamp: UclampReq,
    /// Allowed CPUs; `Some(vec![])` is never produced by front ends.
    pub cpus: Option<Vec<CpuId>>,
}

/// What a task is created with: its name and the attributes sched_fork and an initial
/// sched_setattr / sched_setaffinity give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskAttrs {
    /// Task name as `comm` shows it (rt-app: `<name>-<instance>`).
    pub comm: String,
    pub policy: Policy,
    pub nice: i32,
    /// Custom slice (sched_runtime) in ns, if any.
    pub slice_ns: Option<Ns>,
    pub uclamp: UclampReq,
    /// Allowed CPUs; `None` = all.
    pub cpus: Option<Vec<CpuId>>,
}

impl TaskAttrs {
    /// A SCHED_NORMAL nice-0 task allowed on every CPU.
    pub fn new(comm: impl Into<String>) -> Self {
        TaskAttrs {
            comm: comm.into(),
            policy: Policy::Normal,
            nice: 0,
            slice_ns: None,
            uclamp: UclampReq::default(),
            cpus: None,
        }
    }
}
