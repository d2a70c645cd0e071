//! A running task's work progressing at its CPU's speed (docs/model.md, work in reference
//! nanoseconds), and the delay before an idle CPU can run a woken task (idle exit).

use crate::engine::queue::CpuTimer;
use crate::machine::CpuId;
use crate::sched::{Sched, Work};
use crate::time::Ns;

impl Sched {
    /// Deduct the work done since the task started progressing. The pending completion
    /// event is left armed: every caller re-arms it (`arm_work` replaces the slot) or
    /// switches the CPU, which re-arms or cancels it — one heap operation instead of two.
    pub(crate) fn settle_progress(&mut self, cpu: CpuId) {
        self.settle_progress_at(cpu, None);
    }

    /// settle_progress with the CPU's speed, if the caller already has it.
    pub(crate) fn settle_progress_at(&mut self, cpu: CpuId, speed: Option<u64>) {
        let rq = &mut self.rqs[cpu];
        let Some(p) = rq.curr else {
            return;
        };
        let elapsed = self.now.saturating_sub(rq.sim.progress_start);
        rq.sim.progress_start = rq.sim.progress_start.max(self.now);
        if let Work::Reference(left) = self.tasks[p].sim.work {
            let done = elapsed * speed.unwrap_or_else(|| self.cpu_speed(cpu)) / 1024;
            self.tasks[p].sim.work = Work::Reference(left.saturating_sub(done));
        }
    }

    /// (Re-)arm the completion event of the running task's current work.
    pub(crate) fn arm_work(&mut self, cpu: CpuId) {
        self.arm_work_at(cpu, None);
    }

    /// arm_work with the CPU's speed, if the caller already has it.
    pub(crate) fn arm_work_at(&mut self, cpu: CpuId, speed: Option<u64>) {
        let Some(p) = self.rqs[cpu].curr else {
            return;
        };
        let from = self.rqs[cpu].sim.progress_start.max(self.now);
        let at = match self.tasks[p].sim.work {
            Work::None => from,
            Work::Reference(left) => {
                let speed = speed.unwrap_or_else(|| self.cpu_speed(cpu)).max(1);
                from + (left * 1024).div_ceil(speed)
            }
            Work::Until(t) => t.max(from),
        };
        self.events.arm(cpu, CpuTimer::Work, at);
    }

    /// The work timer of `cpu` just fired, ending a busy quantum of `quantum` after
    /// which its task retries a spinlock it will fail to take (the caller knows). Such a
    /// retry only settles progress and arms the next quantum, and so does every retry
    /// due before the next other event (or after `until`): take them all in one step.
    /// Returns how many retries that was; 0 when a retry could do more (a pending
    /// reschedule, an owed cache penalty, a stall that moved the quantum's end), and the
    /// caller runs the retry as usual.
    pub fn take_failed_spin_retries(&mut self, cpu: CpuId, quantum: Ns, until: Ns) -> u64 {
        let Some(p) = self.rqs[cpu].curr else {
            return 0;
        };
        let rq = &self.rqs[cpu];
        let first = self.now;
        if rq.need_resched
            || rq.need_resched_lazy
            || !self.resched_now.is_empty()
            || self.stalls_deferred()
            || rq.sim.progress_start > first
            || quantum == 0
            || self.tasks[p].sim.work != Work::Until(first)
            || self.tasks[p].sim.cache_penalty_ns != 0
        {
            return 0;
        }
        // Retries at first, first + quantum, … before the next other event.
        let end = until.saturating_add(1);
        let limit = self
            .events
            .earliest_except(cpu, CpuTimer::Work)
            .map_or(end, |t| t.min(end))
            .max(first + 1);
        let n = (limit - first).div_ceil(quantum);
        let last = first + (n - 1) * quantum;
        // What set_work leaves at the last retry (Until work: no noise, no speed).
        self.now = last;
        self.event_cpu = Some(cpu);
        self.rqs[cpu].sim.progress_start = last;
        self.tasks[p].sim.work = Work::Until(last + quantum);
        self.events.arm(cpu, CpuTimer::Work, last + quantum);
        n
    }

    /// When idle `cpu`, kicked by something arriving at `at`, can run: after its idle exit,
    /// or when an exit already under way ends.
    pub(crate) fn idle_exit_at(&mut self, cpu: CpuId, at: Ns) -> Ns {
        let ready = self.rqs[cpu].sim.wake_ready_at;
        if ready > self.now {
            return at.max(ready);
        }
        let at = at + self.idle_exit_latency(cpu);
        self.rqs[cpu].sim.wake_ready_at = at;
        at
    }

    /// Exit latency of the idle state an idle CPU is in: the deepest its idle period so far
    /// justifies (docs/model.md, Frequency, energy and governors), or the machine's flat cost.
    pub(crate) fn idle_exit_latency(&self, cpu: CpuId) -> Ns {
        let since = self.rqs[cpu].sim.idle_since.unwrap_or(self.now);
        let d = &self.machine.freq_domains[self.machine.cpus[cpu].freq_domain];
        match self.idle_state_for(cpu, self.now - since) {
            Some(state) => d.idle_states[state].exit_latency_ns,
            None => self.machine.costs.idle_exit_ns,
        }
    }
}
