//! PELT through the hierarchy (fair.c): tg->load_avg with its 1/64 filter,
//! propagation of attach/detach/removal into group entities, the frozen PELT clock of a
//! throttled hierarchy, and blocked-load decay of every group cfs_rq.

use super::super::tree::EntityId;
use super::super::weights::scale_load_down;
use super::ROOT_TG;
use crate::machine::CpuId;
use crate::sched::pelt::{get_pelt_divider, PELT_MIN_DIVIDER, SCHED_CAPACITY_SHIFT};
use crate::sched::{CfsRqId, Sched};
use crate::time::Ns;

/// update_tg_load_avg pushes at most once per this (NSEC_PER_MSEC).
const TG_LOAD_AVG_RATE_NS: Ns = 1_000_000;

/// add_positive: add a signed delta, flooring at 0.
fn add_positive(v: &mut u64, d: i64) {
    *v = (*v as i64).saturating_add(d).max(0) as u64;
}

impl Sched {
    /// cfs_rq_clock_pelt: the rq's PELT clock minus the time this hierarchy spent
    /// throttled; frozen while throttled.
    #[inline]
    pub(crate) fn cfs_rq_clock_pelt(&self, cfs: CfsRqId) -> Ns {
        let g = &self.cfs_rqs[cfs].grp;
        if g.throttle_count > 0 {
            return g.throttled_clock_pelt - g.throttled_clock_pelt_time;
        }
        self.rq_clock_pelt(self.cfs_rqs[cfs].cpu) - g.throttled_clock_pelt_time
    }

    /// add_tg_cfs_propagate: remember a load change for the group entity above.
    #[inline]
    pub(crate) fn add_tg_cfs_propagate(&mut self, cfs: CfsRqId, runnable_sum: i64) {
        let g = &mut self.cfs_rqs[cfs].grp;
        g.propagate = true;
        g.prop_runnable_sum += runnable_sum;
    }

    /// update_tg_load_avg: push this cfs_rq's load into tg->load_avg when
    /// it moved by more than 1/64 of the last push, at most once per ms from v6.7.
    pub(crate) fn update_tg_load_avg(&mut self, cfs: CfsRqId) {
        let tg = self.cfs_rqs[cfs].grp.tg;
        if tg == ROOT_TG {
            return;
        }
        let now = self.now;
        let ratelimit = self.cfg.kernel.ratelimits_tg_load_avg();
        let rq = &mut self.cfs_rqs[cfs];
        if ratelimit && now.saturating_sub(rq.grp.last_update_tg_load_avg) < TG_LOAD_AVG_RATE_NS {
            return;
        }
        let delta = rq.avg.load_avg as i64 - rq.grp.tg_load_avg_contrib as i64;
        if delta.unsigned_abs() > rq.grp.tg_load_avg_contrib / 64 {
            rq.grp.tg_load_avg_contrib = rq.avg.load_avg;
            rq.grp.last_update_tg_load_avg = now;
            self.groups[tg].load_avg += delta;
        }
    }

    /// propagate_entity_load_avg: a group entity takes on its cfs_rq's
    /// util and runnable, and its load from the accumulated runnable sum.
    pub(crate) fn propagate_entity_load_avg(&mut self, se: EntityId) -> bool {
        let Some(gcfs) = self.entities[se as usize].my_q else {
            return false;
        };
        if !self.cfs_rqs[gcfs].grp.propagate {
            return false;
        }
        self.cfs_rqs[gcfs].grp.propagate = false;
        let cfs = self.entities[se as usize].cfs_rq;
        let prop = self.cfs_rqs[gcfs].grp.prop_runnable_sum;
        self.add_tg_cfs_propagate(cfs, prop);
        self.update_tg_cfs_util(cfs, se, gcfs);
        self.update_tg_cfs_runnable(cfs, se, gcfs);
        self.update_tg_cfs_load(cfs, se, gcfs);
        true
    }

    /// update_tg_cfs_util.
    fn update_tg_cfs_util(&mut self, cfs: CfsRqId, se: EntityId, gcfs: CfsRqId) {
        let g_util = self.cfs_rqs[gcfs].avg.util_avg;
        let delta_avg = g_util as i64 - self.entities[se as usize].avg.util_avg as i64;
        if delta_avg == 0 {
            return;
        }
        let divider = get_pelt_divider(&self.cfs_rqs[cfs].avg) as u64;
        let sa = &mut self.entities[se as usize].avg;
        sa.util_avg = g_util;
        let new_sum = (g_util * divider) as u32;
        let delta_sum = new_sum as i64 - sa.util_sum as i64;
        sa.util_sum = new_sum;
        let ra = &mut self.cfs_rqs[cfs].avg;
        add_positive(&mut ra.util_avg, delta_avg);
        let mut us = ra.util_sum as u64;
        add_positive(&mut us, delta_sum);
        ra.util_sum = us.max(ra.util_avg * PELT_MIN_DIVIDER as u64) as u32;
    }

    /// update_tg_cfs_runnable.
    fn update_tg_cfs_runnable(&mut self, cfs: CfsRqId, se: EntityId, gcfs: CfsRqId) {
        let g_run = self.cfs_rqs[gcfs].avg.runnable_avg;
        let delta_avg = g_run as i64 - self.entities[se as usize].avg.runnable_avg as i64;
        if delta_avg == 0 {
            return;
        }
        let divider = get_pelt_divider(&self.cfs_rqs[cfs].avg) as u64;
        let sa = &mut self.entities[se as usize].avg;
        sa.runnable_avg = g_run;
        let new_sum = g_run * divider;
        let delta_sum = new_sum as i64 - sa.runnable_sum as i64;
        sa.runnable_sum = new_sum;
        let ra = &mut self.cfs_rqs[cfs].avg;
        add_positive(&mut ra.runnable_avg, delta_avg);
        add_positive(&mut ra.runnable_sum, delta_sum);
        ra.runnable_sum = ra
            .runnable_sum
            .max(ra.runnable_avg * PELT_MIN_DIVIDER as u64);
    }

    /// update_tg_cfs_load: rebuild the group entity's load_sum from the propagated
    /// runnable time.
    fn update_tg_cfs_load(&mut self, cfs: CfsRqId, se: EntityId, gcfs: CfsRqId) {
        let mut runnable_sum = self.cfs_rqs[gcfs].grp.prop_runnable_sum;
        if runnable_sum == 0 {
            return;
        }
        self.cfs_rqs[gcfs].grp.prop_runnable_sum = 0;
        let divider = get_pelt_divider(&self.cfs_rqs[cfs].avg) as i64;
        let sa = self.entities[se as usize].avg;
        if runnable_sum >= 0 {
            runnable_sum = (runnable_sum + sa.load_sum as i64).min(divider);
        } else {
            let gw = scale_load_down(self.cfs_rqs[gcfs].load.weight);
            let load_sum = self.cfs_rqs[gcfs].avg.load_sum.checked_div(gw).unwrap_or(0);
            runnable_sum = (sa.load_sum.min(load_sum)) as i64;
        }
        let running_sum = (sa.util_sum >> SCHED_CAPACITY_SHIFT) as i64;
        runnable_sum = runnable_sum.max(running_sum);
        let w = scale_load_down(self.entities[se as usize].load.weight) as i64;
        let load_sum = w * runnable_sum;
        let load_avg = load_sum / divider;
        let delta_avg = load_avg - sa.load_avg as i64;
        if delta_avg == 0 {
            return;
        }
        let delta_sum = load_sum - w * sa.load_sum as i64;
        let e = &mut self.entities[se as usize].avg;
        e.load_sum = runnable_sum as u64;
        e.load_avg = load_avg as u64;
        let ra = &mut self.cfs_rqs[cfs].avg;
        add_positive(&mut ra.load_avg, delta_avg);
        add_positive(&mut ra.load_sum, delta_sum);
        ra.load_sum = ra.load_sum.max(ra.load_avg * PELT_MIN_DIVIDER as u64);
    }

    /// __update_blocked_fair for the group cfs_rqs of `cpu`, children before parents
    /// (the leaf_cfs_rq_list order). The root is aged by the caller.
    pub(crate) fn update_blocked_groups(&mut self, cpu: CpuId) {
        for tg in (1..self.groups.len()).rev() {
            let cfs = self.groups[tg].cfs_rq[cpu];
            let now = self.cfs_rq_clock_pelt(cfs);
            if self.update_cfs_rq_load_avg(now, cfs) {
                self.update_tg_load_avg(cfs);
            }
            let se = self.groups[tg].se[cpu].expect("a non-root group has entities");
            if !self.skip_blocked_update(se) {
                let parent_cfs = self.entities[se as usize].cfs_rq;
                self.update_load_avg(parent_cfs, se, super::super::load_avg::upd::UPDATE_TG);
            }
        }
    }

    /// skip_blocked_update: nothing to propagate and nothing left to decay.
    fn skip_blocked_update(&self, se: EntityId) -> bool {
        let gcfs = self.entities[se as usize].my_q.expect("group entity");
        if self.cfs_rqs[gcfs].grp.prop_runnable_sum != 0 {
            return false;
        }
        let a = &self.entities[se as usize].avg;
        a.load_avg == 0 && a.util_avg == 0
    }
}
