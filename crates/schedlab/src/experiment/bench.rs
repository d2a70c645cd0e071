//! Simulation-speed benchmark (`schedlab bench`): a fixed, CPU-heavy scenario whose
//! events per second and simulated/wall ratio are the figures we track.

use super::run::{execute, prepare};
use super::Scenario;
use crate::error::InputError;
use crate::machine::presets::machine_from_name;
use crate::metrics::RunResult;
use crate::sched::cpufreq_schedutil::Governor;
use crate::time::{Ns, NSEC_PER_MSEC, NSEC_PER_SEC};
use crate::workload::program::TimerSpec;
use crate::workload::{Op, Policy, TaskSpec, TimerMode, Workload};

/// `hogs` always-running tasks (nice -5..=5) plus `periodic` tasks that run 0.5 ms every
/// 16 ms on their own absolute timers, pinned round-robin over `nr_cpus` CPUs (there is
/// no load balancing yet to spread them).
pub fn mixed_workload(hogs: usize, periodic: usize, nr_cpus: usize) -> Workload {
    let mut w = Workload::default();
    for i in 0..hogs {
        w.tasks.push(TaskSpec {
            comm: format!("hog-{i}"),
            policy: Policy::Normal,
            nice: (i % 11) as i32 - 5,
            slice_ns: None,
            uclamp: Default::default(),
            cpus: Some(vec![i % nr_cpus]),
            delay_ns: 0,
            program: vec![
                Op::LoopBegin { count: None },
                Op::Run {
                    work_ns: NSEC_PER_SEC,
                },
                Op::LoopEnd,
            ],
        });
    }
    for i in 0..periodic {
        w.timers.push(TimerSpec {
            name: format!("unique-{i}"),
        });
        w.tasks.push(TaskSpec {
            comm: format!("periodic-{i}"),
            policy: Policy::Normal,
            nice: 0,
            slice_ns: None,
            uclamp: Default::default(),
            cpus: Some(vec![i % nr_cpus]),
            delay_ns: (i as Ns * 250_000) % (16 * NSEC_PER_MSEC),
            program: vec![
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
        });
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
    let sc = Scenario {
        machine: machine.into(),
        duration_ns: Some(secs * NSEC_PER_SEC),
        governor,
        ..Scenario::default()
    };
    let n = machine_from_name(machine)?.nr_cpus();
    let sim = prepare(&sc, mixed_workload(8 * n, 8 * n, n))?;
    Ok(execute(&sc, sim, None))
}
