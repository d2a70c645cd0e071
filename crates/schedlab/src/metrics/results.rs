//! The parts of the result document (`--json`) for tasks, CPUs, groups, energy and the
//! kernel's shared state, described field by field in docs/results.md. Field order is
//! fixed by these structs, so the JSON is byte-identical for the same run.

use super::latency::LatencySummary;
use serde::Serialize;

/// One task group's cpu.stat (docs/results.md).
#[derive(Debug, Clone, Serialize)]
pub struct GroupResult {
    pub path: String,
    /// cpu.weight as configured (autogroups: 100; a cpu.idle group runs at the idle
    /// weight whatever this says).
    pub weight: u64,
    pub idle: bool,
    pub autogroup: bool,
    /// cpu.max as "QUOTA PERIOD" in µs, or "max".
    pub max: String,
    pub nr_tasks: usize,
    /// usage_usec, in ns: CPU time of the group's tasks (Σ over its group entities).
    pub cpu_time_ns: u64,
    /// cpu.stat nr_periods / nr_throttled / throttled_usec (ns here; completed throttles
    /// only, as the kernel adds them at unthrottle).
    pub nr_periods: u64,
    pub nr_throttled: u64,
    pub throttled_time_ns: u64,
    /// Throttle events: per-CPU group runqueues throttled, all CPUs together.
    pub nr_throttle_events: u64,
}

/// The root domain's overutilized flag and the accesses to it (seed 001).
#[derive(Debug, Clone, Serialize)]
pub struct RootDomainResult {
    /// EAS was active (asymmetric capacities, energy model, schedutil).
    pub eas: bool,
    /// The flag at the end of the run.
    pub overutilized: bool,
    pub overutilized_reads: u64,
    pub overutilized_writes: u64,
    /// Reads that found the line last written by another CPU.
    pub overutilized_line_misses: u64,
    /// Every access to the line holding overutilized and overloaded, the accesses that
    /// had to fetch it, and the time those transfers cost (machine `cacheline_*_ns`).
    pub line_accesses: u64,
    pub line_misses: u64,
    pub line_transfer_ns: u64,
}

/// The sched_domain_shared cache lines (has_idle_cores, nr_idle_scan, nr_busy_cpus, one
/// line per LLC), summed over the machine: accesses, fetches, and the time they stalled.
#[derive(Debug, Clone, Serialize)]
pub struct SharedLinesResult {
    pub accesses: u64,
    pub misses: u64,
    pub transfer_ns: u64,
}

/// Scheduler CPU time booked to one kernel function (perf report style).
#[derive(Debug, Clone, Serialize)]
pub struct ProfileEntry {
    pub function: String,
    pub ns: u64,
    /// Share of all CPU time of the machine (CPUs × simulated time), as perf's cycles
    /// percentages over every CPU including idle.
    pub pct: f64,
    /// Share of the CPUs' busy time (not idle, scheduler time included): perf's cycles
    /// percentage where idle CPUs sit in a state that stops the cycle counter.
    pub busy_pct: f64,
}

/// Energy of the whole machine from the OPP powers (the energy model's view: dynamic
/// power of busy CPUs, plus idle-state power where the machine defines one).
#[derive(Debug, Clone, Serialize)]
pub struct EnergyResult {
    pub total_mj: f64,
    pub avg_power_mw: f64,
}

/// Time at one frequency (cpufreq stats time_in_state: busy or idle).
#[derive(Debug, Clone, Serialize)]
pub struct FreqResidency {
    pub khz: u32,
    pub ns: u64,
    /// Of which the CPU was busy.
    pub busy_ns: u64,
}

/// Time in one idle state.
#[derive(Debug, Clone, Serialize)]
pub struct IdleResidency {
    pub state: String,
    pub ns: u64,
}

/// The settings the run used, after defaults and overrides.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioEcho {
    pub machine: String,
    pub nr_cpus: usize,
    /// Features that differ from the kernel version's defaults, debugfs syntax.
    pub features: Vec<String>,
    /// The kernel version modelled (`--kernel`); absent for the default (current) model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Machine costs the scenario set over the machine's (`[costs]`); absent without.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub costs: std::collections::BTreeMap<String, u64>,
    pub seed: u64,
    pub hz: u32,
    pub preempt: String,
    pub pelt_halflife_ms: u32,
    pub governor: String,
    /// schedutil's rate_limit_us as the scenario wrote it; absent for the kernel's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedutil_rate_limit_us: Option<u64>,
    /// The leaked UCLAMP_MIN every CPU started with (`uclamp_leaked_min`); absent without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uclamp_leaked_min: Option<u32>,
    /// Every settable sysctl with the value in effect.
    pub sysctl: std::collections::BTreeMap<String, u64>,
    pub duration_ns: u64,
    pub workloads: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimStats {
    /// Simulated time at the end of the run.
    pub time_ns: u64,
    /// Events processed by the engine.
    pub events: u64,
    /// `events` by kind (work completions, ticks, wake-up arrivals, …), kinds that
    /// occurred only.
    pub events_by_kind: std::collections::BTreeMap<String, u64>,
    /// Host wall-clock seconds the run took: the only field that differs between two
    /// identical runs.
    pub wall_s: f64,
    /// Why the run stopped: "time_limit" or "all_exited".
    pub stop_reason: String,
    /// Invariant checks that failed (SCHED_WARN_ON equivalents); 0 in a healthy run.
    pub invariant_violations: u64,
    /// The first few failure messages, for debugging.
    pub invariant_messages: Vec<String>,
}

/// perf stat's default software counters over all workload tasks (docs/model.md, Accounting).
#[derive(Debug, Clone, Serialize)]
pub struct PerfStat {
    pub context_switches: u64,
    pub cpu_migrations: u64,
    pub task_clock_ns: u64,
    pub cpus_utilized: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskResult {
    pub pid: u32,
    pub comm: String,
    /// The task's cgroup path; absent when the run has no groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    pub policy: String,
    /// sched_priority of a SCHED_FIFO / SCHED_RR task at the end; absent for the other
    /// policies (so fair-only results are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rt_priority: Option<u32>,
    /// The SCHED_DEADLINE parameters at the end; absent for the other policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dl: Option<DlResult>,
    pub nice: i32,
    /// se.sum_exec_runtime at the end.
    pub cpu_time_ns: u64,
    /// Time runnable but not running (schedstats wait_sum).
    pub wait_time_ns: u64,
    pub nr_switches: u64,
    pub nr_voluntary_switches: u64,
    pub nr_involuntary_switches: u64,
    /// se.nr_migrations (every CPU change).
    pub nr_migrations: u64,
    /// Wake-up to first run on a CPU.
    pub wakeup_latency_ns: LatencySummary,
    pub exited: bool,
    /// PELT signals as the kernel holds them at the end (last update, as
    /// /proc/PID/sched shows them): se.avg.util_avg, runnable_avg, load_avg.
    pub util_avg: u64,
    pub runnable_avg: u64,
    pub load_avg: u64,
    /// util_est without the UTIL_AVG_UNCHANGED flag.
    pub util_est: u64,
    /// util_avg averaged over the task's life, each value held until the next PELT update.
    pub util_avg_mean: f64,
}

/// A SCHED_DEADLINE task's parameters (sched_attr.sched_runtime / _deadline / _period).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DlResult {
    pub runtime_ns: u64,
    pub deadline_ns: u64,
    pub period_ns: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CpuResult {
    pub cpu: usize,
    /// Where the CPU sits (machine ids, docs/machines.md) and its capacity at top
    /// frequency, so results can be grouped by core, LLC, package or node.
    pub core: usize,
    pub llc: usize,
    pub package: usize,
    pub node: usize,
    pub capacity: u32,
    pub busy_ns: u64,
    pub idle_ns: u64,
    pub nr_switches: u64,
    /// CPU time spent in modelled scheduler paths (wake-ups, idle scans, balancing).
    pub sched_overhead_ns: u64,
    pub energy_mj: f64,
    pub freq_residency: Vec<FreqResidency>,
    pub idle_residency: Vec<IdleResidency>,
}
