//! CPU capacity, fitting and the root domain's overutilized state (kernel/sched/fair.c).

use super::features::Feature;
use super::sim::shared_line::{SharedLine, Store};
use super::uclamp::UclampId;
use super::Sched;
use crate::machine::CpuId;
use crate::sched::sim::overhead::Stall;

/// fits_capacity: util < 80% of max (`cap · 1280 < max · 1024`).
pub fn fits_capacity(cap: u64, max: u64) -> bool {
    cap * 1280 < max * 1024
}

/// capacity_greater: a exceeds b by more than ~5%.
pub fn capacity_greater(a: u64, b: u64) -> bool {
    a * 1024 > b * 1078
}

/// struct root_domain's overutilized and overloaded flags. They share one cache line (as
/// on x86 and powerpc, seed 001), modelled by [`SharedLine`]: the counters are the
/// accesses seed 001 is about, and every miss costs scheduler time.
#[derive(Debug, Clone, Default)]
pub struct RootDomain {
    pub overutilized: bool,
    pub overutilized_reads: u64,
    pub overutilized_writes: u64,
    /// Reads of overutilized that had to fetch the line.
    pub overutilized_line_misses: u64,
    // load balancing (docs/model.md, Load balancing)
    /// rd->overloaded (set_rd_overloaded).
    pub overloaded: bool,
    /// rd->rto_count: CPUs with an RT task waiting that could run elsewhere (rto_mask is
    /// their rt_rq.overloaded).
    pub rto_count: u32,
    /// def_rt_bandwidth's period timer is running (one root domain: it is global).
    pub rt_period_active: bool,
    /// rd->dl_bw: the admitted deadline bandwidth (sched/dl).
    pub dl_bw: super::dl::DlBw,
    /// The line both flags live on.
    pub line: SharedLine,
}

/// scale_rt_capacity: the actual capacity less RT/DL/IRQ use, from the rq's signals.
fn scale_rt_capacity(machine: &crate::machine::Machine, rq: &super::Rq) -> u64 {
    let max = machine
        .arch_scale_cpu_capacity(rq.cpu)
        .saturating_sub(rq.avg_hw.load_avg);
    let irq = rq.avg_irq.util_avg;
    let used = rq.avg_rt.util_avg + rq.avg_dl.util_avg;
    if irq >= max || used >= max {
        return 1;
    }
    ((max - used) * (max - irq) / max).max(1)
}

impl Sched {
    /// sched_energy_enabled(): EAS runs when the machine has asymmetric CPU capacities, an
    /// energy model and schedutil (the requirements of Documentation/scheduler/
    /// sched-energy.rst, not topology.c's enabling code).
    pub fn sched_energy_enabled(&self) -> bool {
        self.cfg.eas_capable
            && self.cpufreq.governor == super::cpufreq_schedutil::Governor::Schedutil
    }

    /// Whether the machine could run EAS (asymmetric capacities and an energy model).
    pub fn machine_eas_capable(&self) -> bool {
        let m = &self.machine;
        let first = m.cpus[0].capacity;
        let asym = m.cpus.iter().any(|c| c.capacity != first);
        let em = m
            .freq_domains
            .iter()
            .all(|d| d.opps.len() > 1 && d.opps.iter().all(|o| o.power_uw > 0));
        asym && em
    }

    /// get_actual_cpu_capacity: arch capacity minus HW pressure.
    pub fn get_actual_cpu_capacity(&self, cpu: CpuId) -> u64 {
        let cap = self.arch_scale_cpu_capacity(cpu);
        cap.saturating_sub(self.rqs[cpu].avg_hw.load_avg)
    }

    /// arch_scale_cpu_capacity: the CPU's capacity at its top frequency (Sched's dense
    /// copy of Machine's).
    #[inline]
    pub fn arch_scale_cpu_capacity(&self, cpu: CpuId) -> u64 {
        debug_assert_eq!(
            self.capacity_orig[cpu], self.machine.cpus[cpu].capacity,
            "stale capacity_orig of CPU {cpu}"
        );
        u64::from(self.capacity_orig[cpu])
    }

    /// capacity_of(cpu) = rq->cpu_capacity: actual capacity less RT/DL/IRQ use
    /// (scale_rt_capacity) as of the signals' last update, rather than as of the last
    /// balance (docs/model.md, PELT and util_est).
    #[inline]
    pub fn capacity_of(&self, cpu: CpuId) -> u64 {
        self.rqs[cpu].scale_rt_capacity
    }

    /// Recompute `Rq::scale_rt_capacity` after avg_rt, avg_dl, avg_hw or avg_irq changed.
    #[inline]
    pub(crate) fn refresh_capacity(&mut self, cpu: CpuId) {
        self.rqs[cpu].scale_rt_capacity = scale_rt_capacity(&self.machine, &self.rqs[cpu]);
    }

    /// The cached capacity differs from its signals (an invariant check).
    pub(crate) fn stale_capacity(&self, cpu: CpuId) -> Option<(u64, u64)> {
        let want = scale_rt_capacity(&self.machine, &self.rqs[cpu]);
        let have = self.rqs[cpu].scale_rt_capacity;
        (want != have).then_some((have, want))
    }

    /// util_fits_cpu → 1 (fits), 0 (does not), −1 (fits but misses uclamp_min).
    pub fn util_fits_cpu(&self, util: u64, uclamp_min: u64, uclamp_max: u64, cpu: CpuId) -> i32 {
        let mut fits = fits_capacity(util, self.capacity_of(cpu));
        if !self.uclamp_is_used() {
            return fits as i32;
        }
        let cap_orig = self.arch_scale_cpu_capacity(cpu);
        if !(cap_orig == 1024 && uclamp_max == 1024) {
            fits |= uclamp_max <= cap_orig;
        }
        let uclamp_min = uclamp_min.min(uclamp_max);
        if fits && util < uclamp_min && uclamp_min > self.get_actual_cpu_capacity(cpu) {
            return -1;
        }
        fits as i32
    }

    /// task_fits_cpu: the task's util_est and clamps fit the CPU. 5.18 / 6.1
    /// (task_fits_capacity): fits_capacity(uclamp_task_util(p), capacity_of(cpu)).
    pub fn task_fits_cpu(&self, p: super::TaskId, cpu: CpuId) -> bool {
        let min = self.uclamp_eff_value(p, UclampId::Min) as u64;
        let max = self.uclamp_eff_value(p, UclampId::Max) as u64;
        if !self.cfg.kernel.has_util_fits_cpu() {
            return self.task_fits_capacity(self.task_util_est(p), min, max, cpu);
        }
        self.util_fits_cpu(self.task_util_est(p), min, max, cpu) > 0
    }

    /// task_fits_capacity (5.18 / 6.1): fits_capacity(uclamp_task_util(p), capacity_of(cpu)),
    /// the task's util_est within its clamps against the CPU's capacity, unclamped.
    pub(crate) fn task_fits_capacity(&self, util_est: u64, min: u64, max: u64, cpu: CpuId) -> bool {
        fits_capacity(
            Sched::uclamp_util_with(util_est, min, max),
            self.capacity_of(cpu),
        )
    }

    /// cpu_overutilized (v7.0). Under OVERUTIL_WITHOUT_EAS, the pre-v6.10
    /// form that does not look at EAS.
    pub fn cpu_overutilized(&self, cpu: CpuId) -> bool {
        if !self.overutilized_tracked() {
            return false;
        }
        let cap = self.arch_scale_cpu_capacity(cpu);
        let faster = self.util_est_faster(cpu, super::fair::util_est::UtilConsumer::Overutilized);
        self.util_overutilizes(cpu, self.cpu_util_cfs(cpu).max(faster.min(cap)))
    }

    /// cpu_overutilized can be true: EAS is on, or the pre-v6.10 rule applies.
    #[inline]
    pub(crate) fn overutilized_tracked(&self) -> bool {
        self.features.on(Feature::OVERUTIL_WITHOUT_EAS) || self.sched_energy_enabled()
    }

    /// cpu_overutilized past its EAS test, given the util it reads (the balancer's group
    /// walk has it already).
    #[inline]
    pub(crate) fn util_overutilizes(&self, cpu: CpuId, util: u64) -> bool {
        if !self.cfg.kernel.has_util_fits_cpu() {
            // 5.18 / 6.1: the utilisation against capacity_of, no clamps.
            return !fits_capacity(util, self.capacity_of(cpu));
        }
        let min = self.uclamp_rq_get(cpu, UclampId::Min);
        let max = self.uclamp_rq_get(cpu, UclampId::Max);
        self.util_fits_cpu(util, min, max, cpu) == 0
    }

    /// check_update_overutilized_status, from wake-up enqueues and the tick.
    /// v6.10+: nothing is read or written unless EAS is on.
    pub(crate) fn check_update_overutilized_status(&mut self, cpu: CpuId) {
        let legacy = self.features.on(Feature::OVERUTIL_WITHOUT_EAS);
        if !legacy && !self.sched_energy_enabled() {
            return;
        }
        if !self.rd_read_overutilized(cpu) && self.cpu_overutilized(cpu) {
            self.rd_write_overutilized(cpu, true);
        }
    }

    /// is_rd_overutilized: without EAS the system always counts as overutilized.
    pub fn is_rd_overutilized(&mut self, cpu: CpuId) -> bool {
        !self.sched_energy_enabled() || self.rd_read_overutilized(cpu)
    }

    /// set_rd_overutilized: only with EAS (or under the pre-v6.10 rule).
    pub fn set_rd_overutilized(&mut self, cpu: CpuId, v: bool) {
        if self.sched_energy_enabled() || self.features.on(Feature::OVERUTIL_WITHOUT_EAS) {
            self.rd_write_overutilized(cpu, v);
        }
    }

    /// A load of the root domain's line by `cpu`; the stall is charged to the running
    /// function (as sd_shared_read does for the LLC's line).
    fn rd_line_load(&mut self, cpu: CpuId) {
        let ns = self.rd.line.read(&self.machine, cpu, self.now);
        self.charge_sched_time(cpu, ns, Stall::Deferred);
    }

    /// A WRITE_ONCE to the root domain's line by `cpu`.
    fn rd_line_store(&mut self, cpu: CpuId) {
        let ns = self
            .rd
            .line
            .write(&self.machine, cpu, self.now, Store::Plain);
        self.charge_sched_time(cpu, ns, Stall::Deferred);
    }

    /// READ_ONCE(rd->overutilized) on `cpu`, paying for the line if it must be fetched.
    fn rd_read_overutilized(&mut self, cpu: CpuId) -> bool {
        let misses = self.rd.line.misses;
        self.rd_line_load(cpu);
        self.rd.overutilized_reads += 1;
        self.rd.overutilized_line_misses += self.rd.line.misses - misses;
        self.rd.overutilized
    }

    fn rd_write_overutilized(&mut self, cpu: CpuId, v: bool) {
        self.rd_line_store(cpu);
        self.rd.overutilized_writes += 1;
        self.rd.overutilized = v;
    }

    /// READ_ONCE(rd->overloaded) on `cpu` (same line as overutilized).
    pub(crate) fn rd_read_overloaded(&mut self, cpu: CpuId) -> bool {
        self.rd_line_load(cpu);
        self.rd.overloaded
    }

    /// WRITE_ONCE(rd->overloaded, v) on `cpu`.
    pub(crate) fn rd_write_overloaded(&mut self, cpu: CpuId, v: bool) {
        self.rd_line_store(cpu);
        self.rd.overloaded = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_and_greater_margins() {
        // 80%: 819 fits 1024 (819·1280 = 1,048,320 < 1,048,576), 820 does not.
        assert!(fits_capacity(819, 1024));
        assert!(!fits_capacity(820, 1024));
        // Little CPU 124: 99 fits (126,720 < 126,976), 100 does not (128,000).
        assert!(fits_capacity(99, 124));
        assert!(!fits_capacity(100, 124));
        assert!(capacity_greater(1024, 950));
        assert!(!capacity_greater(1024, 973));
    }
}
