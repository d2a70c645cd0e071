//! Where the scheduler's own CPU time goes, perf-report style: every modelled scheduler
//! cost (wake-up path, scans, balancing, shared-line transfers) is booked to the kernel
//! function running when it was spent (results `sched_profile`).

use crate::machine::CpuId;
use crate::sched::Sched;
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

/// When a scheduler cost stops the CPU's running task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stall {
    /// At once: the task makes no progress for that long from now.
    Now,
    /// When the current event is done, or at the end of the schedule() in progress:
    /// costs found deep inside enqueue, the tick or a pick cannot move the CPU's clock
    /// there.
    Deferred,
}

/// The scheduler's own CPU time: per kernel function (perf-report view, results
/// `sched_profile`) and per CPU (results `cpus[].sched_overhead_ns`).
#[derive(Debug, Clone, Default)]
pub struct SchedOverhead {
    /// Booked time per function, summed over CPUs.
    pub ns: [Ns; 9],
    /// The function running now.
    pub current: Option<SchedFn>,
    /// Stall time charged to each CPU.
    pub cpu_ns: Vec<Ns>,
    /// Deferred stall owed by each CPU.
    deferred_ns: Vec<Ns>,
    /// CPUs with deferred stall to settle at the end of the event.
    deferred_cpus: Vec<CpuId>,
}

impl SchedOverhead {
    pub fn new(nr_cpus: usize) -> Self {
        SchedOverhead {
            cpu_ns: vec![0; nr_cpus],
            deferred_ns: vec![0; nr_cpus],
            ..Default::default()
        }
    }
}

impl Sched {
    /// Run `body` as kernel function `f`: scheduler time booked inside goes to `f`.
    #[inline]
    pub(crate) fn in_sched_fn<R>(&mut self, f: SchedFn, body: impl FnOnce(&mut Sched) -> R) -> R {
        let prev = self.overhead.current.replace(f);
        let r = body(self);
        self.overhead.current = prev;
        r
    }

    /// `ns` of scheduler time spent on `cpu` by the function running now: booked to that
    /// function and stalling `cpu`. With `Stall::Now`, returns when the CPU is free.
    pub(crate) fn charge_sched_time(&mut self, cpu: CpuId, ns: Ns, stall: Stall) -> Ns {
        self.book_sched_time(ns);
        self.stall_cpu(cpu, ns, stall)
    }

    /// Book `ns` to the function running now, its CPU stall following later as a lump
    /// (a balancing pass books as it scans; the pass's total stalls the CPU at its end).
    pub(crate) fn book_sched_time(&mut self, ns: Ns) {
        let f = self.overhead.current.unwrap_or(SchedFn::Other);
        self.overhead.ns[f as usize] += ns;
    }

    /// Stall `cpu` for `ns` of already booked scheduler time: its running task makes no
    /// progress meanwhile (an idle CPU just spends it). With `Stall::Now`, returns when
    /// the CPU is free again.
    pub(crate) fn stall_cpu(&mut self, cpu: CpuId, ns: Ns, stall: Stall) -> Ns {
        if ns == 0 {
            return self.now;
        }
        if stall == Stall::Deferred {
            if self.overhead.deferred_ns[cpu] == 0 {
                self.overhead.deferred_cpus.push(cpu);
            }
            self.overhead.deferred_ns[cpu] += ns;
            return self.now;
        }
        self.overhead.cpu_ns[cpu] += ns;
        if self.rqs[cpu].curr.is_none() {
            return self.now + ns;
        }
        self.settle_progress(cpu);
        let rq = &mut self.rqs[cpu];
        rq.sim.progress_start = rq.sim.progress_start.max(self.now) + ns;
        let free = rq.sim.progress_start;
        self.arm_work(cpu);
        free
    }

    /// Settle `cpu`'s deferred stall now (end of schedule(), so it delays the task that
    /// runs next).
    pub(crate) fn settle_deferred_stall(&mut self, cpu: CpuId) {
        let ns = std::mem::take(&mut self.overhead.deferred_ns[cpu]);
        self.stall_cpu(cpu, ns, Stall::Now);
    }

    /// Whether a deferred stall waits for the end of the event.
    pub(crate) fn stalls_deferred(&self) -> bool {
        !self.overhead.deferred_cpus.is_empty()
    }

    /// Settle every deferred stall (end of each event).
    pub fn settle_deferred_stalls(&mut self) {
        while let Some(cpu) = self.overhead.deferred_cpus.pop() {
            self.settle_deferred_stall(cpu);
        }
    }
}
