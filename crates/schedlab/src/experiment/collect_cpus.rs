//! The per-CPU part of the result document: busy/idle time, time in each frequency and
//! idle state, and energy.

use crate::metrics::{CpuResult, EnergyResult, FreqResidency, IdleResidency};
use crate::sched::Sched;

/// µW·ns in one mJ.
const UW_NS_PER_MJ: f64 = 1e12;

/// Round to 6 decimals so the JSON carries no float noise.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// CPU results and the machine's energy, from a finished run (after finish_accounting).
pub fn cpu_results(s: &Sched) -> (Vec<CpuResult>, EnergyResult) {
    let time_ns = s.now;
    let mut total: u128 = 0;
    let cpus = s
        .rqs
        .iter()
        .map(|rq| {
            let c = &s.machine.cpus[rq.cpu];
            let d = &s.machine.freq_domains[c.freq_domain];
            let m = &rq.sim.meter;
            let energy = m.busy_energy + m.idle_energy;
            total += energy;
            CpuResult {
                cpu: rq.cpu,
                core: c.core,
                llc: c.llc,
                package: c.package,
                node: c.numa_node,
                capacity: c.capacity,
                busy_ns: busy_ns(rq, time_ns),
                idle_ns: rq.sim.idle_ns.min(time_ns),
                nr_switches: rq.nr_switches,
                sched_overhead_ns: s.overhead.cpu_ns[rq.cpu],
                energy_mj: round6(energy as f64 / UW_NS_PER_MJ),
                freq_residency: d
                    .opps
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| m.time_at[i] > 0)
                    .map(|(i, o)| FreqResidency {
                        khz: o.khz,
                        ns: m.time_at[i],
                        busy_ns: m.busy_at[i],
                    })
                    .collect(),
                idle_residency: d
                    .idle_states
                    .iter()
                    .enumerate()
                    .map(|(i, st)| IdleResidency {
                        state: st.name.clone(),
                        ns: m.idle_in[i],
                    })
                    .collect(),
            }
        })
        .collect();
    let total_mj = total as f64 / UW_NS_PER_MJ;
    let avg_power_mw = if time_ns == 0 {
        0.0
    } else {
        // mJ / s = mW.
        total_mj / (time_ns as f64 / 1e9)
    };
    (
        cpus,
        EnergyResult {
            total_mj: round6(total_mj),
            avg_power_mw: round6(avg_power_mw),
        },
    )
}

/// A CPU's busy time over a run of `time_ns`: everything but idle (scheduler time included).
pub(crate) fn busy_ns(rq: &crate::sched::Rq, time_ns: u64) -> u64 {
    time_ns - rq.sim.idle_ns.min(time_ns)
}
