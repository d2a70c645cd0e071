//! Shared builders for the integration tests.
#![allow(dead_code)]

use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::experiment::{PreemptModel, Scenario};
use schedlab::sched::version::KernelVersion;
use schedlab::simulation::Simulation;
use schedlab::time::{Ns, NSEC_PER_SEC};
use schedlab::workload::{Op, Policy, TaskSpec, Workload};

pub const MS: Ns = 1_000_000;
pub const US: Ns = 1_000;

pub fn task(
    comm: &str,
    nice: i32,
    policy: Policy,
    cpus: Option<Vec<usize>>,
    program: Vec<Op>,
) -> TaskSpec {
    TaskSpec::new(comm, program)
        .policy(policy)
        .nice(nice)
        .cpus(cpus)
}

/// Runs forever: 1 s work chunks in an endless loop.
pub fn hog_program() -> Vec<Op> {
    vec![
        Op::LoopBegin { count: None },
        Op::Run {
            work_ns: NSEC_PER_SEC,
        },
        Op::LoopEnd,
    ]
}

pub fn hog(comm: &str, nice: i32, cpus: Option<Vec<usize>>) -> TaskSpec {
    task(comm, nice, Policy::Normal, cpus, hog_program())
}

/// A scenario on one tick grid from t=0 (`tick_aligned`): the tests reason about exact
/// tick times; tests/determinism.rs covers the per-seed tick phases.
pub fn scenario(machine: &str, secs: u64) -> Scenario {
    Scenario {
        machine: machine.into(),
        duration_ns: Some(secs * NSEC_PER_SEC),
        tick_aligned: true,
        // Sleeps end exactly on time; tests/timer_slack.rs prices the slack.
        timer_slack_ns: 0,
        ..Scenario::default()
    }
}

/// The tasks with one timer declared per timer index their ops use.
pub fn workload_of(tasks: Vec<TaskSpec>) -> Workload {
    let nr_timers = tasks
        .iter()
        .flat_map(|t| &t.program)
        .filter_map(|op| match op {
            Op::Timer { timer, .. } => Some(timer + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    Workload {
        tasks,
        timers: (0..nr_timers)
            .map(|i| schedlab::workload::program::TimerSpec {
                name: format!("t{i}"),
            })
            .collect(),
        ..Workload::default()
    }
}

/// Run with invariants checked after every event; fails the test on any violation.
pub fn run(sc: &Scenario, tasks: Vec<TaskSpec>) -> RunResult {
    let wl = workload_of(tasks);
    let sim = prepare(sc, wl).expect("valid scenario");
    let r = execute(sc, sim, Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "invariant violations: {:#?}",
        r.sim.invariant_messages
    );
    r
}

/// Prepare a simulation for step-by-step inspection.
pub fn sim(sc: &Scenario, tasks: Vec<TaskSpec>) -> Simulation {
    let wl = workload_of(tasks);
    let mut s = prepare(sc, wl).expect("valid scenario");
    s.set_invariant_every(1);
    s
}

/// Run `s` to its end with the switch log on; fails the test on any invariant violation.
pub fn run_logging_switches(s: &mut Simulation) -> Vec<schedlab::sched::SwitchRecord> {
    s.sched.switch_log = Some(Vec::new());
    s.run();
    assert_eq!(
        s.sched.invariant_violations, 0,
        "{:?}",
        s.sched.invariant_messages
    );
    s.sched.switch_log.take().unwrap()
}

/// A `--kernel` name the tests know to be valid ("6.1", "current").
pub fn kernel_version(name: &str) -> KernelVersion {
    KernelVersion::parse(name, "test").expect("a supported kernel version")
}

pub fn with_preempt(mut sc: Scenario, p: PreemptModel) -> Scenario {
    sc.preempt = p;
    sc
}

pub fn cpu_time(r: &RunResult, comm: &str) -> u64 {
    r.tasks.iter().find(|t| t.comm == comm).unwrap().cpu_time_ns
}

/// `count` activations (None = forever) of `work_ns` reference work, each waiting for the
/// next `period_ns` tick of absolute timer `timer` (rt-app's run + timer pattern).
pub fn periodic_ops(count: Option<u64>, work_ns: Ns, period_ns: Ns, timer: usize) -> Vec<Op> {
    vec![
        Op::LoopBegin { count },
        Op::Run { work_ns },
        Op::Timer {
            timer,
            period_ns,
            mode: schedlab::workload::TimerMode::Absolute,
        },
        Op::LoopEnd,
    ]
}
