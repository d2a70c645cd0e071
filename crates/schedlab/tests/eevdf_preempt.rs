//! Slice protection (set_protect_slice) and wake-up preemption (wakeup_preempt_fair):
//! RUN_TO_PARITY seen in the run lengths of two hogs, PREEMPT_SHORT in a short-slice
//! sleeper's wake-up latency.

mod common;
use common::*;
use schedlab::experiment::Scenario;
use schedlab::metrics::latency::LatencySummary;
use schedlab::workload::{Op, Policy};

/// Context-switch cost: the latency of a wake-up that preempts at once.
const SWITCH: u64 = 2 * US;

/// The bound on one wake-up's latency when it waits for a tick (HZ 250): the first
/// switch to a task that never ran on the CPU is a cold one.
fn one_tick() -> u64 {
    4 * MS + schedlab::machine::Costs::default().context_switch_cold_ns
}

/// Two pinned nice-0 hogs on CPU 0 of smp:8 (base slice 2.8 ms) at HZ 1000: the run
/// lengths between switches; the two start-up runs (half-slice first requests) dropped.
fn hog_runs(features: &str) -> Vec<u64> {
    let mut sc = scenario("smp:8", 1);
    sc.hz = 1000;
    sc.features = features.into();
    let mut s = sim(
        &sc,
        vec![hog("a", 0, Some(vec![0])), hog("b", 0, Some(vec![0]))],
    );
    let log = run_logging_switches(&mut s);
    log.windows(2).skip(2).map(|w| w[1].at - w[0].at).collect()
}

#[test]
fn run_to_parity_runs_the_whole_request() {
    // Protected up to its deadline, a task runs its 2.8 ms request: three 1 ms ticks.
    let runs = hog_runs("");
    assert!(
        runs.len() > 300 && runs.iter().all(|&d| d == 3 * MS),
        "{:?}",
        &runs[..8]
    );
    // Without it protection ends after 0.7 ms; at the next tick the runner is ahead of
    // V, so the other hog (eligible, earlier deadline) takes over.
    let runs = hog_runs("NO_RUN_TO_PARITY");
    assert!(
        runs.len() > 900 && runs.iter().all(|&d| d == MS),
        "{:?}",
        &runs[..8]
    );
}

/// A nice-0 hog and a sleeper (run 100 µs, sleep 1 ms, 100 µs custom slice) pinned to
/// CPU 0 of smp:8. With NO_PLACE_LAG the sleeper lands exactly at V, so the hog stays
/// eligible and only slice protection decides.
fn short_sleeper_latency(features: &str) -> LatencySummary {
    sleeper_latency(features, |_| {})
}

/// The same, with the scenario adjusted by `tune` (kernel, HZ).
fn sleeper_latency(features: &str, tune: impl Fn(&mut Scenario)) -> LatencySummary {
    let mut sc = scenario("smp:8", 2);
    sc.features = format!("NO_PLACE_LAG,{features}");
    tune(&mut sc);
    let mut sleeper = task(
        "sleeper",
        0,
        Policy::Normal,
        Some(vec![0]),
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 100 * US },
            Op::Sleep { ns: MS },
            Op::LoopEnd,
        ],
    );
    sleeper.attrs.slice_ns = Some(100 * US);
    let r = run(&sc, vec![hog("hog", 0, Some(vec![0])), sleeper]);
    r.tasks[1].wakeup_latency_ns
}

#[test]
fn preempt_short_lets_a_short_slice_through() {
    let short = short_sleeper_latency("");
    assert!(short.count > 1000, "{short:?}");
    // A 100 µs request beats the protected hog at every wake-up.
    assert_eq!(short.p99, SWITCH, "{short:?}");
    // Without PREEMPT_SHORT the wake-up only shortens the hog's protection and the
    // sleeper waits for the next tick.
    let no_short = short_sleeper_latency("NO_PREEMPT_SHORT");
    assert!(no_short.p50 > 100 * US, "{no_short:?}");
    assert!(no_short.max <= one_tick(), "at most one tick: {no_short:?}");
}

#[test]
fn no_wakeup_preemption_waits_for_the_tick() {
    let off = short_sleeper_latency("NO_WAKEUP_PREEMPTION");
    assert!(off.p50 > 100 * US && off.max <= one_tick(), "{off:?}");
}

/// The short sleeper beside the hog at HZ 1000 under `kernel`, PREEMPT_SHORT off: a
/// wake-up never preempts the protected hog, so its latency shows how long the hog's
/// protection lasts past the wake-up.
fn unshort_sleeper_latency(kernel: &str) -> LatencySummary {
    sleeper_latency("NO_PREEMPT_SHORT", |sc| {
        sc.hz = 1000;
        sc.kernel = Some(kernel_version(kernel));
    })
}

#[test]
fn a_wakeup_shortens_protection_only_for_a_shorter_slice_until_v6_19() {
    // 6.17/6.18 shorten curr's protection on a non-preempting wake-up only when the
    // wakee's slice is shorter *and* PREEMPT_SHORT is on (do_preempt_short): here the hog
    // stays protected to its deadline and the sleeper waits past the next ticks.
    let v618 = unshort_sleeper_latency("6.18");
    assert!(v618.count > 500 && v618.p50 > MS, "{v618:?}");
    // From v6.19 (523afd46059d) every non-preempting wake-up shortens it to the 100 µs
    // min slice, which the hog has already run: the sleeper gets the CPU at once.
    let current = unshort_sleeper_latency("current");
    assert!(current.count > 1500 && current.p50 == SWITCH, "{current:?}");
}
