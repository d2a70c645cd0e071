//! Group types and group_classify, shared by the load balancer and the fork/exec slow path
//! (spec placement §3.5.1).

/// enum group_type, lowest to highest pull priority (spec placement §3.5.1; no
/// group_llc_balance: SCHED_CACHE is not modelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum GroupType {
    #[default]
    HasSpare,
    FullyBusy,
    MisfitTask,
    SmtBalance,
    AsymPacking,
    Imbalanced,
    Overloaded,
}

/// The statistics group_classify reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupCounts {
    pub sum_nr_running: u64,
    pub group_weight: u64,
    pub group_capacity: u64,
    pub group_util: u64,
    pub group_runnable: u64,
    pub group_overutilized: bool,
    pub group_misfit_task_load: u64,
    /// sgc->imbalance.
    pub imbalanced: bool,
    pub group_asym_packing: bool,
    pub group_smt_balance: bool,
}

/// group_is_overloaded: more tasks than CPUs and capacity short of util or runnable. With
/// EAS a group is only overloaded when it is also overutilized.
pub fn group_is_overloaded(pct: u64, eas: bool, g: &GroupCounts) -> bool {
    if eas && !g.group_overutilized {
        return false;
    }
    if g.sum_nr_running <= g.group_weight {
        return false;
    }
    g.group_capacity * 100 < g.group_util * pct || g.group_capacity * pct < g.group_runnable * 100
}

/// group_has_capacity: fewer tasks than CPUs, or util and runnable below capacity.
pub fn group_has_capacity(pct: u64, g: &GroupCounts) -> bool {
    if g.sum_nr_running < g.group_weight {
        return true;
    }
    if g.group_capacity * pct < g.group_runnable * 100 {
        return false;
    }
    g.group_capacity * 100 > g.group_util * pct
}

/// group_classify: first match wins (spec placement §3.5.1).
pub fn group_classify(pct: u64, eas: bool, g: &GroupCounts) -> GroupType {
    if group_is_overloaded(pct, eas, g) {
        GroupType::Overloaded
    } else if g.imbalanced {
        GroupType::Imbalanced
    } else if g.group_asym_packing {
        GroupType::AsymPacking
    } else if g.group_smt_balance {
        GroupType::SmtBalance
    } else if g.group_misfit_task_load != 0 {
        GroupType::MisfitTask
    } else if !group_has_capacity(pct, g) {
        GroupType::FullyBusy
    } else {
        GroupType::HasSpare
    }
}

/// NUMA_IMBALANCE_MIN: a pair of communicating tasks may stay on a lightly loaded node.
pub const NUMA_IMBALANCE_MIN: u64 = 2;

/// adjust_numa_imbalance (spec placement §1.7): tolerate a small imbalance while the
/// destination runs no more than imb_numa_nr tasks.
pub fn adjust_numa_imbalance(imbalance: u64, dst_running: u64, imb_numa_nr: u64) -> u64 {
    if dst_running > imb_numa_nr {
        return imbalance;
    }
    if imbalance <= NUMA_IMBALANCE_MIN {
        return 0;
    }
    imbalance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(nr: u64, weight: u64, cap: u64, util: u64, runnable: u64) -> GroupCounts {
        GroupCounts {
            sum_nr_running: nr,
            group_weight: weight,
            group_capacity: cap,
            group_util: util,
            group_runnable: runnable,
            group_overutilized: true,
            ..Default::default()
        }
    }

    #[test]
    fn classification_order_and_thresholds() {
        // 2 CPUs (capacity 2048), pct 117: util above 2048·100/117 = 1750.4 overloads; at
        // 1750 the group still has capacity (204,800 > 204,750).
        assert_eq!(
            group_classify(117, false, &g(3, 2, 2048, 1751, 0)),
            GroupType::Overloaded
        );
        assert_eq!(
            group_classify(117, false, &g(3, 2, 2048, 1750, 0)),
            GroupType::HasSpare
        );
        // Runnable above capacity·117/100 = 2396.16 also overloads.
        assert_eq!(
            group_classify(117, false, &g(3, 2, 2048, 0, 2397)),
            GroupType::Overloaded
        );
        assert_eq!(
            group_classify(117, false, &g(3, 2, 2048, 0, 2396)),
            GroupType::HasSpare
        );
        // Not more tasks than CPUs: never overloaded; fully busy when util is high.
        assert_eq!(
            group_classify(117, false, &g(2, 2, 2048, 2000, 2000)),
            GroupType::FullyBusy
        );
        assert_eq!(
            group_classify(117, false, &g(1, 2, 2048, 2000, 2000)),
            GroupType::HasSpare
        );
        // With EAS, a group that is not overutilized is not overloaded.
        let mut not_ou = g(3, 2, 2048, 2048, 2048);
        not_ou.group_overutilized = false;
        assert_eq!(group_classify(117, true, &not_ou), GroupType::FullyBusy);
        // Misfit ranks above fully busy, imbalanced above misfit.
        let mut m = g(2, 2, 2048, 2000, 2000);
        m.group_misfit_task_load = 300;
        assert_eq!(group_classify(117, false, &m), GroupType::MisfitTask);
        m.imbalanced = true;
        assert_eq!(group_classify(117, false, &m), GroupType::Imbalanced);
        assert!(GroupType::HasSpare < GroupType::FullyBusy);
        assert!(GroupType::Imbalanced < GroupType::Overloaded);
    }

    #[test]
    fn numa_imbalance_allowance() {
        assert_eq!(adjust_numa_imbalance(2, 4, 4), 0);
        assert_eq!(adjust_numa_imbalance(3, 4, 4), 3);
        assert_eq!(adjust_numa_imbalance(2, 5, 4), 2);
    }
}
