//! frames front end (docs/workloads.md, frames): the Android UI thread / RenderThread pipeline on
//! `pixel6`, its jank in Jankbench and gfxinfo terms, determinism per seed.

use schedlab::experiment::run::run_scenario;
use schedlab::experiment::RunResult;
use schedlab::experiment::Scenario;
use schedlab::sched::cpufreq_schedutil::Governor;
use schedlab::workload::frames::FramesResult;
use schedlab::workload::report::WorkloadSection;
use schedlab::workload::{build_workload_seeded, Op};
use std::path::Path;

fn run(governor: &str, seed: u64, workloads: &[&str]) -> RunResult {
    let sc = Scenario {
        machine: "pixel6".into(),
        governor: Governor::from_name(governor).unwrap(),
        seed,
        workloads: workloads.iter().map(|s| s.to_string()).collect(),
        ..Scenario::default()
    };
    let r = run_scenario(&sc).unwrap();
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

/// `cmd` on pixel6 under schedutil, seed 1, run to `t_ns`: the workload is compiled here
/// and handed to prepare; the scenario gives the rest.
fn run_until(cmd: &str, t_ns: u64) -> schedlab::simulation::Simulation {
    let sc = Scenario {
        machine: "pixel6".into(),
        governor: Governor::Schedutil,
        seed: 1,
        ..Scenario::default()
    };
    let w = build_workload_seeded(cmd, Path::new("."), 8, 1).unwrap();
    let mut s = schedlab::experiment::run::prepare(&sc, w.workload).unwrap();
    s.run_until(t_ns);
    s
}

fn frames(r: &RunResult) -> &FramesResult {
    match &r.workloads[0] {
        WorkloadSection::Frames(f) => f,
        other => panic!("not frames: {other:?}"),
    }
}

#[test]
fn no_competition_at_top_frequency_is_jank_free() {
    for governor in ["fixed:2802", "performance"] {
        let r = run(governor, 1, &["frames"]);
        let f = frames(&r);
        assert_eq!(f.frames, f.expected_frames, "{governor}");
        assert_eq!(f.jankbench.jank_frames, 0, "{governor}: {:?}", f.jankbench);
        assert_eq!(f.gfxinfo.janky_frames, 0, "{governor}");
        assert_eq!(f.gfxinfo.jank_types.frame_deadline_missed_legacy, 0);
        assert!(f.jankbench.max_ms < 16.0, "{governor}: {:?}", f.jankbench);
        assert_eq!(f.gfx["gfx-avg-jank"], 0.0);
    }
}

#[test]
fn competing_hogs_make_jank() {
    let quiet = run("fixed:2802", 1, &["frames --cpus 6"]);
    let busy = run(
        "fixed:2802",
        1,
        &[
            "frames --cpus 6",
            "spinner -n 8 --cpus 6 --nice -10 --sleep 0 --work 100ms",
        ],
    );
    let (q, b) = (frames(&quiet), frames(&busy));
    assert_eq!(q.jankbench.jank_frames, 0);
    assert!(b.jankbench.jank_frames > 10, "{:?}", b.jankbench);
    assert!(b.gfxinfo.jank_types.frame_deadline_missed > 10);
    assert!(b.jankbench.mean_ms > 2.0 * q.jankbench.mean_ms);
    assert!(b.ui_start_delay_mean_ms > q.ui_start_delay_mean_ms);
}

#[test]
fn slow_cpus_lengthen_frames() {
    // Without the top-app boost nothing keeps the pipeline off the A55s (EAS is off
    // under a fixed frequency), and there a frame takes 1024/124 times longer.
    let boosted = run("fixed:2802", 1, &["frames -e scroll:2s"]);
    let little = run("fixed:2802", 1, &["frames -e scroll:2s --cpus 0-3"]);
    let (b, l) = (frames(&boosted), frames(&little));
    assert!(l.jankbench.mean_ms > 3.0 * b.jankbench.mean_ms);
    assert!(l.jankbench.jank_pct > 10.0, "{:?}", l.jankbench);
}

#[test]
fn results_are_deterministic_per_seed_and_differ_across_seeds() {
    let json = |seed| {
        let r = run(
            "schedutil",
            seed,
            &["frames -e fling:1s,scroll:1s -a 2 -s 2"],
        );
        let mut v = serde_json::to_value(&r).unwrap();
        v["sim"]["wall_s"] = 0.into();
        serde_json::to_string(&v).unwrap()
    };
    let a = json(7);
    assert_eq!(a, json(7));
    assert_ne!(a, json(8));
}

#[test]
fn frame_count_is_duration_times_refresh_rate() {
    for (hz, episodes, active_s) in [
        (60, "scroll:3s", 3.0),
        (90, "idle:500ms,fling:2s", 2.0),
        (120, "fling:1s,idle:1s,scroll:1500ms", 2.5),
    ] {
        let r = run(
            "performance",
            3,
            &[&format!("frames -r {hz} -e {episodes}")],
        );
        let f = frames(&r);
        let want = active_s * hz as f64;
        assert!(
            (f.frames as f64 - want).abs() <= 1.0,
            "{hz} Hz {episodes}: {} frames, want {want}",
            f.frames
        );
        assert_eq!(f.frame_duration_ms.len(), f.frames);
        assert_eq!(f.refresh_hz, hz);
    }
}

#[test]
fn printout_has_the_jankbench_line_and_gfxinfo_profile_data() {
    let r = run("schedutil", 1, &["frames -e fling:1s"]);
    let f = frames(&r);
    let first = f.output.lines().next().unwrap();
    let re = regex_lite(first);
    assert!(re, "{first}");
    for line in [
        "** Graphics info for pid ",
        "Total frames rendered: 60",
        "Janky frames: ",
        "Janky frames (legacy): ",
        "50th percentile: ",
        "99th percentile: ",
        "Number Missed Vsync: ",
        "Number High input latency: ",
        "Number Slow UI thread: ",
        "Number Slow bitmap uploads: ",
        "Number Slow issue draw commands: ",
        "Number Frame deadline missed: ",
        "Number Frame deadline missed (legacy): ",
        "HISTOGRAM: 5ms=",
    ] {
        assert!(f.output.contains(line), "missing '{line}':\n{}", f.output);
    }
    let hist = f
        .output
        .lines()
        .find(|l| l.starts_with("HISTOGRAM:"))
        .unwrap();
    assert_eq!(hist.split_whitespace().count(), 1 + 57 + 97);
}

/// `Mean: <f> JankP: <f> StdDev: <f> Count Bad: <n> Count Jank: <n>` as Java prints it.
fn regex_lite(line: &str) -> bool {
    let w: Vec<&str> = line.split(' ').collect();
    let java_double = |s: &str| s == "NaN" || (s.contains('.') && s.parse::<f64>().is_ok());
    w.len() == 12
        && w[0] == "Mean:"
        && java_double(w[1])
        && w[2] == "JankP:"
        && java_double(w[3])
        && w[4] == "StdDev:"
        && java_double(w[5])
        && w[6..8] == ["Count", "Bad:"]
        && w[8].parse::<u64>().is_ok()
        && w[9..11] == ["Count", "Jank:"]
        && w[11].parse::<u64>().is_ok()
}

#[test]
fn pipeline_shape_and_options() {
    let w = build_workload_seeded(
        "frames -e scroll:1s -a 2 -s 3 --nice -5 --uclamp-min 300",
        Path::new("."),
        8,
        1,
    )
    .unwrap();
    let comms: Vec<&str> = w
        .workload
        .tasks
        .iter()
        .map(|t| t.attrs.comm.as_str())
        .collect();
    assert_eq!(
        &comms[..3],
        ["droid.benchmark", "RenderThread", "surfaceflinger"]
    );
    assert_eq!(comms.len(), 3 + 2 + 3);
    assert_eq!(w.workload.tasks[0].attrs.nice, -5);
    assert_eq!(w.workload.tasks[1].attrs.uclamp.min, Some(300));
    let frames = |t: usize| {
        w.workload.tasks[t]
            .program
            .iter()
            .filter(|op| matches!(op, Op::Run { .. }))
            .count()
    };
    assert_eq!(frames(0), 60);
    assert_eq!(frames(1), 120);
    let off = build_workload_seeded("frames --uclamp-min 0", Path::new("."), 8, 1).unwrap();
    assert_eq!(off.workload.tasks[0].attrs.uclamp.min, None);
}

#[test]
fn option_errors_name_the_option() {
    for (cmd, what) in [
        ("frames -r 0", "-r/--refresh"),
        ("frames --refresh 500", "-r/--refresh"),
        ("frames -e idle:1s", "-e/--episodes"),
        ("frames -e swipe:1s", "swipe"),
        ("frames --ui-work -1ms", "--ui-work"),
        ("frames --fling-factor 0.5", "--fling-factor"),
        ("frames --uclamp-min 2000", "--uclamp-min"),
        ("frames --cpus 9", "--cpus"),
        ("frames --nice 40", "--nice"),
        ("frames -a x", "-a/--app-threads"),
        ("frames --bogus", "--bogus"),
        ("frames extra", "extra"),
        ("frames --input-boost 9:1197", "--input-boost"),
        ("frames --input-boost 0=1197", "--input-boost"),
        ("frames --input-boost 0:0", "--input-boost"),
        ("frames --adpf 13", "--adpf"),
        ("frames --adpf", "--adpf"),
    ] {
        let e = build_workload_seeded(cmd, Path::new("."), 8, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{cmd}: {e}");
    }
}

#[test]
fn surfaceflinger_runs_sched_fifo_2_with_sf_policy_fifo() {
    use schedlab::workload::Policy;
    let sf = |cmd: &str| {
        let c = build_workload_seeded(cmd, Path::new("."), 8, 1).unwrap();
        let t = c
            .workload
            .tasks
            .into_iter()
            .find(|t| t.attrs.comm == "surfaceflinger")
            .unwrap();
        (t.attrs.policy, t.attrs.rt_priority, t.attrs.nice)
    };
    // The default keeps the fair model (the seed studies' results).
    assert_eq!(sf("frames"), (Policy::Normal, 0, -8));
    assert_eq!(sf("frames --sf-policy fair"), (Policy::Normal, 0, -8));
    // As Android's main_surfaceflinger: SCHED_FIFO at sched_priority 2.
    assert_eq!(sf("frames --sf-policy fifo"), (Policy::Fifo, 2, -8));
    let e = build_workload_seeded("frames --sf-policy rr", Path::new("."), 8, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--sf-policy") && e.contains("fifo"), "{e}");
    // It runs, and SurfaceFlinger reports its policy.
    let r = run(
        "performance",
        1,
        &["frames -e scroll:2s -s 4 --sf-policy fifo"],
    );
    let t = r.tasks.iter().find(|t| t.comm == "surfaceflinger").unwrap();
    assert_eq!((t.policy.as_str(), t.rt_priority), ("SCHED_FIFO", Some(2)));
    assert!(frames(&r).frames > 0);
}

#[test]
fn the_input_boost_raises_the_policies_minimum_for_a_flings_first_1_6_s() {
    use schedlab::workload::frames::POWER_HAL_COMM;
    // idle 1 s, then a 2.5 s fling: the power HAL task writes the minimum of every policy
    // at 1 s and writes 0 back 1.6 s later (input_boost::windows).
    let cmd = "frames -e idle:1s,fling:2.5s --input-boost 0:1197,4:1197,6:1106";
    let c = build_workload_seeded(cmd, Path::new("."), 8, 1).unwrap();
    let hal = c.workload.tasks.last().unwrap();
    assert_eq!(hal.attrs.comm, POWER_HAL_COMM);
    let writes: Vec<(usize, u32)> = hal
        .program
        .iter()
        .filter_map(|op| match op {
            Op::SetMinFreq { cpu, khz } => Some((*cpu, *khz)),
            _ => None,
        })
        .collect();
    assert_eq!(
        writes,
        [
            (0, 1_197_000),
            (4, 1_197_000),
            (6, 1_106_000),
            (0, 0),
            (4, 0),
            (6, 0)
        ]
    );
    let khz = |cmd: &str, t_ms: u64| {
        run_until(cmd, t_ms * 1_000_000)
            .sched
            .machine
            .freq_domains
            .iter()
            .map(|d| d.cur_khz)
            .collect::<Vec<_>>()
    };
    let boosted = |f: &[u32]| f[0] >= 1_197_000 && f[1] >= 1_197_000 && f[2] >= 1_106_000;
    // While the boost lasts no policy is below its minimum; without it, schedutil takes
    // some lower at those moments.
    let times = [1_050, 1_300, 1_800, 2_590];
    assert!(times.iter().all(|&t| boosted(&khz(cmd, t))));
    let plain_cmd = "frames -e idle:1s,fling:2.5s";
    let plain: Vec<_> = times.iter().map(|&t| khz(plain_cmd, t)).collect();
    assert!(plain.iter().any(|f| !boosted(f)), "{plain:?}");
    // Without the option there is no power HAL task.
    let plain = build_workload_seeded(plain_cmd, Path::new("."), 8, 1).unwrap();
    assert!(plain
        .workload
        .tasks
        .iter()
        .all(|t| t.attrs.comm != POWER_HAL_COMM));
}

#[test]
fn the_hint_session_boosts_a_flings_first_frame_and_lapses_in_idle() {
    // idle 1 s, a 1 s fling, idle 2 s, with hwui's hint session (frames --adpf): the UI
    // thread and RenderThread are tasks 0 and 1; their uclamp.min is the top-app stand-in
    // (125) until the first frame, the load reset's 480 while it renders, the PID's value
    // (never under 125) through the fling, and 125 again once the PID's vote lapses
    // 2 × 166.67 ms after the last report (an app thread keeps the run going through the
    // last idle episode).
    let cmd = "frames -a 1 -e idle:1s,fling:1s,idle:2s --adpf 14";
    let uclamp_at = |t_us: u64| {
        let s = run_until(cmd, t_us * 1_000);
        [
            s.sched.tasks[0].uclamp_req[0],
            s.sched.tasks[1].uclamp_req[0],
        ]
    };
    assert_eq!(uclamp_at(900_000), [125, 125]);
    // The touch, half a period before the first vsync, sends the load reset: the threads
    // wake for the frame already boosted.
    assert_eq!(uclamp_at(995_000), [480, 480]);
    // The first frame's vsync is at 1 s (slot 60 at 60 Hz: 999.99 ms); 2 ms later its UI
    // work runs, RenderThread's not yet reported.
    assert_eq!(uclamp_at(1_002_000), [480, 480]);
    let mid = uclamp_at(1_500_000);
    assert_eq!(mid[0], mid[1], "one session, one value for both threads");
    assert!((125..=480).contains(&mid[0]), "{mid:?}");
    assert_eq!(uclamp_at(2_400_000), [125, 125]);
    // The events that re-apply a lapsed vote are counted as their own kind.
    let r = run("schedutil", 1, &[cmd]);
    assert!(r.sim.events_by_kind["hint_timeout"] > 0);
    // Without the option there is no session and no hint op.
    let plain = build_workload_seeded("frames -e idle:1s,fling:1s", Path::new("."), 8, 1).unwrap();
    assert!(plain
        .workload
        .tasks
        .iter()
        .all(|t| !t.program.iter().any(|op| matches!(
            op,
            Op::HintFrameStart { .. } | Op::HintReport { .. } | Op::HintLoadReset { .. }
        ))));
}
