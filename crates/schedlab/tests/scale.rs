//! A runqueue with 10,000 tasks: every task gets picked in turn and the books balance.

mod common;
use common::*;

#[test]
fn ten_thousand_hogs_on_one_cpu() {
    let mut sc = scenario("smp:1", 0);
    sc.duration_ns = Some(45_000 * MS);
    sc.hz = 1000;
    let tasks = (0..10_000)
        .map(|i| hog(&format!("h{i}"), 0, None))
        .collect();
    let mut s = sim(&sc, tasks);
    s.set_invariant_every(997);
    s.run();
    assert_eq!(
        s.sched.invariant_violations, 0,
        "{:?}",
        s.sched.invariant_messages
    );
    // 45 s of 1 ms ticks: 45,000 runs over 10,000 equal tasks: everyone has run, and
    // nobody has run more than one slice-rounded turn more than anybody else.
    let times: Vec<u64> = s
        .sched
        .entities
        .iter()
        .map(|e| e.sum_exec_runtime)
        .collect();
    let (min, max) = (times.iter().min().unwrap(), times.iter().max().unwrap());
    assert!(*min > 0, "some task never ran");
    assert!(max - min <= 3 * MS, "spread {min}..{max}");
}
