//! Google Pixel 6 (Tensor GS101) and a DVFS-capable SMP machine built from its big core.
//!
//! Where each number comes from (summary: docs/machines.md, `pixel6` and `smp-dvfs:N`):
//! - capacities 124 ×4 (Cortex-A55), 427 ×2 (A76), 1024 ×2 (X1): seed 003's Pixel 6 figures
//!   (the mainline DT formula would give 160/498/1024; the seed's values are what the
//!   experiments we reproduce ran with);
//! - OPP tables (MHz @ µV) and dynamic-power coefficients 70/284/650: mainline
//!   gs101.dtsi; power per OPP from drivers/opp/of.c's formula (`opp::of_dynamic_power_uw`);
//! - clock-latency 500 µs for every cluster (DT);
//! - idle states: WFI (1 µs, as ARM's generic WFI state) and the DT's `c2` core power-down,
//!   with exit latency = entry + exit latency as dt_idle_states does, target residency =
//!   min-residency. Idle power is 0: the kernel's energy model has no idle or static power,
//!   so energy here is the EM's view (dynamic power of busy CPUs).

use super::opp::opp_table;
use super::{Costs, Cpu, FreqDomain, IdleState, Machine, Opp};
use crate::time::Ns;

const US: Ns = 1_000;

/// (MHz, µV) of the A55 cluster (CL0).
const CL0_A55: &[(u32, u32)] = &[
    (300, 537_500),
    (574, 600_000),
    (738, 618_750),
    (930, 668_750),
    (1098, 712_500),
    (1197, 731_250),
    (1328, 762_500),
    (1401, 781_250),
    (1598, 831_250),
    (1704, 862_500),
    (1803, 906_250),
];

/// (MHz, µV) of the A76 cluster (CL1).
const CL1_A76: &[(u32, u32)] = &[
    (400, 506_250),
    (553, 537_500),
    (696, 562_500),
    (799, 581_250),
    (910, 606_250),
    (1024, 625_000),
    (1197, 662_500),
    (1328, 687_500),
    (1491, 731_250),
    (1663, 775_000),
    (1836, 818_750),
    (1999, 868_750),
    (2130, 918_750),
    (2253, 968_750),
];

/// (MHz, µV) of the X1 cluster (CL2).
const CL2_X1: &[(u32, u32)] = &[
    (500, 500_000),
    (851, 556_250),
    (984, 575_000),
    (1106, 606_250),
    (1277, 631_250),
    (1426, 662_500),
    (1582, 693_750),
    (1745, 731_250),
    (1826, 750_000),
    (2048, 793_750),
    (2188, 831_250),
    (2252, 850_000),
    (2401, 887_500),
    (2507, 925_000),
    (2630, 968_750),
    (2704, 1_000_000),
    (2802, 1_056_250),
];

/// DT clock-latency-ns of every GS101 cluster.
const GS101_CLOCK_LATENCY_NS: Ns = 500_000;

/// WFI plus the DT's core power-down state with (entry + exit, min-residency) in µs.
fn idle_states(c2_entry_exit_us: Ns, c2_residency_us: Ns) -> Vec<IdleState> {
    vec![
        IdleState {
            name: "WFI".into(),
            exit_latency_ns: US,
            target_residency_ns: US,
            power_uw: 0,
        },
        IdleState {
            name: "c2".into(),
            exit_latency_ns: c2_entry_exit_us * US,
            target_residency_ns: c2_residency_us * US,
            power_uw: 0,
        },
    ]
}

fn domain(cpus: Vec<usize>, opps: Vec<Opp>, idle: Vec<IdleState>) -> FreqDomain {
    let max = opps.last().expect("an OPP table is never empty").khz;
    FreqDomain {
        cpus,
        max_khz: max,
        cur_khz: max,
        opps,
        transition_latency_ns: GS101_CLOCK_LATENCY_NS,
        idle_states: idle,
    }
}

fn cpu(id: usize, capacity: u32, freq_domain: usize) -> Cpu {
    Cpu {
        id,
        capacity,
        core: id,
        cluster: freq_domain,
        // One DSU L3 shared by all eight cores.
        llc: 0,
        package: 0,
        numa_node: 0,
        freq_domain,
    }
}

/// `pixel6`: 4 × A55 (124), 2 × A76 (427), 2 × X1 (1024), one frequency domain per cluster.
pub fn pixel6() -> Machine {
    let cpus = (0..8)
        .map(|id| match id {
            0..=3 => cpu(id, 124, 0),
            4..=5 => cpu(id, 427, 1),
            _ => cpu(id, 1024, 2),
        })
        .collect();
    Machine {
        name: "pixel6".into(),
        cpus,
        freq_domains: vec![
            domain(
                vec![0, 1, 2, 3],
                opp_table(70, CL0_A55),
                idle_states(230, 2000),
            ),
            domain(vec![4, 5], opp_table(284, CL1_A76), idle_states(340, 2500)),
            domain(vec![6, 7], opp_table(650, CL2_X1), idle_states(455, 3500)),
        ],
        numa_distance: vec![vec![10]],
        node_reclaim_distance: super::RECLAIM_DISTANCE,
        costs: Costs::default(),
        kernel: None,
    }
}

/// `smp-dvfs:N`: N identical CPUs of capacity 1024 in one frequency domain with the GS101
/// X1 OPP table, energy model and idle states.
pub fn smp_dvfs(n: usize) -> Machine {
    Machine {
        name: format!("smp-dvfs:{n}"),
        cpus: (0..n).map(|id| cpu(id, 1024, 0)).collect(),
        freq_domains: vec![domain(
            (0..n).collect(),
            opp_table(650, CL2_X1),
            idle_states(455, 3500),
        )],
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
    fn pixel6_matches_the_seed_and_the_dt() {
        let m = pixel6();
        let caps: Vec<u32> = m.cpus.iter().map(|c| c.capacity).collect();
        assert_eq!(caps, [124, 124, 124, 124, 427, 427, 1024, 1024]);
        let tops: Vec<u32> = m.freq_domains.iter().map(|d| d.max_khz).collect();
        assert_eq!(tops, [1_803_000, 2_253_000, 2_802_000]);
        let lens: Vec<usize> = m.freq_domains.iter().map(|d| d.opps.len()).collect();
        assert_eq!(lens, [11, 14, 17]);
        // Powers worked out by hand from the DT (mW, one decimal): A55 lowest 6.1, A76 top
        // 599.6, X1 1826 MHz 667.6.
        assert_eq!((m.freq_domains[0].opps[0].power_uw + 50) / 100, 61);
        assert_eq!((m.freq_domains[1].opps[13].power_uw + 50) / 100, 5996);
        assert_eq!((m.freq_domains[2].opps[8].power_uw + 50) / 100, 6676);
        for d in &m.freq_domains {
            assert!(d
                .opps
                .windows(2)
                .all(|w| w[0].khz < w[1].khz && w[0].power_uw < w[1].power_uw));
        }
        // Speed follows capacity × frequency.
        assert_eq!(m.speed(0), 124);
        assert_eq!(m.speed(7), 1024);
    }
}
