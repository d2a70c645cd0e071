//! The root domain's overutilized flag (cpu_overutilized, set_rd_overutilized) and the
//! pre-v6.10 rule of seed 001.

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::workload::{Op, Policy, TaskSpec, Workload};

fn run_with(machine: &str, features: &str, tasks: Vec<TaskSpec>) -> RunResult {
    let mut sc = scenario(machine, 1);
    sc.features = features.into();
    let wl = Workload {
        tasks,
        ..Workload::default()
    };
    let r = execute(&sc, prepare(&sc, wl).unwrap(), Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

/// Runs 2 ms, sleeps 2 ms, forever: wake-ups and ticks both check the flag.
fn busy_sleeper(comm: &str, cpu: usize) -> TaskSpec {
    task(
        comm,
        0,
        Policy::Normal,
        Some(vec![cpu]),
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 2 * MS },
            Op::Sleep { ns: 2 * MS },
            Op::LoopEnd,
        ],
    )
}

#[test]
fn eas_machine_sets_overutilized_when_a_little_cpu_is_full() {
    // A hog on an A55 (capacity 124) exceeds 80% of it: the flag goes up.
    let r = run_with("pixel6", "", vec![hog("h", 0, Some(vec![0]))]);
    assert!(r.root_domain.eas);
    assert!(r.root_domain.overutilized);
    // Set once by the tick; root-level balance passes then rewrite the same value
    // (update_sd_lb_stats writes it unconditionally), and no pass
    // clears it while the little CPU stays full.
    assert!(
        r.root_domain.overutilized_writes >= 2,
        "tick set + balance rewrites: {:?}",
        r.root_domain
    );
    assert!(
        r.root_domain.overutilized_reads > 200,
        "every tick reads it"
    );
}

#[test]
fn eas_machine_with_light_load_stays_below_the_line() {
    // 2 ms on / 2 ms off on an X1 at schedutil: ~50% of 1024, fits.
    let r = run_with("pixel6", "", vec![busy_sleeper("s", 6)]);
    assert!(r.root_domain.eas);
    assert!(!r.root_domain.overutilized);
    assert_eq!(r.root_domain.overutilized_writes, 0);
    assert!(r.root_domain.overutilized_reads > 100);
}

#[test]
fn without_eas_v6_10_never_touches_the_flag() {
    // smp:4 has one capacity and no energy model: no EAS, so no reads or writes at all.
    let tasks = (0..4).map(|c| busy_sleeper(&format!("s{c}"), c)).collect();
    let r = run_with("smp:4", "", tasks);
    assert!(!r.root_domain.eas);
    assert_eq!(r.root_domain.overutilized_reads, 0);
    assert_eq!(r.root_domain.overutilized_writes, 0);
}

#[test]
fn pre_v6_10_rule_reads_and_writes_it_without_eas() {
    // Seed 001's "before": every wake-up and tick reads rd->overutilized, and a CPU above
    // 80% sets it, so other CPUs' next reads miss the cache line.
    let mut tasks: Vec<TaskSpec> = (0..3).map(|c| busy_sleeper(&format!("s{c}"), c)).collect();
    tasks.push(hog("h", 0, Some(vec![3])));
    let r = run_with("smp:4", "OVERUTIL_WITHOUT_EAS", tasks);
    assert!(!r.root_domain.eas);
    assert!(r.root_domain.overutilized);
    // Set once from the hog's tick, then rewritten by the balancer's root-level passes.
    assert!(
        r.root_domain.overutilized_writes >= 2,
        "{:?}",
        r.root_domain
    );
    // 3 sleepers × (250 wake-ups + ~125 ticks) + 250 hog ticks, roughly.
    assert!(
        r.root_domain.overutilized_reads > 900,
        "{:?}",
        r.root_domain
    );
    // After a remote write, each other CPU misses once: at least the 3 after the first
    // set, and at most 3 per write.
    let (w, m) = (
        r.root_domain.overutilized_writes,
        r.root_domain.overutilized_line_misses,
    );
    assert!((3..=3 * w).contains(&m), "{:?}", r.root_domain);
}

fn profile_ns(r: &RunResult, f: &str) -> u64 {
    r.sched_profile.iter().find(|e| e.function == f).unwrap().ns
}

#[test]
fn line_misses_cost_scheduler_time_in_the_reading_function() {
    // Seed 001's mechanism: under the pre-v6.10 rule the shared line moves between CPUs,
    // and each fetch stalls the function that read it; v6.10 leaves enqueue and the tick
    // nothing to fetch.
    let tasks = || {
        let mut t: Vec<TaskSpec> = (0..3).map(|c| busy_sleeper(&format!("s{c}"), c)).collect();
        t.push(hog("h", 0, Some(vec![3])));
        t
    };
    let before = run_with("smp:4", "OVERUTIL_WITHOUT_EAS", tasks());
    let after = run_with("smp:4", "", tasks());
    let rd = &before.root_domain;
    assert!(
        rd.line_misses > 0 && rd.line_transfer_ns >= rd.line_misses * 40,
        "{rd:?}"
    );
    assert!(profile_ns(&before, "enqueue_task_fair") > 0);
    assert!(profile_ns(&before, "task_tick_fair") > 0);
    assert_eq!(profile_ns(&after, "task_tick_fair"), 0);
    assert_eq!(after.root_domain.overutilized_reads, 0);
    // Wake-up costs are booked as they were: 1 µs per wake-up to try_to_wake_up.
    assert_eq!(profile_ns(&after, "try_to_wake_up") % 1_000, 0);
    assert!(profile_ns(&after, "try_to_wake_up") >= 3 * 240 * 1_000);
    // The LLC's shared line (nr_idle_scan, nr_busy_cpus) is read by wake-up scans and
    // written by NOHZ accounting on every kernel version: it moves in both runs.
    let sh = &after.sd_shared;
    assert!(
        sh.accesses > 100 && sh.misses > 0 && sh.transfer_ns >= sh.misses * 40,
        "{sh:?}"
    );
    // The profile is ordered, largest first.
    let ns: Vec<u64> = before.sched_profile.iter().map(|e| e.ns).collect();
    assert!(ns.windows(2).all(|w| w[0] >= w[1]), "{ns:?}");
}
