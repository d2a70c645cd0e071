//! Newidle balancing (fair.c sched_balance_newidle): a CPU about to go idle pulls work at once,
//! if its expected idle time covers the cost, with the proportional NI_RANDOM sampling.

use super::{nohz_flags, CpuIdleType, SYSCTL_SCHED_MIGRATION_COST};
use crate::engine::queue::CpuTimer;
use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::sim::overhead::{SchedFn, Stall};
use crate::sched::topology::{DomainId, SdFlags};
use crate::sched::Sched;

/// Newidle statistics window, in calls (update_newidle_stats).
const NEWIDLE_WINDOW: u32 = 1024;

impl Sched {
    /// sched_balance_newidle (was newidle_balance), from pick_next_task_fair when the
    /// CPU has nothing to run. Returns the number of tasks pulled.
    pub fn sched_balance_newidle(&mut self, cpu: CpuId) -> u32 {
        self.in_sched_fn(SchedFn::SchedBalanceNewidle, |sched| {
            sched.update_misfit_status(None, cpu);
            if sched.rqs[cpu].ttwu_pending > 0 {
                return 0;
            }
            sched.rqs[cpu].lb.idle_stamp = sched.now;
            let Some(base) = sched.sd.cpus[cpu].sd else {
                return 0;
            };
            let mut next_balance = sched.jiffies() + sched.cfg.hz as u64;
            let mut pulled = 0;
            let avg_idle = sched.rqs[cpu].lb.avg_idle;
            if !sched.rd_read_overloaded(cpu)
                || avg_idle < sched.sd.domains[base].max_newidle_lb_cost
            {
                sched.update_next_balance(base, &mut next_balance);
            } else {
                sched.lb.counters.newidle_calls += 1;
                // The blocked-load update is part of the measured cost: one CPU's worth.
                sched.sched_balance_update_blocked_averages(cpu);
                let mut curr_cost = sched.machine.costs.sched_lb_per_cpu_ns;
                let mut spent = curr_cost;
                let mut cont = true;
                let mut d = Some(base);
                while let Some(sd) = d {
                    d = sched.sd.domains[sd].parent;
                    sched.update_next_balance(sd, &mut next_balance);
                    if avg_idle < curr_cost + sched.sd.domains[sd].max_newidle_lb_cost {
                        break;
                    }
                    if sched.sd.domains[sd]
                        .flags
                        .contains(SdFlags::BALANCE_NEWIDLE)
                    {
                        let Some(weight) = sched.newidle_sample(sd) else {
                            continue;
                        };
                        let before = sched.lb.cost_acc;
                        pulled = sched.sched_balance_rq(cpu, sd, CpuIdleType::NewlyIdle, &mut cont);
                        let domain_cost = (sched.lb.cost_acc - before).max(1);
                        curr_cost += domain_cost;
                        let success = if pulled > 0 { weight } else { 0 };
                        sched.update_newidle_cost(sd, domain_cost, success);
                    }
                    if pulled > 0 || !cont {
                        break;
                    }
                }
                let lb = &mut sched.rqs[cpu].lb;
                lb.max_idle_balance_cost = lb.max_idle_balance_cost.max(curr_cost);
                spent += std::mem::take(&mut sched.lb.cost_acc);
                sched.stall_cpu(cpu, spent, Stall::Deferred);
            }
            let lb = &mut sched.rqs[cpu].lb;
            if lb.next_balance > next_balance {
                lb.next_balance = next_balance;
            }
            if pulled > 0 {
                lb.idle_stamp = 0;
                sched.lb.counters.newidle_pulled += 1;
            } else {
                sched.nohz_newidle_balance(cpu);
            }
            pulled
        })
    }

    /// NI_RANDOM: balance this level with probability ≈ newidle_ratio/1024; `None` skips
    /// it (recorded as an unsuccessful call), else the weight a success counts with.
    fn newidle_sample(&mut self, sd: DomainId) -> Option<u32> {
        let ratio = self.sd.domains[sd].newidle_ratio;
        if !self.features.on(Feature::NI_RANDOM) || ratio >= 1024 {
            return Some(1);
        }
        let d = self.lb.next_u32() % 1024;
        let w = 1 + ratio;
        if d > w {
            self.update_newidle_stats(sd, 0);
            return None;
        }
        Some((1024 + w / 2) / w)
    }

    /// update_newidle_stats: windowed success ratio of newidle passes at this level.
    fn update_newidle_stats(&mut self, sd: DomainId, success: u32) {
        let now = self.now;
        let rate = self.features.on(Feature::NI_RATE);
        let d = &mut self.sd.domains[sd];
        d.newidle_call += 1;
        d.newidle_success += success;
        if d.newidle_call >= NEWIDLE_WINDOW {
            let mut ratio = d.newidle_success as u64;
            if rate {
                ratio += now.saturating_sub(d.newidle_stamp) >> 22;
            }
            d.newidle_stamp = now;
            d.newidle_ratio = ratio.min(1024) as u32;
            d.newidle_call /= 2;
            d.newidle_success /= 2;
        }
    }

    /// update_newidle_cost: raise max_newidle_lb_cost to `cost`, or decay it by 253/256
    /// once a second; true when it decayed.
    pub(crate) fn update_newidle_cost(&mut self, sd: DomainId, cost: u64, success: u32) -> bool {
        if cost > 0 {
            self.update_newidle_stats(sd, success);
        }
        let jiffies = self.jiffies();
        let hz = self.cfg.hz as u64;
        let d = &mut self.sd.domains[sd];
        if cost > d.max_newidle_lb_cost {
            d.max_newidle_lb_cost = cost;
            d.last_decay_max_lb_cost = jiffies;
        } else if jiffies > d.last_decay_max_lb_cost + hz {
            d.max_newidle_lb_cost = d.max_newidle_lb_cost * 253 / 256;
            d.last_decay_max_lb_cost = jiffies;
            return true;
        }
        false
    }

    /// update_rq_avg_idle: from put_prev_task_idle since v7.0, from ttwu_do_activate before
    /// (`KernelVersion::updates_avg_idle_at_put_prev_idle`); only with a valid idle_stamp.
    pub(crate) fn update_rq_avg_idle(&mut self, cpu: CpuId) {
        let now = self.now;
        let lb = &mut self.rqs[cpu].lb;
        if lb.idle_stamp == 0 {
            return;
        }
        let sample = now.saturating_sub(lb.idle_stamp) as i64;
        let avg = lb.avg_idle as i64;
        let max = 2 * lb.max_idle_balance_cost;
        lb.avg_idle = ((avg + (sample - avg) / 8).max(0) as u64).min(max);
        lb.idle_stamp = 0;
    }

    /// nohz_newidle_balance: a CPU going idle for long enough refreshes the blocked load
    /// of the tickless CPUs itself, from its idle loop.
    fn nohz_newidle_balance(&mut self, cpu: CpuId) {
        if self.rqs[cpu].lb.avg_idle < SYSCTL_SCHED_MIGRATION_COST {
            return;
        }
        let nohz = &self.lb.nohz;
        if !nohz.has_blocked_load || self.jiffies() < nohz.next_blocked {
            return;
        }
        let lb = &mut self.rqs[cpu].lb;
        if lb.nohz_flags & nohz_flags::KICK_MASK != 0 {
            return;
        }
        lb.nohz_flags |= nohz_flags::STATS_KICK;
        self.events.arm(cpu, CpuTimer::NohzKick, self.now);
    }
}
