//! Per-entity operations on one cfs_rq level (kernel/sched/fair.c).

use super::eevdf::{dequeue, enqueue};
use super::load_avg::upd;
use super::tree::EntityId;
use super::weights::calc_delta_fair;
use crate::sched::features::Feature;
use crate::sched::{CfsRqId, Sched};

impl Sched {
    /// update_curr: charge the running entity of `cfs` up to now.
    pub fn update_curr(&mut self, cfs: CfsRqId) {
        let Some(curr) = self.cfs_rqs[cfs].curr else {
            return;
        };
        let now = self.now;
        let e = &mut self.entities[curr as usize];
        let delta = now as i64 - e.exec_start as i64;
        if delta <= 0 {
            return;
        }
        let delta = delta as u64;
        e.exec_start = now;
        e.sum_exec_runtime += delta;
        e.vruntime = e.vruntime.wrapping_add(calc_delta_fair(delta, &e.load));
        if e.task.is_some() && self.cfg.kernel.has_fair_server() {
            // A fair task's runtime is charged to the fair deadline server (dl_server_update).
            let cpu = self.cfs_rqs[cfs].cpu;
            self.dl_server_update(cpu, delta);
        }
        if self.cfs_era() {
            // CFS: no deadline; tick and wake-up preemption decide (check_preempt_tick).
            self.update_min_vruntime(cfs);
            if self.cfs_rqs[cfs].grp.runtime_enabled {
                self.account_cfs_rq_runtime(cfs, delta);
            }
            return;
        }
        let resched = self.update_deadline(curr);
        if self.cfs_rqs[cfs].grp.runtime_enabled {
            self.account_cfs_rq_runtime(cfs, delta);
        }
        if self.cfs_rqs[cfs].nr_queued == 1 {
            return;
        }
        if self.update_curr_wants_resched(cfs, curr, resched) {
            let cpu = self.cfs_rqs[cfs].cpu;
            self.resched_curr_lazy(cpu);
            self.clear_buddies(cfs, curr);
        }
    }

    /// clear_buddies: forget `se` as the next (and, CFS, last and skip) buddy at its level
    /// and above.
    pub(crate) fn clear_buddies(&mut self, cfs: CfsRqId, se: EntityId) {
        if self.cfs_rqs[cfs].last == Some(se) {
            self.clear_buddy_chain(cfs, se, |rq| &mut rq.last);
        }
        if self.cfs_rqs[cfs].skip == Some(se) {
            self.clear_buddy_chain(cfs, se, |rq| &mut rq.skip);
        }
        let mut cfs = cfs;
        let mut se = se;
        loop {
            if self.cfs_rqs[cfs].next != Some(se) {
                break;
            }
            self.cfs_rqs[cfs].next = None;
            match self.cfs_rqs[cfs].owner {
                Some(owner) => {
                    se = owner;
                    cfs = self.entities[owner as usize].cfs_rq;
                }
                None => break,
            }
        }
    }

    /// __clear_buddies_last / _skip: clear one buddy field up the hierarchy while it
    /// names the entity on that level.
    fn clear_buddy_chain(
        &mut self,
        cfs: CfsRqId,
        se: EntityId,
        field: impl Fn(&mut crate::sched::CfsRq) -> &mut Option<EntityId>,
    ) {
        let (mut cfs, mut se) = (cfs, se);
        loop {
            let slot = field(&mut self.cfs_rqs[cfs]);
            if *slot != Some(se) {
                break;
            }
            *slot = None;
            match self.cfs_rqs[cfs].owner {
                Some(owner) => {
                    se = owner;
                    cfs = self.entities[owner as usize].cfs_rq;
                }
                None => break,
            }
        }
    }

    /// The placement step of enqueue_entity: EEVDF's place_entity, or CFS's renormalisation
    /// and new-task placement.
    fn enqueue_place(&mut self, cfs: CfsRqId, se: EntityId, flags: u32) {
        if self.cfs_era() {
            self.enqueue_renorm_cfs(cfs, se, flags);
        } else {
            self.place_entity(cfs, se, flags);
        }
    }

    /// enqueue_entity.
    pub(crate) fn enqueue_entity(&mut self, cfs: CfsRqId, se: EntityId, flags: u32) {
        let is_curr = self.cfs_rqs[cfs].curr == Some(se);
        if is_curr {
            self.enqueue_place(cfs, se, flags);
        }
        self.update_curr(cfs);
        self.update_load_avg(cfs, se, upd::UPDATE_TG | upd::DO_ATTACH);
        self.update_cfs_group(se);
        if !is_curr {
            self.enqueue_place(cfs, se, flags);
        }
        let w = self.entities[se as usize].load.weight;
        let rq = &mut self.cfs_rqs[cfs];
        rq.load.weight += w;
        rq.load.inv_weight = 0;
        rq.nr_queued += 1;
        if self.cfs_era() && flags & enqueue::WAKEUP != 0 {
            // CFS: sleeper credit, after the entity is accounted (enqueue_entity).
            self.place_entity_cfs(cfs, se, false);
        }
        if flags & enqueue::MIGRATED != 0 {
            self.entities[se as usize].exec_start = 0;
        }
        if !is_curr {
            self.__enqueue_entity(cfs, se);
        }
        self.entities[se as usize].on_rq = true;
        if let Some(p) = self.entities[se as usize].task {
            let cpu = self.cfs_rqs[cfs].cpu;
            self.account_cfs_task_enqueue(cpu, p);
        }
        if self.cfs_rqs[cfs].nr_queued == 1 && self.cfs_rqs[cfs].grp.runtime_enabled {
            self.check_enqueue_throttle(cfs);
        }
    }

    /// dequeue_entity. Returns false when the dequeue is delayed.
    pub(crate) fn dequeue_entity(&mut self, cfs: CfsRqId, se: EntityId, flags: u32) -> bool {
        self.update_curr(cfs);
        self.clear_buddies(cfs, se);
        if flags & dequeue::DELAYED == 0 {
            let may_delay = flags & dequeue::SLEEP != 0 && flags & dequeue::SPECIAL == 0;
            if may_delay
                && self.features.on(Feature::DELAY_DEQUEUE)
                && !self.entity_eligible(cfs, se)
            {
                self.update_load_avg(cfs, se, 0);
                self.set_delayed(se);
                return false;
            }
        }
        let migrating = self.entities[se as usize]
            .task
            .is_some_and(|p| self.tasks[p].on_rq_migrating);
        let action = upd::UPDATE_TG | if migrating { upd::DO_DETACH } else { 0 };
        self.update_load_avg(cfs, se, action);
        if !self.cfs_era() {
            self.update_entity_lag(cfs, se);
        }
        let is_curr = self.cfs_rqs[cfs].curr == Some(se);
        if self.features.on(Feature::PLACE_REL_DEADLINE) && flags & dequeue::SLEEP == 0 {
            let e = &mut self.entities[se as usize];
            e.deadline = e.deadline.wrapping_sub(e.vruntime);
            e.rel_deadline = true;
        }
        if !is_curr {
            self.__dequeue_entity(cfs, se);
        }
        let w = self.entities[se as usize].load.weight;
        self.entities[se as usize].on_rq = false;
        if let Some(p) = self.entities[se as usize].task {
            let cpu = self.cfs_rqs[cfs].cpu;
            self.account_cfs_task_dequeue(cpu, p);
        }
        let rq = &mut self.cfs_rqs[cfs];
        rq.load.weight -= w;
        rq.load.inv_weight = 0;
        rq.nr_queued -= 1;
        self.update_cfs_group(se);
        if self.cfs_era() {
            self.dequeue_tail_cfs(cfs, se, flags & dequeue::SLEEP != 0);
        }
        if flags & dequeue::DELAYED != 0 {
            self.clear_delayed(se);
            let e = &mut self.entities[se as usize];
            if self.features.on(Feature::DELAY_ZERO) && e.vlag > 0 {
                e.vlag = 0;
            }
        }
        true
    }

    /// set_delayed: the entity stays queued but stops being runnable; a task's
    /// h_nr_runnable drops at every level.
    fn set_delayed(&mut self, se: EntityId) {
        self.entities[se as usize].sched_delayed = true;
        if self.entities[se as usize].task.is_some() {
            self.for_each_level(se, |rq| rq.h_nr_runnable -= 1);
        }
    }

    /// clear_delayed: the reverse of set_delayed.
    fn clear_delayed(&mut self, se: EntityId) {
        self.entities[se as usize].sched_delayed = false;
        if self.entities[se as usize].task.is_some() {
            self.for_each_level(se, |rq| rq.h_nr_runnable += 1);
        }
    }

    /// Apply `f` to the cfs_rq of `se` and of every ancestor (for_each_sched_entity),
    /// stopping after a throttled cfs_rq: the levels above do not count its tasks.
    pub(crate) fn for_each_level(
        &mut self,
        se: EntityId,
        mut f: impl FnMut(&mut crate::sched::CfsRq),
    ) {
        let mut cur = Some(se);
        while let Some(e) = cur {
            let cfs = self.entities[e as usize].cfs_rq;
            f(&mut self.cfs_rqs[cfs]);
            if self.cfs_rqs[cfs].grp.throttled {
                break;
            }
            cur = self.entities[e as usize].parent;
        }
    }

    /// requeue_delayed_entity: a delayed entity is woken where it sits.
    pub(crate) fn requeue_delayed_entity(&mut self, se: EntityId) {
        let cfs = self.entities[se as usize].cfs_rq;
        if self.features.on(Feature::DELAY_ZERO) {
            self.update_entity_lag(cfs, se);
            if self.entities[se as usize].vlag > 0 {
                let is_curr = self.cfs_rqs[cfs].curr == Some(se);
                self.cfs_rqs[cfs].nr_queued -= 1;
                if !is_curr {
                    self.__dequeue_entity(cfs, se);
                }
                self.entities[se as usize].vlag = 0;
                self.place_entity(cfs, se, 0);
                if !is_curr {
                    self.__enqueue_entity(cfs, se);
                }
                self.cfs_rqs[cfs].nr_queued += 1;
            }
        }
        self.update_load_avg(cfs, se, 0);
        self.clear_delayed(se);
    }

    /// set_next_entity: `se` becomes curr of `cfs`; `first` = a real pick.
    pub(crate) fn set_next_entity(&mut self, cfs: CfsRqId, se: EntityId, first: bool) {
        self.clear_buddies(cfs, se);
        if self.entities[se as usize].on_rq {
            self.__dequeue_entity(cfs, se);
            if first {
                self.set_protect_slice(cfs, se);
            }
            self.update_load_avg(cfs, se, upd::UPDATE_TG);
        }
        let now = self.now;
        let e = &mut self.entities[se as usize];
        e.exec_start = now;
        e.prev_sum_exec_runtime = e.sum_exec_runtime;
        self.cfs_rqs[cfs].curr = Some(se);
    }

    /// put_prev_entity: curr goes back into the tree if still queued.
    pub(crate) fn put_prev_entity(&mut self, cfs: CfsRqId, se: EntityId) {
        if self.entities[se as usize].on_rq {
            self.update_curr(cfs);
        }
        if self.cfs_rqs[cfs].grp.runtime_enabled {
            self.check_cfs_rq_runtime(cfs);
        }
        if self.entities[se as usize].on_rq {
            self.__enqueue_entity(cfs, se);
            self.update_load_avg(cfs, se, 0);
        }
        self.cfs_rqs[cfs].curr = None;
    }
}
