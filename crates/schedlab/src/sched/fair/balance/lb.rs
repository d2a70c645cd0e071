//! struct lb_env, should_we_balance and sched_balance_rq (kernel/sched/fair.c).

use super::imbalance::MigrationType;
use super::{lbf, CpuIdleType, MAX_PINNED_INTERVAL, SCHED_NR_MIGRATE_BREAK};
use crate::machine::CpuId;
use crate::sched::topology::{CpuMask, DomainId, SdFlags, SpanId};
use crate::sched::{Sched, TaskId};

/// struct lb_env (fair.c).
#[derive(Debug, Clone)]
pub struct LbEnv {
    pub sd: DomainId,
    pub src_cpu: CpuId,
    pub dst_cpu: CpuId,
    /// group_balance_mask(sd->groups).
    pub dst_grpmask: SpanId,
    pub new_dst_cpu: CpuId,
    pub idle: CpuIdleType,
    pub imbalance: i64,
    pub cpus: CpuMask,
    pub flags: u32,
    pub loop_: u32,
    pub loop_break: u32,
    pub loop_max: u32,
    pub migration_type: MigrationType,
    /// env->tasks: detached, to attach on dst.
    pub tasks: Vec<TaskId>,
}

impl LbEnv {
    pub fn new(s: &Sched, dst_cpu: CpuId, sd: DomainId, idle: CpuIdleType) -> LbEnv {
        let local = s.sd.groups_of(sd).next().expect("a domain has groups");
        LbEnv {
            sd,
            src_cpu: dst_cpu,
            dst_cpu,
            dst_grpmask: s.sd.groups[local].balance_mask,
            new_dst_cpu: dst_cpu,
            idle,
            imbalance: 0,
            // No CPU hotplug: cpu_active_mask is every CPU.
            cpus: s.sd.span(sd).clone(),
            flags: 0,
            loop_: 0,
            loop_break: SCHED_NR_MIGRATE_BREAK,
            loop_max: 0,
            migration_type: MigrationType::Load,
            tasks: Vec::new(),
        }
    }
}

/// How a sched_balance_rq pass ended (its exit labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    Unbalanced,
    Balanced,
    AllPinned,
    OnePinned,
}

impl Sched {
    /// should_we_balance: only one CPU of the local group balances
    /// at this level — the first idle one (on an idle core above SMT), else the group's
    /// balance CPU. Newidle balancing is always allowed on an empty rq.
    pub fn should_we_balance(&self, env: &LbEnv) -> bool {
        let dst = env.dst_cpu;
        if !env.cpus.contains(dst) {
            return false;
        }
        if env.idle == CpuIdleType::NewlyIdle {
            let rq = &self.rqs[dst];
            return rq.nr_running == 0 && rq.ttwu_pending == 0;
        }
        let above_smt = !self.sd.domains[env.sd]
            .flags
            .contains(SdFlags::SHARE_CPUCAPACITY);
        // Preferring an idle core is v6.6 (b1bfeab9b002); before, the first idle CPU.
        let smt_active =
            self.sd.sched_smt_present && above_smt && self.cfg.kernel.has_smt_aware_balance();
        let mut idle_smt = None;
        for cpu in self.sd.spans[env.dst_grpmask].iter() {
            if !env.cpus.contains(cpu) || !self.available_idle_cpu(cpu) {
                continue;
            }
            if smt_active && !self.is_core_idle(cpu) {
                idle_smt.get_or_insert(cpu);
                continue;
            }
            return cpu == dst;
        }
        if let Some(c) = idle_smt {
            return c == dst;
        }
        self.sd.spans[env.dst_grpmask].first() == Some(dst)
    }

    /// A misfit pass that neither counts as a balance failure nor backs off (v6.10 on).
    fn misfit_pass(&self, env: &LbEnv) -> bool {
        self.cfg.kernel.refines_misfit_balance() && env.migration_type == MigrationType::Misfit
    }

    /// sched_balance_rq (was load_balance): pull from the busiest CPU of the busiest
    /// group into `this_cpu`; returns the number of tasks moved.
    pub fn sched_balance_rq(
        &mut self,
        this_cpu: CpuId,
        sd: DomainId,
        idle: CpuIdleType,
        cont: &mut bool,
    ) -> u32 {
        let mut env = LbEnv::new(self, this_cpu, sd, idle);
        let parent = self.sd.domains[sd].parent;
        let mut ld_moved = 0;
        let mut active_balance = false;
        let exit = 'redo: loop {
            if !self.should_we_balance(&env) {
                *cont = false;
                break Exit::Balanced;
            }
            self.lb.counters.balance_calls += 1;
            // SD_SERIALIZE needs no lock here: a pass runs within one event, so no two
            // CPUs are ever inside sched_balance_rq at once.
            let Some(group) = self.sched_balance_find_src_group(&mut env) else {
                break Exit::Balanced;
            };
            let Some(busiest) = self.sched_balance_find_src_rq(&env, group) else {
                break Exit::Balanced;
            };
            env.src_cpu = busiest;
            env.flags |= lbf::ALL_PINNED;
            if self.rqs[busiest].nr_running > 1 {
                env.loop_max = SCHED_NR_MIGRATE_BREAK.min(self.rqs[busiest].nr_running);
                loop {
                    let moved = self.detach_tasks(&mut env);
                    self.attach_tasks(&mut env);
                    ld_moved += moved;
                    if env.flags & lbf::NEED_BREAK != 0 {
                        env.flags &= !lbf::NEED_BREAK;
                        // v6.1–v6.9: stop once every task was looked at.
                        let stop = self.cfg.kernel.detaches_past_loop_max_when_all_pinned()
                            && env.loop_ >= self.rqs[busiest].nr_running;
                        if !stop {
                            continue;
                        }
                    }
                    if env.flags & lbf::DST_PINNED != 0 && env.imbalance > 0 {
                        env.cpus.clear(env.dst_cpu);
                        env.dst_cpu = env.new_dst_cpu;
                        env.flags &= !lbf::DST_PINNED;
                        env.loop_ = 0;
                        env.loop_break = SCHED_NR_MIGRATE_BREAK;
                        continue;
                    }
                    break;
                }
                if let Some(p) = parent {
                    if env.flags & lbf::SOME_PINNED != 0 && env.imbalance > 0 {
                        self.set_group_imbalance(p, true);
                    }
                }
                if env.flags & lbf::ALL_PINNED != 0 {
                    env.cpus.clear(busiest);
                    if !env.cpus.is_subset(&self.sd.spans[env.dst_grpmask]) {
                        env.loop_ = 0;
                        env.loop_break = SCHED_NR_MIGRATE_BREAK;
                        continue 'redo;
                    }
                    break Exit::AllPinned;
                }
            }
            if ld_moved > 0 {
                self.sd.domains[sd].nr_balance_failed = 0;
                break Exit::Unbalanced;
            }
            if idle != CpuIdleType::NewlyIdle && !self.misfit_pass(&env) {
                self.sd.domains[sd].nr_balance_failed += 1;
            }
            if self.need_active_balance(&env) {
                let allowed = self.rqs[busiest]
                    .curr
                    .is_some_and(|c| self.tasks[c].cpus_allowed[this_cpu]);
                if !allowed {
                    break Exit::OnePinned;
                }
                env.flags &= !lbf::ALL_PINNED;
                if !self.rqs[busiest].lb.active_balance {
                    self.rqs[busiest].lb.active_balance = true;
                    self.rqs[busiest].lb.push_cpu = this_cpu;
                    active_balance = true;
                    self.stop_one_cpu_nowait(busiest, this_cpu);
                }
            }
            break Exit::Unbalanced;
        };
        match exit {
            Exit::Unbalanced => {
                if !active_balance || self.need_active_balance(&env) {
                    let d = &mut self.sd.domains[sd];
                    d.balance_interval = d.min_interval;
                }
                return ld_moved;
            }
            Exit::Balanced => {
                if let (Some(p), true) = (parent, env.flags & lbf::ALL_PINNED == 0) {
                    self.set_group_imbalance(p, false);
                }
                self.sd.domains[sd].nr_balance_failed = 0;
            }
            Exit::AllPinned => self.sd.domains[sd].nr_balance_failed = 0,
            Exit::OnePinned => {}
        }
        // out_one_pinned: back off, except after newidle or (from v6.10) misfit passes.
        if idle == CpuIdleType::NewlyIdle || self.misfit_pass(&env) {
            return 0;
        }
        let d = &mut self.sd.domains[sd];
        if (env.flags & lbf::ALL_PINNED != 0 && d.balance_interval < MAX_PINNED_INTERVAL)
            || d.balance_interval < d.max_interval
        {
            d.balance_interval *= 2;
        }
        0
    }

    /// sd_parent->groups->sgc->imbalance.
    fn set_group_imbalance(&mut self, parent: DomainId, v: bool) {
        let local = self
            .sd
            .groups_of(parent)
            .next()
            .expect("a domain has groups");
        let sgc = self.sd.groups[local].sgc;
        self.sd.sgc[sgc].imbalance = v;
    }
}
