//! Active balance (fair.c need_active_balance, active_load_balance_cpu_stop): when a pull
//! failed because the task to move is running, the busiest CPU's stopper preempts it and
//! pushes one task to the balancing CPU.

use super::imbalance::MigrationType;
use super::lb::LbEnv;
use super::{lbf, CpuIdleType};
use crate::engine::queue::CpuTimer;
use crate::machine::CpuId;
use crate::sched::fair::dequeue;
use crate::sched::features::Feature;
use crate::sched::sim::overhead::{SchedFn, Stall};
use crate::sched::{Sched, TaskId};

impl Sched {
    /// need_active_balance: no asym packing levels are built, so
    /// the imbalanced, reduced-capacity and misfit cases remain.
    pub(crate) fn need_active_balance(&self, env: &LbEnv) -> bool {
        let d = &self.sd.domains[env.sd];
        if env.migration_type == MigrationType::Task && d.nr_balance_failed > d.cache_nice_tries + 2
        {
            return true;
        }
        let src = &self.rqs[env.src_cpu];
        if env.idle.is_idle()
            && self.cfs_rqs[src.cfs].lb_h_nr_running(self.cfg.kernel) == 1
            && self.check_cpu_capacity(env.src_cpu, env.sd)
            && self.capacity_of(env.src_cpu) * (d.imbalance_pct as u64)
                < self.capacity_of(env.dst_cpu) * 100
        {
            return true;
        }
        env.migration_type == MigrationType::Misfit
    }

    /// stop_one_cpu_nowait: queue active_load_balance_cpu_stop on `busiest`; the stopper
    /// runs after the IPI reaches it.
    pub(crate) fn stop_one_cpu_nowait(&mut self, busiest: CpuId, this_cpu: CpuId) {
        let at = self.send_ipi(this_cpu, busiest);
        self.events.arm(busiest, CpuTimer::Stopper, at);
    }

    /// active_load_balance_cpu_stop, on the busiest CPU. The stop
    /// task counts in nr_running and displaces the running fair task, so a lone running
    /// task can be moved.
    pub fn active_load_balance_cpu_stop(&mut self, busiest: CpuId) {
        if !self.rqs[busiest].lb.active_balance {
            return;
        }
        let target = self.rqs[busiest].lb.push_cpu;
        self.rqs[busiest].lb.active_balance = false;
        // nr_running + the stopper ≤ 1: nothing to push.
        if self.rqs[busiest].nr_running == 0 {
            return;
        }
        let Some(sd) = self
            .sd
            .for_each_domain(target)
            .find(|&d| self.sd.span(d).contains(busiest))
        else {
            return;
        };
        let mut env = LbEnv::new(self, target, sd, CpuIdleType::Idle);
        env.src_cpu = busiest;
        env.flags = lbf::ACTIVE_LB;
        let ns = self.machine.costs.sched_lb_per_cpu_ns;
        self.in_sched_fn(SchedFn::ActiveLoadBalance, |s| {
            s.charge_sched_time(busiest, ns, Stall::Now)
        });
        if let Some((p, attach)) = self.detach_one_task(&mut env) {
            self.sd.domains[sd].nr_balance_failed = 0;
            self.lb.counters.active_balances += 1;
            self.lb.counters.tasks_moved += 1;
            if attach {
                self.attach_task(target, p, false);
            }
        }
    }

    /// detach_one_task: the first migratable task from the tail of cfs_tasks (the
    /// SCHED_IDLE list after the other under PRIO_LB).
    /// Returns the task and whether it is to be attached (a delayed task moves asleep).
    fn detach_one_task(&mut self, env: &mut LbEnv) -> Option<(TaskId, bool)> {
        let src = env.src_cpu;
        let lists = if self.features.on(Feature::PRIO_LB) {
            2
        } else {
            1
        };
        for l in 0..lists {
            let lb = &self.rqs[src].lb;
            let list = if l == 0 {
                &lb.cfs_tasks
            } else {
                &lb.cfs_idle_tasks
            };
            let candidates: Vec<TaskId> = list.iter(&self.lb.links).collect();
            for p in candidates {
                if !self.can_migrate_task(p, env, true) {
                    continue;
                }
                if self.rqs[src].curr == Some(p) {
                    self.detach_displaced_curr(p, env);
                    return Some((p, true));
                }
                let attach = self.detach_task(p, env);
                env.tasks.clear();
                return Some((p, attach));
            }
        }
        None
    }

    /// Detach the task the stopper displaced: it leaves the CPU (the CPU schedules the
    /// next task, or goes idle) and moves to dst (migration_cpu_stop's path).
    fn detach_displaced_curr(&mut self, p: TaskId, env: &LbEnv) {
        let src = env.src_cpu;
        self.settle_progress(src);
        self.tasks[p].on_rq_migrating = true;
        self.dequeue_task_fair(src, p, dequeue::MIGRATING);
        self.schedule(src, true);
        self.set_task_cpu(p, env.dst_cpu);
    }
}
