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
    /// FrameDeadline: when the frame must be complete to be presented at its vsync.
    pub frame_deadline: Ns,
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
    /// Frames that met their deadline while buffer-stuffed, reported by both the legacy
    /// and the current rule (one counter, as hwui's: a frame can count twice).
    pub high_input_latency: u32,
    pub slow_ui_thread: u32,
    pub slow_bitmap_uploads: u32,
    pub slow_issue_draw_commands: u32,
    /// Completed at or after FrameDeadline (plus an interval while buffer-stuffed).
    pub frame_deadline_missed: u32,
    /// Completed after the legacy swap deadline.
    pub frame_deadline_missed_legacy: u32,
}

/// What hwui's JankTracker counts over a run (`Janky frames` and `Janky frames (legacy)`
/// lines, and the jank types).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JankCounts {
    /// `reportJank`: frames that missed their (stuffing-adjusted) deadline.
    pub janky: u32,
    /// `reportJankLegacy`: frames longer than one interval.
    pub janky_legacy: u32,
    pub types: JankTypes,
}

/// Frames longer than this are ignored by the cause counters, as ANRs.
const IGNORE_EXCEEDING_NS: Ns = 10_000_000_000;

/// The JankTracker's state when the counted frames begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackerStart {
    /// A new window's tracker (mSwapDeadlineLegacy = -1): the legacy rule starts its swap
    /// deadline an interval after the first frame, which so counts as stuffed.
    Fresh,
    /// A window that drew before the counters were reset (`dumpsys gfxinfo reset` →
    /// JankTracker::reset clears the counters, not the swap-deadline state) and was then
    /// idle: the first counted frame follows a pause, unstuffed under both rules.
    AfterPause,
}

/// hwui `JankTracker::finishFrame` over all frames, as in Android 12+ (it runs
/// `calculateLegacyJank` first, then the frame-deadline rule whose deadline moves out by
/// one interval while the queue is buffer-stuffed). GpuCompleted and SwapBuffersCompleted
/// are FrameCompleted (GPU and dequeueBuffer waits are not modelled, so the legacy
/// dequeue forgiveness is 0).
pub fn jank_tracker(frames: &[FrameInfo], interval: Ns, start: TrackerStart) -> JankCounts {
    let mut c = JankCounts::default();
    let i = interval as i128;
    let tenth = (interval as f64 * 0.1) as i128;
    // mSwapDeadlineLegacy and mNextFrameStartUnstuffed both start at -1 in a new tracker;
    // after a pause any deadline at or before the first frame's vsync acts alike.
    let mut swap_deadline_legacy: i128 = match start {
        TrackerStart::Fresh => -1,
        TrackerStart::AfterPause => frames.first().map_or(0, |f| f.intended_vsync as i128),
    };
    let mut next_frame_start_unstuffed: i128 = -1;
    for f in frames {
        let (iv, vsync, done) = (
            f.intended_vsync as i128,
            f.vsync as i128,
            f.frame_completed as i128,
        );
        let total = done - iv;
        if total <= 0 {
            continue;
        }
        // calculateLegacyJank.
        if total > i {
            c.janky_legacy += 1;
        }
        if swap_deadline_legacy < 0 {
            swap_deadline_legacy = iv + i;
        }
        let stuffed_legacy = swap_deadline_legacy - iv > tenth;
        swap_deadline_legacy = (swap_deadline_legacy + i).max(iv + i);
        if done < swap_deadline_legacy || total < i {
            if stuffed_legacy {
                c.types.high_input_latency += 1;
            }
        } else {
            c.types.frame_deadline_missed_legacy += 1;
            swap_deadline_legacy = done - (done - vsync) % i + i;
        }
        // finishFrame's own rule.
        let stuffed = next_frame_start_unstuffed - iv > tenth;
        let deadline = f.frame_deadline as i128 + if stuffed { i } else { 0 };
        if done < deadline {
            if stuffed {
                c.types.high_input_latency += 1;
                // Stuffing carries over to the next frame unless there is a pause.
                next_frame_start_unstuffed += i;
            }
            continue;
        }
        c.types.frame_deadline_missed += 1;
        c.janky += 1;
        next_frame_start_unstuffed = done - (done - vsync) % i + i;
        let thresholds = [
            (f.vsync - f.intended_vsync, 1, &mut c.types.missed_vsync),
            (
                f.sync_start.saturating_sub(f.vsync),
                interval / 2,
                &mut c.types.slow_ui_thread,
            ),
            (
                f.issue_draw_commands_start - f.sync_start,
                interval / 5,
                &mut c.types.slow_bitmap_uploads,
            ),
            (
                f.frame_completed - f.issue_draw_commands_start,
                interval * 3 / 4,
                &mut c.types.slow_issue_draw_commands,
            ),
        ];
        for (delta, threshold, counter) in thresholds {
            if delta >= threshold && delta < IGNORE_EXCEEDING_NS {
                *counter += 1;
            }
        }
    }
    c
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

    /// hwui's own JankTracker tests (frameworks/base, libs/hwui/tests/unit/
    /// JankTrackerTests.cpp): the same timestamps (one completion time for GpuCompleted
    /// and SwapBuffersCompleted), the same counts.
    fn fi(iv: u64, vsync: u64, done: u64, deadline: u64) -> FrameInfo {
        let ms = |v: u64| v * 1_000_000;
        FrameInfo {
            intended_vsync: ms(iv),
            vsync: ms(vsync),
            sync_start: ms(vsync) + 500_000,
            issue_draw_commands_start: ms(vsync) + 1_000_000,
            frame_completed: ms(done),
            frame_deadline: ms(deadline),
        }
    }

    fn jank_tracker_fresh(frames: &[FrameInfo], interval: Ns) -> JankCounts {
        jank_tracker(frames, interval, TrackerStart::Fresh)
    }

    #[test]
    fn jank_tracker_as_hwuis_tests() {
        let i = 16_000_000;
        let c = jank_tracker_fresh(&[fi(100, 101, 115, 120), fi(116, 117, 131, 136)], i);
        assert_eq!(c.janky, 0, "noJank");
        assert_eq!(
            jank_tracker_fresh(&[fi(100, 101, 121, 120)], i).janky,
            1,
            "jank"
        );
        let c = jank_tracker_fresh(&[fi(100, 101, 118, 120)], i);
        assert_eq!((c.janky, c.janky_legacy), (0, 1), "legacyJankButNoRealJank");
        // The second frame is long but stuffed: its deadline moves out an interval.
        let stuffed = [fi(100, 101, 121, 120), fi(116, 122, 137, 136)];
        assert_eq!(jank_tracker_fresh(&stuffed, i).janky, 1, "doubleStuffed");
        // A skipped vsync (a pause) ends the stuffing: 169 ms misses 168.
        let paused = [stuffed[0], stuffed[1], fi(148, 148, 169, 168)];
        assert_eq!(
            jank_tracker_fresh(&paused, i).janky,
            2,
            "doubleStuffedThenPauseThenJank"
        );
        // hwui's later doubleStuffedTwoIntervalBehind moves the deadline out by every
        // stuffed interval; the rule modelled here (one interval) counts its 4th frame.
        let behind = [
            fi(100, 101, 117, 116),
            fi(116, 116, 133, 132),
            fi(132, 132, 165, 148),
            fi(148, 148, 181, 164),
        ];
        assert_eq!(jank_tracker_fresh(&behind, i).janky, 3);
    }

    #[test]
    fn stuffing_is_high_input_latency_in_both_rules() {
        let p = 16_666_666;
        let frame = |k: u64, ui_late: u64, total: u64| FrameInfo {
            intended_vsync: k * p,
            vsync: k * p,
            sync_start: k * p + ui_late,
            issue_draw_commands_start: k * p + ui_late + 100_000,
            frame_completed: k * p + total,
            frame_deadline: k * p + p,
        };
        let frames = [
            frame(0, 1_000_000, 5_000_000),
            frame(1, 12_000_000, 20_000_000),
            frame(2, 1_000_000, 5_000_000),
        ];
        let c = jank_tracker_fresh(&frames, p);
        assert_eq!((c.janky, c.janky_legacy), (1, 1));
        assert_eq!(c.types.frame_deadline_missed, 1);
        assert_eq!(c.types.frame_deadline_missed_legacy, 0);
        assert_eq!((c.types.slow_ui_thread, c.types.missed_vsync), (1, 0));
        // Legacy: the swap deadline starts an interval ahead, so every frame here is
        // "stuffed" and meets it (3). Current rule: only the frame after the jank (1).
        assert_eq!(c.types.high_input_latency, 4);
        // A window that drew before and then paused: the legacy deadline starts at the
        // first frame's vsync, so the long frame misses it (20 ms > one interval) and
        // only the frame after it is stuffed, under each rule.
        let c = jank_tracker(&frames, p, TrackerStart::AfterPause);
        assert_eq!((c.janky, c.janky_legacy), (1, 1));
        assert_eq!(c.types.frame_deadline_missed_legacy, 1);
        assert_eq!(c.types.high_input_latency, 2);
    }
}
