//! Timer slack (hrtimer_set_expires_range_ns with current->timer_slack_ns): a sleep ends
//! at its hard expiry, soft + 50 µs, unless the CPU's tick falls in between and expires it
//! early; an idle CPU's tick is stopped.

mod common;

use common::*;
use schedlab::experiment::run::prepare_on;
use schedlab::machine::build::Shape;
use schedlab::machine::Costs;
use schedlab::workload::program::Since;
use schedlab::workload::{Op, Policy, Workload};

/// How long each of 20 one-millisecond sleeps of a lone task on a tickless idle CPU
/// lasted (stamp before the sleep to the first instruction after it), with no switch or
/// wake-up costs.
fn lone_sleeps(sc: &schedlab::experiment::Scenario) -> Vec<u64> {
    let mut m = Shape::flat("1", 1, 1).build();
    // Only the sleep itself in the measured interval.
    m.costs = Costs {
        context_switch_ns: 0,
        context_switch_cold_ns: 0,
        idle_exit_ns: 0,
        sched_wakeup_ns: 0,
        ..Costs::default()
    };
    let sleeper = task(
        "s",
        0,
        Policy::Normal,
        None,
        vec![
            Op::LoopBegin { count: Some(20) },
            Op::Run { work_ns: 100 * US },
            Op::Stamp { slot: 0 },
            Op::Sleep { ns: MS },
            Op::Record {
                log: 0,
                since: Since::Stamp(0),
            },
            Op::LoopEnd,
        ],
    );
    let wl = Workload {
        tasks: vec![sleeper],
        logs: vec!["sleep".into()],
        ..Workload::default()
    };
    let mut sim = prepare_on(sc, m, wl).unwrap();
    sim.run();
    sim.probes().logs[0].iter().map(|s| s.value).collect()
}

#[test]
fn a_sleep_on_a_tickless_idle_cpu_ends_at_its_hard_expiry() {
    let mut sc = scenario("smp:1", 1);
    sc.timer_slack_ns = 50 * US;
    assert_eq!(lone_sleeps(&sc), vec![MS + 50 * US; 20]);
}

#[test]
fn timer_jitter_delays_each_wake_up_by_a_seeded_draw_below_it() {
    let mut sc = scenario("smp:1", 1);
    sc.timer_slack_ns = 50 * US;
    sc.noise.timer_jitter_ns = 20 * US;
    let a = lone_sleeps(&sc);
    assert!(
        a.iter().all(|&d| (MS + 50 * US..MS + 70 * US).contains(&d)),
        "{a:?}"
    );
    let mut distinct = a.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(distinct.len() > 10, "draws vary: {a:?}");
    assert_eq!(lone_sleeps(&sc), a, "the same seed draws the same");
    sc.seed += 1;
    assert_ne!(lone_sleeps(&sc), a, "another seed draws others");
}

#[test]
fn the_tick_of_a_busy_cpu_ends_a_sleep_early() {
    // HZ 250 on one grid: ticks at 4, 8, 12 ms. CPU 0 runs two hogs (one may sleep, the
    // other keeps the tick running), CPU 1 is idle (tickless).
    let mut sc = scenario("smp:2", 1);
    sc.timer_slack_ns = 50 * US;
    let mut s = sim(
        &sc,
        vec![hog("h", 0, Some(vec![0])), hog("g", 0, Some(vec![0]))],
    );
    s.advance_clock(5 * MS);
    let k = &mut s.sched;
    // A tick inside [soft, soft + slack] expires the timer.
    assert_eq!(k.hrtimer_expiry(0, 7_980_000), 8_000_000);
    assert_eq!(k.hrtimer_expiry(0, 8_000_000), 8_000_000);
    // None inside: the hard expiry.
    assert_eq!(k.hrtimer_expiry(0, 7_900_000), 7_950_000);
    assert_eq!(k.hrtimer_expiry(1, 7_980_000), 8_030_000);
    // No slack: on time.
    let mut sc0 = scenario("smp:2", 1);
    sc0.timer_slack_ns = 0;
    let mut s0 = sim(
        &sc0,
        vec![hog("h", 0, Some(vec![0])), hog("g", 0, Some(vec![0]))],
    );
    assert_eq!(s0.sched.hrtimer_expiry(0, 7_980_000), 7_980_000);
}
