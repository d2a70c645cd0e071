//! Group scheduling (issue 6): cpu.weight splits, cpu.idle groups, cpu.max bandwidth,
//! autogroup, h_load in load balancing, inputs and results.

mod common;

use common::*;
use schedlab::experiment::run::{execute_in_place, prepare};
use schedlab::experiment::RunResult;
use schedlab::experiment::{parse_scenario, Scenario};
use schedlab::sched::fair::group::CgroupSpec;
use schedlab::time::NSEC_PER_SEC;
use schedlab::workload::{Op, Policy, TaskSpec};
use std::path::Path;

fn group(path: &str, weight: u64, tasks: &[&str]) -> CgroupSpec {
    CgroupSpec {
        weight,
        tasks: tasks.iter().map(|s| s.to_string()).collect(),
        ..CgroupSpec::new(path)
    }
}

fn with_groups(machine: &str, secs: u64, groups: Vec<CgroupSpec>) -> Scenario {
    Scenario {
        cgroups: groups,
        ..scenario(machine, secs)
    }
}

fn group_time(r: &RunResult, path: &str) -> u64 {
    r.groups
        .iter()
        .find(|g| g.path == path)
        .unwrap_or_else(|| panic!("no group {path}"))
        .cpu_time_ns
}

fn hogs(prefix: &str, n: usize, nice: i32) -> Vec<TaskSpec> {
    (0..n)
        .map(|i| hog(&format!("{prefix}{i}"), nice, None))
        .collect()
}

#[test]
fn weights_100_and_300_split_one_cpu_1_to_3_whatever_the_task_counts() {
    let sc = with_groups(
        "smp:1",
        10,
        vec![group("/a", 100, &["a*"]), group("/b", 300, &["b*"])],
    );
    let mut tasks = hogs("a", 1, 0);
    tasks.extend(hogs("b", 10, 0));
    let r = run(&sc, tasks);
    let (a, b) = (group_time(&r, "/a"), group_time(&r, "/b"));
    let share = a as f64 / (a + b) as f64;
    println!("weights 100/300, 1 vs 10 hogs: /a {a} ns /b {b} ns → /a share {share:.4}");
    assert!((share - 0.25).abs() < 0.25 * 0.01, "/a share {share}");
    // The group's CPU time is its tasks' CPU time.
    let tasks_b: u64 = r
        .tasks
        .iter()
        .filter(|t| t.comm.starts_with('b'))
        .map(|t| t.cpu_time_ns)
        .sum();
    assert_eq!(tasks_b, b);
    assert_eq!(r.tasks[0].cgroup.as_deref(), Some("/a"));
}

#[test]
fn tasks_inside_a_group_share_by_nice() {
    let sc = with_groups(
        "smp:1",
        10,
        vec![group("/a", 100, &["a*"]), group("/b", 300, &["n*"])],
    );
    let tasks = vec![hog("a0", 0, None), hog("n0", 0, None), hog("n5", 5, None)];
    let r = run(&sc, tasks);
    let ratio = cpu_time(&r, "n0") as f64 / cpu_time(&r, "n5") as f64;
    let want = 1024.0 / 335.0;
    println!("in-group nice 0 / nice 5 = {ratio:.4} (weights: {want:.4})");
    assert!((ratio / want - 1.0).abs() < 0.01, "ratio {ratio}");
    let (a, b) = (group_time(&r, "/a"), group_time(&r, "/b"));
    let share = a as f64 / (a + b) as f64;
    assert!((share - 0.25).abs() < 0.0025, "/a share {share}");
}

#[test]
fn an_idle_group_of_1000_hogs_gets_only_the_idle_weight_share() {
    let mut idle = group("/idle", 100, &["bg*"]);
    idle.idle = true;
    let sc = with_groups("smp:1", 10, vec![idle]);
    let mut tasks = vec![hog("fg", 0, None)];
    tasks.extend(hogs("bg", 1000, 0));
    let wl = workload_of(tasks);
    let mut sim = prepare(&sc, wl).unwrap();
    let r = execute_in_place(&sc, &mut sim, Some(64));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:#?}",
        r.sim.invariant_messages
    );
    let fg = cpu_time(&r, "fg");
    let bg = group_time(&r, "/idle");
    let share = bg as f64 / (fg + bg) as f64;
    let want = 3.0 / (1024.0 + 3.0);
    println!(
        "idle group of 1000 hogs vs one nice-0 task: idle share {share:.5} (3/1027 = {want:.5})"
    );
    assert!(
        (share - want).abs() < 0.01 * want.max(0.1),
        "idle share {share}"
    );
}

/// A task waking `period_ns` after each `work_ns` run.
fn sleeper(comm: &str, work_ns: u64, sleep_ns: u64) -> TaskSpec {
    task(
        comm,
        0,
        Policy::Normal,
        None,
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns },
            Op::Sleep { ns: sleep_ns },
            Op::LoopEnd,
        ],
    )
}

/// Switches from the root hog `fg` to a task of the group at a time that is not a tick:
/// wake-up preemptions.
fn wakeup_preemptions(idle: bool) -> usize {
    // The control is a default-weight group (an idle group's weight does not count).
    let mut g = group("/g", if idle { 1 } else { 100 }, &["w*"]);
    g.idle = idle;
    let sc = with_groups("smp:1", 2, vec![g]);
    let mut tasks = vec![hog("fg", 0, None)];
    tasks.extend((0..20).map(|i| sleeper(&format!("w{i}"), 50 * US, 1_300 * US + i * 7 * US)));
    let mut s = sim(&sc, tasks);
    s.sched.switch_log = Some(Vec::new());
    let r = execute_in_place(&sc, &mut s, Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:#?}",
        r.sim.invariant_messages
    );
    let tick = NSEC_PER_SEC / sc.hz as u64;
    s.sched
        .switch_log
        .as_ref()
        .unwrap()
        .iter()
        .filter(|w| w.prev == Some(0) && w.next.is_some() && w.at % tick != 0)
        .count()
}

#[test]
fn idle_group_tasks_never_preempt_the_non_idle_task_at_wake_up() {
    let control = wakeup_preemptions(false);
    let idle = wakeup_preemptions(true);
    println!(
        "wake-up preemptions of the nice-0 task: default-weight group {control}, idle group {idle}"
    );
    assert!(control > 0, "the control group should preempt at wake-up");
    assert_eq!(idle, 0);
}

#[test]
fn cpu_max_caps_a_group_of_hogs_at_half_a_cpu() {
    let mut g = group("/capped", 100, &["h*"]);
    g.max = Some((50_000_000, 100_000_000));
    let sc = with_groups("smp:2", 10, vec![g]);
    let r = run(&sc, hogs("h", 4, 0));
    let gr = r.groups.iter().find(|g| g.path == "/capped").unwrap();
    let share = gr.cpu_time_ns as f64 / (10 * NSEC_PER_SEC) as f64;
    println!(
        "cpu.max 50000 100000, 4 hogs on 2 CPUs: {share:.4} CPU, nr_periods {}, nr_throttled {}, \
         throttled {} ns, throttle events {}",
        gr.nr_periods, gr.nr_throttled, gr.throttled_time_ns, gr.nr_throttle_events
    );
    assert!((share - 0.5).abs() < 0.005, "share {share}");
    assert!(gr.nr_throttled > 90 && gr.nr_periods >= 99, "{gr:?}");
    assert!(gr.throttled_time_ns > 5 * NSEC_PER_SEC, "{gr:?}");
    assert_eq!(gr.max, "50000 100000");
}

#[test]
fn cpu_max_in_a_nested_group_with_siblings_keeps_invariants() {
    let mut inner = group("/p/q", 200, &["q*"]);
    inner.max = Some((20_000_000, 50_000_000));
    let sc = with_groups(
        "smp:2",
        3,
        vec![group("/p", 100, &["p*"]), inner, group("/r", 50, &["r*"])],
    );
    let mut tasks = hogs("q", 3, 0);
    tasks.extend(hogs("p", 1, 0));
    tasks.extend((0..3).map(|i| sleeper(&format!("r{i}"), 300 * US, 700 * US)));
    let r = run(&sc, tasks);
    let q = r.groups.iter().find(|g| g.path == "/p/q").unwrap();
    let share = q.cpu_time_ns as f64 / (3 * NSEC_PER_SEC) as f64;
    println!("nested cpu.max 20000 50000: {share:.4} CPU");
    assert!((share - 0.4).abs() < 0.01, "share {share}");
}

#[test]
fn autogroup_gives_each_workload_session_an_equal_share() {
    let mut sc = scenario("smp:1", 5);
    sc.workloads = vec![
        "spinner -n 1 --sleep 1us --work 100ms".into(),
        "spinner -n 4 --sleep 1us --work 100ms".into(),
    ];
    sc.autogroup = true;
    let r = schedlab::experiment::run_scenario(&sc).unwrap();
    let (a, b) = (
        group_time(&r, "/autogroup-1"),
        group_time(&r, "/autogroup-2"),
    );
    let share = a as f64 / (a + b) as f64;
    println!("autogroup: session 1 (1 task) {share:.4} vs session 2 (4 tasks)");
    assert!((share - 0.5).abs() < 0.01, "share {share}");
    assert!(r.groups.iter().all(|g| g.autogroup));
}

#[test]
fn load_balancing_moves_tasks_by_h_load() {
    // One heavy-weight task in /a and eight tasks in /b, all starting on CPU 0 of two:
    // by h_load the /a task weighs as much as all of /b, so the balancer splits the
    // groups, and each group gets one CPU.
    let sc = with_groups(
        "smp:2",
        10,
        vec![group("/a", 100, &["a*"]), group("/b", 100, &["b*"])],
    );
    let mut tasks: Vec<TaskSpec> = hogs("a", 1, 0);
    tasks.extend(hogs("b", 8, 0));
    let mut s = sim(&sc, tasks);
    s.run_until(2 * NSEC_PER_SEC);
    let sched = &s.sched;
    let a = sched.task_h_load(0);
    let b: Vec<u64> = (1..9).map(|p| sched.task_h_load(p)).collect();
    let b_cpu: Vec<usize> = (1..9).map(|p| sched.tasks[p].cpu).collect();
    println!(
        "after 2 s: task_h_load /a {a}, /b {b:?}; /a on cpu {}, /b on {b_cpu:?}",
        sched.tasks[0].cpu
    );
    // h_load, not load_avg: a /b task weighs a share of its group entity.
    for (p, &h) in b.iter().enumerate() {
        let la = sched.entities[sched.tasks[p + 1].se as usize].avg.load_avg;
        assert!(h < la / 2, "task {} h_load {h} vs load_avg {la}", p + 1);
    }
    let r = execute_in_place(&sc, &mut s, Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:#?}",
        r.sim.invariant_messages
    );
    let (ga, gb) = (group_time(&r, "/a"), group_time(&r, "/b"));
    let share = ga as f64 / (ga + gb) as f64;
    println!(
        "group shares over 10 s: /a {share:.4}, /b {:.4}",
        1.0 - share
    );
    assert!((share - 0.5).abs() < 0.05, "/a share {share}");
}

#[test]
fn same_seed_same_json_with_groups() {
    let sc = with_groups(
        "smp:4",
        2,
        vec![group("/a", 100, &["a*"]), group("/b", 700, &["b*"])],
    );
    let mk = || {
        let mut t = hogs("a", 3, 0);
        t.extend((0..6).map(|i| sleeper(&format!("b{i}"), 400 * US, 900 * US)));
        t
    };
    let strip = |r: RunResult| {
        let mut v = serde_json::to_value(&r).unwrap();
        v["sim"]["wall_s"] = serde_json::Value::Null;
        serde_json::to_string(&v).unwrap()
    };
    assert_eq!(strip(run(&sc, mk())), strip(run(&sc, mk())));
}

#[test]
fn an_empty_cgroups_table_leaves_a_flat_run_unchanged() {
    let base = "machine = \"smp:2\"\nduration = \"1s\"\nworkloads = [\"spinner -n 3 --sleep 2ms --work 3ms\"]\n";
    let flat = parse_scenario(base, "flat.toml", Path::new(".")).unwrap();
    let empty =
        parse_scenario(&format!("{base}[cgroups]\n"), "empty.toml", Path::new(".")).unwrap();
    let json = |sc: &Scenario| {
        let r = schedlab::experiment::run_scenario(sc).unwrap();
        let mut v = serde_json::to_value(&r).unwrap();
        v["sim"]["wall_s"] = serde_json::Value::Null;
        serde_json::to_string(&v).unwrap()
    };
    let (a, b) = (json(&flat), json(&empty));
    assert_eq!(a, b);
    assert!(!a.contains("\"groups\"") && !a.contains("\"cgroup\""));
}

#[test]
fn scenario_cgroups_parse_and_bad_input_is_explained() {
    let ok = "[cgroups.\"/top-app\"]\nweight = 300\nmax = \"50000 100000\"\nuclamp_min = 50\ntasks = [\"x*\"]\n[cgroups.\"/top-app/ui\"]\nidle = true\n";
    let sc = parse_scenario(ok, "s.toml", Path::new(".")).unwrap();
    assert_eq!(sc.cgroups.len(), 2);
    assert_eq!(sc.cgroups[0].max, Some((50_000_000, 100_000_000)));
    assert_eq!(sc.cgroups[0].uclamp, [512, 1024]);
    assert!(sc.cgroups[1].idle);
    let err = |text: &str| parse_scenario(text, "s.toml", Path::new(".")).unwrap_err();
    let e = err("[cgroups.\"/a\"]\nweight = 20000\n");
    assert!(
        e.origin.contains("cgroups.\"/a\".weight") && e.fix.is_some(),
        "{e}"
    );
    let e = err("[cgroups.\"/a\"]\nmax = \"fast\"\n");
    assert!(
        e.message.contains("malformed cpu.max") && e.fix.is_some(),
        "{e}"
    );
    let e = err("[cgroups.\"/a/b\"]\n");
    assert!(e.message.contains("parent"), "{e}");
    let e = err("[cgroups.\"/a\"]\nshares = 3\n");
    assert!(e.message.contains("unknown cgroup key"), "{e}");
    // A glob that matches nothing, at prepare time.
    let mut sc = with_groups("smp:1", 1, vec![group("/a", 100, &["nope*"])]);
    sc.workloads = vec!["spinner -n 1".into()];
    let e = schedlab::experiment::run_scenario(&sc).unwrap_err();
    assert!(e.message.contains("matches no task"), "{e}");
}

#[test]
fn text_traces_carry_the_group_path() {
    let sc = with_groups("smp:1", 1, vec![group("/bg", 50, &["b*"])]);
    let path = std::env::temp_dir().join(format!("schedlab-cg-{}.txt", std::process::id()));
    let cfg = schedlab::trace::TraceConfig::new(&path).unwrap();
    let mut sim = prepare(
        &sc,
        workload_of(vec![hog("b0", 0, None), hog("f0", 0, None)]),
    )
    .unwrap();
    schedlab::experiment::trace_run::run_sim_traced(&sc, &mut sim, &cfg, Some(1)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        text.contains("# cgroup: pid=1000 comm=b0 path=/bg"),
        "{}",
        &text[..400]
    );
    assert!(text.contains("# cgroup: pid=1001 comm=f0 path=/\n"));
}

/// The gaps between successive pushes of group /g's cfs_rq load into tg->load_avg
/// (update_tg_load_avg) under `kernel`: one task in /g on smp:1 (HZ 1000) running 1 ms
/// then sleeping 30 ms, beside a hog, watched every 10 µs for 2 s (two pushes within
/// one step show as one, so a gap seen is never shorter than the true one).
fn tg_load_avg_push_gaps(kernel: &str) -> Vec<u64> {
    let mut sc = with_groups("smp:1", 2, vec![group("/g", 100, &["p"])]);
    sc.kernel = Some(kernel_version(kernel));
    sc.hz = 1000;
    let worker = task(
        "p",
        0,
        Policy::Normal,
        None,
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: MS },
            Op::Sleep { ns: 30 * MS },
            Op::LoopEnd,
        ],
    );
    let mut s = sim(&sc, vec![worker, hog("h", 0, None)]);
    let g = s.sched.groups.iter().position(|g| g.path == "/g").unwrap();
    let cfs = s.sched.groups[g].cfs_rq[0];
    let (mut pushes, mut last) = (Vec::new(), 0);
    for step in 1..=200_000 {
        s.advance_clock(step * 10 * US);
        let at = s.sched.cfs_rqs[cfs].grp.last_update_tg_load_avg;
        if at != last {
            pushes.push(at);
            last = at;
        }
    }
    pushes.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn tg_load_avg_is_pushed_at_most_once_a_millisecond_from_v6_7() {
    // "sched/fair: Ratelimit update to tg->load_avg" (1528c661c24b, v6.7).
    let limited = tg_load_avg_push_gaps("6.8");
    assert!(limited.len() > 100, "{}", limited.len());
    assert!(limited.iter().all(|&g| g >= MS), "{limited:?}");
    // Before it, every update past the 1/64 filter pushes: the wake-up's enqueue, a tick
    // or the dequeue soon after, each in a new 1024 µs PELT period.
    let unlimited = tg_load_avg_push_gaps("6.6");
    assert!(unlimited.len() > limited.len() + 30, "{}", unlimited.len());
    assert!(unlimited.iter().any(|&g| g < MS / 2), "{unlimited:?}");
}

/// The weight of group /g's entity on CPU 1 of smp:2 under `kernel`, 1 s in, while its
/// only task there sleeps: /g holds a hog pinned to CPU 0 and a task pinned to CPU 1
/// that runs 100 µs every 10 ms (so its load_avg is small beside its 1024 weight).
fn empty_group_entity_weight(kernel: &str) -> u64 {
    let mut sc = with_groups("smp:2", 2, vec![group("/g", 100, &["*"])]);
    sc.kernel = Some(kernel_version(kernel));
    let sleeper = task(
        "s",
        0,
        Policy::Normal,
        Some(vec![1]),
        vec![
            Op::LoopBegin { count: None },
            Op::Run { work_ns: 100 * US },
            Op::Sleep { ns: 10 * MS },
            Op::LoopEnd,
        ],
    );
    let mut s = sim(&sc, vec![hog("h", 0, Some(vec![0])), sleeper]);
    s.advance_clock(NSEC_PER_SEC + 5 * MS);
    assert_eq!(s.sched.rqs[1].nr_running, 0, "the sleeper sleeps");
    let g = s.sched.groups.iter().position(|g| g.path == "/g").unwrap();
    let se = s.sched.groups[g].se[1].unwrap();
    s.sched.entities[se as usize].load.weight
}

#[test]
fn an_emptied_group_keeps_its_weight_only_from_the_delay_dequeue_fix() {
    // Before "sched/fair: Fix update_cfs_group() vs DELAY_DEQUEUE" (Jan 2025) the dequeue
    // reweights the empty group's entity by its decayed load_avg alone: a few % of the
    // group's shares. After it the entity keeps the weight it had while runnable, when
    // its cfs_rq's load counted the task's full weight (about half the shares).
    let old = empty_group_entity_weight("6.8");
    let new = empty_group_entity_weight("6.18");
    assert!(old < 100 << 10, "{old}");
    assert!(new > 400 << 10, "{new}");
}

/// A group's entity is attached to its parent when the group goes online
/// (online_fair_sched_group → attach_entity_cfs_rq), so its first enqueue only propagates
/// the new task's load into it: on an otherwise empty CPU the root cfs_rq then carries
/// exactly the group entity's load_avg (the new task's full weight, 1024), not that plus a
/// second attach of the same load (2048, as a lazy attach at that enqueue gave).
#[test]
fn a_groups_first_enqueue_adds_its_load_to_the_root_once() {
    let sc = with_groups("smp:1", 1, vec![group("/g", 100, &["g*"])]);
    let mut s = sim(&sc, vec![hog("g0", 0, None).delay(10 * MS)]);
    s.run_until(10 * MS);
    let root = s.sched.rqs[0].cfs;
    let gse = s.sched.groups[1].se[0].expect("the group's entity on CPU 0");
    let se_load = s.sched.entities[gse as usize].avg.load_avg;
    assert_eq!(se_load, 1024);
    assert_eq!(s.sched.cfs_rqs[root].avg.load_avg, se_load);
}
