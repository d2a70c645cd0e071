//! rq->cfs_tasks: every queued fair task of a CPU in most-recently-used order, which
//! detach_tasks walks from the tail. With PRIO_LB (seed 002)
//! SCHED_IDLE tasks live on a second list, rq->cfs_idle_tasks, walked only after the first.

use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::{Sched, TaskId};

impl Sched {
    /// account_entity_enqueue for a task: list_add at the head of the list PRIO_LB's
    /// adjust_rq_cfs_tasks picks (seed 002).
    pub(crate) fn account_cfs_task_enqueue(&mut self, cpu: CpuId, p: TaskId) {
        let idle = self.features.on(Feature::PRIO_LB) && self.tasks[p].is_idle_policy();
        let lb = &mut self.rqs[cpu].lb;
        let list = if idle {
            &mut lb.cfs_idle_tasks
        } else {
            &mut lb.cfs_tasks
        };
        list.push_back(&mut self.lb.links, p);
    }

    /// account_entity_dequeue for a task: list_del.
    pub(crate) fn account_cfs_task_dequeue(&mut self, cpu: CpuId, p: TaskId) {
        let lb = &mut self.rqs[cpu].lb;
        let links = &mut self.lb.links;
        if !lb.cfs_tasks.remove(links, p) {
            lb.cfs_idle_tasks.remove(links, p);
        }
    }

    /// list_move to the head: the task was picked to run, or detach_tasks skipped it.
    pub(crate) fn cfs_task_move_to_head(&mut self, cpu: CpuId, p: TaskId) {
        self.account_cfs_task_dequeue(cpu, p);
        self.account_cfs_task_enqueue(cpu, p);
    }

    /// Invariant: each CPU's lists hold exactly the fair tasks queued on it, once each
    /// (as many as its root cfs_rq's h_nr_queued, every one queued there, no repeats).
    pub(crate) fn check_cfs_tasks(&self, errors: &mut Vec<String>) {
        let mut seen = vec![0u64; self.tasks.len().div_ceil(64)];
        for (cpu, rq) in self.rqs.iter().enumerate() {
            let mut n = 0;
            let links = &self.lb.links;
            for p in rq
                .lb
                .cfs_tasks
                .iter(links)
                .chain(rq.lb.cfs_idle_tasks.iter(links))
            {
                n += 1;
                let (w, b) = (p / 64, 1u64 << (p % 64));
                if seen[w] & b != 0 {
                    errors.push(format!("task {p} on cfs_tasks twice (cpu {cpu})"));
                }
                seen[w] |= b;
                let e = &self.entities[self.tasks[p].se as usize];
                if !e.on_rq || self.cfs_rqs[e.cfs_rq].cpu != cpu {
                    errors.push(format!(
                        "task {p} on cfs_tasks of cpu {cpu} but not queued there"
                    ));
                }
            }
            // Tasks under a throttled group cfs_rq stay on cfs_tasks; each throttled level
            // counts those not hidden by a deeper throttle.
            let hidden: u32 = (1..self.groups.len())
                .map(|tg| &self.cfs_rqs[self.groups[tg].cfs_rq[cpu]])
                .filter(|q| q.grp.throttled)
                .map(|q| q.h_nr_queued)
                .sum();
            let queued = self.cfs_rqs[rq.cfs].h_nr_queued + hidden;
            if n != queued {
                errors.push(format!(
                    "cpu {cpu}: {n} tasks on cfs_tasks, h_nr_queued {queued}"
                ));
            }
        }
    }
}
