//! Named machines: `smp:N`, `smp-dvfs:N`, `pixel6`, `smt:CxT`, `epyc-9654-2s`,
//! `power10-240c-smt8`, `vm8`, and machine files (`NAME.toml`, docs/machines.md).

use super::{Costs, Cpu, FreqDomain, Machine, Opp};
use crate::error::InputError;

pub use super::limits::MAX_CPUS;

/// Names accepted by [`machine_from_name`], for error messages and `schedlab machines`.
pub const PRESET_NAMES: &[&str] = &[
    "smp:N",
    "smp-dvfs:N",
    "pixel6",
    "smt:CORESxTHREADS",
    "epyc-9654-2s",
    "power10-240c-smt8",
    "vm8",
];

/// Fixed-name presets and one instance of each parameterised one, for `machines show`
/// examples and round-trip tests.
pub const PRESET_EXAMPLES: &[&str] = &[
    "smp:4",
    "smp-dvfs:4",
    "pixel6",
    "smt:4x2",
    "epyc-9654-2s",
    "power10-240c-smt8",
    "vm8",
];

/// One-line description of a preset in [`PRESET_NAMES`] (`schedlab machines`).
pub fn preset_description(name: &str) -> Option<&'static str> {
    match name {
        "smp:N" => Some(
            "N identical CPUs (capacity 1024, 2 GHz), one core each, one shared LLC, one node; \
             1 <= N <= 4096",
        ),
        "smp-dvfs:N" => Some(
            "N identical CPUs (capacity 1024) in one frequency domain with the GS101 Cortex-X1 \
             OPP table (500-2802 MHz), energy model and idle states",
        ),
        "pixel6" => Some(
            "Google Pixel 6 (GS101): 4x A55 (124), 2x A76 (427), 2x X1 (1024), one DVFS \
             domain per cluster, DT OPPs, energy model and idle states",
        ),
        "smt:CORESxTHREADS" => Some(
            "CORES cores x THREADS SMT threads (adjacent sibling numbering), one package, one \
             LLC, one node, 2 GHz; e.g. smt:4x2",
        ),
        "epyc-9654-2s" => Some(
            "2x AMD EPYC 9654 (Genoa), NPS1: 2 sockets x 12 CCX x 8 cores x SMT2 = 384 CPUs, \
             16-CPU LLCs, x86 numbering (siblings n, n+192), SLIT 10/32",
        ),
        "power10-240c-smt8" => Some(
            "IBM Power E1080: 4 drawers x 4 chips x 15 cores x SMT8 = 1920 CPUs, one node per \
             chip (distances 10/20/40, assumed), adjacent numbering",
        ),
        "vm8" => Some("seed 002's virtual machine: 8 vCPUs, no SMT, one LLC, one node"),
        _ => None,
    }
}

/// Build a machine from a preset name.
pub fn machine_from_name(name: &str) -> Result<Machine, InputError> {
    let origin = format!("machine '{name}'");
    if let Some(n) = name.strip_prefix("smp:") {
        return Ok(smp(cpu_count(n, &origin, "smp")?));
    }
    if let Some(n) = name.strip_prefix("smp-dvfs:") {
        return Ok(super::pixel6::smp_dvfs(cpu_count(n, &origin, "smp-dvfs")?));
    }
    if let Some(shape) = name.strip_prefix("smt:") {
        let (c, t) = smt_shape(shape, &origin)?;
        return Ok(super::servers::smt(c, t));
    }
    if name.ends_with(".toml") {
        return super::machine_toml::load_machine(std::path::Path::new(name));
    }
    match name {
        "pixel6" => return Ok(super::pixel6::pixel6()),
        "epyc-9654-2s" => return Ok(super::servers::epyc_9654_2s()),
        "power10-240c-smt8" => return Ok(super::servers::power10_240c_smt8()),
        "vm8" => return Ok(super::servers::vm8()),
        _ => {}
    }
    Err(
        InputError::new(&origin, "unknown machine").with_fix(format!(
            "known presets: {}; or a machine file ending in .toml",
            PRESET_NAMES.join(", ")
        )),
    )
}

/// CORES and THREADS of `smt:CORESxTHREADS`, with the CPU total checked.
fn smt_shape(s: &str, origin: &str) -> Result<(usize, usize), InputError> {
    let bad = || {
        InputError::new(
            origin,
            "expected smt:CORESxTHREADS with two positive numbers",
        )
        .with_fix("write e.g. smt:4x2")
    };
    let (c, t) = s.split_once('x').ok_or_else(bad)?;
    let (c, t): (usize, usize) = (c.parse().map_err(|_| bad())?, t.parse().map_err(|_| bad())?);
    if c == 0 || t == 0 {
        return Err(bad());
    }
    if c.saturating_mul(t) > MAX_CPUS {
        return Err(InputError::new(
            origin,
            format!("a machine needs at most {MAX_CPUS} CPUs, not {c}x{t}"),
        )
        .with_fix("use fewer cores or threads"));
    }
    Ok((c, t))
}

/// The N of `PREFIX:N`, checked against 1..=MAX_CPUS.
fn cpu_count(n: &str, origin: &str, prefix: &str) -> Result<usize, InputError> {
    let n: usize = n.parse().map_err(|_| {
        InputError::new(
            origin,
            format!("the CPU count after '{prefix}:' is not a number"),
        )
        .with_fix(format!("write e.g. {prefix}:8"))
    })?;
    if n == 0 || n > MAX_CPUS {
        return Err(InputError::new(
            origin,
            format!("a machine needs between 1 and {MAX_CPUS} CPUs, not {n}"),
        )
        .with_fix(format!("write e.g. {prefix}:8")));
    }
    Ok(n)
}

/// N identical CPUs, one core each, one LLC, one package, one node, one fixed frequency.
pub fn smp(n: usize) -> Machine {
    let cpus = (0..n)
        .map(|id| Cpu {
            id,
            capacity: super::SCHED_CAPACITY_SCALE,
            core: id,
            cluster: id,
            llc: 0,
            package: 0,
            numa_node: 0,
            freq_domain: 0,
        })
        .collect();
    Machine {
        name: format!("smp:{n}"),
        cpus,
        freq_domains: vec![FreqDomain {
            cpus: (0..n).collect(),
            max_khz: 2_000_000,
            cur_khz: 2_000_000,
            // One fixed operating point; no energy model.
            opps: vec![Opp {
                khz: 2_000_000,
                uv: 0,
                power_uw: 0,
            }],
            transition_latency_ns: 0,
            idle_states: Vec::new(),
        }],
        numa_distance: vec![vec![10]],
        node_reclaim_distance: super::RECLAIM_DISTANCE,
        costs: Costs::default(),
        kernel: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smp_preset() {
        let m = machine_from_name("smp:4").unwrap();
        assert_eq!(m.nr_cpus(), 4);
        assert_eq!(m.speed(3), 1024);
        assert!(machine_from_name("smp:0").is_err());
        assert!(machine_from_name("smp:x").is_err());
        let e = machine_from_name("cray-1").unwrap_err();
        assert!(e.to_string().contains("unknown machine"));
        assert_eq!(machine_from_name("smt:4x2").unwrap().nr_cpus(), 8);
        for bad in ["smt:4", "smt:0x2", "smt:x2", "smt:4096x2"] {
            assert!(machine_from_name(bad).is_err(), "{bad}");
        }
        for name in PRESET_EXAMPLES {
            assert!(machine_from_name(name).is_ok(), "{name}");
        }
        for name in PRESET_NAMES {
            assert!(
                preset_description(name).is_some(),
                "{name} has no description"
            );
        }
    }
}
