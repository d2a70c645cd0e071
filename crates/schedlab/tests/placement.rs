//! Wake-up placement, branch by branch (docs/model.md, Wake-up, fork and exec placement):
//! each test builds a machine state with pinned hogs, then asks the placement functions
//! directly.

mod common;

use common::*;
use schedlab::sched::features::Feature;
use schedlab::sched::{TaskId, TaskState};
use schedlab::simulation::Simulation;
use schedlab::workload::{Op, Policy, TaskSpec};

const SLEEPER: &str = "probe";

fn sleeper(cpu: usize, policy: Policy) -> TaskSpec {
    task(
        SLEEPER,
        0,
        policy,
        Some(vec![cpu]),
        vec![Op::Sleep { ns: 1_000_000 * MS }],
    )
}

fn pinned_hog(cpu: usize, policy: Policy) -> TaskSpec {
    task("hog", 0, policy, Some(vec![cpu]), hog_program())
}

/// A machine with hogs on `busy` CPUs and a sleeping probe whose prev CPU is `prev`,
/// 50 ms in; the probe is then allowed everywhere.
fn state(machine: &str, busy: &[usize], prev: usize, features: &[&str]) -> (Simulation, TaskId) {
    state_with(
        machine,
        busy,
        Policy::Normal,
        prev,
        Policy::Normal,
        features,
    )
}

fn state_with(
    machine: &str,
    busy: &[usize],
    hog_policy: Policy,
    prev: usize,
    probe_policy: Policy,
    features: &[&str],
) -> (Simulation, TaskId) {
    state_on(
        machine,
        None,
        busy,
        hog_policy,
        prev,
        probe_policy,
        features,
    )
}

/// `state_with` on kernel `kernel` (None: today's model).
fn state_on(
    machine: &str,
    kernel: Option<&str>,
    busy: &[usize],
    hog_policy: Policy,
    prev: usize,
    probe_policy: Policy,
    features: &[&str],
) -> (Simulation, TaskId) {
    let mut sc = scenario(machine, 1);
    sc.kernel = kernel.map(kernel_version);
    sc.features = features.join(" ");
    let mut tasks = vec![sleeper(prev, probe_policy)];
    tasks.extend(busy.iter().map(|&c| pinned_hog(c, hog_policy)));
    let mut s = sim(&sc, tasks);
    s.run_until(50 * MS);
    let n = s.sched.machine.nr_cpus();
    let p = 0;
    s.sched.tasks[p].cpus_allowed = vec![true; n].into();
    s.sched.tasks[p].nr_cpus_allowed = n;
    assert_eq!(s.sched.tasks[p].cpu, prev);
    (s, p)
}

/// Give every LLC the SIS_UTIL budget of an idle LLC (as the first periodic balance at
/// the LLC level would write it for an idle machine).
fn open_scan_budget(s: &mut Simulation) {
    for sh in &mut s.sched.sd.shared {
        sh.nr_idle_scan = 64;
    }
}

#[test]
fn idle_target_is_taken() {
    let (mut s, p) = state("smp:4", &[], 0, &[]);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 2);
}

#[test]
fn busy_target_falls_back_to_idle_prev_in_the_llc() {
    let (mut s, p) = state("smp:4", &[2], 0, &[]);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 0);
}

#[test]
fn recent_used_cpu_is_tried_and_swapped_for_prev() {
    let (mut s, p) = state("smp:4", &[0, 2], 0, &[]);
    s.sched.tasks[p].recent_used_cpu = 3;
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 3);
    assert_eq!(
        s.sched.tasks[p].recent_used_cpu, 0,
        "recent_used_cpu := prev"
    );
}

#[test]
fn llc_scan_needs_a_sis_util_budget() {
    // target 2 and prev 0 busy, recent = prev: only a scan finds CPU 3 (then 1).
    let (mut s, p) = state("smp:4", &[0, 2], 0, &[]);
    s.sched.tasks[p].recent_used_cpu = 0;
    // nr_idle_scan is zero until a periodic balance writes it: no scan at all.
    for sh in &mut s.sched.sd.shared {
        sh.nr_idle_scan = 0;
    }
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 2);
    open_scan_budget(&mut s);
    assert_eq!(
        s.sched.select_idle_sibling(p, 0, 2),
        3,
        "scan wraps from target + 1"
    );
    // A budget of n visits n CPUs (nr = n + 1, decremented before each visit).
    let (mut s2, p2) = state("smp:4", &[0, 2, 3], 0, &[]);
    s2.sched.tasks[p2].recent_used_cpu = 0;
    for sh in &mut s2.sched.sd.shared {
        sh.nr_idle_scan = 1;
    }
    assert_eq!(
        s2.sched.select_idle_sibling(p2, 0, 2),
        2,
        "budget spent before CPU 1"
    );
    // Budget 2 visits CPUs 3 and 0; budget 3 reaches CPU 1.
    for sh in &mut s2.sched.sd.shared {
        sh.nr_idle_scan = 2;
    }
    assert_eq!(s2.sched.select_idle_sibling(p2, 0, 2), 2);
    for sh in &mut s2.sched.sd.shared {
        sh.nr_idle_scan = 3;
    }
    assert_eq!(s2.sched.select_idle_sibling(p2, 0, 2), 1);
}

#[test]
fn sched_idle_cpu_counts_as_idle_only_for_a_normal_wakee() {
    let (mut s, p) = state_with("smp:4", &[0, 1, 2, 3], Policy::Idle, 0, Policy::Normal, &[]);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 2);
    let (mut s, p) = state_with("smp:4", &[0, 1, 2, 3], Policy::Idle, 0, Policy::Idle, &[]);
    s.sched.tasks[p].recent_used_cpu = 0;
    open_scan_budget(&mut s);
    // Nothing is idle for a SCHED_IDLE wakee: the scan fails and target stays.
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 2);
}

/// (first, second) thread of each core of an SMT2 machine, from the model's SMT masks.
fn cores(s: &Simulation) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = s.sched.smt_mask.iter().map(|m| (m[0], m[1])).collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn idle_core_is_preferred_over_an_idle_thread_of_a_busy_core() {
    // smt:4x2, target core and prev core half busy; one whole core idle.
    let (probe_s, _) = state("smt:4x2", &[], 0, &[]);
    let c = cores(&probe_s);
    let busy = [c[0].0, c[1].0, c[2].0];
    let (mut s, p) = state("smt:4x2", &busy, c[0].0, &[]);
    let target = c[1].0;
    s.sched.tasks[p].recent_used_cpu = c[0].0;
    // The idle-core hint is set when a CPU goes idle with its whole core idle; force it
    // as the start of the run left it.
    s.sched.set_idle_cores(target, true);
    open_scan_budget(&mut s);
    let got = s.sched.select_idle_sibling(p, c[0].0, target);
    assert!(
        got == c[3].0 || got == c[3].1,
        "whole idle core {:?}, got {got}",
        c[3]
    );
    // Without the hint, prev's idle sibling is taken first (select_idle_smt).
    s.sched.set_idle_cores(target, false);
    assert_eq!(s.sched.select_idle_sibling(p, c[0].0, target), c[0].1);
}

#[test]
fn failed_core_search_clears_the_idle_core_hint() {
    let (probe_s, _) = state("smt:4x2", &[], 0, &[]);
    let c = cores(&probe_s);
    let busy = [c[0].0, c[1].0, c[2].0, c[3].0];
    let (mut s, p) = state("smt:4x2", &busy, c[0].0, &[]);
    s.sched.set_idle_cores(c[1].0, true);
    open_scan_budget(&mut s);
    s.sched.tasks[p].recent_used_cpu = c[0].0;
    // No whole core is idle: the fallback thread is taken and the hint cleared.
    let got = s.sched.select_idle_sibling(p, c[0].0, c[1].0);
    assert!(s.sched.available_idle_cpu(got), "got busy {got}");
    assert!(!s.sched.test_idle_cores(c[1].0));
}

#[test]
fn util_fits_capacity_accepts_a_busy_target_with_room() {
    // A light hog-free busy target: a periodic 1 ms / 10 ms task pinned on CPU 2.
    let mut sc = scenario("smp:4", 1);
    let light = task(
        "light",
        0,
        Policy::Normal,
        Some(vec![2]),
        periodic_ops(None, 2 * MS, 10 * MS, 0),
    );
    let mut run_at = |features: &[&str]| {
        sc.features = features.join(" ");
        let mut s = sim(
            &sc,
            vec![
                sleeper(0, Policy::Normal),
                light.clone(),
                pinned_hog(0, Policy::Normal),
            ],
        );
        // Stop while the light task (util ≈ 20%) is running, 1 ms into a period.
        s.run_until(501 * MS);
        // A light wakee: util 50 (a fresh task would start at half the CPU's spare).
        let se = s.sched.tasks[0].se as usize;
        s.sched.entities[se].avg.util_avg = 50;
        s.sched.tasks[0].cpus_allowed = vec![true; 4].into();
        s.sched.tasks[0].nr_cpus_allowed = 4;
        s.sched.tasks[0].recent_used_cpu = 0;
        open_scan_budget(&mut s);
        assert!(!s.sched.available_idle_cpu(2), "target busy");
        s.sched.select_idle_sibling(0, 0, 2)
    };
    assert_ne!(run_at(&[]), 2, "idle-only: scan elsewhere");
    assert_eq!(run_at(&["UTIL_FITS_CAPACITY"]), 2, "room on target");
    // prev's hog never sleeps, so its util_est (updated at dequeue) stays 0 and the RFC's
    // check finds "room" there too — with SELECT_BIAS_PREV, prev is asked first.
    assert_eq!(run_at(&["UTIL_FITS_CAPACITY", "SELECT_BIAS_PREV"]), 0);
}

#[test]
fn util_fits_capacity_v1_and_v2_margins() {
    let (mut s, p) = state("smp:4", &[], 0, &["UTIL_FITS_CAPACITY"]);
    // v2: 20% margin on capacity_of → 819 fits, 820 does not (on an empty CPU).
    assert!(s.sched.task_fits_remaining_cpu_capacity(819, 1));
    assert!(!s.sched.task_fits_remaining_cpu_capacity(820, 1));
    s.sched.features.set(Feature::UTIL_FITS_CAPACITY_V1, true);
    // v1: no margin against capacity − pressure.
    assert!(s.sched.task_fits_remaining_cpu_capacity(1024, 1));
    assert!(!s.sched.task_fits_remaining_cpu_capacity(1025, 1));
    s.sched.features.set(Feature::UTIL_FITS_CAPACITY, false);
    assert!(
        !s.sched.task_fits_remaining_cpu_capacity(0, 1),
        "off: never"
    );
    let _ = p;
}

#[test]
fn select_bias_prev_prefers_prev_and_falls_back_to_it() {
    // Both idle: target normally wins; with SELECT_BIAS_PREV prev does.
    let (mut s, p) = state("smp:4", &[], 0, &[]);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 2);
    let (mut s, p) = state("smp:4", &[], 0, &["SELECT_BIAS_PREV"]);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 0);
    // All busy and the scan fails: target normally, prev with SELECT_BIAS_PREV.
    let (mut s, p) = state("smp:4", &[0, 1, 2, 3], 0, &[]);
    open_scan_budget(&mut s);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 2);
    let (mut s, p) = state("smp:4", &[0, 1, 2, 3], 0, &["SELECT_BIAS_PREV"]);
    open_scan_budget(&mut s);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 2), 0);
}

#[test]
fn asym_capacity_scan_places_by_fit() {
    // pixel6: CPUs 0-3 little (124), 4-5 mid (427), 6-7 big (1024); all idle.
    let (mut s, p) = state("pixel6", &[], 0, &[]);
    open_scan_budget(&mut s);
    // A fresh sleeper has a small util: a little target fits.
    assert!(s.sched.task_util_est(p) < 99);
    assert_eq!(s.sched.select_idle_sibling(p, 0, 1), 1);
    // Make the task look big (util_avg 600): only the big CPUs fit; the scan from the
    // little target finds the first big one.
    let se = s.sched.tasks[p].se as usize;
    s.sched.entities[se].avg.util_avg = 600;
    let got = s.sched.select_idle_sibling(p, 0, 1);
    assert!(got == 6 || got == 7, "big CPU, got {got}");
}

/// pixel6 on `kernel`, all idle, the probe last on CPU 0 with util `util` and the given
/// uclamps.
fn pixel6_probe(
    kernel: &str,
    util: u64,
    min: Option<u32>,
    max: Option<u32>,
) -> (Simulation, TaskId) {
    let (mut s, p) = state_on(
        "pixel6",
        Some(kernel),
        &[],
        Policy::Normal,
        0,
        Policy::Normal,
        &[],
    );
    open_scan_budget(&mut s);
    if min.is_some() || max.is_some() {
        s.sched.set_uclamp(p, min, max);
    }
    let se = s.sched.tasks[p].se as usize;
    s.sched.entities[se].avg.util_avg = util;
    (s, p)
}

/// Where select_idle_sibling puts `pixel6_probe` with `target`.
fn asym_pick(kernel: &str, util: u64, uclamp_max: Option<u32>, target: usize) -> usize {
    let (mut s, p) = pixel6_probe(kernel, util, None, uclamp_max);
    s.sched.select_idle_sibling(p, 0, target)
}

#[test]
fn asym_capacity_scan_by_version() {
    // A task too big for any CPU (util 1000 > 80 % of 1024): the idle CPU of the largest
    // capacity, the first the scan meets. The scan starts at the target (big CPU 6) but on
    // 6.5, which starts at target + 1 (CPU 7; 7ee7642c9141, v6.6, went back).
    assert_eq!(asym_pick("current", 1000, None, 6), 6);
    assert_eq!(asym_pick("6.6", 1000, None, 6), 6);
    assert_eq!(asym_pick("6.1", 1000, None, 6), 6);
    assert_eq!(asym_pick("6.5", 1000, None, 6), 7);
    // util 200 capped at uclamp.max 100: util_fits_cpu (v6.2+) lets the cap make a little
    // CPU fit, so the idle little target stays; 5.18 / 6.1 test fits_capacity(clamped 100,
    // 124), which fails, and the scan from the target takes the first mid CPU.
    assert_eq!(asym_pick("6.6", 200, Some(100), 1), 1);
    assert_eq!(asym_pick("6.1", 200, Some(100), 1), 4);
    assert_eq!(asym_pick("5.18", 200, Some(100), 1), 4);
}

#[test]
fn task_fits_cpu_by_version() {
    // util 100 with uclamp.min 350 on a mid CPU (427): util_fits_cpu (v6.2+) lets the
    // util fit and the floor fit the CPU's capacity; 5.18 / 6.1 test fits_capacity(350,
    // 427), which fails (350 · 1280 > 427 · 1024): a misfit there.
    for (kernel, fits) in [
        ("6.6", true),
        ("current", true),
        ("6.1", false),
        ("5.18", false),
    ] {
        let (s, p) = pixel6_probe(kernel, 100, Some(350), None);
        assert_eq!(s.sched.task_fits_cpu(p, 4), fits, "{kernel}");
    }
}

#[test]
fn fork_slow_path_spreads_over_idle_cpus() {
    // 8 tasks forked from CPU 0 of smp:8 start on 8 different CPUs.
    let sc = scenario("smp:8", 1);
    let tasks: Vec<TaskSpec> = (0..8).map(|i| hog(&format!("h{i}"), 0, None)).collect();
    let mut s = sim(&sc, tasks);
    s.run_until(MS);
    let mut cpus: Vec<usize> = s.sched.tasks.iter().map(|t| t.cpu).collect();
    cpus.sort();
    assert_eq!(cpus, (0..8).collect::<Vec<_>>());
}

#[test]
fn fork_slow_path_spreads_over_llcs_first() {
    // epyc-9654-2s: 16-CPU LLCs. 8 forks from CPU 0 land in 8 different LLCs.
    let sc = scenario("epyc-9654-2s", 1);
    let tasks: Vec<TaskSpec> = (0..8).map(|i| hog(&format!("h{i}"), 0, None)).collect();
    let mut s = sim(&sc, tasks);
    s.run_until(MS);
    let mut llcs: Vec<usize> = s
        .sched
        .tasks
        .iter()
        .map(|t| s.sched.machine.cpus[t.cpu].llc)
        .collect();
    llcs.sort();
    llcs.dedup();
    assert_eq!(llcs.len(), 8, "{llcs:?}");
}

#[test]
fn pinned_wakeups_never_leave_their_cpu() {
    let sc = scenario("smp:4", 1);
    let tasks = vec![
        task(
            "pinned",
            0,
            Policy::Normal,
            Some(vec![1]),
            periodic_ops(None, MS, 3 * MS, 0),
        ),
        pinned_hog(1, Policy::Normal),
    ];
    let r = run(&sc, tasks);
    assert_eq!(r.tasks[0].nr_migrations, 0);
}

/// 8 cores in one LLC, clusters of 4 (CLS level): hogs on `busy`, the probe last on `prev`.
fn cluster_state(busy: &[usize], prev: usize) -> (Simulation, TaskId) {
    use schedlab::experiment::run::prepare_on;
    let mut shape = schedlab::machine::build::Shape::flat("cls8", 8, 1);
    shape.cores_per_cluster = 4;
    let sc = scenario("smp:8", 1);
    let mut tasks = vec![sleeper(prev, Policy::Normal)];
    tasks.extend(busy.iter().map(|&c| pinned_hog(c, Policy::Normal)));
    let mut s = prepare_on(&sc, shape.build(), workload_of(tasks)).unwrap();
    s.set_invariant_every(1);
    s.run_until(50 * MS);
    s.sched.tasks[0].cpus_allowed = vec![true; 8].into();
    s.sched.tasks[0].nr_cpus_allowed = 8;
    assert!(s.sched.sd.sched_cluster_active);
    (s, 0)
}

#[test]
fn clusters_prefer_the_targets_cluster_over_an_idle_prev() {
    // prev (5, other cluster) idle, target (1) busy: prev is only a late candidate; the
    // scan looks in target's cluster first and finds 2.
    let (mut s, p) = cluster_state(&[0, 1], 5);
    s.sched.tasks[p].recent_used_cpu = 5;
    open_scan_budget(&mut s);
    assert_eq!(s.sched.select_idle_sibling(p, 5, 1), 2);
    // Target's cluster all busy: the scan goes on from target + 1 and reaches prev's
    // cluster; with no scan budget, prev comes back as the late candidate.
    let (mut s, p) = cluster_state(&[0, 1, 2, 3, 4, 6, 7], 5);
    s.sched.tasks[p].recent_used_cpu = 5;
    for sh in &mut s.sched.sd.shared {
        sh.nr_idle_scan = 0;
    }
    assert_eq!(s.sched.select_idle_sibling(p, 5, 1), 5);
    // Same cluster: prev returns at once.
    let (mut s, p) = cluster_state(&[1], 2);
    assert_eq!(s.sched.select_idle_sibling(p, 2, 1), 2);
}

/// sched_fork sets a new thread's CPU to its creator's: fork placement (find_idlest_cpu)
/// starts from there. A task `created_by` a hog pinned to CPU 3 starts when the hog's
/// `Op::Create` runs (after its 1 ms of pthread_create work) and records CPU 3 as the CPU
/// it was forked on (wake_up_new_task's recent_used_cpu); its own delay does not start it.
/// Without a creator it starts at its delay from its first allowed CPU, 0.
#[test]
fn a_created_thread_is_forked_on_its_creators_cpu() {
    // (creator, CPU forked on, still unstarted at, started by): the created child starts
    // once the creator has run its 1 ms (plus its switch-in), long before its 5 ms delay.
    for (creator, forked_on, unstarted, started) in
        [(Some(0), 3, MS - 1, 2 * MS), (None, 0, 5 * MS - 1, 5 * MS)]
    {
        let mut child = hog("child", 0, None).delay(5 * MS);
        let mut creator_prog = hog_program();
        if let Some(c) = creator {
            child = child.created_by(c);
            creator_prog.splice(0..0, [Op::Run { work_ns: MS }, Op::Create { task: 1 }]);
        }
        let sc = scenario("smp:4", 1);
        let parent = task("creator", 0, Policy::Normal, Some(vec![3]), creator_prog);
        let mut s = sim(&sc, vec![parent, child]);
        s.run_until(unstarted);
        assert_eq!(
            s.sched.tasks[1].state,
            TaskState::New,
            "creator {creator:?}"
        );
        s.run_until(started);
        assert_ne!(
            s.sched.tasks[1].state,
            TaskState::New,
            "creator {creator:?}"
        );
        assert_eq!(
            s.sched.tasks[1].recent_used_cpu, forked_on,
            "creator {creator:?}"
        );
        s.run_until(10 * MS);
        assert_eq!(s.sched.invariant_violations, 0);
    }
}

/// A created task must be created once by its creator's program; a Create of a task that
/// names another creator is refused when the simulation is built.
#[test]
fn a_create_must_match_its_tasks_creator() {
    let sc = scenario("smp:2", 1);
    let mut creator_prog = hog_program();
    creator_prog.insert(0, Op::Create { task: 1 });
    for (child, want) in [
        (hog("child", 0, None), "does not name it as its creator"),
        (
            hog("child", 0, None).created_by(1),
            "does not name it as its creator",
        ),
    ] {
        let parent = task("creator", 0, Policy::Normal, None, creator_prog.clone());
        let err = try_sim(&sc, vec![parent, child]);
        assert!(err.contains(want), "{err}");
    }
    let parent = task("creator", 0, Policy::Normal, None, hog_program());
    let err = try_sim(&sc, vec![parent, hog("child", 0, None).created_by(0)]);
    assert!(err.contains("created 0 times"), "{err}");
}

/// The error building a simulation of `tasks` gives (the test fails if it builds).
fn try_sim(sc: &schedlab::experiment::Scenario, tasks: Vec<TaskSpec>) -> String {
    match schedlab::experiment::run::prepare(sc, workload_of(tasks)) {
        Ok(_) => panic!("the workload was accepted"),
        Err(e) => e.to_string(),
    }
}
