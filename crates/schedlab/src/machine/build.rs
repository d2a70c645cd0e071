//! Building symmetric machines from a topology shape: nodes × packages × LLCs × cores ×
//! SMT threads, with Linux-style CPU numbering. Presets and tests use this; machine files
//! can describe anything else CPU by CPU.

use super::{Costs, Cpu, FreqDomain, Machine, Opp};
use crate::time::Ns;

/// How SMT siblings are numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtNumbering {
    /// Siblings are adjacent: core c has CPUs c·T .. c·T+T−1 (POWER, ARM).
    Adjacent,
    /// Thread t of core c is CPU c + t·cores (x86: siblings n and n + N/2).
    Strided,
}

/// A symmetric machine shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub name: String,
    pub packages: usize,
    /// NUMA nodes per package (NPS mode); packages are split evenly.
    pub nodes_per_package: usize,
    /// LLCs per NUMA node.
    pub llcs_per_node: usize,
    pub cores_per_llc: usize,
    /// Cores sharing a cluster (CLS level); 1 = no cluster level.
    pub cores_per_cluster: usize,
    pub threads_per_core: usize,
    pub numbering: SmtNumbering,
    /// NUMA distance between nodes of one package, and across packages.
    pub distance_same_package: u32,
    pub distance_remote: u32,
    /// One fixed frequency, kHz.
    pub khz: u32,
    pub costs: Costs,
}

impl Shape {
    /// A single-package, single-node, single-LLC shape of `cores` × `threads`.
    pub fn flat(name: &str, cores: usize, threads: usize) -> Shape {
        Shape {
            name: name.into(),
            packages: 1,
            nodes_per_package: 1,
            llcs_per_node: 1,
            cores_per_llc: cores,
            cores_per_cluster: 1,
            threads_per_core: threads,
            numbering: SmtNumbering::Adjacent,
            distance_same_package: 10,
            distance_remote: 20,
            khz: 2_000_000,
            costs: Costs::default(),
        }
    }

    pub fn nr_cores(&self) -> usize {
        self.packages * self.nodes_per_package * self.llcs_per_node * self.cores_per_llc
    }

    pub fn nr_cpus(&self) -> usize {
        self.nr_cores() * self.threads_per_core
    }

    /// Build the machine: every CPU capacity 1024, one frequency domain per package.
    pub fn build(&self) -> Machine {
        let cores = self.nr_cores();
        let t = self.threads_per_core;
        let cores_per_node = self.llcs_per_node * self.cores_per_llc;
        let cores_per_package = self.nodes_per_package * cores_per_node;
        let mut cpus = Vec::with_capacity(self.nr_cpus());
        for id in 0..self.nr_cpus() {
            let core = match self.numbering {
                SmtNumbering::Adjacent => id / t,
                SmtNumbering::Strided => id % cores,
            };
            let package = core / cores_per_package;
            cpus.push(Cpu {
                id,
                capacity: super::SCHED_CAPACITY_SCALE,
                core,
                cluster: core / self.cores_per_cluster.max(1),
                llc: core / self.cores_per_llc,
                package,
                numa_node: core / cores_per_node,
                freq_domain: package,
            });
        }
        let freq_domains = (0..self.packages)
            .map(|p| FreqDomain {
                cpus: cpus
                    .iter()
                    .filter(|c| c.package == p)
                    .map(|c| c.id)
                    .collect(),
                max_khz: self.khz,
                cur_khz: self.khz,
                opps: vec![Opp {
                    khz: self.khz,
                    uv: 0,
                    power_uw: 0,
                }],
                transition_latency_ns: 0 as Ns,
                idle_states: Vec::new(),
            })
            .collect();
        let nodes = self.packages * self.nodes_per_package;
        let numa_distance = (0..nodes)
            .map(|a| {
                (0..nodes)
                    .map(|b| {
                        if a == b {
                            10
                        } else if a / self.nodes_per_package == b / self.nodes_per_package {
                            self.distance_same_package
                        } else {
                            self.distance_remote
                        }
                    })
                    .collect()
            })
            .collect();
        Machine {
            name: self.name.clone(),
            cpus,
            freq_domains,
            numa_distance,
            node_reclaim_distance: super::RECLAIM_DISTANCE,
            costs: self.costs,
            kernel: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_numbering_pairs_n_and_n_plus_half() {
        let mut s = Shape::flat("x", 8, 2);
        s.numbering = SmtNumbering::Strided;
        s.cores_per_llc = 4;
        s.llcs_per_node = 2;
        let m = s.build();
        assert_eq!(m.nr_cpus(), 16);
        assert_eq!(m.cpus[3].core, m.cpus[11].core);
        assert_eq!(m.cpus[3].llc, 0);
        assert_eq!(m.cpus[4].llc, 1);
        assert_eq!(m.cpus[12].llc, 1);
    }

    #[test]
    fn adjacent_numbering_and_numa_distances() {
        let mut s = Shape::flat("y", 4, 8);
        s.packages = 2;
        s.cores_per_llc = 2;
        s.llcs_per_node = 2;
        let m = s.build();
        assert_eq!(m.nr_cpus(), 64);
        assert_eq!(m.cpus[7].core, 0);
        assert_eq!(m.cpus[8].core, 1);
        assert_eq!(m.cpus[63].package, 1);
        assert_eq!(m.numa_distance, vec![vec![10, 20], vec![20, 10]]);
        assert_eq!(m.freq_domains.len(), 2);
    }
}
