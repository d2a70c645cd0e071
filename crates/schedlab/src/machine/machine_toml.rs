//! Machine files: a machine described in TOML (every key in docs/machines.md), either by
//! a symmetric `[shape]` or CPU by CPU (`cpu` array + `freq_domain` array). Structure and
//! unknown keys are checked by serde (`machine_toml_schema`); meaning (ids, domains, distances, capacities, OPPs)
//! by `machine_check`. The writer is `machine_toml_write`.

use super::build::{Shape, SmtNumbering};
use super::cpulist::parse_cpulist;
use super::limits::MAX_CPUS;
use super::machine_toml_schema::{CpuSet, CpuToml, DomainToml, FileToml, OppToml, ShapeToml};
use super::opp::of_dynamic_power_uw;
use super::{Costs, FreqDomain, IdleState, Machine, Opp};
use crate::error::InputError;
use std::path::Path;

pub use super::machine_toml_write::machine_to_toml;

/// Read a machine file. Relative paths start at the current directory.
pub fn load_machine(path: &Path) -> Result<Machine, InputError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        InputError::new(&origin, format!("cannot read the machine file: {e}")).with_fix(
            "check the path (relative paths start at the current directory) or use a preset",
        )
    })?;
    let mut m = parse_machine(&text, &origin)?;
    if m.name.is_empty() {
        m.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    Ok(m)
}

/// Parse and validate machine TOML. `origin` names the file in errors. A file without
/// `name` gets an empty name (load_machine fills in the file stem).
pub fn parse_machine(text: &str, origin: &str) -> Result<Machine, InputError> {
    let file: FileToml = toml::from_str(text).map_err(|e| {
        let at = match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
                format!("{origin}:{line}:{col}")
            }
            None => origin.to_string(),
        };
        let msg = match e.message().trim() {
            // The toml crate gives some syntax errors no text (found by fuzzing: `a =`).
            "" => "malformed TOML: a key without a value, or an unclosed bracket".to_string(),
            m => m.replace('\n', "; "),
        };
        InputError::new(at, msg).with_fix("see docs/machines.md for every key")
    })?;
    let name = file.name.clone().unwrap_or_default();
    let costs = file.costs.unwrap_or_default();
    costs.check().map_err(|e| {
        InputError::new(format!("{origin}: [costs]"), e)
            .with_fix("give a valid value or leave the key out")
    })?;
    let mut m = match (&file.shape, &file.cpu, &file.freq_domain) {
        (Some(shape), None, None) => from_shape(shape, &name, costs, origin)?,
        (None, Some(cpus), Some(domains)) => from_cpus(cpus, domains, &name, costs, origin)?,
        (Some(_), _, _) => {
            return Err(InputError::new(
                origin,
                "[shape] cannot be combined with cpu or freq_domain",
            )
            .with_fix("describe the machine either by [shape] or CPU by CPU"))
        }
        (None, None, _) | (None, _, None) => {
            return Err(InputError::new(
                origin,
                "the file describes no CPUs, or no frequency domains",
            )
            .with_fix("add a [shape] table, or both [[cpu]] and [[freq_domain]] entries"))
        }
    };
    m.kernel = kernel_version(&file, origin)?;
    let (distance, reclaim) = match file.numa {
        Some(numa) => (numa.distance, numa.node_reclaim_distance),
        None => (None, None),
    };
    match distance {
        Some(d) => m.numa_distance = d,
        None if file.shape.is_none() => {
            // One node needs no table; several must say how far apart they are.
            let nodes = m.cpus.iter().map(|c| c.numa_node).max().unwrap_or(0) + 1;
            if nodes > 1 {
                return Err(InputError::new(
                    format!("{origin}: numa.distance"),
                    format!("the CPUs sit in {nodes} NUMA nodes but there is no distance table"),
                )
                .with_fix("add [numa] distance = [[10, 20], [20, 10], ...], one row per node"));
            }
            m.numa_distance = vec![vec![10]];
        }
        None => {}
    }
    if let Some(d) = reclaim {
        m.node_reclaim_distance = d;
    }
    super::machine_check::check(&m, origin)?;
    Ok(m)
}

fn from_shape(
    s: &ShapeToml,
    name: &str,
    costs: Costs,
    origin: &str,
) -> Result<Machine, InputError> {
    let at = |key: &str| format!("{origin}: shape.{key}");
    let numbering = match s.numbering.as_deref().unwrap_or("adjacent") {
        "adjacent" => SmtNumbering::Adjacent,
        "strided" => SmtNumbering::Strided,
        other => {
            return Err(
                InputError::new(at("numbering"), format!("unknown numbering '{other}'")).with_fix(
                    "use \"adjacent\" (siblings c·T..c·T+T-1) or \"strided\" (x86: n, n+N/T)",
                ),
            )
        }
    };
    let shape = Shape {
        name: name.to_string(),
        packages: s.packages.unwrap_or(1),
        nodes_per_package: s.nodes_per_package.unwrap_or(1),
        llcs_per_node: s.llcs_per_node.unwrap_or(1),
        cores_per_llc: s.cores_per_llc,
        cores_per_cluster: s.cores_per_cluster.unwrap_or(1),
        threads_per_core: s.threads_per_core.unwrap_or(1),
        numbering,
        distance_same_package: s.distance_same_package.unwrap_or(10),
        distance_remote: s.distance_remote.unwrap_or(20),
        khz: s.khz.unwrap_or(2_000_000),
        costs,
    };
    let counts = [
        ("packages", shape.packages),
        ("nodes_per_package", shape.nodes_per_package),
        ("llcs_per_node", shape.llcs_per_node),
        ("cores_per_llc", shape.cores_per_llc),
        ("cores_per_cluster", shape.cores_per_cluster),
        ("threads_per_core", shape.threads_per_core),
    ];
    for (key, n) in counts {
        if n == 0 || n > MAX_CPUS {
            return Err(
                InputError::new(at(key), format!("{n} is not a usable count"))
                    .with_fix(format!("use 1..={}", MAX_CPUS)),
            );
        }
    }
    let total = counts[..4]
        .iter()
        .chain(&counts[5..])
        .fold(1usize, |a, (_, n)| a.saturating_mul(*n));
    if total > MAX_CPUS {
        return Err(InputError::new(
            format!("{origin}: shape"),
            format!("the shape has {total} CPUs, more than {}", MAX_CPUS),
        )
        .with_fix("use smaller counts"));
    }
    if shape.khz == 0 {
        return Err(
            InputError::new(at("khz"), "a frequency of 0 kHz").with_fix("write e.g. khz = 2000000")
        );
    }
    Ok(shape.build())
}

fn from_cpus(
    cpus: &[CpuToml],
    domains: &[DomainToml],
    name: &str,
    costs: Costs,
    origin: &str,
) -> Result<Machine, InputError> {
    let mut freq_domains = Vec::with_capacity(domains.len());
    for (i, d) in domains.iter().enumerate() {
        freq_domains.push(domain(d, &format!("{origin}: freq_domain[{i}]"))?);
    }
    let cpus = super::machine_check::cpus_in_id_order(cpus, &mut freq_domains, origin)?;
    Ok(Machine {
        name: name.to_string(),
        cpus,
        freq_domains,
        numa_distance: Vec::new(),
        node_reclaim_distance: super::RECLAIM_DISTANCE,
        costs,
        kernel: None,
    })
}

fn domain(d: &DomainToml, at: &str) -> Result<FreqDomain, InputError> {
    let cpus = match &d.cpus {
        None => Vec::new(),
        Some(CpuSet::Ids(ids)) => {
            let mut v = ids.clone();
            v.sort_unstable();
            v
        }
        Some(CpuSet::List(s)) => parse_cpulist(s).map_err(|m| {
            InputError::new(format!("{at}.cpus"), m).with_fix("write e.g. cpus = \"0-3,8\"")
        })?,
    };
    let mut opps = Vec::with_capacity(d.opps.len());
    for (k, o) in d.opps.iter().enumerate() {
        opps.push(opp(o, &format!("{at}.opps[{k}]"))?);
    }
    let transition_latency_ns = match (d.transition_latency_ns, d.transition_latency_us) {
        (Some(_), Some(_)) => {
            return Err(
                InputError::new(at, "both transition_latency_ns and transition_latency_us")
                    .with_fix("keep one of them"),
            )
        }
        (Some(ns), None) => ns,
        (None, Some(us)) => us.saturating_mul(1000),
        (None, None) => 0,
    };
    // Real latencies are µs to ms; above 1 s is a typo (found by fuzzing: 2⁶³ µs
    // saturated to a value `machines show` could not write back as a TOML integer).
    if transition_latency_ns > 1_000_000_000 {
        return Err(InputError::new(
            format!("{at}.transition_latency"),
            format!("{transition_latency_ns} ns is more than 1 s"),
        )
        .with_fix("give the DT clock-latency, e.g. transition_latency_us = 500"));
    }
    let max_khz = opps.last().map(|o| o.khz).unwrap_or(0);
    let idle_states = d
        .idle_states
        .iter()
        .map(|s| IdleState {
            name: s.name.clone(),
            exit_latency_ns: s.exit_latency_ns,
            target_residency_ns: s.target_residency_ns,
            power_uw: s.power_uw,
        })
        .collect();
    Ok(FreqDomain {
        cpus,
        max_khz,
        cur_khz: d.cur_khz.unwrap_or(max_khz),
        opps,
        transition_latency_ns,
        idle_states,
    })
}

fn opp(o: &OppToml, at: &str) -> Result<Opp, InputError> {
    let fix = "write { khz = 1803000, uv = 906250, power_uw = 103597 } or \
               { mhz = 1803, mv = 906.25, coefficient = 70 }";
    match (o.khz, o.uv, o.power_uw, o.mhz, o.mv, o.coefficient) {
        (Some(khz), uv, power_uw, None, None, None) => Ok(Opp {
            khz,
            uv: uv.unwrap_or(0),
            power_uw: power_uw.unwrap_or(0),
        }),
        (None, None, None, Some(mhz), Some(mv), Some(c)) => {
            if !(0.0..=10_000.0).contains(&mv) {
                return Err(InputError::new(
                    format!("{at}.mv"),
                    format!("{mv} mV is not a voltage"),
                )
                .with_fix("write the OPP voltage in mV, e.g. mv = 906.25"));
            }
            let khz = mhz.checked_mul(1000).ok_or_else(|| {
                InputError::new(format!("{at}.mhz"), "frequency too large").with_fix(fix)
            })?;
            let uv = (mv * 1000.0).round() as u32;
            Ok(Opp {
                khz,
                uv,
                power_uw: of_dynamic_power_uw(c, khz, uv),
            })
        }
        _ => Err(InputError::new(at, "an OPP mixes or misses keys").with_fix(fix)),
    }
}

/// The `[kernel]` table's `version` ("6.5"): the kernel the machine runs, checked when a
/// scenario uses the machine (`machines capture --calibrate` writes the host's).
fn kernel_version(file: &FileToml, origin: &str) -> Result<Option<String>, InputError> {
    let Some(v) = file.kernel.as_ref().and_then(|k| k.get("version")) else {
        return Ok(None);
    };
    match v.as_str() {
        Some(s) => Ok(Some(s.to_string())),
        None => Err(
            InputError::new(format!("{origin}: kernel.version"), "expected a string")
                .with_fix("write version = \"6.18\""),
        ),
    }
}
