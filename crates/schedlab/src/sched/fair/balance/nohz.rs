//! NOHZ idle balancing (fair.c nohz_balancer_kick, nohz_idle_balance): tickless idle CPUs
//! do not balance themselves; a busy CPU's tick kicks one idle CPU (the ILB), which
//! balances on behalf of all of them and ages their blocked load.

use super::{msecs_to_jiffies, nohz_flags, CpuIdleType, LOAD_AVG_PERIOD_MS};
use crate::engine::queue::CpuTimer;
use crate::machine::CpuId;
use crate::sched::sim::overhead::SchedFn;
use crate::sched::sim::shared_line::Store;
use crate::sched::Sched;

impl Sched {
    /// nohz_balance_enter_idle: the CPU stops its tick (in this model: it goes idle).
    pub(crate) fn nohz_balance_enter_idle(&mut self, cpu: CpuId) {
        if self.sd.cpus[cpu].sd.is_none() {
            return;
        }
        self.rqs[cpu].lb.has_blocked_load = true;
        if !self.rqs[cpu].lb.nohz_tick_stopped {
            self.rqs[cpu].lb.nohz_tick_stopped = true;
            self.lb.nohz.idle_cpus_mask.set(cpu);
            self.lb.nohz.nr_cpus += 1;
            self.set_cpu_sd_state(cpu, true);
            self.lb.nohz.needs_update = true;
        }
        self.lb.nohz.has_blocked_load = true;
    }

    /// nohz_balance_exit_idle: the first busy tick after a tickless period.
    fn nohz_balance_exit_idle(&mut self, cpu: CpuId) {
        if !self.rqs[cpu].lb.nohz_tick_stopped {
            return;
        }
        self.rqs[cpu].lb.nohz_tick_stopped = false;
        self.lb.nohz.idle_cpus_mask.clear(cpu);
        self.lb.nohz.nr_cpus -= 1;
        self.set_cpu_sd_state(cpu, false);
    }

    /// set_cpu_sd_state_idle / _busy: nr_busy_cpus of the CPU's shared domain object.
    fn set_cpu_sd_state(&mut self, cpu: CpuId, idle: bool) {
        let Some(sh) = self.busy_shared(cpu) else {
            return;
        };
        if self.rqs[cpu].lb.sd_nohz_idle == idle {
            return;
        }
        self.rqs[cpu].lb.sd_nohz_idle = idle;
        // atomic_inc / atomic_dec of nr_busy_cpus: a store to the shared line.
        self.sd_shared_write(cpu, sh, Store::Atomic);
        let s = &mut self.sd.shared[sh];
        if idle {
            s.nr_busy_cpus = s.nr_busy_cpus.saturating_sub(1);
        } else {
            s.nr_busy_cpus += 1;
        }
    }

    /// nohz_balancer_kick, at every tick of a busy CPU.
    pub(crate) fn nohz_balancer_kick(&mut self, cpu: CpuId) {
        let now = self.jiffies();
        if self.rqs[cpu].lb.idle_balance {
            return;
        }
        self.nohz_balance_exit_idle(cpu);
        if self.lb.nohz.nr_cpus == 0 {
            return;
        }
        let mut flags = 0;
        if self.lb.nohz.has_blocked_load && now > self.lb.nohz.next_blocked {
            flags = nohz_flags::STATS_KICK;
        }
        let balance = nohz_flags::STATS_KICK | nohz_flags::BALANCE_KICK;
        'out: {
            if now < self.lb.nohz.next_balance {
                break 'out;
            }
            let rq = &self.rqs[cpu];
            if rq.nr_running >= 2 {
                flags = balance;
                break 'out;
            }
            if let Some(sd) = self.sd.cpus[cpu].sd {
                let fair = self.cfs_rqs[rq.cfs].lb_h_nr_running(self.cfg.kernel);
                if fair >= 1 && self.check_cpu_capacity(cpu, sd) {
                    flags = balance;
                    break 'out;
                }
            }
            if self.sd.cpus[cpu].sd_asym_cpucapacity.is_some() {
                if rq.lb.misfit_task_load > 0 {
                    flags = balance;
                }
                break 'out;
            }
            if let Some(sh) = self.busy_shared(cpu) {
                self.sd_shared_read(cpu, sh);
                if self.sd.shared[sh].nr_busy_cpus > 1 {
                    flags = balance;
                }
            }
        }
        if self.lb.nohz.needs_update {
            flags |= nohz_flags::NEXT_KICK;
        }
        if flags != 0 {
            self.kick_ilb(cpu, flags);
        }
    }

    /// find_new_ilb: the first tickless CPU that is idle, preferring a fully idle core.
    fn find_new_ilb(&self) -> Option<CpuId> {
        let mut first = None;
        for c in self.lb.nohz.idle_cpus_mask.iter() {
            if !self.available_idle_cpu(c) {
                continue;
            }
            if !self.sd.sched_smt_present || self.is_core_idle(c) {
                return Some(c);
            }
            first.get_or_insert(c);
        }
        first
    }

    /// kick_ilb: send the ILB CPU an IPI with `flags`, unless a kick is pending there.
    fn kick_ilb(&mut self, this: CpuId, flags: u32) {
        if flags & nohz_flags::BALANCE_KICK != 0 {
            self.lb.nohz.next_balance = self.jiffies() + 1;
        }
        let Some(ilb) = self.find_new_ilb() else {
            return;
        };
        let lb = &mut self.rqs[ilb].lb;
        if lb.nohz_flags & flags == flags {
            return;
        }
        let old = lb.nohz_flags;
        lb.nohz_flags |= flags;
        if old & nohz_flags::KICK_MASK != 0 {
            return;
        }
        self.lb.counters.nohz_kicks += 1;
        let at = self.send_ipi(this, ilb);
        self.events.arm(ilb, CpuTimer::NohzKick, at);
    }

    /// nohz_csd_func + the SCHED_SOFTIRQ's nohz path on the kicked CPU.
    pub fn nohz_csd_func(&mut self, cpu: CpuId) {
        let flags = self.rqs[cpu].lb.nohz_flags & nohz_flags::KICK_MASK;
        self.rqs[cpu].lb.nohz_flags &= !nohz_flags::KICK_MASK;
        if flags == 0 || !self.available_idle_cpu(cpu) {
            return;
        }
        self._nohz_idle_balance(cpu, flags);
        self.charge_balance_cost(cpu);
    }

    /// update_nohz_stats: age an idle CPU's blocked load, at most once a jiffy; true
    /// while it still has some.
    fn update_nohz_stats(&mut self, cpu: CpuId) -> bool {
        if !self.rqs[cpu].lb.has_blocked_load {
            return false;
        }
        if self.jiffies() <= self.rqs[cpu].lb.last_blocked_load_update_tick {
            return true;
        }
        self.sched_balance_update_blocked_averages(cpu);
        self.rqs[cpu].lb.has_blocked_load
    }

    /// _nohz_idle_balance: for every tickless idle CPU, starting
    /// after this one and ending with it, age its blocked load (STATS) and run its due
    /// balancing with it as the destination (BALANCE).
    pub(crate) fn _nohz_idle_balance(&mut self, this: CpuId, flags: u32) {
        self.in_sched_fn(SchedFn::NohzIdleBalance, |sched| {
            let now = sched.jiffies();
            let mut next_balance = now + 60 * sched.cfg.hz as u64;
            let mut update_next = false;
            let mut has_blocked = false;
            if flags & nohz_flags::STATS_KICK != 0 {
                sched.lb.nohz.has_blocked_load = false;
            }
            if flags & nohz_flags::NEXT_KICK != 0 {
                sched.lb.nohz.needs_update = false;
            }
            let n = sched.machine.nr_cpus();
            let cpus: Vec<CpuId> = sched
                .lb
                .nohz
                .idle_cpus_mask
                .iter_wrap((this + 1) % n)
                .collect();
            let per_cpu = sched.machine.costs.sched_lb_per_cpu_ns;
            let mut aborted = false;
            for c in cpus {
                if !sched.available_idle_cpu(c) {
                    continue;
                }
                if !sched.available_idle_cpu(this) {
                    has_blocked = true;
                    aborted = true;
                    break;
                }
                sched.lb.cost_acc += per_cpu;
                sched.book_sched_time(per_cpu);
                if flags & nohz_flags::STATS_KICK != 0 {
                    has_blocked |= sched.update_nohz_stats(c);
                }
                if flags & nohz_flags::BALANCE_KICK != 0
                    && sched.jiffies() >= sched.rqs[c].lb.next_balance
                {
                    sched.sched_balance_domains(c, CpuIdleType::Idle);
                }
                if next_balance > sched.rqs[c].lb.next_balance {
                    next_balance = sched.rqs[c].lb.next_balance;
                    update_next = true;
                }
            }
            if !aborted {
                if update_next {
                    sched.lb.nohz.next_balance = next_balance;
                }
                if flags & nohz_flags::STATS_KICK != 0 {
                    sched.lb.nohz.next_blocked =
                        now + msecs_to_jiffies(LOAD_AVG_PERIOD_MS, sched.cfg.hz);
                }
            }
            if has_blocked {
                sched.lb.nohz.has_blocked_load = true;
            }
        })
    }
}
