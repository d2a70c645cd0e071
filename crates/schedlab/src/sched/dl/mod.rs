//! The deadline class (kernel/sched/deadline.c): SCHED_DEADLINE tasks scheduled by
//! earliest deadline first, each within a constant-bandwidth server (runtime per period);
//! the replenishment timer, push/pull over cpudl, the bandwidth sums schedutil and
//! admission control read, and the fair deadline server of v6.12+ (docs/model.md,
//! Real-time and deadline classes → Deadline class).

pub mod admission;
pub mod bandwidth;
pub mod class;
pub mod push_pull;
pub mod server;

use crate::machine::CpuId;
use crate::sched::uapi::DlParams;
use crate::sched::TaskId;
use crate::time::Ns;
use std::collections::BTreeMap;

pub use admission::{checkparam_dl, dl_admit, dl_check_task};

/// BW_SHIFT: bandwidths are fixed point with 20 fractional bits (BW_UNIT = 1 << 20).
pub const BW_SHIFT: u32 = 20;
pub const BW_UNIT: u64 = 1 << BW_SHIFT;
/// DL_SCALE: dl_entity_overflow drops 10 bits of each time (about 1 µs granularity); the
/// smallest runtime __checkparam_dl accepts is 1 << DL_SCALE ns.
pub const DL_SCALE: u32 = 10;
/// sysctl_sched_dl_period_min / _max defaults (µs): 100 µs and 1 << 22 µs (~4.19 s).
pub const SYSCTL_SCHED_DL_PERIOD_MIN_US: u64 = 100;
pub const SYSCTL_SCHED_DL_PERIOD_MAX_US: u64 = 1 << 22;
/// The fair server's parameters (sched_init_dl_servers): 50 ms every 1 s per CPU.
pub const FAIR_SERVER_RUNTIME: Ns = 50_000_000;
pub const FAIR_SERVER_PERIOD: Ns = 1_000_000_000;
/// dl_server_min_res: a deferred server's timer is pushed forward rather than fired when
/// at least this much background time is left before the zero-laxity point.
pub const DL_SERVER_MIN_RES: Ns = 1_000_000;

/// to_ratio(period, runtime): runtime / period with BW_SHIFT fractional bits.
pub fn to_ratio(period: Ns, runtime: Ns) -> u64 {
    if period == 0 {
        return 0;
    }
    ((runtime as u128) << BW_SHIFT)
        .checked_div(period as u128)
        .unwrap_or(0) as u64
}

/// cap_scale(v, s) = v · s >> SCHED_CAPACITY_SHIFT.
pub(crate) fn cap_scale(v: u64, s: u64) -> u64 {
    ((v as u128 * s as u128) >> 10) as u64
}

/// struct sched_dl_entity, the parts the model uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DlEntity {
    /// The parameters: dl_runtime, dl_deadline, dl_period (ns), and the bandwidth and
    /// density they give (to_ratio(period, runtime), to_ratio(deadline, runtime)).
    pub dl_runtime: Ns,
    pub dl_deadline: Ns,
    pub dl_period: Ns,
    pub dl_bw: u64,
    pub dl_density: u64,
    /// Remaining runtime of the current instance (negative after an overrun) and its
    /// absolute deadline.
    pub runtime: i64,
    pub deadline: Ns,
    /// dl_throttled: out of runtime (or deferred), waiting for the replenishment timer.
    pub dl_throttled: bool,
    /// dl_yielded: sched_yield() gave up the rest of this instance.
    pub dl_yielded: bool,
    /// dl_non_contending: blocked, but its bandwidth counts in running_bw until the
    /// 0-lag time `zerolag_at` (the inactive timer).
    pub dl_non_contending: bool,
    pub(crate) zerolag_at: Ns,
    /// The fair server's flags: dl_defer (a deferred server), dl_defer_armed (its timer
    /// waits for the zero-laxity point), dl_defer_running (the fair class was starved and
    /// the server runs as a DL entity), dl_server_active (started: fair tasks runnable).
    pub dl_defer: bool,
    pub dl_defer_armed: bool,
    pub dl_defer_running: bool,
    pub dl_server_active: bool,
    /// Queued in its CPU's EDF tree, and the key it is queued under.
    pub on_rq: bool,
    pub(crate) key: (Ns, u64),
    /// The key on the CPU's pushable tree, if it is on it.
    pub(crate) push_key: Option<(Ns, u64)>,
    /// The expiry of the armed replenishment timer (dl_timer), if armed.
    pub(crate) timer_at: Option<Ns>,
}

impl DlEntity {
    /// __setparam_dl: the parameters (a zero period means period = deadline).
    pub fn new(p: DlParams) -> Self {
        let period = if p.period == 0 { p.deadline } else { p.period };
        DlEntity {
            dl_runtime: p.runtime,
            dl_deadline: p.deadline,
            dl_period: period,
            dl_bw: to_ratio(period, p.runtime),
            dl_density: to_ratio(p.deadline, p.runtime),
            runtime: 0,
            deadline: 0,
            dl_throttled: false,
            dl_yielded: false,
            dl_non_contending: false,
            zerolag_at: 0,
            dl_defer: false,
            dl_defer_armed: false,
            dl_defer_running: false,
            dl_server_active: false,
            on_rq: false,
            key: (0, 0),
            push_key: None,
            timer_at: None,
        }
    }

    /// dl_is_implicit: deadline equals period.
    pub fn dl_is_implicit(&self) -> bool {
        self.dl_deadline == self.dl_period
    }

    /// dl_next_period: the start of the next period (deadline − dl_deadline + dl_period).
    pub fn dl_next_period(&self) -> Ns {
        (self.deadline + self.dl_period).saturating_sub(self.dl_deadline)
    }
}

/// A deadline entity: a task's, or a CPU's fair server (rq->fair_server).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DlSe {
    Task(TaskId),
    Server(CpuId),
}

/// struct dl_rq, the parts the model uses.
#[derive(Debug, Clone)]
pub struct DlRq {
    /// The EDF tree: queued entities by (absolute deadline, arrival order).
    pub(crate) root: BTreeMap<(Ns, u64), DlSe>,
    pub(crate) seq: u64,
    /// Queued deadline tasks (the fair server is not counted: it is not in nr_running).
    pub dl_nr_running: u32,
    /// Pushable tasks by (deadline, order): queued, not running, more than one CPU
    /// allowed (pushable_dl_tasks_root); the CPU is in dlo_mask while it has any.
    pub(crate) pushable: BTreeMap<(Ns, u64), TaskId>,
    pub overloaded: bool,
    /// running_bw (active utilization: contending and non-contending tasks) and this_bw
    /// (every DL task whose CPU this is), BW_SHIFT fixed point.
    pub running_bw: u64,
    pub this_bw: u64,
    /// Non-contending tasks whose inactive timer has not been accounted yet.
    pub(crate) inactive: Vec<TaskId>,
    /// A push is queued to run after the current switch (deadline_queue_push_tasks).
    pub(crate) push_queued: bool,
    /// rq->fair_server (kernels with the fair deadline server) and whether the running
    /// fair task runs on its behalf (rq->dl_server).
    pub fair_server: DlEntity,
    pub dl_server_running: bool,
}

impl Default for DlRq {
    fn default() -> Self {
        // sched_init_dl_servers at boot (t = 0): dl_server_apply_params, then
        // setup_new_dl_entity, which starts a deferred first period.
        let mut fs = DlEntity::new(DlParams {
            runtime: FAIR_SERVER_RUNTIME,
            deadline: FAIR_SERVER_PERIOD,
            period: FAIR_SERVER_PERIOD,
        });
        fs.dl_defer = true;
        fs.deadline = FAIR_SERVER_PERIOD;
        fs.runtime = FAIR_SERVER_RUNTIME as i64;
        fs.dl_throttled = true;
        fs.dl_defer_armed = true;
        DlRq {
            root: BTreeMap::new(),
            seq: 0,
            dl_nr_running: 0,
            pushable: BTreeMap::new(),
            overloaded: false,
            running_bw: 0,
            this_bw: 0,
            inactive: Vec::new(),
            push_queued: false,
            fair_server: fs,
            dl_server_running: false,
        }
    }
}

impl DlRq {
    /// earliest_dl.curr: the leftmost deadline, None when empty.
    pub fn earliest_dl(&self) -> Option<Ns> {
        self.root.keys().next().map(|k| k.0)
    }

    /// earliest_dl.next: the earliest pushable deadline, None when none.
    pub fn earliest_dl_next(&self) -> Option<Ns> {
        self.pushable.keys().next().map(|k| k.0)
    }

    /// The queued deadline tasks (for invariant checks).
    pub fn queued(&self) -> usize {
        self.root
            .values()
            .filter(|s| matches!(s, DlSe::Task(_)))
            .count()
    }
}

/// struct dl_bw of the root domain: total_bw, the admitted bandwidth of every deadline
/// task (the fair servers' share is added when read, see Sched::dl_total_bw).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DlBw {
    pub total_bw: u64,
}
