//! The fork/exec slow path: sched_balance_find_dst_cpu, _group and _group_cpu (was
//! find_idlest_*).

use crate::machine::CpuId;
use crate::sched::fair::balance::classify::{group_classify, GroupType, SgLbStats};
use crate::sched::fair::balance::imbalance::adjust_numa_imbalance;
use crate::sched::topology::{DomainId, GroupId, SdFlags};
use crate::sched::{Sched, TaskId};
use crate::time::Ns;

impl Sched {
    /// task_running_on_cpu: p is queued on `cpu` and so counts in its statistics.
    fn task_running_on_cpu(&self, cpu: CpuId, p: TaskId) -> bool {
        self.tasks[p].cpu == cpu && self.tasks[p].on_rq
    }

    /// p's PELT signals count on `cpu` (it last ran there and has not been detached).
    fn task_pelt_on(&self, cpu: CpuId, p: TaskId) -> bool {
        self.tasks[p].cpu == cpu
            && self.entities[self.tasks[p].se as usize]
                .avg
                .last_update_time
                != 0
    }

    /// cpu_load_without: cpu_load less p's contribution.
    pub fn cpu_load_without(&self, cpu: CpuId, p: TaskId) -> u64 {
        let load = self.cpu_load(cpu);
        if !self.task_pelt_on(cpu, p) {
            return load;
        }
        load.saturating_sub(self.task_h_load(p))
    }

    /// cpu_runnable: the root cfs_rq's runnable_avg.
    pub fn cpu_runnable(&self, cpu: CpuId) -> u64 {
        self.cfs_rqs[self.rqs[cpu].cfs].avg.runnable_avg
    }

    /// cpu_runnable_without: cpu_runnable less p's runnable_avg.
    pub fn cpu_runnable_without(&self, cpu: CpuId, p: TaskId) -> u64 {
        let r = self.cpu_runnable(cpu);
        if !self.task_pelt_on(cpu, p) {
            return r;
        }
        r.saturating_sub(self.entities[self.tasks[p].se as usize].avg.runnable_avg)
    }

    /// idle_cpu_without: idle once p is gone (its own nr_running was already discounted).
    fn idle_cpu_without(&self, cpu: CpuId, p: TaskId) -> bool {
        let rq = &self.rqs[cpu];
        (rq.curr.is_none() || rq.curr == Some(p)) && rq.ttwu_pending == 0
    }

    /// update_sg_wakeup_stats: the group's statistics without p.
    fn update_sg_wakeup_stats(&mut self, sd: DomainId, sg: GroupId, p: TaskId) -> SgLbStats {
        let asym = self.sd.domains[sd]
            .flags
            .contains(SdFlags::ASYM_CPUCAPACITY);
        let mut s = SgLbStats::default();
        if asym {
            s.group_misfit_task_load = 1;
        }
        let span = self.sd.group_span(sg).clone();
        for i in span.iter() {
            if !self.tasks[p].cpus_allowed[i] {
                continue;
            }
            self.placement_visits += 1;
            s.group_load += self.cpu_load_without(i, p);
            s.group_util += self.cpu_util_without(i, p);
            s.group_runnable += self.cpu_runnable_without(i, p);
            let local = self.task_running_on_cpu(i, p) as u32;
            let cfs = &self.cfs_rqs[self.rqs[i].cfs];
            let fair = cfs.lb_h_nr_running(self.cfg.kernel);
            s.sum_h_nr_running += fair - local.min(fair);
            let nr_running = self.rqs[i].nr_running - local;
            s.sum_nr_running += nr_running;
            if nr_running == 0 && self.idle_cpu_without(i, p) {
                s.idle_cpus += 1;
            }
            if asym && s.group_misfit_task_load != 0 && self.task_fits_cpu(p, i) {
                s.group_misfit_task_load = 0;
            }
        }
        let g = &self.sd.groups[sg];
        let sgc = &self.sd.sgc[g.sgc];
        s.group_capacity = sgc.capacity;
        s.group_weight = g.group_weight;
        s.max_capacity = sgc.max_capacity;
        s.min_capacity = sgc.min_capacity;
        let pct = self.sd.domains[sd].imbalance_pct as u64;
        let eas = self.sched_energy_enabled();
        s.group_type = group_classify(pct, &s, eas);
        if matches!(s.group_type, GroupType::FullyBusy | GroupType::Overloaded) {
            s.avg_load = s.group_load * 1024 / s.group_capacity.max(1);
        }
        s
    }

    /// update_pick_idlest: whether `sgs` beats the idlest group so far.
    fn update_pick_idlest(idlest: &SgLbStats, sgs: &SgLbStats) -> bool {
        if sgs.group_type != idlest.group_type {
            return sgs.group_type < idlest.group_type;
        }
        match sgs.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => sgs.avg_load < idlest.avg_load,
            GroupType::MisfitTask => sgs.max_capacity > idlest.max_capacity,
            GroupType::HasSpare => {
                sgs.idle_cpus > idlest.idle_cpus
                    || (sgs.idle_cpus == idlest.idle_cpus && sgs.group_util < idlest.group_util)
            }
            // Not used in the slow path.
            _ => false,
        }
    }

    /// sched_balance_find_dst_group: the group to move p to, or None to stay local.
    fn sched_balance_find_dst_group(
        &mut self,
        sd: DomainId,
        p: TaskId,
        this_cpu: CpuId,
    ) -> Option<GroupId> {
        let groups: Vec<GroupId> = self.sd.groups_of(sd).collect();
        let mut idlest: Option<(GroupId, SgLbStats)> = None;
        let mut local: Option<(GroupId, SgLbStats)> = None;
        for sg in groups {
            let span = self.sd.group_span(sg);
            if !span.iter().any(|c| self.tasks[p].cpus_allowed[c]) {
                continue;
            }
            let is_local = span.contains(this_cpu);
            let sgs = self.update_sg_wakeup_stats(sd, sg, p);
            if is_local {
                local = Some((sg, sgs));
            } else if idlest
                .as_ref()
                .is_none_or(|(_, best)| Self::update_pick_idlest(best, &sgs))
            {
                idlest = Some((sg, sgs));
            }
        }
        let (idlest_sg, idlest) = idlest?;
        let Some((local_sg, local)) = local else {
            return Some(idlest_sg);
        };
        if local.group_type != idlest.group_type {
            return (local.group_type > idlest.group_type).then_some(idlest_sg);
        }
        let dom = &self.sd.domains[sd];
        let pct = dom.imbalance_pct as u64;
        let numa = dom.flags.contains(SdFlags::NUMA);
        let stay = match local.group_type {
            GroupType::Overloaded | GroupType::FullyBusy => {
                let imb = 1024 * (pct - 100) / 100;
                idlest.avg_load >= local.avg_load + imb
                    || (numa && idlest.avg_load + imb >= local.avg_load)
                    || 100 * local.avg_load <= pct * idlest.avg_load
            }
            GroupType::MisfitTask => local.max_capacity >= idlest.max_capacity,
            GroupType::HasSpare => {
                let mut stay = false;
                if numa {
                    // p->nr_cpus_allowed != NR_CPUS holds on every modelled machine, so the
                    // allowance is capped by the allowed CPUs of the local group.
                    let allowed_local = self
                        .sd
                        .group_span(local_sg)
                        .iter()
                        .filter(|&c| self.tasks[p].cpus_allowed[c])
                        .count() as u64;
                    let imb_numa_nr = (allowed_local as u32).min(dom.imb_numa_nr);
                    let imb = local.idle_cpus.abs_diff(idlest.idle_cpus) as i64;
                    let dst_running = local.sum_nr_running + 1;
                    stay = adjust_numa_imbalance(imb, dst_running, imb_numa_nr) == 0;
                }
                stay || local.idle_cpus >= idlest.idle_cpus
            }
            // Imbalanced, asym packing and SMT balance are not used in the slow path.
            _ => true,
        };
        (!stay).then_some(idlest_sg)
    }

    /// sched_balance_find_dst_group_cpu: a SCHED_IDLE-only CPU at once; else the idle CPU in
    /// the shallowest idle state (ties to the most recently idled, the warmest cache);
    /// else the least loaded CPU.
    fn sched_balance_find_dst_group_cpu(
        &mut self,
        sg: GroupId,
        p: TaskId,
        this_cpu: CpuId,
    ) -> CpuId {
        let span = self.sd.group_span(sg).clone();
        if self.sd.groups[sg].group_weight == 1 {
            return span.first().expect("a group has a CPU");
        }
        let mut min_exit_latency = Ns::MAX;
        let mut latest_idle_stamp: Option<Ns> = None;
        let mut shallowest: Option<CpuId> = None;
        let (mut least_loaded, mut min_load) = (this_cpu, u64::MAX);
        for i in span.iter() {
            if !self.tasks[p].cpus_allowed[i] {
                continue;
            }
            self.placement_visits += 1;
            if self.choose_sched_idle_rq(i, p) {
                return i;
            }
            if self.available_idle_cpu(i) {
                let stamp = self.rqs[i].sim.idle_since.unwrap_or(0);
                let d = &self.machine.freq_domains[self.machine.cpus[i].freq_domain];
                let exit = self
                    .idle_state_for(i, self.now - stamp)
                    .map(|s| d.idle_states[s].exit_latency_ns);
                match exit {
                    Some(lat) if lat < min_exit_latency => {
                        min_exit_latency = lat;
                        latest_idle_stamp = Some(stamp);
                        shallowest = Some(i);
                    }
                    e if (e.is_none() || e == Some(min_exit_latency))
                        && latest_idle_stamp.is_none_or(|l| stamp > l) =>
                    {
                        latest_idle_stamp = Some(stamp);
                        shallowest = Some(i);
                    }
                    _ => {}
                }
            } else if shallowest.is_none() {
                let load = self.cpu_load(i);
                if load < min_load {
                    min_load = load;
                    least_loaded = i;
                }
            }
        }
        shallowest.unwrap_or(least_loaded)
    }

    /// sched_balance_find_dst_cpu(sd, p, cpu, prev_cpu, sd_flag):
    /// descend from the highest balancing domain towards the idlest CPU.
    pub(super) fn sched_balance_find_dst_cpu(
        &mut self,
        sd: DomainId,
        p: TaskId,
        cpu: CpuId,
        prev_cpu: CpuId,
        sd_flag: SdFlags,
    ) -> CpuId {
        if !self
            .sd
            .span(sd)
            .iter()
            .any(|c| self.tasks[p].cpus_allowed[c])
        {
            return prev_cpu;
        }
        if sd_flag != SdFlags::BALANCE_FORK {
            let se = self.tasks[p].se;
            self.sync_entity_load_avg(se);
        }
        let mut cpu = cpu;
        let mut new_cpu = cpu;
        let mut sd = Some(sd);
        while let Some(s) = sd {
            let child = self.sd.domains[s].child;
            if !self.sd.domains[s].flags.intersects(sd_flag) {
                sd = child;
                continue;
            }
            let Some(group) = self.sched_balance_find_dst_group(s, p, cpu) else {
                sd = child;
                continue;
            };
            new_cpu = self.sched_balance_find_dst_group_cpu(group, p, cpu);
            if new_cpu == cpu {
                sd = child;
                continue;
            }
            // Restart from new_cpu's highest balancing domain below this level.
            cpu = new_cpu;
            let weight = self.sd.domains[s].span_weight;
            sd = None;
            for tmp in self.sd.for_each_domain(cpu) {
                if weight <= self.sd.domains[tmp].span_weight {
                    break;
                }
                if self.sd.domains[tmp].flags.intersects(sd_flag) {
                    sd = Some(tmp);
                }
            }
        }
        new_cpu
    }
}
