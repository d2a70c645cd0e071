//! Server and VM presets built from a [`Shape`]: `smt:CxT`, `epyc-9654-2s`,
//! `power10-240c-smt8`, `vm8`. Sources and assumptions are in docs/machines.md; the
//! [Assumption] notes below are the choices the sources could not settle.

use super::build::{Shape, SmtNumbering};
use super::Machine;

/// `smt:CORESxTHREADS`: one package, one node, one LLC; SMT siblings adjacent
/// (core c = CPUs c·T .. c·T+T−1), as on ARM and POWER.
pub fn smt(cores: usize, threads: usize) -> Machine {
    Shape::flat(&format!("smt:{cores}x{threads}"), cores, threads).build()
}

/// AMD EPYC 9654 ×2 in NPS1 (docs/machines.md, `epyc-9654-2s`): 2 sockets × 12 CCX ×
/// 8 cores × SMT2.
/// x86 strided numbering: siblings n and n+192, socket 0 = CPUs 0-95 and 192-287.
/// L2 is per core, so there is no cluster above the core (CLS degenerates into SMT).
pub fn epyc_9654_2s() -> Machine {
    let mut m = Shape {
        name: "epyc-9654-2s".into(),
        packages: 2,
        nodes_per_package: 1,
        llcs_per_node: 12,
        cores_per_llc: 8,
        cores_per_cluster: 1,
        threads_per_core: 2,
        numbering: SmtNumbering::Strided,
        distance_same_package: 10,
        // [Assumption] the SLIT value 2P Genoa NPS1 systems commonly report (10/32).
        distance_remote: 32,
        // [Unverified] base clock 2.4 GHz; one fixed frequency (no OPP table).
        khz: 2_400_000,
        // The per-operation costs calibrated on a Zen host (docs/machines.md); the thread
        // gives none, and its ≈ 2 µs of CPU per message is a result to compare, not an input.
        // A line from another core of the CCX: 29 ns, measured on this repository's host,
        // itself a Genoa (family 19h model 11h, as the 9654) by `capture --calibrate`'s
        // `cacheline_pair_ns` (docs/machines.md). The pipe and socket bounces keep their
        // assumption, 4 lines at that cost; further levels stay estimates (120 / 300 ns).
        costs: super::Costs {
            cacheline_llc_ns: 29,
            pipe_bounce_ns: 4 * 29,
            socket_bounce_ns: 4 * 29,
            ..super::Costs::default()
        },
    }
    .build();
    // AMD Zen (family 19h): init_amd_zn raises node_reclaim_distance to 32, so the
    // remote socket keeps fork/exec balancing and wake-affine.
    m.node_reclaim_distance = super::RECLAIM_DISTANCE_AMD_ZEN;
    // acpi_idle's states from the _CST (acpi_processor_setup_cstates: target residency =
    // latency × latency_factor 2). [Assumption] C1 (MWAIT) exits in 1 µs; C2 (I/O port)
    // in 400 µs as an EPYC 7502P's _CST reports it (FreeBSD review D47444); Genoa's own
    // table was not found.
    let states = vec![
        super::IdleState {
            name: "C1".into(),
            exit_latency_ns: 1_000,
            target_residency_ns: 2_000,
            power_uw: 0,
        },
        super::IdleState {
            name: "C2".into(),
            exit_latency_ns: 400_000,
            target_residency_ns: 800_000,
            power_uw: 0,
        },
    ];
    for d in &mut m.freq_domains {
        d.idle_states = states.clone();
    }
    m
}

/// IBM Power E1080 LPAR with every core (docs/machines.md, `power10-240c-smt8`): 4 drawers ×
/// 4 chips × 15 cores × SMT8 = 1920 CPUs, adjacent numbering (core c = CPUs 8c..8c+7).
///
/// [Assumption] each chip is one package and one NUMA node (how PowerVM usually reports
/// a dedicated LPAR); distances 10 on the chip, 20 to another chip of the drawer, 40 to
/// another drawer (PowerVM's associativity doubling; no E1080 SLIT was found).
/// [Assumption] the LLC is the SMT8 core: Linux schedules with the L2/L3 shared only by a
/// 4-thread small core, which the Cpu fields cannot express inside an adjacent SMT8 core,
/// so the nearest expressible LLC is the big core.
pub fn power10_240c_smt8() -> Machine {
    const CHIPS_PER_DRAWER: usize = 4;
    let mut m = Shape {
        name: "power10-240c-smt8".into(),
        packages: 16,
        nodes_per_package: 1,
        llcs_per_node: 15,
        cores_per_llc: 1,
        cores_per_cluster: 1,
        threads_per_core: 8,
        numbering: SmtNumbering::Adjacent,
        distance_same_package: 10,
        distance_remote: 40,
        // [Unverified] a typical E1080 core clock (3.55-4.0 GHz range); fixed.
        khz: 3_900_000,
        costs: Default::default(),
    }
    .build();
    // The shape knows one remote distance; chips in one drawer are closer.
    for (a, row) in m.numa_distance.iter_mut().enumerate() {
        for (b, d) in row.iter_mut().enumerate() {
            if a != b && a / CHIPS_PER_DRAWER == b / CHIPS_PER_DRAWER {
                *d = 20;
            }
        }
    }
    // POWER's cache line is 128 bytes.
    m.costs.cache_line_bytes = 128;
    // powerpc defines RECLAIM_DISTANCE 10: no NUMA level balances forks or wake-ups.
    m.node_reclaim_distance = super::RECLAIM_DISTANCE_POWERPC;
    m
}

/// Seed 002's guest: "My virtual machine has 8 CPUs". Nothing else is known, so 8 vCPUs
/// with no SMT, one LLC, one node, at the default 2 GHz. Its study was set against
/// schbench's README calibration (a -F 256 -n 5 request ≈ 16.8 ms of math: 2990 ps per
/// multiply-add); the spinners' loop at 1 ns per iteration is an assumption (an unoptimised
/// loop's store-to-load forwarding on a core without memory renaming; docs/machines.md).
pub fn vm8() -> Machine {
    let mut m = Shape::flat("vm8", 8, 1).build();
    m.costs.matrix_mac_ps = 2_990;
    m.costs.spin_loop_ps = 1_000;
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(m: &Machine, f: impl Fn(&super::super::Cpu) -> bool) -> Vec<usize> {
        m.cpus.iter().filter(|c| f(c)).map(|c| c.id).collect()
    }

    #[test]
    fn epyc_numbering_matches_linux_2p_nps1() {
        let m = epyc_9654_2s();
        assert_eq!(m.nr_cpus(), 384);
        assert!(m.cpus.iter().enumerate().all(|(i, c)| c.id == i));
        // SMT sibling of 5 is 197, and no other CPU shares the core.
        assert_eq!(ids(&m, |c| c.core == m.cpus[5].core), vec![5, 197]);
        let llc0: Vec<usize> = (0..8).chain(192..200).collect();
        assert_eq!(ids(&m, |c| c.llc == m.cpus[0].llc), llc0);
        for cpu in [96, 288] {
            assert_eq!(m.cpus[cpu].package, 1);
            assert_eq!(m.cpus[cpu].numa_node, 1);
        }
        let socket0: Vec<usize> = (0..96).chain(192..288).collect();
        assert_eq!(ids(&m, |c| c.package == 0), socket0);
        assert_eq!(ids(&m, |c| c.numa_node == 0), socket0);
        // Every LLC holds 16 CPUs, and cluster = core (no CLS level).
        for l in 0..24 {
            assert_eq!(ids(&m, |c| c.llc == l).len(), 16);
        }
        assert!(m.cpus.iter().all(|c| c.cluster == c.core));
        assert_eq!(m.numa_distance, vec![vec![10, 32], vec![32, 10]]);
    }

    #[test]
    fn power10_is_1920_adjacent_smt8_cpus_in_16_nodes() {
        let m = power10_240c_smt8();
        assert_eq!(m.nr_cpus(), 1920);
        assert_eq!(
            ids(&m, |c| c.core == m.cpus[13].core),
            (8..16).collect::<Vec<_>>()
        );
        assert_eq!(m.cpus[1919].core, 239);
        assert_eq!(ids(&m, |c| c.numa_node == 0).len(), 120);
        assert_eq!(m.cpus[120].package, 1);
        assert_eq!(m.numa_distance.len(), 16);
        assert_eq!(m.numa_distance[0][..5], [10, 20, 20, 20, 40]);
        assert_eq!(m.numa_distance[5][4], 20);
    }

    #[test]
    fn smt_and_vm8() {
        let m = smt(4, 2);
        assert_eq!(m.nr_cpus(), 8);
        assert_eq!(m.cpus.iter().map(|c| c.core).max(), Some(3));
        assert_eq!(ids(&m, |c| c.core == 1), vec![2, 3]);
        assert!(m.cpus.iter().all(|c| c.llc == 0 && c.numa_node == 0));
        let v = vm8();
        assert_eq!(v.nr_cpus(), 8);
        assert_eq!(v.cpus[7].core, 7);
    }
}
