//! `spinner`: many copies of a sleep-then-spin loop, the background load of seed 002
//! (idle_process.c: `while (1) { usleep(500); for (i = 0; i < 1000000; i++); }`, 5000
//! copies under SCHED_IDLE on 8 CPUs).
//!
//! `spinner -n 5000 --policy idle --sleep 500us [--loops N | --work DUR] [--nice N]
//! [--cpus LIST] [--spread DUR | --launcher] [--slack DUR]`; `--policy fifo|rr --priority N` and
//! `--policy deadline --dl-runtime D --dl-period D [--dl-deadline D]` give the real-time
//! and deadline policies (workload/sched_params.rs).
//!
//! The busy part is `--loops` iterations of the empty loop (1,000,000 by default, as in
//! the seed's program), each costing the machine's `spin_loop_ps`; `--work` gives it as a
//! duration of reference work instead.
//!
//! `--launcher`: one SCHED_OTHER process (`spinner-launch`, as a program or shell loop
//! starting them) forks the spinners one after another, each fork costing it the machine's
//! `process_create_ns`; a child starts as its parent's policy on a CPU fork balancing picks
//! from the launcher's, and switches itself to `--policy` first (sched_setscheduler, as
//! `chrt` or the program does). Without it every spinner starts with its policy at t = 0
//! (or spread by `--spread`) from its first allowed CPU.

use super::cmdline::{self, long_flag, long_value, value, OptSpec};
use super::program::Base;
use super::report::{RunView, ToolReport, WorkloadSection};
use super::sched_params::{self, CliPolicy};
use super::{Compiled, Op, TaskSpec, Workload};
use crate::error::InputError;
use crate::machine::Costs;
use crate::time::{Ns, NSEC_PER_SEC};
use serde::Serialize;

const OPTS: &[OptSpec] = &[
    value('n', "tasks"),
    long_value("policy"),
    long_value("priority"),
    long_value("dl-runtime"),
    long_value("dl-deadline"),
    long_value("dl-period"),
    long_value("nice"),
    long_value("sleep"),
    long_value("work"),
    long_value("loops"),
    long_value("cpus"),
    long_value("spread"),
    long_value("slack"),
    long_flag("launcher"),
];

/// The busy part of a round: loop iterations (priced by the machine) or reference work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpinWork {
    Loops(u64),
    Ns(Ns),
}

/// The seed's `for (i = 0; i < 1000000; i++);`.
pub const DEFAULT_LOOPS: u64 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub tasks: usize,
    /// The policy, with its real-time priority or deadline parameters.
    pub policy: CliPolicy,
    pub nice: i32,
    pub sleep_ns: Ns,
    /// The busy part of each round.
    pub work: SpinWork,
    pub cpus: Option<Vec<usize>>,
    /// Starts are spread evenly over this long (a shell loop starting them one by one).
    pub spread_ns: Ns,
    /// Extra sleep per usleep (the timer slack the wake-up may land in).
    pub slack_ns: Ns,
    /// Forked one by one by a launcher process (`--launcher`).
    pub launcher: bool,
}

pub fn parse(args: &[String], nr_cpus: usize) -> Result<Params, InputError> {
    let tool = "spinner";
    let p = cmdline::getopt(tool, args, OPTS)?;
    cmdline::no_positional(tool, &p)?;
    let dur = |long: &str, default: Ns| match p.get(long) {
        Some((spec, v)) => cmdline::duration(tool, spec, v, "us"),
        None => Ok(default),
    };
    let policy = sched_params::cli_policy(tool, &p)?;
    let nice = cmdline::nice_or(tool, &p, "nice", 0)?;
    let cpus = cmdline::cpus_opt(tool, &p, "cpus", nr_cpus)?;
    let tasks: usize = cmdline::number_or(tool, &p, "tasks", 1, 1)?;
    if tasks > 1_000_000 {
        return Err(
            InputError::new("spinner -n/--tasks", "more than 1,000,000 tasks")
                .with_fix("use fewer tasks"),
        );
    }
    let params = Params {
        tasks,
        policy,
        nice,
        sleep_ns: dur("sleep", 500_000)?,
        work: match (p.get("work"), p.get("loops")) {
            (Some(_), Some(_)) => {
                return Err(InputError::new(
                    "spinner --work/--loops",
                    "both given: they say the same thing two ways",
                )
                .with_fix("give one of them"))
            }
            (Some(_), None) => SpinWork::Ns(dur("work", 0)?),
            (None, Some(_)) => SpinWork::Loops(cmdline::number_or(tool, &p, "loops", 0, 0)?),
            (None, None) => SpinWork::Loops(DEFAULT_LOOPS),
        },
        cpus,
        spread_ns: dur("spread", 0)?,
        slack_ns: dur("slack", 0)?,
        launcher: p.has("launcher"),
    };
    if params.launcher && params.spread_ns > 0 {
        return Err(InputError::new(
            "spinner --spread/--launcher",
            "both given: the launcher's forks set when each spinner starts",
        )
        .with_fix("give one of them"));
    }
    let no_work = matches!(params.work, SpinWork::Loops(0) | SpinWork::Ns(0));
    if params.sleep_ns + params.slack_ns == 0 && no_work {
        return Err(InputError::new(
            "spinner --sleep/--work",
            "both are zero: the loop would never let time pass",
        )
        .with_fix("give --work, --loops or --sleep a positive value"));
    }
    Ok(params)
}

/// The loop's cost is the machine's (`costs.spin_loop_ps` per iteration).
pub fn build(p: &Params, command: &str, costs: &Costs) -> Compiled {
    let work_ns = match p.work {
        SpinWork::Loops(n) => n * costs.spin_loop_ps / 1000,
        SpinWork::Ns(ns) => ns,
    };
    let mut body = vec![Op::LoopBegin { count: None }];
    if p.sleep_ns + p.slack_ns > 0 {
        body.push(Op::Sleep {
            ns: p.sleep_ns + p.slack_ns,
        });
    }
    if work_ns > 0 {
        body.push(Op::Run { work_ns });
    }
    body.extend([Op::Count { counter: 0 }, Op::LoopEnd]);
    let tasks = if p.launcher {
        launched(p, body, costs)
    } else {
        (0..p.tasks)
            .map(|i| {
                p.policy
                    .apply(TaskSpec::new("spinner".to_string(), body.clone()))
                    .nice(p.nice)
                    .cpus(p.cpus.clone())
                    .delay(p.spread_ns * i as u64 / p.tasks as u64)
            })
            .collect()
    };
    Compiled {
        workload: Workload {
            tasks,
            counters: vec!["spinner.loops".into()],
            ..Workload::default()
        },
        reports: vec![ToolReport::Spinner(SpinnerReport {
            base: Base::default(),
            command: command.to_string(),
            tasks: p.tasks,
        })],
    }
}

/// `--launcher`: the spinners (tasks 0..n, as without it, so the report's sums stay theirs),
/// each created by the launcher (task n) and switching itself to its policy first.
fn launched(p: &Params, body: Vec<Op>, costs: &Costs) -> Vec<TaskSpec> {
    let n = p.tasks;
    let mut program = vec![Op::SetSched(Box::new(p.policy.change(p.nice)))];
    program.extend(body);
    let mut tasks: Vec<TaskSpec> = (0..n)
        .map(|_| {
            TaskSpec::new("spinner".to_string(), program.clone())
                .cpus(p.cpus.clone())
                .created_by(n)
        })
        .collect();
    let mut launcher: Vec<Op> = (0..n)
        .flat_map(|task| {
            [
                Op::Run {
                    work_ns: costs.process_create_ns,
                },
                Op::Create { task },
            ]
        })
        .collect();
    // Then it waits, as a shell or pause() would.
    launcher.extend([
        Op::LoopBegin { count: None },
        Op::Sleep { ns: NSEC_PER_SEC },
        Op::LoopEnd,
    ]);
    tasks.push(TaskSpec::new("spinner-launch", launcher).cpus(p.cpus.clone()));
    tasks
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpinnerReport {
    pub base: Base,
    pub command: String,
    pub tasks: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpinnerResult {
    pub command: String,
    /// The spinners print nothing.
    pub output: String,
    pub tasks: usize,
    /// Sleep + work rounds completed by all spinners.
    pub loops: u64,
    /// CPU time of all spinners, ns.
    pub cpu_time_ns: u64,
}

impl SpinnerReport {
    pub fn render(&self, run: &RunView) -> WorkloadSection {
        let first = self.base.task;
        let cpu_time_ns = (first..first + self.tasks)
            .map(|id| run.tasks[id].cpu_time_ns)
            .sum();
        WorkloadSection::Spinner(SpinnerResult {
            command: self.command.clone(),
            output: String::new(),
            tasks: self.tasks,
            loops: run.probes.counters[self.base.counter],
            cpu_time_ns,
        })
    }
}
