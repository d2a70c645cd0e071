//! RT throttling (kernel/sched/rt.c, kernels before v6.12): real-time tasks may use
//! sched_rt_runtime_us of every sched_rt_period_us on each CPU (950 ms of 1 s by default);
//! a CPU that used it up stops running RT tasks until the period timer hands runtime back,
//! which leaves the rest to the fair class. RT_RUNTIME_SHARE (borrowing from other CPUs)
//! is off by default since v5.10 and not modelled. From v6.12 the fair deadline server
//! protects the fair class instead (sched/dl) and the default throttling is gone.

use crate::engine::Event;
use crate::machine::CpuId;
use crate::sched::Sched;
use crate::time::Ns;

/// sysctl_sched_rt_runtime / sysctl_sched_rt_period defaults (µs × 1000).
pub const DEF_RT_RUNTIME_NS: Ns = 950_000_000;
pub const DEF_RT_PERIOD_NS: Ns = 1_000_000_000;

impl Sched {
    /// rt_bandwidth_enabled with a finite runtime, on a kernel that throttles RT by default.
    pub(crate) fn rt_bandwidth_enabled(&self) -> bool {
        self.cfg.rt_runtime_ns.is_some() && !self.cfg.kernel.has_fair_server()
    }

    /// The runtime part of update_curr_rt: charge `delta` to the rt_rq and throttle it
    /// once it exceeds sched_rt_runtime (sched_rt_runtime_exceeded).
    pub(crate) fn rt_bandwidth_account(&mut self, cpu: CpuId, delta: Ns) {
        if !self.rt_bandwidth_enabled() {
            return;
        }
        let runtime = self.cfg.rt_runtime_ns.unwrap_or(Ns::MAX);
        let rt = &mut self.rqs[cpu].rt;
        rt.rt_time += delta;
        if rt.rt_throttled || runtime >= self.cfg.rt_period_ns {
            return;
        }
        if rt.rt_time > runtime {
            if runtime == 0 {
                rt.rt_time = 0;
                return;
            }
            rt.rt_throttled = true;
            // sched_rt_rq_dequeue: the rt_rq leaves rq->nr_running.
            self.rt_sync_nr_running(cpu);
            self.resched_curr(cpu);
        }
    }

    /// start_rt_bandwidth: an RT task is queued; the period timer runs from now (it is
    /// kicked at once, then every period) unless it already runs.
    pub(crate) fn start_rt_bandwidth(&mut self) {
        if !self.rt_bandwidth_enabled() || self.rd.rt_period_active {
            return;
        }
        self.rd.rt_period_active = true;
        self.events.push(self.now, Event::RtPeriod);
    }

    /// sched_rt_period_timer → do_sched_rt_period_timer: hand back one period's runtime
    /// on every CPU and unthrottle those below the limit again; the timer stops once no
    /// CPU has RT runtime or tasks left.
    pub fn sched_rt_period_timer(&mut self) {
        let runtime = self.cfg.rt_runtime_ns.unwrap_or(Ns::MAX);
        let mut idle = true;
        for cpu in 0..self.machine.nr_cpus() {
            self.update_rq_clock(cpu);
            let rt = &mut self.rqs[cpu].rt;
            let mut enqueue = false;
            if rt.rt_time > 0 {
                rt.rt_time -= rt.rt_time.min(runtime);
                if rt.rt_throttled && rt.rt_time < runtime {
                    rt.rt_throttled = false;
                    enqueue = true;
                }
                if rt.rt_time > 0 || rt.rt_nr_running > 0 {
                    idle = false;
                }
            } else if rt.rt_nr_running > 0 {
                idle = false;
                enqueue = !rt.rt_throttled;
            }
            if enqueue && self.rqs[cpu].rt.rt_nr_running > 0 {
                // sched_rt_rq_enqueue.
                self.rt_sync_nr_running(cpu);
                self.resched_curr(cpu);
            }
        }
        if idle || !self.rt_bandwidth_enabled() {
            self.rd.rt_period_active = false;
        } else {
            self.events
                .push(self.now + self.cfg.rt_period_ns, Event::RtPeriod);
        }
    }
}
