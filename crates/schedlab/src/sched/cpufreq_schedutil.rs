//! CPU frequency governors: schedutil (kernel/sched/cpufreq_schedutil.c) and the static ones
//! (performance, powersave, a fixed frequency). The IO-wait boost is in `cpufreq_iowait`. A frequency decision is applied by a
//! `FreqChange` event at the same instant, after the scheduler operation that triggered it
//! (the sugov kthread / fast-switch path), so no operation sees the speed change under it.

use super::fair::util_est::UtilConsumer;
use super::version::KernelVersion;
use super::Sched;
use crate::engine::Event;
use crate::machine::CpuId;
use crate::time::Ns;

/// `--governor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Governor {
    #[default]
    Schedutil,
    Performance,
    Powersave,
    /// The lowest OPP at or above this frequency (kHz) in every domain (userspace governor).
    Fixed(u32),
}

impl Governor {
    pub fn name(self) -> String {
        match self {
            Governor::Schedutil => "schedutil".into(),
            Governor::Performance => "performance".into(),
            Governor::Powersave => "powersave".into(),
            Governor::Fixed(khz) => format!("fixed:{}MHz", khz / 1000),
        }
    }

    /// Parse `schedutil`, `performance`, `powersave` or `fixed:MHZ` (e.g. `fixed:1401`).
    pub fn from_name(s: &str) -> Result<Governor, String> {
        match s {
            "schedutil" => Ok(Governor::Schedutil),
            "performance" => Ok(Governor::Performance),
            "powersave" => Ok(Governor::Powersave),
            _ => {
                let mhz = s
                    .strip_prefix("fixed:")
                    .map(|m| m.trim_end_matches("MHz"))
                    .and_then(|m| m.parse::<u32>().ok())
                    .filter(|&m| m > 0 && m < 100_000)
                    .ok_or(format!("unknown governor '{s}'"))?;
                Ok(Governor::Fixed(mhz * 1000))
            }
        }
    }
}

/// struct sugov_policy: one per frequency domain.
#[derive(Debug, Clone, Default)]
pub struct SugovPolicy {
    pub last_freq_update_time: Ns,
    /// freq_update_delay_ns (rate_limit_us · 1000).
    pub freq_update_delay_ns: Ns,
    pub next_freq: u32,
    pub cached_raw_freq: u64,
    pub need_freq_update: bool,
    /// A frequency change is queued and not yet applied.
    pub work_in_progress: bool,
    /// cpufreq_policy->min as resolved from scaling_min_freq (an OPP; 0 = none written).
    pub min_freq: u32,
    /// sugov_limits ran: the next update skips the rate limit and the cached frequency.
    pub limits_changed: bool,
}

/// struct sugov_cpu.
#[derive(Debug, Clone, Default)]
pub struct SugovCpu {
    pub util: u64,
    pub last_update: Ns,
    /// tick_nohz idle-calls count when the governor last looked (the "hold" heuristic).
    pub saved_idle_calls: u64,
    /// IO-wait boost, capacity units, and whether an IO wake-up renewed it.
    pub iowait_boost: u64,
    pub iowait_boost_pending: bool,
}

/// Governor state for the whole machine.
#[derive(Debug, Clone, Default)]
pub struct Cpufreq {
    pub governor: Governor,
    pub policies: Vec<SugovPolicy>,
    pub cpus: Vec<SugovCpu>,
}

/// cpufreq_policy_transition_delay_us (drivers/cpufreq/cpufreq.c), schedutil's rate limit:
/// 1.5 × the transition latency (v6.12+); before e13aa799c2a6 "cpufreq: Change default
/// transition delay to 2ms" (v6.9) 1000 × the latency capped at 10 ms, which gives
/// GS101's 500 µs clusters 10 ms (the patch names the Pixel 6); 1 ms when the driver
/// reports none. v6.9 – v6.11 (the 2 ms cap) are not modelled versions.
pub fn transition_delay_ns(latency_ns: Ns, kernel: KernelVersion) -> Ns {
    let us = latency_ns / 1000;
    if us == 0 {
        1_000_000
    } else if kernel.has_10ms_transition_delay_cap() {
        (us * 1000).min(10_000) * 1000
    } else {
        (us + (us >> 1)) * 1000
    }
}

/// map_util_perf: the 25% DVFS headroom.
pub fn map_util_perf(util: u64) -> u64 {
    util + (util >> 2)
}

/// map_util_freq: freq · util / cap.
pub fn map_util_freq(util: u64, freq: u64, cap: u64) -> u64 {
    freq * util / cap
}

impl Sched {
    /// Set up the governor: static ones pick their frequency now; schedutil starts from
    /// the boot frequency (the top OPP) with a clean policy.
    pub fn cpufreq_init(&mut self, governor: Governor) {
        let nd = self.machine.freq_domains.len();
        self.cpufreq = Cpufreq {
            governor,
            policies: (0..nd)
                .map(|d| SugovPolicy {
                    freq_update_delay_ns: transition_delay_ns(
                        self.machine.freq_domains[d].transition_latency_ns,
                        self.cfg.kernel,
                    ),
                    ..SugovPolicy::default()
                })
                .collect(),
            cpus: vec![SugovCpu::default(); self.machine.nr_cpus()],
        };
        for d in 0..nd {
            let dom = &self.machine.freq_domains[d];
            let khz = match governor {
                Governor::Schedutil | Governor::Performance => dom.max_khz,
                Governor::Powersave => dom.opps[0].khz,
                Governor::Fixed(khz) => dom.resolve_freq(khz as u64),
            };
            self.machine.freq_domains[d].cur_khz = khz;
        }
        self.refresh_base_speeds();
    }

    /// rate_limit_us_store: schedutil's rate limit written for every policy.
    pub fn sugov_set_rate_limit(&mut self, ns: Ns) {
        for p in &mut self.cpufreq.policies {
            p.freq_update_delay_ns = ns;
        }
    }

    /// cpufreq_update_util: a root cfs_rq's utilisation changed, or a task woke from IO
    /// wait (`flags`: SCHED_CPUFREQ_IOWAIT).
    pub fn cpufreq_update_util(&mut self, cpu: CpuId, flags: u32) {
        if self.cpufreq.governor != Governor::Schedutil {
            return;
        }
        let d = self.machine.cpus[cpu].freq_domain;
        if self.machine.freq_domains[d].opps.len() <= 1 {
            return;
        }
        let time = self.now;
        self.sugov_iowait_boost(cpu, time, flags);
        self.cpufreq.cpus[cpu].last_update = time;
        if !self.sugov_should_update_freq(d, time) {
            return;
        }
        let max_cap = self.arch_scale_cpu_capacity(cpu);
        let next_f = if self.machine.freq_domains[d].cpus.len() == 1 {
            // sugov_update_single_freq
            let boost = self.sugov_iowait_apply(cpu, time, max_cap);
            self.sugov_get_util(cpu, boost);
            let util = self.cpufreq.cpus[cpu].util;
            let mut next_f = self.get_next_freq(d, util, max_cap);
            let policy = &self.cpufreq.policies[d];
            let (prev, forced) = (policy.next_freq, policy.need_freq_update);
            if self.sugov_hold_freq(cpu) && next_f < prev && !forced {
                next_f = prev;
            }
            next_f
        } else {
            // sugov_next_freq_shared: the highest need in the policy.
            let mut util = 0;
            for k in 0..self.machine.freq_domains[d].cpus.len() {
                let j = self.machine.freq_domains[d].cpus[k];
                let boost = self.sugov_iowait_apply(j, time, max_cap);
                self.sugov_get_util(j, boost);
                util = util.max(self.cpufreq.cpus[j].util);
            }
            self.get_next_freq(d, util, max_cap)
        };
        if !self.sugov_update_next_freq(d, time, next_f) {
            return;
        }
        let policy = &mut self.cpufreq.policies[d];
        if !policy.work_in_progress {
            policy.work_in_progress = true;
            self.events.push(time, Event::FreqChange(d));
        }
    }

    /// sugov_should_update_freq: the rate limit.
    fn sugov_should_update_freq(&mut self, d: usize, time: Ns) -> bool {
        let p = &mut self.cpufreq.policies[d];
        if p.work_in_progress {
            return false;
        }
        if p.limits_changed {
            p.limits_changed = false;
            p.need_freq_update = true;
            return true;
        }
        p.need_freq_update || time.saturating_sub(p.last_freq_update_time) >= p.freq_update_delay_ns
    }

    /// sugov_update_next_freq: record a new target; false if nothing changes.
    fn sugov_update_next_freq(&mut self, d: usize, time: Ns, next_freq: u32) -> bool {
        let p = &mut self.cpufreq.policies[d];
        if p.need_freq_update {
            p.need_freq_update = false;
        } else if p.next_freq == next_freq {
            return false;
        }
        p.next_freq = next_freq;
        p.last_freq_update_time = time;
        true
    }

    /// get_next_freq: ref_freq · util / max_cap resolved to an OPP.
    fn get_next_freq(&mut self, d: usize, util: u64, max_cap: u64) -> u32 {
        let dom = &self.machine.freq_domains[d];
        let raw = map_util_freq(util, dom.max_khz as u64, max_cap);
        let p = &mut self.cpufreq.policies[d];
        if raw == p.cached_raw_freq && !p.need_freq_update {
            return p.next_freq;
        }
        p.cached_raw_freq = raw;
        // cpufreq_driver_resolve_freq clamps to policy->min (itself an OPP) first.
        next_freq_for(dom, util, max_cap).max(p.min_freq)
    }

    /// sugov_get_util: the CPU's performance request including headroom and clamps.
    #[inline]
    fn sugov_get_util(&mut self, cpu: CpuId, boost: u64) {
        let cap = self.arch_scale_cpu_capacity(cpu);
        let faster = self.util_est_faster(cpu, UtilConsumer::Freq);
        let util = self.cpu_util_cfs_boost(cpu).max(faster.min(cap));
        if self.cfg.kernel.has_headroom_on_clamped_util() {
            // ≤ v6.7: sugov_get_util, sugov_iowait_apply's clamped boost, then
            // get_next_freq's headroom (monotonic, so taken here instead of after the
            // policy's max over its CPUs).
            let mut util = self.effective_cpu_util_freq(cpu, util, None);
            if boost != 0 {
                util = util.max(self.uclamp_rq_util_with(cpu, boost, None));
            }
            self.cpufreq.cpus[cpu].util = map_util_perf(util);
            return;
        }
        let (util, min, max) = self.effective_cpu_util(cpu, util);
        let util = util.max(boost);
        self.cpufreq.cpus[cpu].util = sugov_effective_cpu_perf(util, min, max);
    }

    /// effective_cpu_util(cpu, util_cfs, FREQUENCY_UTIL, p) before v6.8 (core.c): RT
    /// runnable without uclamp asks for the top; util_cfs + RT clamped by the rq's (and
    /// `p`'s) uclamp; the CPU's capacity when CFS, RT and DL fill it; else scaled for IRQ,
    /// plus the DL bandwidth.
    pub fn effective_cpu_util_freq(
        &self,
        cpu: CpuId,
        util_cfs: u64,
        p: Option<super::TaskId>,
    ) -> u64 {
        let scale = self.arch_scale_cpu_capacity(cpu);
        let rq = &self.rqs[cpu];
        if !self.uclamp_is_used() && rq.rt.is_runnable() {
            return scale;
        }
        let irq = rq.avg_irq.util_avg;
        if irq >= scale {
            return scale;
        }
        let util = self.uclamp_rq_util_with(cpu, util_cfs + rq.avg_rt.util_avg, p);
        if util + rq.avg_dl.util_avg >= scale {
            return scale;
        }
        let util = util * (scale - irq) / scale + irq;
        (util + self.cpu_bw_dl(cpu)).min(scale)
    }

    /// sugov_hold_freq: keep the frequency if the CPU has not idled since the last look.
    fn sugov_hold_freq(&mut self, cpu: CpuId) -> bool {
        if self.uclamp_rq_is_capped(cpu) {
            return false;
        }
        let idle_calls = self.rqs[cpu].idle_calls;
        let c = &mut self.cpufreq.cpus[cpu];
        let hold = idle_calls == c.saved_idle_calls;
        c.saved_idle_calls = idle_calls;
        hold
    }

    /// effective_cpu_util(cpu, util_cfs, &min, &max) → (util, min, max) (fair.c).
    #[inline]
    pub fn effective_cpu_util(&self, cpu: CpuId, util_cfs: u64) -> (u64, u64, u64) {
        let scale = self.arch_scale_cpu_capacity(cpu);
        let rq = &self.rqs[cpu];
        let irq = rq.avg_irq.util_avg;
        if irq >= scale {
            return (scale, scale, scale);
        }
        // The minimum: IRQ plus the deadline bandwidth, or the uclamp floor; a runnable RT
        // rt_rq asks for the top (RT runs at max frequency unless uclamp is in use).
        let mut min =
            (irq + self.cpu_bw_dl(cpu)).max(self.uclamp_rq_get(cpu, super::uclamp::UclampId::Min));
        if !self.uclamp_is_used() && rq.rt.is_runnable() {
            min = scale;
        }
        let util = util_cfs + rq.avg_rt.util_avg + rq.avg_dl.util_avg;
        let max = scale.min(self.uclamp_rq_get(cpu, super::uclamp::UclampId::Max));
        if util >= scale {
            return (scale, min, max);
        }
        let util = util * (scale - irq) / scale + irq;
        (util.min(scale), min, max)
    }

    /// sched_cpu_util(cpu) = effective_cpu_util(cpu, cpu_util_cfs(cpu)).
    pub fn sched_cpu_util(&self, cpu: CpuId) -> u64 {
        self.effective_cpu_util(cpu, self.cpu_util_cfs(cpu)).0
    }

    /// The FreqChange event: the domain moves to its policy's next_freq. Every CPU of the
    /// domain is brought up to date at the old speed first.
    pub fn apply_freq_change(&mut self, d: usize) {
        let p = &mut self.cpufreq.policies[d];
        p.work_in_progress = false;
        // __cpufreq_driver_target clamps to the limits of the moment.
        let khz = p.next_freq.max(p.min_freq);
        self.set_domain_freq(d, khz);
    }

    /// store_scaling_min_freq for the policy of `cpu`: cpufreq_set_policy resolves the new
    /// minimum to an OPP (RELATION_L; 0 = the lowest), then the governor's limits
    /// callback runs: schedutil's sugov_limits applies them at once
    /// (cpufreq_policy_apply_limits: a policy below its new minimum moves up to it) and
    /// marks limits_changed; performance stays at the top; powersave runs at the minimum;
    /// userspace (`fixed`) clamps its set speed.
    pub fn cpufreq_set_min_freq(&mut self, cpu: CpuId, khz: u32) {
        let d = self.machine.cpus[cpu].freq_domain;
        let dom = &self.machine.freq_domains[d];
        let min = dom.resolve_freq(khz as u64);
        let (lowest, cur) = (dom.opps[0].khz, dom.cur_khz);
        self.cpufreq.policies[d].min_freq = if min == lowest { 0 } else { min };
        let target = match self.cpufreq.governor {
            Governor::Schedutil => {
                self.cpufreq.policies[d].limits_changed = true;
                cur.max(min)
            }
            Governor::Performance => cur,
            Governor::Powersave => min,
            Governor::Fixed(set) => self.machine.freq_domains[d]
                .resolve_freq(set as u64)
                .max(min),
        };
        self.set_domain_freq(d, target);
    }

    /// Move domain `d` to `khz`: settle progress, PELT clocks and the energy meter at the
    /// old speed, then re-time running work at the new one.
    pub fn set_domain_freq(&mut self, d: usize, khz: u32) {
        if khz == 0 || self.machine.freq_domains[d].cur_khz == khz {
            return;
        }
        let cpus = self.machine.freq_domains[d].cpus.clone();
        for &cpu in &cpus {
            self.update_rq_clock(cpu);
            self.meter_account(cpu);
            self.settle_progress(cpu);
        }
        self.machine.freq_domains[d].cur_khz = khz;
        self.refresh_base_speed(d);
        for &cpu in &cpus {
            self.arm_work(cpu);
        }
        self.trace_cpu_frequency(d);
    }
}

/// The OPP schedutil asks for a performance level `perf` (util with headroom and clamps
/// applied) on a CPU of capacity `max_cap`: ref_freq · perf / max_cap, resolved up.
pub fn next_freq_for(dom: &crate::machine::FreqDomain, perf: u64, max_cap: u64) -> u32 {
    dom.resolve_freq(map_util_freq(perf, dom.max_khz as u64, max_cap))
}

/// sugov_effective_cpu_perf: max(min, min(util + 25%, max)).
pub fn sugov_effective_cpu_perf(actual: u64, min: u64, max: u64) -> u64 {
    min.max(map_util_perf(actual).min(max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn governor_names_round_trip() {
        for g in [
            Governor::Schedutil,
            Governor::Performance,
            Governor::Powersave,
            Governor::Fixed(1_401_000),
        ] {
            assert_eq!(Governor::from_name(&g.name()).unwrap(), g);
        }
        assert_eq!(
            Governor::from_name("fixed:1401").unwrap(),
            Governor::Fixed(1_401_000)
        );
        assert!(Governor::from_name("ondemand").is_err());
        assert!(Governor::from_name("fixed:0").is_err());
    }

    #[test]
    fn headroom_and_rate_limit() {
        assert_eq!(map_util_perf(800), 1000);
        assert_eq!(sugov_effective_cpu_perf(800, 0, 1024), 1000);
        assert_eq!(sugov_effective_cpu_perf(900, 0, 1024), 1024);
        assert_eq!(sugov_effective_cpu_perf(100, 300, 1024), 300);
        assert_eq!(sugov_effective_cpu_perf(800, 0, 512), 512);
        assert_eq!(transition_delay_ns(500_000, KernelVersion::V6_12), 750_000);
        assert_eq!(transition_delay_ns(0, KernelVersion::Current), 1_000_000);
        // Before v6.9: 500 µs · 1000 capped at 10 ms (GS101); 5 µs → 5 ms; none → 1 ms.
        assert_eq!(
            transition_delay_ns(500_000, KernelVersion::V6_8),
            10_000_000
        );
        assert_eq!(transition_delay_ns(5_000, KernelVersion::V5_18), 5_000_000);
        assert_eq!(transition_delay_ns(0, KernelVersion::V6_6), 1_000_000);
    }
}
