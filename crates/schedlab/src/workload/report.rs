//! After the run: each benchmark front end turns what its tasks counted and logged into
//! the real tool's printout and its section of the result document (`workloads[]`).

use super::frames::FramesReport;
use super::hackbench::HackbenchReport;
use super::program::Base;
use super::program::Probes;
use super::schbench::SchbenchReport;
use super::schbench_2021::Schbench2021Report;
use super::spinner::SpinnerReport;
use super::stress_ng::StressWaitReport;
use crate::metrics::TaskResult;
use serde::Serialize;

/// What a front end needs to print after the run, with the indices of its tasks, objects,
/// counters and logs (`base`, shifted when workloads are merged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolReport {
    Hackbench(HackbenchReport),
    Schbench(SchbenchReport),
    Schbench2021(Schbench2021Report),
    Spinner(SpinnerReport),
    StressWait(StressWaitReport),
    Frames(Box<FramesReport>),
}

impl ToolReport {
    /// Move the report's indices up by `by` (its workload was merged after others).
    pub fn shift(&mut self, by: &Base) {
        match self {
            ToolReport::Hackbench(r) => r.base.add(by),
            ToolReport::Schbench(r) => r.base.add(by),
            ToolReport::Schbench2021(r) => r.base.add(by),
            ToolReport::Spinner(r) => r.base.add(by),
            ToolReport::StressWait(r) => r.base.add(by),
            ToolReport::Frames(r) => r.base.add(by),
        }
    }

    pub fn render(&self, run: &RunView) -> WorkloadSection {
        match self {
            ToolReport::Hackbench(r) => r.render(run),
            ToolReport::Schbench(r) => r.render(run),
            ToolReport::Schbench2021(r) => r.render(run),
            ToolReport::Spinner(r) => r.render(run),
            ToolReport::StressWait(r) => r.render(run),
            ToolReport::Frames(r) => r.render(run),
        }
    }
}

/// The finished run as the reports see it.
pub struct RunView<'a> {
    /// Per-task results, by task id.
    pub tasks: &'a [TaskResult],
    pub probes: &'a Probes,
    /// Simulated time at the end of the run, ns.
    pub end_ns: u64,
}

/// One front end's section of the result document; `tool` tells which (docs/results.md).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "tool", rename_all = "kebab-case")]
pub enum WorkloadSection {
    Hackbench(super::hackbench::HackbenchResult),
    PerfBenchMessaging(super::hackbench::HackbenchResult),
    Schbench(Box<super::schbench::SchbenchResult>),
    #[serde(rename = "schbench-2021")]
    Schbench2021(Box<super::schbench_2021::Schbench2021Result>),
    Spinner(super::spinner::SpinnerResult),
    StressNg(super::stress_ng::StressWaitResult),
    Frames(Box<super::frames::FramesResult>),
}

impl WorkloadSection {
    /// The text the real tool prints (stdout, or stderr for schbench).
    pub fn output(&self) -> &str {
        match self {
            WorkloadSection::Hackbench(r) | WorkloadSection::PerfBenchMessaging(r) => &r.output,
            WorkloadSection::Schbench(r) => &r.output,
            WorkloadSection::Schbench2021(r) => &r.output,
            WorkloadSection::Spinner(r) => &r.output,
            WorkloadSection::StressNg(r) => &r.output,
            WorkloadSection::Frames(r) => &r.output,
        }
    }
}
