//! The topology table and its masks (kernel/sched/topology.c): the default SMT/CLS/MC/PKG
//! levels, sched_init_numa's NODE and NUMA levels, and asym_cpu_capacity_classify.

use super::*;
use crate::machine::Machine;
use std::collections::BTreeMap;

/// The default topology table (SMT, CLS, MC, PKG) followed by sched_init_numa's NODE and
/// NUMA levels. Returns the table and the distinct node distances.
pub fn topology_table(m: &Machine) -> (Vec<TopologyLevel>, Vec<u32>) {
    let level = |name, mask, sd_flags, overlap, numa_level| TopologyLevel {
        name,
        mask,
        sd_flags,
        overlap,
        numa_level,
    };
    let mut t = vec![
        level(
            "SMT",
            LevelMask::Smt,
            SdFlags::SHARE_CPUCAPACITY | SdFlags::SHARE_LLC,
            false,
            0,
        ),
        level(
            "CLS",
            LevelMask::Cluster,
            SdFlags::CLUSTER | SdFlags::SHARE_LLC,
            false,
            0,
        ),
        level("MC", LevelMask::CoreGroup, SdFlags::SHARE_LLC, false, 0),
    ];
    // x86_has_numa_in_package: the package level would cut across NUMA nodes (SNC, NPS>1),
    // so x86 leaves PKG out and lets the NUMA levels span the package.
    let mut node_of_pkg = BTreeMap::new();
    let numa_in_package = m
        .cpus
        .iter()
        .any(|c| *node_of_pkg.entry(c.package).or_insert(c.numa_node) != c.numa_node);
    if !numa_in_package {
        t.push(level("PKG", LevelMask::Package, SdFlags::EMPTY, false, 0));
    }
    let mut distances: Vec<u32> = m.numa_distance.iter().flatten().copied().collect();
    distances.sort_unstable();
    distances.dedup();
    if distances.is_empty() {
        distances.push(10);
    }
    t.push(level("NODE", LevelMask::Numa, SdFlags::EMPTY, false, 0));
    for j in 1..distances.len() {
        t.push(level("NUMA", LevelMask::Numa, SdFlags::NUMA, true, j));
    }
    (t, distances)
}

/// The distinct arch capacities and their CPUs (the kernel's asym_cap_list).
pub(super) struct AsymCapacity {
    caps: Vec<u32>,
}

impl AsymCapacity {
    pub(super) fn new(m: &Machine) -> AsymCapacity {
        let mut caps: Vec<u32> = m.cpus.iter().map(|c| c.capacity).collect();
        caps.sort_unstable();
        caps.dedup();
        AsymCapacity { caps }
    }

    /// asym_cpu_capacity_classify: ≥ 2 capacity values in the span → ASYM; and when the
    /// span sees every value present in the machine → also _FULL.
    pub(super) fn classify(&self, m: &Machine, span: &CpuMask) -> SdFlags {
        if self.caps.len() < 2 {
            return SdFlags::EMPTY;
        }
        let mut seen = vec![false; self.caps.len()];
        for c in span.iter() {
            let i = self.caps.binary_search(&m.cpus[c].capacity).unwrap();
            seen[i] = true;
        }
        let count = seen.iter().filter(|&&s| s).count();
        if count < 2 {
            SdFlags::EMPTY
        } else if count < self.caps.len() {
            SdFlags::ASYM_CPUCAPACITY
        } else {
            SdFlags::ASYM_CPUCAPACITY | SdFlags::ASYM_CPUCAPACITY_FULL
        }
    }
}

/// tl->mask(cpu) for every level and CPU, one mask per distinct key. `intern` gives each
/// distinct mask its span id (the builder's span table); it is called level by level in key
/// order, which is what numbers the spans.
pub(super) fn level_spans(
    m: &Machine,
    levels: &[TopologyLevel],
    dist: &[u32],
    mut intern: impl FnMut(CpuMask) -> SpanId,
) -> Vec<Vec<SpanId>> {
    let n = m.nr_cpus();
    levels
        .iter()
        .map(|l| {
            let key = |c: CpuId| {
                let cpu = &m.cpus[c];
                match l.mask {
                    LevelMask::Smt => cpu.core,
                    LevelMask::Cluster => cpu.cluster,
                    LevelMask::CoreGroup => cpu.llc,
                    LevelMask::Package => cpu.package,
                    LevelMask::Numa => cpu.numa_node,
                }
            };
            let mut masks: BTreeMap<usize, CpuMask> = BTreeMap::new();
            if l.mask == LevelMask::Numa {
                // sched_domains_numa_masks[level][node]: nodes within the distance.
                let d = dist[l.numa_level];
                let within = |a: usize, b: usize| {
                    m.numa_distance
                        .get(a)
                        .and_then(|r| r.get(b))
                        .map_or(a == b, |&x| x <= d)
                };
                for c in 0..n {
                    let node = key(c);
                    if masks.contains_key(&node) {
                        continue;
                    }
                    let mask = CpuMask::from_cpus(
                        n,
                        (0..n).filter(|&o| within(node, m.cpus[o].numa_node)),
                    );
                    masks.insert(node, mask);
                }
            } else {
                for c in 0..n {
                    masks
                        .entry(key(c))
                        .or_insert_with(|| CpuMask::new(n))
                        .set(c);
                }
            }
            let ids: BTreeMap<usize, SpanId> = masks
                .into_iter()
                .map(|(k, mask)| (k, intern(mask)))
                .collect();
            (0..n).map(|c| ids[&key(c)]).collect()
        })
        .collect()
}
