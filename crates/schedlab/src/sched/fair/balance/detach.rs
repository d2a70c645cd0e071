//! sched_balance_find_src_rq, can_migrate_task, task_hot, detach_tasks, detach_task and
//! attach_tasks (kernel/sched/fair.c).

use super::imbalance::MigrationType;
use super::lb::LbEnv;
use super::{lbf, CpuIdleType, SCHED_NR_MIGRATE_BREAK, SYSCTL_SCHED_MIGRATION_COST};
use crate::machine::CpuId;
use crate::sched::capacity::capacity_greater;
use crate::sched::fair::{dequeue, enqueue};
use crate::sched::features::Feature;
use crate::sched::topology::{GroupId, SdFlags};
use crate::sched::{Sched, TaskId};

/// LB_MIN's threshold: task load below which it is skipped until a pass failed.
const LB_MIN_LOAD: u64 = 16;

impl Sched {
    /// sched_balance_find_src_rq: the busiest CPU of `group` for
    /// env.migration_type. No NUMA balancing, so fbq_type never filters.
    pub(crate) fn sched_balance_find_src_rq(&self, env: &LbEnv, group: GroupId) -> Option<CpuId> {
        let asym = self.sd.domains[env.sd]
            .flags
            .contains(SdFlags::ASYM_CPUCAPACITY);
        let dst_cap = self.capacity_of(env.dst_cpu);
        let mut busiest = None;
        let (mut busiest_load, mut busiest_capacity) = (0u64, 1u64);
        let (mut busiest_util, mut busiest_nr) = (0u64, 0u32);
        for i in self.sd.group_span(group).iter() {
            if !env.cpus.contains(i) {
                continue;
            }
            let rq = &self.rqs[i];
            let nr_running = self.cfs_rqs[rq.cfs].lb_h_nr_running(self.cfg.kernel);
            if nr_running == 0 {
                continue;
            }
            let capacity = self.capacity_of(i);
            if asym
                && nr_running == 1
                && !capacity_greater(dst_cap, capacity)
                && self.is_core_idle(i)
            {
                continue;
            }
            match env.migration_type {
                MigrationType::Load => {
                    let load = self.cpu_load(i);
                    if nr_running == 1
                        && load as i64 > env.imbalance
                        && !self.check_cpu_capacity(i, env.sd)
                    {
                        continue;
                    }
                    if load * busiest_capacity > busiest_load * capacity {
                        busiest_load = load;
                        busiest_capacity = capacity;
                        busiest = Some(i);
                    }
                }
                MigrationType::Util => {
                    let util = self.cpu_util_cfs_boost(i);
                    if nr_running <= 1 {
                        continue;
                    }
                    if busiest_util < util {
                        busiest_util = util;
                        busiest = Some(i);
                    }
                }
                MigrationType::Task => {
                    if busiest_nr < nr_running {
                        busiest_nr = nr_running;
                        busiest = Some(i);
                    }
                }
                MigrationType::Misfit => {
                    if rq.lb.misfit_task_load > busiest_load {
                        busiest_load = rq.lb.misfit_task_load;
                        busiest = Some(i);
                    }
                }
            }
        }
        busiest
    }

    /// task_is_ineligible_on_dst_cpu: PLACE_LAG would queue p behind dst's tasks while it
    /// is not eligible where it is (a can_migrate_task check).
    fn task_is_ineligible_on_dst_cpu(&self, p: TaskId, dst: CpuId) -> bool {
        let se = self.tasks[p].se;
        let cfs = self.entities[se as usize].cfs_rq;
        self.features.on(Feature::PLACE_LAG)
            && self.cfs_rqs[self.rqs[dst].cfs].nr_queued > 0
            && !self.entity_eligible(cfs, se)
    }

    /// task_hot: ran on its CPU within sysctl_sched_migration_cost, or is a buddy (the
    /// last buddy exists only under CFS).
    pub fn task_hot(&self, p: TaskId, env: &LbEnv) -> bool {
        let t = &self.tasks[p];
        if t.is_idle_policy() {
            return false;
        }
        if self.sd.domains[env.sd]
            .flags
            .contains(SdFlags::SHARE_CPUCAPACITY)
        {
            return false;
        }
        let se = t.se;
        let e = &self.entities[se as usize];
        if self.features.on(Feature::CACHE_HOT_BUDDY)
            && self.rqs[env.dst_cpu].nr_running > 0
            && (self.cfs_rqs[e.cfs_rq].next == Some(se) || self.cfs_rqs[e.cfs_rq].last == Some(se))
        {
            return true;
        }
        (self.now as i64 - e.exec_start as i64) < SYSCTL_SCHED_MIGRATION_COST as i64
    }

    /// can_migrate_task. `curr_displaced`: the stopper runs on the
    /// source CPU, so its fair curr is queued rather than running.
    pub(crate) fn can_migrate_task(
        &self,
        p: TaskId,
        env: &mut LbEnv,
        curr_displaced: bool,
    ) -> bool {
        let t = &self.tasks[p];
        let e = &self.entities[t.se as usize];
        let as_posted = self.features.on(Feature::DELAY_DEQUEUE_AS_POSTED);
        if e.sched_delayed && env.migration_type != MigrationType::Load && !as_posted {
            return false;
        }
        if self.throttled_lb_pair(p, env.src_cpu, env.dst_cpu) {
            return false;
        }
        let d = &self.sd.domains[env.sd];
        if d.nr_balance_failed == 0 && self.task_is_ineligible_on_dst_cpu(p, env.dst_cpu) {
            return false;
        }
        if !t.cpus_allowed[env.dst_cpu] {
            env.flags |= lbf::SOME_PINNED;
            if env.idle == CpuIdleType::NewlyIdle
                || env.flags & (lbf::DST_PINNED | lbf::ACTIVE_LB) != 0
            {
                return false;
            }
            let grp = &self.sd.spans[env.dst_grpmask];
            if let Some(c) = grp
                .iter()
                .find(|&c| env.cpus.contains(c) && t.cpus_allowed[c])
            {
                env.flags |= lbf::DST_PINNED;
                env.new_dst_cpu = c;
            }
            return false;
        }
        env.flags &= !lbf::ALL_PINNED;
        let running = self.rqs[env.src_cpu].curr == Some(p);
        if running && !curr_displaced {
            return false;
        }
        if env.flags & lbf::ACTIVE_LB != 0 {
            return true;
        }
        !self.task_hot(p, env) || d.nr_balance_failed > d.cache_nice_tries
    }

    /// detach_tasks: walk the source's cfs_tasks from the
    /// tail taking tasks until the imbalance is met. With PRIO_LB (seed 002) the
    /// non-SCHED_IDLE list is walked first and the SCHED_IDLE list only if imbalance
    /// remains.
    pub(crate) fn detach_tasks(&mut self, env: &mut LbEnv) -> u32 {
        let src = env.src_cpu;
        if self.rqs[src].nr_running <= 1 {
            env.flags &= !lbf::ALL_PINNED;
            return 0;
        }
        if env.imbalance <= 0 {
            return 0;
        }
        let mut detached = 0;
        self.detach_from_list(env, false, &mut detached);
        // Seed 002: however the first walk ended, go on to the SCHED_IDLE list while
        // imbalance remains.
        if self.features.on(Feature::PRIO_LB) && env.imbalance > 0 {
            self.detach_from_list(env, true, &mut detached);
        }
        detached
    }

    /// One list of detach_tasks' walk (the kernel's while loop over `tasks`).
    fn detach_from_list(&mut self, env: &mut LbEnv, idle_list: bool, detached: &mut u32) {
        let src = env.src_cpu;
        let tail = |s: &Sched| {
            let lb = &s.rqs[src].lb;
            if idle_list {
                lb.cfs_idle_tasks.front()
            } else {
                lb.cfs_tasks.front()
            }
        };
        // v6.1–v6.9 go on past loop_max while no movable task was found (version.rs).
        let past_max_while_pinned = self.cfg.kernel.detaches_past_loop_max_when_all_pinned();
        while let Some(p) = tail(self) {
            if env.idle.is_idle() && self.rqs[src].nr_running <= 1 {
                return;
            }
            env.loop_ += 1;
            let all_pinned = past_max_while_pinned && env.flags & lbf::ALL_PINNED != 0;
            if env.loop_ > env.loop_max && !all_pinned {
                return;
            }
            if env.loop_ > env.loop_break {
                env.loop_break += SCHED_NR_MIGRATE_BREAK;
                env.flags |= lbf::NEED_BREAK;
                return;
            }
            if !self.can_migrate_task(p, env, false) || !self.imbalance_takes(p, env) {
                // list_move to the head: look at it again last.
                self.cfs_task_move_to_head(src, p);
                continue;
            }
            self.detach_task(p, env);
            *detached += 1;
            self.lb.counters.tasks_moved += 1;
            // CONFIG_PREEMPTION (every PREEMPT_DYNAMIC build): newidle stops at one task.
            if env.idle == CpuIdleType::NewlyIdle || env.imbalance <= 0 {
                return;
            }
        }
    }

    /// The migration-type test of detach_tasks: does taking `p` fit the imbalance? If so
    /// the imbalance is reduced by what `p` brings.
    fn imbalance_takes(&self, p: TaskId, env: &mut LbEnv) -> bool {
        let failed = self.sd.domains[env.sd].nr_balance_failed;
        let shr_bound = |v: u64| v >> failed.min(63);
        match env.migration_type {
            MigrationType::Load => {
                let load = self.task_h_load(p).max(1);
                if self.features.on(Feature::LB_MIN) && load < LB_MIN_LOAD && failed == 0 {
                    return false;
                }
                if shr_bound(load) as i64 > env.imbalance {
                    return false;
                }
                env.imbalance -= load as i64;
            }
            MigrationType::Util => {
                let util = self.task_util_est(p);
                let bounded = if self.cfg.kernel.bounds_migrate_util() {
                    shr_bound(util)
                } else {
                    util
                };
                if bounded as i64 > env.imbalance {
                    return false;
                }
                env.imbalance -= util as i64;
            }
            MigrationType::Task => env.imbalance -= 1,
            MigrationType::Misfit => {
                if self.task_fits_cpu(p, env.src_cpu) {
                    return false;
                }
                env.imbalance = 0;
            }
        }
        true
    }

    /// detach_task: deactivate on the source and set_task_cpu to dst (a counted
    /// migration with PELT detach). A delayed-dequeue task (migrate_load only) has its
    /// dequeue completed on the source and moves while asleep: it is not attached on dst,
    /// where the kernel would queue it still delayed (simplification). Under
    /// DELAY_DEQUEUE_AS_POSTED it moves queued and still delayed, as the posting did.
    /// Returns whether the task was queued on env.tasks for attaching.
    pub(crate) fn detach_task(&mut self, p: TaskId, env: &mut LbEnv) -> bool {
        let src = env.src_cpu;
        // As posted, a delayed task is dequeued and enqueued like any other, still delayed.
        let as_posted = self.features.on(Feature::DELAY_DEQUEUE_AS_POSTED);
        if self.entities[self.tasks[p].se as usize].sched_delayed && !as_posted {
            self.dequeue_task_fair(src, p, dequeue::SLEEP | dequeue::DELAYED);
            self.set_task_cpu(p, env.dst_cpu);
            return false;
        }
        self.tasks[p].on_rq_migrating = true;
        self.dequeue_task_fair(src, p, dequeue::MIGRATING);
        self.set_task_cpu(p, env.dst_cpu);
        env.tasks.push(p);
        true
    }

    /// attach_tasks: activate each detached task on dst and check preemption there.
    pub(crate) fn attach_tasks(&mut self, env: &mut LbEnv) {
        let newidle = env.idle == CpuIdleType::NewlyIdle;
        for p in std::mem::take(&mut env.tasks) {
            self.attach_task(env.dst_cpu, p, newidle);
        }
    }

    /// attach_task: enqueue with ENQUEUE_MIGRATED, then wakeup_preempt — skipped for a
    /// newidle pull, where dst is inside schedule() about to pick anyway.
    pub(crate) fn attach_task(&mut self, dst: CpuId, p: TaskId, newidle: bool) {
        self.tasks[p].on_rq_migrating = false;
        self.tasks[p].on_rq = true;
        // Not a wake-up: enqueue_task_fair does not check overutilized (`!task_new`).
        self.enqueue_task_fair(dst, p, enqueue::MIGRATED);
        if newidle {
            return;
        }
        if self.rqs[dst].curr.is_none() {
            self.resched_curr(dst);
        } else {
            self.wakeup_preempt(dst, p, 0);
        }
    }
}
