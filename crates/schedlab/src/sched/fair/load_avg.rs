//! PELT as the fair class drives it (fair.c, pelt.c, pelt.h): the per-rq PELT clock with
//! capacity/frequency invariance and lost idle time, the entity and cfs_rq signals,
//! attach/detach/remove on migration, blocked-load decay and new-task initialisation.

use super::tree::EntityId;
use super::weights::scale_load_down;
use crate::machine::CpuId;
use crate::sched::features::Feature;
use crate::sched::pelt::{
    ___update_load_avg, ___update_load_sum, get_pelt_divider, update_signal, SchedAvg,
    LOAD_AVG_MAX, PELT_MIN_DIVIDER, SCHED_CAPACITY_SHIFT,
};
use crate::sched::{CfsRqId, Sched, TaskId};
use crate::time::Ns;

/// update_load_avg flags (fair.c).
pub mod upd {
    pub const UPDATE_TG: u32 = 1;
    pub const SKIP_AGE_LOAD: u32 = 2;
    pub const DO_ATTACH: u32 = 4;
    pub const DO_DETACH: u32 = 8;
}

/// The PELT clock starts one period after boot, not at 0: a `last_update_time` of 0 means
/// "not attached" to the kernel, so no real clock may read 0. One whole period keeps the
/// period boundaries where they would be if the clock started at 0.
pub const PELT_EPOCH_NS: Ns = 1024 * 1024;

/// Per-rq clocks feeding PELT (update_rq_clock_pelt, pelt.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RqClockPelt {
    /// rq_clock_task (no IRQ or steal time is modelled, so it is the simulation time).
    pub clock_task: Ns,
    /// clock_task_mult: advances 2^pelt_lshift times faster (PELT half-life multiplier).
    pub clock_task_mult: Ns,
    pub clock_pelt: Ns,
    pub lost_idle_time: Ns,
    /// clock_idle / clock_pelt_idle: rq clocks when the CPU last went idle.
    pub clock_idle: Ns,
    pub clock_pelt_idle: Ns,
}

impl Default for RqClockPelt {
    fn default() -> Self {
        RqClockPelt {
            clock_task: 0,
            clock_task_mult: PELT_EPOCH_NS,
            clock_pelt: PELT_EPOCH_NS,
            lost_idle_time: 0,
            clock_idle: 0,
            clock_pelt_idle: PELT_EPOCH_NS,
        }
    }
}

/// Contributions of tasks that left by wake-up migration, applied at the next update.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    pub nr: u32,
    pub load_avg: u64,
    pub util_avg: u64,
    pub runnable_avg: u64,
}

/// sub_positive for the avg fields: subtract, flooring at 0.
fn sub_positive(v: &mut u64, d: u64) {
    *v = v.saturating_sub(d);
}

/// The `sum ≥ avg · PELT_MIN_DIVIDER` floor the kernel applies after every subtraction,
/// so rounding in many detaches cannot leave a sum below its average.
fn floor_sum(sum: u64, avg: u64) -> u64 {
    sum.max(avg * PELT_MIN_DIVIDER as u64)
}

impl Sched {
    /// update_rq_clock (and update_rq_clock_pelt): bring the rq's task and PELT clocks to now.
    /// Idempotent within one instant, so every entry point may call it.
    pub fn update_rq_clock(&mut self, cpu: CpuId) {
        let delta = self.now - self.rqs[cpu].pelt.clock_task;
        if delta == 0 {
            return;
        }
        let delta = delta << self.cfg.pelt_lshift;
        let idle = self.rqs[cpu].curr.is_none();
        let cap = self.arch_scale_cpu_capacity(cpu);
        let freq = self.machine.arch_scale_freq_capacity(cpu);
        let now = self.now;
        let clk = &mut self.rqs[cpu].pelt;
        clk.clock_task = now;
        clk.clock_task_mult += delta;
        // update_rq_clock_pelt: sync while idle, scale while busy.
        if idle {
            clk.clock_pelt = clk.clock_task_mult;
            clk.clock_idle = now;
            clk.clock_pelt_idle = clk.clock_pelt - clk.lost_idle_time;
        } else {
            let scaled = (((delta * cap) >> SCHED_CAPACITY_SHIFT) * freq) >> SCHED_CAPACITY_SHIFT;
            clk.clock_pelt += scaled;
        }
    }

    /// update_idle_rq_clock_pelt: on entering idle, a CPU that was saturated keeps the
    /// gap between its PELT and task clocks as lost idle time.
    pub(crate) fn update_idle_rq_clock_pelt(&mut self, cpu: CpuId) {
        let limit = ((LOAD_AVG_MAX as u64 - 1024) << SCHED_CAPACITY_SHIFT) - LOAD_AVG_MAX as u64;
        let rq = &self.rqs[cpu];
        let util_sum = self.cfs_rqs[rq.cfs].avg.util_sum as u64
            + rq.avg_rt.util_sum as u64
            + rq.avg_dl.util_sum as u64;
        let clk = &mut self.rqs[cpu].pelt;
        if util_sum >= limit {
            clk.lost_idle_time += clk.clock_task_mult - clk.clock_pelt;
        }
        clk.clock_pelt = clk.clock_task_mult;
        clk.clock_idle = self.now;
        clk.clock_pelt_idle = clk.clock_pelt - clk.lost_idle_time;
    }

    /// rq_clock_pelt = clock_pelt − lost_idle_time; cfs_rq_clock_pelt equals it without
    /// bandwidth control.
    pub fn rq_clock_pelt(&self, cpu: CpuId) -> Ns {
        let clk = &self.rqs[cpu].pelt;
        clk.clock_pelt - clk.lost_idle_time
    }

    /// se_weight: the entity's weight with the fixed-point scaling removed.
    fn se_weight(&self, se: EntityId) -> u64 {
        scale_load_down(self.entities[se as usize].load.weight)
    }

    /// __update_load_avg_se (pelt.c).
    fn __update_load_avg_se(&mut self, now: Ns, cfs: CfsRqId, se: EntityId) -> bool {
        let e = &self.entities[se as usize];
        let load = e.on_rq as u64;
        // se_runnable: a delayed entity is not runnable, unless modelling the
        // posting before "sched/eevdf: Fixup PELT vs DELAYED_DEQUEUE".
        let delayed_runnable = self.features.on(Feature::DELAY_DEQUEUE_RUNNABLE);
        let runnable = match e.my_q {
            Some(q) if delayed_runnable => self.cfs_rqs[q].h_nr_queued as u64,
            Some(q) => self.cfs_rqs[q].h_nr_runnable as u64,
            None => (e.on_rq && (!e.sched_delayed || delayed_runnable)) as u64,
        };
        let running = self.cfs_rqs[cfs].curr == Some(se);
        if !___update_load_sum(
            now,
            &mut self.entities[se as usize].avg,
            load,
            runnable,
            running,
        ) {
            return false;
        }
        self.update_se_avg(se);
        super::util_est::cfs_se_util_change(&mut self.entities[se as usize].avg);
        true
    }

    /// __update_load_avg_blocked_se: decay a sleeping entity (pelt.c).
    fn __update_load_avg_blocked_se(&mut self, now: Ns, se: EntityId) {
        if ___update_load_sum(now, &mut self.entities[se as usize].avg, 0, 0, false) {
            self.update_se_avg(se);
        }
    }

    /// ___update_load_avg for an entity, closing the util_avg_mean interval of the value
    /// it replaces (util_avg only changes here and at post-init).
    fn update_se_avg(&mut self, se: EntityId) {
        self.account_util_mean(se);
        let w = self.se_weight(se);
        ___update_load_avg(&mut self.entities[se as usize].avg, w);
    }

    /// __update_load_avg_cfs_rq (pelt.c).
    fn __update_load_avg_cfs_rq(&mut self, now: Ns, cfs: CfsRqId) -> bool {
        let delayed_runnable = self.features.on(Feature::DELAY_DEQUEUE_RUNNABLE);
        let rq = &mut self.cfs_rqs[cfs];
        let load = scale_load_down(rq.load.weight);
        let runnable = if delayed_runnable {
            rq.h_nr_queued
        } else {
            rq.h_nr_runnable
        };
        update_signal(
            now,
            &mut rq.avg,
            load,
            runnable as u64,
            rq.curr.is_some(),
            1,
        )
    }

    /// update_cfs_rq_load_avg: apply removed contributions, then age the cfs_rq.
    pub(crate) fn update_cfs_rq_load_avg(&mut self, now: Ns, cfs: CfsRqId) -> bool {
        let mut decayed = false;
        let rq = &mut self.cfs_rqs[cfs];
        if rq.removed.nr > 0 {
            let r = std::mem::take(&mut rq.removed);
            let divider = get_pelt_divider(&rq.avg) as u64;
            let sa = &mut rq.avg;
            sub_positive(&mut sa.load_avg, r.load_avg);
            sub_positive(&mut sa.load_sum, r.load_avg * divider);
            sa.load_sum = floor_sum(sa.load_sum, sa.load_avg);
            sub_positive(&mut sa.util_avg, r.util_avg);
            let util_sum = (sa.util_sum as u64).saturating_sub(r.util_avg * divider);
            sa.util_sum = floor_sum(util_sum, sa.util_avg) as u32;
            sub_positive(&mut sa.runnable_avg, r.runnable_avg);
            sub_positive(&mut sa.runnable_sum, r.runnable_avg * divider);
            sa.runnable_sum = floor_sum(sa.runnable_sum, sa.runnable_avg);
            let prop = -((r.runnable_avg * divider) as i64) >> SCHED_CAPACITY_SHIFT;
            self.add_tg_cfs_propagate(cfs, prop);
            decayed = true;
        }
        decayed |= self.__update_load_avg_cfs_rq(now, cfs);
        decayed
    }

    /// update_load_avg, with group propagation and tg load.
    pub(crate) fn update_load_avg(&mut self, cfs: CfsRqId, se: EntityId, flags: u32) {
        let cpu = self.cfs_rqs[cfs].cpu;
        self.update_rq_clock(cpu);
        let now = self.cfs_rq_clock_pelt(cfs);
        // A group entity is attached when its group goes online (online_fair_sched_group:
        // attach_entity_cfs_rq), with nothing to add, at its parent's window; the window
        // starts at 0, so a last_update_time of 0 is that state, not a detached entity.
        let e = &self.entities[se as usize];
        let attached = e.avg.last_update_time != 0 || e.my_q.is_some();
        if attached && flags & upd::SKIP_AGE_LOAD == 0 {
            self.__update_load_avg_se(now, cfs, se);
        }
        let mut decayed = self.update_cfs_rq_load_avg(now, cfs);
        decayed |= self.propagate_entity_load_avg(se);
        if !attached && flags & upd::DO_ATTACH != 0 {
            self.attach_entity_load_avg(cfs, se);
            self.update_tg_load_avg(cfs);
        } else if flags & upd::DO_DETACH != 0 {
            self.detach_entity_load_avg(cfs, se);
            self.update_tg_load_avg(cfs);
        } else if decayed {
            self.cfs_rq_util_change(cfs);
            if flags & upd::UPDATE_TG != 0 {
                self.update_tg_load_avg(cfs);
            }
        }
    }

    /// attach_entity_load_avg: align se's window with the cfs_rq's, rebuild its sums from
    /// its averages and add it.
    fn attach_entity_load_avg(&mut self, cfs: CfsRqId, se: EntityId) {
        let w = self.se_weight(se);
        let rq_avg = self.cfs_rqs[cfs].avg;
        let divider = get_pelt_divider(&rq_avg) as u64;
        let sa = &mut self.entities[se as usize].avg;
        sa.last_update_time = rq_avg.last_update_time;
        sa.period_contrib = rq_avg.period_contrib;
        sa.util_sum = (sa.util_avg * divider) as u32;
        sa.runnable_sum = sa.runnable_avg * divider;
        let load_sum = sa.load_avg * divider;
        sa.load_sum = if w < load_sum { load_sum / w } else { 1 };
        let sa = *sa;
        let ra = &mut self.cfs_rqs[cfs].avg;
        ra.load_avg += sa.load_avg;
        ra.load_sum += w * sa.load_sum;
        ra.util_avg += sa.util_avg;
        ra.util_sum += sa.util_sum;
        ra.runnable_avg += sa.runnable_avg;
        ra.runnable_sum += sa.runnable_sum;
        self.add_tg_cfs_propagate(cfs, sa.load_sum as i64);
        self.cfs_rq_util_change(cfs);
    }

    /// detach_entity_load_avg: take se's contribution out of the cfs_rq.
    fn detach_entity_load_avg(&mut self, cfs: CfsRqId, se: EntityId) {
        let w = self.se_weight(se);
        let sa = self.entities[se as usize].avg;
        let ra = &mut self.cfs_rqs[cfs].avg;
        sub_positive(&mut ra.load_avg, sa.load_avg);
        sub_positive(&mut ra.load_sum, w * sa.load_sum);
        ra.load_sum = floor_sum(ra.load_sum, ra.load_avg);
        sub_positive(&mut ra.util_avg, sa.util_avg);
        let util_sum = ra.util_sum.saturating_sub(sa.util_sum) as u64;
        ra.util_sum = floor_sum(util_sum, ra.util_avg) as u32;
        sub_positive(&mut ra.runnable_avg, sa.runnable_avg);
        sub_positive(&mut ra.runnable_sum, sa.runnable_sum);
        ra.runnable_sum = floor_sum(ra.runnable_sum, ra.runnable_avg);
        self.add_tg_cfs_propagate(cfs, -(sa.load_sum as i64));
        self.cfs_rq_util_change(cfs);
    }

    /// sync_entity_load_avg: decay a sleeping entity up to its cfs_rq's last update. A
    /// detached entity (never attached, or mid-migration) has nothing to sync.
    pub(crate) fn sync_entity_load_avg(&mut self, se: EntityId) {
        if self.entities[se as usize].avg.last_update_time == 0 {
            return;
        }
        let cfs = self.entities[se as usize].cfs_rq;
        let last = self.cfs_rqs[cfs].avg.last_update_time;
        self.__update_load_avg_blocked_se(last, se);
    }

    /// remove_entity_load_avg: a task leaving its CPU by wake-up migration: decay it to the
    /// old cfs_rq's last update and queue its averages for removal there.
    fn remove_entity_load_avg(&mut self, se: EntityId) {
        self.sync_entity_load_avg(se);
        let cfs = self.entities[se as usize].cfs_rq;
        let sa = self.entities[se as usize].avg;
        let r = &mut self.cfs_rqs[cfs].removed;
        r.nr += 1;
        r.util_avg += sa.util_avg;
        r.load_avg += sa.load_avg;
        r.runnable_avg += sa.runnable_avg;
    }

    /// migrate_task_rq_fair: called by set_task_cpu before the task's CPU changes.
    /// A wake-up migration leaves its load behind as "removed"; either
    /// way the next enqueue attaches on the new CPU.
    pub(crate) fn migrate_task_rq_fair(&mut self, p: TaskId) {
        self.migrate_vruntime_cfs(p);
        let se = self.tasks[p].se;
        if !self.tasks[p].on_rq_migrating && self.entities[se as usize].avg.last_update_time != 0 {
            self.remove_entity_load_avg(se);
            self.migrate_se_pelt_lag(se);
        }
        self.entities[se as usize].avg.last_update_time = 0;
    }

    /// migrate_se_pelt_lag: if the old CPU is idle, its cfs_rq has not been updated since it
    /// went idle; estimate its PELT "now" and decay the entity to it.
    fn migrate_se_pelt_lag(&mut self, se: EntityId) {
        let cfs = self.entities[se as usize].cfs_rq;
        let cpu = self.cfs_rqs[cfs].cpu;
        if self.rqs[cpu].curr.is_some() || self.rqs[cpu].nr_running > 0 {
            return;
        }
        let clk = self.rqs[cpu].pelt;
        let idle_for = (self.now - clk.clock_idle) << self.cfg.pelt_lshift;
        let now = (clk.clock_pelt_idle + idle_for).max(self.cfs_rqs[cfs].avg.last_update_time);
        self.__update_load_avg_blocked_se(now, se);
    }

    /// init_entity_runnable_average: a new task starts with load_avg = its weight.
    pub(crate) fn init_entity_runnable_average(&mut self, se: EntityId) {
        let w = self.se_weight(se);
        let sa = &mut self.entities[se as usize].avg;
        *sa = SchedAvg::default();
        if self.entities[se as usize].task.is_some() {
            self.entities[se as usize].avg.load_avg = w;
        }
    }

    /// post_init_entity_util_avg: a new task's util_avg is half the spare capacity of its
    /// CPU, or its weight's share of the CPU's util if smaller.
    pub(crate) fn post_init_entity_util_avg(&mut self, p: TaskId) {
        let se = self.tasks[p].se;
        let cfs = self.entities[se as usize].cfs_rq;
        let cpu = self.cfs_rqs[cfs].cpu;
        let w = self.se_weight(se);
        let ra = self.cfs_rqs[cfs].avg;
        let cap = (self.arch_scale_cpu_capacity(cpu) as i64 - ra.util_avg as i64) / 2;
        let sa = &mut self.entities[se as usize].avg;
        if cap > 0 {
            sa.util_avg = if ra.util_avg != 0 {
                (ra.util_avg * w / (ra.load_avg + 1)).min(cap as u64)
            } else {
                cap as u64
            };
        }
        sa.runnable_avg = sa.util_avg;
    }

    /// sched_balance_update_blocked_averages: decays the load that
    /// sleeping tasks left on this CPU, group cfs_rqs first, then the root, and ages the
    /// RT, DL, HW-pressure and IRQ signals.
    pub fn update_blocked_averages(&mut self, cpu: CpuId) {
        self.update_rq_clock(cpu);
        if self.has_groups() {
            self.update_blocked_groups(cpu);
        }
        let now = self.rq_clock_pelt(cpu);
        // update_other_load_avgs: the RT and DL signals run while a task of their class
        // does; HW pressure and IRQ have no input in this model.
        let class = self.rqs[cpu].curr.map(|c| self.tasks[c].class());
        let rt = class == Some(crate::sched::SchedClass::Rt);
        let dl = class == Some(crate::sched::SchedClass::Dl);
        let rq = &mut self.rqs[cpu];
        for (sa, running) in [
            (&mut rq.avg_rt, rt),
            (&mut rq.avg_dl, dl),
            (&mut rq.avg_hw, false),
            (&mut rq.avg_irq, false),
        ] {
            let r = u64::from(running);
            update_signal(now, sa, r, r, running, 1);
        }
        self.refresh_capacity(cpu);
        let cfs = self.rqs[cpu].cfs;
        if self.update_cfs_rq_load_avg(now, cfs) {
            self.cfs_rq_util_change(cfs);
        }
    }

    /// cfs_rq_util_change: a root cfs_rq's utilisation moved, tell cpufreq.
    fn cfs_rq_util_change(&mut self, cfs: CfsRqId) {
        if self.cfs_rqs[cfs].owner.is_none() {
            let cpu = self.cfs_rqs[cfs].cpu;
            self.cpufreq_update_util(cpu, 0);
        }
    }

    /// Time-weighted util_avg of a task as a trace reader sees it: the value holds from one
    /// PELT update to the next (how LISA integrates sched_pelt_se events).
    fn account_util_mean(&mut self, se: EntityId) {
        let Some(p) = self.entities[se as usize].task else {
            return;
        };
        let util = self.entities[se as usize].avg.util_avg;
        let now = self.now;
        let m = &mut self.tasks[p].stats.util_mean;
        m.area += util as u128 * (now - m.mark) as u128;
        m.mark = now;
    }
}

/// The accumulator behind `util_avg_mean`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UtilMean {
    /// ∫ util_avg dt since the task was created, in util·ns.
    pub area: u128,
    /// Time up to which `area` is integrated.
    pub mark: Ns,
    /// When the task was created.
    pub start: Ns,
}

impl UtilMean {
    /// The mean up to `now`, holding `util` since the last mark.
    pub fn mean(&self, util: u64, now: Ns) -> f64 {
        let span = now.saturating_sub(self.start);
        if span == 0 {
            return util as f64;
        }
        let area = self.area + util as u128 * (now - self.mark) as u128;
        area as f64 / span as f64
    }
}
