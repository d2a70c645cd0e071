//! The energy model EAS reads (fair.c compute_energy, include/linux/energy_model.h, 6.9+
//! form): per perf domain, performance states with a cost, and the energy estimate of a
//! placement.

use super::cpufreq_schedutil::{map_util_perf, sugov_effective_cpu_perf};
use super::uclamp::UclampId;
use super::{Sched, TaskId};
use crate::machine::{CpuId, Machine};

/// struct em_perf_state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmPerfState {
    pub frequency: u32,
    /// µW.
    pub power: u64,
    /// Capacity delivered at this state: cap · f / f_max.
    pub performance: u64,
    /// 10 · power / performance.
    pub cost: u64,
}

/// struct em_perf_domain for frequency domain `d`: one state per OPP. (Inefficient-state
/// skipping is not modelled: every GS101 state is efficient.)
pub fn em_perf_domain(m: &Machine, d: usize) -> Vec<EmPerfState> {
    let dom = &m.freq_domains[d];
    let cap = m.arch_scale_cpu_capacity(dom.cpus[0]);
    dom.opps
        .iter()
        .map(|o| {
            let performance = (cap * o.khz as u64 / dom.max_khz as u64).max(1);
            EmPerfState {
                frequency: o.khz,
                power: o.power_uw,
                performance,
                cost: 10 * o.power_uw / performance,
            }
        })
        .collect()
}

/// em_cpu_energy: the first state whose performance covers `max_util` (capped at
/// `allowed_cap`) sets the cost; energy = cost · sum_util.
pub fn em_cpu_energy(table: &[EmPerfState], max_util: u64, sum_util: u64, allowed_cap: u64) -> u64 {
    if sum_util == 0 || table.is_empty() {
        return 0;
    }
    let max_util = max_util.min(allowed_cap);
    let ps = table
        .iter()
        .find(|ps| ps.performance >= max_util)
        .unwrap_or(table.last().expect("not empty"));
    ps.cost * sum_util
}

/// em_cpu_energy before v6.8: the headroom on `max_util` (capped at `allowed_cap`), then
/// the first state whose frequency covers top frequency · util / the CPU's capacity
/// (em_pd_get_efficient_state by frequency); energy = cost · sum_util.
pub fn em_cpu_energy_by_freq(
    table: &[EmPerfState],
    max_util: u64,
    sum_util: u64,
    allowed_cap: u64,
    scale_cpu: u64,
) -> u64 {
    let Some(top) = table.last() else {
        return 0;
    };
    if sum_util == 0 {
        return 0;
    }
    let max_util = map_util_perf(max_util).min(allowed_cap);
    let freq = top.frequency as u64 * max_util / scale_cpu;
    let ps = table
        .iter()
        .find(|ps| ps.frequency as u64 >= freq)
        .unwrap_or(top);
    ps.cost * sum_util
}

/// struct energy_env: the per-wake-up inputs of compute_energy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnergyEnv {
    pub task_busy_time: u64,
    pub pd_busy_time: u64,
    pub cpu_cap: u64,
    pub pd_cap: u64,
}

impl Sched {
    /// eenv_task_busy_time: task_util_est scaled for the IRQ share of `prev_cpu`.
    pub fn eenv_task_busy_time(&self, p: TaskId, prev_cpu: CpuId) -> u64 {
        let cap = self.arch_scale_cpu_capacity(prev_cpu);
        let irq = self.rqs[prev_cpu].avg_irq.util_avg;
        if irq >= cap {
            return cap;
        }
        let util = self.task_util_est(p);
        util * (cap - irq) / cap + irq
    }

    /// eenv_pd_busy_time: Σ effective utilisation of the domain's CPUs without p.
    pub fn eenv_pd_busy_time(&self, eenv: &mut EnergyEnv, d: usize, p: TaskId) {
        let busy: u64 = self.machine.freq_domains[d]
            .cpus
            .iter()
            .map(|&cpu| {
                self.effective_cpu_util(cpu, self.cpu_util(cpu, Some(p), None, false))
                    .0
            })
            .sum();
        eenv.pd_busy_time = busy.min(eenv.pd_cap);
    }

    /// eenv_pd_max_util: the highest performance request in the domain if p ran on `dst`
    /// (None: p not added), headroom and clamps included, capped at the CPU capacity.
    pub fn eenv_pd_max_util(
        &self,
        eenv: &EnergyEnv,
        d: usize,
        p: TaskId,
        dst: Option<CpuId>,
    ) -> u64 {
        let mut max_util = 0;
        let legacy = self.cfg.kernel.has_headroom_on_clamped_util();
        for &cpu in &self.machine.freq_domains[d].cpus {
            // cpu_util(cpu, p, dst_cpu, 1): runnable boosting from v6.5 (6.1: cpu_util_next).
            let util = self.cpu_util(cpu, Some(p), dst, self.cfg.kernel.has_runnable_boost());
            if legacy {
                // ≤ v6.7: FREQUENCY_UTIL with p's clamps on dst; em_cpu_energy adds the
                // headroom.
                let tsk = (dst == Some(cpu)).then_some(p);
                max_util = max_util.max(self.effective_cpu_util_freq(cpu, util, tsk));
                continue;
            }
            let (eff, mut min, mut max) = self.effective_cpu_util(cpu, util);
            if dst == Some(cpu) && self.uclamp_is_used() {
                min = min.max(self.uclamp_eff_value(p, UclampId::Min) as u64);
                let p_max = self.uclamp_eff_value(p, UclampId::Max) as u64;
                max = if self.uclamp_rq_is_idle(cpu) {
                    p_max
                } else {
                    max.max(p_max)
                };
            }
            max_util = max_util.max(sugov_effective_cpu_perf(eff, min, max));
        }
        max_util.min(eenv.cpu_cap)
    }

    /// compute_energy: the domain's energy with p on `dst` (None: without p).
    pub fn compute_energy(&self, eenv: &EnergyEnv, d: usize, p: TaskId, dst: Option<CpuId>) -> u64 {
        if self.cfg.kernel.has_per_cpu_compute_energy() {
            return self.compute_energy_per_cpu(eenv.cpu_cap, d, p, dst);
        }
        let max_util = self.eenv_pd_max_util(eenv, d, p, dst);
        let mut busy = eenv.pd_busy_time;
        if dst.is_some() {
            busy = (busy + eenv.task_busy_time).min(eenv.pd_cap);
        }
        if self.cfg.kernel.has_headroom_on_clamped_util() {
            let scale_cpu = self
                .machine
                .arch_scale_cpu_capacity(self.machine.freq_domains[d].cpus[0]);
            return em_cpu_energy_by_freq(&self.em[d], max_util, busy, eenv.cpu_cap, scale_cpu);
        }
        em_cpu_energy(&self.em[d], max_util, busy, eenv.cpu_cap)
    }

    /// compute_energy(p, dst_cpu, pd) before v6.0: per CPU, the busy time of what runs
    /// there (on dst the CPU without p plus p's task_util_est, not cpu_util_next's max of
    /// the sums) and the frequency request of cpu_util_next with p's clamps on dst, each
    /// capped at the CPU's capacity less thermal pressure (`cpu_cap`) before summing or
    /// taking the maximum.
    fn compute_energy_per_cpu(&self, cpu_cap: u64, d: usize, p: TaskId, dst: Option<CpuId>) -> u64 {
        let cpus = &self.machine.freq_domains[d].cpus;
        let scale_cpu = self.arch_scale_cpu_capacity(cpus[0]);
        let (mut max_util, mut sum_util) = (0, 0);
        for &cpu in cpus {
            let util_freq = self.cpu_util(cpu, Some(p), dst, false);
            let on_dst = dst == Some(cpu);
            let util_running = if on_dst {
                self.cpu_util(cpu, Some(p), None, false) + self.task_util_est(p)
            } else {
                util_freq
            };
            sum_util += self.effective_cpu_util(cpu, util_running).0.min(cpu_cap);
            let tsk = on_dst.then_some(p);
            max_util = max_util.max(
                self.effective_cpu_util_freq(cpu, util_freq, tsk)
                    .min(cpu_cap),
            );
        }
        em_cpu_energy_by_freq(&self.em[d], max_util, sum_util, cpu_cap, scale_cpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::pixel6::pixel6;

    #[test]
    fn pixel6_perf_states_match_the_spec_capacities() {
        let m = pixel6();
        let x1 = em_perf_domain(&m, 2);
        // Capacity per X1 OPP from the DT, worked out by hand: 183 … 521 (1426 MHz) … 1024.
        assert_eq!(x1[0].performance, 1024 * 500 / 2802);
        assert_eq!(x1[0].performance, 182); // 182.7, rounded by hand to 183
        assert_eq!(x1[5].performance, 521);
        assert_eq!(x1[16].performance, 1024);
        assert_eq!(x1[16].cost, 10 * 2_030_997 / 1024);
        let a55 = em_perf_domain(&m, 0);
        assert_eq!(a55.last().unwrap().performance, 124);
    }

    #[test]
    fn em_cpu_energy_picks_the_covering_state() {
        let m = pixel6();
        let x1 = em_perf_domain(&m, 2);
        // max_util 500 → first state with performance ≥ 500 is 1426 MHz (521).
        assert_eq!(em_cpu_energy(&x1, 500, 700, 1024), x1[5].cost * 700);
        // Above every state: the top one; capped by allowed_cap first.
        assert_eq!(em_cpu_energy(&x1, 5000, 10, 1024), x1[16].cost * 10);
        assert_eq!(x1[3].performance, 404); // 1106 MHz
        assert_eq!(em_cpu_energy(&x1, 5000, 10, 400), x1[3].cost * 10);
        assert_eq!(em_cpu_energy(&x1, 500, 0, 1024), 0);
    }

    #[test]
    fn before_v6_8_em_cpu_energy_adds_the_headroom_and_looks_up_by_frequency() {
        let m = pixel6();
        let x1 = em_perf_domain(&m, 2);
        // 400 → 500 → 2,802,000 · 500 / 1024 = 1,368,164 kHz → 1426 MHz (x1[5]); the
        // v6.8+ lookup of 400 itself stops at 1106 MHz (performance 404).
        assert_eq!(
            em_cpu_energy_by_freq(&x1, 400, 700, 1024, 1024),
            x1[5].cost * 700
        );
        assert_eq!(em_cpu_energy(&x1, 400, 700, 1024), x1[3].cost * 700);
        // The headroom is capped by the allowed capacity: 900 → 1125 → 1024 → the top.
        assert_eq!(
            em_cpu_energy_by_freq(&x1, 900, 10, 1024, 1024),
            x1[16].cost * 10
        );
        assert_eq!(em_cpu_energy_by_freq(&x1, 900, 0, 1024, 1024), 0);
    }
}
