//! SCHED_IDLE and SCHED_BATCH wake-up rules (wakeup_preempt_fair) and a nice
//! change at run time (reweight_entity).

mod common;
use common::*;
use schedlab::metrics::latency::LatencySummary;
use schedlab::workload::{Op, Policy, SchedChange};

fn sleeper_program() -> Vec<Op> {
    vec![
        Op::LoopBegin { count: None },
        Op::Run { work_ns: 100 * US },
        Op::Sleep {
            ns: 3 * MS + 300 * US,
        },
        Op::LoopEnd,
    ]
}

/// A hog of `hog_policy` and a sleeper of `sleeper_policy` pinned to CPU 0 of smp:8;
/// NO_PLACE_LAG so that only the policy rules decide.
fn latency(hog_policy: Policy, sleeper_policy: Policy) -> LatencySummary {
    let mut sc = scenario("smp:8", 2);
    sc.features = "NO_PLACE_LAG".into();
    let r = run(
        &sc,
        vec![
            task("hog", 0, hog_policy, Some(vec![0]), hog_program()),
            task(
                "sleeper",
                0,
                sleeper_policy,
                Some(vec![0]),
                sleeper_program(),
            ),
        ],
    );
    r.tasks[1].wakeup_latency_ns
}

#[test]
fn a_normal_wakee_always_preempts_a_sched_idle_runner() {
    let l = latency(Policy::Idle, Policy::Normal);
    assert!(l.count > 500);
    assert_eq!(l.p99, 2 * US, "{l:?}");
}

#[test]
fn an_idle_wakee_never_preempts_a_normal_runner() {
    let l = latency(Policy::Normal, Policy::Idle);
    // It waits for the runner's slice to end at a tick: never at once.
    assert!(l.p50 > 100 * US, "{l:?}");
}

#[test]
fn a_batch_wakee_does_not_preempt() {
    let normal = latency(Policy::Normal, Policy::Normal);
    let batch = latency(Policy::Normal, Policy::Batch);
    assert!(
        batch.p50 > normal.p50,
        "batch {batch:?} vs normal {normal:?}"
    );
    assert!(batch.p50 > 100 * US, "{batch:?}");
}

#[test]
fn renicing_mid_run_changes_the_split() {
    // Two hogs; after 5 s of 10, "b" drops to nice 19 (rt-app phase priority change).
    let mut b = hog("b", 0, None);
    b.program = vec![
        Op::Run {
            work_ns: 2_500 * MS,
        },
        Op::SetSched(Box::new(SchedChange {
            nice: Some(19),
            ..SchedChange::default()
        })),
        Op::LoopBegin { count: None },
        Op::Run {
            work_ns: 1_000 * MS,
        },
        Op::LoopEnd,
    ];
    let r = run(&scenario("smp:1", 10), vec![hog("a", 0, None), b]);
    let (a, b) = (
        cpu_time(&r, "a") as f64 / 1e9,
        cpu_time(&r, "b") as f64 / 1e9,
    );
    // 5 s at 1:1, then 5 s at 1024:15.
    let want_b = 2.5 + 5.0 * 15.0 / 1039.0;
    assert!(
        (b - want_b).abs() < 0.01,
        "b got {b:.4} s, want {want_b:.4} s (a {a:.4})"
    );
}
