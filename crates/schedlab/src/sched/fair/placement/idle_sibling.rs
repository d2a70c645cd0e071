//! select_idle_sibling (fair.c) with seed 000's UTIL_FITS_CAPACITY and
//! SELECT_BIAS_PREV (docs/studies.md, util-fits-capacity).

use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::uclamp::UclampId;
use crate::sched::{Sched, TaskId};

/// The wakee's utilisation and clamps, as select_idle_sibling computes them once.
#[derive(Debug, Clone, Copy)]
pub(super) struct WakeeUtil {
    pub util: u64,
    pub min: u64,
    pub max: u64,
}

impl Sched {
    /// cpus_share_resources: same cluster (falls back to the LLC without clusters).
    pub fn cpus_share_resources(&self, a: CpuId, b: CpuId) -> bool {
        self.sd.cpus[a].sd_share_id == self.sd.cpus[b].sd_share_id
    }

    pub(super) fn wakee_util(&mut self, p: TaskId) -> WakeeUtil {
        let se = self.tasks[p].se;
        self.sync_entity_load_avg(se);
        WakeeUtil {
            util: self.task_util_est(p),
            min: self.uclamp_eff_value(p, UclampId::Min) as u64,
            max: self.uclamp_eff_value(p, UclampId::Max) as u64,
        }
    }

    /// A candidate the fast checks accept: idle (or SCHED_IDLE-only for a normal wakee), or
    /// — with UTIL_FITS_CAPACITY — a CPU whose enqueued util_est leaves room for the task.
    fn sis_accepts(&self, cpu: CpuId, p: TaskId, w: Option<WakeeUtil>) -> bool {
        self.choose_idle_cpu(cpu, p)
            || w.is_some_and(|w| self.task_fits_remaining_cpu_capacity(w.util, cpu))
    }

    fn count_scan(&mut self, found: bool) {
        if found {
            self.placement.sis_scan += 1;
        } else {
            self.placement.sis_fallback += 1;
        }
    }

    /// select_idle_sibling(p, prev, target). Step 3 (per-CPU kthread
    /// stacking) does not arise: the model has no kernel threads.
    pub fn select_idle_sibling(&mut self, p: TaskId, prev: CpuId, target: CpuId) -> CpuId {
        let asym = self.sd.sched_asym_cpucapacity;
        let fits_room =
            self.features.on(Feature::UTIL_EST) && self.features.on(Feature::UTIL_FITS_CAPACITY);
        let w = (asym || fits_room).then(|| self.wakee_util(p));
        let room = w.filter(|_| fits_room);
        let bias_prev = self.features.on(Feature::SELECT_BIAS_PREV);
        let clusters = self.sd.sched_cluster_active;

        // SELECT_BIAS_PREV step 1: prev first, when it is (or shares cache with) target.
        if bias_prev
            && (prev == target || self.cpus_share_cache(prev, target))
            && self.sis_accepts(prev, p, room)
            && self.asym_fits_cpu(w, prev)
        {
            self.placement.sis_prev += 1;
            return prev;
        }
        // 1. The target itself.
        if self.sis_accepts(target, p, room) && self.asym_fits_cpu(w, target) {
            self.placement.sis_target += 1;
            return target;
        }
        // 2. prev, if cache-affine with target (SELECT_BIAS_PREV already tried it).
        let mut prev_aff = None;
        if !bias_prev
            && prev != target
            && self.cpus_share_cache(prev, target)
            && self.sis_accepts(prev, p, room)
            && self.asym_fits_cpu(w, prev)
        {
            if !clusters || self.cpus_share_resources(prev, target) {
                self.placement.sis_prev += 1;
                return prev;
            }
            prev_aff = Some(prev);
        }
        // 4. recent_used_cpu: likely cache-hot, and swapped for prev.
        let r = self.tasks[p].recent_used_cpu;
        self.tasks[p].recent_used_cpu = prev;
        let mut recent = None;
        if r != prev
            && r != target
            && self.cpus_share_cache(r, target)
            && self.sis_accepts(r, p, room)
            && self.tasks[p].cpus_allowed[r]
            && self.asym_fits_cpu(w, r)
        {
            if !clusters || self.cpus_share_resources(r, target) {
                self.placement.sis_recent += 1;
                return r;
            }
            recent = Some(r);
        }
        // 5. Asymmetric capacities: the capacity-aware scan decides.
        if asym {
            if let Some(sd) = self.sd.cpus[target].sd_asym_cpucapacity {
                let w = w.expect("computed on asymmetric machines");
                return self
                    .select_idle_capacity(p, sd, target, w)
                    .unwrap_or(target);
            }
        }
        // 6.–8. Scan the LLC.
        let Some(llc) = self.sd.cpus[target].sd_llc else {
            return target;
        };
        let mut has_idle_core = false;
        if self.sd.sched_smt_present {
            has_idle_core = self.test_idle_cores(target);
            if !has_idle_core && self.cpus_share_cache(prev, target) {
                if let Some(i) = self.select_idle_smt(p, llc, prev) {
                    self.count_scan(true);
                    return i;
                }
            }
        }
        if let Some(i) = self.select_idle_cpu(p, llc, has_idle_core, target) {
            self.count_scan(true);
            return i;
        }
        self.count_scan(false);
        // 9. Late candidates; SELECT_BIAS_PREV prefers a cache-affine prev over target.
        if let Some(c) = prev_aff.or(recent) {
            return c;
        }
        if bias_prev && self.cpus_share_cache(prev, target) {
            return prev;
        }
        target
    }
}
