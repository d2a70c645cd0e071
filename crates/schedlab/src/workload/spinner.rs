//! `spinner`: many copies of a sleep-then-spin loop, the background load of seed 002
//! (idle_process.c: `while (1) { usleep(500); for (i = 0; i < 1000000; i++); }`, 5000
//! copies under SCHED_IDLE on 8 CPUs).
//!
//! `spinner -n 5000 --policy idle --sleep 500us [--loops N | --work DUR] [--nice N]
//! [--cpus LIST] [--spread DUR] [--slack DUR]`; `--policy fifo|rr --priority N` and
//! `--policy deadline --dl-runtime D --dl-period D [--dl-deadline D]` give the real-time
//! and deadline policies (workload/sched_params.rs).
//!
//! The busy part is `--loops` iterations of the empty loop (1,000,000 by default, as in
//! the seed's program), each costing the machine's `spin_loop_ps`; `--work` gives it as a
//! duration of reference work instead.

use super::cmdline::{self, long_value, value, OptSpec};
use super::program::Base;
use super::report::{RunView, ToolReport, WorkloadSection};
use super::sched_params::{self, CliPolicy};
use super::{Compiled, Op, TaskSpec, Workload};
use crate::error::InputError;
use crate::machine::Costs;
use crate::time::Ns;
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
    };
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
    let tasks = (0..p.tasks)
        .map(|i| {
            p.policy
                .apply(TaskSpec::new("spinner".to_string(), body.clone()))
                .nice(p.nice)
                .cpus(p.cpus.clone())
                .delay(p.spread_ns * i as u64 / p.tasks as u64)
        })
        .collect();
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
