//! The fair class's task-level hooks, as the core calls them (kernel/sched/fair.c).

use super::eevdf::{dequeue, enqueue, vt_before};
use super::load_avg::upd;
use super::tree::EntityId;
use super::weights::calc_delta_fair;
use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::sim::overhead::SchedFn;
use crate::sched::version::FairGen;
use crate::sched::Policy;
use crate::sched::{Sched, TaskId};

/// Wake flags (WF_*, kernel/sched/sched.h).
pub mod wf {
    pub const EXEC: u32 = 0x02;
    pub const FORK: u32 = 0x04;
    pub const TTWU: u32 = 0x08;
    pub const SYNC: u32 = 0x10;
    pub const MIGRATED: u32 = 0x20;
    pub const CURRENT_CPU: u32 = 0x40;
    pub const RQ_SELECTED: u32 = 0x80;
}

/// hrtick minimum delay (core.c hrtick_start).
const HRTICK_MIN_NS: u64 = 10_000;

impl Sched {
    /// se_is_idle: a SCHED_IDLE task, or the entity of a cpu.idle group.
    pub(crate) fn se_is_idle(&self, se: EntityId) -> bool {
        let e = &self.entities[se as usize];
        match (e.task, e.my_q) {
            (Some(t), _) => self.tasks[t].is_idle_policy(),
            (None, Some(q)) => self.cfs_rq_is_idle(q),
            (None, None) => false,
        }
    }

    /// set_next_buddy: `se` and its ancestors become the next buddies, unless one of them
    /// is idle.
    pub(crate) fn set_next_buddy(&mut self, se: EntityId) {
        let mut cur = Some(se);
        while let Some(e) = cur {
            if !self.entities[e as usize].on_rq || self.se_is_idle(e) {
                return;
            }
            let cfs = self.entities[e as usize].cfs_rq;
            self.cfs_rqs[cfs].next = Some(e);
            cur = self.entities[e as usize].parent;
        }
    }

    /// A group entity's slice follows its cfs_rq's min slice; in the tree the augmented
    /// data follows (min_vruntime_cb_propagate, as enqueue_task_fair does).
    fn set_group_slice(&mut self, cfs: crate::sched::CfsRqId, se: EntityId, slice: u64) {
        let e = &mut self.entities[se as usize];
        if e.slice == slice {
            return;
        }
        e.slice = slice;
        if self.cfs_rqs[cfs].curr != Some(se) {
            self.cfs_rqs[cfs].tasks_timeline.set_slice(se, slice);
        }
    }

    /// enqueue_task_fair.
    pub fn enqueue_task_fair(&mut self, cpu: CpuId, p: TaskId, flags: u32) {
        self.in_sched_fn(SchedFn::EnqueueTaskFair, |sched| {
            let se = sched.tasks[p].se;
            let delayed = sched.entities[se as usize].sched_delayed;
            let as_posted = sched.features.on(Feature::DELAY_DEQUEUE_AS_POSTED);
            if !delayed || flags & enqueue::DELAYED != 0 || as_posted {
                // The posting's ENQUEUE_DELAYED requeues before util_est_enqueue, and its
                // core enqueue_task counts every enqueue in uclamp, a delayed one too.
                if !(as_posted && flags & enqueue::DELAYED != 0) {
                    sched.util_est_enqueue(cpu, p);
                }
                sched.uclamp_rq_inc(cpu, p);
            }
            if flags & enqueue::DELAYED != 0 {
                sched.requeue_delayed_entity(se);
                return;
            }
            if sched.tasks[p].in_iowait {
                // The enqueue below may not change util, so tell cpufreq explicitly (after
                // util_est_enqueue, so the request counts the wakee's estimate).
                let flag = crate::sched::cpufreq_iowait::SCHED_CPUFREQ_IOWAIT;
                sched.cpufreq_update_util(cpu, flag);
            }
            let mut idle = u32::from(sched.tasks[p].is_idle_policy());
            // A delayed task migrating as posted stays delayed: queued, not runnable.
            let runnable = u32::from(!delayed);
            let mut flags = flags;
            let mut cur = Some(se);
            // Group entities take the min slice of the level below (enqueue_task_fair).
            let mut slice: Option<u64> = None;
            while let Some(e) = cur {
                if sched.entities[e as usize].on_rq {
                    if sched.entities[e as usize].sched_delayed {
                        sched.requeue_delayed_entity(e);
                    }
                    break;
                }
                let cfs = sched.entities[e as usize].cfs_rq;
                if let Some(s) = slice {
                    let ent = &mut sched.entities[e as usize];
                    ent.slice = s;
                    ent.custom_slice = true;
                }
                sched.enqueue_entity(cfs, e, flags);
                if sched.has_groups() {
                    slice = Some(sched.cfs_rq_min_slice(cfs));
                }
                let rq = &mut sched.cfs_rqs[cfs];
                rq.h_nr_queued += 1;
                rq.h_nr_runnable += runnable;
                rq.h_nr_idle += idle;
                if rq.grp.idle {
                    idle = 1;
                }
                if rq.grp.throttled {
                    // enqueue_throttle: the hierarchy above does not see the task.
                    sched.hrtick_update(cpu);
                    return;
                }
                flags = enqueue::WAKEUP;
                cur = sched.entities[e as usize].parent;
            }
            while let Some(e) = cur {
                let cfs = sched.entities[e as usize].cfs_rq;
                sched.update_load_avg(cfs, e, upd::UPDATE_TG);
                sched.update_cfs_group(e);
                if let Some(s) = slice {
                    sched.set_group_slice(cfs, e, s);
                    slice = Some(sched.cfs_rq_min_slice(cfs));
                }
                let rq = &mut sched.cfs_rqs[cfs];
                rq.h_nr_queued += 1;
                rq.h_nr_runnable += runnable;
                rq.h_nr_idle += idle;
                if rq.grp.idle {
                    idle = 1;
                }
                if rq.grp.throttled {
                    sched.hrtick_update(cpu);
                    return;
                }
                cur = sched.entities[e as usize].parent;
            }
            sched.rqs[cpu].nr_running += 1;
            // add_nr_running: a second runnable task overloads the root domain (set_rd_overloaded).
            if sched.rqs[cpu].nr_running == 2 {
                sched.set_rd_overloaded(cpu, true);
            }
            // A new task's first enqueue does not count (enqueue_task_fair's `!task_new` check).
            if flags & enqueue::WAKEUP != 0 {
                sched.check_update_overutilized_status(cpu);
            }
            sched.hrtick_update(cpu);
        })
    }

    /// dequeue_task_fair. Returns false if the task's dequeue was
    /// delayed: it stays on the runqueue as a sched_delayed entity.
    pub fn dequeue_task_fair(&mut self, cpu: CpuId, p: TaskId, flags: u32) -> bool {
        let se = self.tasks[p].se;
        let sleep = flags & dequeue::SLEEP != 0;
        // The posting's util_est (seed 004): dequeued every time, updated once the task
        // really leaves; before v6.12 the update reads the util_avg the dequeue refreshed.
        let as_posted = self.features.on(Feature::DELAY_DEQUEUE_AS_POSTED);
        let update_after = as_posted
            || (self.cfg.kernel.updates_util_est_after_dequeue()
                && !self.features.on(Feature::DELAY_DEQUEUE));
        if flags & dequeue::DELAYED == 0 {
            // A delayed dequeue's completion bypasses dequeue_task_fair in the kernel.
            let delayed = self.entities[se as usize].sched_delayed;
            if !delayed || as_posted {
                self.util_est_dequeue(cpu, p);
            }
            if !delayed {
                self.uclamp_rq_dec(cpu, p);
            }
            if !update_after {
                self.util_est_update(p, sleep);
            }
            if sleep {
                let e = &mut self.entities[se as usize];
                e.prev_sum_exec_runtime_vol = e.sum_exec_runtime;
            }
        }
        if !self.dequeue_entities(cpu, se, flags) {
            self.hrtick_update(cpu);
            return false;
        }
        if update_after && (flags & dequeue::DELAYED == 0 || as_posted) {
            // dequeue_entities' "Fix-up what dequeue_task_fair() skipped" at a delayed
            // dequeue's completion.
            self.util_est_update(p, sleep);
        }
        self.tasks[p].on_rq = false;
        self.hrtick_update(cpu);
        true
    }

    /// dequeue_entities: dequeue `se` (a task, or a delayed group
    /// entity at pick time) and the ancestors it leaves empty. False if a task's dequeue
    /// was delayed.
    pub(crate) fn dequeue_entities(&mut self, cpu: CpuId, se: EntityId, flags: u32) -> bool {
        let task = self.entities[se as usize].task;
        let (h_queued, mut h_idle) = match task {
            Some(p) => (1, u32::from(self.tasks[p].is_idle_policy())),
            None => (0, 0),
        };
        // A still-delayed task leaving without DEQUEUE_DELAYED (migrating as posted) is
        // not counted runnable.
        let still_delayed =
            self.entities[se as usize].sched_delayed && flags & dequeue::DELAYED == 0;
        let h_runnable = h_queued - u32::from(task.is_some() && still_delayed);
        let task_sleep = flags & dequeue::SLEEP != 0;
        let mut flags = flags;
        let mut cur = Some(se);
        let mut slice: Option<u64> = None;
        while let Some(e) = cur {
            let cfs = self.entities[e as usize].cfs_rq;
            if !self.dequeue_entity(cfs, e, flags) {
                if e == se && task.is_some() {
                    return false;
                }
                // A delayed group entity: the levels from its own on are only updated.
                if self.has_groups() {
                    slice = Some(self.cfs_rq_min_slice(cfs));
                }
                break;
            }
            let rq = &mut self.cfs_rqs[cfs];
            rq.h_nr_queued -= h_queued;
            rq.h_nr_runnable -= h_runnable;
            rq.h_nr_idle -= h_idle;
            if rq.grp.idle {
                h_idle = h_queued;
            }
            if rq.grp.throttled {
                // dequeue_throttle: the levels above never counted the task.
                return true;
            }
            let still_loaded = rq.load.weight != 0;
            cur = self.entities[e as usize].parent;
            if still_loaded {
                if self.has_groups() {
                    slice = Some(self.cfs_rq_min_slice(cfs));
                }
                // The level keeps other entities: its parent stays queued; prefer it next
                // for locality after a sleep.
                if let (Some(parent), true) = (cur, task_sleep) {
                    if !self.throttled_hierarchy(cfs) {
                        self.set_next_buddy(parent);
                    }
                }
                break;
            }
            flags |= dequeue::SLEEP;
            flags &= !(dequeue::DELAYED | dequeue::SPECIAL);
        }
        while let Some(e) = cur {
            let cfs = self.entities[e as usize].cfs_rq;
            self.update_load_avg(cfs, e, upd::UPDATE_TG);
            self.update_cfs_group(e);
            if let Some(s) = slice {
                self.set_group_slice(cfs, e, s);
                slice = Some(self.cfs_rq_min_slice(cfs));
            }
            let rq = &mut self.cfs_rqs[cfs];
            rq.h_nr_queued -= h_queued;
            rq.h_nr_runnable -= h_runnable;
            rq.h_nr_idle -= h_idle;
            if rq.grp.idle {
                h_idle = h_queued;
            }
            if rq.grp.throttled {
                return true;
            }
            cur = self.entities[e as usize].parent;
        }
        self.rqs[cpu].nr_running -= h_queued;
        true
    }

    /// pick_next_task_fair with the put_prev / set_next switch. Delayed
    /// entities that come up are dequeued for good and the pick restarts.
    pub fn pick_next_task_fair(&mut self, cpu: CpuId, prev: Option<TaskId>) -> Option<TaskId> {
        let root = self.rqs[cpu].cfs;
        let mut newidle_done = false;
        let next = 'again: loop {
            let mut cfs = root;
            if self.cfs_rqs[cfs].nr_queued == 0 {
                // idle: sched_balance_newidle, and pick again if it pulled.
                if !newidle_done {
                    newidle_done = true;
                    if self.sched_balance_newidle(cpu) > 0 {
                        continue 'again;
                    }
                }
                break None;
            }
            loop {
                if self.curr_on_rq(cfs).is_some() {
                    self.update_curr(cfs);
                }
                if self.cfs_rqs[cfs].grp.runtime_enabled && self.check_cfs_rq_runtime(cfs) {
                    continue 'again;
                }
                let se = self
                    .pick_next_entity(cfs)
                    .expect("a cfs_rq with queued entities always yields a pick");
                if self.entities[se as usize].sched_delayed {
                    match self.entities[se as usize].task {
                        Some(t) => {
                            self.dequeue_task_fair(cpu, t, dequeue::SLEEP | dequeue::DELAYED);
                        }
                        None => {
                            self.dequeue_entities(cpu, se, dequeue::SLEEP | dequeue::DELAYED);
                        }
                    }
                    continue 'again;
                }
                match self.entities[se as usize].my_q {
                    Some(q) => cfs = q,
                    None => break 'again self.entities[se as usize].task,
                }
            }
        };
        if next.is_none() {
            // The CPU is about to go idle (pick_next_task_fair's idle: path).
            self.update_idle_rq_clock_pelt(cpu);
        }
        if next != prev {
            if let Some(p) = prev {
                self.put_prev_task_fair(p);
            }
            if let Some(n) = next {
                self.set_next_task_fair(n, true);
            }
        }
        next
    }

    /// pick_next_entity at one level: CFS's leftmost-with-buddies or EEVDF's pick.
    fn pick_next_entity(&self, cfs: crate::sched::CfsRqId) -> Option<EntityId> {
        if self.cfs_era() {
            self.pick_next_entity_cfs(cfs)
        } else {
            self.__pick_eevdf(cfs, true)
        }
    }

    /// put_prev_task_fair: put every level of prev's hierarchy.
    pub(crate) fn put_prev_task_fair(&mut self, p: TaskId) {
        let mut cur = Some(self.tasks[p].se);
        while let Some(e) = cur {
            let cfs = self.entities[e as usize].cfs_rq;
            if self.cfs_rqs[cfs].curr == Some(e) {
                self.put_prev_entity(cfs, e);
            }
            cur = self.entities[e as usize].parent;
        }
    }

    /// set_next_task_fair: set every level of next's hierarchy.
    pub(crate) fn set_next_task_fair(&mut self, p: TaskId, first: bool) {
        let mut cur = Some(self.tasks[p].se);
        while let Some(e) = cur {
            let cfs = self.entities[e as usize].cfs_rq;
            self.set_next_entity(cfs, e, first);
            cur = self.entities[e as usize].parent;
        }
        // Move the next running task to the front of cfs_tasks (MRU, as set_next_task_fair).
        if self.entities[self.tasks[p].se as usize].on_rq {
            let cpu = self.tasks[p].cpu;
            self.cfs_task_move_to_head(cpu, p);
        }
    }

    /// wakeup_preempt_fair (v7.0); older releases: check_preempt_wakeup (CFS) and
    /// check_preempt_wakeup_fair (v6.6 – v6.18).
    pub fn wakeup_preempt_fair(&mut self, cpu: CpuId, p: TaskId, wake_flags: u32) {
        match self.cfg.kernel.fair_gen() {
            FairGen::Cfs => return self.check_preempt_wakeup(cpu, p, wake_flags),
            FairGen::Current => {}
            _ => return self.check_preempt_wakeup_fair(cpu, p, wake_flags),
        }
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        if curr == p || self.rqs[cpu].need_resched || !self.features.on(Feature::WAKEUP_PREEMPTION)
        {
            return;
        }
        let (se, pse) = self.find_matching_se(self.tasks[curr].se, self.tasks[p].se);
        let cse_idle = self.se_is_idle(se);
        let pse_idle = self.se_is_idle(pse);
        #[derive(PartialEq)]
        enum Action {
            Short,
            Pick,
        }
        let action;
        'decide: {
            if cse_idle && !pse_idle {
                // Action SHORT straight to *preempt*.
                return self.wakeup_preempt_now(cpu, se, true);
            }
            if cse_idle != pse_idle || self.tasks[p].policy != Policy::Normal {
                return;
            }
            let cfs = self.entities[se as usize].cfs_rq;
            self.update_curr(cfs);
            if self.features.on(Feature::PREEMPT_SHORT)
                && self.entities[pse as usize].slice < self.entities[se as usize].slice
            {
                action = Action::Short;
                break 'decide;
            }
            if wake_flags & wf::FORK != 0 || self.entities[pse as usize].sched_delayed {
                return;
            }
            if self.features.on(Feature::NEXT_BUDDY) {
                let next = self.cfs_rqs[cfs].next;
                let keep_old = next.is_some_and(|n| {
                    vt_before(
                        self.entities[n as usize].deadline,
                        self.entities[pse as usize].deadline,
                    )
                });
                if !keep_old && !self.se_is_idle(pse) {
                    self.set_next_buddy(pse);
                    if wake_flags & wf::SYNC != 0 {
                        // preempt_sync: the waker must have run long enough.
                        let mut threshold = 500_000u64;
                        if wake_flags & wf::RQ_SELECTED != 0 {
                            threshold /= 4;
                        }
                        // "Run long enough" read as runtime since this pick.
                        let s = &self.entities[se as usize];
                        let ran_long = s.sum_exec_runtime - s.prev_sum_exec_runtime >= threshold;
                        if vt_before(self.entities[pse as usize].deadline, s.deadline) && ran_long {
                            return self.wakeup_preempt_now(cpu, se, false);
                        }
                        return;
                    }
                }
            }
            action = Action::Pick;
        }
        let cfs = self.entities[se as usize].cfs_rq;
        let protect = action != Action::Short;
        if self.__pick_eevdf(cfs, protect) == Some(pse) {
            return self.wakeup_preempt_now(cpu, se, action == Action::Short);
        }
        if self.features.on(Feature::RUN_TO_PARITY) {
            self.update_protect_slice(cfs, se);
        }
    }

    /// The *preempt* label of wakeup_preempt_fair.
    fn wakeup_preempt_now(&mut self, cpu: CpuId, se: EntityId, short: bool) {
        if short {
            self.cancel_protect_slice(se);
        }
        self.resched_curr_lazy(cpu);
    }

    /// find_matching_se: walk both entities up to siblings on one cfs_rq.
    pub(crate) fn find_matching_se(
        &self,
        mut se: EntityId,
        mut pse: EntityId,
    ) -> (EntityId, EntityId) {
        let depth = |mut e: EntityId| {
            let mut d = 0;
            while let Some(p) = self.entities[e as usize].parent {
                e = p;
                d += 1;
            }
            d
        };
        let (mut ds, mut dp) = (depth(se), depth(pse));
        while ds > dp {
            se = self.entities[se as usize].parent.unwrap();
            ds -= 1;
        }
        while dp > ds {
            pse = self.entities[pse as usize].parent.unwrap();
            dp -= 1;
        }
        while self.entities[se as usize].cfs_rq != self.entities[pse as usize].cfs_rq {
            se = self.entities[se as usize].parent.unwrap();
            pse = self.entities[pse as usize].parent.unwrap();
        }
        (se, pse)
    }

    /// yield_task_fair.
    pub fn yield_task_fair(&mut self, cpu: CpuId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        if self.rqs[cpu].nr_running == 1 {
            return;
        }
        if self.cfs_era() {
            return self.yield_task_fair_cfs(cpu, curr);
        }
        let se = self.tasks[curr].se;
        let cfs = self.entities[se as usize].cfs_rq;
        self.clear_buddies(cfs, se);
        self.update_curr(cfs);
        if self.entity_eligible(cfs, se) {
            let e = &mut self.entities[se as usize];
            e.vruntime = e.deadline;
            e.deadline = e.deadline.wrapping_add(calc_delta_fair(e.slice, &e.load));
        }
    }

    /// task_tick_fair: entity_tick at every level; `queued` = hrtick.
    pub fn task_tick_fair(&mut self, cpu: CpuId, queued: bool) {
        self.in_sched_fn(SchedFn::TaskTickFair, |sched| {
            let Some(curr) = sched.rqs[cpu].curr else {
                return;
            };
            let mut cur = Some(sched.tasks[curr].se);
            while let Some(e) = cur {
                let cfs = sched.entities[e as usize].cfs_rq;
                sched.update_curr(cfs);
                // entity_tick ages the running entity.
                sched.update_load_avg(cfs, e, upd::UPDATE_TG);
                sched.update_cfs_group(e);
                if queued {
                    sched.resched_curr_lazy(cpu);
                } else if sched.cfs_era() {
                    // entity_tick (CFS): tick preemption.
                    if sched.cfs_rqs[cfs].nr_queued > 1 {
                        sched.check_preempt_tick(cfs, e);
                    }
                } else {
                    sched.avg_vruntime(cfs);
                }
                cur = sched.entities[e as usize].parent;
            }
            sched.update_misfit_status(Some(curr), cpu);
            sched.check_update_overutilized_status(cpu);
        })
    }

    /// hrtick_start_fair: arm the slice-end timer when others are queued.
    pub(crate) fn hrtick_start_fair(&mut self, cpu: CpuId, p: TaskId) {
        if !self.features.on(Feature::HRTICK) {
            return;
        }
        let root = self.rqs[cpu].cfs;
        if self.cfs_rqs[root].h_nr_queued <= 1 {
            return;
        }
        let se = self.tasks[p].se;
        let e = &self.entities[se as usize];
        let ran = e.sum_exec_runtime - e.prev_sum_exec_runtime;
        // CFS arms the timer at the end of sched_slice.
        let slice = if self.cfs_era() {
            self.sched_slice(e.cfs_rq, se)
        } else {
            e.slice
        };
        let remaining = slice as i64 - ran as i64;
        if remaining < 0 {
            if self.rqs[cpu].curr == Some(p) {
                self.resched_curr(cpu);
            }
            return;
        }
        let delay = (remaining as u64).max(HRTICK_MIN_NS);
        self.arm_hrtick(cpu, self.now + delay);
    }

    /// hrtick_update: re-arm after enqueue/dequeue changes the queue.
    fn hrtick_update(&mut self, cpu: CpuId) {
        if !self.features.on(Feature::HRTICK) {
            return;
        }
        if let Some(curr) = self.rqs[cpu].curr {
            if self.tasks[curr].on_cpu && self.tasks[curr].is_fair() {
                self.hrtick_start_fair(cpu, curr);
            }
        }
    }
}
