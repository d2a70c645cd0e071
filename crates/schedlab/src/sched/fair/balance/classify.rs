//! Group statistics and their classification (fair.c group_classify): pure
//! functions of the numbers update_sg_lb_stats collected.

/// enum group_type, lowest to highest pull priority (fair.c; no
/// group_llc_balance: CONFIG_SCHED_CACHE is not modelled).
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

/// struct sg_lb_stats plus the group attributes the decisions read (fair.c).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SgLbStats {
    pub avg_load: u64,
    pub group_load: u64,
    pub group_capacity: u64,
    pub group_util: u64,
    pub group_runnable: u64,
    pub sum_nr_running: u32,
    pub sum_h_nr_running: u32,
    pub idle_cpus: u32,
    pub group_weight: u32,
    pub group_type: GroupType,
    pub group_asym_packing: bool,
    pub group_smt_balance: bool,
    pub group_misfit_task_load: u64,
    pub group_overutilized: bool,
    /// sg->cores, and whether sg->flags has SD_SHARE_CPUCAPACITY / SD_PREFER_SIBLING.
    pub cores: u32,
    pub smt: bool,
    pub prefer_sibling: bool,
    /// sgc->min_capacity / max_capacity / imbalance.
    pub min_capacity: u64,
    pub max_capacity: u64,
    pub sgc_imbalance: bool,
}

/// group_is_overloaded: more tasks than CPUs and util or runnable beyond capacity.
/// With EAS a group that is not overutilized never counts as overloaded.
pub fn group_is_overloaded(imbalance_pct: u64, sgs: &SgLbStats, eas: bool) -> bool {
    if eas && !sgs.group_overutilized {
        return false;
    }
    if sgs.sum_nr_running <= sgs.group_weight {
        return false;
    }
    sgs.group_capacity * 100 < sgs.group_util * imbalance_pct
        || sgs.group_capacity * imbalance_pct < sgs.group_runnable * 100
}

/// group_has_capacity: room for more work.
pub fn group_has_capacity(imbalance_pct: u64, sgs: &SgLbStats) -> bool {
    if sgs.sum_nr_running < sgs.group_weight {
        return true;
    }
    if sgs.group_capacity * imbalance_pct < sgs.group_runnable * 100 {
        return false;
    }
    sgs.group_capacity * 100 > sgs.group_util * imbalance_pct
}

/// group_classify: the first matching type, in the kernel's test order.
pub fn group_classify(imbalance_pct: u64, sgs: &SgLbStats, eas: bool) -> GroupType {
    if group_is_overloaded(imbalance_pct, sgs, eas) {
        GroupType::Overloaded
    } else if sgs.sgc_imbalance {
        GroupType::Imbalanced
    } else if sgs.group_asym_packing {
        GroupType::AsymPacking
    } else if sgs.group_smt_balance {
        GroupType::SmtBalance
    } else if sgs.group_misfit_task_load != 0 {
        GroupType::MisfitTask
    } else if !group_has_capacity(imbalance_pct, sgs) {
        GroupType::FullyBusy
    } else {
        GroupType::HasSpare
    }
}
