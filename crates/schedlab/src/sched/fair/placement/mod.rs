//! Wake-up, fork and exec placement (spec placement §2, fair §6.5–§6.6).
//!
//! - `select`: the core wrapper and select_task_rq_fair's domain walk (§2.1–§2.2)
//! - `idle_sibling`: select_idle_sibling and its fast checks (§2.6, seed 000's features §2.10)
//! - `idle_scan`: select_idle_cpu / select_idle_core / select_idle_smt and the idle-core hint
//!   (§2.7)
//! - `asym`: asym_fits_cpu and select_idle_capacity on asymmetric machines (§2.8)
//! - `energy`: find_energy_efficient_cpu (fair §6.6)
//! - `slow_path`: sched_balance_find_dst_cpu / _group / _group_cpu for fork and exec (§2.9)

mod asym;
mod energy;
mod idle_scan;
mod idle_sibling;
mod select;
mod slow_path;

/// What a wake-up placement visited, for the CPU-time charge and the statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlacementStats {
    /// CPUs examined by idle scans, energy estimation and the slow path.
    pub cpus_visited: u64,
}
