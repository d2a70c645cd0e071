//! CPU time splits in the ratio of weights (sched_prio_to_weight) on one CPU.

mod common;
use common::*;
use schedlab::sched::fair::weights::{SCHED_PRIO_TO_WEIGHT, WEIGHT_IDLEPRIO};
use schedlab::workload::Policy;

fn weight(nice: i32) -> f64 {
    SCHED_PRIO_TO_WEIGHT[(nice + 20) as usize] as f64
}

fn assert_ratio(got: f64, want: f64, tol: f64, what: &str) {
    let err = (got / want - 1.0).abs();
    assert!(
        err <= tol,
        "{what}: ratio {got:.4} vs {want:.4} (error {:.2}%)",
        err * 100.0
    );
}

/// The lighter task runs whole ticks, so over a finite window its CPU time may miss its
/// exact share by up to one tick (plus switch costs); check that bound at every HZ.
fn assert_within_one_tick(r: &schedlab::experiment::RunResult, light: &str, share: f64, hz: u64) {
    let total: u64 = r.tasks.iter().map(|t| t.cpu_time_ns).sum();
    let ideal = total as f64 * share;
    let got = cpu_time(r, light) as f64;
    let tick = 1e9 / hz as f64;
    assert!(
        (got - ideal).abs() <= tick + 50_000.0,
        "{light} at HZ {hz}: {got} ns vs ideal {ideal:.0} ns (more than one tick off)"
    );
}

fn pair(nice: i32, hz: u32) -> schedlab::experiment::RunResult {
    let mut sc = scenario("smp:1", 10);
    sc.hz = hz;
    run(&sc, vec![hog("a", 0, None), hog("b", nice, None)])
}

#[test]
fn nice_pairs_split_by_weight() {
    // Within 1% at the default HZ 250 for nice 5 and 10; for nice 19 the light task's
    // whole-tick runs make 4 ms ≈ 2.7% of its 146 ms share, so 1% needs HZ 1000.
    for (nice, hz) in [(5, 250), (10, 250), (19, 1000)] {
        let r = pair(nice, hz);
        let (a, b) = (cpu_time(&r, "a") as f64, cpu_time(&r, "b") as f64);
        assert_ratio(
            a / b,
            weight(0) / weight(nice),
            0.01,
            &format!("nice 0 vs {nice}"),
        );
        // The CPU is never idle with two hogs, apart from the first idle exit.
        assert!(r.cpus[0].idle_ns < 100 * US, "idle {}", r.cpus[0].idle_ns);
    }
    for nice in [5, 10, 19] {
        for hz in [250, 1000] {
            let share = weight(nice) / (weight(0) + weight(nice));
            assert_within_one_tick(&pair(nice, hz), "b", share, hz as u64);
        }
    }
}

#[test]
fn sched_idle_gets_3_in_1027() {
    // 3/1027 of 10 s is 29 ms: at HZ 1000 one tick is 3.4% of it.
    for hz in [250u32, 1000] {
        let mut sc = scenario("smp:1", 10);
        sc.hz = hz;
        let r = run(
            &sc,
            vec![
                hog("a", 0, None),
                task("idle", 0, Policy::Idle, None, hog_program()),
            ],
        );
        let (a, b) = (cpu_time(&r, "a") as f64, cpu_time(&r, "idle") as f64);
        if hz == 1000 {
            assert_ratio(
                a / b,
                1024.0 / WEIGHT_IDLEPRIO as f64,
                0.05,
                "nice 0 vs SCHED_IDLE",
            );
        }
        assert_within_one_tick(&r, "idle", 3.0 / 1027.0, hz as u64);
    }
}
#[test]
fn three_tasks_split_by_weight() {
    let r = run(
        &scenario("smp:1", 10),
        vec![hog("a", 0, None), hog("b", 5, None), hog("c", 10, None)],
    );
    let total: f64 = [0, 5, 10].iter().map(|&n| weight(n)).sum();
    let cpu: f64 = ["a", "b", "c"].iter().map(|c| cpu_time(&r, c) as f64).sum();
    for (comm, nice) in [("a", 0), ("b", 5), ("c", 10)] {
        let share = cpu_time(&r, comm) as f64 / cpu;
        assert_ratio(share, weight(nice) / total, 0.01, comm);
    }
}
