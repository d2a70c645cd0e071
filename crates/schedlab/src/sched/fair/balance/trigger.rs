//! Periodic balancing (kernel/sched/fair.c): the tick's sched_balance_trigger,
//! the SCHED_SOFTIRQ handler, sched_balance_domains with per-domain intervals, and the
//! blocked-load update the softirq does first.

use super::{CpuIdleType, SYSCTL_SCHED_MIGRATION_COST};
use crate::machine::CpuId;
use crate::sched::sim::overhead::{SchedFn, Stall};
use crate::sched::topology::{CpuMask, DomainId};
use crate::sched::Sched;

impl Sched {
    /// Boot state: max_load_balance_interval (update_max_interval), and every CPU idle
    /// with its tick stopped, as CPUs sit before the workload starts (docs/model.md, Load
    /// balancing).
    pub(crate) fn balance_init(&mut self) {
        let n = self.machine.nr_cpus();
        self.lb.max_load_balance_interval = (self.cfg.hz as u64 * n as u64 / 10).max(1);
        self.lb.nohz.idle_cpus_mask = CpuMask::full(n);
        self.lb.nohz.nr_cpus = n as u32;
        for cpu in 0..n {
            self.rqs[cpu].lb.nohz_tick_stopped = true;
            if let Some(sh) = self.busy_shared(cpu) {
                let s = &mut self.sd.shared[sh];
                s.nr_busy_cpus = s.nr_busy_cpus.saturating_sub(1);
                self.rqs[cpu].lb.sd_nohz_idle = true;
            }
        }
    }

    /// jiffies: ticks since boot at the configured HZ (the run starts
    /// `uptime_at_start_s` after boot).
    pub fn jiffies(&self) -> u64 {
        self.now / self.cfg.tick_nsec() + self.cfg.uptime_at_start_s * u64::from(self.cfg.hz)
    }

    /// sched_balance_trigger, from sched_tick.
    pub fn sched_balance_trigger(&mut self, cpu: CpuId) {
        if self.sd.cpus[cpu].sd.is_none() {
            return;
        }
        self.rqs[cpu].lb.idle_balance = self.available_idle_cpu(cpu);
        let raise = self.jiffies() >= self.rqs[cpu].lb.next_balance;
        self.nohz_balancer_kick(cpu);
        if raise {
            self.sched_balance_softirq(cpu);
        }
    }

    /// sched_balance_softirq, normal path: blocked averages, then the domains. The NOHZ
    /// path (balancing for tickless CPUs) runs from the ILB kick event instead.
    pub fn sched_balance_softirq(&mut self, cpu: CpuId) {
        self.in_sched_fn(SchedFn::SchedBalanceDomains, |sched| {
            let idle = if sched.rqs[cpu].lb.idle_balance {
                CpuIdleType::Idle
            } else {
                CpuIdleType::NotIdle
            };
            sched.sched_balance_update_blocked_averages(cpu);
            sched.sched_balance_domains(cpu, idle);
            sched.charge_balance_cost(cpu);
        })
    }

    /// sched_balance_update_blocked_averages: age the CPU's blocked load and clear
    /// has_blocked_load once everything decayed to zero.
    pub fn sched_balance_update_blocked_averages(&mut self, cpu: CpuId) {
        self.update_blocked_averages(cpu);
        let j = self.jiffies();
        let rq = &self.rqs[cpu];
        let a = &self.cfs_rqs[rq.cfs].avg;
        let done = a.load_avg == 0
            && a.util_avg == 0
            && a.runnable_avg == 0
            && [&rq.avg_rt, &rq.avg_dl, &rq.avg_hw, &rq.avg_irq]
                .iter()
                .all(|s| s.util_avg == 0 && s.load_avg == 0);
        let lb = &mut self.rqs[cpu].lb;
        lb.last_blocked_load_update_tick = j;
        if done {
            lb.has_blocked_load = false;
        }
    }

    /// get_sd_balance_interval, jiffies.
    pub fn get_sd_balance_interval(&self, sd: DomainId, busy: bool) -> u64 {
        let d = &self.sd.domains[sd];
        let mut ms = d.balance_interval;
        if busy {
            ms *= d.busy_factor as u64;
        }
        let mut j = super::msecs_to_jiffies(ms, self.cfg.hz);
        if busy {
            j = j.saturating_sub(1);
        }
        j.clamp(1, self.lb.max_load_balance_interval)
    }

    /// update_next_balance: fold one domain's next idle-interval expiry into `next`.
    pub(crate) fn update_next_balance(&self, sd: DomainId, next: &mut u64) {
        let due = self.sd.domains[sd].last_balance + self.get_sd_balance_interval(sd, false);
        *next = (*next).min(due);
    }

    /// sched_balance_domains (was rebalance_domains): balance every level whose interval
    /// has expired, bottom-up, as `cpu` (which may be a tickless CPU the ILB stands in for).
    pub fn sched_balance_domains(&mut self, cpu: CpuId, idle: CpuIdleType) {
        let mut idle = idle;
        let mut busy = idle != CpuIdleType::Idle && !self.sched_idle_rq(cpu);
        let mut cont = true;
        let jiffies = self.jiffies();
        let mut next_balance = jiffies + 60 * self.cfg.hz as u64;
        let mut update_next = false;
        let mut need_decay = false;
        let mut max_cost = 0;
        let mut d = self.sd.cpus[cpu].sd;
        while let Some(sd) = d {
            d = self.sd.domains[sd].parent;
            need_decay = self.update_newidle_cost(sd, 0, 0);
            max_cost += self.sd.domains[sd].max_newidle_lb_cost;
            if !cont {
                if need_decay {
                    continue;
                }
                break;
            }
            let mut interval = self.get_sd_balance_interval(sd, busy);
            if jiffies >= self.sd.domains[sd].last_balance + interval {
                if self.sched_balance_rq(cpu, sd, idle, &mut cont) > 0 {
                    // Tasks moved (possibly to another CPU, LBF_DST_PINNED): re-evaluate.
                    idle = if self.available_idle_cpu(cpu) {
                        CpuIdleType::Idle
                    } else {
                        CpuIdleType::NotIdle
                    };
                    busy = idle != CpuIdleType::Idle && !self.sched_idle_rq(cpu);
                }
                self.sd.domains[sd].last_balance = jiffies;
                interval = self.get_sd_balance_interval(sd, busy);
            }
            let due = self.sd.domains[sd].last_balance + interval;
            if next_balance > due {
                next_balance = due;
                update_next = true;
            }
        }
        if need_decay {
            self.rqs[cpu].lb.max_idle_balance_cost = SYSCTL_SCHED_MIGRATION_COST.max(max_cost);
        }
        if update_next {
            self.rqs[cpu].lb.next_balance = next_balance;
        }
    }

    /// set_rd_overloaded: read, and write only on change.
    pub fn set_rd_overloaded(&mut self, cpu: CpuId, v: bool) {
        if self.rd_read_overloaded(cpu) != v {
            self.rd_write_overloaded(cpu, v);
        }
    }

    /// Charge the balancing work accumulated since the last charge to `cpu`, the CPU that
    /// ran it (sched_lb_per_cpu_ns per CPU examined).
    pub(crate) fn charge_balance_cost(&mut self, cpu: CpuId) {
        let ns = std::mem::take(&mut self.lb.cost_acc);
        self.stall_cpu(cpu, ns, Stall::Now);
    }

    /// The sched_domain_shared whose nr_busy_cpus counts `cpu` (sd_balance_shared,
    /// falling back to sd_llc_shared).
    pub(crate) fn busy_shared(&self, cpu: CpuId) -> Option<usize> {
        let t = &self.sd.cpus[cpu];
        t.sd_balance_shared.or(t.sd_llc_shared)
    }
}
