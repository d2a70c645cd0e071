//! Tick-driven switching under the preemption models (docs/model.md, Preemption models).

mod common;
use common::*;
use schedlab::experiment::PreemptModel;

/// Run pinned hogs on CPU 0 of smp:2 and return each task's run lengths in order
/// (first and last run dropped: they are cut by start-up and the time limit).
fn runs(nices: &[i32], preempt: PreemptModel, hz: u32) -> Vec<(usize, u64)> {
    runs_with(nices, preempt, hz, "")
}

fn runs_with(nices: &[i32], preempt: PreemptModel, hz: u32, features: &str) -> Vec<(usize, u64)> {
    let mut sc = with_preempt(scenario("smp:2", 1), preempt);
    sc.hz = hz;
    sc.features = features.into();
    let tasks = nices
        .iter()
        .enumerate()
        .map(|(i, &n)| hog(&format!("t{i}"), n, Some(vec![0])))
        .collect();
    let mut s = sim(&sc, tasks);
    let log = run_logging_switches(&mut s);
    let mut out = Vec::new();
    for w in log.windows(2) {
        assert_eq!(w[0].cpu, 0, "nothing runs on CPU 1");
        if let Some(t) = w[0].next {
            out.push((t, w[1].at - w[0].at));
        }
    }
    out.remove(0);
    out
}

#[test]
fn equal_hogs_alternate_every_tick_without_preemption() {
    for model in [
        PreemptModel::None,
        PreemptModel::Voluntary,
        PreemptModel::Full,
    ] {
        let r = runs(&[0, 0], model, 250);
        assert!(r.len() > 200, "{model:?}: {} runs", r.len());
        for (i, w) in r.windows(2).enumerate() {
            assert_ne!(w[0].0, w[1].0, "{model:?}: run {i} does not alternate");
        }
        assert!(
            r.iter().all(|&(_, d)| d == 4 * MS),
            "{model:?}: {:?}",
            &r[..6]
        );
    }
}

#[test]
fn lazy_preemption_of_a_user_task_acts_at_the_tick_itself() {
    // The tick's resched request is lazy, but the tick interrupt returns to user mode,
    // where exit_to_user_mode_loop honours TIF_NEED_RESCHED_LAZY too.
    let r = runs(&[0, 0], PreemptModel::Lazy, 250);
    assert!(r.iter().all(|&(_, d)| d == 4 * MS), "{:?}", &r[..6]);
}

#[test]
fn nice0_vs_nice5_runs_12ms_to_4ms() {
    let r = runs(&[0, 5], PreemptModel::None, 250);
    let heavy: Vec<u64> = r.iter().filter(|x| x.0 == 0).map(|x| x.1).collect();
    let light: Vec<u64> = r.iter().filter(|x| x.0 == 1).map(|x| x.1).collect();
    assert!(heavy.len() > 50 && light.len() > 50);
    assert!(
        light.iter().all(|&d| d == 4 * MS),
        "light runs {:?}",
        &light[..8]
    );
    // 4 ms of nice 5 is 4 × 1024/335 = 12.23 ms of vruntime: the heavy task runs 12 ms,
    // and the 0.23 ms it falls behind each round adds a fourth tick about every 17th run.
    assert!(
        heavy.iter().all(|&d| d == 12 * MS || d == 16 * MS),
        "{heavy:?}"
    );
    let twelve = heavy.iter().filter(|&&d| d == 12 * MS).count();
    assert!(
        twelve * 100 >= heavy.len() * 90,
        "{twelve} of {} runs are 12 ms",
        heavy.len()
    );
    let mean = heavy.iter().sum::<u64>() as f64 / heavy.len() as f64;
    let want = 4.0 * MS as f64 * 1024.0 / 335.0;
    assert!(
        (mean / want - 1.0).abs() < 0.01,
        "mean heavy run {mean} vs {want}"
    );
}

#[test]
fn hrtick_ends_each_slice_on_time() {
    // With HRTICK the slice timer fires when the 1.4 ms request (smp:2) is used up,
    // instead of waiting for the 4 ms tick.
    let r = runs_with(&[0, 0], PreemptModel::Full, 250, "HRTICK");
    assert!(r.len() > 600, "{} runs", r.len());
    let steady = &r[2..];
    assert!(
        steady.iter().all(|&(_, d)| d == 1_400_000),
        "{:?}",
        &steady[..6]
    );
}

// ---- wake-up preemption of user-mode tasks under each model (issue 15 point 1) --------

use schedlab::metrics::latency::WakeupLatencies;
use schedlab::workload::program::ObjectSpec;
use schedlab::workload::{Op, TaskSpec, TimerMode, Workload};

const MODELS: [PreemptModel; 4] = [
    PreemptModel::None,
    PreemptModel::Voluntary,
    PreemptModel::Full,
    PreemptModel::Lazy,
];

/// Every wake-up latency of task `p` (ns) after running `wl` for `secs` on smp:2.
fn latencies(model: PreemptModel, features: &str, wl: Workload, secs: u64, p: usize) -> Vec<u64> {
    let mut sc = with_preempt(scenario("smp:2", secs), model);
    sc.features = features.into();
    let mut s = schedlab::experiment::run::prepare(&sc, wl).unwrap();
    s.set_invariant_every(1);
    s.run();
    assert_eq!(
        s.sched.invariant_violations, 0,
        "{:?}",
        s.sched.invariant_messages
    );
    let l = s.sched.observer::<WakeupLatencies>().unwrap();
    l.samples(p).expect("under the exact cap")[1..].to_vec()
}

fn share_under(v: &[u64], ns: u64) -> f64 {
    v.iter().filter(|&&x| x < ns).count() as f64 / v.len() as f64
}

/// A task pinned to CPU 0 that waits on wait queue 0 and runs 50 µs per wake-up; its
/// 100 µs slice lets it preempt a protected slice (PREEMPT_SHORT).
fn waiter() -> TaskSpec {
    TaskSpec::new(
        "waiter",
        vec![
            Op::LoopBegin { count: None },
            Op::Wait { obj: 0 },
            Op::Run { work_ns: 50 * US },
            Op::LoopEnd,
        ],
    )
    .cpus(Some(vec![0]))
    .slice(Some(100 * US))
}

/// A 60 Hz task (2 ms a period) pinned with two nice-0 hogs: its timer fires on its own
/// CPU, so the wake-up is a local request acted on at the end of the timer interrupt.
#[test]
fn local_timer_wakeups_preempt_under_every_model() {
    let periodic = TaskSpec::new(
        "periodic",
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 2 * MS },
            Op::Timer {
                timer: 0,
                period_ns: 16_666_667,
                mode: TimerMode::Absolute,
            },
            Op::LoopEnd,
        ],
    )
    .cpus(Some(vec![0]));
    for model in MODELS {
        let tasks = vec![
            periodic.clone(),
            hog("hog-1", 0, Some(vec![0])),
            hog("hog-2", 0, Some(vec![0])),
        ];
        let lat = latencies(model, "", workload_of(tasks), 10, 0);
        assert!(lat.len() > 500, "{model:?}: {} wake-ups", lat.len());
        // The host (6.18, preempt none) runs about a quarter of them at once.
        let at_once = share_under(&lat, 100 * US);
        assert!(
            (0.1..0.9).contains(&at_once),
            "{model:?}: {at_once:.2} of the wake-ups within 100 µs"
        );
    }
}

/// A waiter pinned to CPU 0 beside a hog, signalled from CPU 1. CPU 0 is busy and shares
/// the cache, so the waker enqueues it there itself (ttwu_queue_cond) and the preemption
/// request is remote: a reschedule IPI under none, voluntary and full; under lazy no IPI
/// is sent and the request waits for CPU 0's next tick.
#[test]
fn remote_wakeups_preempt_after_the_ipi_except_lazy() {
    let waiter = waiter();
    let waker = TaskSpec::new(
        "waker",
        vec![
            Op::LoopBegin { count: None },
            Op::Sleep { ns: 3_100 * US },
            Op::Signal { obj: 0 },
            Op::LoopEnd,
        ],
    )
    .cpus(Some(vec![1]));
    for model in MODELS {
        let wl = Workload {
            tasks: vec![waiter.clone(), waker.clone(), hog("hog", 0, Some(vec![0]))],
            objects: vec![ObjectSpec::WaitQueue],
            ..Workload::default()
        };
        let lat = latencies(model, "", wl, 5, 0);
        assert!(lat.len() > 1000, "{model:?}: {} wake-ups", lat.len());
        let at_once = share_under(&lat, 20 * US);
        if model == PreemptModel::Lazy {
            assert!(at_once < 0.05, "lazy: {at_once:.2} within 20 µs");
            let p50 = {
                let mut v = lat.clone();
                v.sort();
                v[v.len() / 2]
            };
            assert!(p50 > 500 * US && p50 < 4 * MS + 20 * US, "lazy p50 {p50}");
        } else {
            assert!(at_once > 0.95, "{model:?}: {at_once:.2} within 20 µs");
        }
    }
}

/// Waker and wakee on one CPU: the waker's own syscall (futex wake) returns to user mode
/// with need_resched set, so the wakee runs at once under every model, lazy included.
#[test]
fn waker_syscall_wakeups_preempt_at_the_syscall_return() {
    let waiter = waiter();
    let waker = TaskSpec::new(
        "waker",
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 3 * MS },
            Op::Signal { obj: 0 },
            Op::LoopEnd,
        ],
    )
    .cpus(Some(vec![0]));
    for model in MODELS {
        let wl = Workload {
            tasks: vec![waiter.clone(), waker.clone()],
            objects: vec![ObjectSpec::WaitQueue],
            ..Workload::default()
        };
        let lat = latencies(model, "", wl, 5, 0);
        assert!(lat.len() > 1000, "{model:?}: {} wake-ups", lat.len());
        assert!(
            share_under(&lat, 20 * US) > 0.95,
            "{model:?}: {:?}",
            &lat[..10]
        );
    }
}
