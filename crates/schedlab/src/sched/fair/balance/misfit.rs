//! Misfit tasks on asymmetric machines (spec placement §5): rq->misfit_task_load, set at
//! the tick for a running task that does not fit its CPU and could run on a bigger one.

use crate::machine::CpuId;
use crate::sched::uclamp::UclampId;
use crate::sched::{Sched, TaskId};

/// task_fits_cpu: p's util_est fits the CPU under its effective uclamp.
pub fn task_fits_cpu(s: &Sched, p: TaskId, cpu: CpuId) -> bool {
    let min = s.uclamp_eff_value(p, UclampId::Min) as u64;
    let max = s.uclamp_eff_value(p, UclampId::Max) as u64;
    s.util_fits_cpu(s.task_util_est(p), min, max, cpu) > 0
}

/// p->max_allowed_capacity: the biggest CPU capacity p may use.
pub fn max_allowed_capacity(s: &Sched, p: TaskId) -> u64 {
    s.tasks[p]
        .cpus_allowed
        .iter()
        .enumerate()
        .filter(|&(_, &a)| a)
        .map(|(c, _)| s.machine.arch_scale_cpu_capacity(c))
        .max()
        .unwrap_or(0)
}

impl Sched {
    /// update_misfit_status (spec placement §5 step 1): `None` at newidle clears it.
    pub fn update_misfit_status(&mut self, p: Option<TaskId>, cpu: CpuId) {
        if !self.sd.sched_asym_cpucapacity {
            return;
        }
        let load = match p {
            Some(p)
                if self.tasks[p].nr_cpus_allowed > 1
                    && self.machine.arch_scale_cpu_capacity(cpu)
                        < max_allowed_capacity(self, p)
                    && !task_fits_cpu(self, p, cpu) =>
            {
                self.task_h_load(p).max(1)
            }
            _ => 0,
        };
        self.rqs[cpu].lb.misfit_task_load = load;
    }
}
