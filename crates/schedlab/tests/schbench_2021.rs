//! The 2021 schbench (`schbench-2021`, docs/workloads.md): -R mode's latency is queueing
//! and scheduling delay, not work; a worker more than 8 requests behind is skipped; the
//! printout is the old one.

mod common;

use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::{RunResult, Scenario};
use schedlab::workload::build_workload_on;
use schedlab::workload::report::WorkloadSection;
use schedlab::workload::schbench_2021::Schbench2021Result;
use std::path::Path;

fn run(cmd: &str) -> RunResult {
    // The message thread's usleep ends on time (no timer slack): whole batches a second.
    let sc = Scenario {
        machine: "smp:4".into(),
        timer_slack_ns: 0,
        ..Default::default()
    };
    let wl = build_workload_on(cmd, Path::new("."), 4).unwrap();
    let r = execute(&sc, prepare(&sc, wl).unwrap(), None);
    assert_eq!(r.sim.invariant_violations, 0);
    r
}

fn section(r: &RunResult) -> &Schbench2021Result {
    match &r.workloads[0] {
        WorkloadSection::Schbench2021(s) => s,
        other => panic!("not schbench-2021: {other:?}"),
    }
}

#[test]
fn a_free_cpu_per_worker_leaves_only_wakeup_delay() {
    // -t 2: one worker a batch, 20 batches a second alternating between the two workers;
    // each request spins 30 ms of a 100 ms turn, on CPUs of its own.
    let r = run("schbench-2021 -m 1 -t 2 -r 10 -R 20");
    let s = section(&r);
    // 200 requests handed out; the last may still spin when the run ends.
    assert!((199..=200).contains(&s.requests), "{}", s.requests);
    // What is left after subtracting the spin is the wake-up (µs), never the 30 ms.
    assert!(s.latency_us.max < 1_000, "{:?}", s.latency_us);
    // -r 10 ends before the first 10 s interval print: one table, the final one.
    assert!(
        s.output
            .starts_with("Latency percentiles (usec) runtime 10 (s) (199 total samples)"),
        "{}",
        s.output
    );
    assert!(s.output.contains("\t* 99.0th: "), "{}", s.output);
    assert!(s.output.contains("\n\t  99.5th: "), "{}", s.output);
    assert!(s.output.ends_with("%\n") && s.output.contains("\nrps: 19.90 p95 (usec) "));
}

#[test]
fn an_overloaded_worker_queues_and_drops() {
    // Each worker gets a request every 100 ms but needs 150 ms for it: it completes one
    // every 150 ms (6.67/s each) and takes at most 9 at a time (the message thread skips
    // it beyond that). A request waits for the rest of the batch in progress and for
    // those ahead of it in its own: more than a second, at most 9 + 8 spins (2.55 s)
    // less its own.
    let r = run("schbench-2021 -m 1 -t 2 -r 20 -R 20 -c 150000");
    let s = section(&r);
    // Worker 0's first request comes at 50 ms, worker 1's at 100 ms.
    let expected = (20.0 - 0.05) / 0.15 + (20.0 - 0.1) / 0.15;
    assert!(
        (s.requests as f64 - expected).abs() <= 2.0,
        "{} requests, expected ≈ {expected:.0}",
        s.requests
    );
    assert!(s.latency_us.rows[0].value > 1_000_000, "{:?}", s.latency_us);
    assert!(s.latency_us.max < 2_400_000, "{:?}", s.latency_us);
}
