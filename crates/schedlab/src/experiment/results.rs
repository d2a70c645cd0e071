//! The result document of one run (`--json`), described field by field in docs/results.md.
//! Field order is fixed by these structs, so the JSON is byte-identical for the same run.

use crate::metrics::{
    CpuResult, EnergyResult, GroupResult, PerfStat, ProfileEntry, RootDomainResult, ScenarioEcho,
    SharedLinesResult, SimStats, TaskResult,
};
use crate::sched::fair::placement::PlacementStats;
use crate::workload::report::WorkloadSection;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub scenario: ScenarioEcho,
    pub sim: SimStats,
    pub perf: PerfStat,
    pub tasks: Vec<TaskResult>,
    pub cpus: Vec<CpuResult>,
    pub energy: EnergyResult,
    pub root_domain: RootDomainResult,
    /// The per-LLC sched_domain_shared lines (the root domain's line is in `root_domain`).
    pub sd_shared: SharedLinesResult,
    /// Scheduler CPU time by kernel function, largest first.
    pub sched_profile: Vec<ProfileEntry>,
    /// Where wake-up, fork and exec placements went (schedstat style).
    pub placement: PlacementStats,
    /// One section per benchmark front end (hackbench, schbench, …), in `-w` order;
    /// rt-app adds none.
    pub workloads: Vec<WorkloadSection>,
    /// Task groups other than the root, in creation order; absent without groups.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupResult>,
    /// perf stat's counters per interval (`interval`); absent without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<Vec<super::intervals::IntervalRow>>,
    /// The intervals' middle half of work (a quarter to three quarters of the workloads'
    /// counters); absent without intervals or counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middle_half: Option<super::intervals::MiddleHalf>,
}
