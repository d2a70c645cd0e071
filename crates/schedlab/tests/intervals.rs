//! `interval`: perf stat's counters per interval of simulated time (docs/results.md,
//! intervals).

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::workload::build_workload_on;
use std::path::Path;

fn hackbench(interval_ns: Option<u64>) -> RunResult {
    let mut sc = scenario("smp:4", 60);
    sc.interval_ns = interval_ns;
    let wl = build_workload_on(
        "hackbench -g 2 -f 5 --threads --pipe -l 200 -s 100",
        Path::new("."),
        4,
    )
    .unwrap();
    execute(&sc, prepare(&sc, wl).unwrap(), Some(1))
}

fn json_without(r: &RunResult, drop_intervals: bool) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v["sim"].as_object_mut().unwrap().remove("wall_s");
    if drop_intervals {
        v.as_object_mut().unwrap().remove("intervals");
        v.as_object_mut().unwrap().remove("middle_half");
    }
    v
}

/// Sampling only reads the model: the run with intervals is the run without them, and its
/// rows add up to the run's perf counters and the workload's messages.
#[test]
fn intervals_leave_the_run_alone_and_add_up_to_its_counters() {
    let plain = hackbench(None);
    let sampled = hackbench(Some(200 * US));
    assert!(plain.intervals.is_none() && plain.middle_half.is_none());
    assert!(json_without(&plain, false).get("intervals").is_none());
    assert_eq!(json_without(&plain, false), json_without(&sampled, true));

    let rows = sampled.intervals.as_ref().unwrap();
    let sum = |f: fn(&schedlab::experiment::intervals::IntervalRow) -> u64| -> u64 {
        rows.iter().map(f).sum()
    };
    assert_eq!(sum(|r| r.context_switches), sampled.perf.context_switches);
    assert_eq!(sum(|r| r.cpu_migrations), sampled.perf.cpu_migrations);
    assert_eq!(sum(|r| r.task_clock_ns), sampled.perf.task_clock_ns);
    // 2 groups x 5 receivers x 5 senders x 200 loops, each message counted once.
    assert_eq!(sum(|r| r.workload_counters), 2 * 5 * 5 * 200);
    // Every row but the last ends on the interval's grid; the last ends with the run.
    let (last, full) = rows.split_last().unwrap();
    for (i, r) in full.iter().enumerate() {
        assert_eq!(r.end_ns, (i as u64 + 1) * 200 * US);
    }
    assert_eq!(last.end_ns, sampled.sim.time_ns);
    assert!(rows.len() > 3, "the run spans several intervals");
}

/// A hog pinned alone to each CPU runs through every interval: perf's task-clock counts
/// the tick's handler to the interrupted task (no IRQ_TIME_ACCOUNTING), so each interval
/// after the first (which holds the switch-in) is exactly two CPUs' worth, and nothing
/// switches or migrates.
#[test]
fn pinned_hogs_fill_every_interval() {
    let mut sc = scenario("smp:2", 1);
    sc.interval_ns = Some(100 * MS);
    let r = run(
        &sc,
        vec![hog("a", 0, Some(vec![0])), hog("b", 0, Some(vec![1]))],
    );
    let rows = r.intervals.as_ref().unwrap();
    assert_eq!(rows.len(), 10);
    for row in &rows[1..] {
        assert_eq!(row.task_clock_ns, 200 * MS, "{row:?}");
        assert_eq!(row.cpus_utilized, 2.0);
        assert_eq!((row.context_switches, row.cpu_migrations), (0, 0));
    }
    assert!(rows[0].task_clock_ns <= 200 * MS);
    assert_eq!(rows[9].end_ns, 1000 * MS);
}

/// hackbench's messages are its counters: the middle half holds about half of them and
/// its counts are those of its intervals; hogs count nothing, so they have none.
#[test]
fn the_middle_half_is_made_of_whole_intervals_of_hackbench_messages() {
    let r = hackbench(Some(200 * US));
    let m = r.middle_half.as_ref().unwrap();
    let rows = r.intervals.as_ref().unwrap();
    let window: Vec<_> = rows
        .iter()
        .filter(|row| row.end_ns > m.from_ns && row.end_ns <= m.to_ns)
        .collect();
    assert!(!window.is_empty());
    let counted: u64 = window.iter().map(|row| row.workload_counters).sum();
    assert_eq!(m.workload_counters, counted);
    let switches: u64 = window.iter().map(|row| row.context_switches).sum();
    assert_eq!(m.context_switches, switches);
    // 10,000 messages: the window starts past the first quarter and ends at or past three.
    let before: u64 = rows
        .iter()
        .filter(|row| row.end_ns <= m.from_ns)
        .map(|row| row.workload_counters)
        .sum();
    assert!(4 * before >= 10_000, "{before}");
    assert!(4 * (before + counted) >= 3 * 10_000);
    assert_eq!(
        m.ns_per_counter,
        (m.to_ns - m.from_ns) as f64 / counted as f64
    );

    let mut sc = scenario("smp:2", 1);
    sc.interval_ns = Some(100 * MS);
    let hogs = run(&sc, vec![hog("a", 0, Some(vec![0]))]);
    assert!(hogs.intervals.is_some() && hogs.middle_half.is_none());
}
