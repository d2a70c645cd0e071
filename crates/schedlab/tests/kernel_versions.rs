//! Kernel versions (`--kernel`): each release's features, the CFS class of v6.5 and older
//! (sleeper credit, sched_slice, tick preemption), the EEVDF generations (delayed dequeue
//! from v6.12), the version in the result document, and determinism in every version.

mod common;
use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::Scenario;
use schedlab::sched::features::{Feature, Features};
use schedlab::sched::version::KernelVersion;
use schedlab::simulation::Simulation;
use schedlab::workload::{Op, Policy};

fn v(s: &str) -> KernelVersion {
    kernel_version(s)
}

fn with_kernel(mut sc: Scenario, k: &str) -> Scenario {
    sc.kernel = Some(v(k));
    sc
}

#[test]
fn each_version_has_its_own_features() {
    let k65 = v("6.5");
    for f in [
        Feature::GENTLE_FAIR_SLEEPERS,
        Feature::START_DEBIT,
        Feature::NEXT_BUDDY,
        Feature::LAST_BUDDY,
        Feature::WAKEUP_PREEMPTION,
    ] {
        assert!(f.exists_in(k65), "{f:?} in 6.5");
    }
    for f in [
        Feature::RUN_TO_PARITY,
        Feature::PLACE_LAG,
        Feature::DELAY_DEQUEUE,
    ] {
        assert!(!f.exists_in(k65), "{f:?} not in 6.5");
    }
    assert!(Feature::DELAY_DEQUEUE.exists_in(v("6.12")));
    // PICK_BUDDY is v6.14 (2a77e4be12cb), not part of the v6.12 series.
    assert!(!Feature::PICK_BUDDY.exists_in(v("6.12")));
    assert!(Feature::PICK_BUDDY.exists_in(v("6.18")));
    assert!(Feature::PLACE_LAG.exists_in(v("6.6")));
    assert!(!Feature::DELAY_DEQUEUE.exists_in(v("6.6")));
    assert!(!Feature::GENTLE_FAIR_SLEEPERS.exists_in(v("6.6")));
    assert!(Feature::UTIL_EST_FASTUP.exists_in(v("6.6")));
    assert!(!Feature::UTIL_EST_FASTUP.exists_in(v("6.8")));
    assert!(!Feature::NI_RATE.exists_in(v("6.18")));
    // Defaults per version; the default set of the current kernel is unchanged.
    let f65 = Features::for_kernel(k65);
    assert!(f65.on(Feature::GENTLE_FAIR_SLEEPERS) && f65.on(Feature::LAST_BUDDY));
    assert!(!f65.on(Feature::DELAY_DEQUEUE) && !f65.on(Feature::NEXT_BUDDY));
    assert!(f65.on(Feature::OVERUTIL_WITHOUT_EAS));
    assert!(!Features::for_kernel(v("6.12")).on(Feature::OVERUTIL_WITHOUT_EAS));
    assert_eq!(
        Features::for_kernel(KernelVersion::Current),
        Features::default()
    );
    assert!(f65.non_default_in(k65).is_empty());
}

#[test]
fn a_feature_the_version_lacks_is_an_error_naming_where_it_exists() {
    let sc = Scenario {
        features: "NO_DELAY_DEQUEUE".into(),
        kernel: Some(v("6.6")),
        ..Scenario::default()
    };
    let e = prepare(&sc, workload_of(vec![hog("a", 0, None)]))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("'NO_DELAY_DEQUEUE' does not exist in kernel 6.6"),
        "{e}"
    );
    assert!(e.contains("6.12, 6.18, current"), "{e}");
    let sc = Scenario {
        features: "GENTLE_FAIR_SLEEPERS".into(),
        ..Scenario::default()
    };
    let e = prepare(&sc, workload_of(vec![hog("a", 0, None)]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("5.18, 6.1, 6.5"), "{e}");
}

/// Two nice-0 hogs and a 60 Hz task running 2 ms a period, all on one CPU: the periodic
/// task's wake-up latencies.
fn sixty_hz_latency(kernel: &str) -> schedlab::metrics::latency::LatencySummary {
    let sc = with_kernel(scenario("smp:1", 2), kernel);
    let frame = task(
        "frame",
        0,
        Policy::Normal,
        None,
        periodic_ops(None, 2 * MS, 16_666_667, 0),
    );
    let r = run(&sc, vec![hog("a", 0, None), hog("b", 0, None), frame]);
    r.tasks[2].wakeup_latency_ns
}

#[test]
fn cfs_sleeper_credit_preempts_at_once_eevdf_waits() {
    for k in ["5.18", "6.1", "6.5"] {
        let l = sixty_hz_latency(k);
        assert!(l.count > 100, "{k}: {l:?}");
        assert!(
            l.p90 < 200 * US,
            "{k}: CFS wakes the sleeper at once: {l:?}"
        );
    }
    for k in ["6.6", "6.8", "6.12", "6.18", "current"] {
        let l = sixty_hz_latency(k);
        assert!(l.count > 100, "{k}: {l:?}");
        assert!(
            l.p90 > 200 * US,
            "{k}: EEVDF lets the protected hog finish first: {l:?}"
        );
    }
}

/// Pinned nice-0 hogs on CPU 0 of `machine` at HZ 1000 under 6.5: run lengths between
/// switches, the start-up runs dropped.
fn cfs_runs(machine: &str, hogs: usize, sysctl: &[&str]) -> Vec<u64> {
    let mut sc = with_kernel(scenario(machine, 1), "6.5");
    sc.hz = 1000;
    for s in sysctl {
        sc.sysctl.set_assignment(s).unwrap();
    }
    let tasks = (0..hogs)
        .map(|i| hog(&format!("h{i}"), 0, Some(vec![0])))
        .collect();
    let mut s = sim(&sc, tasks);
    let log = run_logging_switches(&mut s);
    log.windows(2)
        .skip(2 * hogs)
        .map(|w| w[1].at - w[0].at)
        .collect()
}

#[test]
fn cfs_slices_follow_latency_over_nr_running() {
    // smp:1: factor 1, sched_latency 6 ms, min_granularity 0.75 ms. Two hogs: a slice is
    // 6 ms / 2 by __calc_delta's mult-shift (inv_weight = (2^32 − 1) / w), 2 ns short of
    // 3 ms, so the 3rd 1 ms tick finds it used up.
    let runs = cfs_runs("smp:1", 2, &[]);
    assert!(
        runs.len() > 300 && runs.iter().all(|&d| d == 3 * MS),
        "{:?}",
        &runs[..8]
    );
    // Three hogs: 2 ms each.
    let runs = cfs_runs("smp:1", 3, &[]);
    assert!(runs.iter().all(|&d| d == 2 * MS), "{:?}", &runs[..8]);
    // Ten hogs: past sched_nr_latency (8) the period is 10 × 0.75 ms, a slice 0.75 ms:
    // every tick preempts.
    let runs = cfs_runs("smp:1", 10, &[]);
    assert!(runs.iter().all(|&d| d == MS), "{:?}", &runs[..8]);
    // The sysctl doubles the latency: 6 ms slices.
    let runs = cfs_runs("smp:1", 2, &["sched_latency_ns=12000000"]);
    assert!(runs.iter().all(|&d| d == 6 * MS), "{:?}", &runs[..8]);
    // smp:4 scales by 1 + ilog2(4) = 3: 18 ms latency, two hogs 9 ms; with no scaling
    // the smp:1 numbers come back, linear scaling (×4) gives 12 ms.
    let runs = cfs_runs("smp:4", 2, &[]);
    assert!(runs.iter().all(|&d| d == 9 * MS), "{:?}", &runs[..8]);
    let runs = cfs_runs("smp:4", 2, &["sched_tunable_scaling=0"]);
    assert!(runs.iter().all(|&d| d == 3 * MS), "{:?}", &runs[..8]);
    let runs = cfs_runs("smp:4", 2, &["sched_tunable_scaling=2"]);
    assert!(runs.iter().all(|&d| d == 12 * MS), "{:?}", &runs[..8]);
}

#[test]
fn sched_slice_is_exact() {
    let sc = with_kernel(scenario("smp:1", 1), "6.5");
    let s = sim(
        &sc,
        vec![hog("a", 0, None), hog("b", 5, None), hog("c", -5, None)],
    );
    let sched = &s.sched;
    // Not queued yet: the first of one (nr 0 + 1) gets the whole latency, as the kernel's
    // mult-shift computes it: 6e6 · (1024 · ⌊(2^32 − 1) / 1024⌋) >> 32 = 5 999 998.
    let se = sched.tasks[0].se;
    assert_eq!(sched.sched_slice(0, se), 5_999_998);
    assert_eq!(sched.__sched_period(8), 6 * MS);
    assert_eq!(sched.__sched_period(9), 9 * 750_000);
    assert_eq!(sched.cfg.cfs.wakeup_granularity, MS);
}

#[test]
fn cfs_slices_split_by_weight() {
    let sc = with_kernel(scenario("smp:1", 1), "6.5");
    let mut s = sim(&sc, vec![hog("a", 0, None), hog("b", 5, None)]);
    s.advance_clock(MS);
    let sched = &s.sched;
    let (a, b) = (sched.tasks[0].se, sched.tasks[1].se);
    // Weights 1024 and 335 (sched_prio_to_weight): 6 ms × w / 1359, mult-shift rounded.
    let sa = sched.sched_slice(0, a);
    let sb = sched.sched_slice(0, b);
    assert!(sa.abs_diff(6 * MS * 1024 / 1359) <= 1, "{sa}");
    assert!(sb.abs_diff(6 * MS * 335 / 1359) <= 1, "{sb}");
}

/// Hogs A and B on smp:1 at HZ 100; at 5 ms the running one blocks while ahead of V
/// (negative lag). Returns the simulation and the blocked task.
fn block_ahead(kernel: &str) -> (Simulation, usize) {
    block_ahead_with(kernel, "")
}

fn block_ahead_with(kernel: &str, features: &str) -> (Simulation, usize) {
    let mut sc = with_kernel(scenario("smp:1", 1), kernel);
    sc.hz = 100;
    sc.features = features.into();
    let mut s = sim(&sc, vec![hog("A", 0, None), hog("B", 0, None)]);
    s.advance_clock(5 * MS);
    let p = s.sched.rqs[0].curr.unwrap();
    s.sched.block_current(0);
    s.sched.process_resched();
    (s, p)
}

#[test]
fn delayed_dequeue_from_6_12_only() {
    for k in ["6.12", "6.18", "current"] {
        let (s, p) = block_ahead(k);
        let a = &s.sched.entities[s.sched.tasks[p].se as usize];
        assert!(
            a.sched_delayed && a.on_rq,
            "{k}: the sleeper stays queued, delayed"
        );
    }
    for k in ["6.5", "6.6", "6.8"] {
        let (s, p) = block_ahead(k);
        let a = &s.sched.entities[s.sched.tasks[p].se as usize];
        assert!(
            !a.sched_delayed && !a.on_rq,
            "{k}: the sleeper leaves at once"
        );
        assert!(!s.sched.tasks[p].on_rq, "{k}");
    }
}

#[test]
fn the_posted_series_delays_dequeue_on_6_6() {
    // Seed 004 ran the April 2024 posting on Android's 6.6: one switch brings its parts.
    let (s, p) = block_ahead_with("6.6", "COMPLETE_EEVDF_RFC");
    let a = &s.sched.entities[s.sched.tasks[p].se as usize];
    assert!(
        a.sched_delayed && a.on_rq,
        "the sleeper stays queued, delayed"
    );
    for f in [
        "DELAY_DEQUEUE",
        "DELAY_ZERO",
        "PREEMPT_SHORT",
        "DELAY_DEQUEUE_RUNNABLE",
        "DELAY_DEQUEUE_AS_POSTED",
    ] {
        assert!(s.sched.features.on(Feature::from_name(f).unwrap()), "{f}");
    }
    // Only 6.6 takes it: later kernels have the series merged, earlier ones lack EEVDF.
    let mut sc = with_kernel(scenario("smp:1", 1), "6.12");
    sc.features = "COMPLETE_EEVDF_RFC".into();
    let Err(err) = prepare(&sc, workload_of(vec![hog("A", 0, None)])) else {
        panic!("COMPLETE_EEVDF_RFC accepted on 6.12");
    };
    assert!(err.to_string().contains("exists in kernel 6.6"), "{err}");
}

#[test]
fn the_result_records_the_version() {
    let wl = || workload_of(vec![hog("a", 0, None)]);
    let sc = with_kernel(scenario("smp:1", 1), "6.5.5");
    let r = execute(&sc, prepare(&sc, wl()).unwrap(), None);
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["scenario"]["kernel"], "6.5");
    assert_eq!(j["scenario"]["sysctl"]["sched_latency_ns"], 6_000_000);
    let sc = scenario("smp:1", 1);
    let r = execute(&sc, prepare(&sc, wl()).unwrap(), None);
    let j = serde_json::to_value(&r).unwrap();
    assert!(
        j["scenario"].get("kernel").is_none(),
        "the default stays unmarked"
    );
    assert!(j["scenario"]["sysctl"].get("sched_latency_ns").is_none());
}

/// A mix that exercises wake-ups, migrations, balancing, yield and SCHED_IDLE.
fn mixed(kernel: KernelVersion, seed: u64) -> String {
    let mut sc = scenario("smp:4", 1);
    sc.kernel = Some(kernel);
    sc.seed = seed;
    let mut tasks = vec![
        hog("h0", 0, None),
        hog("h1", 5, None),
        task("idle", 0, Policy::Idle, None, hog_program()),
        task(
            "yielder",
            0,
            Policy::Normal,
            None,
            vec![
                Op::LoopBegin { count: None },
                Op::Run { work_ns: 300 * US },
                Op::Yield,
                Op::LoopEnd,
            ],
        ),
    ];
    for i in 0..6 {
        tasks.push(task(
            &format!("p{i}"),
            0,
            Policy::Normal,
            None,
            periodic_ops(None, (i + 1) * 400 * US, 5 * MS, 0),
        ));
    }
    let r = run(&sc, tasks);
    let mut j = serde_json::to_value(&r).unwrap();
    j["sim"]["wall_s"] = serde_json::Value::Null;
    serde_json::to_string(&j).unwrap()
}

#[test]
fn every_version_is_deterministic_and_keeps_invariants() {
    for k in KernelVersion::ALL {
        let a = mixed(k, 7);
        assert_eq!(a, mixed(k, 7), "{}: rerun differs", k.name());
    }
    // The versions do differ.
    assert_ne!(
        mixed(KernelVersion::V6_5, 7),
        mixed(KernelVersion::Current, 7)
    );
}

#[test]
fn lazy_preemption_needs_6_13() {
    let mut sc = with_kernel(scenario("smp:1", 1), "6.6");
    sc.preempt = schedlab::experiment::PreemptModel::Lazy;
    let e = prepare(&sc, workload_of(vec![hog("a", 0, None)]))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("kernel 6.6 has no lazy preemption"), "{e}");
}

#[test]
fn cfs_sysctls_only_on_cfs_kernels() {
    let mut sc = with_kernel(scenario("smp:1", 1), "6.6");
    sc.sysctl
        .set_assignment("sched_latency_ns=12000000")
        .unwrap();
    let e = prepare(&sc, workload_of(vec![hog("a", 0, None)]))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("sched_latency_ns does not exist in kernel 6.6"),
        "{e}"
    );
}

/// util_est's EWMA at the first sleep after a task's activations grow from 1 ms to 8 ms
/// (every 16 ms): (util at that sleep, EWMA after the update).
fn ewma_after_growth(kernel: &str, features: &str) -> (u64, u32) {
    let mut sc = with_kernel(scenario("smp:1", 1), kernel);
    sc.features = features.into();
    let period = |work: u64, count: u64| {
        vec![
            Op::LoopBegin { count: Some(count) },
            Op::Run { work_ns: work },
            Op::Timer {
                timer: 0,
                period_ns: 16 * MS,
                mode: schedlab::workload::TimerMode::Absolute,
            },
            Op::LoopEnd,
        ]
    };
    let mut program = period(MS, 20);
    program.extend(period(8 * MS, 10));
    let mut s = sim(&sc, vec![task("p", 0, Policy::Normal, None, program)]);
    s.sched.util_est_log = Some(Vec::new());
    s.run();
    let log = s.sched.util_est_log.take().unwrap();
    let first_long = &log[20];
    (first_long.dequeued, first_long.after & 0x7fff_ffff)
}

#[test]
fn util_est_fastup_is_a_feature_before_v6_8() {
    // v6.5: UTIL_EST_FASTUP (on) resets the EWMA to the higher util; off, it moves 1/4.
    let (util, fast) = ewma_after_growth("6.5", "");
    assert_eq!(fast as u64, util);
    let (util, slow) = ewma_after_growth("6.5", "NO_UTIL_EST_FASTUP");
    assert!((slow as u64) < util, "{slow} vs {util}");
    // v6.8+ always rises at once; the feature is gone.
    let (util, now) = ewma_after_growth("6.8", "");
    assert_eq!(now as u64, util);
}

/// Run lengths of the nice-0 hogs on CPU 0 of smp:1 (HZ 1000) beside `idle` SCHED_IDLE
/// hogs, the first second dropped.
fn normal_runs_beside_idle(kernel: &str, idle: usize) -> Vec<u64> {
    let mut sc = with_kernel(scenario("smp:1", 3), kernel);
    sc.hz = 1000;
    let mut tasks = vec![hog("a", 0, None), hog("b", 0, None)];
    tasks.extend((0..idle).map(|i| task(&format!("i{i}"), 0, Policy::Idle, None, hog_program())));
    let mut s = sim(&sc, tasks);
    let log = run_logging_switches(&mut s);
    log.windows(2)
        .filter(|w| w[0].at >= 1_000 * MS && w[0].next.is_some_and(|p| p < 2))
        .map(|w| w[1].at - w[0].at)
        .collect()
}

#[test]
fn the_ideal_runtime_is_capped_at_sched_latency_from_v6_3() {
    // 2 nice-0 + 30 SCHED_IDLE hogs: sched_period 32 × 0.75 ms = 24 ms, a nice-0 slice
    // 24 ms × 1024 / (2 × 1024 + 30 × 3) ≈ 11.5 ms. "sched/fair: Limit sched slice
    // duration" (79ba1e607d68, v6.3) caps it at sched_latency (6 ms on smp:1); 6.1 has no
    // cap, 6.5 has it.
    // Uncapped, the first 1 ms tick past 11.5 ms preempts; capped, the first past 6 ms
    // (delta_exec must exceed the cap: 6 ms exactly does not).
    let uncapped = normal_runs_beside_idle("6.1", 30);
    assert!(
        uncapped.len() > 100 && uncapped.iter().all(|&d| d == 12 * MS),
        "{:?}",
        &uncapped[..8]
    );
    let capped = normal_runs_beside_idle("6.5", 30);
    assert!(
        capped.len() > 200 && capped.iter().all(|&d| d == 7 * MS),
        "{:?}",
        &capped[..8]
    );
}

/// CPU 1's rq->idle_stamp 1 ms after a task forked at 5 ms lands on it, idle since its
/// pinned task went to sleep at 1 ms (newidle set the stamp; CPU 0 has a pinned hog).
fn idle_stamp_after_fork(kernel: &str) -> u64 {
    let mut sc = with_kernel(scenario("smp:2", 1), kernel);
    sc.hz = 1000;
    let sleeper = task(
        "a",
        0,
        Policy::Normal,
        Some(vec![1]),
        vec![Op::Run { work_ns: MS }, Op::Sleep { ns: 10_000 * MS }],
    );
    let mut forked = hog("n", 0, None);
    forked.delay_ns = 5 * MS;
    let mut s = sim(&sc, vec![hog("h", 0, Some(vec![0])), sleeper, forked]);
    s.advance_clock(6 * MS);
    assert_eq!(s.sched.tasks[2].cpu, 1, "the fork lands on the idle CPU");
    s.sched.rqs[1].lb.idle_stamp
}

#[test]
fn avg_idle_is_updated_by_wakeups_before_v7_and_when_idle_ends_after() {
    // Before 4b603f1551a7 (v7.0) only ttwu_do_activate consumes the idle period
    // (update_avg of rq->avg_idle, idle_stamp = 0) and wake_up_new_task does not: the
    // fork leaves the stamp set at ~1 ms for the next wake-up there.
    let stamp = idle_stamp_after_fork("6.5");
    assert!(stamp > 0 && stamp < 2 * MS, "{stamp}");
    // From v7.0 put_prev_task_idle consumes it whatever ended the idle period.
    assert_eq!(idle_stamp_after_fork("current"), 0);
}

/// smp:1 at HZ 1000 under a CFS kernel: a nice-0 hog `a`, a nice-19 periodic task `l`
/// and a nice-0 periodic task `w` (50 µs every 100 ms on absolute timers, w's 100 µs
/// after l's, both off the tick). Who runs after each switch away from the hog, from the
/// third period on.
fn runs_after_the_hog(kernel: &str) -> Vec<usize> {
    let mut sc = with_kernel(scenario("smp:1", 1), kernel);
    sc.hz = 1000;
    let periodic = |comm: &str, nice: i32, timer: usize, at: u64| {
        let mut t = task(
            comm,
            nice,
            Policy::Normal,
            None,
            periodic_ops(None, 50 * US, 100 * MS, timer),
        );
        t.delay_ns = at;
        t
    };
    let l = periodic("l", 19, 0, 5 * MS + 300 * US);
    let w = periodic("w", 0, 1, 5 * MS + 400 * US);
    let mut s = sim(&sc, vec![hog("a", 0, None), l, w]);
    let log = run_logging_switches(&mut s);
    log.iter()
        .filter(|r| r.at > 200 * MS && r.prev == Some(0))
        .filter_map(|r| r.next)
        .collect()
}

#[test]
fn a_preempting_wakee_is_the_next_buddy_under_cfs() {
    // l wakes first, sleeper-placed 3 ms (sched_latency / 2) left of the hog: its wakeup
    // granularity at nice 19 (1 ms × 1024 / 15 ≈ 68 ms of vruntime) keeps it from
    // preempting. w, placed 100 µs of vruntime right of l, preempts (3 ms > 1 ms), and
    // check_preempt_wakeup marks it the next buddy ("if (!next_buddy_marked)
    // set_next_buddy(pse)", NEXT_BUDDY off): pick_next_entity takes it over the leftmost
    // l, which is within l's granularity of it. Then l runs before the hog again.
    for kernel in ["5.18", "6.1", "6.5"] {
        let next = runs_after_the_hog(kernel);
        assert!(next.len() >= 7, "{kernel}: {next:?}");
        assert!(next.iter().all(|&t| t == 2), "{kernel}: {next:?}");
    }
}

/// EAS's frequency estimate for a domain (eenv_pd_max_util) when CPU 6's root cfs_rq has
/// util 100 and runnable 400, for a task on CPU 0 not placed (dst none), on pixel6.
fn pd_max_util_with_runnable(kernel: &str) -> u64 {
    let mut sc = with_kernel(scenario("pixel6", 1), kernel);
    sc.governor = schedlab::sched::cpufreq_schedutil::Governor::Schedutil;
    let s = sim(&sc, vec![hog("A", 0, Some(vec![0]))]);
    let mut sched = s.sched;
    let cfs = sched.rqs[6].cfs;
    sched.cfs_rqs[cfs].avg.util_avg = 100;
    sched.cfs_rqs[cfs].avg.runnable_avg = 400;
    sched.cfs_rqs[cfs].avg.util_est = 0;
    let eenv = schedlab::sched::energy_model::EnergyEnv {
        cpu_cap: 1024,
        ..Default::default()
    };
    let d = sched.machine.cpus[6].freq_domain;
    sched.eenv_pd_max_util(&eenv, d, 0, None)
}

#[test]
fn eas_reads_runnable_boosting_from_6_5_only() {
    // 6.5 – 6.7: cpu_util(cpu, p, dst, 1) = max(util, runnable) = 400, and FREQUENCY_UTIL
    // has no headroom yet (em_cpu_energy adds it); 6.1: cpu_util_next, plain util.
    assert_eq!(pd_max_util_with_runnable("6.5"), 400);
    assert_eq!(pd_max_util_with_runnable("6.1"), 100);
    assert_eq!(pd_max_util_with_runnable("5.18"), 100);
    // v6.8+: sugov_effective_cpu_perf adds the headroom here: 1.25 · 400.
    assert_eq!(pd_max_util_with_runnable("6.8"), 500);
}

/// compute_energy of the A55 domain with a task (util 50, util_est 80, last on CPU 0)
/// placed on CPU 1, whose root cfs_rq has util 100, on pixel6.
fn a55_energy_with_task_on_cpu1(kernel: &str) -> (u64, u64) {
    let mut sc = with_kernel(scenario("pixel6", 1), kernel);
    sc.governor = schedlab::sched::cpufreq_schedutil::Governor::Schedutil;
    let s = sim(&sc, vec![hog("A", 0, Some(vec![0]))]);
    let mut sched = s.sched;
    let p = 0;
    assert_eq!(sched.tasks[p].cpu, 0);
    let se = sched.tasks[p].se as usize;
    sched.entities[se].avg.util_avg = 50;
    sched.entities[se].avg.util_est = 80;
    sched.entities[se].avg.util_est_enqueued = 80;
    for cpu in 0..4 {
        let cfs = sched.rqs[cpu].cfs;
        let avg = &mut sched.cfs_rqs[cfs].avg;
        (avg.util_avg, avg.runnable_avg, avg.util_est) =
            if cpu == 1 { (100, 100, 0) } else { (0, 0, 0) };
    }
    let d = sched.machine.cpus[1].freq_domain;
    let cap = sched.machine.arch_scale_cpu_capacity(1);
    let mut eenv = schedlab::sched::energy_model::EnergyEnv {
        task_busy_time: sched.eenv_task_busy_time(p, 0),
        pd_busy_time: 0,
        cpu_cap: cap,
        pd_cap: 4 * cap,
    };
    sched.eenv_pd_busy_time(&mut eenv, d, p);
    let top_cost = sched.em[d].last().unwrap().cost;
    (sched.compute_energy(&eenv, d, p, Some(1)), top_cost)
}

#[test]
fn compute_energy_caps_each_cpu_before_v6_0() {
    // On CPU 1 the task runs with 100 + task_util_est 80 = 180, capped at the A55's 124
    // before it is summed (5.18); the energy_env form adds the 80 to the domain's 100
    // instead (6.1). The frequency request saturates in both (150 → 124, the top state).
    let (e518, top) = a55_energy_with_task_on_cpu1("5.18");
    assert_eq!(e518, top * 124);
    let (e61, top61) = a55_energy_with_task_on_cpu1("6.1");
    assert_eq!(top61, top);
    assert_eq!(e61, top * 180);
}

/// CPUs find_energy_efficient_cpu looks at when a task with no utilisation but
/// uclamp.min 125 wakes on pixel6 (prev = this = CPU 0).
fn feec_visits_for_boosted_idle_task(kernel: &str) -> u64 {
    let mut sc = with_kernel(scenario("pixel6", 1), kernel);
    sc.governor = schedlab::sched::cpufreq_schedutil::Governor::Schedutil;
    let mut s = sim(&sc, vec![hog("A", 0, None)]);
    s.sched.set_uclamp(0, Some(125), None);
    assert_eq!(s.sched.task_util_est(0), 0);
    let before = s.sched.placement_visits;
    s.sched
        .select_task_rq_fair(0, 0, schedlab::sched::fair::class::wf::TTWU, 0);
    s.sched.placement_visits - before
}

#[test]
fn feec_skips_a_task_without_utilisation_on_5_18_and_6_1_whatever_its_clamp() {
    // 5.18 / 6.1: `if (!task_util_est(p)) goto unlock;` (prev_cpu); v6.2+ also needs
    // p's uclamp_min to be 0, so the boosted task is placed by energy.
    assert_eq!(feec_visits_for_boosted_idle_task("5.18"), 0);
    assert_eq!(feec_visits_for_boosted_idle_task("6.1"), 0);
    assert!(feec_visits_for_boosted_idle_task("6.6") > 0);
}
