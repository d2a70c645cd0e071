//! The deadline class (kernel/sched/deadline.c): SCHED_DEADLINE tasks scheduled by
//! earliest deadline first, each within a constant-bandwidth server (runtime per period).
//! (docs/model.md, Real-time and deadline classes.)

pub mod class;

use crate::sched::uapi::DlParams;
use crate::sched::TaskId;
use crate::time::Ns;
use std::collections::BTreeMap;

/// struct sched_dl_entity, the parts the model uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DlEntity {
    /// The parameters: dl_runtime, dl_deadline, dl_period (ns).
    pub dl_runtime: Ns,
    pub dl_deadline: Ns,
    pub dl_period: Ns,
    /// Remaining runtime of the current instance (may go negative on overrun) and its
    /// absolute deadline.
    pub runtime: i64,
    pub deadline: Ns,
    /// Queued in its CPU's EDF tree, and the key it is queued under.
    pub on_rq: bool,
    pub(crate) key: (Ns, u64),
}

impl DlEntity {
    pub fn new(p: DlParams) -> Self {
        let period = if p.period == 0 { p.deadline } else { p.period };
        DlEntity {
            dl_runtime: p.runtime,
            dl_deadline: p.deadline,
            dl_period: period,
            runtime: 0,
            deadline: 0,
            on_rq: false,
            key: (0, 0),
        }
    }
}

/// struct dl_rq, the parts the model uses.
#[derive(Debug, Clone, Default)]
pub struct DlRq {
    /// The EDF tree: queued tasks by (absolute deadline, arrival order).
    pub(crate) root: BTreeMap<(Ns, u64), TaskId>,
    pub(crate) seq: u64,
    pub dl_nr_running: u32,
}
