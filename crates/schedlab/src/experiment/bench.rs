//! Simulation-speed benchmark (`schedlab bench`): a fixed, CPU-heavy scenario whose
//! events per second and simulated/wall ratio are the figures we track.

use super::run::{execute, prepare};
use super::Scenario;
use crate::error::InputError;
use crate::experiment::RunResult;
use crate::machine::presets::machine_from_name;
use crate::sched::cpufreq_schedutil::Governor;
use crate::sched::fair::group::CgroupSpec;
use crate::time::{Ns, NSEC_PER_MSEC, NSEC_PER_SEC};
use crate::workload::program::TimerSpec;
use crate::workload::{Op, TaskSpec, TimerMode, Workload};

/// `hogs` always-running tasks (nice -5..=5) plus `periodic` tasks that run 0.5 ms every
/// 16 ms on their own absolute timers, pinned round-robin over `nr_cpus` CPUs.
pub fn mixed_workload(hogs: usize, periodic: usize, nr_cpus: usize) -> Workload {
    task_mix(hogs, periodic, Some(nr_cpus))
}

/// The same mix with no affinity: placement and the load balancer decide where tasks run.
pub fn free_workload(hogs: usize, periodic: usize) -> Workload {
    task_mix(hogs, periodic, None)
}

/// The benchmark task mix, pinned round-robin over `pin_over` CPUs or free.
fn task_mix(hogs: usize, periodic: usize, pin_over: Option<usize>) -> Workload {
    let pin = |i: usize| pin_over.map(|n| vec![i % n]);
    let mut w = Workload::default();
    for i in 0..hogs {
        w.tasks.push(
            TaskSpec::new(
                format!("hog-{i}"),
                vec![
                    Op::LoopBegin { count: None },
                    Op::Run {
                        work_ns: NSEC_PER_SEC,
                    },
                    Op::LoopEnd,
                ],
            )
            .nice((i % 11) as i32 - 5)
            .cpus(pin(i)),
        );
    }
    for i in 0..periodic {
        w.timers.push(TimerSpec {
            name: format!("unique-{i}"),
        });
        w.tasks.push(
            TaskSpec::new(
                format!("periodic-{i}"),
                vec![
                    Op::LoopBegin { count: None },
                    Op::Run {
                        work_ns: NSEC_PER_MSEC / 2,
                    },
                    Op::Timer {
                        timer: w.timers.len() - 1,
                        period_ns: 16 * NSEC_PER_MSEC,
                        mode: TimerMode::Absolute,
                    },
                    Op::LoopEnd,
                ],
            )
            .cpus(pin(i))
            .delay((i as Ns * 250_000) % (16 * NSEC_PER_MSEC)),
        );
    }
    w
}

/// Run the standard benchmark: 64 hogs + 64 periodic tasks on smp:8 for `secs`.
pub fn standard(secs: u64) -> RunResult {
    on_machine(secs, "smp:8", Governor::Schedutil).expect("the benchmark scenario is valid")
}

/// The standard task mix on another machine (8 tasks of each kind per CPU) and governor,
/// e.g. `smp-dvfs:8` with schedutil against performance to price the DVFS loop.
pub fn on_machine(secs: u64, machine: &str, governor: Governor) -> Result<RunResult, InputError> {
    on_machine_grouped(secs, machine, governor, 0)
}

/// The standard mix with every task `levels` deep in a cgroup tree (0 = flat): `/g0`,
/// `/g0/g1`, …, then four leaf groups of weights 100..400 at the last level, tasks spread
/// over the leaves round-robin (`bench --scenario cgroup3`).
pub fn on_machine_grouped(
    secs: u64,
    machine: &str,
    governor: Governor,
    levels: usize,
) -> Result<RunResult, InputError> {
    let mut sc = Scenario {
        machine: machine.into(),
        duration_ns: Some(secs * NSEC_PER_SEC),
        governor,
        ..Scenario::default()
    };
    let n = machine_from_name(machine)?.nr_cpus();
    let mut wl = mixed_workload(8 * n, 8 * n, n);
    if levels > 0 {
        let mut path = String::new();
        for l in 0..levels - 1 {
            path = format!("{path}/g{l}");
            sc.cgroups.push(CgroupSpec::new(&path));
        }
        for k in 0..4u64 {
            let leaf = CgroupSpec {
                weight: 100 * (k + 1),
                ..CgroupSpec::new(&format!("{path}/leaf{k}"))
            };
            sc.cgroups.push(leaf);
        }
        for i in 0..wl.tasks.len() {
            wl.cgroups.insert(i, format!("{path}/leaf{}", i % 4));
        }
    }
    let sim = prepare(&sc, wl)?;
    Ok(execute(&sc, sim, None))
}

/// A named benchmark scenario (`schedlab bench --scenario NAME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub machine: &'static str,
    pub hogs: usize,
    pub periodic: usize,
    pub secs: u64,
    /// Tasks pinned round-robin (standard) or free for the load balancer (the others).
    pub pinned: bool,
    /// Depth of the cgroup tree the tasks sit in (0 = flat; cgroup3: 3).
    pub cgroup_levels: usize,
}

/// The presets: `standard` (8 hogs + 8 periodic per CPU of the chosen machine, pinned),
/// `cgroup3` (the same mix three cgroup levels deep),
/// `epyc` (1,000 hogs + 1,000 periodic tasks on epyc-9654-2s, 10 s) and `power10`
/// (10,000 periodic tasks on power10-240c-smt8, 1 s), both unpinned so load balancing
/// does the spreading.
pub fn preset(name: &str) -> Result<Preset, InputError> {
    Ok(match name {
        "standard" => Preset {
            name: "standard",
            machine: "smp:8",
            hogs: 0,
            periodic: 0,
            secs: 60,
            pinned: true,
            cgroup_levels: 0,
        },
        "cgroup3" => Preset {
            name: "cgroup3",
            machine: "smp:8",
            hogs: 0,
            periodic: 0,
            secs: 60,
            pinned: true,
            cgroup_levels: 3,
        },
        "epyc" => Preset {
            name: "epyc",
            machine: "epyc-9654-2s",
            hogs: 1000,
            periodic: 1000,
            secs: 10,
            pinned: false,
            cgroup_levels: 0,
        },
        "power10" => Preset {
            name: "power10",
            machine: "power10-240c-smt8",
            hogs: 0,
            periodic: 10_000,
            secs: 1,
            pinned: false,
            cgroup_levels: 0,
        },
        other => {
            return Err(InputError::new(
                "--scenario",
                format!("unknown benchmark scenario '{other}'"),
            )
            .with_fix("use standard, cgroup3, epyc or power10"))
        }
    })
}

/// Run a non-standard preset for `secs` simulated seconds.
pub fn run_preset(p: &Preset, secs: u64, governor: Governor) -> Result<RunResult, InputError> {
    let sc = Scenario {
        machine: p.machine.into(),
        duration_ns: Some(secs * NSEC_PER_SEC),
        governor,
        ..Scenario::default()
    };
    let wl = if p.pinned {
        let n = machine_from_name(p.machine)?.nr_cpus();
        mixed_workload(p.hogs, p.periodic, n)
    } else {
        free_workload(p.hogs, p.periodic)
    };
    let sim = prepare(&sc, wl)?;
    Ok(execute(&sc, sim, None))
}
