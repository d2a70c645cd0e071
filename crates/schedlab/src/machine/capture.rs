//! `schedlab machines capture`: the host's topology from sysfs, as a Machine (printed as
//! a machine file). The sysfs root is a parameter so tests can use a fake tree.
//!
//! Read per CPU (under devices/system/cpu/cpuN): topology/{core_cpus_list or
//! thread_siblings_list, physical_package_id, cluster_cpus_list}, cpu_capacity,
//! cache/indexK/{level,type,shared_cpu_list}, cpufreq/{related_cpus,
//! scaling_available_frequencies, cpuinfo_max_freq, cpuinfo_transition_latency}; and
//! devices/system/node/nodeN/{cpulist,distance}; without cpufreq, the `cpu MHz` lines of
//! /proc/cpuinfo. Missing files fall back (docs/machines.md): core = the CPU alone,
//! package 0, cluster = core, LLC = package, capacity 1024, one frequency domain per
//! package at the cpuinfo MHz (else 2 GHz), one node at distance 10. Idle states and the
//! energy model are not captured.

use super::cpulist::parse_cpulist;
use super::{Costs, Cpu, FreqDomain, Machine, Opp, SCHED_CAPACITY_SCALE};
use crate::error::InputError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const DEFAULT_KHZ: u32 = 2_000_000;

/// Read the machine under `root` (normally /sys; /proc/cpuinfo is read only then).
pub fn capture(root: &Path) -> Result<Machine, InputError> {
    let cpuinfo = if root == Path::new("/sys") {
        std::fs::read_to_string("/proc/cpuinfo").ok()
    } else {
        None
    };
    capture_with(root, cpuinfo.as_deref())
}

/// As `capture`, with the text of /proc/cpuinfo given (the frequency of CPUs without
/// cpufreq, as in most VMs).
pub fn capture_with(root: &Path, cpuinfo: Option<&str>) -> Result<Machine, InputError> {
    let cpuinfo_khz = cpuinfo.map(cpuinfo_khz).unwrap_or_default();
    let cpu_dir = root.join("devices/system/cpu");
    let n = count_cpus(&cpu_dir)?;
    let file = |cpu: usize, rel: &str| read(&cpu_dir.join(format!("cpu{cpu}/{rel}")));
    let list = |cpu: usize, rel: &str| -> Result<Option<Vec<usize>>, InputError> {
        let path = cpu_dir.join(format!("cpu{cpu}/{rel}"));
        match read(&path) {
            None => Ok(None),
            Some(s) => parse_cpulist(&s)
                .map(Some)
                .map_err(|m| unreadable(&path, &m)),
        }
    };
    // Groups are numbered densely by their lowest CPU, so ids are stable and compact.
    let mut core = vec![0; n];
    let mut cluster = vec![0; n];
    let mut llc = vec![0; n];
    let mut packages = Dense::default();
    let package: Vec<usize> = (0..n)
        .map(|cpu| {
            let raw = file(cpu, "topology/physical_package_id")
                .and_then(|s| s.trim().parse::<i64>().ok())
                .unwrap_or(0);
            packages.id(raw.max(0) as usize)
        })
        .collect();
    let (mut cores, mut clusters, mut llcs) =
        (Dense::default(), Dense::default(), Dense::default());
    for cpu in 0..n {
        let siblings = match list(cpu, "topology/core_cpus_list")? {
            Some(l) => Some(l),
            None => list(cpu, "topology/thread_siblings_list")?,
        };
        core[cpu] = cores.id(lowest(siblings, cpu));
        cluster[cpu] = match list(cpu, "topology/cluster_cpus_list")? {
            Some(l) => clusters.id(lowest(Some(l), cpu)),
            None => clusters.id(core[cpu] + n),
        };
        llc[cpu] = match last_level_cache(&cpu_dir.join(format!("cpu{cpu}/cache")))? {
            Some(l) => llcs.id(lowest(Some(l), cpu)),
            // No cache information: one LLC per package.
            None => llcs.id(package[cpu] + 2 * n),
        };
    }
    let (node, numa_distance) = nodes(&root.join("devices/system/node"), n)?;
    let capacity = capacities(n, |cpu| file(cpu, "cpu_capacity"));
    let read_file = |cpu: usize, rel: &str| file(cpu, rel);
    let (freq_domain, freq_domains) = freq_domains(n, &package, &read_file, &list, &cpuinfo_khz)?;
    let cpus = (0..n)
        .map(|id| Cpu {
            id,
            capacity: capacity[id],
            core: core[id],
            cluster: cluster[id],
            llc: llc[id],
            package: package[id],
            numa_node: node[id],
            freq_domain: freq_domain[id],
        })
        .collect();
    let m = Machine {
        name: "captured".into(),
        cpus,
        freq_domains,
        numa_distance,
        node_reclaim_distance: cpuinfo.map_or(super::RECLAIM_DISTANCE, node_reclaim_distance),
        costs: Costs::default(),
        kernel: None,
    };
    // What the host reported must make a machine the simulator accepts.
    super::machine_check::check(&m, &format!("sysfs under {}", root.display()))?;
    Ok(m)
}

/// The node_reclaim_distance the host's kernel sets: 32 on AMD Zen (`vendor_id`
/// AuthenticAMD, `cpu family` 23, 25 or 26: init_amd_zn / init_amd_zen_common in
/// arch/x86/kernel/cpu/amd.c), 10 on POWER (`cpu : POWERn`; powerpc's RECLAIM_DISTANCE),
/// else RECLAIM_DISTANCE.
pub fn node_reclaim_distance(cpuinfo: &str) -> u32 {
    let field = |key: &str| cpuinfo_fields(cpuinfo).find_map(|(k, v)| (k == key).then_some(v));
    let zen = field("vendor_id") == Some("AuthenticAMD")
        && matches!(field("cpu family"), Some("23" | "25" | "26"));
    let power = field("cpu").is_some_and(|c| c.starts_with("POWER"));
    if zen {
        super::RECLAIM_DISTANCE_AMD_ZEN
    } else if power {
        super::RECLAIM_DISTANCE_POWERPC
    } else {
        super::RECLAIM_DISTANCE
    }
}

/// Dense numbering of raw keys in order of first appearance.
#[derive(Default)]
struct Dense(BTreeMap<usize, usize>);

impl Dense {
    fn id(&mut self, key: usize) -> usize {
        let next = self.0.len();
        *self.0.entry(key).or_insert(next)
    }
}

fn lowest(list: Option<Vec<usize>>, cpu: usize) -> usize {
    list.and_then(|l| l.first().copied()).unwrap_or(cpu)
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn unreadable(path: &Path, why: &str) -> InputError {
    InputError::new(
        path.display().to_string(),
        format!("unreadable sysfs file: {why}"),
    )
    .with_fix("pass --sysfs DIR pointing at a sysfs root (with devices/system/cpu)")
}

/// CPUs are the cpuN directories; they must be numbered 0..N.
fn count_cpus(dir: &Path) -> Result<usize, InputError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        InputError::new(dir.display().to_string(), format!("cannot list CPUs: {e}"))
            .with_fix("pass --sysfs DIR pointing at a sysfs root (with devices/system/cpu)")
    })?;
    let mut ids: Vec<usize> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("cpu")?.parse().ok()
        })
        .collect();
    ids.sort_unstable();
    if ids.is_empty() {
        return Err(
            InputError::new(dir.display().to_string(), "no cpuN directories")
                .with_fix("pass --sysfs DIR pointing at a sysfs root (with devices/system/cpu)"),
        );
    }
    if ids.iter().enumerate().any(|(i, &id)| i != id) || ids.len() > super::limits::MAX_CPUS {
        return Err(InputError::new(
            dir.display().to_string(),
            "CPU directories are not numbered 0..N (CPUs missing?) or too many",
        )
        .with_fix("capture on a host whose possible CPUs are numbered contiguously"));
    }
    Ok(ids.len())
}

/// shared_cpu_list of the highest-level data or unified cache, if any cache is described.
fn last_level_cache(dir: &Path) -> Result<Option<Vec<usize>>, InputError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut best: Option<(u32, PathBuf)> = None;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if !p
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("index"))
        {
            continue;
        }
        if read(&p.join("type")).is_some_and(|t| t.trim() == "Instruction") {
            continue;
        }
        let Some(level) = read(&p.join("level")).and_then(|s| s.trim().parse().ok()) else {
            continue;
        };
        if best.as_ref().is_none_or(|(l, _)| level > *l) {
            best = Some((level, p));
        }
    }
    match best {
        None => Ok(None),
        Some((_, p)) => {
            let path = p.join("shared_cpu_list");
            match read(&path) {
                None => Ok(None),
                Some(s) => parse_cpulist(&s)
                    .map(Some)
                    .map_err(|m| unreadable(&path, &m)),
            }
        }
    }
}

/// cpu_capacity per CPU, scaled so the biggest is 1024; 1024 where missing.
fn capacities(n: usize, read: impl Fn(usize) -> Option<String>) -> Vec<u32> {
    let raw: Vec<Option<u64>> = (0..n)
        .map(|cpu| {
            read(cpu)
                .and_then(|s| s.trim().parse().ok())
                .filter(|&c| c > 0)
        })
        .collect();
    let max = raw.iter().flatten().copied().max().unwrap_or(1024);
    raw.iter()
        .map(|c| match c {
            Some(c) => ((c * SCHED_CAPACITY_SCALE as u64 / max) as u32).max(1),
            None => SCHED_CAPACITY_SCALE,
        })
        .collect()
}

type ListFn<'a> = dyn Fn(usize, &str) -> Result<Option<Vec<usize>>, InputError> + 'a;

/// Frequency domains from cpufreq/related_cpus (else one per package), each with the
/// available frequencies of its first CPU (else cpuinfo_max_freq, else the highest
/// /proc/cpuinfo `cpu MHz` of its CPUs, else 2 GHz).
fn freq_domains(
    n: usize,
    package: &[usize],
    file: &dyn Fn(usize, &str) -> Option<String>,
    list: &ListFn<'_>,
    cpuinfo_khz: &BTreeMap<usize, u32>,
) -> Result<(Vec<usize>, Vec<FreqDomain>), InputError> {
    let mut dense = Dense::default();
    let mut of_cpu = vec![0; n];
    for cpu in 0..n {
        of_cpu[cpu] = match list(cpu, "cpufreq/related_cpus")? {
            Some(l) if !l.is_empty() => dense.id(l[0]),
            _ => dense.id(n + package[cpu]),
        };
    }
    let mut domains = Vec::new();
    for d in 0..dense.0.len() {
        let cpus: Vec<usize> = (0..n).filter(|&c| of_cpu[c] == d).collect();
        let first = cpus[0];
        let mut khz: Vec<u32> = file(first, "cpufreq/scaling_available_frequencies")
            .map(|s| {
                s.split_whitespace()
                    .filter_map(|f| f.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        khz.retain(|&f| f > 0);
        if khz.is_empty() {
            let max = file(first, "cpufreq/cpuinfo_max_freq").and_then(|s| s.trim().parse().ok());
            let from_cpuinfo = cpus
                .iter()
                .filter_map(|c| cpuinfo_khz.get(c))
                .max()
                .copied();
            khz.push(
                max.filter(|&f| f > 0)
                    .or(from_cpuinfo)
                    .unwrap_or(DEFAULT_KHZ),
            );
        }
        khz.sort_unstable();
        khz.dedup();
        let max_khz = *khz.last().expect("at least one frequency");
        let latency = file(first, "cpufreq/cpuinfo_transition_latency")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        domains.push(FreqDomain {
            cpus,
            max_khz,
            cur_khz: max_khz,
            opps: khz
                .iter()
                .map(|&khz| Opp {
                    khz,
                    uv: 0,
                    power_uw: 0,
                })
                .collect(),
            transition_latency_ns: latency,
            idle_states: Vec::new(),
        });
    }
    Ok((of_cpu, domains))
}

/// The `key : value` lines of /proc/cpuinfo, both sides trimmed, in order.
fn cpuinfo_fields(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|l| {
        let (k, v) = l.split_once(':')?;
        Some((k.trim(), v.trim()))
    })
}

/// `cpu MHz` of each `processor` in /proc/cpuinfo, in kHz rounded to whole MHz (the
/// value wobbles by a few kHz between reads on VMs); non-positive values are left out.
pub fn cpuinfo_khz(text: &str) -> BTreeMap<usize, u32> {
    let mut out = BTreeMap::new();
    let mut cpu = None;
    for (key, value) in cpuinfo_fields(text) {
        match key {
            "processor" => cpu = value.parse::<usize>().ok(),
            "cpu MHz" => {
                let mhz = value.parse::<f64>().ok().filter(|m| *m >= 1.0 && *m < 1e6);
                if let (Some(c), Some(m)) = (cpu, mhz) {
                    out.insert(c, m.round() as u32 * 1000);
                }
            }
            _ => {}
        }
    }
    out
}

/// Each CPU's node from nodeN/cpulist, and the distance matrix of the nodes that have
/// CPUs (memory-only nodes are dropped; node ids are renumbered densely).
fn nodes(dir: &Path, n: usize) -> Result<(Vec<usize>, Vec<Vec<u32>>), InputError> {
    let mut raw: Vec<usize> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .strip_prefix("node")?
                    .parse()
                    .ok()
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    raw.sort_unstable();
    let mut node = vec![usize::MAX; n];
    let mut kept = Vec::new();
    for &r in &raw {
        let path = dir.join(format!("node{r}/cpulist"));
        let Some(text) = read(&path) else { continue };
        let cpus = parse_cpulist(&text).map_err(|m| unreadable(&path, &m))?;
        if cpus.is_empty() {
            continue;
        }
        for c in cpus.into_iter().filter(|&c| c < n) {
            node[c] = kept.len();
        }
        kept.push(r);
    }
    if kept.is_empty() || node.contains(&usize::MAX) {
        // No usable NUMA description: one node.
        return Ok((vec![0; n], vec![vec![10]]));
    }
    let mut dist = Vec::with_capacity(kept.len());
    for &r in &kept {
        let path = dir.join(format!("node{r}/distance"));
        let text = read(&path).ok_or_else(|| unreadable(&path, "missing"))?;
        let row: Vec<u32> = text
            .split_whitespace()
            .map(|v| {
                v.parse()
                    .map_err(|_| unreadable(&path, "not a list of numbers"))
            })
            .collect::<Result<_, _>>()?;
        // Columns follow the raw node ids in ascending order.
        let pick: Option<Vec<u32>> = kept
            .iter()
            .map(|k| {
                raw.iter()
                    .position(|x| x == k)
                    .and_then(|i| row.get(i).copied())
            })
            .collect();
        dist.push(pick.ok_or_else(|| unreadable(&path, "fewer columns than nodes"))?);
    }
    Ok((node, dist))
}
