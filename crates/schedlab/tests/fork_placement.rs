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
