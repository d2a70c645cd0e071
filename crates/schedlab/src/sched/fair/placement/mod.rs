//! Wake-up, fork and exec placement (docs/model.md, Wake-up, fork and exec placement).
//!
//! - `select`: the core wrapper and select_task_rq_fair's domain walk
//! - `idle_sibling`: select_idle_sibling and its fast checks (with seed 000's features)
//! - `idle_scan`: select_idle_cpu / select_idle_core / select_idle_smt and the idle-core hint
//! - `asym`: asym_fits_cpu and select_idle_capacity on asymmetric machines
//! - `energy`: find_energy_efficient_cpu
//! - `slow_path`: sched_balance_find_dst_cpu / _group / _group_cpu for fork and exec

mod asym;
mod energy;
mod idle_scan;
mod idle_sibling;
mod select;
mod slow_path;

/// Where placements went, schedstat style (cumulative over the run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PlacementStats {
    /// select_task_rq_fair calls (tasks allowed on more than one CPU).
    pub calls: u64,
    /// wake_affine chose the waking CPU over prev (schedstat ttwu_move_affine).
    pub move_affine: u64,
    /// find_energy_efficient_cpu ran, and how often it chose a CPU other than prev.
    pub feec_calls: u64,
    pub feec_moved: u64,
    /// Fork/exec placements through sched_balance_find_dst_cpu.
    pub slow_path: u64,
    /// select_idle_sibling outcomes: target, prev, recent_used_cpu, a scan (LLC, SMT or
    /// capacity) and the late fallback (target, or prev with SELECT_BIAS_PREV).
    pub sis_target: u64,
    pub sis_prev: u64,
    pub sis_recent: u64,
    pub sis_scan: u64,
    pub sis_fallback: u64,
    /// CPUs examined by scans, energy estimation and the slow path.
    pub cpus_visited: u64,
}
