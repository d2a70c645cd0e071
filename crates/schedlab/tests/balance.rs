//! Load balancing (docs/model.md, Load balancing): spreading, SMT cores, misfit migration,
//! affinity, PRIO_LB (seed 002).

mod common;

use common::*;
use schedlab::experiment::Scenario;
use schedlab::simulation::Simulation;
use schedlab::workload::{Op, Policy, SchedChange, TaskSpec};

/// A hog created on `cpu` only, which then opens its affinity to every CPU: the
/// balancer alone decides where it goes.
fn hog_from(comm: &str, cpu: usize, nr_cpus: usize) -> TaskSpec {
    let mut program = vec![Op::SetSched(Box::new(SchedChange {
        cpus: Some((0..nr_cpus).collect()),
        ..Default::default()
    }))];
    program.extend(hog_program());
    task(comm, 0, Policy::Normal, Some(vec![cpu]), program)
}

/// CPU of every task at the current simulated time.
fn cpus_of(s: &Simulation) -> Vec<usize> {
    s.sched.tasks.iter().map(|t| t.cpu).collect()
}

fn distinct(v: &[usize]) -> usize {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len()
}

fn assert_clean(s: &Simulation) {
    assert_eq!(
        s.sched.invariant_violations, 0,
        "invariant violations: {:#?}",
        s.sched.invariant_messages
    );
}

#[test]
fn eight_hogs_on_cpu0_spread_one_per_cpu_on_smp8() {
    let sc = scenario("smp:8", 1);
    let tasks = (0..8).map(|i| hog_from(&format!("hog{i}"), 0, 8)).collect();
    let mut s = sim(&sc, tasks);
    s.advance_clock(100 * MS);
    let cpus = cpus_of(&s);
    assert_eq!(
        distinct(&cpus),
        8,
        "8 hogs started on CPU 0 of smp:8 must sit one per CPU after 100 ms simulated; CPUs: {cpus:?}"
    );
    assert_clean(&s);
}

#[test]
fn spread_is_stable_after_it_settles() {
    // Once spread (by 100 ms), the hogs stay put: the next 900 ms see no migration.
    let sc = scenario("smp:8", 1);
    let tasks = (0..8).map(|i| hog_from(&format!("hog{i}"), 0, 8)).collect();
    let mut s = sim(&sc, tasks);
    s.advance_clock(100 * MS);
    let at_100: Vec<u64> = s.sched.tasks.iter().map(|t| t.nr_migrations).collect();
    let cpus = cpus_of(&s);
    s.advance_clock(1000 * MS);
    let at_1000: Vec<u64> = s.sched.tasks.iter().map(|t| t.nr_migrations).collect();
    assert_eq!(
        cpus_of(&s),
        cpus,
        "placement changed between 100 ms and 1 s simulated"
    );
    assert_eq!(
        at_100, at_1000,
        "migrations between 100 ms and 1 s simulated"
    );
    assert_clean(&s);
}

#[test]
fn four_hogs_on_smt_4x2_end_on_four_cores() {
    // smt:4x2: 4 cores × 2 threads. Started on CPU 0, the hogs must end one per core
    // (SMT siblings share a core's throughput) within 200 ms simulated.
    let sc = scenario("smt:4x2", 1);
    let tasks = (0..4).map(|i| hog_from(&format!("hog{i}"), 0, 8)).collect();
    let mut s = sim(&sc, tasks);
    s.advance_clock(200 * MS);
    let cores: Vec<usize> = s
        .sched
        .tasks
        .iter()
        .map(|t| s.sched.machine.cpus[t.cpu].core)
        .collect();
    assert_eq!(
        distinct(&cores),
        4,
        "4 hogs on smt:4x2 must occupy 4 different cores after 200 ms simulated; CPUs {:?}",
        cpus_of(&s)
    );
    assert_clean(&s);
}

#[test]
fn pinned_tasks_never_migrate() {
    // 6 hogs pinned to CPU 0 plus 2 free hogs on smp:4 for 1 s: the balancer may move
    // the free ones only.
    let sc = scenario("smp:4", 1);
    let mut tasks: Vec<TaskSpec> = (0..6)
        .map(|i| hog(&format!("pinned{i}"), 0, Some(vec![0])))
        .collect();
    tasks.push(hog_from("free0", 0, 4));
    tasks.push(hog_from("free1", 0, 4));
    let r = run(&sc, tasks);
    for t in &r.tasks {
        if t.comm.starts_with("pinned") {
            assert_eq!(
                t.nr_migrations, 0,
                "{} migrated {} times",
                t.comm, t.nr_migrations
            );
        }
    }
    let free_moves: u64 = r
        .tasks
        .iter()
        .filter(|t| t.comm.starts_with("free"))
        .map(|t| t.nr_migrations)
        .sum();
    assert!(
        free_moves >= 2,
        "the free hogs should leave CPU 0 (moves: {free_moves})"
    );
}

#[test]
fn misfit_task_moves_to_a_big_cpu_on_pixel6() {
    // pixel6 (4×124 + 2×427 + 2×1024, EAS with schedutil). A task runs 1 ms every 10 ms
    // for 500 ms (~10%), then all the time (100%). It starts on little CPU 0; once its
    // util no longer fits (≥ 80% of 124) the tick marks the rq misfit, the ILB's balance
    // classifies the group misfit_task and active balance pushes it up. Bound: on a big
    // CPU (6 or 7) 250 ms after the phase change, and it stays there.
    let mut sc = scenario("pixel6", 2);
    sc.governor = schedlab::sched::cpufreq_schedutil::Governor::Schedutil;
    let mut program = vec![
        Op::LoopBegin { count: Some(50) },
        Op::RunWall { ns: MS },
        Op::Sleep { ns: 9 * MS },
        Op::LoopEnd,
    ];
    program.extend(hog_program());
    let mut s = sim(&sc, vec![task("grow", 0, Policy::Normal, None, program)]);
    s.advance_clock(480 * MS);
    let little = s.sched.tasks[0].cpu;
    assert!(
        s.sched.machine.cpus[little].capacity < 1024,
        "the 10% phase runs on a small CPU (cpu {little} at 480 ms)"
    );
    s.advance_clock(750 * MS);
    let cpu = s.sched.tasks[0].cpu;
    assert!(
        cpu == 6 || cpu == 7,
        "misfit task on cpu {cpu} at 750 ms simulated, expected a big CPU (6/7)"
    );
    assert!(
        s.sched.lb.counters.active_balances >= 1,
        "the running misfit task moves by active balance"
    );
    s.advance_clock(2000 * MS);
    assert_eq!(
        s.sched.tasks[0].cpu, cpu,
        "it stays on the big CPU until 2 s"
    );
    assert_clean(&s);
}

/// Two normal hogs and four SCHED_IDLE hogs created on CPU 0 of smp:2 (affinity opened on
/// first run), while a pinned task keeps CPU 1 busy for 30 ms and exits.
fn prio_mix() -> Vec<TaskSpec> {
    let mut t = vec![hog_from("normal0", 0, 2), hog_from("normal1", 0, 2)];
    for i in 0..4 {
        let mut h = hog_from(&format!("idle{i}"), 0, 2);
        h.attrs.policy = Policy::Idle;
        t.push(h);
    }
    t.push(task(
        "blocker",
        0,
        Policy::Normal,
        Some(vec![1]),
        vec![Op::Run { work_ns: 30 * MS }],
    ));
    t
}

/// The comm of the first task seen on CPU 1, and when (ms) the two normal hogs first sat
/// on different CPUs (stepping 1 ms up to 300 ms).
fn prio_run(features: &str) -> (String, u64) {
    let mut sc = scenario("smp:2", 1);
    sc.features = features.into();
    let mut s = sim(&sc, prio_mix());
    let mut first = None;
    let mut apart = None;
    for ms in 31..=300 {
        s.advance_clock(ms * MS);
        let t = &s.sched.tasks;
        if first.is_none() {
            first = t[..6].iter().find(|t| t.cpu == 1).map(|t| t.comm.clone());
        }
        if apart.is_none() && t[0].cpu != t[1].cpu {
            apart = Some(ms);
        }
    }
    assert_clean(&s);
    (
        first.expect("CPU 1 pulls something"),
        apart.expect("the normal hogs separate within 300 ms"),
    )
}

#[test]
fn prio_lb_pulls_normal_tasks_before_sched_idle_ones() {
    // Kernel order (PRIO_LB off): detach_tasks takes from the cfs_tasks tail, where the
    // rarely-run SCHED_IDLE tasks sit, so CPU 1's first pull is SCHED_IDLE work and the
    // normal hogs keep sharing CPU 0 until load balancing moves one later.
    let (first, apart_kernel) = prio_run("");
    assert!(
        first.starts_with("idle"),
        "kernel order pulled {first} first"
    );
    // PRIO_LB: the non-idle list is walked first, so the first pull is a normal hog.
    let (first, apart_prio) = prio_run("PRIO_LB");
    assert!(first.starts_with("normal"), "PRIO_LB pulled {first} first");
    assert!(
        apart_prio + 20 <= apart_kernel,
        "normal hogs apart at {apart_prio} ms with PRIO_LB vs {apart_kernel} ms without"
    );
}

#[test]
fn prio_lb_changes_nothing_without_sched_idle_tasks() {
    // 12 hogs created on CPU 0 of smp:4 plus periodic tasks, no SCHED_IDLE task: the JSON
    // results are byte-identical with and without PRIO_LB.
    let json = |features: &str| {
        let mut sc = scenario("smp:4", 1);
        sc.features = features.into();
        let mut tasks: Vec<TaskSpec> = (0..12).map(|i| hog_from(&format!("h{i}"), 0, 4)).collect();
        for i in 0..4 {
            tasks.push(task(
                &format!("p{i}"),
                0,
                Policy::Normal,
                None,
                vec![
                    Op::LoopBegin { count: None },
                    Op::Run { work_ns: MS },
                    Op::Sleep { ns: 3 * MS },
                    Op::LoopEnd,
                ],
            ));
        }
        let r = run(&sc, tasks);
        let mut v = serde_json::to_value(&r).unwrap();
        v["sim"]["wall_s"] = serde_json::Value::Null;
        v["scenario"]["features"] = serde_json::Value::Null;
        serde_json::to_string_pretty(&v).unwrap()
    };
    let (a, b) = (json(""), json("PRIO_LB"));
    assert!(a.contains("\"cpu_migrations\""));
    assert!(a == b, "PRIO_LB changed a run without SCHED_IDLE tasks");
}

/// When (ms) the free hog of `free_behind_pinned` first leaves CPU 0 under `kernel`.
fn first_move_ms(kernel: &str) -> u64 {
    let mut sc = scenario("smp:2", 2);
    sc.kernel = Some(kernel_version(kernel));
    // The free hog runs first, then 40 hogs pinned to CPU 0 run after it: it sits ahead
    // of more than loop_max (32) pinned tasks in the rq's cfs_tasks list.
    let mut tasks = vec![hog_from("free", 0, 2)];
    tasks.extend((0..40).map(|i| hog(&format!("pinned{i}"), 0, Some(vec![0]))));
    let mut s = sim(&sc, tasks);
    for ms in 1..=2000 {
        s.advance_clock(ms * MS);
        if s.sched.tasks[0].cpu == 1 {
            assert_clean(&s);
            return ms;
        }
    }
    panic!("{kernel}: the free hog never left CPU 0");
}

#[test]
fn v6_1_looks_past_loop_max_while_every_task_seen_is_pinned() {
    // b0defa7ae03e (v6.1 to v6.9): detach_tasks goes on past loop_max until it has seen a
    // movable task, so the balancer finds the free hog behind 40 pinned ones; v5.18 stops
    // after 32 tasks and finds it only when it has drifted to the list's tail. (With the
    // v6.1 rule switched off the 6.1 run moved it at 856 ms, as 5.18 does.)
    let (old, new) = (first_move_ms("5.18"), first_move_ms("6.1"));
    assert!(new < old, "6.1 moved it at {new} ms, 5.18 at {old} ms");
}

/// A one-second scenario on the machine file `toml` (written to a temporary folder that
/// must outlive the simulation's preparation: keep the returned guard).
fn scenario_on_file(toml: &str) -> (tempfile::TempDir, Scenario) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("machine.toml");
    std::fs::write(&path, toml).unwrap();
    let sc = scenario(path.to_str().unwrap(), 1);
    (dir, sc)
}

/// A 6-CPU package of three 2-CPU LLCs (MC groups of one CPU, a PKG domain of three LLC
/// groups), no SMT, one node.
const THREE_LLCS: &str = r#"
name = "three-llcs"
cpu = [
  { id = 0, capacity = 1024, core = 0, llc = 0, package = 0, node = 0 },
  { id = 1, capacity = 1024, core = 1, llc = 0, package = 0, node = 0 },
  { id = 2, capacity = 1024, core = 2, llc = 1, package = 0, node = 0 },
  { id = 3, capacity = 1024, core = 3, llc = 1, package = 0, node = 0 },
  { id = 4, capacity = 1024, core = 4, llc = 2, package = 0, node = 0 },
  { id = 5, capacity = 1024, core = 5, llc = 2, package = 0, node = 0 },
]
[[freq_domain]]
cpus = "0-5"
opps = [{ khz = 2000000 }]
"#;

/// Hogs created on CPUs 2–5 (two per outer LLC, both fully busy, avg_load 0), then free:
/// the first LLC the idle one takes a task from under `kernel`, and where every hog ends.
fn first_pull_among_fully_busy_llcs(kernel: &str) -> Vec<usize> {
    let (_dir, mut sc) = scenario_on_file(THREE_LLCS);
    sc.kernel = Some(kernel_version(kernel));
    let settled = |c: usize| {
        let mut t = hog_from(&format!("h{c}"), c, 6);
        t.program.insert(0, Op::Run { work_ns: 200 * MS });
        t
    };
    let mut s = sim(&sc, (2..6).map(settled).collect());
    s.advance_clock(500 * MS);
    cpus_of(&s)
}

/// The LLC (0, 1 or 2) of each CPU in `cpus`.
fn llcs(cpus: &[usize]) -> Vec<usize> {
    cpus.iter().map(|c| c / 2).collect()
}

#[test]
fn a_tie_between_fully_busy_groups_keeps_the_first_before_v6_5() {
    // The idle LLC 0 balances at PKG level: both outer LLCs are fully busy with avg_load
    // 0 (not computed below overloaded), and one task of the excess of 2 moves.
    // Before 5fd6d7f43958 (v6.5) update_sd_pick_busiest keeps the first group (LLC 1).
    assert_eq!(llcs(&first_pull_among_fully_busy_llcs("6.1")), [0, 1, 2, 2]);
    // From it, a tie takes the later group unless the busiest is SMT (LLC 2).
    for k in ["6.5", "current"] {
        assert_eq!(
            llcs(&first_pull_among_fully_busy_llcs(k)),
            [1, 1, 0, 2],
            "{k}"
        );
    }
}

/// rq->misfit_task_load of the CPU a nice-0 hog allowed on Pixel 6's two big CPUs runs
/// on, 200 ms in, under `kernel`.
fn misfit_load_of_a_big_cpu_hog(kernel: &str) -> u64 {
    let mut sc = scenario("pixel6", 1);
    sc.kernel = Some(kernel_version(kernel));
    let mut s = sim(&sc, vec![hog("big", 0, Some(vec![6, 7]))]);
    s.advance_clock(200 * MS);
    let cpu = s.sched.tasks[0].cpu;
    assert!(cpu >= 6, "on a big CPU: {cpu}");
    s.sched.rqs[cpu].lb.misfit_task_load
}

#[test]
fn a_task_on_its_biggest_allowed_cpu_is_misfit_only_before_v6_10() {
    // Its util (~1000) does not fit 1024 with the 20% margin. 22d5607400c6 (v6.10) clears
    // misfit when no allowed CPU is bigger; 6.6 still marks it, and a balance pass runs
    // for it (group_misfit_task) with nowhere to go.
    assert!(misfit_load_of_a_big_cpu_hog("6.6") > 0);
    assert_eq!(misfit_load_of_a_big_cpu_hog("6.12"), 0);
    assert_eq!(misfit_load_of_a_big_cpu_hog("current"), 0);
}

/// Two nodes of 32 CPUs (one LLC each), SLIT 10/20: an MC domain of 32 CPUs and a NUMA
/// domain of 64 (balance_interval 64 ms when idle).
fn two_nodes_toml() -> String {
    let cpus: Vec<String> = (0..64)
        .map(|c| {
            let node = c / 32;
            format!("  {{ id = {c}, capacity = 1024, core = {c}, llc = {node}, package = {node}, node = {node} }},")
        })
        .collect();
    format!(
        "name = \"two-nodes\"\ncpu = [\n{}\n]\n[numa]\ndistance = [[10, 20], [20, 10]]\n\
         [[freq_domain]]\ncpus = \"0-63\"\nopps = [{{ khz = 2000000 }}]\n",
        cpus.join("\n")
    )
}

/// The jiffies at which the NUMA level of node 1's first CPU (CPU 32) last balanced, at
/// 5 ms and at 70 ms, while 48 hogs keep node 0 busy and node 1 idle.
fn numa_last_balance(boot_start: bool) -> [u64; 2] {
    let (_dir, mut sc) = scenario_on_file(&two_nodes_toml());
    sc.boot_start = boot_start;
    let tasks = (0..48).map(|i| {
        task(
            &format!("h{i}"),
            0,
            Policy::Normal,
            Some(vec![i % 32]),
            hog_program(),
        )
    });
    let mut s = sim(&sc, tasks.collect());
    let numa = |s: &Simulation| {
        let mut d = s.sched.sd.cpus[32].sd.unwrap();
        while let Some(p) = s.sched.sd.domains[d].parent {
            d = p;
        }
        assert_eq!(s.sched.sd.domains[d].name, "NUMA");
        s.sched.sd.domains[d].last_balance
    };
    s.advance_clock(5 * MS);
    let early = numa(&s);
    s.advance_clock(70 * MS);
    assert_clean(&s);
    [early, numa(&s)]
}

#[test]
fn an_idle_machine_balances_every_level_at_the_first_tick() {
    // sd_init stamps sd->last_balance with the jiffies of the domain build (boot). A
    // machine idle since then has every level overdue when the run starts, so node 1's
    // idle CPUs balance across the NUMA level at the first tick (4 ms, HZ 250). Started
    // at boot (`boot_start`), that level waits its 64 ms interval (16 jiffies).
    let start = 300 * 250;
    assert_eq!(numa_last_balance(false), [start + 1, start + 17]);
    assert_eq!(numa_last_balance(true), [0, 16]);
}
