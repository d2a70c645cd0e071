//! Utilization clamping (kernel/sched/core.c; Documentation/scheduler/sched-util-clamp.rst):
//! per-task requests, the system-wide limits, and the per-rq max-aggregation over runnable
//! tasks that schedutil and EAS read.
//!
//! The kernel aggregates through buckets; the result is the maximum effective value over
//! the rq's runnable tasks, which is what is kept here (an ordered multiset per clamp).
//! Like util_est, a task counts from its enqueue to its (non-delayed) dequeue.

use super::{Sched, TaskId};
use crate::machine::CpuId;
use std::collections::BTreeMap;

/// UCLAMP_MIN / UCLAMP_MAX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UclampId {
    Min = 0,
    Max = 1,
}

/// uclamp_none: the value a clamp has when nothing asks for one.
pub fn uclamp_none(id: UclampId) -> u32 {
    match id {
        UclampId::Min => 0,
        UclampId::Max => 1024,
    }
}

/// Per-rq aggregation: effective values of runnable tasks, with counts.
#[derive(Debug, Clone, Default)]
pub struct UclampRq {
    pub values: [BTreeMap<u32, u32>; 2],
    /// UCLAMP_FLAG_IDLE's remembered max: the last task's max when the rq emptied.
    pub idle_max: Option<u32>,
}

impl UclampRq {
    /// Count one task with these effective [UCLAMP_MIN, UCLAMP_MAX] values
    /// (uclamp_rq_inc_id): the rq is no longer uclamp-idle.
    fn count(&mut self, values: [u32; 2]) {
        for (map, v) in self.values.iter_mut().zip(values) {
            *map.entry(v).or_insert(0) += 1;
        }
        self.idle_max = None;
    }
}

impl Sched {
    /// uclamp_is_used: the static key, on once any task or the system sets a clamp.
    pub fn uclamp_is_used(&self) -> bool {
        self.cfg.uclamp_used
    }

    /// sched_setattr(SCHED_FLAG_UTIL_CLAMP_*): a task's requested clamps, 0..=1024.
    pub fn set_uclamp(&mut self, p: TaskId, min: Option<u32>, max: Option<u32>) {
        let queued = self.tasks[p].on_rq && !self.entities[self.tasks[p].se as usize].sched_delayed;
        let cpu = self.tasks[p].cpu;
        if queued {
            self.uclamp_rq_dec(cpu, p);
        }
        let t = &mut self.tasks[p];
        if let Some(v) = min {
            t.uclamp_req[0] = v.min(1024);
        }
        if let Some(v) = max {
            t.uclamp_req[1] = v.min(1024);
        }
        self.cfg.uclamp_used = true;
        if queued {
            self.uclamp_rq_inc(cpu, p);
        }
    }

    /// uclamp_eff_value: the request, restricted by the task's cgroup (uclamp_tg_restrict:
    /// not for the root group or an autogroup), limited by the system-wide sysctl.
    pub fn uclamp_eff_value(&self, p: TaskId, id: UclampId) -> u32 {
        if !self.uclamp_is_used() {
            return uclamp_none(id);
        }
        let mut v = self.tasks[p].uclamp_req[id as usize];
        let tg = &self.groups[self.tasks[p].tg];
        if self.tasks[p].tg != 0 && !tg.autogroup {
            v = v.clamp(tg.uclamp[0], tg.uclamp[1]);
        }
        v.min(self.cfg.sysctl_uclamp[id as usize])
    }

    /// uclamp_rq_get: the rq's aggregated clamp.
    #[inline]
    pub fn uclamp_rq_get(&self, cpu: CpuId, id: UclampId) -> u64 {
        if !self.uclamp_is_used() {
            return uclamp_none(id) as u64;
        }
        let uc = &self.rqs[cpu].uclamp;
        match uc.values[id as usize].last_key_value() {
            Some((&v, _)) => v as u64,
            None => match id {
                UclampId::Min => 0,
                UclampId::Max => uc.idle_max.unwrap_or(1024) as u64,
            },
        }
    }

    /// uclamp_rq_util_with (sched.h): `util` within the rq's clamps, or `p`'s and the
    /// rq's together; only `p`'s when the rq is idle (UCLAMP_FLAG_IDLE: `p` will reset
    /// them).
    pub fn uclamp_rq_util_with(&self, cpu: CpuId, util: u64, p: Option<TaskId>) -> u64 {
        if !self.uclamp_is_used() {
            return util;
        }
        let (mut min, mut max) = (0, 0);
        if let Some(p) = p {
            min = self.uclamp_eff_value(p, UclampId::Min) as u64;
            max = self.uclamp_eff_value(p, UclampId::Max) as u64;
            if self.uclamp_rq_is_idle(cpu) {
                return Self::uclamp_util_with(util, min, max);
            }
        }
        min = min.max(self.uclamp_rq_get(cpu, UclampId::Min));
        max = max.max(self.uclamp_rq_get(cpu, UclampId::Max));
        Self::uclamp_util_with(util, min, max)
    }

    /// uclamp_rq_is_idle: no task with clamps is enqueued (the rq keeps the last one's
    /// max).
    pub fn uclamp_rq_is_idle(&self, cpu: CpuId) -> bool {
        self.rqs[cpu].uclamp.values[UclampId::Max as usize].is_empty()
    }

    /// uclamp_rq_util_with's last step (sched.h): `util` within [min, max], where a min
    /// at or above max wins (a boosted task on a capped rq).
    pub fn uclamp_util_with(util: u64, min: u64, max: u64) -> u64 {
        if min >= max {
            min
        } else {
            util.clamp(min, max)
        }
    }

    /// uclamp_rq_is_capped: the rq's max clamp holds its utilisation down.
    pub fn uclamp_rq_is_capped(&self, cpu: CpuId) -> bool {
        if !self.uclamp_is_used() {
            return false;
        }
        let max = self.uclamp_rq_get(cpu, UclampId::Max);
        max != 1024 && self.cpu_util_cfs(cpu) + self.rqs[cpu].avg_rt.util_avg >= max
    }

    /// The uclamp leak of the delayed-dequeue posting after an uptime: each CPU holds one
    /// entry of a task counted there (UCLAMP_MIN `min`, UCLAMP_MAX 1024) whose dequeue
    /// never came, so the rq's min clamp never falls under `min` and it is never
    /// uclamp-idle (docs/model.md, Kernel versions: DELAY_DEQUEUE_AS_POSTED).
    pub fn uclamp_leak_on_every_cpu(&mut self, min: u32) {
        self.cfg.uclamp_used = true;
        for rq in &mut self.rqs {
            rq.uclamp.count([min.min(1024), uclamp_none(UclampId::Max)]);
        }
    }

    pub(crate) fn uclamp_rq_inc(&mut self, cpu: CpuId, p: TaskId) {
        if !self.uclamp_is_used() {
            return;
        }
        let values = [
            self.uclamp_eff_value(p, UclampId::Min),
            self.uclamp_eff_value(p, UclampId::Max),
        ];
        self.rqs[cpu].uclamp.count(values);
    }

    pub(crate) fn uclamp_rq_dec(&mut self, cpu: CpuId, p: TaskId) {
        if !self.uclamp_is_used() {
            return;
        }
        for id in [UclampId::Min, UclampId::Max] {
            let v = self.uclamp_eff_value(p, id);
            let map = &mut self.rqs[cpu].uclamp.values[id as usize];
            if let Some(n) = map.get_mut(&v) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&v);
                }
            }
            if id == UclampId::Max && map.is_empty() {
                self.rqs[cpu].uclamp.idle_max = Some(v);
            }
        }
    }
}
