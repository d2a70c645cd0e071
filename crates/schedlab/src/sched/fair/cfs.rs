//! The CFS-era steps of the fair class (kernel/sched/fair.c, v5.18 – v6.5): the pick,
//! placement, tick and wake-up preemption and slice of the kernels before EEVDF, plus the
//! per-generation choices of the EEVDF releases (v6.6 – v6.18). The shared class calls
//! these at the few points where the eras differ (docs/model.md, Kernel versions).
//!
//! CFS orders the timeline by vruntime (`__entity_less`); the shared tree is keyed by
//! `deadline`, so under CFS an entity carries its vruntime there while it is queued.

use super::eevdf::{enqueue, vt_before, vt_min};
use super::tree::EntityId;
use super::weights::{__calc_delta, calc_delta_fair, NICE_0_LOAD};
use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::version::FairGen;
use crate::sched::{CfsRqId, Policy, Sched, TaskId};

use super::class::wf;

impl Sched {
    /// The kernel runs the CFS class (v6.5 and older).
    #[inline]
    pub(crate) fn cfs_era(&self) -> bool {
        self.cfg.kernel.is_cfs()
    }

    #[inline]
    fn fair_gen(&self) -> FairGen {
        self.cfg.kernel.fair_gen()
    }

    /// entity_before: a's vruntime is before b's.
    #[inline]
    fn entity_before(&self, a: EntityId, b: EntityId) -> bool {
        vt_before(
            self.entities[a as usize].vruntime,
            self.entities[b as usize].vruntime,
        )
    }

    /// update_min_vruntime: min_vruntime follows the smaller of curr and the leftmost
    /// entity, and never goes backwards.
    pub(crate) fn update_min_vruntime(&mut self, cfs: CfsRqId) {
        let curr = self.curr_on_rq(cfs);
        let rq = &self.cfs_rqs[cfs];
        let mut v = rq.min_vruntime;
        if let Some(c) = curr {
            v = self.entities[c as usize].vruntime;
        }
        if let Some(l) = rq.tasks_timeline.first() {
            let lv = self.entities[l as usize].vruntime;
            v = if curr.is_some() { vt_min(v, lv) } else { lv };
        }
        let rq = &mut self.cfs_rqs[cfs];
        if vt_before(rq.min_vruntime, v) {
            rq.min_vruntime = v;
        }
    }

    /// __sched_period: sched_latency, stretched to nr × min_granularity past nr_latency.
    pub fn __sched_period(&self, nr_running: u64) -> u64 {
        let t = &self.cfg.cfs;
        if nr_running > t.nr_latency as u64 {
            nr_running * t.min_granularity
        } else {
            t.latency
        }
    }

    /// sched_slice: the entity's share of the period by weight at every level (ALT_PERIOD:
    /// the period counts the CPU's runnable tasks; BASE_SLICE: at least min_granularity).
    pub fn sched_slice(&self, cfs: CfsRqId, se: EntityId) -> u64 {
        let root = self.rqs[self.cfs_rqs[cfs].cpu].cfs;
        let mut nr = self.cfs_rqs[cfs].nr_queued as u64;
        if self.features.on(Feature::ALT_PERIOD) {
            nr = self.cfs_rqs[root].h_nr_queued as u64;
        }
        let mut slice = self.__sched_period(nr + u64::from(!self.entities[se as usize].on_rq));
        let mut cur = Some(se);
        while let Some(e) = cur {
            let ent = &self.entities[e as usize];
            let mut lw = self.cfs_rqs[ent.cfs_rq].load;
            if !ent.on_rq {
                lw.weight += ent.load.weight;
                lw.inv_weight = 0;
            }
            slice = __calc_delta(slice, ent.load.weight, &lw);
            cur = ent.parent;
        }
        if self.features.on(Feature::BASE_SLICE) {
            let rq = &self.cfs_rqs[cfs];
            let idle_rq = rq.h_nr_queued > 0 && rq.h_nr_idle == rq.h_nr_queued;
            let min_gran = if self.se_is_idle(se) && !idle_rq {
                self.cfg.cfs.idle_min_granularity
            } else {
                self.cfg.cfs.min_granularity
            };
            slice = slice.max(min_gran);
        }
        slice
    }

    /// sched_vslice: the slice in virtual time.
    pub fn sched_vslice(&self, cfs: CfsRqId, se: EntityId) -> u64 {
        calc_delta_fair(self.sched_slice(cfs, se), &self.entities[se as usize].load)
    }

    /// entity_is_long_sleeper (v6.3+): slept longer than 2^63 / NICE_0 ns (~104 days), so
    /// its old vruntime may no longer compare with min_vruntime.
    fn entity_is_long_sleeper(&self, se: EntityId) -> bool {
        let start = self.entities[se as usize].exec_start;
        if start == 0 || self.now <= start {
            return false;
        }
        self.now - start > (1u64 << 63) / super::weights::scale_load_down(NICE_0_LOAD)
    }

    /// place_entity (CFS): a new task starts a vslice after min_vruntime (START_DEBIT); a
    /// waking one gets sleeper credit of sched_latency (halved by GENTLE_FAIR_SLEEPERS;
    /// min_granularity for SCHED_IDLE) but never moves backwards. A new task's parent is
    /// taken to be at min_vruntime (the workload has no parent task).
    pub(crate) fn place_entity_cfs(&mut self, cfs: CfsRqId, se: EntityId, initial: bool) {
        let mut v = self.cfs_rqs[cfs].min_vruntime;
        if initial {
            if self.features.on(Feature::START_DEBIT) {
                v = v.wrapping_add(self.sched_vslice(cfs, se));
            }
            self.entities[se as usize].vruntime = v;
            return;
        }
        let mut thresh = if self.se_is_idle(se) {
            self.cfg.cfs.min_granularity
        } else {
            self.cfg.cfs.latency
        };
        if self.features.on(Feature::GENTLE_FAIR_SLEEPERS) {
            thresh >>= 1;
        }
        v = v.wrapping_sub(thresh);
        let reset = self.cfg.kernel.has_long_sleeper_reset() && self.entity_is_long_sleeper(se);
        let e = &mut self.entities[se as usize];
        if reset || vt_before(e.vruntime, v) {
            e.vruntime = v;
        }
    }

    /// enqueue_entity's CFS placement, at the points EEVDF calls place_entity: a vruntime
    /// made relative by a migration gets the new min_vruntime back (the `renorm` of
    /// enqueue_entity), a new task is placed (task_fork_fair).
    pub(crate) fn enqueue_renorm_cfs(&mut self, cfs: CfsRqId, se: EntityId, flags: u32) {
        if flags & enqueue::INITIAL != 0 {
            self.place_entity_cfs(cfs, se, true);
            return;
        }
        let renorm = flags & enqueue::WAKEUP == 0 || flags & enqueue::MIGRATED != 0;
        if renorm {
            let min = self.cfs_rqs[cfs].min_vruntime;
            let e = &mut self.entities[se as usize];
            e.vruntime = e.vruntime.wrapping_add(min);
        }
    }

    /// dequeue_entity's CFS tail: a non-sleep dequeue keeps vruntime relative to this
    /// min_vruntime (taken before update_min_vruntime discounts the entity).
    pub(crate) fn dequeue_tail_cfs(&mut self, cfs: CfsRqId, se: EntityId, sleep: bool) {
        if !sleep {
            let min = self.cfs_rqs[cfs].min_vruntime;
            let e = &mut self.entities[se as usize];
            e.vruntime = e.vruntime.wrapping_sub(min);
        }
        self.update_min_vruntime(cfs);
    }

    /// migrate_task_rq_fair (CFS): a waking task leaves the old min_vruntime behind; the
    /// enqueue on the new CPU adds that one's (ENQUEUE_MIGRATED).
    pub(crate) fn migrate_vruntime_cfs(&mut self, p: TaskId) {
        if !self.cfs_era() || self.tasks[p].on_rq || self.tasks[p].on_rq_migrating {
            return;
        }
        let se = self.tasks[p].se;
        let min = self.cfs_rqs[self.entities[se as usize].cfs_rq].min_vruntime;
        let e = &mut self.entities[se as usize];
        e.vruntime = e.vruntime.wrapping_sub(min);
    }

    /// The entity after `se` in the timeline (__pick_next_entity).
    fn timeline_next(&self, cfs: CfsRqId, se: EntityId) -> Option<EntityId> {
        let mut it = self.cfs_rqs[cfs].tasks_timeline.iter();
        it.by_ref().find(|x| x.0 == se)?;
        it.next().map(|x| x.0)
    }

    /// The smaller-vruntime of a tree entity and curr.
    fn leftmost_with_curr(
        &self,
        left: Option<EntityId>,
        curr: Option<EntityId>,
    ) -> Option<EntityId> {
        match (left, curr) {
            (None, c) => c,
            (Some(l), Some(c)) if self.entity_before(c, l) => Some(c),
            (l, _) => l,
        }
    }

    /// pick_next_entity (CFS): the leftmost of the tree and curr; the second one instead if
    /// the first is the skip buddy (yield), and the next, else the last buddy if running
    /// it is not unfair (wakeup_preempt_entity < 1).
    pub fn pick_next_entity_cfs(&self, cfs: CfsRqId) -> Option<EntityId> {
        let rq = &self.cfs_rqs[cfs];
        let curr = self.curr_on_rq(cfs);
        let left = self.leftmost_with_curr(rq.tasks_timeline.first(), curr)?;
        let mut se = left;
        if rq.skip == Some(se) {
            let second = if Some(se) == curr {
                rq.tasks_timeline.first()
            } else {
                self.leftmost_with_curr(self.timeline_next(cfs, se), curr)
            };
            if let Some(s) = second {
                if self.wakeup_preempt_entity(s, left) < 1 {
                    se = s;
                }
            }
        }
        if let Some(n) = rq.next.filter(|&n| self.wakeup_preempt_entity(n, left) < 1) {
            se = n;
        } else if let Some(l) = rq.last.filter(|&l| self.wakeup_preempt_entity(l, left) < 1) {
            se = l;
        }
        Some(se)
    }

    /// wakeup_gran: sched_wakeup_granularity in the wakee's virtual time.
    fn wakeup_gran(&self, se: EntityId) -> u64 {
        calc_delta_fair(
            self.cfg.cfs.wakeup_granularity,
            &self.entities[se as usize].load,
        )
    }

    /// wakeup_preempt_entity: −1 if `se` is not behind `curr`, 1 if it is behind by more
    /// than the wake-up granularity, else 0.
    pub fn wakeup_preempt_entity(&self, curr: EntityId, se: EntityId) -> i32 {
        let vdiff = self.entities[curr as usize]
            .vruntime
            .wrapping_sub(self.entities[se as usize].vruntime) as i64;
        if vdiff <= 0 {
            return -1;
        }
        if vdiff as u64 > self.wakeup_gran(se) {
            1
        } else {
            0
        }
    }

    /// check_preempt_tick: resched once curr ran its ideal runtime (capped at sched_latency
    /// from v6.3), or ran min_granularity and is ahead of the leftmost by more than it.
    pub(crate) fn check_preempt_tick(&mut self, cfs: CfsRqId, curr: EntityId) {
        let cpu = self.cfs_rqs[cfs].cpu;
        let mut ideal = self.sched_slice(cfs, curr);
        if self.cfg.kernel.caps_ideal_runtime() {
            ideal = ideal.min(self.cfg.cfs.latency);
        }
        let e = &self.entities[curr as usize];
        let delta_exec = e.sum_exec_runtime - e.prev_sum_exec_runtime;
        if delta_exec > ideal {
            self.resched_curr(cpu);
            self.clear_buddies(cfs, curr);
            return;
        }
        if delta_exec < self.cfg.cfs.min_granularity {
            return;
        }
        let Some(first) = self.cfs_rqs[cfs].tasks_timeline.first() else {
            return;
        };
        let delta = e
            .vruntime
            .wrapping_sub(self.entities[first as usize].vruntime) as i64;
        if delta > 0 && delta as u64 > ideal {
            self.resched_curr(cpu);
        }
    }

    /// check_preempt_wakeup (CFS): the wakee preempts when it is more than wakeup_gran
    /// behind curr in vruntime; NEXT/LAST buddies once nr_running ≥ sched_nr_latency.
    pub(crate) fn check_preempt_wakeup(&mut self, cpu: CpuId, p: TaskId, wake_flags: u32) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let (mut se, mut pse) = (self.tasks[curr].se, self.tasks[p].se);
        if se == pse || self.throttled_hierarchy(self.entities[pse as usize].cfs_rq) {
            return;
        }
        let curr_cfs = self.entities[se as usize].cfs_rq;
        let scale = self.cfs_rqs[curr_cfs].nr_queued >= self.cfg.cfs.nr_latency;
        let mut next_buddy_marked = false;
        if self.features.on(Feature::NEXT_BUDDY) && scale && wake_flags & wf::FORK == 0 {
            self.set_next_buddy(pse);
            next_buddy_marked = true;
        }
        if self.rqs[cpu].need_resched {
            return;
        }
        let preempt = 'decide: {
            if self.tasks[curr].is_idle_policy() && !self.tasks[p].is_idle_policy() {
                break 'decide true;
            }
            if self.tasks[p].policy != Policy::Normal
                || !self.features.on(Feature::WAKEUP_PREEMPTION)
            {
                return;
            }
            (se, pse) = self.find_matching_se(se, pse);
            let (cse_idle, pse_idle) = (self.se_is_idle(se), self.se_is_idle(pse));
            if cse_idle && !pse_idle {
                break 'decide true;
            }
            if cse_idle != pse_idle {
                return;
            }
            self.update_curr(self.entities[se as usize].cfs_rq);
            if self.wakeup_preempt_entity(se, pse) == 1 {
                // Bias the pick toward the preempting wakee unless NEXT_BUDDY already did.
                if !next_buddy_marked {
                    self.set_next_buddy(pse);
                }
                break 'decide true;
            }
            false
        };
        if !preempt {
            return;
        }
        self.resched_curr(cpu);
        if !self.entities[se as usize].on_rq {
            return;
        }
        if self.features.on(Feature::LAST_BUDDY)
            && scale
            && self.entities[se as usize].task.is_some()
        {
            self.set_last_buddy(se);
        }
    }

    /// set_last_buddy: `se` and its ancestors become the last buddies, unless one is idle.
    fn set_last_buddy(&mut self, se: EntityId) {
        let mut cur = Some(se);
        while let Some(e) = cur {
            if !self.entities[e as usize].on_rq || self.se_is_idle(e) {
                return;
            }
            let cfs = self.entities[e as usize].cfs_rq;
            self.cfs_rqs[cfs].last = Some(e);
            cur = self.entities[e as usize].parent;
        }
    }

    /// set_skip_buddy: `se` and its ancestors are passed over by the next pick (yield).
    fn set_skip_buddy(&mut self, se: EntityId) {
        let mut cur = Some(se);
        while let Some(e) = cur {
            let cfs = self.entities[e as usize].cfs_rq;
            self.cfs_rqs[cfs].skip = Some(e);
            cur = self.entities[e as usize].parent;
        }
    }

    /// yield_task_fair (CFS): charge curr and mark it the skip buddy.
    pub(crate) fn yield_task_fair_cfs(&mut self, cpu: CpuId, curr: TaskId) {
        let se = self.tasks[curr].se;
        let cfs = self.entities[se as usize].cfs_rq;
        self.clear_buddies(cfs, se);
        if self.tasks[curr].policy != Policy::Batch {
            self.update_curr(cfs);
        }
        let _ = cpu;
        self.set_skip_buddy(se);
    }

    /// reweight_entity (CFS): only the weight changes; vruntime stays where it is.
    pub(crate) fn reweight_entity_cfs(&mut self, se: EntityId, new: super::weights::LoadWeight) {
        let cfs = self.entities[se as usize].cfs_rq;
        let on_rq = self.entities[se as usize].on_rq;
        let is_curr = self.cfs_rqs[cfs].curr == Some(se);
        if on_rq {
            if is_curr {
                self.update_curr(cfs);
            } else {
                self.__dequeue_entity(cfs, se);
            }
            let rq = &mut self.cfs_rqs[cfs];
            rq.load.weight -= self.entities[se as usize].load.weight;
            rq.load.inv_weight = 0;
        }
        self.entities[se as usize].load = new;
        if on_rq {
            if !is_curr {
                self.__enqueue_entity(cfs, se);
            }
            let rq = &mut self.cfs_rqs[cfs];
            rq.load.weight += new.weight;
            rq.load.inv_weight = 0;
        }
    }

    // ---- the EEVDF generations (v6.6 – v6.18) ------------------------------------------

    /// update_curr's resched rule per generation: v6.6 reschedules when the request is
    /// used up; v6.12 also when PREEMPT_SHORT cancelled the protection and curr is no longer
    /// eligible (did_preempt_short); v6.17+ whenever the protected slice is over.
    pub(crate) fn update_curr_wants_resched(
        &self,
        cfs: CfsRqId,
        curr: EntityId,
        resched: bool,
    ) -> bool {
        resched
            || match self.fair_gen() {
                FairGen::Cfs | FairGen::Eevdf66 => false,
                FairGen::Eevdf612 => {
                    self.features.on(Feature::PREEMPT_SHORT)
                        && !self.protect_slice(curr)
                        && !self.entity_eligible(cfs, curr)
                }
                FairGen::Eevdf617 | FairGen::Current => !self.protect_slice(curr),
            }
    }

    /// set_next_entity's slice protection before v6.17: RUN_TO_PARITY protects curr up to
    /// its deadline (the v6.6 `vlag == deadline` mark), without it not at all.
    pub(crate) fn set_protect_slice_pre617(&mut self, se: EntityId) {
        let run_to_parity = self.features.on(Feature::RUN_TO_PARITY);
        let e = &mut self.entities[se as usize];
        e.vprot = if run_to_parity {
            e.deadline
        } else {
            e.vruntime
        };
    }

    /// update_entity_lag's clamp: ±calc_delta_fair(max(2·slice, TICK_NSEC)) until the v7.x
    /// rework, ±calc_delta_fair(max_slice + TICK_NSEC) in today's model.
    pub(crate) fn entity_lag_limit(&self, cfs: CfsRqId, se: EntityId) -> i64 {
        let tick = self.cfg.tick_nsec();
        let e = &self.entities[se as usize];
        let span = if self.fair_gen() == FairGen::Current {
            self.cfs_rq_max_slice(cfs) + tick
        } else {
            (2 * e.slice).max(tick)
        };
        calc_delta_fair(span, &e.load) as i64
    }

    /// check_preempt_wakeup_fair (v6.6 – v6.18): NEXT_BUDDY marks every non-fork wakee;
    /// the wakee preempts when the pick would choose it (a shorter-slice wakee ignores
    /// curr's protection from v6.12, PREEMPT_SHORT); from v6.17 a non-preempting wake-up
    /// of a shorter-slice wakee shortens the protection to the new min slice.
    pub(crate) fn check_preempt_wakeup_fair(&mut self, cpu: CpuId, p: TaskId, wake_flags: u32) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let (se, pse) = (self.tasks[curr].se, self.tasks[p].se);
        if se == pse || self.throttled_hierarchy(self.entities[pse as usize].cfs_rq) {
            return;
        }
        if self.features.on(Feature::NEXT_BUDDY)
            && wake_flags & wf::FORK == 0
            && !self.entities[pse as usize].sched_delayed
        {
            self.set_next_buddy(pse);
        }
        if self.rqs[cpu].need_resched {
            return;
        }
        if self.tasks[curr].is_idle_policy() && !self.tasks[p].is_idle_policy() {
            return self.resched_curr_lazy(cpu);
        }
        if self.tasks[p].policy != Policy::Normal || !self.features.on(Feature::WAKEUP_PREEMPTION) {
            return;
        }
        let (se, pse) = self.find_matching_se(se, pse);
        let (cse_idle, pse_idle) = (self.se_is_idle(se), self.se_is_idle(pse));
        if cse_idle && !pse_idle {
            return self.resched_curr_lazy(cpu);
        }
        if cse_idle != pse_idle {
            return;
        }
        let cfs = self.entities[se as usize].cfs_rq;
        self.update_curr(cfs);
        let short = self.features.on(Feature::PREEMPT_SHORT)
            && self.entities[pse as usize].slice < self.entities[se as usize].slice;
        if self.__pick_eevdf(cfs, !short) == Some(pse) {
            if short {
                self.cancel_protect_slice(se);
            }
            return self.resched_curr_lazy(cpu);
        }
        // Only for a shorter-slice wakee (v6.17, 6.18); every non-preempting wake-up from
        // 523afd46059d ("Reimplement NEXT_BUDDY", v6.19: wakeup_preempt_fair).
        if self.fair_gen() >= FairGen::Eevdf617 && short && self.features.on(Feature::RUN_TO_PARITY)
        {
            self.update_protect_slice(cfs, se);
        }
    }

    /// Until v6.14 the pick honoured cfs_rq->next only under NEXT_BUDDY; PICK_BUDDY
    /// (2a77e4be12cb, v6.14) made it a feature of its own.
    #[inline]
    pub(crate) fn pick_buddy_enabled(&self) -> bool {
        self.features.on(Feature::PICK_BUDDY)
            || (matches!(self.fair_gen(), FairGen::Eevdf66 | FairGen::Eevdf612)
                && self.features.on(Feature::NEXT_BUDDY))
    }
}
