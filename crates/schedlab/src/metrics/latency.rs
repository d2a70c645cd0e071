//! Latency summaries. A recorder keeps every sample up to [`EXACT_SAMPLES_CAP`] and sorts
//! them once at the end, so percentiles are exact and deterministic (nearest-rank). Past the
//! cap (hour-long runs: a spinner waking every 12 ms makes 300,000 wake-ups an hour) it
//! moves its samples into a log-bucketed histogram of [`SIGNIFICANT_DIGITS`] significant
//! digits and keeps a bounded footprint: percentiles are then the highest value of the
//! nearest-rank sample's bucket (never below the exact percentile, at most 1/1024 above
//! it, and never above the maximum), `max` and `count` stay exact, and the summary says
//! `approximate` (docs/results.md).

use crate::machine::CpuId;
use crate::sched::{Sched, SchedObserver, TaskId};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::cell::RefCell;

/// Samples a recorder keeps exactly (256 KiB a task at most: 4 bytes a sample below
/// 4.29 s, see [`LatencyRecorder`]). Every example and study
/// scenario stays below it, so their results do not depend on the histogram (the most are
/// 35,219 wake-ups of util-fits-capacity's hackbench); a 1 s stress-ng runner in
/// tests/spinner.rs (114,221) goes past it, which that test does not read.
pub const EXACT_SAMPLES_CAP: usize = 1 << 16;

/// The u32 sample that stands for a value kept in `wide` (u32::MAX ns or more).
const WIDE: u32 = u32::MAX;

/// Precision of the histogram past the cap: values below 2,048 ns are exact, above that a
/// bucket spans at most 1/1024 of its lowest value.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// Samples are kept as u32 (half the memory: hour-long runs of thousands of tasks keep up
/// to 65,536 each); a value of u32::MAX ns (4.29 s) or more is stored as the marker
/// u32::MAX in its place and its value in `wide`, in order, so nothing is rounded.
#[derive(Debug, Clone, Default)]
pub struct LatencyRecorder {
    samples: Vec<u32>,
    wide: Vec<u64>,
    /// Set once the cap is crossed; `samples` is then empty and freed.
    hist: Option<Box<Histogram<u64>>>,
    /// The exact maximum while `hist` is set.
    max: u64,
}

/// count, p50, p90, p99, max in ns (nearest-rank percentiles; all 0 when empty).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
    /// The percentiles come from the histogram (more than [`EXACT_SAMPLES_CAP`] samples):
    /// exact to [`SIGNIFICANT_DIGITS`] significant digits. Absent from result documents
    /// when false (every exact summary).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub approximate: bool,
}

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        match &mut self.hist {
            None if self.samples.len() < EXACT_SAMPLES_CAP => match u32::try_from(ns) {
                Ok(v) if v != WIDE => self.samples.push(v),
                _ => {
                    self.samples.push(WIDE);
                    self.wide.push(ns);
                }
            },
            None => {
                self.spill();
                self.record(ns);
            }
            Some(h) => {
                record(h, ns);
                self.max = self.max.max(ns);
            }
        }
    }

    /// Move the samples into the histogram and free them.
    #[cold]
    fn spill(&mut self) {
        let mut h = Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits");
        let all = self.exact_samples();
        for &v in &all {
            record(&mut h, v);
        }
        self.max = all.iter().copied().max().unwrap_or(0);
        self.samples = Vec::new();
        self.wide = Vec::new();
        self.hist = Some(Box::new(h));
    }

    /// The kept samples as recorded, the wide ones put back in their places.
    fn exact_samples(&self) -> Vec<u64> {
        let mut wide = self.wide.iter();
        self.samples
            .iter()
            .map(|&v| match v {
                WIDE => *wide.next().expect("one wide value per marker"),
                v => u64::from(v),
            })
            .collect()
    }

    /// Every sample, in the order recorded, while the recorder is exact; None once it went
    /// over [`EXACT_SAMPLES_CAP`] samples and keeps only the histogram.
    pub fn samples(&self) -> Option<Vec<u64>> {
        self.hist.is_none().then(|| self.exact_samples())
    }

    /// Samples recorded.
    pub fn len(&self) -> u64 {
        match &self.hist {
            Some(h) => h.len(),
            None => self.samples.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Heap bytes held (the sample buffer's capacity or the histogram's counts).
    pub fn heap_bytes(&self) -> usize {
        let counts = self.hist.as_ref().map_or(0, |h| h.distinct_values());
        self.samples.capacity() * std::mem::size_of::<u32>()
            + (self.wide.capacity() + counts) * std::mem::size_of::<u64>()
    }

    pub fn summary(&self) -> LatencySummary {
        if let Some(h) = &self.hist {
            return self.hist_summary(h);
        }
        let mut s = self.exact_samples();
        if s.is_empty() {
            return LatencySummary::default();
        }
        s.sort_unstable();
        let rank = |p: u64| {
            let idx = nearest_rank(p, s.len() as u64) - 1;
            s[idx as usize]
        };
        LatencySummary {
            count: s.len() as u64,
            p50: rank(50),
            p90: rank(90),
            p99: rank(99),
            max: *s.last().unwrap(),
            approximate: false,
        }
    }

    /// The same nearest ranks, read from the histogram: the bucket holding the rank-th
    /// smallest sample, reported as its highest value (capped by the exact maximum).
    fn hist_summary(&self, h: &Histogram<u64>) -> LatencySummary {
        let n = h.len();
        let rank = |p: u64| {
            let want = nearest_rank(p, n);
            let mut seen = 0;
            for v in h.iter_recorded() {
                seen += v.count_at_value();
                if seen >= want {
                    return h.highest_equivalent(v.value_iterated_to()).min(self.max);
                }
            }
            self.max
        };
        LatencySummary {
            count: n,
            p50: rank(50),
            p90: rank(90),
            p99: rank(99),
            max: self.max,
            approximate: true,
        }
    }
}

/// Record `ns`, growing the histogram to hold it (`saturating_record` alone would clamp
/// instead of growing); only values past what 64-bit indices cover are clamped.
fn record(h: &mut Histogram<u64>, ns: u64) {
    if h.record(ns).is_err() {
        h.saturating_record(ns);
    }
}

/// 1-based nearest rank of percentile `p` among `n` sorted samples.
fn nearest_rank(p: u64, n: u64) -> u64 {
    (p * n).div_ceil(100).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_nearest_rank() {
        let mut r = LatencyRecorder::default();
        for v in 1..=100 {
            r.record(v);
        }
        let s = r.summary();
        assert_eq!(
            (s.count, s.p50, s.p90, s.p99, s.max, s.approximate),
            (100, 50, 90, 99, 100, false)
        );
        assert_eq!(LatencyRecorder::default().summary().count, 0);
    }

    /// A deterministic spread of latencies over six decades (ns to ms), heavy-tailed.
    fn sample(i: u64) -> u64 {
        let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11; // 53 bits
        let u = (x as f64 + 1.0) / (1u64 << 53) as f64;
        (1.0 / u).powf(1.5).min(1e9) as u64 + (i % 7)
    }

    fn exact(samples: &[u64]) -> LatencySummary {
        let mut s = samples.to_vec();
        s.sort_unstable();
        let r = |p: u64| s[(nearest_rank(p, s.len() as u64) - 1) as usize];
        LatencySummary {
            count: s.len() as u64,
            p50: r(50),
            p90: r(90),
            p99: r(99),
            max: *s.last().unwrap(),
            approximate: false,
        }
    }

    #[test]
    fn at_the_cap_it_stays_exact() {
        let all: Vec<u64> = (0..EXACT_SAMPLES_CAP as u64).map(sample).collect();
        let mut r = LatencyRecorder::default();
        for &v in &all {
            r.record(v);
        }
        assert_eq!(r.samples().unwrap(), all);
        assert_eq!(r.summary(), exact(&all));
        // Four bytes a sample.
        assert_eq!(r.heap_bytes(), EXACT_SAMPLES_CAP * 4);
    }

    #[test]
    fn values_past_u32_stay_exact_and_in_order() {
        let mut r = LatencyRecorder::default();
        let all = [
            5,
            u64::from(u32::MAX),
            7,
            u64::from(u32::MAX) + 1,
            3,
            10_000_000_000,
            9,
        ];
        for &v in &all {
            r.record(v);
        }
        assert_eq!(r.samples().unwrap(), all);
        assert_eq!(r.summary(), exact(&all));
        // Spilled to the histogram, the maximum stays exact.
        for i in 0..EXACT_SAMPLES_CAP as u64 {
            r.record(i % 100);
        }
        assert!(r.samples().is_none());
        assert_eq!(r.summary().max, 10_000_000_000);
    }

    #[test]
    fn past_the_cap_percentiles_hold_three_digits_in_bounded_memory() {
        let n = 8 * EXACT_SAMPLES_CAP as u64;
        let all: Vec<u64> = (0..n).map(sample).collect();
        let mut r = LatencyRecorder::default();
        let mut peak = 0;
        for &v in &all {
            r.record(v);
            peak = peak.max(r.heap_bytes());
        }
        assert!(r.samples().is_none());
        let (got, want) = (r.summary(), exact(&all));
        assert!(got.approximate);
        assert_eq!((got.count, got.max), (want.count, want.max));
        for (g, w) in [
            (got.p50, want.p50),
            (got.p90, want.p90),
            (got.p99, want.p99),
        ] {
            // Never below, at most 1/1024 above (exact under 2,048 ns).
            assert!(g >= w && g - w <= w / 1024, "{g} vs exact {w}");
        }
        // 8× the cap in samples, held in a fraction of what the exact buffer took.
        let histogram = r.heap_bytes();
        assert!(histogram < 256 * 1024, "{histogram} bytes");
        assert!(peak <= EXACT_SAMPLES_CAP * 4 + histogram, "{peak} bytes");
        // More samples over the same range: not one byte more.
        for i in 0..n {
            r.record(sample(i + n));
        }
        assert_eq!(r.heap_bytes(), histogram);
        assert_eq!(r.len(), 2 * n);
        // Whatever the values, the histogram stays within its 64-bit range (≈ 450 KiB).
        for v in [0, 1, u64::MAX / 3, u64::MAX] {
            r.record(v);
        }
        assert!(r.heap_bytes() < 512 * 1024, "{}", r.heap_bytes());
        assert_eq!(r.summary().max, u64::MAX);
    }

    #[test]
    fn past_the_cap_small_values_stay_exact_and_the_document_says_approximate() {
        let mut r = LatencyRecorder::default();
        for i in 0..=EXACT_SAMPLES_CAP as u64 {
            r.record(i % 2000);
        }
        let s = r.summary();
        let mut w = exact(
            &(0..=EXACT_SAMPLES_CAP as u64)
                .map(|i| i % 2000)
                .collect::<Vec<_>>(),
        );
        w.approximate = true;
        assert_eq!(s, w);
        let doc = serde_json::to_string(&s).unwrap();
        assert!(doc.ends_with(r#""approximate":true}"#), "{doc}");
        let exact_doc = serde_json::to_string(&LatencySummary::default()).unwrap();
        assert!(!exact_doc.contains("approximate"), "{exact_doc}");
    }

    /// The log gives every task the samples, in the order, that recording at each switch
    /// gives: over several flushes, tasks first seen late, latencies past u32 (recorded
    /// directly) and a task past the exact cap.
    #[test]
    fn the_log_records_what_each_switch_would() {
        let mut log = WakeupLatencies::default();
        let mut direct: Vec<LatencyRecorder> = vec![LatencyRecorder::default(); 40];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let n = 3 * PENDING_CAP as u64 + EXACT_SAMPLES_CAP as u64;
        for i in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Task 0 takes most samples (it crosses the exact cap); the others join late.
            let p = if !x.is_multiple_of(3) {
                0
            } else {
                (x % 40).min(1 + i / 2000) as usize
            };
            let ns = match x % 1000 {
                0 => u32::MAX as u64 + (x >> 40),
                1 => u32::MAX as u64,
                2 => u32::MAX as u64 - 1,
                _ => sample(x >> 20),
            };
            log.record(p, ns);
            direct[p].record(ns);
        }
        assert!(direct[0].len() > EXACT_SAMPLES_CAP as u64);
        for (p, d) in direct.iter().enumerate() {
            assert_eq!(log.samples(p), d.samples(), "task {p}");
            assert_eq!(log.summary(p), d.summary(), "task {p}");
        }
        assert_eq!(log.summary(40), LatencySummary::default());
        assert_eq!(log.samples(40), Some(Vec::new()));
    }
}

/// Samples [`WakeupLatencies`] holds before it hands them to their tasks' recorders (8 bytes
/// each: 256 KiB, and as much again to group them, within a core's L2).
const PENDING_CAP: usize = 1 << 15;

/// Wake-up latency of every task: from try_to_wake_up (or wake_up_new_task) to the moment
/// its work starts on a CPU, the context-switch cost included. Fed by sched_switch.
///
/// A switch appends its sample to one log, and a full log goes to the recorders grouped by
/// task, each task's samples in their order: a recorder's line and its buffer's end are
/// touched once a flush instead of once a switch, where they are cold for tasks that run
/// rarely (docs/performance.md, "Fifteenth round"). Readers flush first, so every result
/// is the one per-switch recording gives.
#[derive(Debug, Clone, Default)]
pub struct WakeupLatencies {
    per_task: RefCell<Vec<LatencyRecorder>>,
    pending: RefCell<Pending>,
}

/// The log and the scratch that groups it.
#[derive(Debug, Clone, Default)]
struct Pending {
    /// (task, latency) in the order recorded; a task or latency past u32 is recorded
    /// directly instead (after a flush, so the order holds).
    log: Vec<(u32, u32)>,
    grouped: Vec<(u32, u32)>,
    /// Per task, during a flush: its count in the log, then where its next sample goes in
    /// `grouped`; 0 for every task between flushes.
    place: Vec<u32>,
    /// The tasks in the log, in order of first appearance.
    seen: Vec<u32>,
}

impl Pending {
    /// Move the log into `per_task`, grouped by task (a counting sort: the order between
    /// tasks does not matter, within one it is kept).
    fn flush_into(&mut self, per_task: &mut Vec<LatencyRecorder>) {
        self.seen.clear();
        for &(t, _) in &self.log {
            if t as usize >= self.place.len() {
                self.place.resize(t as usize + 1, 0);
            }
            let c = &mut self.place[t as usize];
            if *c == 0 {
                self.seen.push(t);
            }
            *c += 1;
        }
        if per_task.len() < self.place.len() {
            per_task.resize_with(self.place.len(), Default::default);
        }
        let mut at = 0;
        for &t in &self.seen {
            let c = &mut self.place[t as usize];
            (at, *c) = (at + *c, at);
        }
        self.grouped.clear();
        self.grouped.resize(self.log.len(), (0, 0));
        for &(t, ns) in &self.log {
            let c = &mut self.place[t as usize];
            self.grouped[*c as usize] = (t, ns);
            *c += 1;
        }
        for &(t, ns) in &self.grouped {
            per_task[t as usize].record(u64::from(ns));
        }
        for &t in &self.seen {
            self.place[t as usize] = 0;
        }
        self.log.clear();
    }
}

impl WakeupLatencies {
    /// Move the pending samples into their recorders.
    fn flush(&self) {
        let mut pending = self.pending.borrow_mut();
        if !pending.log.is_empty() {
            pending.flush_into(&mut self.per_task.borrow_mut());
        }
    }

    fn record(&mut self, p: TaskId, ns: u64) {
        let pending = self.pending.get_mut();
        match (u32::try_from(p), u32::try_from(ns)) {
            (Ok(t), Ok(v)) => {
                pending.log.push((t, v));
                if pending.log.len() == PENDING_CAP {
                    pending.flush_into(self.per_task.get_mut());
                }
            }
            _ => {
                let per_task = self.per_task.get_mut();
                pending.flush_into(per_task);
                if per_task.len() <= p {
                    per_task.resize_with(p + 1, Default::default);
                }
                per_task[p].record(ns);
            }
        }
    }

    /// The summary of task `p` (empty if it never woke).
    pub fn summary(&self, p: TaskId) -> LatencySummary {
        self.flush();
        self.per_task
            .borrow()
            .get(p)
            .map(|r| r.summary())
            .unwrap_or_default()
    }

    /// Every latency of task `p` in the order recorded (see [`LatencyRecorder::samples`]);
    /// empty if it never woke.
    pub fn samples(&self, p: TaskId) -> Option<Vec<u64>> {
        self.flush();
        self.per_task
            .borrow()
            .get(p)
            .map_or(Some(Vec::new()), |r| r.samples())
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
            let start = s.now + s.context_switch_cost(cpu, n);
            self.record(n, start - woken);
        }
    }
}
