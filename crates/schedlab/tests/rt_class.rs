//! The real-time class (kernel/sched/rt.c): FIFO preemption of fair tasks, RR time
//! slices, RT throttling per kernel version, push and pull across CPUs.

mod common;
use common::*;
use schedlab::sched::version::KernelVersion;
use schedlab::workload::{Op, Policy, TaskSpec};

fn periodic(comm: &str, work: u64, period: u64) -> TaskSpec {
    TaskSpec::new(
        comm,
        vec![
            Op::Sleep { ns: 7 * MS },
            Op::LoopBegin { count: None },
            Op::Run { work_ns: work },
            Op::Sleep { ns: period },
            Op::LoopEnd,
        ],
    )
}

#[test]
fn a_fifo_wakee_preempts_a_fair_hog_at_once() {
    // A FIFO task waking every 10 ms beside a fair hog on one CPU: every wake-up runs at
    // once, under every preemption model (the hog runs in user mode).
    use schedlab::experiment::PreemptModel as P;
    for preempt in [P::None, P::Voluntary, P::Full, P::Lazy] {
        let sc = with_preempt(scenario("smp:1", 2), preempt);
        let r = run(
            &sc,
            vec![
                hog("hog", 0, None),
                periodic("rt", 500 * US, 10 * MS).rt(Policy::Fifo, 50),
            ],
        );
        let l = r.tasks[1].wakeup_latency_ns;
        assert!(l.count > 150, "{preempt:?}: {l:?}");
        // Only the context-switch cost separates wake-up and run.
        assert!(l.max <= 20 * US, "{preempt:?}: {l:?}");
    }
}

#[test]
fn two_rr_tasks_alternate_every_timeslice() {
    // Two SCHED_RR hogs at one priority on one CPU, HZ=250: each runs its 100 ms slice
    // (25 ticks), then the other.
    let mut sc = scenario("smp:1", 1);
    sc.hz = 250;
    let mut s = sim(
        &sc,
        vec![
            hog("a", 0, None).rt(Policy::Rr, 10),
            hog("b", 0, None).rt(Policy::Rr, 10),
        ],
    );
    let switches = run_logging_switches(&mut s);
    let times: Vec<u64> = switches.iter().map(|r| r.at).collect();
    assert!(times.len() >= 9, "{times:?}");
    for w in times[1..].windows(2) {
        assert_eq!(w[1] - w[0], 100 * MS, "{times:?}");
    }
}

#[test]
fn fifo_tasks_of_one_priority_run_to_completion_in_order() {
    // SCHED_FIFO has no slice: the first hog keeps the CPU for the whole run.
    let r = run(
        &scenario("smp:1", 1),
        vec![
            hog("a", 0, None).rt(Policy::Fifo, 10),
            hog("b", 0, None).rt(Policy::Fifo, 10),
        ],
    );
    assert_eq!(cpu_time(&r, "b"), 0);
}

/// A FIFO hog and a fair hog pinned to one CPU for `secs`: the fair hog's CPU time.
fn fair_share_beside_fifo(kernel: KernelVersion, secs: u64) -> (u64, u64) {
    let mut sc = scenario("smp:2", secs);
    sc.kernel = Some(kernel);
    let r = run(
        &sc,
        vec![
            hog("rt", 0, Some(vec![0])).rt(Policy::Fifo, 50),
            hog("fair", 0, Some(vec![0])),
        ],
    );
    (cpu_time(&r, "rt"), cpu_time(&r, "fair"))
}

#[test]
fn rt_throttling_leaves_the_fair_class_5_percent_before_6_12() {
    for kernel in [
        KernelVersion::V5_18,
        KernelVersion::V6_1,
        KernelVersion::V6_8,
    ] {
        let (rt, fair) = fair_share_beside_fifo(kernel, 5);
        // 950 ms of every 1 s period for RT, charged at tick granularity (4 ms at HZ=250),
        // the rest to the fair hog.
        let fair_ms = fair / MS;
        assert!(
            (230..=250).contains(&fair_ms),
            "{kernel:?}: fair {fair_ms} ms, rt {} ms",
            rt / MS
        );
    }
}

#[test]
fn rr_priorities_order_before_slices() {
    // A higher-priority RR hog starves a lower one on one CPU.
    let r = run(
        &scenario("smp:1", 1),
        vec![
            hog("lo", 0, None).rt(Policy::Rr, 10),
            hog("hi", 0, None).rt(Policy::Rr, 20),
        ],
    );
    assert!(cpu_time(&r, "lo") < 2 * MS, "{}", cpu_time(&r, "lo"));
}

#[test]
fn a_waking_rt_task_goes_to_a_cpu_without_rt_work() {
    // Two FIFO hogs start on CPU 0 of smp:2 (their first allowed CPU): the second is
    // placed where no RT task runs (select_task_rq_rt → find_lowest_rq).
    let r = run(
        &scenario("smp:2", 1),
        vec![
            hog("a", 0, None).rt(Policy::Fifo, 10),
            hog("b", 0, None).rt(Policy::Fifo, 10),
        ],
    );
    assert!(cpu_time(&r, "a") > 990 * MS);
    assert!(cpu_time(&r, "b") > 990 * MS);
}

#[test]
fn a_cpu_whose_rt_task_sleeps_pulls_a_waiting_one() {
    // CPU 1 runs a FIFO 90 task that sleeps after 100 ms; CPU 0 runs FIFO 80; a FIFO 10
    // hog created at 50 ms finds no CPU below it and waits on CPU 0. When CPU 1's task
    // sleeps, CPU 1 pulls it (balance_rt → pull_rt_task).
    let high = TaskSpec::new(
        "high",
        vec![Op::Run { work_ns: 100 * MS }, Op::Sleep { ns: 10_000 * MS }],
    )
    .rt(Policy::Fifo, 90)
    .cpus(Some(vec![1]));
    let mid = hog("mid", 0, Some(vec![0])).rt(Policy::Fifo, 80);
    let low = TaskSpec::new(
        "low",
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: MS },
            Op::LoopEnd,
        ],
    )
    .rt(Policy::Fifo, 10)
    .delay(50 * MS);
    let r = run(&scenario("smp:2", 1), vec![high, mid, low]);
    let low_ms = cpu_time(&r, "low") / MS;
    // It runs from 100 ms on, on CPU 1 (less the switch costs).
    assert!((899..=900).contains(&low_ms), "low ran {low_ms} ms");
}

#[test]
fn rt_pelt_takes_its_share_of_the_fair_capacity() {
    // An RT task runs 5 ms of every 10 ms on CPU 0 for 2 s: rq->avg_rt converges to about
    // half of 1024 and capacity_of(0) (scale_rt_capacity) is what is left; CPU 1 runs a
    // fair hog and keeps its whole capacity.
    let rt = TaskSpec::new(
        "rt",
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 5 * MS },
            Op::Sleep { ns: 5 * MS },
            Op::LoopEnd,
        ],
    )
    .rt(Policy::Fifo, 50)
    .cpus(Some(vec![0]));
    let mut s = sim(
        &scenario("smp:2", 2),
        vec![rt, hog("fair", 0, Some(vec![1]))],
    );
    s.run();
    let rt_util = s.sched.rqs[0].avg_rt.util_avg;
    assert!((480..=560).contains(&rt_util), "avg_rt {rt_util}");
    assert_eq!(s.sched.capacity_of(0), 1024 - rt_util);
    assert_eq!(s.sched.rqs[1].avg_rt.util_avg, 0);
    assert_eq!(s.sched.capacity_of(1), 1024);
    // capacity_of reads a value cached at each write of the signals: a signal changed
    // behind its back is an invariant violation.
    assert_eq!(s.sched.invariant_violations, 0);
    s.sched.rqs[1].avg_rt.util_avg = 100;
    s.sched.check_invariants();
    assert_eq!(s.sched.invariant_violations, 1);
    assert!(
        s.sched.invariant_messages[0].contains("cached capacity 1024 != scale_rt_capacity 924"),
        "{:?}",
        s.sched.invariant_messages
    );
}

#[test]
fn schedutil_runs_a_cpu_with_runnable_rt_work_at_the_top_frequency() {
    // The same light periodic task (1 ms every 20 ms) as a fair and as a FIFO task on
    // smp-dvfs:2 under schedutil: the FIFO task's busy time is all at the top OPP
    // (effective_cpu_util's minimum is the CPU's capacity while the rt_rq is runnable).
    use schedlab::sched::cpufreq_schedutil::Governor;
    let busy_at_top = |policy: Option<Policy>| {
        let mut t = TaskSpec::new(
            "p",
            vec![
                Op::LoopBegin { count: None },
                Op::Run { work_ns: MS },
                Op::Sleep { ns: 19 * MS },
                Op::LoopEnd,
            ],
        )
        .cpus(Some(vec![1]));
        if let Some(p) = policy {
            t = t.rt(p, 10);
        }
        let sc = schedlab::experiment::Scenario {
            governor: Governor::Schedutil,
            ..scenario("smp-dvfs:2", 3)
        };
        let r = run(&sc, vec![t]);
        let res = &r.cpus[1].freq_residency;
        let top = res.iter().map(|f| f.khz).max().unwrap();
        let busy: u64 = res.iter().map(|f| f.busy_ns).sum();
        let at_top: u64 = res.iter().filter(|f| f.khz == top).map(|f| f.busy_ns).sum();
        at_top as f64 / busy as f64
    };
    let fair = busy_at_top(None);
    let fifo = busy_at_top(Some(Policy::Fifo));
    assert!(fifo > 0.99, "FIFO busy at top: {fifo:.3}");
    assert!(fair < 0.05, "fair busy at top: {fair:.3}");
}

#[test]
fn an_rt_task_pinned_while_queued_keeps_the_counts_straight() {
    // A FIFO task runs, narrows its affinity to its own CPU (stays queued), then sleeps
    // and wakes: rt_nr_migratory must not underflow (set_cpus_allowed_rt).
    let t = TaskSpec::new(
        "pin",
        vec![
            Op::Run { work_ns: MS },
            Op::SetSched(Box::new(schedlab::workload::SchedChange {
                cpus: Some(vec![0]),
                ..Default::default()
            })),
            Op::LoopBegin { count: Some(20) },
            Op::Run { work_ns: MS },
            Op::Sleep { ns: MS },
            Op::LoopEnd,
        ],
    )
    .rt(Policy::Fifo, 5);
    let mut s = sim(&scenario("smp:2", 1), vec![t, hog("h", 0, None)]);
    s.run();
    let rt = &s.sched.rqs[0].rt;
    assert_eq!(
        (rt.rt_nr_total, rt.rt_nr_migratory, rt.overloaded),
        (0, 0, false)
    );
    assert_eq!(s.sched.rd.rto_count, 0);
}

#[test]
fn rt_throttling_follows_the_sysctls() {
    // sched_rt_runtime_us = 500000 leaves the fair hog half of each second on 6.1;
    // −1 (no limit) leaves it nothing.
    let run_with = |runtime: &str| {
        let mut sc = scenario("smp:2", 4);
        sc.kernel = Some(KernelVersion::V6_1);
        sc.sysctl
            .set_assignment(&format!("sched_rt_runtime_us={runtime}"))
            .unwrap();
        let r = run(
            &sc,
            vec![
                hog("rt", 0, Some(vec![0])).rt(Policy::Fifo, 50),
                hog("fair", 0, Some(vec![0])),
            ],
        );
        cpu_time(&r, "fair") / MS
    };
    let half = run_with("500000");
    assert!((1_990..=2_000).contains(&half), "fair {half} ms");
    assert_eq!(run_with("-1"), 0);
    let mut s = schedlab::experiment::sysctl::Sysctls::default();
    s.set_assignment("sched_rt_runtime_us=2000000").unwrap();
    let e = s.check_kernel(KernelVersion::V6_1).unwrap_err();
    assert!(e.to_string().contains("exceeds sched_rt_period_us"), "{e}");
}

#[test]
fn the_rr_slice_follows_sched_rr_timeslice_ms() {
    let mut sc = scenario("smp:1", 1);
    sc.sysctl
        .set_assignment("sched_rr_timeslice_ms=10")
        .unwrap();
    let mut s = sim(
        &sc,
        vec![
            hog("a", 0, None).rt(Policy::Rr, 10),
            hog("b", 0, None).rt(Policy::Rr, 10),
        ],
    );
    let times: Vec<u64> = run_logging_switches(&mut s).iter().map(|r| r.at).collect();
    // 10 ms at HZ=250 is 2.5 ticks: msecs_to_jiffies rounds up to 3 ticks, 12 ms.
    for w in times[1..].windows(2) {
        assert_eq!(w[1] - w[0], 12 * MS, "{times:?}");
    }
}

#[test]
fn setting_the_same_rt_priority_changes_nothing() {
    // Two FIFO 10 tasks on one CPU; the running one re-applies its own policy and
    // priority (as rt-app does each phase pass) and a FIFO 50 task preempts it every
    // 10 ms: with no requeue it stays first at priority 10 and gets the CPU back each
    // time (__sched_setscheduler returns early when nothing changes); a requeue would put
    // it behind "b".
    let reapply = TaskSpec::new(
        "a",
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: MS },
            Op::SetSched(Box::new(schedlab::workload::SchedChange {
                policy: Some(Policy::Fifo),
                rt_priority: Some(10),
                ..Default::default()
            })),
            Op::LoopEnd,
        ],
    )
    .rt(Policy::Fifo, 10);
    let r = run(
        &scenario("smp:1", 1),
        vec![
            reapply,
            hog("b", 0, None).rt(Policy::Fifo, 10),
            periodic("c", MS, 10 * MS).rt(Policy::Fifo, 50),
        ],
    );
    assert_eq!(cpu_time(&r, "b"), 0);
}
