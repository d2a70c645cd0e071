//! select_task_rq (core) and select_task_rq_fair (fair.c).

use crate::machine::CpuId;
use crate::sched::fair::class::wf;
use crate::sched::sim::overhead::{SchedFn, Stall};
use crate::sched::topology::SdFlags;
use crate::sched::{Sched, TaskId};

/// The SD_BALANCE_* flag a wake-up kind tests: the low nibble of wake_flags is the flag
/// (WF_EXEC = SD_BALANCE_EXEC, WF_FORK = SD_BALANCE_FORK, WF_TTWU = SD_BALANCE_WAKE).
fn sd_flag_of(wake_flags: u32) -> SdFlags {
    let mut f = SdFlags::EMPTY;
    if wake_flags & wf::EXEC != 0 {
        f = SdFlags::BALANCE_EXEC;
    }
    if wake_flags & wf::FORK != 0 {
        f = SdFlags::BALANCE_FORK;
    }
    if wake_flags & wf::TTWU != 0 {
        f = SdFlags::BALANCE_WAKE;
    }
    f
}

impl Sched {
    /// select_task_rq (core.c): ask the class only when the task may
    /// run on more than one CPU; a result outside the affinity falls back to an allowed
    /// CPU (select_fallback_rq). Scan work is charged to `this_cpu`, the CPU running the
    /// wake-up or fork.
    pub fn select_task_rq(&mut self, p: TaskId, wake_flags: u32, this_cpu: CpuId) -> CpuId {
        let prev = self.tasks[p].cpu;
        let class = self.tasks[p].class();
        let cpu = if self.tasks[p].nr_cpus_allowed <= 1 {
            prev
        } else if class == crate::sched::SchedClass::Rt {
            self.select_task_rq_rt(p, wake_flags, this_cpu)
        } else if class == crate::sched::SchedClass::Dl {
            self.select_task_rq_dl(p, wake_flags, this_cpu)
        } else {
            self.placement_visits = 0;
            self.in_sched_fn(SchedFn::SelectTaskRqFair, |s| {
                let cpu = s.select_task_rq_fair(p, prev, wake_flags, this_cpu);
                s.placement.calls += 1;
                s.placement.cpus_visited += s.placement_visits;
                let cost = s.placement_visits * s.machine.costs.sched_idle_scan_per_cpu_ns;
                s.charge_sched_time(this_cpu, cost, Stall::Now);
                cpu
            })
        };
        if self.tasks[p].cpus_allowed[cpu] {
            cpu
        } else {
            self.select_fallback_rq(p, cpu)
        }
    }

    /// select_fallback_rq: the first allowed CPU on the same node, else any allowed CPU.
    fn select_fallback_rq(&self, p: TaskId, cpu: CpuId) -> CpuId {
        let allowed = &self.tasks[p].cpus_allowed;
        let node = self.machine.cpus[cpu].numa_node;
        let same_node =
            (0..allowed.len()).find(|&c| allowed[c] && self.machine.cpus[c].numa_node == node);
        same_node
            .or_else(|| allowed.iter().position(|&a| a))
            .unwrap_or(cpu)
    }

    /// select_task_rq_fair. `this_cpu` is the waking CPU (the
    /// parent's CPU for a fork); its current task is the waker.
    pub fn select_task_rq_fair(
        &mut self,
        p: TaskId,
        prev_cpu: CpuId,
        wake_flags: u32,
        this_cpu: CpuId,
    ) -> CpuId {
        let waker = self.rqs[this_cpu].curr.filter(|&w| w != p);
        // A dying waker does not make the wake-up synchronous.
        let sync = wake_flags & wf::SYNC != 0
            && waker.is_some_and(|w| self.tasks[w].state != crate::sched::TaskState::Dead);
        let sd_flag = sd_flag_of(wake_flags);
        let allowed_here = self.tasks[p].cpus_allowed[this_cpu];
        let mut new_cpu = prev_cpu;
        let mut want_affine = false;
        if wake_flags & wf::TTWU != 0 {
            // record_wakee already ran in try_to_wake_up, in the waker's context.
            if wake_flags & wf::CURRENT_CPU != 0 && allowed_here {
                return this_cpu;
            }
            if !self.is_rd_overutilized(this_cpu) {
                if let Some(t) = self.find_energy_efficient_cpu(p, prev_cpu, this_cpu) {
                    self.placement.feec_calls += 1;
                    self.placement.feec_moved += (t != prev_cpu) as u64;
                    return t;
                }
            }
            let llc_size = self.sd.cpus[this_cpu].sd_llc_size as u64;
            want_affine = !self.wake_wide(waker, p, llc_size) && allowed_here;
        }
        let mut slow_sd = None;
        let mut tmp = self.sd.cpus[this_cpu].sd;
        while let Some(d) = tmp {
            let dom = &self.sd.domains[d];
            if want_affine
                && dom.flags.contains(SdFlags::WAKE_AFFINE)
                && self.sd.spans[dom.span].contains(prev_cpu)
            {
                if this_cpu != prev_cpu {
                    let pct = dom.imbalance_pct as u64;
                    new_cpu = self.wake_affine(pct, waker, p, this_cpu, prev_cpu, sync);
                    self.placement.move_affine += (new_cpu == this_cpu) as u64;
                }
                slow_sd = None;
                break;
            }
            if dom.flags.intersects(sd_flag) {
                slow_sd = Some(d);
            } else if !want_affine {
                break;
            }
            tmp = dom.parent;
        }
        if let Some(sd) = slow_sd {
            self.placement.slow_path += 1;
            return self.sched_balance_find_dst_cpu(sd, p, this_cpu, prev_cpu, sd_flag);
        }
        if wake_flags & wf::TTWU != 0 {
            return self.select_idle_sibling(p, prev_cpu, new_cpu);
        }
        new_cpu
    }
}
