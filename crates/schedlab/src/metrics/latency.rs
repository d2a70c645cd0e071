//! Exact latency summaries: samples are kept and sorted once at the end, so percentiles are
//! exact and deterministic (nearest-rank).

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
