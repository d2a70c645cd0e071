//! find_energy_efficient_cpu: the EAS wake-up path (fair.c).

use crate::machine::CpuId;
use crate::sched::capacity::fits_capacity;
use crate::sched::energy_model::EnergyEnv;
use crate::sched::uclamp::UclampId;
use crate::sched::{Sched, TaskId};

/// One perf domain's candidate: fit class (1 fits, −1 misses only uclamp_min), spare
/// capacity and, for ranking the −1 class, actual capacity.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    cpu: CpuId,
    fits: i32,
    spare: u64,
    actual_cap: u64,
}

impl Sched {
    /// find_energy_efficient_cpu(p, prev_cpu): the CPU whose perf domain's energy grows
    /// least with p on it, against keeping p on prev_cpu. None when EAS has nothing to say
    /// (no EM, no asymmetric domain spanning prev, or no CPU fits).
    pub(super) fn find_energy_efficient_cpu(
        &mut self,
        p: TaskId,
        prev_cpu: CpuId,
        this_cpu: CpuId,
    ) -> Option<CpuId> {
        if self.em.is_empty() {
            return None;
        }
        // The lowest asymmetric-capacity domain of this CPU that spans prev_cpu.
        let mut sd = self.sd.cpus[this_cpu].sd_asym_cpucapacity;
        while let Some(d) = sd {
            if self.sd.span(d).contains(prev_cpu) {
                break;
            }
            sd = self.sd.domains[d].parent;
        }
        let sd = sd?;
        let se = self.tasks[p].se;
        self.sync_entity_load_avg(se);
        let p_min = self.uclamp_eff_value(p, UclampId::Min) as u64;
        let p_max = self.uclamp_eff_value(p, UclampId::Max) as u64;
        let classes = self.cfg.kernel.has_util_fits_cpu();
        // Nothing to place: a task without utilisation (v6.2+: and without a uclamp_min;
        // 5.18 and 6.1 look at the utilisation alone).
        if self.task_util_est(p) == 0 && (p_min == 0 || !classes) {
            return Some(prev_cpu);
        }
        let task_busy_time = self.eenv_task_busy_time(p, prev_cpu);
        // 5.18's margin is a share of the energy of every domain evaluated (base_energy).
        let mut base_energy = 0u64;
        let mut prev: Option<(i32, u64, u64)> = None; // (fits, energy delta, actual capacity)
        let mut best: Option<(Candidate, u64)> = None; // (candidate, energy delta)
        let mut best_delta = u64::MAX;
        for d in 0..self.machine.freq_domains.len() {
            let cpus = self.machine.freq_domains[d].cpus.clone();
            let cpu_actual_cap = self.get_actual_cpu_capacity(cpus[0]);
            let mut eenv = EnergyEnv {
                task_busy_time,
                pd_busy_time: 0,
                cpu_cap: cpu_actual_cap,
                pd_cap: cpu_actual_cap * cpus.len() as u64,
            };
            // Kernel starting point: class −1, spare 0, so a −1 CPU needs some spare.
            let (mut max_fits, mut max_spare_cap) = (-1, 0u64);
            let mut max_spare: Option<Candidate> = None;
            let mut prev_here: Option<(i32, u64)> = None; // (fits, spare)
            for &cpu in &cpus {
                if !self.sd.span(sd).contains(cpu) || !self.tasks[p].cpus_allowed[cpu] {
                    continue;
                }
                self.placement_visits += 1;
                let util = self.cpu_util(cpu, Some(p), Some(cpu), false);
                let cap = self.capacity_of(cpu);
                let (mut min, mut max) = (p_min, p_max);
                if self.uclamp_is_used() && !self.uclamp_rq_is_idle(cpu) {
                    min = min.max(self.uclamp_rq_get(cpu, UclampId::Min));
                    max = max.max(self.uclamp_rq_get(cpu, UclampId::Max));
                }
                let fits = if classes {
                    self.util_fits_cpu(util, min, max, cpu)
                } else {
                    // uclamp_rq_util_with, then fits_capacity: a yes or no.
                    fits_capacity(Sched::uclamp_util_with(util, min, max), cap) as i32
                };
                if fits == 0 {
                    continue;
                }
                let spare = cap.saturating_sub(util);
                if cpu == prev_cpu {
                    prev_here = Some((fits, spare));
                } else if fits > max_fits || (fits == max_fits && spare > max_spare_cap) {
                    // Better fit class first (1 over −1), then more spare capacity.
                    (max_fits, max_spare_cap) = (fits, spare);
                    max_spare = Some(Candidate {
                        cpu,
                        fits,
                        spare,
                        actual_cap: cpu_actual_cap,
                    });
                }
            }
            if max_spare.is_none() && prev_here.is_none() {
                continue;
            }
            if !self.cfg.kernel.has_per_cpu_compute_energy() {
                // 5.18's compute_energy sums its busy time per CPU itself.
                self.eenv_pd_busy_time(&mut eenv, d, p);
            }
            let base = self.compute_energy(&eenv, d, p, None);
            base_energy += base;
            if let Some((fits, _)) = prev_here {
                let e = self.compute_energy(&eenv, d, p, Some(prev_cpu));
                if e < base {
                    return Some(prev_cpu); // utilisation moved underneath us
                }
                let delta = e - base;
                prev = Some((fits, delta, cpu_actual_cap));
                best_delta = best_delta.min(delta);
            }
            let prev_spare = prev_here.map(|(_, s)| s);
            let Some(c) = max_spare else {
                continue;
            };
            if classes && prev_spare.is_some_and(|ps| c.spare <= ps) {
                continue;
            }
            if let Some((b, _)) = best {
                if c.fits < b.fits {
                    continue;
                }
                if c.fits < 0 && b.fits < 0 && c.actual_cap <= b.actual_cap {
                    continue;
                }
            }
            let e = self.compute_energy(&eenv, d, p, Some(c.cpu));
            if e < base {
                return Some(prev_cpu);
            }
            let cur_delta = e - base;
            if c.fits > 0 && best.is_some_and(|(b, _)| b.fits > 0) && cur_delta >= best_delta {
                continue;
            }
            best_delta = cur_delta;
            best = Some((c, cur_delta));
        }
        let Some((b, b_delta)) = best else {
            return Some(prev_cpu);
        };
        if self.cfg.kernel.feec_energy_margin() {
            // Leave prev_cpu only for a saving above 1/16 (prev unusable: always).
            let Some((_, prev_delta, _)) = prev else {
                return Some(b.cpu);
            };
            let saving = prev_delta.saturating_sub(b_delta);
            return Some(if saving > (prev_delta + base_energy) >> 4 {
                b.cpu
            } else {
                prev_cpu
            });
        }
        // A prev_cpu that was no candidate ranks as the kernel's initial values.
        let (prev_fits, prev_delta, prev_actual) = prev.unwrap_or((-1, u64::MAX, 0));
        let choose_best = b.fits > prev_fits
            || (b.fits > 0 && b_delta < prev_delta)
            || (b.fits < 0 && b.actual_cap > prev_actual);
        Some(if choose_best { b.cpu } else { prev_cpu })
    }
}
