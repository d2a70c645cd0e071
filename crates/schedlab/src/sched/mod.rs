//! The kernel model. Files mirror kernel/sched so a kernel developer finds things where
//! they expect them: `core` (ttwu, schedule, tick, set_task_cpu), `fair` (the EEVDF class),
//! `features` (sched_feat), `invariants` (SCHED_WARN_ON as checks).
//!
//! All state lives in [`Sched`]; kernel functions are methods on it, named after the
//! kernel functions they model.

pub mod capacity;
pub mod core;
pub mod core_class;
pub mod cpufreq_iowait;
pub mod cpufreq_schedutil;
pub mod cpus_allowed;
pub mod dl;
pub mod energy_model;
pub mod fair;
pub mod features;
pub mod invariants;
pub mod pelt;
pub mod preempt;
pub mod rt;
pub mod setattr;
pub mod sim;
pub mod state;
pub mod topology;
pub mod tracepoints;
pub mod uapi;
pub mod uclamp;
pub mod version;

pub use fair::class::wf;
pub use preempt::PreemptModel;
pub use state::*;
pub use tracepoints::SchedObserver;
pub use uapi::{DlParams, Policy, SchedChange, SchedClass, TaskAttrs, UclampReq};
