//! The fair deadline server (kernel/sched/deadline.c dl_server_*, fair.c fair_server;
//! kernels from v6.12): per CPU a deferred DL entity of 50 ms every 1 s. It is started
//! when fair tasks become runnable on the CPU and stopped when none are left. While fair
//! tasks run normally their runtime is charged to it, and each time 50 ms are used it
//! starts a new deferred period; so it only runs as a DL entity when the fair class got
//! less than its runtime before the zero-laxity point (deadline − runtime). Then its
//! timer fires, it is queued with a fresh deadline (dl_defer_running), and the pick of
//! the DL class runs a fair task on its behalf, ahead of RT tasks, until the runtime is
//! used; after that it behaves as a normal DL entity (throttled, replenished every
//! period) until the fair class can run in the background again.
//!
//! With a FIFO hog and a fair hog on one CPU, from a server period that started at t0:
//! the timer fires at t0 + 950 ms, the fair hog runs 50 ms (charged at ticks), the server
//! throttles until its next period, and so on: 50 ms of every second at the end of each
//! period.

use super::DlSe;
use crate::machine::CpuId;
use crate::sched::fair::enqueue;
use crate::sched::uapi::SchedClass;
use crate::sched::Sched;
use crate::time::Ns;

impl Sched {
    /// Whether the modelled kernel has the fair server.
    #[inline]
    pub(crate) fn has_fair_server(&self) -> bool {
        self.cfg.kernel.has_fair_server()
    }

    /// Start or stop the CPU's fair server with the fair class's runnable state (the
    /// kernel's enqueue_task_fair / dequeue_task_fair calls when rq->cfs.h_nr_queued
    /// leaves or reaches 0; here also checked at the pick and the tick for the paths,
    /// such as load-balance migrations, that enqueue fair tasks directly).
    /// Inlined: on every enqueue, dequeue, pick and tick the state almost never changes.
    #[inline]
    pub(crate) fn dl_server_sync(&mut self, cpu: CpuId) {
        if !self.has_fair_server() {
            return;
        }
        let rq = &self.rqs[cpu];
        let runnable = self.cfs_rqs[rq.cfs].h_nr_queued > 0;
        if runnable != rq.dl.fair_server.dl_server_active {
            self.dl_server_toggle(cpu, runnable);
        }
    }

    #[inline(never)]
    fn dl_server_toggle(&mut self, cpu: CpuId, runnable: bool) {
        if runnable {
            self.dl_server_start(cpu);
        } else {
            self.dl_server_stop(cpu);
        }
    }

    /// dl_server_start: queue the server as a wake-up (a deferred server is throttled
    /// until its zero-laxity point instead). The kernel then reschedules whenever the
    /// running task is not a deadline task; the model does only when the server was
    /// queued (a deferred start leaves the pick unchanged).
    pub(crate) fn dl_server_start(&mut self, cpu: CpuId) {
        let id = DlSe::Server(cpu);
        let e = &mut self.rqs[cpu].dl.fair_server;
        if e.dl_server_active || e.dl_runtime == 0 {
            return;
        }
        e.dl_server_active = true;
        self.enqueue_dl_entity(id, enqueue::WAKEUP);
        if self.rqs[cpu].dl.fair_server.on_rq && self.dl_server_preempts_curr(cpu) {
            self.resched_curr(cpu);
        }
    }

    /// The running task is not a deadline task, or the server's deadline is earlier.
    fn dl_server_preempts_curr(&self, cpu: CpuId) -> bool {
        let Some(c) = self.rqs[cpu].curr else {
            return true;
        };
        if self.tasks[c].class() != SchedClass::Dl {
            return true;
        }
        let sd = self.rqs[cpu].dl.fair_server.deadline;
        self.tasks[c]
            .dl
            .as_deref()
            .is_none_or(|e| super::class::dl_time_before(sd, e.deadline))
    }

    /// dl_server_stop: dequeue, cancel the timer, forget the deferral.
    pub(crate) fn dl_server_stop(&mut self, cpu: CpuId) {
        let id = DlSe::Server(cpu);
        if !self.rqs[cpu].dl.fair_server.dl_server_active {
            return;
        }
        self.dequeue_dl_entity(id, crate::sched::fair::dequeue::SLEEP);
        self.cancel_dl_timer(id);
        let e = &mut self.rqs[cpu].dl.fair_server;
        e.dl_defer_armed = false;
        e.dl_throttled = false;
        e.dl_server_active = false;
        self.rqs[cpu].dl.dl_server_running = false;
    }

    /// dl_server_update from the fair class's update_curr: a fair task ran `delta` ns on
    /// `cpu` (on the server's behalf or in the background, both charge it).
    /// Inlined with update_curr_dl_se's common case: a deferred server waiting for its
    /// zero-laxity point that keeps runtime left only loses the delta.
    #[inline]
    pub(crate) fn dl_server_update(&mut self, cpu: CpuId, delta: Ns) {
        let e = &mut self.rqs[cpu].dl.fair_server;
        if !e.dl_server_active {
            return;
        }
        let delta = delta as i64;
        if delta > 0 && e.dl_defer && e.dl_throttled && !e.dl_yielded && e.runtime > delta {
            e.runtime -= delta;
            return;
        }
        self.update_curr_dl_se(cpu, DlSe::Server(cpu), delta);
    }

    /// dl_server_timer: the deferred server reached its zero-laxity point (unless it can
    /// still wait at least dl_server_min_res: the timer is pushed there), or a throttled
    /// running server's next period came: queue it replenished, and preempt.
    pub fn dl_server_timer(&mut self, cpu: CpuId) {
        let id = DlSe::Server(cpu);
        let e = &self.rqs[cpu].dl.fair_server;
        if !e.dl_throttled || e.dl_runtime == 0 {
            return;
        }
        self.update_rq_clock(cpu);
        let now = self.now;
        let e = &mut self.rqs[cpu].dl.fair_server;
        if e.dl_defer_armed {
            let laxity_at = e.deadline.wrapping_sub(e.runtime as u64);
            if super::class::dl_time_before(now, laxity_at.wrapping_sub(super::DL_SERVER_MIN_RES)) {
                // hrtimer_forward_now by deadline − now − runtime.
                self.events
                    .arm(cpu, crate::engine::queue::CpuTimer::DlServer, laxity_at);
                return;
            }
            e.dl_defer_running = true;
        }
        self.enqueue_dl_entity(id, enqueue::REPLENISH);
        if self.dl_server_preempts_curr(cpu) {
            self.resched_curr(cpu);
        }
        if !self.rqs[cpu].dl.pushable.is_empty() {
            self.push_dl_task(cpu);
        }
    }
}
