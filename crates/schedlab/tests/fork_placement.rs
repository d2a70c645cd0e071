//! Tasks started together are forked one after another from a parent's CPU
//! (wake_up_new_task → select_task_rq(WF_FORK)): each is on its runqueue at once, so the
//! next fork sees it and the slow path spreads them (issue 15 point 5).

mod common;
use common::*;

#[test]
fn hogs_started_together_get_a_cpu_each() {
    let sc = scenario("smp:4", 1);
    let tasks = (0..4).map(|i| hog(&format!("hog-{i}"), 0, None)).collect();
    let mut s = sim(&sc, tasks);
    s.run_until(0);
    let nr: Vec<u32> = s.sched.rqs.iter().map(|rq| rq.nr_running).collect();
    assert_eq!(nr, [1, 1, 1, 1], "one new task on each CPU");
    s.run();
    assert!(s.sched.tasks.iter().all(|t| t.nr_migrations == 0));
}

#[test]
fn an_amd_zen_server_forks_onto_both_sockets() {
    // The EPYC 9654's remote socket is within AMD Zen's node_reclaim_distance (32), so
    // the NUMA level balances forks: 256 hogs from one parent fill both sockets evenly,
    // where at RECLAIM_DISTANCE (30) they would all start on the parent's socket.
    let sc = scenario("epyc-9654-2s", 1);
    let tasks = (0..256)
        .map(|i| hog(&format!("hog-{i}"), 0, None))
        .collect();
    let mut s = sim(&sc, tasks);
    s.run_until(0);
    let per_package = |pkg: usize| -> u32 {
        s.sched
            .rqs
            .iter()
            .enumerate()
            .filter(|(cpu, _)| s.sched.machine.cpus[*cpu].package == pkg)
            .map(|(_, rq)| rq.nr_running)
            .sum()
    };
    assert_eq!((per_package(0), per_package(1)), (128, 128));
}
