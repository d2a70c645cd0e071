//! Capacity-aware placement on asymmetric machines: asym_fits_cpu and
//! select_idle_capacity in the newest (tip, early 2026) form.

use super::idle_sibling::WakeeUtil;
use crate::machine::CpuId;
use crate::sched::topology::DomainId;
use crate::sched::{Sched, TaskId};

impl Sched {
    /// asym_fits_cpu: always true on symmetric machines; otherwise the task must fit
    /// (util_fits_cpu > 0) and, with SMT, the CPU's whole core must be idle.
    pub(super) fn asym_fits_cpu(&self, w: Option<WakeeUtil>, cpu: CpuId) -> bool {
        if !self.sd.sched_asym_cpucapacity {
            return true;
        }
        let Some(w) = w else {
            return true;
        };
        let fits = self.asym_task_fits(w, cpu) > 0;
        if self.cfg.kernel.select_idle_capacity_is_plain() {
            // 5.18 – 6.6 (asym_fits_capacity / asym_fits_cpu): no SMT condition.
            return fits;
        }
        fits && (!self.sd.sched_smt_present || self.is_core_idle(cpu))
    }

    /// The fit test of asym placement: util_fits_cpu's class, or on 5.18 / 6.1
    /// fits_capacity(uclamp_task_util(p), capacity_of(cpu)) (1 or 0).
    fn asym_task_fits(&self, w: WakeeUtil, cpu: CpuId) -> i32 {
        if self.cfg.kernel.has_util_fits_cpu() {
            return self.util_fits_cpu(w.util, w.min, w.max, cpu);
        }
        self.task_fits_capacity(w.util, w.min, w.max, cpu) as i32
    }

    /// select_idle_capacity(p, sd_asym, target): the first idle CPU the task fits on,
    /// preferring idle cores; otherwise the best-ranked idle CPU (rank: fits < uclamp_min
    /// miss < misfit, three better on an idle core), ties to the larger capacity.
    pub(super) fn select_idle_capacity(
        &mut self,
        p: TaskId,
        sd: DomainId,
        target: CpuId,
        w: WakeeUtil,
    ) -> Option<CpuId> {
        // 5.18 – 6.6: no idle-core preference nor scan budget; 6.5 scans from target + 1.
        let from_next = self.cfg.kernel.select_idle_capacity_from_next();
        let newest = !self.cfg.kernel.select_idle_capacity_is_plain();
        let has_idle_core = newest && self.sd.sched_smt_present && self.test_idle_cores(target);
        let mut nr = i64::MAX;
        if let Some(sh) = self.sd.domains[sd].shared.filter(|_| newest) {
            self.sd_shared_read(target, sh);
            nr = self.sd.shared[sh].nr_idle_scan as i64 + 1;
            if nr == 1 {
                return None;
            }
        }
        let mut best: Option<(i32, u64, CpuId)> = None;
        let span = self.sd.span(sd).clone();
        let start = if from_next { target + 1 } else { target };
        for cpu in span.iter_wrap(start) {
            if !self.tasks[p].cpus_allowed[cpu] {
                continue;
            }
            let preferred_core = !has_idle_core || self.is_core_idle(cpu);
            if !has_idle_core {
                nr -= 1;
                if nr <= 0 {
                    return best.map(|b| b.2);
                }
            }
            self.placement_visits += 1;
            if !self.choose_idle_cpu(cpu, p) {
                continue;
            }
            let fits = self.asym_task_fits(w, cpu);
            if fits > 0 && preferred_core {
                return Some(cpu);
            }
            let cap = if fits < 0 {
                self.get_actual_cpu_capacity(cpu)
            } else {
                self.capacity_of(cpu)
            };
            let mut rank = match fits {
                f if f > 0 => -2,
                f if f < 0 => -1,
                _ => 0,
            };
            if preferred_core {
                rank -= 3;
            }
            if best.is_none_or(|(r, c, _)| rank < r || (rank == r && cap > c)) {
                best = Some((rank, cap, cpu));
            }
        }
        if has_idle_core && best.is_none_or(|(r, _, _)| r > -3) {
            self.set_idle_cores(target, false);
        }
        best.map(|b| b.2)
    }
}
