//! sched_balance_find_src_group's decision and calculate_imbalance (kernel/sched/fair.c):
//! pure functions of the domain statistics, so each case is testable on numbers.

use super::classify::{GroupType, SgLbStats};
use super::CpuIdleType;

/// SCHED_CAPACITY_SCALE as the u64 the averages use.
const SCHED_CAPACITY_SCALE: u64 = crate::machine::SCHED_CAPACITY_SCALE as u64;

/// enum migration_type (fair.c; no migrate_llc_task).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MigrationType {
    #[default]
    Load,
    Util,
    Task,
    Misfit,
}

/// struct sd_lb_stats (fair.c): the local and busiest groups' statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SdLbStats {
    pub has_busiest: bool,
    pub busiest: SgLbStats,
    pub local: SgLbStats,
    pub total_load: u64,
    pub total_capacity: u64,
    pub avg_load: u64,
    pub prefer_sibling: bool,
}

/// What the decision reads from lb_env and the domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecideCtx {
    pub idle: CpuIdleType,
    pub imbalance_pct: u64,
    /// sd->flags: SD_SHARE_LLC, SD_NUMA, SD_ASYM_CPUCAPACITY.
    pub share_llc: bool,
    pub numa: bool,
    pub asym_cpucapacity: bool,
    pub imb_numa_nr: u32,
    /// EAS is on and the root domain is not overutilized (find_src_group's EAS check).
    pub eas_balanced: bool,
    /// The kernel has v6.6's SMT-aware balancing (`KernelVersion::has_smt_aware_balance`).
    pub smt_aware: bool,
    /// calculate_imbalance stops when local is at or above the average load
    /// (`KernelVersion::guards_imbalance_overflow`).
    pub avg_load_guard: bool,
    /// A misfit busiest group is pulled from even when EAS is balanced
    /// (`KernelVersion::misfit_overrides_eas`).
    pub misfit_overrides_eas: bool,
}

/// sibling_imbalance: tasks to move so both groups have the same tasks per core.
pub fn sibling_imbalance(idle: CpuIdleType, busiest: &SgLbStats, local: &SgLbStats) -> i64 {
    if !idle.is_idle() || busiest.sum_nr_running == 0 {
        return 0;
    }
    let (nb, nl) = (busiest.cores as i64, local.cores as i64);
    let (b, l) = (busiest.sum_nr_running as i64, local.sum_nr_running as i64);
    if nb == nl {
        return (b - l).max(0);
    }
    let imb = (nl * b - nb * l).max(0);
    let mut imb = (2 * imb + nl + nb) / (nl + nb);
    if imb <= 1 && l == 0 && b > 1 {
        imb = 2;
    }
    imb
}

/// The tasks prefer_sibling spreads: sibling_imbalance from v6.6; before, the busiest
/// group's excess of running tasks over the local one's, whatever the idle type.
fn prefer_sibling_imbalance(ctx: &DecideCtx, busiest: &SgLbStats, local: &SgLbStats) -> i64 {
    if ctx.smt_aware {
        sibling_imbalance(ctx.idle, busiest, local)
    } else {
        (busiest.sum_nr_running as i64 - local.sum_nr_running as i64).max(0)
    }
}

/// adjust_numa_imbalance (fair.c).
pub fn adjust_numa_imbalance(imbalance: i64, dst_running: u32, imb_numa_nr: u32) -> i64 {
    if dst_running > imb_numa_nr {
        imbalance
    } else if imbalance <= 2 {
        0
    } else {
        imbalance
    }
}

/// sched_balance_find_src_group's decision: `None` = balanced, else the migration
/// type and env->imbalance from calculate_imbalance.
pub fn find_src_group_decision(
    sds: &mut SdLbStats,
    ctx: &DecideCtx,
) -> Option<(MigrationType, i64)> {
    if !sds.has_busiest {
        return None;
    }
    let (busiest, local) = (sds.busiest, sds.local);
    let force = 'decide: {
        let misfit = busiest.group_type == GroupType::MisfitTask;
        if ctx.eas_balanced && !(misfit && ctx.misfit_overrides_eas) {
            return None;
        }
        if misfit {
            break 'decide true;
        }
        if matches!(
            busiest.group_type,
            GroupType::AsymPacking | GroupType::Imbalanced
        ) {
            break 'decide true;
        }
        if local.group_type > busiest.group_type {
            return None;
        }
        if local.group_type == GroupType::Overloaded {
            if local.avg_load >= busiest.avg_load {
                return None;
            }
            sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity.max(1);
            if local.avg_load >= sds.avg_load {
                return None;
            }
            if 100 * busiest.avg_load <= ctx.imbalance_pct * local.avg_load {
                return None;
            }
        }
        if sds.prefer_sibling
            && local.group_type == GroupType::HasSpare
            && prefer_sibling_imbalance(ctx, &busiest, &local) > 1
        {
            break 'decide true;
        }
        if busiest.group_type != GroupType::Overloaded {
            if !ctx.idle.is_idle() {
                return None;
            }
            if busiest.group_type == GroupType::SmtBalance && local.smt != busiest.smt {
                break 'decide true;
            }
            if busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 {
                return None;
            }
            if busiest.sum_h_nr_running == 1 {
                return None;
            }
        }
        true
    };
    debug_assert!(force);
    let (t, imb) = calculate_imbalance(sds, ctx);
    (imb != 0).then_some((t, imb))
}

/// calculate_imbalance (fair.c).
pub fn calculate_imbalance(sds: &mut SdLbStats, ctx: &DecideCtx) -> (MigrationType, i64) {
    let busiest = sds.busiest;
    let mut local = sds.local;
    match busiest.group_type {
        GroupType::MisfitTask => {
            return if ctx.asym_cpucapacity {
                (MigrationType::Misfit, 1)
            } else {
                (MigrationType::Load, busiest.group_misfit_task_load as i64)
            };
        }
        GroupType::AsymPacking => {
            return (MigrationType::Task, busiest.sum_h_nr_running as i64);
        }
        GroupType::SmtBalance | GroupType::Imbalanced => return (MigrationType::Task, 1),
        _ => {}
    }
    if local.group_type == GroupType::HasSpare {
        if busiest.group_type > GroupType::FullyBusy && !ctx.share_llc {
            let imb = local.group_capacity.max(local.group_util) - local.group_util;
            if ctx.idle.is_idle() && imb == 0 {
                return (MigrationType::Task, 1);
            }
            return (MigrationType::Util, imb as i64);
        }
        let mut imb = if busiest.group_weight == 1 || sds.prefer_sibling {
            prefer_sibling_imbalance(ctx, &busiest, &local)
        } else {
            (local.idle_cpus as i64 - busiest.idle_cpus as i64).max(0)
        };
        if ctx.numa {
            imb = adjust_numa_imbalance(imb, local.sum_nr_running + 1, ctx.imb_numa_nr);
        }
        return (MigrationType::Task, imb >> 1);
    }
    if local.group_type < GroupType::Overloaded {
        local.avg_load = local.group_load * SCHED_CAPACITY_SCALE / local.group_capacity.max(1);
        sds.local.avg_load = local.avg_load;
        if local.avg_load >= busiest.avg_load {
            return (MigrationType::Load, 0);
        }
        sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity.max(1);
        if ctx.avg_load_guard && local.avg_load >= sds.avg_load {
            return (MigrationType::Load, 0);
        }
    }
    // Unsigned long arithmetic: without the guard a local group above the average wraps
    // its term, and the busiest group's excess decides.
    let a = busiest
        .avg_load
        .wrapping_sub(sds.avg_load)
        .wrapping_mul(busiest.group_capacity);
    let b = sds
        .avg_load
        .wrapping_sub(local.avg_load)
        .wrapping_mul(local.group_capacity);
    (
        MigrationType::Load,
        (a.min(b) / SCHED_CAPACITY_SCALE) as i64,
    )
}
