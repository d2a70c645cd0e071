//! Group weight: cpu.weight → tg->shares and the per-CPU share of it (core.c
//! cpu_weight_write_u64, fair.c calc_group_shares / update_cfs_group).

use super::super::tree::EntityId;
use super::super::weights::{scale_load, scale_load_down, LoadWeight};
use crate::sched::pelt::get_pelt_divider;
use crate::sched::{CfsRqId, Sched};

/// CGROUP_WEIGHT_MIN / _DFL / _MAX.
pub const CGROUP_WEIGHT_MIN: u64 = 1;
pub const CGROUP_WEIGHT_DFL: u64 = 100;
pub const CGROUP_WEIGHT_MAX: u64 = 10_000;
/// MIN_SHARES / MAX_SHARES (unscaled, kernel/sched/sched.h).
pub const MIN_SHARES: u64 = 2;
pub const MAX_SHARES: u64 = 1 << 18;

/// sched_weight_from_cgroup (round-closest of weight·1024/100), then scale_load and the
/// clamp of __sched_group_set_shares.
pub fn weight_to_shares(cgrp_weight: u64) -> u64 {
    let w = (cgrp_weight * 1024 + CGROUP_WEIGHT_DFL / 2) / CGROUP_WEIGHT_DFL;
    scale_load(w).clamp(scale_load(MIN_SHARES), scale_load(MAX_SHARES))
}

impl Sched {
    /// calc_group_shares: this CPU's part of tg->shares, by its load against the group's
    /// total.
    pub(crate) fn calc_group_shares(&self, gcfs: CfsRqId) -> u64 {
        let rq = &self.cfs_rqs[gcfs];
        let tg = &self.groups[rq.grp.tg];
        let tg_shares = tg.shares as i64;
        let load = scale_load_down(rq.load.weight).max(rq.avg.load_avg) as i64;
        let tg_weight = tg.load_avg - rq.grp.tg_load_avg_contrib as i64 + load;
        let mut shares = tg_shares * load;
        if tg_weight != 0 {
            shares /= tg_weight;
        }
        shares.clamp(MIN_SHARES as i64, tg_shares) as u64
    }

    /// update_cfs_group: reweight a group entity to its share; from v6.13 skipped while its
    /// cfs_rq is empty, so an emptied (delayed) group keeps its weight.
    pub(crate) fn update_cfs_group(&mut self, se: EntityId) {
        let Some(gcfs) = self.entities[se as usize].my_q else {
            return;
        };
        if self.cfs_rqs[gcfs].load.weight == 0 && self.cfg.kernel.preserves_empty_group_weight() {
            return;
        }
        let shares = self.calc_group_shares(gcfs);
        if self.entities[se as usize].load.weight != shares {
            self.reweight_group_entity(se, shares);
        }
    }

    /// reweight_entity for a group entity: the EEVDF part plus
    /// the PELT load moved out and back at the new weight (dequeue_load_avg / enqueue_load_avg).
    fn reweight_group_entity(&mut self, se: EntityId, shares: u64) {
        let cfs = self.entities[se as usize].cfs_rq;
        let w_old = scale_load_down(self.entities[se as usize].load.weight);
        {
            // dequeue_load_avg.
            let sa = self.entities[se as usize].avg;
            let ra = &mut self.cfs_rqs[cfs].avg;
            ra.load_avg = ra.load_avg.saturating_sub(sa.load_avg);
            ra.load_sum = ra.load_sum.saturating_sub(w_old * sa.load_sum);
            ra.load_sum = ra
                .load_sum
                .max(ra.load_avg * crate::sched::pelt::PELT_MIN_DIVIDER as u64);
        }
        self.reweight_entity(se, LoadWeight::raw(shares));
        let w_new = scale_load_down(shares);
        let divider = get_pelt_divider(&self.entities[se as usize].avg) as u64;
        let sa = &mut self.entities[se as usize].avg;
        sa.load_avg = w_new * sa.load_sum / divider;
        let (la, ls) = (sa.load_avg, sa.load_sum);
        // enqueue_load_avg.
        let ra = &mut self.cfs_rqs[cfs].avg;
        ra.load_avg += la;
        ra.load_sum += w_new * ls;
    }
}
