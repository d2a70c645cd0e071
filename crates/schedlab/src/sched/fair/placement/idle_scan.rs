//! select_idle_cpu with the SIS_UTIL budget, select_idle_core, select_idle_smt and the
//! LLC's has_idle_cores hint (fair.c).

use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::sim::shared_line::Store;
use crate::sched::topology::{CpuMask, DomainId, SdFlags};
use crate::sched::{Sched, TaskId};

impl Sched {
    /// test_idle_cores: the LLC's hint that some core is wholly idle (a shared line read).
    pub fn test_idle_cores(&mut self, cpu: CpuId) -> bool {
        let Some(s) = self.sd.cpus[cpu].sd_llc_shared else {
            return false;
        };
        self.sd_shared_read(cpu, s);
        self.sd.shared[s].has_idle_cores
    }

    /// set_idle_cores (a shared line store).
    pub fn set_idle_cores(&mut self, cpu: CpuId, val: bool) {
        if let Some(s) = self.sd.cpus[cpu].sd_llc_shared {
            self.sd_shared_write(cpu, s, Store::Plain);
            self.sd.shared[s].has_idle_cores = val;
        }
    }

    /// __update_idle_core: a CPU going idle sets the hint when its whole core is now idle.
    pub(crate) fn update_idle_core(&mut self, cpu: CpuId) {
        if !self.sd.sched_smt_present || self.test_idle_cores(cpu) {
            return;
        }
        if self.smt_siblings[cpu]
            .iter()
            .all(|&s| self.available_idle_cpu(s))
        {
            self.set_idle_cores(cpu, true);
        }
    }

    /// __select_idle_cpu (no core scheduling cookies in the model).
    fn __select_idle_cpu(&self, cpu: CpuId, p: TaskId) -> Option<CpuId> {
        self.choose_idle_cpu(cpu, p).then_some(cpu)
    }

    /// select_idle_core: `core` if all its SMT threads are idle; otherwise remember the
    /// first usable thread as a fallback and drop the core from `cpus`.
    fn select_idle_core(
        &mut self,
        p: TaskId,
        core: CpuId,
        cpus: &mut CpuMask,
        idle_cpu: &mut Option<CpuId>,
    ) -> Option<CpuId> {
        let mut idle = true;
        for i in 0..self.smt_mask[core].len() {
            let cpu = self.smt_mask[core][i];
            self.placement_visits += 1;
            if !self.available_idle_cpu(cpu) {
                idle = false;
                if idle_cpu.is_none() {
                    if cpus.contains(cpu) && self.choose_sched_idle_rq(cpu, p) {
                        *idle_cpu = Some(cpu);
                        break;
                    }
                    continue;
                }
                break;
            }
            if idle_cpu.is_none() && cpus.contains(cpu) {
                *idle_cpu = Some(cpu);
            }
        }
        if idle {
            return Some(core);
        }
        for &s in &self.smt_mask[core] {
            cpus.clear(s);
        }
        None
    }

    /// select_idle_smt: an idle sibling of `target` inside `sd`.
    pub(super) fn select_idle_smt(
        &mut self,
        p: TaskId,
        sd: DomainId,
        target: CpuId,
    ) -> Option<CpuId> {
        for i in 0..self.smt_siblings[target].len() {
            let cpu = self.smt_siblings[target][i];
            self.placement_visits += 1;
            if self.tasks[p].cpus_allowed[cpu]
                && self.sd.span(sd).contains(cpu)
                && self.choose_idle_cpu(cpu, p)
            {
                return Some(cpu);
            }
        }
        None
    }

    /// The scan order of select_idle_cpu: target's cluster first (when clusters are
    /// active and the LLC is made of cluster groups), then the rest, each wrapping from
    /// target + 1.
    fn idle_scan_order(&self, sd: DomainId, cpus: &CpuMask, target: CpuId, order: &mut Vec<CpuId>) {
        let start = target + 1;
        let cluster = self.sd.domains[sd]
            .child
            .filter(|&c| {
                self.sd.sched_cluster_active && self.sd.domains[c].flags.contains(SdFlags::CLUSTER)
            })
            .map(|c| self.sd.span(c).and(cpus));
        order.clear();
        match cluster {
            Some(first) => {
                order.extend(first.iter_wrap(start));
                let mut rest = cpus.clone();
                rest.andnot_assign(&first);
                order.extend(rest.iter_wrap(start));
            }
            None => order.extend(cpus.iter_wrap(start)),
        }
    }

    /// select_idle_cpu(p, sd_llc, has_idle_core, target). Only the
    /// per-CPU scan spends the SIS_UTIL budget; the idle-core search does not.
    pub(super) fn select_idle_cpu(
        &mut self,
        p: TaskId,
        sd: DomainId,
        has_idle_core: bool,
        target: CpuId,
    ) -> Option<CpuId> {
        let mut nr = i64::MAX;
        if self.features.on(Feature::SIS_UTIL) {
            if let Some(sh) = self.sd.domains[sd].shared {
                self.sd_shared_read(target, sh);
                nr = self.sd.shared[sh].nr_idle_scan as i64 + 1;
                if nr == 1 {
                    return None;
                }
            }
        }
        // cpumask_and(cpus, sched_domain_span(sd), p->cpus_ptr)
        let mut cpus = self.sd.span(sd).clone();
        if let Some(allowed) = self.tasks[p].cpus_allowed.mask() {
            cpus.and_assign(allowed);
        }
        if cpus.is_empty() {
            return None;
        }
        let mut order = std::mem::take(&mut self.sis_scan_order);
        self.idle_scan_order(sd, &cpus, target, &mut order);
        let found = self.scan_llc(p, &order, &mut cpus, has_idle_core, nr);
        self.sis_scan_order = order;
        match found {
            ScanEnd::Found(i) => Some(i),
            ScanEnd::BudgetSpent => None,
            ScanEnd::Done(idle_cpu) => {
                if has_idle_core {
                    self.set_idle_cores(target, false);
                }
                idle_cpu
            }
        }
    }

    /// select_idle_cpu's loop over the LLC in `order`, with `nr` CPUs of SIS_UTIL budget.
    fn scan_llc(
        &mut self,
        p: TaskId,
        order: &[CpuId],
        cpus: &mut CpuMask,
        has_idle_core: bool,
        mut nr: i64,
    ) -> ScanEnd {
        let mut idle_cpu = None;
        for &cpu in order {
            if !cpus.contains(cpu) {
                continue; // dropped with an already-examined core
            }
            if has_idle_core {
                if let Some(i) = self.select_idle_core(p, cpu, cpus, &mut idle_cpu) {
                    return ScanEnd::Found(i);
                }
            } else {
                nr -= 1;
                if nr <= 0 {
                    return ScanEnd::BudgetSpent;
                }
                self.placement_visits += 1;
                if let Some(i) = self.__select_idle_cpu(cpu, p) {
                    return ScanEnd::Found(i);
                }
            }
        }
        ScanEnd::Done(idle_cpu)
    }
}

/// How select_idle_cpu's scan ended.
enum ScanEnd {
    /// An idle core or CPU.
    Found(CpuId),
    /// SIS_UTIL's budget ran out first.
    BudgetSpent,
    /// The whole order was scanned; the idle CPU an idle-core search noted, if any.
    Done(Option<CpuId>),
}
