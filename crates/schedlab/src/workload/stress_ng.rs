//! `stress-ng --wait N` (stress-ng's stress-wait.c; docs/workloads.md): per instance a runner
//! that sits in `pause()`, a killer looping `kill(SIGSTOP); sched_yield(); kill(SIGCONT)`, and the
//! parent waiting for the runner's stop/continue status changes. A bogo-op is one
//! continued status.
//!
//! Signals are modelled as posted flags (binary semaphores: a standard signal does not
//! queue), the parent's wait as a semaphore its child's state changes post.

use super::cmdline::{self, flag, long_value, value, OptSpec};
use super::program::{Base, ObjectSpec};
use super::report::{RunView, ToolReport, WorkloadSection};
use super::{Compiled, Op, TaskSpec, Workload};
use crate::error::InputError;
use crate::time::{Ns, NSEC_PER_SEC};
use serde::Serialize;

/// kill(2) of a sibling, reference ns.
pub const KILL_NS: Ns = 1_000;
/// One wait*(2) call returning a status, reference ns.
pub const WAIT_NS: Ns = 1_500;
/// Signal delivery and the stop / continue transition in the runner, reference ns.
pub const SIGNAL_NS: Ns = 1_000;

const OPTS: &[OptSpec] = &[
    long_value("wait"),
    value('t', "timeout"),
    long_value("wait-ops"),
    flag('M', "metrics-brief"),
    long_value("metrics"),
    long_value("taskset"),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub instances: usize,
    pub timeout_ns: Option<Ns>,
    pub metrics: bool,
    /// `--taskset LIST`: stress-ng sets this affinity before forking, so every stressor
    /// process inherits it.
    pub cpus: Option<Vec<usize>>,
}

pub fn parse(args: &[String], nr_cpus: usize) -> Result<Params, InputError> {
    let tool = "stress-ng";
    let p = cmdline::getopt(tool, args, OPTS)?;
    cmdline::no_positional(tool, &p)?;
    if let Some((spec, _)) = p.get("wait-ops") {
        return Err(cmdline::unsupported(
            tool,
            spec,
            "bounded runs are not modelled; bound the run with -t/--timeout",
        ));
    }
    let Some((spec, v)) = p.get("wait") else {
        return Err(InputError::new("stress-ng", "no stressor given")
            .with_fix("the wait stressor is modelled: write stress-ng --wait N"));
    };
    let n: usize = cmdline::number(tool, spec, v, 0)?;
    // Found by fuzzing: `--wait 18446744073709551615` allocated without bound.
    cmdline::check_tasks(tool, "--wait", n as u128)?;
    let timeout_ns = match p.get("timeout") {
        Some((spec, v)) => Some(cmdline::duration(tool, spec, v, "s")?),
        None => None,
    };
    Ok(Params {
        instances: if n == 0 { nr_cpus } else { n },
        timeout_ns,
        metrics: p.has("metrics-brief") || p.has("metrics"),
        cpus: cmdline::cpus_opt(tool, &p, "taskset", nr_cpus)?,
    })
}

pub fn build(p: &Params, command: &str) -> Compiled {
    // An instance's three semaphores and its counter are its own: every instance's
    // parent, runner and killer run one shared program each.
    let task = |comm: &str, program: Vec<Op>, i: usize| {
        TaskSpec::new(comm.to_string(), program)
            .cpus(p.cpus.clone())
            .private(3 * i..3 * i + 3, i..i + 1)
    };
    let mut tasks = Vec::new();
    let mut objects = Vec::new();
    for i in 0..p.instances {
        let stop = objects.len();
        debug_assert_eq!(stop, 3 * i);
        let cont = stop + 1;
        let notify = stop + 2;
        objects.extend([
            ObjectSpec::Semaphore { initial: 0, max: 1 },
            ObjectSpec::Semaphore { initial: 0, max: 1 },
            ObjectSpec::Semaphore { initial: 0, max: 2 },
        ]);
        let forever = |body: Vec<Op>| {
            let mut v = vec![Op::LoopBegin { count: None }];
            v.extend(body);
            v.push(Op::LoopEnd);
            v
        };
        // parent (the stressor instance): waitpid & co. for every status change.
        tasks.push(task(
            "stress-ng-wait",
            forever(vec![
                Op::SemWait { obj: notify },
                Op::Run { work_ns: WAIT_NS },
            ]),
            i,
        ));
        // runner: pause(); stopped by SIGSTOP (parent notified), resumed by SIGCONT.
        tasks.push(task(
            "stress-ng-wait",
            forever(vec![
                Op::SemWait { obj: stop },
                Op::Run { work_ns: SIGNAL_NS },
                Op::SemPost { obj: notify },
                Op::SemWait { obj: cont },
                Op::Run { work_ns: SIGNAL_NS },
                Op::SemPost { obj: notify },
                Op::Count { counter: i },
            ]),
            i,
        ));
        // killer.
        tasks.push(task(
            "stress-ng-wait",
            forever(vec![
                Op::Run { work_ns: KILL_NS },
                Op::SemPost { obj: stop },
                Op::Yield,
                Op::Run { work_ns: KILL_NS },
                Op::SemPost { obj: cont },
            ]),
            i,
        ));
    }
    Compiled {
        workload: Workload {
            tasks,
            objects,
            duration_ns: p.timeout_ns,
            counters: (0..p.instances)
                .map(|i| format!("stress-ng.wait{i}.bogo"))
                .collect(),
            ..Workload::default()
        },
        reports: vec![ToolReport::StressWait(StressWaitReport {
            base: Base::default(),
            command: command.to_string(),
            params: p.clone(),
        })],
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StressWaitReport {
    pub base: Base,
    pub command: String,
    pub params: Params,
}

#[derive(Debug, Clone, Serialize)]
pub struct StressWaitResult {
    pub command: String,
    pub output: String,
    pub instances: usize,
    pub bogo_ops: u64,
    pub bogo_ops_per_s: f64,
    /// CPU time of the stressor's tasks, ns.
    pub cpu_time_ns: u64,
}

impl StressWaitReport {
    pub fn render(&self, run: &RunView) -> WorkloadSection {
        let p = &self.params;
        let c = self.base.counter;
        let bogo: u64 = run.probes.counters[c..c + p.instances].iter().sum();
        let first = self.base.task;
        let cpu: u64 = (first..first + 3 * p.instances)
            .map(|id| run.tasks[id].cpu_time_ns)
            .sum();
        let secs = run.end_ns as f64 / NSEC_PER_SEC as f64;
        let rate = if secs > 0.0 { bogo as f64 / secs } else { 0.0 };
        let pid = run.tasks.get(first).map_or(0, |t| t.pid);
        let mut out = format!(
            "stress-ng: info:  [{pid}] dispatching hogs: {} wait\n",
            p.instances
        );
        if p.metrics {
            let cpu_s = cpu as f64 / NSEC_PER_SEC as f64;
            let per_cpu = if cpu_s > 0.0 {
                bogo as f64 / cpu_s
            } else {
                0.0
            };
            out.push_str(&format!(
                "stress-ng: metrc: [{pid}] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\n\
                 stress-ng: metrc: [{pid}]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\n\
                 stress-ng: metrc: [{pid}] wait           {bogo:>9} {secs:>9.2} {:>9.2} {cpu_s:>9.2} {rate:>12.2} {per_cpu:>14.2}\n",
                0.0
            ));
        }
        out.push_str(&format!(
            "stress-ng: info:  [{pid}] successful run completed in {secs:.2}s\n"
        ));
        WorkloadSection::StressNg(StressWaitResult {
            command: self.command.clone(),
            output: out,
            instances: p.instances,
            bogo_ops: bogo,
            bogo_ops_per_s: (rate * 100.0).round() / 100.0,
            cpu_time_ns: cpu,
        })
    }
}
