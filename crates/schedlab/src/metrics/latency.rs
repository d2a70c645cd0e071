//! Exact latency summaries: samples are kept and sorted once at the end, so percentiles are
//! exact and deterministic (nearest-rank).

use crate::machine::CpuId;
use crate::sched::{Sched, SchedObserver, TaskId};
use serde::Serialize;

#[derive(Debug, Clone, Default)]
pub struct LatencyRecorder {
    samples: Vec<u64>,
}

/// count, p50, p90, p99, max in ns (nearest-rank percentiles; all 0 when empty).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.samples.push(ns);
    }

    /// Every sample, in the order recorded.
    pub fn samples(&self) -> &[u64] {
        &self.samples
    }

    pub fn summary(&self) -> LatencySummary {
        let mut s = self.samples.clone();
        if s.is_empty() {
            return LatencySummary::default();
        }
        s.sort_unstable();
        let rank = |p: u64| {
            let n = s.len() as u64;
            let idx = (p * n).div_ceil(100).max(1) - 1;
            s[idx as usize]
        };
        LatencySummary {
            count: s.len() as u64,
            p50: rank(50),
            p90: rank(90),
            p99: rank(99),
            max: *s.last().unwrap(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let mut r = LatencyRecorder::default();
        for v in 1..=100 {
            r.record(v);
        }
        let s = r.summary();
        assert_eq!(
            (s.count, s.p50, s.p90, s.p99, s.max),
            (100, 50, 90, 99, 100)
        );
        assert_eq!(LatencyRecorder::default().summary().count, 0);
    }
}

/// Wake-up latency of every task: from try_to_wake_up (or wake_up_new_task) to the moment
/// its work starts on a CPU, the context-switch cost included. Fed by sched_switch.
#[derive(Debug, Clone, Default)]
pub struct WakeupLatencies {
    pub per_task: Vec<LatencyRecorder>,
}

impl WakeupLatencies {
    /// The summary of task `p` (empty if it never woke).
    pub fn summary(&self, p: TaskId) -> LatencySummary {
        self.per_task
            .get(p)
            .map(|r| r.summary())
            .unwrap_or_default()
    }
}

impl SchedObserver for WakeupLatencies {
    fn tracepoints(&self) -> u32 {
        crate::sched::tracepoints::tp::SWITCH
    }

    fn sched_switch(
        &mut self,
        s: &Sched,
        cpu: CpuId,
        _prev: Option<TaskId>,
        next: Option<TaskId>,
        _preempt: bool,
    ) {
        let Some(n) = next else {
            return;
        };
        if let Some(woken) = s.tasks[n].stats.wakeup_at {
            if self.per_task.len() <= n {
                self.per_task.resize_with(n + 1, Default::default);
            }
            let start = s.now + s.context_switch_cost(cpu, n);
            self.per_task[n].record(start - woken);
        }
    }
}
