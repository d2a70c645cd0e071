//! The real-time class's task hooks as the core calls them (kernel/sched/rt.c):
//! enqueue/dequeue in the priority array, pick, put_prev / set_next, wake-up preemption,
//! the tick (RR time slices) and the RT PELT signal.

use super::RtRq;
use crate::machine::CpuId;
use crate::sched::fair::{dequeue, enqueue};
use crate::sched::pelt::update_signal;
use crate::sched::{Policy, Sched, TaskId};

impl Sched {
    /// enqueue_task_rt: queue `p` at the tail of its priority (the head with
    /// ENQUEUE_HEAD); a task that is not running and may run elsewhere becomes pushable.
    pub(crate) fn enqueue_task_rt(&mut self, cpu: CpuId, p: TaskId, flags: u32) {
        self.uclamp_rq_inc(cpu, p);
        self.enqueue_rt_entity(cpu, p, flags & enqueue::HEAD != 0);
        if self.rqs[cpu].curr != Some(p) && self.tasks[p].nr_cpus_allowed > 1 {
            self.enqueue_pushable_task(cpu, p);
        }
    }

    /// dequeue_task_rt.
    pub(crate) fn dequeue_task_rt(&mut self, cpu: CpuId, p: TaskId, _flags: u32) {
        if self.rqs[cpu].curr == Some(p) {
            self.update_curr_rt(cpu);
        }
        self.dequeue_rt_entity(cpu, p);
        self.dequeue_pushable_task(cpu, p);
        self.uclamp_rq_dec(cpu, p);
    }

    /// __enqueue_rt_entity + inc_rt_tasks + enqueue_top_rt_rq.
    fn enqueue_rt_entity(&mut self, cpu: CpuId, p: TaskId, head: bool) {
        let prio = self.tasks[p].prio();
        let migratory = self.tasks[p].nr_cpus_allowed > 1;
        let rt = &mut self.rqs[cpu].rt;
        let pos = rt.next_pos(head);
        rt.active.insert((prio, pos), p);
        rt.rt_nr_running += 1;
        rt.rt_nr_total += 1;
        rt.rt_nr_migratory += u32::from(migratory);
        let e = self.tasks[p].rt_se_mut();
        e.key = (prio, pos);
        e.on_rq = true;
        e.migratory = migratory;
        self.update_rt_migration(cpu);
        self.rt_sync_nr_running(cpu);
    }

    /// __dequeue_rt_entity + dec_rt_tasks + dequeue_top_rt_rq.
    fn dequeue_rt_entity(&mut self, cpu: CpuId, p: TaskId) {
        let e = *self.tasks[p].rt_se();
        if !e.on_rq {
            return;
        }
        let migratory = e.migratory;
        let rt = &mut self.rqs[cpu].rt;
        rt.active.remove(&e.key);
        rt.rt_nr_running -= 1;
        rt.rt_nr_total -= 1;
        rt.rt_nr_migratory -= u32::from(migratory);
        self.tasks[p].rt_se_mut().on_rq = false;
        self.update_rt_migration(cpu);
        self.rt_sync_nr_running(cpu);
    }

    /// enqueue_top_rt_rq / dequeue_top_rt_rq: rq->nr_running counts the rt_rq's tasks
    /// while it is queued, i.e. not throttled (add_nr_running / sub_nr_running).
    pub(crate) fn rt_sync_nr_running(&mut self, cpu: CpuId) {
        let rt = &self.rqs[cpu].rt;
        let want = if rt.rt_throttled { 0 } else { rt.rt_nr_running };
        let counted = rt.rt_nr_running_counted;
        if want == counted {
            return;
        }
        self.rqs[cpu].rt.rt_nr_running_counted = want;
        if want > counted {
            self.add_nr_running(cpu, want - counted);
        } else {
            self.sub_nr_running(cpu, counted - want);
        }
        // Kick cpufreq: the rt_rq's runnable state moves the frequency (enqueue_top_rt_rq).
        self.cpufreq_update_util(cpu, 0);
    }

    /// requeue_task_rt: move `p` to the tail (or head) of its priority's queue.
    pub(crate) fn requeue_task_rt(&mut self, cpu: CpuId, p: TaskId, head: bool) {
        let e = *self.tasks[p].rt_se();
        if !e.on_rq {
            return;
        }
        let rt = &mut self.rqs[cpu].rt;
        rt.active.remove(&e.key);
        let pos = rt.next_pos(head);
        rt.active.insert((e.key.0, pos), p);
        self.tasks[p].rt_se_mut().key = (e.key.0, pos);
    }

    /// pick_next_task_rt: the first task of the highest non-empty priority, unless the
    /// rt_rq is throttled.
    pub(crate) fn pick_next_task_rt(&self, cpu: CpuId) -> Option<TaskId> {
        let rt = &self.rqs[cpu].rt;
        if !rt.is_runnable() {
            return None;
        }
        rt.active.values().next().copied()
    }

    /// set_next_task_rt: start the runtime clock, leave the pushable list, age the RT
    /// signal as not running when the CPU comes from another class, and queue a push of
    /// what waits behind (rt_queue_push_tasks, run after the switch).
    pub(crate) fn set_next_task_rt(&mut self, cpu: CpuId, p: TaskId, prev_was_rt: bool) {
        let se = self.tasks[p].se as usize;
        self.entities[se].exec_start = self.now;
        self.dequeue_pushable_task(cpu, p);
        if !prev_was_rt {
            self.update_rt_rq_load_avg(cpu, false);
        }
        if !self.rqs[cpu].rt.pushable_tasks.is_empty() {
            self.rt_queue_push_tasks(cpu);
        }
    }

    /// put_prev_task_rt: charge the runtime, age the RT signal as running; a still
    /// queued task that may run elsewhere becomes pushable.
    pub(crate) fn put_prev_task_rt(&mut self, cpu: CpuId, p: TaskId) {
        self.update_curr_rt(cpu);
        self.update_rt_rq_load_avg(cpu, true);
        if self.tasks[p].rt_se().on_rq && self.tasks[p].nr_cpus_allowed > 1 {
            self.enqueue_pushable_task(cpu, p);
        }
    }

    /// update_curr_rt: charge the running RT task's runtime since exec_start, and to the
    /// rt_rq's bandwidth (throttling, kernels before v6.12).
    pub(crate) fn update_curr_rt(&mut self, cpu: CpuId) {
        if let Some((_, delta)) = self.update_curr_common(cpu) {
            self.rt_bandwidth_account(cpu, delta);
        }
    }

    /// update_rt_rq_load_avg: the rq's RT PELT signal (running = an RT task ran).
    pub(crate) fn update_rt_rq_load_avg(&mut self, cpu: CpuId, running: bool) {
        self.update_rq_clock(cpu);
        let now = self.rq_clock_pelt(cpu);
        let r = u64::from(running);
        update_signal(now, &mut self.rqs[cpu].avg_rt, r, r, running, 1);
        self.refresh_capacity(cpu);
    }

    /// wakeup_preempt_rt: a higher priority preempts at once; an equal one may push the
    /// current task away (check_preempt_equal_prio).
    pub(crate) fn wakeup_preempt_rt(&mut self, cpu: CpuId, p: TaskId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let (pp, cp) = (self.tasks[p].prio(), self.tasks[curr].prio());
        if pp < cp {
            self.resched_curr(cpu);
            return;
        }
        if pp == cp && !self.rqs[cpu].need_resched {
            self.check_preempt_equal_prio(cpu, p, curr);
        }
    }

    /// check_preempt_equal_prio: if curr could run elsewhere and `p` could not, put `p`
    /// first and reschedule, so the push after the switch moves curr.
    fn check_preempt_equal_prio(&mut self, cpu: CpuId, p: TaskId, curr: TaskId) {
        if self.tasks[curr].nr_cpus_allowed == 1 || self.cpupri_find(curr).is_none() {
            return;
        }
        if self.tasks[p].nr_cpus_allowed != 1 && self.cpupri_find(p).is_some() {
            return;
        }
        self.requeue_task_rt(cpu, p, true);
        self.resched_curr(cpu);
    }

    /// task_tick_rt: charge runtime, age the RT signal; an RR task whose slice ran out
    /// goes to the tail of its priority if another task waits there.
    pub(crate) fn task_tick_rt(&mut self, cpu: CpuId, p: TaskId) {
        self.update_curr_rt(cpu);
        self.update_rt_rq_load_avg(cpu, true);
        if self.tasks[p].policy != Policy::Rr {
            return;
        }
        let e = self.tasks[p].rt_se_mut();
        e.time_slice = e.time_slice.saturating_sub(1);
        if e.time_slice > 0 {
            return;
        }
        e.time_slice = self.cfg.rr_timeslice_ticks();
        let prio = e.key.0;
        let rt = &self.rqs[cpu].rt;
        let others = rt
            .active
            .range((prio, i64::MIN)..=(prio, i64::MAX))
            .nth(1)
            .is_some();
        if others {
            self.requeue_task_rt(cpu, p, false);
            self.resched_curr(cpu);
        }
    }

    /// yield_task_rt: to the tail of its priority.
    pub(crate) fn yield_task_rt(&mut self, cpu: CpuId, p: TaskId) {
        self.requeue_task_rt(cpu, p, false);
    }

    /// move_queued_task for push and pull: deactivate on `src`, set_task_cpu, activate
    /// on `dst` (no wake-up: the task stays runnable).
    pub(crate) fn move_queued_rt_task(&mut self, src: CpuId, dst: CpuId, p: TaskId) {
        self.tasks[p].on_rq_migrating = true;
        self.dequeue_task_rt(src, p, dequeue::MIGRATING);
        self.set_task_cpu(p, dst);
        self.enqueue_task_rt(dst, p, 0);
        self.tasks[p].on_rq_migrating = false;
    }
}

impl RtRq {
    /// A queue position: after every task of the priority (tail), or before (head).
    fn next_pos(&mut self, head: bool) -> i64 {
        if head {
            self.head -= 1;
            self.head
        } else {
            self.tail += 1;
            self.tail
        }
    }

    /// The number of queued RT tasks (rt_nr_running) — for invariant checks.
    pub fn queued(&self) -> usize {
        self.active.len()
    }
}
