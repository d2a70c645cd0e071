//! The frame statistics of the two Android tools, as their sources compute them
//! (docs/workloads.md, frames): Jankbench's `UiBenchmarkResult` (16 ms jank rule with the
//! triple-buffer flag, "bad" frames ≥ 12 ms, Apache Commons statistics) and hwui's
//! `JankTracker` + `ProfileData` (swap-deadline tracking, cause counters, the bucketed
//! histogram `dumpsys gfxinfo` takes its percentiles from).

use crate::time::Ns;
use serde::Serialize;

/// Jankbench's `FRAME_PERIOD_MS`.
pub const JANKBENCH_PERIOD_MS: f64 = 16.0;
/// Jankbench's `JANK_PENALTY_THRESHOLD_MS`: frames at least this long are "bad".
pub const BAD_FRAME_MS: f64 = 12.0;

/// hwui's FrameInfo timestamps of one frame, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    pub intended_vsync: Ns,
    /// The vsync the frame actually used (later than intended when the UI thread ran a
    /// whole interval late: Choreographer's jitter correction).
    pub vsync: Ns,
    pub sync_start: Ns,
    pub issue_draw_commands_start: Ns,
    pub frame_completed: Ns,
}

impl FrameInfo {
    pub fn total_ns(&self) -> Ns {
        self.frame_completed - self.intended_vsync
    }
}

/// `UiBenchmarkResult.getSortedJankFrameIndices`.
pub fn jankbench_jank_indices(durations_ms: &[f64]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut triple_buffered = false;
    for (i, &d) in durations_ms.iter().enumerate() {
        if !triple_buffered {
            if d > JANKBENCH_PERIOD_MS {
                triple_buffered = true;
                out.push(i);
            }
        } else if d > 2.0 * JANKBENCH_PERIOD_MS {
            triple_buffered = false;
            out.push(i);
        }
    }
    out
}

/// Apache Commons `SummaryStatistics`: mean and the bias-corrected standard deviation
/// (NaN without values; 0 for one value).
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() == 1 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Apache Commons `Percentile` (default estimator): position p(n+1)/100 on the sorted
/// values, linear between neighbours, clamped to min / max.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if n == 1 {
        return sorted[0];
    }
    let pos = p * (n as f64 + 1.0) / 100.0;
    let lo = pos.floor();
    let d = pos - lo;
    if pos < 1.0 {
        return sorted[0];
    }
    if pos >= n as f64 {
        return sorted[n - 1];
    }
    let lower = sorted[lo as usize - 1];
    let upper = sorted[lo as usize];
    lower + d * (upper - lower)
}

/// hwui JankTracker's counters (`Number <type>: n` lines).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct JankTypes {
    pub missed_vsync: u32,
    pub high_input_latency: u32,
    pub slow_ui_thread: u32,
    pub slow_bitmap_uploads: u32,
    pub slow_issue_draw_commands: u32,
    /// Completed after its own deadline (intended vsync + interval).
    pub frame_deadline_missed: u32,
    /// The swap-deadline rule of the 2017–18 tracker.
    pub frame_deadline_missed_legacy: u32,
}

/// Frames longer than this are ignored by the cause counters, as ANRs.
const IGNORE_EXCEEDING_NS: Ns = 10_000_000_000;

/// `JankTracker::finishFrame` over all frames: janky frames (total > interval) and the
/// jank types. The swap deadline starts unset (the first frame is not triple buffered).
pub fn jank_tracker(frames: &[FrameInfo], interval: Ns) -> (u32, JankTypes) {
    let mut janky = 0;
    let mut t = JankTypes::default();
    let mut swap_deadline: Option<Ns> = None;
    for f in frames {
        let total = f.total_ns();
        if total > interval {
            janky += 1;
            t.frame_deadline_missed += 1;
        }
        let (triple_buffered, deadline) = match swap_deadline {
            Some(d) => (
                d as i128 - f.intended_vsync as i128 > (interval as f64 * 0.1) as i128,
                (d + interval).max(f.intended_vsync + interval),
            ),
            None => (false, f.intended_vsync + interval),
        };
        swap_deadline = Some(deadline);
        if f.frame_completed < deadline || total < interval {
            if triple_buffered {
                t.high_input_latency += 1;
            }
            continue;
        }
        t.frame_deadline_missed_legacy += 1;
        // Janked: the deadline re-bases to the vsync boundary after completion.
        let jitter = f.frame_completed - f.vsync;
        swap_deadline = Some(f.frame_completed - jitter % interval + interval);
        let thresholds = [
            (f.vsync - f.intended_vsync, 1, &mut t.missed_vsync),
            (
                f.sync_start.saturating_sub(f.vsync),
                interval / 2,
                &mut t.slow_ui_thread,
            ),
            (
                f.issue_draw_commands_start - f.sync_start,
                interval / 5,
                &mut t.slow_bitmap_uploads,
            ),
            (
                f.frame_completed - f.issue_draw_commands_start,
                interval * 3 / 4,
                &mut t.slow_issue_draw_commands,
            ),
        ];
        for (delta, threshold, counter) in thresholds {
            if delta >= threshold && delta < IGNORE_EXCEEDING_NS {
                *counter += 1;
            }
        }
    }
    (janky, t)
}

/// hwui `ProfileData`'s frame-time histogram: 1 ms buckets to 32 ms (≤ 5 ms in the
/// first), 2 ms to 48 ms, 4 ms beyond (57 buckets), then 50 ms "slow" buckets from
/// 150 ms (97 of them, to 5 s).
#[derive(Debug, Clone)]
pub struct ProfileHist {
    pub frame_counts: [u32; 57],
    pub slow_counts: [u32; 97],
    pub total: u32,
}

const BUCKET_MIN_MS: u32 = 5;
const BUCKET_2MS_FROM: u32 = 32;
const BUCKET_4MS_FROM: u32 = 48;
const SLOW_START_MS: u32 = 150;
const SLOW_STEP_MS: u32 = 50;

fn frame_count_index(ms: u32) -> u32 {
    if ms <= BUCKET_MIN_MS {
        return 0;
    }
    let mut i = ms;
    if i > BUCKET_4MS_FROM {
        i = (i - BUCKET_4MS_FROM) / 2 + BUCKET_4MS_FROM;
    }
    if i > BUCKET_2MS_FROM {
        i = (i - BUCKET_2MS_FROM) / 2 + BUCKET_2MS_FROM;
    }
    i - BUCKET_MIN_MS
}

fn frame_time_for_index(index: u32) -> u32 {
    let mut i = index + BUCKET_MIN_MS;
    if i > BUCKET_2MS_FROM {
        i += i - BUCKET_2MS_FROM;
    }
    if i > BUCKET_4MS_FROM {
        i += i - BUCKET_4MS_FROM + 1;
    }
    i
}

impl Default for ProfileHist {
    fn default() -> Self {
        ProfileHist {
            frame_counts: [0; 57],
            slow_counts: [0; 97],
            total: 0,
        }
    }
}

impl ProfileHist {
    /// `reportFrame`.
    pub fn add(&mut self, duration_ns: Ns) {
        self.total += 1;
        let ms = (duration_ns / 1_000_000).min(u32::MAX as Ns) as u32;
        let b = frame_count_index(ms) as usize;
        if b < self.frame_counts.len() {
            self.frame_counts[b] += 1;
        } else {
            let s = (ms.saturating_sub(SLOW_START_MS) / SLOW_STEP_MS) as usize;
            self.slow_counts[s.min(self.slow_counts.len() - 1)] += 1;
        }
    }

    /// `findPercentile`, in whole ms.
    pub fn percentile(&self, pct: u32) -> u32 {
        let pos = (pct * self.total / 100) as i64;
        let mut remaining = self.total as i64 - pos;
        for (i, &c) in self.slow_counts.iter().enumerate().rev() {
            remaining -= c as i64;
            if remaining <= 0 {
                return i as u32 * SLOW_STEP_MS + SLOW_START_MS;
            }
        }
        for (i, &c) in self.frame_counts.iter().enumerate().rev() {
            remaining -= c as i64;
            if remaining <= 0 {
                return frame_time_for_index(i as u32);
            }
        }
        0
    }

    /// Every bucket as (ms, frames), as `HISTOGRAM:` prints them.
    pub fn entries(&self) -> Vec<(u32, u32)> {
        let fast = (0..self.frame_counts.len())
            .map(|i| (frame_time_for_index(i as u32), self.frame_counts[i]));
        let slow = (0..self.slow_counts.len())
            .map(|i| (i as u32 * SLOW_STEP_MS + SLOW_START_MS, self.slow_counts[i]));
        fast.chain(slow).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jankbench_rule_skips_one_triple_buffered_frame() {
        let d = [5.0, 17.0, 20.0, 33.0, 17.0, 5.0, 40.0];
        // 17 janks and sets the flag; 20 is absorbed; 33 janks and clears; 17 janks again
        // and sets; 40 janks and clears.
        assert_eq!(jankbench_jank_indices(&d), vec![1, 3, 4, 6]);
    }

    #[test]
    fn apache_percentile_and_stats() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&s, 50.0), 2.5);
        assert_eq!(percentile(&s, 99.0), 4.0);
        assert_eq!(percentile(&s, 10.0), 1.0);
        let (m, sd) = mean_std(&s);
        assert_eq!(m, 2.5);
        assert!((sd - 1.2909944487358056).abs() < 1e-12);
        assert!(mean_std(&[]).0.is_nan());
    }

    #[test]
    fn histogram_buckets_match_profile_data() {
        assert_eq!(frame_count_index(5), 0);
        assert_eq!(frame_count_index(6), 1);
        assert_eq!(frame_count_index(32), 27);
        assert_eq!(frame_count_index(34), 28);
        assert_eq!(frame_count_index(48), 35);
        assert_eq!(frame_count_index(52), 36);
        for i in 0..57 {
            assert_eq!(frame_count_index(frame_time_for_index(i)), i, "index {i}");
        }
        assert_eq!(frame_time_for_index(56), 133);
        let mut h = ProfileHist::default();
        for ms in [4, 7, 7, 8, 200] {
            h.add(ms * 1_000_000 + 300_000);
        }
        assert_eq!(h.percentile(50), 7);
        assert_eq!(h.percentile(99), 200);
        assert_eq!(h.entries().len(), 57 + 97);
    }

    #[test]
    fn jank_tracker_counts_missed_deadlines_and_causes() {
        let p = 16_666_666;
        let frame = |k: u64, ui_late: u64, total: u64| FrameInfo {
            intended_vsync: k * p,
            vsync: k * p,
            sync_start: k * p + ui_late,
            issue_draw_commands_start: k * p + ui_late + 100_000,
            frame_completed: k * p + total,
        };
        let frames = [
            frame(0, 1_000_000, 5_000_000),
            frame(1, 12_000_000, 20_000_000),
            frame(2, 1_000_000, 5_000_000),
        ];
        let (janky, t) = jank_tracker(&frames, p);
        assert_eq!(janky, 1);
        assert_eq!(t.frame_deadline_missed_legacy, 1);
        assert_eq!(t.slow_ui_thread, 1);
        assert_eq!(t.missed_vsync, 0);
        // The frame after a missed deadline is displayed a vsync late (triple buffered).
        assert_eq!(t.high_input_latency, 1);
    }
}
