//! The per-frame work model of the frame pipeline: episodes (idle, fling, scroll) laid on
//! the vsync grid, and each frame's UI-thread, sync and RenderThread work drawn from the
//! run's seed. All work is in reference nanoseconds (capacity 1024 at the top OPP), so a
//! smaller core or a lower OPP lengthens every frame.
//!
//! The model, for a steady scroll frame with base UI work `U` and RenderThread work `R`:
//! - UI thread (input, animation, measure/layout, record display list): `U × j`;
//! - sync (RenderThread copies the display list, uploads new bitmaps): `SYNC_FRAC × R × j`;
//! - RenderThread draw + issue + swap: `R × j`;
//!
//! where `j` is a per-frame factor uniform in [1 − jitter, 1 + jitter]. A scroll brings a
//! new list item into view every so often: with probability `BIND_PROB_SCROLL` a frame
//! also binds one (UI + `BIND_UI × U`, sync + `BIND_SYNC × R`: inflate and upload). A fling
//! starts heavy: its k-th frame is scaled by `1 + (F − 1)·e^(−k/FLING_DECAY_FRAMES)` (F =
//! `--fling-factor`) and binds twice as often while fast. Idle episodes render nothing.

use crate::time::{Ns, NSEC_PER_SEC};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;
use serde::Serialize;

/// Default episodes: 10 s with two flings that settle into scrolling.
pub const DEFAULT_EPISODES: &str = "idle:1s,fling:2s,scroll:2s,idle:1s,fling:2s,scroll:2s";
/// Default base UI-thread work per frame (reference ns).
pub const DEFAULT_UI_NS: Ns = 1_200_000;
/// Default base RenderThread draw/issue work per frame (reference ns).
pub const DEFAULT_RT_NS: Ns = 1_600_000;
/// Default first-frame scale of a fling.
pub const DEFAULT_FLING_FACTOR: f64 = 2.5;
/// Default per-frame variation, ± percent.
pub const DEFAULT_JITTER_PCT: u32 = 25;
/// Sync (display-list copy) as a fraction of the RenderThread work.
pub const SYNC_FRAC: f64 = 0.1;
/// Chance that a scroll frame binds a new item; a fling's fast part binds twice as often.
pub const BIND_PROB_SCROLL: f64 = 0.125;
/// Extra UI work of a bind, as a fraction of the base UI work.
pub const BIND_UI: f64 = 0.8;
/// Extra sync work of a bind (texture upload), as a fraction of the base RT work.
pub const BIND_SYNC: f64 = 0.2;
/// e-folding length of a fling's heavy start, in frames.
pub const FLING_DECAY_FRAMES: f64 = 6.0;
/// SurfaceFlinger composition per frame (reference ns), ± the jitter.
pub const SF_NS: Ns = 500_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EpisodeKind {
    Idle,
    Fling,
    Scroll,
}

impl EpisodeKind {
    pub fn name(self) -> &'static str {
        match self {
            EpisodeKind::Idle => "idle",
            EpisodeKind::Fling => "fling",
            EpisodeKind::Scroll => "scroll",
        }
    }
}

/// One episode as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Episode {
    pub kind: EpisodeKind,
    pub ns: Ns,
}

/// Parse `idle:1s,fling:2s,scroll:5s` (durations as `500ms`, `2s`, …).
pub fn parse_episodes(text: &str) -> Result<Vec<Episode>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (kind, dur) = item
            .split_once(':')
            .ok_or_else(|| format!("'{item}' is not KIND:DURATION"))?;
        let kind = match kind.trim() {
            "idle" => EpisodeKind::Idle,
            "fling" => EpisodeKind::Fling,
            "scroll" => EpisodeKind::Scroll,
            other => return Err(format!("unknown episode kind '{other}'")),
        };
        let ns = crate::time::parse_duration(dur.trim())?;
        if ns == 0 {
            return Err(format!("episode '{item}' has no length"));
        }
        out.push(Episode { kind, ns });
    }
    if !out.iter().any(|e| e.kind != EpisodeKind::Idle) {
        return Err("no fling or scroll episode: nothing would be rendered".into());
    }
    Ok(out)
}

/// The vsync period of a refresh rate, ns (truncated, as 1 s / fps in integer ns).
pub fn frame_interval_ns(refresh_hz: u32) -> Ns {
    NSEC_PER_SEC / refresh_hz as Ns
}

/// Knobs of the work model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkModel {
    pub ui_ns: Ns,
    pub rt_ns: Ns,
    pub fling_factor: f64,
    pub jitter_pct: u32,
}

/// One frame to render: its vsync slot and its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameWork {
    /// Index of the vsync (time = slot × interval from the pipeline's start).
    pub slot: u64,
    /// Which episode it belongs to.
    pub episode: usize,
    pub ui_ns: Ns,
    pub sync_ns: Ns,
    pub rt_ns: Ns,
    pub sf_ns: Ns,
}

/// The episodes on the vsync grid: each gets round(length / interval) slots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EpisodeSlots {
    pub kind: EpisodeKind,
    pub first_slot: u64,
    pub slots: u64,
}

pub fn lay_out(episodes: &[Episode], interval: Ns) -> Vec<EpisodeSlots> {
    let mut at = 0;
    episodes
        .iter()
        .map(|e| {
            let slots = ((e.ns + interval / 2) / interval).max(1);
            let s = EpisodeSlots {
                kind: e.kind,
                first_slot: at,
                slots,
            };
            at += slots;
            s
        })
        .collect()
}

/// A uniform draw in [0, 1).
pub fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Every frame of the run, in order, with its work drawn from `rng`.
pub fn frames(layout: &[EpisodeSlots], m: &WorkModel, rng: &mut ChaCha8Rng) -> Vec<FrameWork> {
    let j = m.jitter_pct as f64 / 100.0;
    let mut out = Vec::new();
    for (ei, e) in layout.iter().enumerate() {
        if e.kind == EpisodeKind::Idle {
            continue;
        }
        for k in 0..e.slots {
            let (heavy, bind_p) = match e.kind {
                EpisodeKind::Fling => {
                    let h = 1.0 + (m.fling_factor - 1.0) * (-(k as f64) / FLING_DECAY_FRAMES).exp();
                    // Fast for the first second or so, then it slows to scrolling speed.
                    let fast = k * 2 < e.slots;
                    (h, if fast { 2.0 } else { 1.0 } * BIND_PROB_SCROLL)
                }
                _ => (1.0, BIND_PROB_SCROLL),
            };
            let vary = |rng: &mut ChaCha8Rng| 1.0 - j + 2.0 * j * unit(rng);
            let ui_j = vary(rng);
            let rt_j = vary(rng);
            let sf_j = vary(rng);
            let bind = unit(rng) < bind_p;
            let (u, r) = (m.ui_ns as f64, m.rt_ns as f64);
            let mut ui = u * heavy * ui_j;
            let mut sync = SYNC_FRAC * r * heavy * rt_j;
            if bind {
                ui += BIND_UI * u;
                sync += BIND_SYNC * r;
            }
            out.push(FrameWork {
                slot: e.first_slot + k,
                episode: ei,
                ui_ns: ui.round() as Ns,
                sync_ns: sync.round() as Ns,
                rt_ns: (r * heavy * rt_j).round() as Ns,
                sf_ns: (SF_NS as f64 * sf_j).round() as Ns,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    #[test]
    fn episodes_parse_and_lay_out_on_the_grid() {
        let e = parse_episodes("idle:1s, fling:500ms,scroll:2s").unwrap();
        assert_eq!(e.len(), 3);
        let l = lay_out(&e, frame_interval_ns(60));
        assert_eq!(
            l.iter()
                .map(|s| (s.first_slot, s.slots))
                .collect::<Vec<_>>(),
            vec![(0, 60), (60, 30), (90, 120)]
        );
        assert!(parse_episodes("idle:1s").is_err());
        assert!(parse_episodes("swipe:1s").unwrap_err().contains("swipe"));
        assert!(parse_episodes("scroll").is_err());
    }

    #[test]
    fn flings_start_heavy_and_frames_vary_with_the_seed() {
        let l = lay_out(&parse_episodes("fling:1s").unwrap(), frame_interval_ns(60));
        let m = WorkModel {
            ui_ns: DEFAULT_UI_NS,
            rt_ns: DEFAULT_RT_NS,
            fling_factor: DEFAULT_FLING_FACTOR,
            jitter_pct: DEFAULT_JITTER_PCT,
        };
        let a = frames(&l, &m, &mut stream(1, "frames"));
        let b = frames(&l, &m, &mut stream(2, "frames"));
        assert_eq!(a.len(), 60);
        assert_ne!(a, b);
        let head: Ns = a[..3].iter().map(|f| f.rt_ns).sum();
        let tail: Ns = a[57..].iter().map(|f| f.rt_ns).sum();
        assert!(head > 2 * tail, "head {head} tail {tail}");
    }
}
