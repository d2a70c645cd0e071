//! The deadline class's CBS and task hooks (kernel/sched/deadline.c): the wake-up rule
//! (update_dl_entity, dl_entity_overflow, the revised rule for constrained deadlines),
//! replenishment, runtime enforcement at tick granularity (update_curr_dl_se: throttle,
//! start_dl_timer), the replenishment timer, EDF pick, wake-up preemption and yield.

use super::{cap_scale, DlEntity, DlSe, BW_SHIFT, DL_SCALE};
use crate::engine::Event;
use crate::machine::CpuId;
use crate::sched::fair::{dequeue, enqueue};
use crate::sched::pelt::update_signal;
use crate::sched::uapi::SchedClass;
use crate::sched::{Sched, TaskId, TaskState};
use crate::time::Ns;

/// ENQUEUE_RESTORE / ENQUEUE_MIGRATING and DEQUEUE_SAVE as the deadline class reads them
/// (kernel/sched/sched.h); internal to the class: the core's flags map onto them.
pub(crate) const ENQUEUE_RESTORE: u32 = 0x100;
pub(crate) const ENQUEUE_MIGRATING: u32 = 0x200;
pub(crate) const DEQUEUE_SAVE: u32 = 0x100;

/// dl_time_before(a, b): a is earlier than b (signed difference, as the kernel compares).
#[inline]
pub(crate) fn dl_time_before(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// dl_entity_preempt: `a` has the earlier deadline.
#[inline]
pub(crate) fn dl_entity_preempt(a: &DlEntity, b: &DlEntity) -> bool {
    dl_time_before(a.deadline, b.deadline)
}

impl Sched {
    /// The entity `id` names.
    pub(crate) fn dl_se(&self, id: DlSe) -> &DlEntity {
        match id {
            DlSe::Task(p) => self.tasks[p]
                .dl
                .as_deref()
                .expect("a deadline task has a dl entity"),
            DlSe::Server(cpu) => &self.rqs[cpu].dl.fair_server,
        }
    }

    pub(crate) fn dl_se_mut(&mut self, id: DlSe) -> &mut DlEntity {
        match id {
            DlSe::Task(p) => self.tasks[p]
                .dl
                .as_deref_mut()
                .expect("a deadline task has a dl entity"),
            DlSe::Server(cpu) => &mut self.rqs[cpu].dl.fair_server,
        }
    }

    /// rq_of_dl_se.
    pub(crate) fn dl_cpu(&self, id: DlSe) -> CpuId {
        match id {
            DlSe::Task(p) => self.tasks[p].cpu,
            DlSe::Server(cpu) => cpu,
        }
    }

    // ---- CBS ------------------------------------------------------------------------

    /// replenish_dl_new_period: a new instance from now; a deferred server that is not
    /// handling starvation waits for its zero-laxity point.
    pub(crate) fn replenish_dl_new_period(&mut self, id: DlSe) {
        let now = self.now;
        let e = self.dl_se_mut(id);
        e.deadline = now + e.dl_deadline;
        e.runtime = e.dl_runtime as i64;
        if e.dl_defer && !e.dl_defer_running {
            e.dl_throttled = true;
            e.dl_defer_armed = true;
        }
    }

    /// setup_new_dl_entity: a new instance, unless the replenishment timer will do it.
    pub(crate) fn setup_new_dl_entity(&mut self, id: DlSe) {
        if self.dl_se(id).dl_throttled {
            return;
        }
        self.replenish_dl_new_period(id);
    }

    /// dl_entity_overflow: runtime / (deadline − t) > dl_runtime / dl_deadline, each
    /// time shifted down by DL_SCALE, in the kernel's unsigned arithmetic.
    pub(crate) fn dl_entity_overflow(&self, id: DlSe, t: Ns) -> bool {
        let e = self.dl_se(id);
        let left = (e.dl_deadline >> DL_SCALE).wrapping_mul((e.runtime >> DL_SCALE) as u64);
        let right = (e.deadline.wrapping_sub(t) >> DL_SCALE).wrapping_mul(e.dl_runtime >> DL_SCALE);
        dl_time_before(right, left)
    }

    /// replenish_dl_entity: add dl_runtime and push the deadline a period on until
    /// runtime is positive; a deadline left in the past starts a new period; a deferred
    /// server that is not running yet is throttled again until its zero-laxity point.
    pub(crate) fn replenish_dl_entity(&mut self, id: DlSe) {
        let now = self.now;
        let overflow = self.dl_entity_overflow(id, now);
        let e = self.dl_se_mut(id);
        if e.dl_deadline == 0 || (e.dl_defer_armed && overflow) {
            e.deadline = now + e.dl_deadline;
            e.runtime = e.dl_runtime as i64;
        }
        if e.dl_yielded && e.runtime > 0 {
            e.runtime = 0;
        }
        while e.runtime <= 0 {
            e.deadline += e.dl_period;
            e.runtime += e.dl_runtime as i64;
        }
        if dl_time_before(e.deadline, now) {
            // "sched: DL replenish lagged too much".
            self.replenish_dl_new_period(id);
        }
        let e = self.dl_se_mut(id);
        e.dl_yielded = false;
        e.dl_throttled = false;
        if e.dl_defer_armed {
            e.dl_defer_armed = false;
            return;
        }
        if e.dl_defer
            && !e.dl_defer_running
            && dl_time_before(now, e.deadline.wrapping_sub(e.runtime as u64))
        {
            e.dl_defer_armed = true;
            e.dl_throttled = true;
            if !self.start_dl_timer(id) {
                self.cancel_dl_timer(id);
                let e = self.dl_se_mut(id);
                e.dl_defer_armed = false;
                e.dl_throttled = false;
            }
        }
    }

    /// update_dl_revised_wakeup: a constrained-deadline entity keeps its deadline with
    /// the runtime its density allows until then.
    fn update_dl_revised_wakeup(&mut self, id: DlSe) {
        let now = self.now;
        let e = self.dl_se_mut(id);
        let laxity = e.deadline.saturating_sub(now);
        e.runtime = ((e.dl_density as u128 * laxity as u128) >> BW_SHIFT) as i64;
    }

    /// update_dl_entity: the CBS wake-up rule. A deadline in the past or a runtime that
    /// would overflow the bandwidth starts a new instance (the revised rule reduces the
    /// runtime instead for a constrained deadline); otherwise the current one is kept.
    pub(crate) fn update_dl_entity(&mut self, id: DlSe) {
        let now = self.now;
        let e = self.dl_se(id);
        let past = dl_time_before(e.deadline, now);
        if past || self.dl_entity_overflow(id, now) {
            if !self.dl_se(id).dl_is_implicit() && !past {
                self.update_dl_revised_wakeup(id);
                return;
            }
            self.replenish_dl_new_period(id);
        } else if matches!(id, DlSe::Server(_)) && self.dl_se(id).dl_defer {
            let e = self.dl_se_mut(id);
            if !e.dl_defer_running {
                e.dl_defer_armed = true;
                e.dl_throttled = true;
            }
        }
    }

    /// start_dl_timer: arm the replenishment timer at the next period (a deferred server:
    /// at its zero-laxity point, deadline − runtime). False if that instant is already
    /// more than a microsecond past (ktime_us_delta < 0).
    pub(crate) fn start_dl_timer(&mut self, id: DlSe) -> bool {
        let now = self.now;
        let e = self.dl_se(id);
        let act = if e.dl_defer_armed {
            e.deadline.wrapping_sub(e.runtime as u64)
        } else {
            e.dl_next_period()
        };
        if (act as i64 - now as i64) / 1000 < 0 {
            return false;
        }
        let at = act.max(now);
        match id {
            DlSe::Task(p) => {
                let e = self.dl_se_mut(id);
                if e.timer_at.is_none() {
                    e.timer_at = Some(at);
                    self.events.push(at, Event::DlTimer(p));
                }
            }
            DlSe::Server(cpu) => {
                use crate::engine::queue::CpuTimer;
                if !self.events.is_armed(cpu, CpuTimer::DlServer) {
                    self.events.arm(cpu, CpuTimer::DlServer, at);
                }
            }
        }
        true
    }

    /// hrtimer_try_to_cancel of the replenishment timer.
    pub(crate) fn cancel_dl_timer(&mut self, id: DlSe) {
        match id {
            DlSe::Task(_) => self.dl_se_mut(id).timer_at = None,
            DlSe::Server(cpu) => self
                .events
                .cancel(cpu, crate::engine::queue::CpuTimer::DlServer),
        }
    }

    /// dl_check_constrained_dl: a constrained-deadline entity activated after its
    /// deadline but before its next period waits (throttled) for that period.
    fn dl_check_constrained_dl(&mut self, id: DlSe) {
        let now = self.now;
        let e = self.dl_se(id);
        if dl_time_before(e.deadline, now) && dl_time_before(now, e.dl_next_period()) {
            if !self.start_dl_timer(id) {
                return;
            }
            let e = self.dl_se_mut(id);
            e.dl_throttled = true;
            if e.runtime > 0 {
                e.runtime = 0;
            }
        }
    }

    /// dl_scaled_delta_exec: a task's runtime is charged scaled by the CPU's frequency
    /// and capacity (bandwidth enforcement is scale invariant; no GRUB reclaiming).
    fn dl_scaled_delta_exec(&self, cpu: CpuId, delta: i64) -> i64 {
        let f = self.machine.arch_scale_freq_capacity(cpu);
        let c = self.arch_scale_cpu_capacity(cpu);
        cap_scale(cap_scale(delta as u64, f), c) as i64
    }

    /// update_curr_dl_se: charge `delta`; a deferred server that used its runtime in the
    /// background starts a new deferred period; an entity out of runtime (or yielding)
    /// is throttled: off the dl_rq until the replenishment timer.
    pub(crate) fn update_curr_dl_se(&mut self, cpu: CpuId, id: DlSe, delta: i64) {
        let server = matches!(id, DlSe::Server(_));
        if delta > 0 {
            let e = self.dl_se(id);
            if server && e.dl_throttled && !e.dl_defer {
                return;
            }
            let scaled = if server {
                delta
            } else {
                self.dl_scaled_delta_exec(cpu, delta)
            };
            let e = self.dl_se_mut(id);
            e.runtime -= scaled;
            if e.dl_defer && e.dl_throttled && e.runtime <= 0 {
                e.dl_defer_running = false;
                self.cancel_dl_timer(id);
                self.replenish_dl_new_period(id);
                self.start_dl_timer(id);
                return;
            }
        } else if !self.dl_se(id).dl_yielded {
            return;
        }
        // throttle:
        let e = self.dl_se(id);
        if e.runtime <= 0 || e.dl_yielded {
            self.dl_se_mut(id).dl_throttled = true;
            self.dequeue_dl_entity(id, 0);
            if let DlSe::Task(p) = id {
                self.dequeue_pushable_dl_task(cpu, p);
            }
            if !self.start_dl_timer(id) {
                match id {
                    DlSe::Server(_) => {
                        self.replenish_dl_new_period(id);
                        self.start_dl_timer(id);
                    }
                    DlSe::Task(p) => self.enqueue_task_dl_inner(cpu, p, enqueue::REPLENISH),
                }
            }
            if !self.is_leftmost(cpu, id) {
                self.resched_curr(cpu);
            }
        }
        // Before v6.12 the deadline class's runtime also counts against the RT
        // bandwidth it shares (rt_rq->rt_time).
        if let (DlSe::Task(_), true) = (id, self.rt_bandwidth_enabled()) {
            let runtime = self.cfg.rt_runtime_ns.unwrap_or(Ns::MAX);
            let active = self.rd.rt_period_active;
            let rt = &mut self.rqs[cpu].rt;
            if active || rt.rt_time < runtime {
                rt.rt_time += delta.max(0) as u64;
            }
        }
    }

    /// is_leftmost.
    fn is_leftmost(&self, cpu: CpuId, id: DlSe) -> bool {
        self.rqs[cpu].dl.root.values().next() == Some(&id)
    }

    /// update_curr_dl: charge the running deadline task (if it is still on its dl_rq).
    pub(crate) fn update_curr_dl(&mut self, cpu: CpuId) {
        let Some(p) = self.rqs[cpu].curr else {
            return;
        };
        if self.tasks[p].class() != SchedClass::Dl
            || !self.tasks[p].dl.as_ref().is_some_and(|e| e.on_rq)
        {
            return;
        }
        let delta = self.update_curr_common(cpu).map_or(0, |(_, d)| d as i64);
        self.update_curr_dl_se(cpu, DlSe::Task(p), delta);
    }

    // ---- the dl_rq --------------------------------------------------------------------

    /// __enqueue_dl_entity + inc_dl_tasks: into the EDF tree; a task counts in
    /// rq->nr_running, the server does not.
    fn __enqueue_dl_entity(&mut self, id: DlSe) {
        let cpu = self.dl_cpu(id);
        let dl = &mut self.rqs[cpu].dl;
        dl.seq += 1;
        let seq = dl.seq;
        let e = self.dl_se_mut(id);
        debug_assert!(!e.on_rq);
        e.key = (e.deadline, seq);
        e.on_rq = true;
        let key = e.key;
        self.rqs[cpu].dl.root.insert(key, id);
        if let DlSe::Task(_) = id {
            self.rqs[cpu].dl.dl_nr_running += 1;
            self.add_nr_running(cpu, 1);
        }
    }

    /// __dequeue_dl_entity + dec_dl_tasks.
    fn __dequeue_dl_entity(&mut self, id: DlSe) {
        let cpu = self.dl_cpu(id);
        let e = self.dl_se_mut(id);
        if !e.on_rq {
            return;
        }
        e.on_rq = false;
        let key = e.key;
        self.rqs[cpu].dl.root.remove(&key);
        if let DlSe::Task(_) = id {
            self.rqs[cpu].dl.dl_nr_running -= 1;
            self.sub_nr_running(cpu, 1);
        }
    }

    /// enqueue_dl_entity: apply the CBS rule of the kind of enqueue (wake-up: keep or
    /// renew; replenishment; restore after a change: renew if the deadline passed) and
    /// queue the entity unless it stays throttled.
    pub(crate) fn enqueue_dl_entity(&mut self, id: DlSe, flags: u32) {
        let e = self.dl_se(id);
        if !e.dl_throttled && !e.dl_is_implicit() {
            self.dl_check_constrained_dl(id);
        }
        if flags & (ENQUEUE_RESTORE | ENQUEUE_MIGRATING) != 0 {
            self.add_rq_bw(id);
            self.add_running_bw(id);
        }
        let e = self.dl_se(id);
        if !e.dl_defer && e.dl_throttled && flags & enqueue::REPLENISH == 0 {
            if flags & enqueue::WAKEUP != 0 {
                self.task_contending(id, flags);
            }
            return;
        }
        if flags & enqueue::WAKEUP != 0 {
            self.task_contending(id, flags);
            self.update_dl_entity(id);
        } else if flags & enqueue::REPLENISH != 0 {
            self.replenish_dl_entity(id);
        } else if flags & ENQUEUE_RESTORE != 0 && !dl_time_before(self.now, self.dl_se(id).deadline)
        {
            self.setup_new_dl_entity(id);
        }
        if self.dl_se(id).dl_throttled && self.start_dl_timer(id) {
            return;
        }
        if self.dl_se(id).dl_throttled {
            self.cancel_dl_timer(id);
            let e = self.dl_se_mut(id);
            e.dl_defer_armed = false;
            e.dl_throttled = false;
        }
        self.__enqueue_dl_entity(id);
    }

    /// dequeue_dl_entity.
    pub(crate) fn dequeue_dl_entity(&mut self, id: DlSe, flags: u32) {
        self.__dequeue_dl_entity(id);
        if flags & (DEQUEUE_SAVE | dequeue::MIGRATING) != 0 {
            self.sub_running_bw(id);
            self.sub_rq_bw(id);
        }
        if flags & dequeue::SLEEP != 0 {
            self.task_non_contending(id);
        }
    }

    // ---- the task hooks -----------------------------------------------------------------

    /// enqueue_task_dl as the core calls it (with uclamp_rq_inc). The core's flags: a
    /// wake-up (WAKEUP, with MIGRATED after a wake-up migration); a new task's INITIAL
    /// counts as its first wake-up (it was made a deadline task before it ran); a
    /// sched_setattr's re-enqueue (neither) is a restore: a deadline in the past starts
    /// a new instance.
    pub(crate) fn enqueue_task_dl(&mut self, cpu: CpuId, p: TaskId, flags: u32) {
        self.uclamp_rq_inc(cpu, p);
        let mut flags = flags;
        if flags & enqueue::INITIAL != 0 {
            // Its parameters were set before it ran (the deadline 0 of __setparam_dl is
            // in the past on a real clock; the simulation's clock starts at 0).
            self.setup_new_dl_entity(DlSe::Task(p));
            flags |= enqueue::WAKEUP;
        }
        if flags & (enqueue::WAKEUP | enqueue::REPLENISH) == 0 {
            flags |= ENQUEUE_RESTORE;
        }
        self.enqueue_task_dl_inner(cpu, p, flags);
    }

    /// enqueue_task_dl (the class function: the replenishment timer and the throttle
    /// path call it directly).
    pub(crate) fn enqueue_task_dl_inner(&mut self, cpu: CpuId, p: TaskId, flags: u32) {
        let mut flags = flags;
        if self.tasks[p].on_rq_migrating {
            flags = (flags & !ENQUEUE_RESTORE) | ENQUEUE_MIGRATING;
        }
        self.dl_inactive_timers(cpu);
        self.enqueue_dl_entity(DlSe::Task(p), flags);
        let throttled = self.tasks[p].dl.as_ref().is_some_and(|e| e.dl_throttled);
        if self.rqs[cpu].curr != Some(p) && !throttled && self.tasks[p].nr_cpus_allowed > 1 {
            self.enqueue_pushable_dl_task(cpu, p);
        }
    }

    /// dequeue_task_dl (with uclamp_rq_dec, as the core calls it).
    pub(crate) fn dequeue_task_dl(&mut self, cpu: CpuId, p: TaskId, flags: u32) {
        self.update_curr_dl(cpu);
        let mut flags = flags;
        if self.tasks[p].on_rq_migrating {
            flags |= dequeue::MIGRATING;
        }
        self.dl_inactive_timers(cpu);
        self.dequeue_dl_entity(DlSe::Task(p), flags);
        if !self.tasks[p].dl.as_ref().is_some_and(|e| e.dl_throttled) {
            self.dequeue_pushable_dl_task(cpu, p);
        }
        self.uclamp_rq_dec(cpu, p);
    }

    /// pick_task_dl: the leftmost entity of the EDF tree (a task, or the fair server,
    /// which the core then asks for a fair task).
    pub(crate) fn pick_task_dl(&self, cpu: CpuId) -> Option<DlSe> {
        self.rqs[cpu].dl.root.values().next().copied()
    }

    /// The leftmost deadline task, if the leftmost entity is a task.
    pub(crate) fn pick_next_task_dl(&self, cpu: CpuId) -> Option<TaskId> {
        match self.pick_task_dl(cpu) {
            Some(DlSe::Task(p)) => Some(p),
            _ => None,
        }
    }

    /// set_next_task_dl(first): start the clock, leave the pushable tree; age avg_dl as
    /// not running when the CPU comes from another class; queue a push of what waits.
    pub(crate) fn set_next_task_dl(&mut self, cpu: CpuId, p: TaskId, prev_was_dl: bool) {
        let se = self.tasks[p].se as usize;
        self.entities[se].exec_start = self.now;
        self.dequeue_pushable_dl_task(cpu, p);
        if !prev_was_dl {
            self.update_dl_rq_load_avg(cpu, false);
        }
        if !self.rqs[cpu].dl.pushable.is_empty() {
            self.rqs[cpu].dl.push_queued = true;
        }
    }

    /// set_next_task_dl(first = false): after a class change of the running task.
    pub(crate) fn set_next_task_dl_restore(&mut self, cpu: CpuId, p: TaskId) {
        let se = self.tasks[p].se as usize;
        self.entities[se].exec_start = self.now;
        self.dequeue_pushable_dl_task(cpu, p);
    }

    /// put_prev_task_dl: charge, age avg_dl as running; a still queued task that may run
    /// elsewhere becomes pushable.
    pub(crate) fn put_prev_task_dl(&mut self, cpu: CpuId, p: TaskId) {
        self.update_curr_dl(cpu);
        self.update_dl_rq_load_avg(cpu, true);
        let on_rq = self.tasks[p].dl.as_ref().is_some_and(|e| e.on_rq);
        if on_rq && self.tasks[p].nr_cpus_allowed > 1 {
            self.enqueue_pushable_dl_task(cpu, p);
        }
    }

    /// update_dl_rq_load_avg: the rq's DL PELT signal (running = a DL task ran).
    pub(crate) fn update_dl_rq_load_avg(&mut self, cpu: CpuId, running: bool) {
        self.update_rq_clock(cpu);
        let now = self.rq_clock_pelt(cpu);
        let r = u64::from(running);
        update_signal(now, &mut self.rqs[cpu].avg_dl, r, r, running, 1);
        self.refresh_capacity(cpu);
    }

    /// wakeup_preempt_dl: an earlier deadline preempts; an equal one may push curr away
    /// (check_preempt_equal_dl).
    pub(crate) fn wakeup_preempt_dl(&mut self, cpu: CpuId, p: TaskId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let (Some(pe), Some(ce)) = (self.tasks[p].dl.as_deref(), self.tasks[curr].dl.as_deref())
        else {
            return;
        };
        if dl_entity_preempt(pe, ce) {
            self.resched_curr(cpu);
            return;
        }
        if pe.deadline == ce.deadline && !self.rqs[cpu].need_resched {
            self.check_preempt_equal_dl(cpu, p, curr);
        }
    }

    /// check_preempt_equal_dl: reschedule if curr could move elsewhere and p could not.
    fn check_preempt_equal_dl(&mut self, cpu: CpuId, p: TaskId, curr: TaskId) {
        if self.tasks[curr].nr_cpus_allowed == 1 || self.cpudl_find(curr).is_none() {
            return;
        }
        if self.tasks[p].nr_cpus_allowed != 1 && self.cpudl_find(p).is_some() {
            return;
        }
        self.resched_curr(cpu);
    }

    /// task_tick_dl: charge (throttling at tick granularity: HRTICK_DL is off by
    /// default) and age avg_dl.
    pub(crate) fn task_tick_dl(&mut self, cpu: CpuId, _p: TaskId) {
        self.update_curr_dl(cpu);
        self.update_dl_rq_load_avg(cpu, true);
    }

    /// yield_task_dl: give up the rest of this instance; update_curr_dl throttles the
    /// task until its next period, whose replenishment gives it a new one.
    pub(crate) fn yield_task_dl(&mut self, cpu: CpuId, p: TaskId) {
        if let Some(e) = self.tasks[p].dl.as_mut() {
            e.dl_yielded = true;
        }
        self.update_rq_clock(cpu);
        self.update_curr_dl(cpu);
    }

    /// dl_task_timer: the replenishment timer of a throttled task fires. A task no
    /// longer queued is only replenished (its wake-up enqueues it); a queued one is
    /// replenished and queued, and preempts if it is now the earliest.
    pub fn dl_task_timer(&mut self, p: TaskId) {
        let now = self.now;
        let Some(e) = self.tasks[p].dl.as_mut() else {
            return;
        };
        if e.timer_at != Some(now) {
            // Cancelled or re-armed (hrtimer_try_to_cancel).
            return;
        }
        e.timer_at = None;
        let throttled = e.dl_throttled;
        if self.tasks[p].class() != SchedClass::Dl || !throttled {
            return;
        }
        let cpu = self.tasks[p].cpu;
        self.update_rq_clock(cpu);
        if !self.tasks[p].on_rq {
            self.replenish_dl_entity(DlSe::Task(p));
            return;
        }
        self.enqueue_task_dl_inner(cpu, p, enqueue::REPLENISH);
        let curr_dl = self.rqs[cpu]
            .curr
            .is_some_and(|c| self.tasks[c].class() == SchedClass::Dl);
        if curr_dl {
            self.wakeup_preempt_dl(cpu, p);
        } else {
            self.resched_curr(cpu);
        }
        // __push_dl_task.
        if !self.rqs[cpu].dl.pushable.is_empty() {
            self.push_dl_task(cpu);
        }
    }

    /// __setparam_dl: set the parameters (in place for a task that already is a
    /// deadline task: its current instance carries on).
    pub(crate) fn setparam_dl(&mut self, p: TaskId, d: crate::sched::DlParams) {
        let new = DlEntity::new(d);
        match self.tasks[p].dl.as_deref_mut() {
            Some(e) => {
                e.dl_runtime = new.dl_runtime;
                e.dl_deadline = new.dl_deadline;
                e.dl_period = new.dl_period;
                e.dl_bw = new.dl_bw;
                e.dl_density = new.dl_density;
            }
            None => self.tasks[p].dl = Some(Box::new(new)),
        }
    }

    /// Whether `p` has exited (task_non_contending's TASK_DEAD case).
    pub(crate) fn dl_task_dead(&self, p: TaskId) -> bool {
        self.tasks[p].state == TaskState::Dead
    }
}
