//! util_est, v6.8+ form (fair.c) and the two-field {enqueued, ewma} form before it, and
//! the CPU utilisation helpers that read it (cpu_util, cpu_util_cfs, cpu_util_cfs_boost,
//! cpu_util_without).

use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::pelt::SchedAvg;
use crate::sched::{Sched, TaskId};

/// UTIL_AVG_UNCHANGED: MSB of util_est, set at each estimate update and cleared when PELT
/// recomputes util_avg (pelt.h).
pub const UTIL_AVG_UNCHANGED: u32 = 0x8000_0000;
/// UTIL_EST_WEIGHT_SHIFT: the EWMA weight is 1/4.
pub const UTIL_EST_WEIGHT_SHIFT: u32 = 2;
/// UTIL_EST_MARGIN = SCHED_CAPACITY_SCALE / 100.
pub const UTIL_EST_MARGIN: u64 = 1024 / 100;

/// cfs_se_util_change: PELT moved util_avg, so the next sleep may update the estimate.
/// (The kernel also clears it at the sleep dequeue's own PELT update when that crosses a
/// period boundary, so the next sleep may update again.)
pub fn cfs_se_util_change(avg: &mut SchedAvg) {
    avg.util_est &= !UTIL_AVG_UNCHANGED;
}

/// The EWMA step of util_est_update for a task whose util_avg at sleep is `dequeued`
/// and runnable_avg is `runnable`. Returns the new field.
pub fn util_est_next(util_est: u32, dequeued: u64, runnable: u64) -> u32 {
    if util_est & UTIL_AVG_UNCHANGED != 0 {
        return util_est;
    }
    let ewma = util_est as u64;
    let ewma = if ewma <= dequeued {
        dequeued
    } else {
        let diff = ewma - dequeued;
        if diff < UTIL_EST_MARGIN || dequeued + UTIL_EST_MARGIN < runnable {
            ewma
        } else {
            ((ewma << UTIL_EST_WEIGHT_SHIFT) - diff) >> UTIL_EST_WEIGHT_SHIFT
        }
    };
    ewma as u32 | UTIL_AVG_UNCHANGED
}

/// |value| < margin (fair.c within_margin).
fn within_margin(value: i64, margin: u64) -> bool {
    value.unsigned_abs() < margin
}

/// util_est_update before v6.8 ("sched/fair: Simplify util_est"): `ewma` (flag in the
/// MSB) and `enqueued` for a task whose util_avg at sleep is `dequeued`. Returns the new
/// (ewma, enqueued), or None when the kernel returns without storing.
pub fn util_est_next_two_field(
    ewma: u32,
    enqueued: u32,
    dequeued: u64,
    runnable: u64,
    fastup: bool,
) -> Option<(u32, u32)> {
    if ewma & UTIL_AVG_UNCHANGED != 0 {
        return None;
    }
    let mut e = ewma as u64;
    let done = |e: u64| Some((e as u32 | UTIL_AVG_UNCHANGED, dequeued as u32));
    // UTIL_EST_FASTUP: reset the EWMA on increases.
    if fastup && e < dequeued {
        return done(dequeued);
    }
    let last_ewma_diff = dequeued as i64 - e as i64;
    let last_enqueued_diff = enqueued as i64 - dequeued as i64;
    if within_margin(last_ewma_diff, UTIL_EST_MARGIN) {
        if !within_margin(last_enqueued_diff, UTIL_EST_MARGIN) {
            return done(e);
        }
        return None;
    }
    // Not all the CPU time the task wanted: leave the EWMA as it is.
    if dequeued + UTIL_EST_MARGIN < runnable {
        return done(e);
    }
    e = (((e << UTIL_EST_WEIGHT_SHIFT) as i64 + last_ewma_diff) as u64) >> UTIL_EST_WEIGHT_SHIFT;
    done(e)
}

/// The cpu_util_cfs readers the util_est_faster boost can be applied to one at a time
/// (seed 003's `_freq`, `_lb`, `_ou`, `_slowpath` variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UtilConsumer {
    Freq,
    Lb,
    Overutilized,
    Slowpath,
}

impl UtilConsumer {
    fn feature(self) -> Feature {
        match self {
            UtilConsumer::Freq => Feature::UTIL_EST_FASTER_FREQ,
            UtilConsumer::Lb => Feature::UTIL_EST_FASTER_LB,
            UtilConsumer::Overutilized => Feature::UTIL_EST_FASTER_OU,
            UtilConsumer::Slowpath => Feature::UTIL_EST_FASTER_SLOWPATH,
        }
    }
}

impl Sched {
    /// The util_est_faster boost for `consumer` on `cpu`, 0 when off: the PELT ramp of
    /// twice curr's runtime in its current activation, scaled by CPU capacity and
    /// frequency to PELT time (seed 003's "scaled util_est_faster").
    #[inline]
    pub fn util_est_faster(&self, cpu: CpuId, consumer: UtilConsumer) -> u64 {
        if !self.util_est_faster_on(consumer) {
            return 0;
        }
        self.util_est_faster_boost(cpu)
    }

    /// `consumer` reads the util_est_faster boost.
    #[inline]
    pub(crate) fn util_est_faster_on(&self, consumer: UtilConsumer) -> bool {
        self.features.on(Feature::UTIL_EST)
            && (self.features.on(Feature::UTIL_EST_FASTER) || self.features.on(consumer.feature()))
    }

    /// The boost itself, once a consumer has it switched on.
    pub(crate) fn util_est_faster_boost(&self, cpu: CpuId) -> u64 {
        let Some(curr) = self.rqs[cpu].curr else {
            return 0;
        };
        let e = &self.entities[self.tasks[curr].se as usize];
        let delta = (e.sum_exec_runtime - e.prev_sum_exec_runtime_vol) >> 10;
        if delta == 0 {
            return 0;
        }
        // The thread's "scaled" version; its first version used the raw runtime.
        let delta = if self.features.on(Feature::UTIL_EST_FASTER_UNSCALED) {
            delta
        } else {
            let delta = (delta * self.arch_scale_cpu_capacity(cpu)) >> 10;
            (delta * self.machine.arch_scale_freq_capacity(cpu)) >> 10
        };
        crate::sched::pelt::faster_est_approx(delta * 2)
    }

    /// task_util(p) = util_avg.
    pub fn task_util(&self, p: TaskId) -> u64 {
        self.entities[self.tasks[p].se as usize].avg.util_avg
    }

    /// task_runnable(p) = runnable_avg.
    pub fn task_runnable(&self, p: TaskId) -> u64 {
        self.entities[self.tasks[p].se as usize].avg.runnable_avg
    }

    /// _task_util_est(p): the estimate without the flag.
    pub fn _task_util_est(&self, p: TaskId) -> u64 {
        let avg = &self.entities[self.tasks[p].se as usize].avg;
        let ewma = (avg.util_est & !UTIL_AVG_UNCHANGED) as u64;
        if self.cfg.kernel.has_two_field_util_est() {
            // max(ue.ewma, ue.enqueued) before v6.8.
            return ewma.max(avg.util_est_enqueued as u64);
        }
        ewma
    }

    /// task_util_est(p) = max(task_util, _task_util_est).
    pub fn task_util_est(&self, p: TaskId) -> u64 {
        self.task_util(p).max(self._task_util_est(p))
    }

    /// util_est_enqueue: add p's estimate to its CPU's root cfs_rq.
    pub(crate) fn util_est_enqueue(&mut self, cpu: CpuId, p: TaskId) {
        if !self.features.on(Feature::UTIL_EST) {
            return;
        }
        let est = self._task_util_est(p) as u32;
        let root = self.rqs[cpu].cfs;
        self.cfs_rqs[root].avg.util_est += est;
    }

    /// util_est_dequeue: take it away again, saturating.
    pub(crate) fn util_est_dequeue(&mut self, cpu: CpuId, p: TaskId) {
        if !self.features.on(Feature::UTIL_EST) {
            return;
        }
        let est = self._task_util_est(p) as u32;
        let root = self.rqs[cpu].cfs;
        let e = &mut self.cfs_rqs[root].avg.util_est;
        *e = e.saturating_sub(est);
    }

    /// util_est_update at a sleep dequeue, before the entity dequeue.
    pub(crate) fn util_est_update(&mut self, p: TaskId, task_sleep: bool) {
        if !self.features.on(Feature::UTIL_EST) || !task_sleep {
            return;
        }
        let dequeued = self.task_util(p);
        let runnable = self.task_runnable(p);
        let two_field = self.cfg.kernel.has_two_field_util_est();
        let fastup = self.features.on(Feature::UTIL_EST_FASTUP);
        let sa = &mut self.entities[self.tasks[p].se as usize].avg;
        let before = sa.util_est;
        if two_field {
            let next =
                util_est_next_two_field(before, sa.util_est_enqueued, dequeued, runnable, fastup);
            if let Some((ewma, enqueued)) = next {
                sa.util_est = ewma;
                sa.util_est_enqueued = enqueued;
            }
        } else {
            sa.util_est = util_est_next(before, dequeued, runnable);
        }
        let after = sa.util_est;
        if let Some(log) = &mut self.util_est_log {
            log.push(crate::sched::UtilEstRecord {
                at: self.now,
                task: p,
                dequeued,
                runnable,
                before,
                after,
            });
        }
    }

    /// cpu_util(cpu, p, dst_cpu, boost). `dst_cpu = None` is the
    /// kernel's −1.
    #[inline]
    pub fn cpu_util(
        &self,
        cpu: CpuId,
        p: Option<TaskId>,
        dst_cpu: Option<CpuId>,
        boost: bool,
    ) -> u64 {
        let root = &self.cfs_rqs[self.rqs[cpu].cfs];
        let mut util = root.avg.util_avg;
        if boost {
            util = util.max(root.avg.runnable_avg);
        }
        if let Some(p) = p {
            let on_this = self.tasks[p].cpu == cpu;
            if on_this && dst_cpu != Some(cpu) {
                util = util.saturating_sub(self.task_util(p));
            } else if !on_this && dst_cpu == Some(cpu) {
                util += self.task_util(p);
            }
        }
        if self.features.on(Feature::UTIL_EST) {
            let mut est = (root.avg.util_est & !UTIL_AVG_UNCHANGED) as u64;
            if let Some(p) = p {
                if dst_cpu == Some(cpu) {
                    est += self._task_util_est(p);
                } else if self.tasks[p].cpu == cpu
                    && (self.tasks[p].on_rq || self.rqs[cpu].curr == Some(p))
                {
                    est = est.saturating_sub(self._task_util_est(p));
                }
            }
            util = util.max(est);
        }
        util.min(self.arch_scale_cpu_capacity(cpu))
    }

    /// cpu_util_cfs(cpu) = cpu_util(cpu, NULL, −1, 0).
    pub fn cpu_util_cfs(&self, cpu: CpuId) -> u64 {
        self.cpu_util(cpu, None, None, false)
    }

    /// cpu_util_cfs_boost(cpu) = cpu_util(cpu, NULL, −1, 1); before v6.5 (no runnable
    /// boosting) its callers read plain cpu_util_cfs.
    pub fn cpu_util_cfs_boost(&self, cpu: CpuId) -> u64 {
        self.cpu_util(cpu, None, None, self.cfg.kernel.has_runnable_boost())
    }

    /// cpu_util_without(cpu, p): the CPU's utilisation if p were not there.
    pub fn cpu_util_without(&self, cpu: CpuId, p: TaskId) -> u64 {
        if self.tasks[p].cpu != cpu
            || self.entities[self.tasks[p].se as usize]
                .avg
                .last_update_time
                == 0
        {
            return self.cpu_util(cpu, None, None, false);
        }
        self.cpu_util(cpu, Some(p), None, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ewma_rises_at_once_and_falls_by_a_quarter() {
        // From 0, a dequeued util of 300 is taken at once.
        assert_eq!(util_est_next(0, 300, 300), 300 | UTIL_AVG_UNCHANGED);
        // Unchanged flag set: no update.
        let flagged = 300 | UTIL_AVG_UNCHANGED;
        assert_eq!(util_est_next(flagged, 100, 100), flagged);
        // Falls: 300 → 300 − (300−100)/4 = 250.
        assert_eq!(util_est_next(300, 100, 100), 250 | UTIL_AVG_UNCHANGED);
        // Within the 1% margin (diff < 10): kept.
        assert_eq!(util_est_next(300, 291, 291), 300 | UTIL_AVG_UNCHANGED);
        assert_eq!(util_est_next(300, 290, 290), 297 | UTIL_AVG_UNCHANGED);
        // The task waited (runnable > util + margin): kept.
        assert_eq!(util_est_next(300, 100, 111), 300 | UTIL_AVG_UNCHANGED);
        assert_eq!(util_est_next(300, 100, 110), 250 | UTIL_AVG_UNCHANGED);
        // Rounding of the shift: (4·301 − 200) >> 2 = 251.
        assert_eq!(util_est_next(301, 101, 101), 251 | UTIL_AVG_UNCHANGED);
        assert_eq!(util_est_next(302, 101, 101), 251 | UTIL_AVG_UNCHANGED);
    }

    #[test]
    fn two_field_util_est_before_v6_8() {
        const F: u32 = UTIL_AVG_UNCHANGED;
        let next = util_est_next_two_field;
        // UTIL_EST_FASTUP resets the EWMA on an increase; without it the EWMA moves 1/4.
        assert_eq!(next(100, 100, 300, 300, true), Some((300 | F, 300)));
        assert_eq!(next(100, 100, 300, 300, false), Some((150 | F, 300)));
        // Decrease: (4·500 − 200) >> 2 = 450; enqueued keeps the last value.
        assert_eq!(next(500, 500, 300, 300, true), Some((450 | F, 300)));
        // Both within 1% of the last values: nothing is stored, not even enqueued.
        // (A small rise is still a rise: FASTUP takes it.)
        assert_eq!(next(305, 305, 300, 300, true), None);
        assert_eq!(next(300, 300, 305, 305, true), Some((305 | F, 305)));
        // The EWMA is close but enqueued moved: store, EWMA unchanged.
        assert_eq!(next(305, 100, 300, 300, true), Some((305 | F, 300)));
        // It did not get all the CPU it wanted: the EWMA stays.
        assert_eq!(next(500, 500, 200, 300, true), Some((500 | F, 200)));
        // PELT has not moved since the last update.
        assert_eq!(next(300 | F, 300, 100, 100, true), None);
    }
}
