//! PELT and util_est driven by the scheduler (docs/model.md, PELT and util_est): the signals a
//! simulated task carries match what the kernel's arithmetic gives for its history.

mod common;

use common::*;
use schedlab::sched::fair::util_est::{util_est_next, UTIL_AVG_UNCHANGED};
use schedlab::sched::pelt::{decay_load, update_signal, SchedAvg};
use schedlab::sched::version::KernelVersion;
use schedlab::workload::program::TimerSpec;
use schedlab::workload::{Op, Policy, Workload};

fn one_task_sim(program: Vec<Op>, secs: u64) -> schedlab::simulation::Simulation {
    one_task_sim_on(program, secs, None)
}

fn one_task_sim_on(
    program: Vec<Op>,
    secs: u64,
    kernel: Option<KernelVersion>,
) -> schedlab::simulation::Simulation {
    let mut sc = scenario("smp:1", secs);
    sc.kernel = kernel;
    let wl = Workload {
        tasks: vec![task("t", 0, Policy::Normal, None, program)],
        timers: vec![TimerSpec { name: "t".into() }],
        ..Workload::default()
    };
    let mut s = schedlab::experiment::run::prepare(&sc, wl).unwrap();
    s.set_invariant_every(1);
    s
}

#[test]
fn new_task_starts_at_half_the_spare_capacity_and_converges_to_1024() {
    let mut s = one_task_sim(hog_program(), 2);
    s.run_until(100 * US);
    let e = &s.sched.entities[s.sched.tasks[0].se as usize];
    // post_init_entity_util_avg on an empty 1024 CPU: (1024 − 0) / 2.
    assert_eq!(e.avg.util_avg, 512);
    assert_eq!(e.avg.runnable_avg, 512);
    assert_eq!(e.avg.load_avg, 1024);
    s.run();
    let e = &s.sched.entities[s.sched.tasks[0].se as usize];
    assert!(e.avg.util_avg >= 1023, "util_avg {}", e.avg.util_avg);
    assert_eq!(e.avg.runnable_avg, e.avg.util_avg);
    let root = &s.sched.cfs_rqs[0].avg;
    assert!(root.util_avg >= 1023 && root.util_avg <= 1024);
    assert_eq!(s.sched.invariant_violations, 0);
}

#[test]
fn half_duty_cycle_settles_to_the_kernel_value() {
    // 8 ms of work every 16 ms. Replay the same on/off history through the bare
    // arithmetic from the first attach and compare the settled peak and trough.
    let mut s = one_task_sim(periodic_ops(None, 8 * MS, 16 * MS, 0), 2);
    let mut peaks = Vec::new();
    let mut troughs = Vec::new();
    for k in 40..60u64 {
        // Mid-sleep: the entity was last updated at its sleep dequeue (the peak).
        s.run_until(k * 16 * MS + 12 * MS);
        peaks.push(s.sched.entities[0].avg.util_avg);
        // Just after the wake-up: the enqueue decayed it through the sleep (the trough).
        s.run_until(k * 16 * MS + 16 * MS + 200 * US);
        troughs.push(s.sched.entities[0].avg.util_avg);
    }
    // Real-number limits: peak 1024·(1−y⁸)/(1−y¹⁶) ≈ 556, trough ≈ peak·y⁸ ≈ 468; the
    // kernel's truncations keep each a few units below.
    let reference = steady_state_reference(8, 16);
    for (&p, &t) in peaks.iter().zip(&troughs) {
        assert!(p.abs_diff(reference.0) <= 3, "peak {p} vs {}", reference.0);
        assert!(
            t.abs_diff(reference.1) <= 3,
            "trough {t} vs {}",
            reference.1
        );
    }
    assert!((545..=556).contains(&reference.0), "{reference:?}");
    assert!((460..=470).contains(&reference.1), "{reference:?}");
}

/// Peak and trough of util_avg for `run_ms` on / rest off, aligned to PELT periods of
/// 1.048576 ms only approximately, replayed through the kernel arithmetic for 2 s.
fn steady_state_reference(run_ms: u64, period_ms: u64) -> (u64, u64) {
    let mut sa = SchedAvg {
        last_update_time: 1,
        util_avg: 512,
        ..Default::default()
    };
    sa.util_sum = (512 * 46718) as u32;
    let (mut peak, mut trough) = (0, 0);
    for k in 0..125u64 {
        let start = k * period_ms * MS + 1;
        update_signal(start + run_ms * MS, &mut sa, 1, 1, true, 1024);
        peak = sa.util_avg;
        update_signal(start + period_ms * MS, &mut sa, 0, 0, false, 1024);
        trough = sa.util_avg;
    }
    (peak, trough)
}

#[test]
fn blocked_load_decays_exactly_while_asleep() {
    // Run 200 ms, then sleep. Across the sleep, the entity is not touched; at its next
    // enqueue its sum must be the one it had, decayed by the whole periods slept (the
    // sub-period remainder is the only extra step).
    let program = vec![
        Op::Run { work_ns: 200 * MS },
        Op::Sleep { ns: 100 * MS },
        Op::Run { work_ns: MS },
    ];
    let mut s = one_task_sim(program, 1);
    s.run_until(250 * MS);
    let before = s.sched.entities[0].avg;
    assert!(before.util_avg > 990);
    s.run_until(301 * MS);
    let after = s.sched.entities[0].avg;
    // Replay: decay the stored state with no input up to the enqueue's PELT clock.
    let mut replay = before;
    update_signal(after.last_update_time, &mut replay, 0, 0, false, 1024);
    assert_eq!(replay.util_sum, after.util_sum);
    assert_eq!(replay.util_avg, after.util_avg);
    // ~95 periods of sleep: util falls by y^95 ≈ 0.128.
    let periods = (after.last_update_time - before.last_update_time) >> 20;
    assert!((94..=96).contains(&periods), "{periods}");
    assert!(after.util_sum as u64 <= decay_load(before.util_sum as u64 + 1024 * 1024, periods));
}

#[test]
fn util_est_ewma_follows_the_hand_computation() {
    // 4 ms every 16 ms for 1 s, then 12 ms every 16 ms for 0.5 s, then 4 ms again.
    let program = [
        periodic_ops(Some(62), 4 * MS, 16 * MS, 0),
        periodic_ops(Some(31), 12 * MS, 16 * MS, 0),
        periodic_ops(Some(31), 4 * MS, 16 * MS, 0),
    ]
    .concat();
    let mut s = one_task_sim(program, 2);
    s.sched.util_est_log = Some(Vec::new());
    let mut seen = Vec::new();
    for k in 0..124u64 {
        // Mid-sleep of period k: the sleep dequeue has happened.
        s.run_until(k * 16 * MS + 14 * MS);
        seen.push((s.sched.entities[0].avg.util_avg, s.sched._task_util_est(0)));
    }
    let log = s.sched.util_est_log.take().unwrap();
    assert_eq!(log.len(), 124, "one update per sleep");
    let mut est = 0u32;
    for (k, r) in log.iter().enumerate() {
        // The field carries on from the last update; PELT cleared the flag in between
        // (every activation runs ≥ 4 PELT periods).
        assert_eq!(
            r.before & !UTIL_AVG_UNCHANGED,
            est & !UTIL_AVG_UNCHANGED,
            "sleep {k}"
        );
        assert_eq!(r.before & UTIL_AVG_UNCHANGED, 0, "sleep {k}");
        // Hand computation of util_est_update's EWMA.
        let old = (r.before & !UTIL_AVG_UNCHANGED) as u64;
        let by_hand = if old <= r.dequeued {
            r.dequeued
        } else if old - r.dequeued < 10 || r.dequeued + 10 < r.runnable {
            old
        } else {
            old - (old - r.dequeued) / 4 - u64::from(!(old - r.dequeued).is_multiple_of(4))
        };
        assert_eq!(
            (r.after & !UTIL_AVG_UNCHANGED) as u64,
            by_hand,
            "sleep {k}: {r:?}"
        );
        assert_eq!(r.after, util_est_next(r.before, r.dequeued, r.runnable));
        est = r.after;
    }
    let seen: Vec<(u64, u64)> = log
        .iter()
        .map(|r| (r.dequeued, (r.after & !UTIL_AVG_UNCHANGED) as u64))
        .collect();
    // Hand values: 4/16 duty peaks near 1024·(1−y⁴)/(1−y¹⁶) ≈ 290; 12/16 near 800.
    let (u4, e4) = seen[60];
    assert!(
        u4.abs_diff(290) <= 8 && e4.abs_diff(290) <= 8,
        "{:?}",
        seen[60]
    );
    // Rising: the estimate jumps with util at once (fast-up is permanent since v6.8).
    for &(u, e) in &seen[62..93] {
        assert_eq!(e, u, "{seen:?}");
    }
    let (u12, e12) = seen[92];
    assert!(u12.abs_diff(800) <= 10 && e12 == u12, "{:?}", seen[92]);
    // Falling: each step removes only a quarter of the gap, so the estimate lags util
    // by >100 two periods in, and stops once within the 1% margin (diff < 10).
    for &(u, e) in &seen[93..] {
        assert!(e >= u, "{seen:?}");
    }
    let (u2, e2) = seen[95];
    assert!(e2 > u2 + 100, "{:?}", seen[95]);
    let (u_last, e_last) = seen[123];
    assert!(
        e_last - u_last < 10 && e_last - u_last > 0,
        "{:?}",
        seen[123]
    );
    assert_eq!(s.sched.invariant_violations, 0);
}

#[test]
fn shorter_half_life_runs_the_pelt_clock_faster() {
    // With an 8 ms half-life the PELT clock runs 4× faster: a hog's util_avg at t equals
    // the mainline value at 4t (to the rounding of where the ticks fall).
    let util_at = |halflife: u32, t: u64| {
        let mut sc = scenario("smp:1", 1);
        sc.pelt_halflife_ms = halflife;
        let wl = Workload {
            tasks: vec![hog("h", 0, None)],
            ..Workload::default()
        };
        let mut s = schedlab::experiment::run::prepare(&sc, wl).unwrap();
        s.run_until(t);
        s.sched.entities[0].avg.util_avg
    };
    for t in [8 * MS, 20 * MS, 40 * MS] {
        let fast = util_at(8, t);
        let slow = util_at(32, 4 * t);
        assert!(fast.abs_diff(slow) <= 3, "t={t}: {fast} vs {slow}");
        assert!(fast > util_at(32, t) + 50, "t={t}");
    }
    // 16 ms sits in between, at 2×.
    assert!(util_at(16, 12 * MS).abs_diff(util_at(32, 24 * MS)) <= 3);
    // Anything else is refused with a fix.
    let mut sc = scenario("smp:1", 1);
    sc.pelt_halflife_ms = 20;
    let Err(err) = schedlab::experiment::run::prepare(&sc, Workload::default()) else {
        panic!("a 20 ms half-life was accepted");
    };
    assert!(err.to_string().contains("8ms"), "{err}");
}

#[test]
fn util_est_reads_the_util_the_dequeue_refreshed_before_v6_12() {
    // 3 ms every 16 ms on a 4 ms tick: the last PELT update before each sleep is the pick,
    // 3 ms before the dequeue. Before v6.12 dequeue_task_fair updates util_est after the
    // entity's dequeue has brought util_avg up to date; v6.12 (the KCSAN race fix) moved
    // the update first, so it reads the pick's util_avg.
    for (kernel, fresh) in [
        (KernelVersion::V5_18, true),
        (KernelVersion::V6_6, true),
        (KernelVersion::V6_8, true),
        (KernelVersion::V6_12, false),
        (KernelVersion::Current, false),
    ] {
        let mut s = one_task_sim_on(periodic_ops(Some(20), 3 * MS, 16 * MS, 0), 1, Some(kernel));
        s.sched.util_est_log = Some(Vec::new());
        for k in 0..20u64 {
            s.run_until(k * 16 * MS + 10 * MS);
            let r = *s.sched.util_est_log.as_ref().unwrap().last().unwrap();
            let after_dequeue = s.sched.entities[0].avg.util_avg;
            if fresh {
                assert_eq!(r.dequeued, after_dequeue, "{kernel:?} sleep {k}");
            } else {
                assert!(r.dequeued < after_dequeue, "{kernel:?} sleep {k}: {r:?}");
            }
        }
    }
}
