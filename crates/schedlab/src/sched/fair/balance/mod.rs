//! Fair-class load balancing (kernel/sched/fair.c; docs/model.md, Load balancing): periodic
//! balancing from the tick, newidle balancing, NOHZ idle balancing on behalf of tickless
//! CPUs, active balance through the stopper, and misfit migration on asymmetric machines.
//!
//! - `cfs_tasks`: the per-rq MRU list detach_tasks walks from its tail (and PRIO_LB's split)
//! - `trigger`: sched_balance_trigger / _softirq / _domains, intervals, blocked averages
//! - `lb`: lb_env, should_we_balance and sched_balance_rq
//! - `stats`: update_sg_lb_stats / update_sd_lb_stats / update_sd_pick_busiest
//! - `classify`: group types and group_classify (pure)
//! - `imbalance`: find_src_group's decision and calculate_imbalance (pure)
//! - `detach`: find_src_rq, can_migrate_task, task_hot, detach_tasks, attach
//! - `active`: need_active_balance and the stopper's active_load_balance_cpu_stop
//! - `newidle`: sched_balance_newidle, update_newidle_cost, avg_idle
//! - `nohz`: idle CPU mask, nohz_balancer_kick, kick_ilb, _nohz_idle_balance
//! - `misfit`: update_misfit_status

pub mod active;
pub mod cfs_tasks;
pub mod classify;
pub mod detach;
pub mod imbalance;
pub mod lb;
pub mod misfit;
pub mod newidle;
pub mod nohz;
pub mod stats;
pub mod task_list;
pub mod trigger;

use crate::machine::CpuId;
use crate::sched::topology::CpuMask;
use crate::time::Ns;

pub use classify::GroupType;
pub use imbalance::MigrationType;

/// sysctl_sched_migration_cost (fair.c).
pub const SYSCTL_SCHED_MIGRATION_COST: Ns = 500_000;
/// sysctl_sched_nr_migrate = SCHED_NR_MIGRATE_BREAK (core.c, sched.h).
pub const SCHED_NR_MIGRATE_BREAK: u32 = 32;
/// MAX_PINNED_INTERVAL, ms (fair.c).
pub const MAX_PINNED_INTERVAL: u64 = 512;
/// LOAD_AVG_PERIOD in ms: nohz.next_blocked spacing (fair.c).
pub const LOAD_AVG_PERIOD_MS: u64 = 32;

/// enum cpu_idle_type (include/linux/sched/idle.h): `NotIdle` is the kernel's __CPU_NOT_IDLE (0),
/// so "env is idle" means `Idle` or `NewlyIdle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CpuIdleType {
    NotIdle,
    Idle,
    NewlyIdle,
}

impl CpuIdleType {
    pub fn is_idle(self) -> bool {
        self != CpuIdleType::NotIdle
    }
}

/// LBF_* flags (fair.c).
pub mod lbf {
    pub const ALL_PINNED: u32 = 0x01;
    pub const NEED_BREAK: u32 = 0x02;
    pub const DST_PINNED: u32 = 0x04;
    pub const SOME_PINNED: u32 = 0x08;
    pub const ACTIVE_LB: u32 = 0x10;
}

/// NOHZ kick flags (NOHZ_*_KICK, kernel/sched/sched.h).
pub mod nohz_flags {
    pub const BALANCE_KICK: u32 = 0x1;
    pub const STATS_KICK: u32 = 0x2;
    pub const NEXT_KICK: u32 = 0x4;
    pub const KICK_MASK: u32 = BALANCE_KICK | STATS_KICK | NEXT_KICK;
}

/// Per-rq load-balancing state (struct rq's balance fields, kernel/sched/sched.h).
#[derive(Debug, Clone)]
pub struct RqBalance {
    /// rq->cfs_tasks: back = head (most recently run/enqueued), front = tail.
    pub cfs_tasks: task_list::TaskList,
    /// PRIO_LB's rq->cfs_idle_tasks (seed 002): SCHED_IDLE tasks when the feature is on.
    pub cfs_idle_tasks: task_list::TaskList,
    /// rq->next_balance, jiffies.
    pub next_balance: u64,
    /// rq->idle_balance: the CPU was idle at its last tick.
    pub idle_balance: bool,
    /// rq->misfit_task_load.
    pub misfit_task_load: u64,
    /// rq->avg_idle, rq->idle_stamp (0 = none), rq->max_idle_balance_cost.
    pub avg_idle: Ns,
    pub idle_stamp: Ns,
    pub max_idle_balance_cost: Ns,
    /// rq->active_balance / rq->push_cpu.
    pub active_balance: bool,
    pub push_cpu: CpuId,
    /// rq->nohz_tick_stopped, rq->has_blocked_load, rq->last_blocked_load_update_tick.
    pub nohz_tick_stopped: bool,
    pub has_blocked_load: bool,
    pub last_blocked_load_update_tick: u64,
    /// nohz_flags(cpu): kick flags pending on this CPU.
    pub nohz_flags: u32,
    /// sd->nohz_idle of this CPU's busy-count domain: counted idle in nr_busy_cpus.
    pub sd_nohz_idle: bool,
}

impl Default for RqBalance {
    fn default() -> Self {
        RqBalance {
            cfs_tasks: task_list::TaskList::new(1),
            cfs_idle_tasks: task_list::TaskList::new(2),
            next_balance: 0,
            idle_balance: false,
            misfit_task_load: 0,
            // sched_init: avg_idle = 2 × migration_cost, max_idle_balance_cost = it.
            avg_idle: 2 * SYSCTL_SCHED_MIGRATION_COST,
            idle_stamp: 0,
            max_idle_balance_cost: SYSCTL_SCHED_MIGRATION_COST,
            active_balance: false,
            push_cpu: 0,
            nohz_tick_stopped: false,
            has_blocked_load: false,
            last_blocked_load_update_tick: 0,
            nohz_flags: 0,
            sd_nohz_idle: false,
        }
    }
}

/// The global `nohz` structure (fair.c).
#[derive(Debug, Clone, Default)]
pub struct Nohz {
    pub idle_cpus_mask: CpuMask,
    pub nr_cpus: u32,
    pub has_blocked_load: bool,
    pub needs_update: bool,
    /// jiffies.
    pub next_balance: u64,
    pub next_blocked: u64,
}

/// Counters of what the balancer did (observation only; results and tests read them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LbCounters {
    /// sched_balance_rq calls that got past should_we_balance.
    pub balance_calls: u64,
    /// Tasks moved by detach_tasks (periodic, NOHZ and newidle) and by active balance.
    pub tasks_moved: u64,
    pub newidle_calls: u64,
    pub newidle_pulled: u64,
    pub nohz_kicks: u64,
    pub active_balances: u64,
    /// CPUs examined by update_sd_lb_stats (each charged sched_lb_per_cpu_ns).
    pub cpus_examined: u64,
}

/// Machine-wide load-balancing state.
#[derive(Debug, Clone, Default)]
pub struct SchedBalance {
    pub nohz: Nohz,
    /// max_load_balance_interval, jiffies (HZ × nr_cpus / 10).
    pub max_load_balance_interval: u64,
    /// State of the random stream NI_RANDOM draws from (xorshift64*; per run seed).
    pub rng: u64,
    pub counters: LbCounters,
    /// Balancing CPU time accumulated by the pass in progress, charged to the CPU that
    /// runs it when the pass ends.
    pub cost_acc: Ns,
    /// The cfs_tasks links of every task.
    pub links: task_list::Links,
}

impl SchedBalance {
    /// Seed the NI_RANDOM stream from the run seed.
    pub fn seed(&mut self, seed: u64) {
        self.rng = seed ^ 0x9e37_79b9_7f4a_7c15;
        if self.rng == 0 {
            self.rng = 1;
        }
    }

    /// get_random_u32(): a xorshift64* step.
    pub fn next_u32(&mut self) -> u32 {
        if self.rng == 0 {
            self.rng = 0x9e37_79b9_7f4a_7c15;
        }
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

/// msecs_to_jiffies: round up (include/linux/jiffies.h).
pub fn msecs_to_jiffies(ms: u64, hz: u32) -> u64 {
    (ms * hz as u64).div_ceil(1000)
}

#[cfg(test)]
mod tests;
