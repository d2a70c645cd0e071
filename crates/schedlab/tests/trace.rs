//! Trace output: CPU time rebuilt from the text and protobuf traces equals the result
//! document's to the nanosecond, every switch's prev is the CPU's running task, time never
//! goes backwards per CPU, same seed → same bytes, and tracing does not change the run.

mod common;
mod trace_support;

use common::*;
use schedlab::experiment::run::prepare;
use schedlab::experiment::trace_run::run_sim_traced;
use schedlab::experiment::RunResult;
use schedlab::experiment::Scenario;
use schedlab::simulation::Simulation;
use schedlab::time::NSEC_PER_SEC;
use schedlab::trace::select::{parse_events, Precision};
use schedlab::trace::{TraceConfig, TraceStats};
use schedlab::workload::{Op, Policy, TaskSpec};
use trace_support::*;

/// A trace configuration writing `name` in a fresh folder, removed with this value.
struct TmpCfg {
    cfg: TraceConfig,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for TmpCfg {
    type Target = TraceConfig;
    fn deref(&self) -> &TraceConfig {
        &self.cfg
    }
}

impl std::ops::DerefMut for TmpCfg {
    fn deref_mut(&mut self) -> &mut TraceConfig {
        &mut self.cfg
    }
}

fn tmp_cfg(name: &str) -> TmpCfg {
    let dir = tempfile::Builder::new()
        .prefix("schedlab-trace-")
        .tempdir()
        .unwrap();
    TmpCfg {
        cfg: TraceConfig::new(dir.path().join(name)).unwrap(),
        _dir: dir,
    }
}

/// Eight tasks of every kind: hogs (one niced), periodic timers, an IO waiter (D state),
/// a yielder (R), one that exits early.
fn eight_tasks() -> Vec<TaskSpec> {
    let mut v = vec![hog("hog a", 0, None), hog("hog-b", 5, None)];
    for i in 0..3 {
        v.push(task(
            &format!("periodic-{i}"),
            0,
            Policy::Normal,
            None,
            periodic_ops(None, 3 * MS, 10 * MS, i),
        ));
    }
    v.push(task(
        "io",
        0,
        Policy::Normal,
        None,
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: MS },
            Op::IoWait { ns: 2 * MS },
            Op::LoopEnd,
        ],
    ));
    v.push(task(
        "yielder",
        -2,
        Policy::Normal,
        None,
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 500 * US },
            Op::Yield,
            Op::LoopEnd,
        ],
    ));
    v.push(task(
        "short",
        0,
        Policy::Normal,
        None,
        vec![Op::Run { work_ns: 50 * MS }],
    ));
    v
}

fn traced(
    sc: &Scenario,
    tasks: Vec<TaskSpec>,
    cfg: &TraceConfig,
) -> (RunResult, TraceStats, Vec<u8>) {
    let mut sim: Simulation = prepare(sc, workload_of(tasks)).unwrap();
    let (r, st) = run_sim_traced(sc, &mut sim, cfg, Some(1)).unwrap();
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    let bytes = std::fs::read(&cfg.path).unwrap();
    std::fs::remove_file(&cfg.path).unwrap();
    (r, st, bytes)
}

fn text_cfg(name: &str, precision: Precision) -> TmpCfg {
    let mut c = tmp_cfg(name);
    c.precision = precision;
    c
}

fn assert_cpu_times(r: &RunResult, rebuilt: &std::collections::BTreeMap<u32, u64>, what: &str) {
    for t in &r.tasks {
        let got = rebuilt.get(&t.pid).copied().unwrap_or(0);
        assert_eq!(got, t.cpu_time_ns, "{what}: task {} ({})", t.comm, t.pid);
    }
}

#[test]
fn cpu_time_from_text_trace_is_exact() {
    let sc = scenario("smp:4", 2);
    let (r, st, bytes) = traced(&sc, eight_tasks(), &text_cfg("a.txt", Precision::Ns));
    let text = String::from_utf8(bytes).unwrap();
    let lines = parse_text(&text);
    assert_eq!(lines.len() as u64, st.total_events());
    let header = text.lines().nth(2).unwrap();
    assert_eq!(
        header,
        format!(
            "# entries-in-buffer/entries-written: {n}/{n}   #P:4",
            n = lines.len()
        )
    );
    let sw = text_switches(&lines);
    assert_cpu_times(&r, &rebuilt_cpu_time(&sw, r.sim.time_ns), "text trace");
    // Names have no spaces; each state the model produces appears.
    assert!(lines.iter().any(|l| l.comm == "hog_a"));
    for state in ["R", "S", "D", "Z"] {
        assert!(
            sw.iter().any(|s| s.prev_state == state),
            "no prev_state={state}"
        );
    }
    // User-mode tasks are preempted on their return to user mode: never R+.
    assert!(sw.iter().all(|s| s.prev_state != "R+"));
    for ev in [
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_process_exit",
        "cpu_idle",
        "cpu_frequency",
    ] {
        assert!(lines.iter().any(|l| l.event == ev), "no {ev}");
    }
    check_switch_chain(&sw);
    let migrations: u64 = r.tasks.iter().map(|t| t.nr_migrations).sum();
    let traced = lines.iter().filter(|l| l.event == "sched_migrate_task");
    assert_eq!(traced.count() as u64, migrations);
}

#[test]
fn microsecond_text_is_within_a_microsecond_per_run_interval() {
    let sc = scenario("smp:4", 1);
    let (r, _, bytes) = traced(&sc, eight_tasks(), &text_cfg("us.txt", Precision::Us));
    let sw = text_switches(&parse_text(&String::from_utf8(bytes).unwrap()));
    let rebuilt = rebuilt_cpu_time(&sw, r.sim.time_ns);
    for t in &r.tasks {
        let intervals = sw.iter().filter(|s| s.next_pid == t.pid).count() as u64;
        let got = rebuilt.get(&t.pid).copied().unwrap_or(0);
        assert!(
            got.abs_diff(t.cpu_time_ns) <= 1000 * intervals.max(1),
            "{}: {got} vs {}",
            t.comm,
            t.cpu_time_ns
        );
    }
}

#[test]
fn cpu_time_from_perfetto_trace_is_exact() {
    let sc = scenario("smp:4", 2);
    let mut cfg = tmp_cfg("a.pftrace");
    cfg.counters = schedlab::trace::select::parse_counters("all", "t").unwrap();
    let (r, st, bytes) = traced(&sc, eight_tasks(), &cfg);
    let (sw, counts) = proto_switches(&bytes);
    assert_eq!(sw.len() as u64, st.events[0]);
    assert_eq!(counts.values().sum::<u64>(), st.total_events());
    assert_cpu_times(&r, &rebuilt_cpu_time(&sw, r.sim.time_ns), "perfetto trace");
    check_switch_chain(&sw);
    assert!(st.counter_samples > 0);
}

#[test]
fn long_trace_switch_chain_holds_on_dvfs_machines() {
    let mut total_migrations = 0;
    for machine in ["pixel6", "smp-dvfs:4", "smt:2x2"] {
        let mut sc = scenario(machine, 20);
        sc.seed = 7;
        let cfg = text_cfg(&format!("long-{machine}.txt"), Precision::Ns);
        let mut sim = prepare(&sc, workload_of(eight_tasks())).unwrap();
        let (r, _) = run_sim_traced(&sc, &mut sim, &cfg, None).unwrap();
        let text = std::fs::read_to_string(&cfg.path).unwrap();
        let lines = parse_text(&text);
        let mut last = std::collections::BTreeMap::new();
        for l in &lines {
            let t = last.entry(l.cpu).or_insert(0);
            assert!(l.ts_ns >= *t, "{machine}: time went back on CPU {}", l.cpu);
            *t = l.ts_ns;
        }
        let sw = text_switches(&lines);
        let n = check_switch_chain(&sw);
        assert!(n > 1_000, "{machine}: too few switches ({n})");
        assert_cpu_times(&r, &rebuilt_cpu_time(&sw, r.sim.time_ns), machine);
        let migrations: u64 = r.tasks.iter().map(|t| t.nr_migrations).sum();
        let traced = lines.iter().filter(|l| l.event == "sched_migrate_task");
        assert_eq!(traced.count() as u64, migrations, "{machine}: migrations");
        total_migrations += migrations;
        eprintln!("{machine}: {} lines, {migrations} migrations", lines.len());
        // Idle entries and exits alternate per CPU.
        let mut idle = std::collections::BTreeMap::new();
        for l in lines.iter().filter(|l| l.event == "cpu_idle") {
            let exit = l.fields["state"] == "4294967295";
            let was = idle.insert(l.cpu, !exit).unwrap_or(false);
            assert_eq!(
                was, exit,
                "{machine}: cpu_idle out of step on CPU {}",
                l.cpu
            );
        }
        std::fs::remove_file(&cfg.path).unwrap();
    }
    assert!(total_migrations > 0, "the migration events were exercised");
}

#[test]
fn same_seed_same_bytes_and_tracing_changes_nothing() {
    let sc = scenario("pixel6", 1);
    let untraced = run(&sc, eight_tasks());
    for name in ["d1.pftrace", "d1.txt"] {
        let mut cfg = tmp_cfg(name);
        cfg.counters = schedlab::trace::select::parse_counters("all", "t").unwrap();
        let (r1, _, b1) = traced(&sc, eight_tasks(), &cfg);
        let (r2, _, b2) = traced(&sc, eight_tasks(), &cfg);
        assert!(b1 == b2, "{name}: two runs wrote different traces");
        for r in [&r1, &r2] {
            let mut a = serde_json::to_value(r).unwrap();
            let mut b = serde_json::to_value(&untraced).unwrap();
            a["sim"]["wall_s"] = 0.into();
            b["sim"]["wall_s"] = 0.into();
            assert_eq!(a, b, "{name}: tracing changed the run");
        }
    }
}

#[test]
fn window_and_event_selection() {
    let sc = scenario("smp-dvfs:4", 2);
    let mut cfg = text_cfg("w.txt", Precision::Ns);
    cfg.window = (500 * MS, 1500 * MS);
    cfg.events = parse_events("sched_switch,cpu_frequency", "t").unwrap();
    let (_, _, bytes) = traced(&sc, eight_tasks(), &cfg);
    let lines = parse_text(&String::from_utf8(bytes).unwrap());
    assert!(!lines.is_empty());
    assert!(lines
        .iter()
        .all(|l| l.ts_ns >= 500 * MS && l.ts_ns < 1500 * MS));
    assert!(lines
        .iter()
        .all(|l| l.event == "sched_switch" || l.event == "cpu_frequency"));
    // The window opens with every CPU's frequency.
    let first: Vec<_> = lines.iter().take(4).collect();
    assert!(first
        .iter()
        .all(|l| l.event == "cpu_frequency" && l.ts_ns == 500 * MS));
}

#[test]
fn unwritable_trace_is_an_error_and_leaves_no_file() {
    let sc = scenario("smp:2", 1);
    let cfg = TraceConfig::new("/nonexistent-dir/x.pftrace").unwrap();
    let mut sim = prepare(&sc, workload_of(vec![hog("h", 0, None)])).unwrap();
    let err = run_sim_traced(&sc, &mut sim, &cfg, None).unwrap_err();
    assert!(err
        .to_string()
        .contains("--trace /nonexistent-dir/x.pftrace"));
    assert!(TraceConfig::new("x.json").is_err());
}

#[test]
fn the_size_estimate_of_a_run_that_ends_early_is_its_size() {
    // A hackbench has no duration: it ends when its tasks exit, long before the 1 h cap
    // the estimate used to scale to.
    let sc = Scenario {
        machine: "smp:2".into(),
        workloads: vec!["hackbench -g 1 -f 2 -l 10".into()],
        ..Scenario::default()
    };
    let cfg = text_cfg("estimate-ends-early.txt", Precision::Ns);
    let est = schedlab::experiment::trace_run::estimate(&sc, &cfg).unwrap();
    let (_, stats) = schedlab::experiment::trace_run::run_traced(&sc, &cfg).unwrap();
    let _ = std::fs::remove_file(&cfg.path);
    let ratio = est.bytes / stats.bytes as f64;
    assert!(
        (0.9..1.1).contains(&ratio),
        "estimate {} B, wrote {} B",
        est.bytes,
        stats.bytes
    );
    assert!(est.span_ns < 1_000_000_000, "span {}", est.span_ns);
}

#[test]
fn a_traced_run_calls_the_progress_line_and_changes_nothing() {
    // The CLI's progress line on --trace runs: the callback is called as on untraced runs
    // (a call per thousandth of the span), and the result and trace bytes are the same.
    let sc = Scenario {
        machine: "smp:2".into(),
        workloads: vec!["spinner -n 4 --sleep 3ms --work 1ms".into()],
        duration_ns: Some(NSEC_PER_SEC / 2),
        ..Scenario::default()
    };
    let use_trace = |name: &str, progress: bool| {
        let cfg = text_cfg(name, Precision::Ns);
        let mut calls = Vec::new();
        let (r, stats) = if progress {
            schedlab::experiment::trace_run::run_traced_with_progress(
                &sc,
                &cfg,
                &mut |now, stop, events| calls.push((now, stop, events)),
            )
        } else {
            schedlab::experiment::trace_run::run_traced(&sc, &cfg)
        }
        .unwrap();
        let bytes = std::fs::read(&cfg.path).unwrap();
        std::fs::remove_file(&cfg.path).unwrap();
        let mut doc = serde_json::to_value(&r).unwrap();
        doc["sim"]["wall_s"] = 0.into();
        (doc, stats.bytes, bytes, calls)
    };
    let (plain, plain_len, plain_bytes, none) = use_trace("progress-off.txt", false);
    let (stepped, len, bytes, calls) = use_trace("progress-on.txt", true);
    assert!(none.is_empty());
    assert_eq!(plain, stepped, "the progress line changed the run");
    assert_eq!((plain_len, &plain_bytes), (len, &bytes), "or the trace");
    assert!(calls.len() >= 990 && calls.len() <= 1000, "{}", calls.len());
    assert!(calls
        .windows(2)
        .all(|w| w[0].0 < w[1].0 && w[0].2 <= w[1].2));
    assert_eq!(calls[0].1, NSEC_PER_SEC / 2);
}

#[test]
fn prio_fields_are_the_kernels_p_prio_per_class() {
    // sched_switch prints p->prio: 120 + nice (fair), 99 − sched_priority (RT), −1 (DL).
    use schedlab::sched::DlParams;
    let sc = scenario("smp:1", 1);
    let tasks = vec![
        hog("fair", 5, None),
        task(
            "fifo",
            0,
            Policy::Normal,
            None,
            periodic_ops(None, MS, 10 * MS, 0),
        )
        .rt(Policy::Fifo, 10),
        task(
            "dl",
            0,
            Policy::Normal,
            None,
            periodic_ops(None, MS, 20 * MS, 1),
        )
        .deadline(DlParams {
            runtime: 2 * MS,
            deadline: 20 * MS,
            period: 20 * MS,
        }),
    ];
    let (_, _, bytes) = traced(&sc, tasks, &text_cfg("prio.txt", Precision::Ns));
    let text = String::from_utf8(bytes).unwrap();
    for (comm, prio) in [("fair", 125), ("fifo", 89), ("dl", -1)] {
        let next = format!("next_comm={comm} next_pid=");
        let line = text
            .lines()
            .find(|l| l.contains(&next))
            .unwrap_or_else(|| panic!("{comm} never switched in"));
        assert!(line.ends_with(&format!("next_prio={prio}")), "{line}");
        let woken = format!("sched_wakeup: comm={comm} pid=");
        if comm != "fair" {
            let line = text.lines().find(|l| l.contains(&woken)).unwrap();
            assert!(line.contains(&format!(" prio={prio} ")), "{line}");
        }
    }
}
