//! Android frame pipeline (`frames`; docs/workloads.md, frames): a UI thread woken by vsync and a
//! RenderThread per frame, SurfaceFlinger composing what was queued, optional app and
//! system threads; results in Jankbench and uibench (`dumpsys gfxinfo`) terms.
//!
//! Per frame (hwui's DrawFrameTask handshake): the UI thread wakes at its vsync
//! (Choreographer: a missed vsync is skipped, the frame starts at once for the latest one),
//! does its work, hands the frame to RenderThread and blocks until RenderThread has
//! synced it; RenderThread syncs, releases the UI thread, draws and issues, and the frame
//! completes when it queues the buffer (then SurfaceFlinger composes it). Frame duration
//! = completion − intended vsync, as FrameMetrics TOTAL_DURATION. The work model is in
//! `model`; the statistics and printout in `report`.

pub mod adpf;
pub mod input_boost;
pub mod jank;
pub mod model;
pub mod report;

use super::cmdline::{self, flag, long_value, value, OptSpec};
use super::program::{Base, ObjectSpec, Since, TimerSpec};
use super::report::ToolReport;
use super::{Compiled, Op, TaskSpec, TimerMode, Workload};
use crate::engine::rng::stream;
use crate::error::InputError;
use crate::time::{Ns, NSEC_PER_SEC};
use crate::workload::program::PowerHal;
use model::{EpisodeKind, EpisodeSlots, FrameWork, WorkModel};
use rand_chacha::ChaCha8Rng;
pub use report::{FramesReport, FramesResult};

/// The longest run of episodes a `frames` workload may describe.
const MAX_SPAN_NS: Ns = 600 * NSEC_PER_SEC;

const OPTS: &[OptSpec] = &[
    value('r', "refresh"),
    value('e', "episodes"),
    long_value("ui-work"),
    long_value("rt-work"),
    long_value("fling-factor"),
    long_value("jitter"),
    value('a', "app-threads"),
    value('s', "system-threads"),
    long_value("uclamp-min"),
    long_value("nice"),
    long_value("cpus"),
    long_value("app"),
    long_value("sf-policy"),
    long_value("input-boost"),
    long_value("adpf"),
    flag('h', "help"),
];

/// Logs the pipeline writes, one sample per frame each.
pub const LOG_VSYNC: usize = 0;
pub const LOG_SYNC: usize = 1;
pub const LOG_ISSUE: usize = 2;
pub const LOG_DONE: usize = 3;

/// Semaphores: frames handed to RenderThread, the UI thread's "synced" flag, buffers
/// queued to SurfaceFlinger.
const RT_REQ: usize = 0;
const UI_SYNC: usize = 1;
const SF_Q: usize = 2;
/// The hint session, with `--adpf`.
const HINT: usize = 3;

/// Android's top-app boost of the UI thread and RenderThread (TOP_APP_PRIORITY_BOOST).
pub const DEFAULT_NICE: i32 = -10;
/// uclamp.min of the UI thread and RenderThread: the smallest clamp above an A55's
/// capacity (124 on `pixel6`), so capacity-aware placement keeps them off the little
/// cores, as Android's top-app placement does, while on the X1 it stays below the lowest
/// OPP's capacity (183) even with the 25% headroom kernels before v6.8 add to a clamp
/// (156): a placement hint there, not a frequency boost. 0 turns it off.
pub const DEFAULT_UCLAMP_MIN: u32 = 125;

/// SurfaceFlinger's main thread: SCHED_FIFO at sched_priority 2 as Android runs it
/// (main_surfaceflinger.cpp sets it with sched_setscheduler before flinger->run(); later
/// releases through SurfaceFlinger::setSchedFifo, the same priority), or the fair class
/// at nice −8 (PRIORITY_URGENT_DISPLAY), the model before the real-time class existed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SfPolicy {
    Fifo,
    Fair,
}

/// sched_priority of SurfaceFlinger's main thread on Android.
pub const SF_FIFO_PRIORITY: u32 = 2;
/// SurfaceFlinger's nice value (PRIORITY_URGENT_DISPLAY), set before it turns SCHED_FIFO.
pub const SF_NICE: i32 = -8;
/// `--sf-policy` when not given: `fair`, so the seed studies that run `frames`
/// (delayed-dequeue, pelt-halflife) keep their results (docs/workloads.md, frames).
pub const DEFAULT_SF_POLICY: SfPolicy = SfPolicy::Fair;

/// Options after defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub refresh_hz: u32,
    pub episodes: Vec<model::Episode>,
    pub work: WorkModel,
    pub app_threads: usize,
    pub system_threads: usize,
    pub uclamp_min: Option<u32>,
    pub nice: i32,
    pub cpus: Option<Vec<usize>>,
    pub app: String,
    /// `--sf-policy fifo|fair`: SurfaceFlinger's scheduling class.
    pub sf_policy: SfPolicy,
    /// `--input-boost CPU:MHZ,…`: the power HAL's minimum frequency per policy (named by
    /// one of its CPUs) while a touch boost lasts (`input_boost`); empty: no boost.
    pub input_boost: Vec<(usize, u32)>,
    /// `--adpf 12|14`: hwui's performance hint session for the UI thread and
    /// RenderThread, served as a Pixel 6's power HAL of that Android serves it (`adpf`).
    pub adpf: Option<PowerHal>,
}

/// Parse `frames ARGS…` for a machine of `nr_cpus` CPUs.
pub fn parse(args: &[String], nr_cpus: usize) -> Result<Params, InputError> {
    let tool = "frames";
    let p = cmdline::getopt(tool, args, OPTS)?;
    cmdline::no_positional(tool, &p)?;
    let err = |long: &str, msg: String, fix: &str| {
        let spec = OPTS.iter().find(|s| s.long == long).expect("known option");
        InputError::new(format!("{tool} {}", spec.display()), msg).with_fix(fix.to_string())
    };
    if p.has("help") {
        return Err(err(
            "help",
            "frames has no help screen".into(),
            "see docs/workloads.md (frames)",
        ));
    }
    let refresh_hz: u32 = cmdline::number_or(tool, &p, "refresh", 60, 1)?;
    if refresh_hz > 240 {
        return Err(err(
            "refresh",
            format!("{refresh_hz} Hz is beyond any phone display"),
            "use 60, 90 or 120",
        ));
    }
    let episodes = match p.get("episodes") {
        Some((_, v)) => model::parse_episodes(v),
        None => model::parse_episodes(model::DEFAULT_EPISODES),
    }
    .map_err(|m| err("episodes", m, "write e.g. -e idle:1s,fling:2s,scroll:5s"))?;
    let dur = |long: &str, default: Ns| match p.get(long) {
        Some((spec, v)) => cmdline::duration(tool, spec, v, "us"),
        None => Ok(default),
    };
    let float = |long: &str, default: f64, lo: f64, hi: f64| -> Result<f64, InputError> {
        match p.get(long) {
            None => Ok(default),
            Some((_, v)) => match v.trim().parse::<f64>() {
                Ok(x) if (lo..=hi).contains(&x) => Ok(x),
                _ => Err(err(
                    long,
                    format!("'{v}' is not a number from {lo} to {hi}"),
                    &format!("write e.g. --{long} {default}"),
                )),
            },
        }
    };
    let work = WorkModel {
        ui_ns: dur("ui-work", model::DEFAULT_UI_NS)?,
        rt_ns: dur("rt-work", model::DEFAULT_RT_NS)?,
        fling_factor: float("fling-factor", model::DEFAULT_FLING_FACTOR, 1.0, 20.0)?,
        jitter_pct: float("jitter", model::DEFAULT_JITTER_PCT as f64, 0.0, 90.0)?.round() as u32,
    };
    if work.ui_ns == 0 || work.rt_ns == 0 {
        return Err(err(
            if work.ui_ns == 0 {
                "ui-work"
            } else {
                "rt-work"
            },
            "a frame needs some work".into(),
            "give a positive duration such as 1ms",
        ));
    }
    let nice = cmdline::nice_or(tool, &p, "nice", DEFAULT_NICE)?;
    let uclamp_min = match p.get("uclamp-min") {
        None => Some(DEFAULT_UCLAMP_MIN),
        Some((spec, v)) => {
            let n: u32 = cmdline::number(tool, spec, v, 0)?;
            if n > 1024 {
                return Err(err(
                    "uclamp-min",
                    format!("{n} is above 1024"),
                    "use 0..1024",
                ));
            }
            Some(n)
        }
    };
    let cpus = cmdline::cpus_opt(tool, &p, "cpus", nr_cpus)?;
    let sf_policy = match p.get("sf-policy") {
        None => DEFAULT_SF_POLICY,
        Some((_, "fifo" | "SCHED_FIFO")) => SfPolicy::Fifo,
        Some((_, "fair" | "other" | "SCHED_OTHER")) => SfPolicy::Fair,
        Some((_, v)) => {
            return Err(err(
                "sf-policy",
                format!("unknown SurfaceFlinger policy '{v}'"),
                "use fifo (SCHED_FIFO priority 2, as on Android) or fair (nice -8)",
            ))
        }
    };
    let input_boost = match p.get("input-boost") {
        None => Vec::new(),
        Some((_, v)) => parse_input_boost(v, nr_cpus).map_err(|m| {
            err(
                "input-boost",
                m,
                "write CPU:MHZ pairs, one CPU of each policy, e.g. 0:1197,4:1197,6:1106 (Pixel 6)",
            )
        })?,
    };
    let adpf = match p.get("adpf") {
        None => None,
        Some((_, v)) => Some(adpf::parse_hal(v).map_err(|m| {
            err(
                "adpf",
                m,
                "give 14 (Android 14's Pixel power HAL: votes, the load reset) or 12 (Android 12's)",
            )
        })?),
    };
    let threads = |long: &str| -> Result<usize, InputError> {
        let n: usize = cmdline::number_or(tool, &p, long, 0, 0)?;
        if n > 1000 {
            return Err(err(
                long,
                format!("{n} threads is more than the model is meant for"),
                "use at most 1000",
            ));
        }
        Ok(n)
    };
    let (app_threads, system_threads) = (threads("app-threads")?, threads("system-threads")?);
    // Programs are written out frame by frame and sleep by sleep, so their size grows
    // with the episodes' length × the threads (found by fuzzing: `-e scroll:99999min`
    // allocated until the process was killed). 10 min of frames, 100 thread-minutes of
    // background threads.
    let span: Ns = episodes.iter().map(|e| e.ns).fold(0, Ns::saturating_add);
    if span > MAX_SPAN_NS {
        return Err(err(
            "episodes",
            format!("the episodes last {} s", span / NSEC_PER_SEC),
            "keep them within 600 s in all",
        ));
    }
    let thread_ns = (app_threads + system_threads) as u128 * span as u128;
    if thread_ns > 100 * 60 * NSEC_PER_SEC as u128 {
        return Err(err(
            "system-threads",
            format!(
                "{} background threads over {} s of episodes",
                app_threads + system_threads,
                span / NSEC_PER_SEC
            ),
            "keep threads × episode seconds within 6000",
        ));
    }
    Ok(Params {
        refresh_hz,
        episodes,
        work,
        app_threads,
        system_threads,
        uclamp_min: uclamp_min.filter(|&u| u > 0),
        nice,
        cpus,
        app: p
            .get("app")
            .map(|(_, v)| v.to_string())
            .unwrap_or_else(|| "com.android.benchmark".into()),
        sf_policy,
        input_boost,
        adpf,
    })
}

/// `0:1197,4:1197,6:1106`: (CPU, kHz) pairs.
fn parse_input_boost(v: &str, nr_cpus: usize) -> Result<Vec<(usize, u32)>, String> {
    v.split(',')
        .map(|pair| {
            let (cpu, mhz) = pair
                .split_once(':')
                .ok_or(format!("'{pair}' is not CPU:MHZ"))?;
            let cpu: usize = cpu
                .trim()
                .parse()
                .map_err(|_| format!("'{cpu}' is not a CPU number"))?;
            if cpu >= nr_cpus {
                return Err(format!("CPU {cpu} does not exist ({nr_cpus} CPUs)"));
            }
            match mhz.trim().trim_end_matches("MHz").parse::<u32>() {
                Ok(m) if m > 0 && m < 100_000 => Ok((cpu, m * 1000)),
                _ => Err(format!("'{mhz}' is not a frequency in MHz")),
            }
        })
        .collect()
}

/// The main thread's comm: Android names it after the process, keeping the last 15
/// characters of a longer name (`com.android.benchmark` → `droid.benchmark`).
pub fn ui_comm(app: &str) -> String {
    let chars: Vec<char> = app.chars().collect();
    chars[chars.len().saturating_sub(15)..].iter().collect()
}

/// Names of system daemons the `--system-threads` take, in turn.
const SYSTEM_COMMS: &[&str] = &[
    "system_server",
    "android.anim",
    "binder:1432_3",
    "kworker/u16:2",
    "logd.writer",
    "composer@2.4-se",
];

/// Compile into tasks: UI thread, RenderThread, surfaceflinger, app threads, system
/// threads. `seed` draws the per-frame work and the background activity.
pub fn build(p: &Params, command: &str, seed: u64) -> Compiled {
    let interval = model::frame_interval_ns(p.refresh_hz);
    let layout = model::lay_out(&p.episodes, interval);
    let total_slots: u64 = layout.iter().map(|e| e.slots).sum();
    let frames = model::frames(&layout, &p.work, &mut stream(seed, "frames"));
    let mut objects = vec![
        ObjectSpec::Semaphore {
            initial: 0,
            max: u64::MAX,
        },
        ObjectSpec::Semaphore { initial: 0, max: 1 },
        ObjectSpec::Semaphore {
            initial: 0,
            max: u64::MAX,
        },
    ];
    if let Some(hal) = p.adpf {
        // The UI thread and RenderThread are the first two tasks.
        objects.push(ObjectSpec::HintSession {
            hal,
            threads: [0, 1],
            target_ns: adpf::target_work_ns(interval),
            refresh_hz: p.refresh_hz,
            floor: p.uclamp_min.unwrap_or(0),
        });
    }
    let uclamp = super::program::UclampReq {
        min: p.uclamp_min,
        max: None,
    };
    let task = |comm: &str, cpus: Option<Vec<usize>>, program: Vec<Op>| {
        TaskSpec::new(comm.to_string(), program).cpus(cpus)
    };
    let (ui_prog, nr_timers) = ui_program(&frames, &layout, interval, p.adpf);
    let mut ui = task(&ui_comm(&p.app), p.cpus.clone(), ui_prog);
    let mut rt = task(
        "RenderThread",
        p.cpus.clone(),
        rt_program(&frames, p.adpf.is_some()),
    );
    ui.attrs.nice = p.nice;
    rt.attrs.nice = p.nice;
    ui.attrs.uclamp = uclamp;
    rt.attrs.uclamp = uclamp;
    let mut sf_prog = vec![];
    for f in &frames {
        sf_prog.extend([Op::SemWait { obj: SF_Q }, Op::Run { work_ns: f.sf_ns }]);
    }
    let mut sf = task("surfaceflinger", None, sf_prog);
    sf.attrs.nice = SF_NICE;
    if p.sf_policy == SfPolicy::Fifo {
        sf = sf.rt(super::Policy::Fifo, SF_FIFO_PRIORITY);
    }
    let mut tasks = vec![ui, rt, sf];
    let span = total_slots * interval;
    let mut app_rng = stream(seed, "frames.app");
    for i in 0..p.app_threads {
        let prog = app_program(&layout, interval, &mut app_rng);
        tasks.push(task(&format!("AsyncTask #{}", i + 1), p.cpus.clone(), prog));
    }
    let mut sys_rng = stream(seed, "frames.system");
    for i in 0..p.system_threads {
        let prog = background(
            span,
            (4_000_000, 60_000_000),
            (100_000, 1_500_000),
            &mut sys_rng,
        );
        tasks.push(task(SYSTEM_COMMS[i % SYSTEM_COMMS.len()], None, prog));
    }
    if !p.input_boost.is_empty() {
        let windows = input_boost::windows(&layout, interval);
        tasks.push(task(
            POWER_HAL_COMM,
            None,
            power_hal_program(&windows, &p.input_boost),
        ));
    }
    Compiled {
        workload: Workload {
            tasks,
            timers: (0..nr_timers)
                .map(|i| TimerSpec {
                    name: if adpf::sends_hints(p.adpf) && i + 1 == nr_timers {
                        "frames.input".to_string()
                    } else {
                        format!("frames.vsync{i}")
                    },
                })
                .collect(),
            objects,
            // One more vsync so the last frame can complete.
            duration_ns: Some((total_slots + 1) * interval),
            logs: ["vsync", "sync", "issue", "done"]
                .iter()
                .map(|s| format!("frames.{s}"))
                .collect(),
            ..Workload::default()
        },
        reports: vec![ToolReport::Frames(Box::new(FramesReport {
            base: Base::default(),
            command: command.to_string(),
            refresh_hz: p.refresh_hz,
            interval_ns: interval,
            layout,
            frame_episode: frames.iter().map(|f| f.episode).collect(),
            app: p.app.clone(),
        }))],
    }
}

/// UI thread: wait for the frame's vsync, work, hand over to RenderThread, wait for sync.
/// Each episode has its own vsync timer anchored at the thread's start, so the vsyncs a
/// late frame makes Choreographer skip shift the rest of that episode only. Returns the
/// program and the number of timers. With `adpf` a frame marks its start on the hint
/// session, and a frame after idle is preceded by its touch, which sends the load-reset
/// hint.
fn ui_program(
    frames: &[FrameWork],
    layout: &[EpisodeSlots],
    interval: Ns,
    adpf: Option<PowerHal>,
) -> (Vec<Op>, usize) {
    let hints = adpf::sends_hints(adpf);
    let mut prog = Vec::with_capacity(frames.len() * 5);
    let mut timer_of = vec![usize::MAX; layout.len()];
    let mut nr_timers = 0;
    let mut prev: Option<(usize, u64)> = None;
    // With `adpf`, one more timer after the episodes' own: the touches that start flings.
    let input_timer = {
        let mut eps: Vec<usize> = frames.iter().map(|f| f.episode).collect();
        eps.dedup();
        eps.len()
    };
    let mut prev_input: Ns = 0;
    for f in frames {
        let prev_slot = prev.map(|(_, slot)| slot);
        // A timer starts at the thread's start: an episode's first expiry is its slot.
        let gap = match prev {
            Some((e, slot)) if e == f.episode => f.slot - slot,
            _ => f.slot,
        };
        prev = Some((f.episode, f.slot));
        if timer_of[f.episode] == usize::MAX {
            timer_of[f.episode] = nr_timers;
            nr_timers += 1;
        }
        let timer = timer_of[f.episode];
        if hints && adpf::resets_load(prev_slot, f.slot, interval) {
            // The UI thread wakes for the touch, sends the hint, and waits for the vsync.
            let at = adpf::input_at(f.slot, interval);
            prog.extend([
                Op::Timer {
                    timer: input_timer,
                    period_ns: at - prev_input,
                    mode: TimerMode::Absolute,
                },
                Op::HintLoadReset { obj: HINT },
            ]);
            prev_input = at;
        }
        prog.push(Op::Timer {
            timer,
            period_ns: gap * interval,
            mode: TimerMode::Vsync { grid_ns: interval },
        });
        if adpf.is_some() {
            prog.push(Op::HintFrameStart { obj: HINT });
        }
        prog.extend([
            Op::Record {
                log: LOG_VSYNC,
                since: Since::Timer(timer),
            },
            Op::Run { work_ns: f.ui_ns },
            Op::SemPost { obj: RT_REQ },
            Op::SemWait { obj: UI_SYNC },
        ]);
    }
    debug_assert_eq!(nr_timers, input_timer);
    (prog, nr_timers + usize::from(hints))
}

/// RenderThread: sync (the UI thread waits for it), then draw/issue/swap; with `adpf` it
/// reports the frame's work duration once the frame is queued.
fn rt_program(frames: &[FrameWork], adpf: bool) -> Vec<Op> {
    let mut prog = Vec::with_capacity(frames.len() * 10);
    let rec = |log| Op::Record {
        log,
        since: Since::Stamp(0),
    };
    for f in frames {
        prog.extend([
            Op::SemWait { obj: RT_REQ },
            Op::Stamp { slot: 0 },
            rec(LOG_SYNC),
            Op::Run { work_ns: f.sync_ns },
            Op::SemPost { obj: UI_SYNC },
            rec(LOG_ISSUE),
            Op::Run { work_ns: f.rt_ns },
            rec(LOG_DONE),
            Op::SemPost { obj: SF_Q },
        ]);
        if adpf {
            prog.push(Op::HintReport { obj: HINT });
        }
    }
    prog
}

/// An app thread (image decode, binder replies) busy only while frames are rendered.
fn app_program(layout: &[EpisodeSlots], interval: Ns, rng: &mut ChaCha8Rng) -> Vec<Op> {
    let mut prog = Vec::new();
    for e in layout {
        let span = e.slots * interval;
        if e.kind == EpisodeKind::Idle {
            prog.push(Op::Sleep { ns: span });
        } else {
            prog.extend(background(
                span,
                (2_000_000, 12_000_000),
                (200_000, 2_000_000),
                rng,
            ));
        }
    }
    prog
}

/// The power HAL service's thread (android.hardware.power-service.pixel-libperfmgr, 15
/// characters kept).
pub const POWER_HAL_COMM: &str = "android.hardwar";

/// The power HAL: at each boost window it writes the minimum frequencies, and at its end
/// writes 0 back (the nodes' defaults). The sysfs writes are taken to cost no CPU time.
fn power_hal_program(windows: &[(Ns, Ns)], mins: &[(usize, u32)]) -> Vec<Op> {
    let mut prog = Vec::new();
    let mut t = 0;
    for &(on, off) in windows {
        if on > t {
            prog.push(Op::Sleep { ns: on - t });
        }
        prog.extend(mins.iter().map(|&(cpu, khz)| Op::SetMinFreq { cpu, khz }));
        prog.push(Op::Sleep { ns: off - on });
        prog.extend(mins.iter().map(|&(cpu, _)| Op::SetMinFreq { cpu, khz: 0 }));
        t = off;
    }
    prog
}

/// Sleep / run pairs drawn uniformly from the (min, max) ranges, until `span` of sleeping
/// and reference work has passed.
fn background(span: Ns, sleep: (Ns, Ns), work: (Ns, Ns), rng: &mut ChaCha8Rng) -> Vec<Op> {
    let draw =
        |rng: &mut ChaCha8Rng, (lo, hi): (Ns, Ns)| lo + (model::unit(rng) * (hi - lo) as f64) as Ns;
    let mut prog = Vec::new();
    let mut t = 0;
    while t < span {
        let s = draw(rng, sleep);
        let w = draw(rng, work);
        prog.extend([Op::Sleep { ns: s }, Op::Run { work_ns: w }]);
        t += s + w;
    }
    prog
}
