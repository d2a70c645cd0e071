//! The shape of a machine file as serde reads it (keys in docs/machines.md): unknown keys
//! are refused here, meaning is checked by `machine_check`. Shared by the reader
//! (`machine_toml`) and the checks so neither imports the other's internals.

use super::Costs;
use crate::time::Ns;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileToml {
    pub name: Option<String>,
    pub shape: Option<ShapeToml>,
    pub cpu: Option<Vec<CpuToml>>,
    pub freq_domain: Option<Vec<DomainToml>>,
    pub numa: Option<NumaToml>,
    pub costs: Option<Costs>,
    /// `machines capture --calibrate`: the measured kernel's settings and the raw
    /// calibration values; read by the CLI (schedlab-host), not by the machine model.
    #[allow(dead_code)]
    pub kernel: Option<toml::Table>,
    #[allow(dead_code)]
    pub calibration: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ShapeToml {
    pub packages: Option<usize>,
    pub nodes_per_package: Option<usize>,
    pub llcs_per_node: Option<usize>,
    pub cores_per_llc: usize,
    pub cores_per_cluster: Option<usize>,
    pub threads_per_core: Option<usize>,
    pub numbering: Option<String>,
    pub khz: Option<u32>,
    pub distance_same_package: Option<u32>,
    pub distance_remote: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CpuToml {
    pub id: usize,
    pub capacity: Option<u32>,
    pub core: Option<usize>,
    pub cluster: Option<usize>,
    pub llc: Option<usize>,
    pub package: Option<usize>,
    pub node: Option<usize>,
    pub freq_domain: Option<usize>,
}

/// A CPU set: a cpulist string ("0-3,8") or an array of ids.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum CpuSet {
    List(String),
    Ids(Vec<usize>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DomainToml {
    pub cpus: Option<CpuSet>,
    pub opps: Vec<OppToml>,
    pub cur_khz: Option<u32>,
    pub transition_latency_ns: Option<Ns>,
    pub transition_latency_us: Option<Ns>,
    #[serde(default)]
    pub idle_states: Vec<IdleToml>,
}

/// Either {khz, uv, power_uw} or {mhz, mv, coefficient} (the DT form; power from
/// drivers/opp/of.c's formula).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OppToml {
    pub khz: Option<u32>,
    pub uv: Option<u32>,
    pub power_uw: Option<u64>,
    pub mhz: Option<u32>,
    pub mv: Option<f64>,
    pub coefficient: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IdleToml {
    pub name: String,
    pub exit_latency_ns: Ns,
    pub target_residency_ns: Ns,
    #[serde(default)]
    pub power_uw: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NumaToml {
    pub distance: Option<Vec<Vec<u32>>>,
    /// node_reclaim_distance; RECLAIM_DISTANCE (30) when absent.
    pub node_reclaim_distance: Option<u32>,
}
