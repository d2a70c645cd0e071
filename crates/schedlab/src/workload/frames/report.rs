//! After the run: the frame timestamps the pipeline logged, turned into Jankbench's
//! summary line, `dumpsys gfxinfo`'s profile data and uibench's `gfx-*` metrics.

use super::jank::{self, FrameInfo, JankTypes, ProfileHist};
use super::model::{EpisodeKind, EpisodeSlots};
use super::{LOG_DONE, LOG_ISSUE, LOG_SYNC, LOG_VSYNC};
use crate::time::Ns;
use crate::workload::program::Base;
use crate::workload::report::{RunView, WorkloadSection};
use serde::Serialize;
use std::collections::BTreeMap;

/// Post-run state of a frames workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramesReport {
    pub base: Base,
    pub command: String,
    pub refresh_hz: u32,
    pub interval_ns: Ns,
    pub layout: Vec<EpisodeSlots>,
    /// The episode of each frame, in rendering order.
    pub frame_episode: Vec<usize>,
    pub app: String,
}

/// Jankbench's view (durations in ms, FrameMetrics TOTAL_DURATION).
#[derive(Debug, Clone, Serialize)]
pub struct JankbenchStats {
    pub mean_ms: f64,
    pub std_dev_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    /// Frames janky by the 16 ms rule (with the triple-buffer flag).
    pub jank_frames: usize,
    /// 100 × jank_frames / frames.
    pub jank_pct: f64,
    /// Frames of at least 12 ms, and their mean and standard deviation.
    pub bad_frames: usize,
    pub bad_mean_ms: f64,
    pub bad_std_dev_ms: f64,
    /// round(bad_mean × jank_pct × bad_std_dev), as `getScore`.
    pub score: i64,
}

/// `dumpsys gfxinfo`'s profile data.
#[derive(Debug, Clone, Serialize)]
pub struct GfxInfo {
    pub total_frames: u32,
    /// Frames that missed their deadline (an interval later while buffer-stuffed).
    pub janky_frames: u32,
    pub janky_pct: f64,
    /// Frames longer than one refresh interval (`Janky frames (legacy)`).
    pub janky_legacy_frames: u32,
    pub janky_legacy_pct: f64,
    pub p50_ms: u32,
    pub p90_ms: u32,
    pub p95_ms: u32,
    pub p99_ms: u32,
    #[serde(flatten)]
    pub jank_types: JankTypes,
    /// Non-empty histogram buckets as [ms, frames].
    pub histogram: Vec<(u32, u32)>,
}

/// Frames of one episode.
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeStats {
    pub kind: EpisodeKind,
    pub start_ms: f64,
    pub frames: usize,
    pub mean_ms: f64,
    pub max_ms: f64,
    /// Frames longer than the refresh interval.
    pub missed_deadlines: usize,
    /// Frames longer than 16 ms.
    pub over_16ms: usize,
}

/// The frames section of the result document (docs/results.md).
#[derive(Debug, Clone, Serialize)]
pub struct FramesResult {
    pub command: String,
    /// Jankbench's logcat summary line, then `dumpsys gfxinfo`'s profile data.
    pub output: String,
    pub refresh_hz: u32,
    pub frame_interval_ms: f64,
    /// Frames rendered (completed within the run).
    pub frames: usize,
    /// Vsyncs in the fling and scroll episodes.
    pub expected_frames: usize,
    pub jankbench: JankbenchStats,
    pub gfxinfo: GfxInfo,
    /// uibench's GfxMonitor keys for this one run (avg = max).
    pub gfx: BTreeMap<String, f64>,
    pub episodes: Vec<EpisodeStats>,
    /// Mean delay from the intended vsync to the UI thread running, ms.
    pub ui_start_delay_mean_ms: f64,
    /// Every frame's duration, ms, in order.
    pub frame_duration_ms: Vec<f64>,
}

fn ms(ns: Ns) -> f64 {
    ns as f64 / 1e6
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

impl FramesReport {
    /// Each completed frame's timestamps.
    fn frame_infos(&self, run: &RunView) -> Vec<FrameInfo> {
        let logs = &run.probes.logs[self.base.log..];
        let n = logs[LOG_DONE].len();
        (0..n)
            .map(|k| {
                let v = logs[LOG_VSYNC][k];
                let intended = v.at - v.value;
                let late_vsyncs = v.value / self.interval_ns;
                FrameInfo {
                    intended_vsync: intended,
                    vsync: intended + late_vsyncs * self.interval_ns,
                    sync_start: logs[LOG_SYNC][k].at,
                    issue_draw_commands_start: logs[LOG_ISSUE][k].at,
                    frame_completed: logs[LOG_DONE][k].at,
                    // [Assumption] the frame timeline's deadline: the next vsync.
                    frame_deadline: intended + self.interval_ns,
                }
            })
            .collect()
    }

    pub fn render(&self, run: &RunView) -> WorkloadSection {
        let frames = self.frame_infos(run);
        let dur: Vec<f64> = frames.iter().map(|f| ms(f.total_ns())).collect();
        let jb = jankbench(&dur);
        let mut hist = ProfileHist::default();
        for f in &frames {
            hist.add(f.total_ns());
        }
        // The app drew before its counters were reset and was idle since (uibench launches
        // the activity in beforeTest, then GfxMonitor resets gfxinfo).
        let counts = jank::jank_tracker(&frames, self.interval_ns, jank::TrackerStart::AfterPause);
        let (janky, janky_legacy, types) = (counts.janky, counts.janky_legacy, &counts.types);
        let n = frames.len() as u32;
        let pct32 = |x: u32| {
            if n == 0 {
                0.0f32
            } else {
                x as f32 / n as f32 * 100.0
            }
        };
        let gfxinfo = GfxInfo {
            total_frames: n,
            janky_frames: janky,
            janky_pct: round4(pct32(janky) as f64),
            janky_legacy_frames: janky_legacy,
            janky_legacy_pct: round4(pct32(janky_legacy) as f64),
            p50_ms: hist.percentile(50),
            p90_ms: hist.percentile(90),
            p95_ms: hist.percentile(95),
            p99_ms: hist.percentile(99),
            jank_types: types.clone(),
            histogram: hist.entries().into_iter().filter(|e| e.1 > 0).collect(),
        };
        let pid = run.tasks[self.base.task].pid;
        let mut out = format!(
            "Mean: {:?} JankP: {:?} StdDev: {:?} Count Bad: {} Count Jank: {}\n",
            jb.bad_mean_ms, jb.jank_pct, jb.bad_std_dev_ms, jb.bad_frames, jb.jank_frames
        );
        out.push_str(&format!(
            "\n** Graphics info for pid {pid} [{}] **\n",
            self.app
        ));
        out.push_str("\nStats since: 0ns");
        out.push_str(&format!("\nTotal frames rendered: {n}"));
        out.push_str(&format!("\nJanky frames: {janky} ({:.2}%)", pct32(janky)));
        out.push_str(&format!(
            "\nJanky frames (legacy): {janky_legacy} ({:.2}%)",
            pct32(janky_legacy)
        ));
        for p in [50, 90, 95, 99] {
            out.push_str(&format!("\n{p}th percentile: {}ms", hist.percentile(p)));
        }
        for (name, v) in [
            ("Missed Vsync", types.missed_vsync),
            ("High input latency", types.high_input_latency),
            ("Slow UI thread", types.slow_ui_thread),
            ("Slow bitmap uploads", types.slow_bitmap_uploads),
            ("Slow issue draw commands", types.slow_issue_draw_commands),
            ("Frame deadline missed", types.frame_deadline_missed),
            (
                "Frame deadline missed (legacy)",
                types.frame_deadline_missed_legacy,
            ),
        ] {
            out.push_str(&format!("\nNumber {name}: {v}"));
        }
        out.push_str("\nHISTOGRAM:");
        for (b, c) in hist.entries() {
            out.push_str(&format!(" {b}ms={c}"));
        }
        out.push('\n');

        let ui_delay: Vec<f64> = run.probes.logs[self.base.log + LOG_VSYNC]
            .iter()
            .take(frames.len())
            .map(|s| ms(s.value))
            .collect();
        WorkloadSection::Frames(Box::new(FramesResult {
            command: self.command.clone(),
            output: out,
            refresh_hz: self.refresh_hz,
            frame_interval_ms: round4(ms(self.interval_ns)),
            frames: frames.len(),
            expected_frames: self.frame_episode.len(),
            jankbench: jb,
            gfx: gfx_metrics(&gfxinfo),
            gfxinfo,
            episodes: self.episodes(&frames),
            ui_start_delay_mean_ms: round4(jank::mean_std(&ui_delay).0),
            frame_duration_ms: dur.iter().map(|&d| round4(d)).collect(),
        }))
    }

    fn episodes(&self, frames: &[FrameInfo]) -> Vec<EpisodeStats> {
        self.layout
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind != EpisodeKind::Idle)
            .map(|(ei, e)| {
                let d: Vec<f64> = frames
                    .iter()
                    .zip(&self.frame_episode)
                    .filter(|(_, &fe)| fe == ei)
                    .map(|(f, _)| ms(f.total_ns()))
                    .collect();
                let interval = ms(self.interval_ns);
                EpisodeStats {
                    kind: e.kind,
                    start_ms: round4(ms(e.first_slot * self.interval_ns)),
                    frames: d.len(),
                    mean_ms: round4(jank::mean_std(&d).0),
                    max_ms: round4(d.iter().cloned().fold(0.0, f64::max)),
                    missed_deadlines: d.iter().filter(|&&x| x > interval).count(),
                    over_16ms: d.iter().filter(|&&x| x > 16.0).count(),
                }
            })
            .collect()
    }
}

/// UiBenchmarkResult's statistics over the frame durations (ms).
fn jankbench(dur: &[f64]) -> JankbenchStats {
    let mut sorted = dur.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (mean, std) = jank::mean_std(dur);
    let bad: Vec<f64> = dur
        .iter()
        .copied()
        .filter(|&d| d >= jank::BAD_FRAME_MS)
        .collect();
    let (bad_mean, bad_std) = jank::mean_std(&bad);
    let jank_frames = jank::jankbench_jank_indices(dur).len();
    let jank_pct = 100.0 * jank_frames as f64 / dur.len() as f64;
    let score = bad_mean * jank_pct * bad_std;
    JankbenchStats {
        mean_ms: round4(mean),
        std_dev_ms: round4(std),
        min_ms: round4(sorted.first().copied().unwrap_or(f64::NAN)),
        max_ms: round4(sorted.last().copied().unwrap_or(f64::NAN)),
        p50_ms: round4(jank::percentile(&sorted, 50.0)),
        p90_ms: round4(jank::percentile(&sorted, 90.0)),
        p95_ms: round4(jank::percentile(&sorted, 95.0)),
        p99_ms: round4(jank::percentile(&sorted, 99.0)),
        jank_frames,
        jank_pct,
        bad_frames: bad.len(),
        bad_mean_ms: bad_mean,
        bad_std_dev_ms: bad_std,
        // Java's Math.round(NaN) is 0.
        score: if score.is_nan() {
            0
        } else {
            score.round() as i64
        },
    }
}

/// GfxMonitor's keys: `gfx-avg-*` and `gfx-max-*` are the same for one run.
fn gfx_metrics(g: &GfxInfo) -> BTreeMap<String, f64> {
    let t = &g.jank_types;
    let mut m = BTreeMap::new();
    let base: [(&str, f64); 11] = [
        ("jank", g.janky_pct),
        ("frame-time-50", g.p50_ms as f64),
        ("frame-time-90", g.p90_ms as f64),
        ("frame-time-95", g.p95_ms as f64),
        ("frame-time-99", g.p99_ms as f64),
        ("missed-vsync", t.missed_vsync as f64),
        ("high-input-latency", t.high_input_latency as f64),
        ("slow-ui-thread", t.slow_ui_thread as f64),
        ("slow-bitmap-uploads", t.slow_bitmap_uploads as f64),
        ("slow-draw", t.slow_issue_draw_commands as f64),
        ("num-frame-deadline-missed", t.frame_deadline_missed as f64),
    ];
    for (k, v) in base {
        m.insert(format!("gfx-avg-{k}"), v);
        m.insert(format!("gfx-max-{k}"), v);
    }
    m
}
