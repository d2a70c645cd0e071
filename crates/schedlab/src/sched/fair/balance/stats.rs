//! update_sg_lb_stats / update_sd_lb_stats / update_sd_pick_busiest, the root domain's
//! overloaded and overutilized writes, and SIS_UTIL's update_idle_cpu_scan
//! (kernel/sched/fair.c).

use super::classify::{group_classify, GroupType, SgLbStats};
use super::imbalance::{find_src_group_decision, DecideCtx, SdLbStats};
use super::lb::LbEnv;
use super::{msecs_to_jiffies, CpuIdleType};
use crate::machine::CpuId;
use crate::sched::capacity::capacity_greater;
use crate::sched::fair::util_est::UtilConsumer;
use crate::sched::fair::wake_affine::nr_idle_scan_for;
use crate::sched::features::Feature;
use crate::sched::sim::shared_line::Store;
use crate::sched::topology::{DomainId, GroupId, SdFlags};
use crate::sched::Sched;

impl Sched {
    /// check_cpu_capacity: the CPU lost more than ~imbalance_pct of its capacity to
    /// RT/IRQ/pressure.
    pub fn check_cpu_capacity(&self, cpu: CpuId, sd: DomainId) -> bool {
        let pct = self.sd.domains[sd].imbalance_pct as u64;
        self.capacity_of(cpu) * pct < self.arch_scale_cpu_capacity(cpu) * 100
    }

    /// update_sg_lb_stats over `group ∩ env.cpus`.
    fn update_sg_lb_stats(
        &self,
        env: &LbEnv,
        group: GroupId,
        local: bool,
        sg_overloaded: &mut bool,
        sg_overutilized: &mut bool,
    ) -> (SgLbStats, u64) {
        let sd = &self.sd.domains[env.sd];
        let asym = sd.flags.contains(SdFlags::ASYM_CPUCAPACITY);
        let sg = &self.sd.groups[group];
        let sgc = &self.sd.sgc[sg.sgc];
        let mut sgs = SgLbStats::default();
        let mut examined = 0;
        // What does not change from CPU to CPU, read once for the walk: cpu_overutilized's
        // EAS test, and which readers take seed 003's util_est_faster boost.
        let overutilized_tracked = self.overutilized_tracked();
        let lb_boost = self.util_est_faster_on(UtilConsumer::Lb);
        let ou_boost = self.util_est_faster_on(UtilConsumer::Overutilized);
        for i in self.sd.group_span(group).iter() {
            if !env.cpus.contains(i) {
                continue;
            }
            examined += 1;
            let rq = &self.rqs[i];
            let cfs = &self.cfs_rqs[rq.cfs];
            let load = cfs.avg.load_avg;
            sgs.group_load += load;
            // cpu_util_cfs and the boost, read once for the util sum and the
            // overutilized test.
            let util_cfs = self.cpu_util_cfs(i);
            let boosted = if lb_boost || ou_boost {
                let cap = self.arch_scale_cpu_capacity(i);
                util_cfs.max(self.util_est_faster_boost(i).min(cap))
            } else {
                util_cfs
            };
            sgs.group_util += if lb_boost { boosted } else { util_cfs };
            sgs.group_runnable += cfs.avg.runnable_avg;
            sgs.sum_h_nr_running += cfs.lb_h_nr_running(self.cfg.kernel);
            let nr_running = rq.nr_running;
            sgs.sum_nr_running += nr_running;
            // An OR over the group: once set, the rest of its CPUs cannot change it.
            if overutilized_tracked
                && !sgs.group_overutilized
                && self.util_overutilizes(i, if ou_boost { boosted } else { util_cfs })
            {
                sgs.group_overutilized = true;
                *sg_overutilized = true;
            }
            if nr_running == 0 && self.available_idle_cpu(i) {
                sgs.idle_cpus += 1;
                continue;
            }
            if nr_running > 1 {
                *sg_overloaded = true;
            }
            if local {
                continue;
            }
            if asym {
                let misfit = rq.lb.misfit_task_load;
                if misfit > 0 {
                    *sg_overloaded = true;
                    if !self.cfg.kernel.counts_misfit_only_for_bigger_dst()
                        || capacity_greater(self.capacity_of(env.dst_cpu), sgc.max_capacity)
                    {
                        sgs.group_misfit_task_load = sgs.group_misfit_task_load.max(misfit);
                    }
                }
            } else if env.idle.is_idle()
                && cfs.lb_h_nr_running(self.cfg.kernel) == 1
                && self.check_cpu_capacity(i, env.sd)
            {
                // sched_reduced_capacity: the "misfit" of a symmetric system.
                sgs.group_misfit_task_load = sgs.group_misfit_task_load.max(load);
            }
        }
        sgs.group_capacity = sgc.capacity;
        sgs.group_weight = sg.group_weight;
        sgs.cores = sg.cores;
        sgs.smt = sg.flags.contains(SdFlags::SHARE_CPUCAPACITY);
        sgs.prefer_sibling = sg.flags.contains(SdFlags::PREFER_SIBLING);
        sgs.min_capacity = sgc.min_capacity;
        sgs.max_capacity = sgc.max_capacity;
        sgs.sgc_imbalance = sgc.imbalance;
        if !local {
            // No SD_ASYM_PACKING level is ever built, so group_asym_packing stays off.
            sgs.group_smt_balance = self.cfg.kernel.has_smt_aware_balance()
                && env.idle.is_idle()
                && sgs.smt
                && sgs.sum_h_nr_running > 1;
        }
        let eas = self.sched_energy_enabled();
        sgs.group_type = group_classify(sd.imbalance_pct as u64, &sgs, eas);
        if sgs.group_type == GroupType::Overloaded {
            sgs.avg_load = sgs.group_load * 1024 / sgs.group_capacity.max(1);
        }
        (sgs, examined)
    }

    /// update_sd_pick_busiest: does `sgs` replace the busiest?
    fn update_sd_pick_busiest(&self, env: &LbEnv, sds: &SdLbStats, sgs: &SgLbStats) -> bool {
        let asym = self.sd.domains[env.sd]
            .flags
            .contains(SdFlags::ASYM_CPUCAPACITY);
        let dst_cap = self.capacity_of(env.dst_cpu);
        if sgs.sum_h_nr_running == 0 {
            return false;
        }
        let dst_core_idle = !self.sd.sched_smt_present || self.is_core_idle(env.dst_cpu);
        if asym
            && sgs.group_type == GroupType::MisfitTask
            && (sds.local.group_type != GroupType::HasSpare
                || !capacity_greater(dst_cap, sgs.max_capacity)
                || !dst_core_idle)
        {
            return false;
        }
        let busiest = &sds.busiest;
        if sgs.group_type != busiest.group_type {
            return sgs.group_type > busiest.group_type;
        }
        let kernel = self.cfg.kernel;
        let has_spare_rule = |sgs: &SgLbStats| -> bool {
            // smt_vs_nonsmt_groups (v6.6): only against a real busiest group.
            if kernel.has_smt_aware_balance() && sds.has_busiest && busiest.smt != sgs.smt {
                return !(sgs.smt && sgs.sum_h_nr_running <= 1);
            }
            if sgs.idle_cpus > busiest.idle_cpus {
                return false;
            }
            !(sgs.idle_cpus == busiest.idle_cpus && sgs.sum_nr_running <= busiest.sum_nr_running)
        };
        let fully_busy_rule = |sgs: &SgLbStats| -> bool {
            if sgs.avg_load < busiest.avg_load {
                return false;
            }
            // avg_load is 0 here: a tie keeps the first group before v6.5.
            let tie_stays = !kernel.fully_busy_tie_takes_later_group() || busiest.smt;
            !(sgs.avg_load == busiest.avg_load && tie_stays)
        };
        let pick = match sgs.group_type {
            GroupType::Overloaded => sgs.avg_load > busiest.avg_load,
            GroupType::Imbalanced | GroupType::AsymPacking => false,
            GroupType::MisfitTask => sgs.group_misfit_task_load > busiest.group_misfit_task_load,
            GroupType::SmtBalance => {
                if sgs.idle_cpus != 0 || busiest.idle_cpus != 0 {
                    has_spare_rule(sgs)
                } else {
                    fully_busy_rule(sgs)
                }
            }
            GroupType::FullyBusy => fully_busy_rule(sgs),
            GroupType::HasSpare => has_spare_rule(sgs),
        };
        if !pick {
            return false;
        }
        // Do not pull from bigger CPUs that are not overloaded.
        !(asym
            && sgs.group_type <= GroupType::FullyBusy
            && capacity_greater(sgs.min_capacity, dst_cap))
    }

    /// update_sd_lb_stats: statistics of every group of env.sd,
    /// the local and busiest ones kept; writes the root domain's flags at the top level
    /// and nr_idle_scan at the LLC level. Returns the busiest group.
    pub(crate) fn update_sd_lb_stats(&mut self, env: &LbEnv) -> (SdLbStats, Option<GroupId>) {
        let sd = env.sd;
        let jiffies = self.jiffies();
        let mut sds = SdLbStats {
            busiest: SgLbStats {
                idle_cpus: u32::MAX,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut busiest_group = None;
        let (mut sg_overloaded, mut sg_overutilized) = (false, false);
        let mut sum_util = 0;
        let mut examined = 0;
        let nr_groups = self.sd.nr_groups(sd);
        for k in 0..nr_groups {
            let group = self.sd.groups_of(sd).nth(k).expect("k < nr_groups");
            let local = k == 0;
            if local {
                let sgc = self.sd.groups[group].sgc;
                if env.idle != CpuIdleType::NewlyIdle || jiffies >= self.sd.sgc[sgc].next_update {
                    self.update_local_group_capacity(sd, env.dst_cpu);
                }
            }
            let (sgs, n) = self.update_sg_lb_stats(
                env,
                group,
                local,
                &mut sg_overloaded,
                &mut sg_overutilized,
            );
            examined += n;
            if local {
                sds.local = sgs;
            } else if self.update_sd_pick_busiest(env, &sds, &sgs) {
                sds.busiest = sgs;
                sds.has_busiest = true;
                busiest_group = Some(group);
            }
            sds.total_load += sgs.group_load;
            sds.total_capacity += sgs.group_capacity;
            sum_util += sgs.group_util;
        }
        self.lb.counters.cpus_examined += examined;
        let ns = examined * self.machine.costs.sched_lb_per_cpu_ns;
        self.lb.cost_acc += ns;
        self.book_sched_time(ns);
        sds.prefer_sibling = sds.has_busiest && sds.busiest.prefer_sibling;
        if self.sd.domains[sd].parent.is_none() {
            if self.features.on(Feature::OVERUTIL_WITHOUT_EAS) {
                // Before v6.10 the top level stored the flag whether it changed or not.
                self.rd_write_overloaded(env.dst_cpu, sg_overloaded);
            } else {
                self.set_rd_overloaded(env.dst_cpu, sg_overloaded);
            }
            self.set_rd_overutilized(env.dst_cpu, sg_overutilized);
        } else if sg_overutilized {
            self.set_rd_overutilized(env.dst_cpu, true);
        }
        self.update_idle_cpu_scan(env, sum_util);
        (sds, busiest_group)
    }

    /// update_group_capacity for the local group, next update one balance interval on.
    fn update_local_group_capacity(&mut self, sd: DomainId, cpu: CpuId) {
        let ms = self.sd.domains[sd].balance_interval;
        let next = self.jiffies()
            + msecs_to_jiffies(ms, self.cfg.hz).clamp(1, self.lb.max_load_balance_interval);
        // capacity_of, read from the rqs while the domains are borrowed mutably.
        let rqs = &self.rqs;
        let capacity_of = |c: CpuId| rqs[c].scale_rt_capacity;
        self.sd.update_group_capacity(sd, cpu, &capacity_of, next);
    }

    /// update_idle_cpu_scan: the SIS_UTIL scan budget of the LLC,
    /// written by periodic balancing at the LLC level only.
    fn update_idle_cpu_scan(&mut self, env: &LbEnv, sum_util: u64) {
        if !self.features.on(Feature::SIS_UTIL) || env.idle == CpuIdleType::NewlyIdle {
            return;
        }
        let t = &self.sd.cpus[env.dst_cpu];
        let d = &self.sd.domains[env.sd];
        if d.span_weight != t.sd_llc_size {
            return;
        }
        let Some(sh) = t.sd_llc_shared else {
            return;
        };
        let nr = nr_idle_scan_for(sum_util, d.span_weight as u64, d.imbalance_pct as u64) as u32;
        // READ_ONCE then WRITE_ONCE only on change.
        self.sd_shared_read(env.dst_cpu, sh);
        if self.sd.shared[sh].nr_idle_scan != nr {
            self.sd_shared_write(env.dst_cpu, sh, Store::Plain);
            self.sd.shared[sh].nr_idle_scan = nr;
        }
    }

    /// sched_balance_find_src_group (was find_busiest_group): the busiest group if there is
    /// an imbalance to fix; sets env.migration_type and env.imbalance.
    pub(crate) fn sched_balance_find_src_group(&mut self, env: &mut LbEnv) -> Option<GroupId> {
        let (mut sds, busiest) = self.update_sd_lb_stats(env);
        env.imbalance = 0;
        let busiest = busiest?;
        let d = &self.sd.domains[env.sd];
        let mut ctx = DecideCtx {
            idle: env.idle,
            imbalance_pct: d.imbalance_pct as u64,
            share_llc: d.flags.contains(SdFlags::SHARE_LLC),
            numa: d.flags.contains(SdFlags::NUMA),
            asym_cpucapacity: d.flags.contains(SdFlags::ASYM_CPUCAPACITY),
            imb_numa_nr: d.imb_numa_nr,
            eas_balanced: false,
            smt_aware: self.cfg.kernel.has_smt_aware_balance(),
            avg_load_guard: self.cfg.kernel.guards_imbalance_overflow(),
            misfit_overrides_eas: self.cfg.kernel.misfit_overrides_eas(),
        };
        // READ_ONCE(rd->overutilized) costs a line read: from v6.3 a misfit busiest group
        // is forced before it, so the kernel does not read it then.
        let misfit_first =
            ctx.misfit_overrides_eas && sds.busiest.group_type == GroupType::MisfitTask;
        if !misfit_first && self.sched_energy_enabled() {
            ctx.eas_balanced = !self.is_rd_overutilized(env.dst_cpu);
        }
        let (t, imb) = find_src_group_decision(&mut sds, &ctx)?;
        env.migration_type = t;
        env.imbalance = imb;
        Some(busiest)
    }
}
