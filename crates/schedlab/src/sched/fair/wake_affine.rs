//! Wake-up placement pieces that do not walk the domain tree (fair.c): wakee flips and
//! wake_wide, wake_affine, the idle predicates, the SIS_UTIL
//! scan budget and seed 000's "room for the task" check.

use crate::machine::CpuId;
use crate::sched::capacity::fits_capacity;
use crate::sched::features::Feature;
use crate::sched::Policy;
use crate::sched::{Sched, TaskId};
use crate::time::Ns;

/// update_idle_cpu_scan's formula: how many CPUs select_idle_cpu may
/// visit, from the LLC's summed util, its weight and imbalance_pct.
pub fn nr_idle_scan_for(sum_util: u64, llc_weight: u64, imbalance_pct: u64) -> u64 {
    let x = sum_util / llc_weight;
    let t = (x * x * imbalance_pct * imbalance_pct / (10_000 * 1024)).min(1024);
    (1024 - t) * llc_weight / 1024
}

impl Sched {
    /// record_wakee, in the waker's context.
    pub(crate) fn record_wakee(&mut self, waker: TaskId, p: TaskId) {
        let hz_ns = 1_000_000_000 as Ns;
        let now = self.now;
        let w = &mut self.tasks[waker];
        if now > w.wakee_flip_decay_ts + hz_ns {
            w.wakee_flips >>= 1;
            w.wakee_flip_decay_ts = now;
        }
        if w.last_wakee != Some(p) {
            w.last_wakee = Some(p);
            w.wakee_flips += 1;
        }
    }

    /// wake_wide: the waker/wakee flip counts say this is a 1:many pattern wider than the
    /// LLC, so do not pull the wakee next to the waker.
    pub fn wake_wide(&self, waker: Option<TaskId>, p: TaskId, llc_size: u64) -> bool {
        let Some(w) = waker else {
            return false;
        };
        let (a, b) = (self.tasks[w].wakee_flips, self.tasks[p].wakee_flips);
        let (master, slave) = (a.max(b), a.min(b));
        slave >= llc_size && master >= slave * llc_size
    }

    /// idle_cpu / available_idle_cpu (no vCPU preemption is modelled).
    pub fn available_idle_cpu(&self, cpu: CpuId) -> bool {
        self.cpu_is_idle(cpu)
    }

    /// sched_idle_rq: only SCHED_IDLE tasks are queued.
    pub fn sched_idle_rq(&self, cpu: CpuId) -> bool {
        let rq = &self.rqs[cpu];
        rq.nr_running > 0 && rq.nr_running == self.cfs_rqs[rq.cfs].h_nr_idle
    }

    /// choose_idle_cpu: idle, or SCHED_IDLE-only for a non-SCHED_IDLE wakee (v7.1,
    /// fd54d81c2c0e).
    pub fn choose_idle_cpu(&self, cpu: CpuId, p: TaskId) -> bool {
        self.available_idle_cpu(cpu) || self.choose_sched_idle_rq(cpu, p)
    }

    /// choose_sched_idle_rq: a SCHED_IDLE-only CPU counts as idle for a normal wakee.
    pub fn choose_sched_idle_rq(&self, cpu: CpuId, p: TaskId) -> bool {
        self.sched_idle_rq(cpu) && self.tasks[p].policy != Policy::Idle
    }

    /// is_core_idle: every SMT sibling of `cpu` is idle.
    pub fn is_core_idle(&self, cpu: CpuId) -> bool {
        self.smt_siblings[cpu]
            .iter()
            .all(|&s| self.available_idle_cpu(s))
    }

    /// cpus_share_cache: same LLC.
    pub fn cpus_share_cache(&self, a: CpuId, b: CpuId) -> bool {
        self.machine.cpus[a].llc == self.machine.cpus[b].llc
    }

    /// cpu_load: the root cfs_rq's PELT load_avg, blocked load included.
    pub fn cpu_load(&self, cpu: CpuId) -> u64 {
        self.cfs_rqs[self.rqs[cpu].cfs].avg.load_avg
    }

    /// wake_affine: this_cpu if the wakee should follow the waker,
    /// else prev_cpu.
    pub fn wake_affine(
        &self,
        imbalance_pct: u64,
        waker: Option<TaskId>,
        p: TaskId,
        this_cpu: CpuId,
        prev_cpu: CpuId,
        sync: bool,
    ) -> CpuId {
        let mut target = None;
        if self.features.on(Feature::WA_IDLE) {
            target = self.wake_affine_idle(this_cpu, prev_cpu, sync);
        }
        if target.is_none() && self.features.on(Feature::WA_WEIGHT) {
            target = self.wake_affine_weight(imbalance_pct, waker, p, this_cpu, prev_cpu, sync);
        }
        if target == Some(this_cpu) {
            this_cpu
        } else {
            prev_cpu
        }
    }

    fn wake_affine_idle(&self, this_cpu: CpuId, prev_cpu: CpuId, sync: bool) -> Option<CpuId> {
        if self.available_idle_cpu(this_cpu) && self.cpus_share_cache(this_cpu, prev_cpu) {
            return Some(if self.available_idle_cpu(prev_cpu) {
                prev_cpu
            } else {
                this_cpu
            });
        }
        let rq = &self.rqs[this_cpu];
        let cfs = &self.cfs_rqs[rq.cfs];
        let delayed = cfs.h_nr_queued - cfs.h_nr_runnable;
        if sync && rq.nr_running.saturating_sub(delayed) == 1 {
            return Some(this_cpu);
        }
        if self.available_idle_cpu(prev_cpu) {
            return Some(prev_cpu);
        }
        None
    }

    fn wake_affine_weight(
        &self,
        imbalance_pct: u64,
        waker: Option<TaskId>,
        p: TaskId,
        this_cpu: CpuId,
        prev_cpu: CpuId,
        sync: bool,
    ) -> Option<CpuId> {
        let mut this_eff = self.cpu_load(this_cpu) as i64;
        if sync {
            if let Some(w) = waker {
                let cl = self.task_h_load(w) as i64;
                if cl > this_eff {
                    return Some(this_cpu);
                }
                this_eff -= cl;
            }
        }
        let task_load = self.task_h_load(p) as i64;
        this_eff += task_load;
        let bias = self.features.on(Feature::WA_BIAS);
        if bias {
            this_eff *= 100;
        }
        this_eff *= self.capacity_of(prev_cpu) as i64;
        let mut prev_eff = self.cpu_load(prev_cpu) as i64 - task_load;
        if bias {
            prev_eff *= 100 + (imbalance_pct as i64 - 100) / 2;
        }
        prev_eff *= self.capacity_of(this_cpu) as i64;
        if sync {
            prev_eff += 1;
        }
        (this_eff < prev_eff).then_some(this_cpu)
    }

    /// task_fits_remaining_cpu_capacity (seed 000; docs/studies.md, util-fits-capacity): the
    /// enqueued util_est plus the task's util fits the CPU — with the 20% margin against
    /// scale_rt_capacity (v2), or with no margin against capacity − pressure (v1).
    pub fn task_fits_remaining_cpu_capacity(&self, task_util: u64, cpu: CpuId) -> bool {
        if !self.features.on(Feature::UTIL_EST) || !self.features.on(Feature::UTIL_FITS_CAPACITY) {
            return false;
        }
        let enqueued = (self.cfs_rqs[self.rqs[cpu].cfs].avg.util_est
            & !super::util_est::UTIL_AVG_UNCHANGED) as u64;
        let total = enqueued + task_util;
        if self.features.on(Feature::UTIL_FITS_CAPACITY_V1) {
            total <= self.get_actual_cpu_capacity(cpu)
        } else {
            fits_capacity(total, self.capacity_of(cpu))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sis_util_budget_matches_the_spec_table() {
        // update_idle_cpu_scan's formula worked out by hand: LLC size → budget at 0..85% mean
        // util (pct 117).
        let table: &[(u64, [u64; 9])] = &[
            (8, [8, 7, 7, 5, 4, 2, 1, 1, 0]),
            (16, [16, 15, 14, 10, 8, 5, 3, 2, 0]),
            (32, [32, 31, 29, 21, 16, 10, 7, 4, 0]),
            (64, [64, 63, 58, 42, 32, 21, 14, 8, 0]),
        ];
        let pcts = [0u64, 10, 25, 50, 60, 70, 75, 80, 85];
        for &(w, expect) in table {
            for (i, &pct) in pcts.iter().enumerate() {
                let util = 1024 * pct / 100;
                assert_eq!(
                    nr_idle_scan_for(util * w, w, 117),
                    expect[i],
                    "w={w} {pct}%"
                );
            }
        }
    }
}
