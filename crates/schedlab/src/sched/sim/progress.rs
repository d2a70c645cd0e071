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
