//! The scheduling attributes user space sets (include/uapi/linux/sched.h and
//! sched/types.h: policies, struct sched_attr, sched_setaffinity), and what a new task
//! starts with (sched_fork).

use crate::machine::CpuId;
use crate::time::Ns;
use serde::Serialize;

/// Scheduling policies (SCHED_OTHER is called Normal, as in the kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Policy {
    Normal,
    Batch,
    Idle,
    /// SCHED_FIFO / SCHED_RR: the real-time class (kernel/sched/rt.c).
    Fifo,
    Rr,
    /// SCHED_DEADLINE (kernel/sched/deadline.c).
    Deadline,
}

/// The scheduling classes in the kernel's order of precedence (sched_class_above):
/// a task of a higher class always runs before one of a lower class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SchedClass {
    Fair,
    Rt,
    Dl,
}

impl Policy {
    /// The name as rt-app and chrt spell it.
    pub fn kernel_name(self) -> &'static str {
        match self {
            Policy::Normal => "SCHED_OTHER",
            Policy::Batch => "SCHED_BATCH",
            Policy::Idle => "SCHED_IDLE",
            Policy::Fifo => "SCHED_FIFO",
            Policy::Rr => "SCHED_RR",
            Policy::Deadline => "SCHED_DEADLINE",
        }
    }

    /// The class a task of this policy belongs to (__setscheduler_class).
    pub fn class(self) -> SchedClass {
        match self {
            Policy::Normal | Policy::Batch | Policy::Idle => SchedClass::Fair,
            Policy::Fifo | Policy::Rr => SchedClass::Rt,
            Policy::Deadline => SchedClass::Dl,
        }
    }

    /// The policy number of include/uapi/linux/sched.h.
    pub fn number(self) -> u32 {
        match self {
            Policy::Normal => 0,
            Policy::Fifo => 1,
            Policy::Rr => 2,
            Policy::Batch => 3,
            Policy::Idle => 5,
            Policy::Deadline => 6,
        }
    }
}

/// MAX_RT_PRIO: real-time priorities are 1..=99 (sched_attr.sched_priority).
pub const MAX_RT_PRIO: i32 = 100;
/// MAX_USER_RT_PRIO − 1: the highest sched_priority user space may ask for.
pub const MAX_RT_PRIORITY: u32 = 99;

/// The SCHED_DEADLINE parameters (sched_attr.sched_runtime / _deadline / _period, ns;
/// a zero period means the period equals the deadline, as __setparam_dl reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DlParams {
    pub runtime: Ns,
    pub deadline: Ns,
    pub period: Ns,
}

/// The kernel's p->prio of a task (normal_prio): −1 for SCHED_DEADLINE, 99 − sched_priority
/// for the real-time policies, 120 + nice for the fair ones (kernel/sched/core.c
/// __normal_prio); sched_switch prints it.
pub fn normal_prio(policy: Policy, rt_priority: u32, nice: i32) -> i32 {
    match policy.class() {
        SchedClass::Dl => -1,
        SchedClass::Rt => MAX_RT_PRIO - 1 - rt_priority as i32,
        SchedClass::Fair => 120 + nice,
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
    /// sched_priority of a real-time policy (1..=99).
    pub rt_priority: Option<u32>,
    /// SCHED_DEADLINE parameters.
    pub dl: Option<DlParams>,
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
    /// sched_priority (1..=99) of a real-time policy; 0 otherwise.
    pub rt_priority: u32,
    /// The SCHED_DEADLINE parameters, with that policy.
    pub dl: Option<DlParams>,
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
            rt_priority: 0,
            dl: None,
            slice_ns: None,
            uclamp: UclampReq::default(),
            cpus: None,
        }
    }
}
