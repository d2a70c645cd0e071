//! Load balancing (spec placement §3, §5): spreading, SMT cores, misfit migration,
//! affinity, PRIO_LB (seed 002).

mod common;

use common::*;
use schedlab::engine::sim::Simulation;
use schedlab::workload::{Op, Policy, SchedChange, TaskSpec};

/// A hog created on `cpu` only, which then opens its affinity to every CPU: the
/// balancer alone decides where it goes.
fn hog_from(comm: &str, cpu: usize, nr_cpus: usize) -> TaskSpec {
    let mut program = vec![Op::SetSched(SchedChange {
        cpus: Some((0..nr_cpus).collect()),
        ..Default::default()
    })];
    program.extend(hog_program());
    task(comm, 0, Policy::Normal, Some(vec![cpu]), program)
}

/// CPU of every task at the current simulated time.
fn cpus_of(s: &Simulation) -> Vec<usize> {
    s.sched.tasks.iter().map(|t| t.cpu).collect()
}

fn distinct(v: &[usize]) -> usize {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len()
}

fn assert_clean(s: &Simulation) {
    assert_eq!(
        s.sched.invariant_violations, 0,
        "invariant violations: {:#?}",
        s.sched.invariant_messages
    );
}

#[test]
fn eight_hogs_on_cpu0_spread_one_per_cpu_on_smp8() {
    let sc = scenario("smp:8", 1);
    let tasks = (0..8).map(|i| hog_from(&format!("hog{i}"), 0, 8)).collect();
    let mut s = sim(&sc, tasks);
    s.advance_clock(100 * MS);
    let cpus = cpus_of(&s);
    assert_eq!(
        distinct(&cpus),
        8,
        "8 hogs started on CPU 0 of smp:8 must sit one per CPU after 100 ms simulated; CPUs: {cpus:?}"
    );
    assert_clean(&s);
}

#[test]
fn debug_spread_timeline() {
    let sc = scenario("smp:8", 1);
    let tasks = (0..8).map(|i| hog_from(&format!("hog{i}"), 0, 8)).collect();
    let mut s = sim(&sc, tasks);
    for ms in [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100] {
        s.advance_clock(ms * MS);
        eprintln!("{ms} ms: {:?} {:?}", cpus_of(&s), s.sched.lb.counters);
    }
}
