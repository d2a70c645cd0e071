//! EEVDF at one cfs_rq level (kernel/sched/fair.c): virtual time, eligibility, charging,
//! deadlines, slice protection, picking, lag and placement.

use super::tree::EntityId;
use super::weights::{calc_delta_fair, scale_load_down};
use crate::sched::features::Feature;
use crate::sched::{CfsRqId, Sched, NORMALIZED_BASE_SLICE};

/// `a < b` for kernel u64 virtual times (signed difference).
#[inline]
pub fn vt_before(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

#[inline]
pub fn vt_min(a: u64, b: u64) -> u64 {
    if vt_before(b, a) {
        b
    } else {
        a
    }
}

/// ENQUEUE_* flags (kernel/sched/sched.h).
pub mod enqueue {
    pub const WAKEUP: u32 = 0x01;
    pub const MIGRATED: u32 = 0x02;
    pub const INITIAL: u32 = 0x04;
    pub const DELAYED: u32 = 0x08;
    /// ENQUEUE_HEAD: the real-time class queues the task first at its priority.
    pub const HEAD: u32 = 0x10;
    /// ENQUEUE_REPLENISH: the deadline class replenishes the entity as it enqueues it.
    pub const REPLENISH: u32 = 0x20;
}

/// DEQUEUE_* flags (kernel/sched/sched.h).
pub mod dequeue {
    pub const SLEEP: u32 = 0x01;
    pub const SPECIAL: u32 = 0x02;
    pub const DELAYED: u32 = 0x04;
    pub const MIGRATING: u32 = 0x08;
}

impl Sched {
    /// w(se): the down-scaled weight used in the avg_vruntime sums (v7.0 avg_vruntime_add).
    #[inline]
    pub(crate) fn avg_weight(&self, se: EntityId) -> u64 {
        scale_load_down(self.entities[se as usize].load.weight)
    }

    /// entity_key: vruntime relative to zero_vruntime.
    #[inline]
    pub(crate) fn entity_key(&self, cfs: CfsRqId, se: EntityId) -> i64 {
        self.entities[se as usize]
            .vruntime
            .wrapping_sub(self.cfs_rqs[cfs].zero_vruntime) as i64
    }

    /// curr if it is on_rq (the entity the sums leave out).
    #[inline]
    pub(crate) fn curr_on_rq(&self, cfs: CfsRqId) -> Option<EntityId> {
        self.cfs_rqs[cfs]
            .curr
            .filter(|&c| self.entities[c as usize].on_rq)
    }

    /// __enqueue_entity: insert into the tree and the sums.
    pub(crate) fn __enqueue_entity(&mut self, cfs: CfsRqId, se: EntityId) {
        if self.cfs_era() {
            // CFS orders the timeline by vruntime: carry it in the tree's key.
            let e = &mut self.entities[se as usize];
            e.deadline = e.vruntime;
        }
        let key = self.entity_key(cfs, se);
        let w = self.avg_weight(se);
        let e = &self.entities[se as usize];
        let (d, v, s) = (e.deadline, e.vruntime, e.slice);
        let rq = &mut self.cfs_rqs[cfs];
        rq.sum_w_vruntime += key * w as i64;
        rq.sum_weight += w;
        rq.tasks_timeline.insert(se, d, v, s);
    }

    /// __dequeue_entity: remove from the tree and the sums.
    pub(crate) fn __dequeue_entity(&mut self, cfs: CfsRqId, se: EntityId) {
        let key = self.entity_key(cfs, se);
        let w = self.avg_weight(se);
        let rq = &mut self.cfs_rqs[cfs];
        rq.sum_w_vruntime -= key * w as i64;
        rq.sum_weight -= w;
        let removed = rq.tasks_timeline.remove(se);
        debug_assert!(removed, "entity {se} not in the tree");
    }

    /// avg_vruntime: returns V and re-bases zero_vruntime onto it.
    pub fn avg_vruntime(&mut self, cfs: CfsRqId) -> u64 {
        let d = self.avg_vruntime_offset(cfs);
        let rq = &mut self.cfs_rqs[cfs];
        rq.sum_w_vruntime -= (rq.sum_weight as i64).wrapping_mul(d);
        rq.zero_vruntime = rq.zero_vruntime.wrapping_add(d as u64);
        rq.zero_vruntime
    }

    /// V − zero_vruntime, from the sums as they stand (floored; curr included). Probes
    /// read V as zero_vruntime + this without re-basing.
    pub fn avg_vruntime_offset(&self, cfs: CfsRqId) -> i64 {
        let curr = self.curr_on_rq(cfs);
        let rq = &self.cfs_rqs[cfs];
        if rq.sum_weight != 0 {
            let mut num = rq.sum_w_vruntime as i128;
            let mut den = rq.sum_weight as i128;
            if let Some(c) = curr {
                let w = self.avg_weight(c) as i128;
                num += self.entity_key(cfs, c) as i128 * w;
                den += w;
            }
            if num < 0 {
                num -= den - 1;
            }
            div_i128(num, den) as i64
        } else if let Some(c) = curr {
            self.entity_key(cfs, c)
        } else {
            0
        }
    }

    /// vruntime_eligible: v ≤ V, by cross-multiplication in 128 bits.
    pub fn vruntime_eligible(&self, cfs: CfsRqId, v: u64) -> bool {
        self.vruntime_eligible_test(cfs)(v)
    }

    /// vruntime_eligible with V's sums read once, for a search that tests many vruntimes
    /// of one queue.
    #[inline]
    fn vruntime_eligible_test(&self, cfs: CfsRqId) -> impl Fn(u64) -> bool {
        let rq = &self.cfs_rqs[cfs];
        let mut avg = rq.sum_w_vruntime as i128;
        let mut load = rq.sum_weight as i128;
        if let Some(c) = self.curr_on_rq(cfs) {
            let w = self.avg_weight(c) as i128;
            avg += self.entity_key(cfs, c) as i128 * w;
            load += w;
        }
        let zero = rq.zero_vruntime;
        move |v: u64| avg >= v.wrapping_sub(zero) as i64 as i128 * load
    }

    #[inline]
    pub fn entity_eligible(&self, cfs: CfsRqId, se: EntityId) -> bool {
        self.vruntime_eligible(cfs, self.entities[se as usize].vruntime)
    }

    /// cfs_rq_min_slice: min over curr (if on_rq) and the tree; u64::MAX if none.
    pub fn cfs_rq_min_slice(&self, cfs: CfsRqId) -> u64 {
        let tree = self.cfs_rqs[cfs]
            .tasks_timeline
            .min_slice()
            .unwrap_or(u64::MAX);
        match self.curr_on_rq(cfs) {
            Some(c) => tree.min(self.entities[c as usize].slice),
            None => tree,
        }
    }

    /// cfs_rq_max_slice: max over curr (if on_rq) and the tree; 0 if none.
    pub fn cfs_rq_max_slice(&self, cfs: CfsRqId) -> u64 {
        let tree = self.cfs_rqs[cfs].tasks_timeline.max_slice().unwrap_or(0);
        match self.curr_on_rq(cfs) {
            Some(c) => tree.max(self.entities[c as usize].slice),
            None => tree,
        }
    }

    /// update_deadline: a consumed request gets a new deadline; true = resched.
    pub(crate) fn update_deadline(&mut self, se: EntityId) -> bool {
        let base = self.cfg.base_slice;
        let e = &mut self.entities[se as usize];
        if vt_before(e.vruntime, e.deadline) {
            return false;
        }
        if !e.custom_slice {
            e.slice = base;
        }
        e.deadline = e.vruntime.wrapping_add(calc_delta_fair(e.slice, &e.load));
        true
    }

    /// protect_slice: curr is still within its protected run.
    #[inline]
    pub fn protect_slice(&self, se: EntityId) -> bool {
        let e = &self.entities[se as usize];
        vt_before(e.vruntime, e.vprot)
    }

    /// set_protect_slice, at a real pick. The picked entity is out of the tree and
    /// not yet curr, so the min slice is over the other queued entities.
    pub(crate) fn set_protect_slice(&mut self, cfs: CfsRqId, se: EntityId) {
        if self.cfg.kernel.fair_gen() < crate::sched::version::FairGen::Eevdf617 {
            return self.set_protect_slice_pre617(se);
        }
        let mut s = if self.features.on(Feature::RUN_TO_PARITY) {
            self.cfs_rqs[cfs]
                .tasks_timeline
                .min_slice()
                .unwrap_or(u64::MAX)
        } else {
            NORMALIZED_BASE_SLICE
        };
        let e = &mut self.entities[se as usize];
        s = s.min(e.slice);
        e.vprot = if s == e.slice {
            e.deadline
        } else {
            vt_min(
                e.deadline,
                e.vruntime.wrapping_add(calc_delta_fair(s, &e.load)),
            )
        };
    }

    /// update_protect_slice: a non-preempting wake-up shortens protection to the new min
    /// slice.
    pub(crate) fn update_protect_slice(&mut self, cfs: CfsRqId, se: EntityId) {
        let s = self.cfs_rq_min_slice(cfs);
        let e = &mut self.entities[se as usize];
        let bound = e.vruntime.wrapping_add(calc_delta_fair(s, &e.load));
        e.vprot = vt_min(e.vprot, bound);
    }

    /// cancel_protect_slice.
    pub(crate) fn cancel_protect_slice(&mut self, se: EntityId) {
        if self.protect_slice(se) {
            let e = &mut self.entities[se as usize];
            e.vprot = e.vruntime;
        }
    }

    /// __pick_eevdf (v7.0: the buddy shortcut does not look at `protect`).
    pub fn __pick_eevdf(&self, cfs: CfsRqId, protect: bool) -> Option<EntityId> {
        let rq = &self.cfs_rqs[cfs];
        let mut curr = rq.curr;
        let first = rq.tasks_timeline.first();
        if rq.nr_queued == 1 {
            return match curr {
                Some(c) if self.entities[c as usize].on_rq => Some(c),
                _ => first,
            };
        }
        // V's sums do not change during a pick: read them once for every test below.
        let eligible = self.vruntime_eligible_test(cfs);
        let vruntime = |se: EntityId| self.entities[se as usize].vruntime;
        if self.pick_buddy_enabled() {
            if let Some(n) = rq.next {
                if eligible(vruntime(n)) {
                    return Some(n);
                }
            }
        }
        if let Some(c) = curr {
            if !self.entities[c as usize].on_rq || !eligible(vruntime(c)) {
                curr = None;
            }
        }
        if let Some(c) = curr {
            if protect && self.protect_slice(c) {
                return Some(c);
            }
        }
        let best = match first {
            Some(f) if eligible(vruntime(f)) => Some(f),
            _ => rq.tasks_timeline.pick_eligible(&eligible),
        };
        match (best, curr) {
            (None, c) => c,
            (Some(b), Some(c))
                if vt_before(
                    self.entities[c as usize].deadline,
                    self.entities[b as usize].deadline,
                ) =>
            {
                Some(c)
            }
            (b, _) => b,
        }
    }

    /// update_entity_lag: vlag = V − v, clamped to ±calc_delta_fair(max_slice + TICK)
    /// (older releases: entity_lag_limit).
    pub(crate) fn update_entity_lag(&mut self, cfs: CfsRqId, se: EntityId) {
        let limit = self.entity_lag_limit(cfs, se);
        let v = self.avg_vruntime(cfs);
        let e = &mut self.entities[se as usize];
        let vlag = v.wrapping_sub(e.vruntime) as i64;
        e.vlag = vlag.clamp(-limit, limit);
    }

    /// place_entity: position a joining entity from V and its lag.
    pub(crate) fn place_entity(&mut self, cfs: CfsRqId, se: EntityId, flags: u32) {
        let v = self.avg_vruntime(cfs);
        let base = self.cfg.base_slice;
        let place_lag = self.features.on(Feature::PLACE_LAG);
        let initial =
            self.features.on(Feature::PLACE_DEADLINE_INITIAL) && flags & enqueue::INITIAL != 0;
        let nr_queued = self.cfs_rqs[cfs].nr_queued;
        let mut load = self.cfs_rqs[cfs].sum_weight;
        if let Some(c) = self.curr_on_rq(cfs) {
            load += self.avg_weight(c);
        }
        let w_se = self.avg_weight(se);
        let e = &mut self.entities[se as usize];
        if !e.custom_slice {
            e.slice = base;
        }
        let mut vslice = calc_delta_fair(e.slice, &e.load);
        let mut lag: i64 = 0;
        if place_lag && nr_queued > 0 && e.vlag != 0 {
            // lag · (L + w) / L, with L forced to 1 after the product if it is 0.
            let l = load.max(1);
            lag = div_i128(e.vlag as i128 * (load + w_se) as i128, l as i128) as i64;
        }
        e.vruntime = v.wrapping_sub(lag as u64);
        if e.rel_deadline {
            e.deadline = e.deadline.wrapping_add(e.vruntime);
            e.rel_deadline = false;
            return;
        }
        if initial {
            vslice /= 2;
        }
        e.deadline = e.vruntime.wrapping_add(vslice);
    }
}

/// i128 division that takes the 64-bit path when both operands fit (almost always): the
/// 128-bit software division was a few percent of the whole simulation.
fn div_i128(num: i128, den: i128) -> i128 {
    match (i64::try_from(num), i64::try_from(den)) {
        (Ok(n), Ok(d)) if !(n == i64::MIN && d == -1) => (n / d) as i128,
        _ => num / den,
    }
}
