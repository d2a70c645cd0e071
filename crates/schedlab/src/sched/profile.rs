//! Where the scheduler's own CPU time goes, perf-report style: every modelled scheduler
//! cost (wake-up path, scans, balancing, shared-line transfers) is booked to the kernel
//! function running when it was spent (results `sched_profile`).

use super::Sched;
use crate::machine::CpuId;
use crate::time::Ns;

/// The scheduler functions the profile separates (kernel names, as perf shows them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SchedFn {
    Other,
    TryToWakeUp,
    SelectTaskRqFair,
    EnqueueTaskFair,
    TaskTickFair,
    SchedBalanceNewidle,
    SchedBalanceDomains,
    NohzIdleBalance,
    ActiveLoadBalance,
}

impl SchedFn {
    pub const ALL: [SchedFn; 9] = [
        SchedFn::Other,
        SchedFn::TryToWakeUp,
        SchedFn::SelectTaskRqFair,
        SchedFn::EnqueueTaskFair,
        SchedFn::TaskTickFair,
        SchedFn::SchedBalanceNewidle,
        SchedFn::SchedBalanceDomains,
        SchedFn::NohzIdleBalance,
        SchedFn::ActiveLoadBalance,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SchedFn::Other => "other",
            SchedFn::TryToWakeUp => "try_to_wake_up",
            SchedFn::SelectTaskRqFair => "select_task_rq_fair",
            SchedFn::EnqueueTaskFair => "enqueue_task_fair",
            SchedFn::TaskTickFair => "task_tick_fair",
            SchedFn::SchedBalanceNewidle => "sched_balance_newidle",
            SchedFn::SchedBalanceDomains => "sched_balance_domains",
            SchedFn::NohzIdleBalance => "nohz_idle_balance",
            SchedFn::ActiveLoadBalance => "active_load_balance_cpu_stop",
        }
    }
}

/// Scheduler time per function, summed over CPUs, and the function running now.
#[derive(Debug, Clone, Default)]
pub struct SchedProfile {
    pub ns: [Ns; 9],
    pub current: Option<SchedFn>,
    /// CPUs with deferred cost (`defer_sched_cost`) to charge at the end of the event.
    pub pending: Vec<CpuId>,
}

impl Sched {
    /// Enter scheduler function `f`; returns the previous one for `leave_fn`.
    pub(crate) fn enter_fn(&mut self, f: SchedFn) -> Option<SchedFn> {
        self.profile.current.replace(f)
    }

    pub(crate) fn leave_fn(&mut self, prev: Option<SchedFn>) {
        self.profile.current = prev;
    }

    /// Book `ns` of scheduler time to the function running now.
    pub(crate) fn profile_add(&mut self, ns: Ns) {
        let f = self.profile.current.unwrap_or(SchedFn::Other);
        self.profile.ns[f as usize] += ns;
    }

    /// Book `ns` to the current function and charge it to `cpu` when the current event
    /// ends (costs found deep inside enqueue or the tick cannot move the CPU's clock there).
    pub(crate) fn defer_sched_cost(&mut self, cpu: CpuId, ns: Ns) {
        if ns == 0 {
            return;
        }
        self.profile_add(ns);
        let lb = &mut self.rqs[cpu].lb;
        if lb.pending_cost == 0 {
            self.profile.pending.push(cpu);
        }
        lb.pending_cost += ns;
    }

    /// Charge the deferred costs (end of each event).
    pub fn flush_deferred_costs(&mut self) {
        while let Some(cpu) = self.profile.pending.pop() {
            self.flush_balance_cost(cpu);
        }
    }
}
