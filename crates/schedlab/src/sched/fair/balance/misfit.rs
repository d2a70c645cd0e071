//! Misfit tasks on asymmetric machines (fair.c): rq->misfit_task_load, set at
//! the tick for a running task that does not fit its CPU and could run on a bigger one.

use crate::machine::CpuId;
use crate::sched::{Sched, TaskId};

/// p->max_allowed_capacity: the biggest CPU capacity p may use.
pub fn max_allowed_capacity(s: &Sched, p: TaskId) -> u64 {
    s.tasks[p]
        .cpus_allowed
        .iter()
        .enumerate()
        .filter(|&(_, &a)| a)
        .map(|(c, _)| s.arch_scale_cpu_capacity(c))
        .max()
        .unwrap_or(0)
}

impl Sched {
    /// update_misfit_status: `None` at newidle clears it.
    pub fn update_misfit_status(&mut self, p: Option<TaskId>, cpu: CpuId) {
        if !self.sd.sched_asym_cpucapacity {
            return;
        }
        let load = match p {
            Some(p)
                if self.tasks[p].nr_cpus_allowed > 1
                    && (!self.cfg.kernel.refines_misfit_balance()
                        || self.arch_scale_cpu_capacity(cpu) < max_allowed_capacity(self, p))
                    && !self.task_fits_cpu(p, cpu) =>
            {
                self.task_h_load(p).max(1)
            }
            _ => 0,
        };
        self.rqs[cpu].lb.misfit_task_load = load;
    }
}
