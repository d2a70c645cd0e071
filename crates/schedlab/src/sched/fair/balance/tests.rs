//! Unit tests of the balancer's pure decisions (group_classify, sched_balance_find_src_group,
//! calculate_imbalance).

use super::classify::{group_classify, GroupType, SgLbStats};
use super::imbalance::{
    adjust_numa_imbalance, calculate_imbalance, find_src_group_decision, sibling_imbalance,
    DecideCtx, MigrationType, SdLbStats,
};
use super::{msecs_to_jiffies, CpuIdleType};

/// A group of `weight` CPUs of capacity 1024 each.
fn group(weight: u32, nr: u32, util: u64, runnable: u64, load: u64) -> SgLbStats {
    SgLbStats {
        group_weight: weight,
        group_capacity: 1024 * weight as u64,
        sum_nr_running: nr,
        sum_h_nr_running: nr,
        group_util: util,
        group_runnable: runnable,
        group_load: load,
        cores: weight,
        idle_cpus: weight.saturating_sub(nr),
        ..Default::default()
    }
}

fn ctx(idle: CpuIdleType) -> DecideCtx {
    DecideCtx {
        idle,
        imbalance_pct: 117,
        share_llc: true,
        numa: false,
        asym_cpucapacity: false,
        imb_numa_nr: 0,
        eas_balanced: false,
        smt_aware: true,
        avg_load_guard: true,
        misfit_overrides_eas: true,
    }
}

#[test]
fn group_types_are_ordered_by_pull_priority() {
    use GroupType::*;
    let order = [
        HasSpare,
        FullyBusy,
        MisfitTask,
        SmtBalance,
        AsymPacking,
        Imbalanced,
        Overloaded,
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn group_classify_follows_the_kernel_test_order() {
    // One CPU, 2 tasks, util 900: 1024·100 < 900·117 = 105,300 → overloaded.
    let g = group(1, 2, 900, 900, 2048);
    assert_eq!(group_classify(117, &g, false), GroupType::Overloaded);
    // With EAS, a group that is not overutilized is never overloaded.
    assert_eq!(group_classify(117, &g, true), GroupType::FullyBusy);
    // util 870 (870·117 = 101,790 < 102,400) and runnable 870: not overloaded but no
    // capacity left? 1024·100 > 101,790 → has capacity → has_spare only with fewer tasks:
    // sum_nr_running 2 > weight, so group_has_capacity falls through to the util test.
    let g = group(1, 2, 870, 870, 2048);
    assert_eq!(group_classify(117, &g, false), GroupType::HasSpare);
    // Runnable pressure alone: 1024·117 = 119,808 < 1300·100 → overloaded.
    let g = group(1, 2, 500, 1300, 2048);
    assert_eq!(group_classify(117, &g, false), GroupType::Overloaded);
    // Imbalanced beats misfit and fully_busy; misfit beats fully_busy.
    let mut g = group(1, 1, 1000, 1000, 1024);
    assert_eq!(group_classify(117, &g, false), GroupType::FullyBusy);
    g.group_misfit_task_load = 300;
    assert_eq!(group_classify(117, &g, false), GroupType::MisfitTask);
    g.group_smt_balance = true;
    assert_eq!(group_classify(117, &g, false), GroupType::SmtBalance);
    g.sgc_imbalance = true;
    assert_eq!(group_classify(117, &g, false), GroupType::Imbalanced);
    // Fewer tasks than CPUs: has_spare whatever the util.
    let g = group(4, 3, 4000, 4000, 3072);
    assert_eq!(group_classify(117, &g, false), GroupType::HasSpare);
}

#[test]
fn sibling_imbalance_cases() {
    let busy = group(4, 8, 4096, 8192, 8192);
    let empty = group(4, 0, 0, 0, 0);
    // Equal cores: the difference in tasks; only when the env is idle.
    assert_eq!(sibling_imbalance(CpuIdleType::Idle, &busy, &empty), 8);
    assert_eq!(sibling_imbalance(CpuIdleType::NotIdle, &busy, &empty), 0);
    // 2 cores vs 4 cores: imb = max(4·8 − 2·0, 0) = 32 → (2·32 + 4 + 2)/6 = 11.
    let mut small = busy;
    small.cores = 2;
    assert_eq!(sibling_imbalance(CpuIdleType::Idle, &small, &empty), 11);
    // A normalised imbalance of ≤ 1 into an empty group with > 1 task becomes 2.
    let mut two = group(8, 2, 2048, 2048, 2048);
    two.cores = 8;
    let mut local = empty;
    local.cores = 1;
    // imb = 1·2 − 8·0 = 2 → (4 + 9)/9 = 1 → 2.
    assert_eq!(sibling_imbalance(CpuIdleType::Idle, &two, &local), 2);
}

#[test]
fn calculate_imbalance_cases() {
    let idle = ctx(CpuIdleType::Idle);
    // Misfit on an asym level: one misfit migration; on a symmetric level a load move.
    let mut sds = SdLbStats {
        has_busiest: true,
        busiest: SgLbStats {
            group_type: GroupType::MisfitTask,
            group_misfit_task_load: 345,
            ..group(1, 1, 120, 120, 345)
        },
        local: group(1, 0, 0, 0, 0),
        ..Default::default()
    };
    let asym = DecideCtx {
        asym_cpucapacity: true,
        ..idle
    };
    assert_eq!(
        calculate_imbalance(&mut sds, &asym),
        (MigrationType::Misfit, 1)
    );
    assert_eq!(
        calculate_imbalance(&mut sds, &idle),
        (MigrationType::Load, 345)
    );
    // Local has spare, busiest overloaded, single-CPU groups: half the task difference.
    let mut sds = SdLbStats {
        has_busiest: true,
        busiest: SgLbStats {
            group_type: GroupType::Overloaded,
            ..group(1, 8, 1024, 8192, 8192)
        },
        local: group(1, 0, 0, 0, 0),
        ..Default::default()
    };
    assert_eq!(
        calculate_imbalance(&mut sds, &idle),
        (MigrationType::Task, 4)
    );
    // The same above the LLC: fill the local group's spare capacity (migrate_util).
    let pkg = DecideCtx {
        share_llc: false,
        ..idle
    };
    let mut l = group(2, 1, 300, 300, 1024);
    l.idle_cpus = 1;
    sds.local = l;
    sds.busiest.group_weight = 2;
    sds.busiest.group_capacity = 2048;
    assert_eq!(
        calculate_imbalance(&mut sds, &pkg),
        (MigrationType::Util, 2048 - 300)
    );
    // Both overloaded: min of the distances to the average, in load.
    let mut sds = SdLbStats {
        has_busiest: true,
        busiest: SgLbStats {
            group_type: GroupType::Overloaded,
            avg_load: 3000,
            ..group(1, 3, 1024, 3072, 3000)
        },
        local: SgLbStats {
            group_type: GroupType::Overloaded,
            avg_load: 1000,
            ..group(1, 2, 1024, 2048, 1000)
        },
        total_load: 4000,
        total_capacity: 2048,
        avg_load: 2000,
        ..Default::default()
    };
    // min((3000−2000)·1024, (2000−1000)·1024)/1024 = 1000.
    assert_eq!(
        calculate_imbalance(&mut sds, &idle),
        (MigrationType::Load, 1000)
    );
    // Fully busy local at or above the average: nothing to pull.
    sds.local.group_type = GroupType::FullyBusy;
    sds.local.group_load = 2100;
    assert_eq!(
        calculate_imbalance(&mut sds, &idle),
        (MigrationType::Load, 0)
    );
    // Before 91dcf1e8068e (v6.3) the local term wraps: (2000 − 2100) as unsigned long
    // times 1024 is far above the busiest's (3000 − 2000)·1024, so 1000 moves.
    let v61 = DecideCtx {
        avg_load_guard: false,
        ..idle
    };
    assert_eq!(
        calculate_imbalance(&mut sds, &v61),
        (MigrationType::Load, 1000)
    );
}

#[test]
fn find_src_group_decision_matrix() {
    // busiest has_spare, local has_spare, not idle: balanced (let an idle CPU pull).
    let mut sds = SdLbStats {
        has_busiest: true,
        busiest: group(1, 2, 500, 500, 2048),
        local: group(1, 1, 500, 500, 1024),
        ..Default::default()
    };
    assert_eq!(
        find_src_group_decision(&mut sds, &ctx(CpuIdleType::NotIdle)),
        None
    );
    // Idle env: a single-CPU busiest with 2 tasks and an idle local → move 1 task.
    sds.local = group(1, 0, 0, 0, 0);
    assert_eq!(
        find_src_group_decision(&mut sds, &ctx(CpuIdleType::Idle)),
        Some((MigrationType::Task, 1))
    );
    // One task only: balanced.
    sds.busiest = group(1, 1, 500, 500, 1024);
    assert_eq!(
        find_src_group_decision(&mut sds, &ctx(CpuIdleType::Idle)),
        None
    );
    // EAS active and not overutilized: balanced, except for misfit.
    sds.busiest = SgLbStats {
        group_type: GroupType::Overloaded,
        ..group(1, 4, 1024, 4096, 4096)
    };
    let eas = DecideCtx {
        eas_balanced: true,
        ..ctx(CpuIdleType::Idle)
    };
    assert_eq!(find_src_group_decision(&mut sds, &eas), None);
    sds.busiest.group_type = GroupType::MisfitTask;
    sds.busiest.group_misfit_task_load = 200;
    let eas_asym = DecideCtx {
        asym_cpucapacity: true,
        ..eas
    };
    assert_eq!(
        find_src_group_decision(&mut sds, &eas_asym),
        Some((MigrationType::Misfit, 1))
    );
    // Before e5ed0550c04c (v6.3) the EAS exit comes first, misfit or not.
    let eas_first = DecideCtx {
        misfit_overrides_eas: false,
        ..eas_asym
    };
    assert_eq!(find_src_group_decision(&mut sds, &eas_first), None);
    // Local busier type than busiest: balanced.
    sds.busiest = SgLbStats {
        group_type: GroupType::FullyBusy,
        ..group(1, 1, 1000, 1000, 1024)
    };
    sds.local.group_type = GroupType::Overloaded;
    assert_eq!(
        find_src_group_decision(&mut sds, &ctx(CpuIdleType::Idle)),
        None
    );
    // No busiest: balanced.
    sds.has_busiest = false;
    assert_eq!(
        find_src_group_decision(&mut sds, &ctx(CpuIdleType::Idle)),
        None
    );
}

#[test]
fn numa_imbalance_allowance_and_jiffies() {
    assert_eq!(adjust_numa_imbalance(2, 3, 4), 0);
    assert_eq!(adjust_numa_imbalance(3, 3, 4), 3);
    assert_eq!(adjust_numa_imbalance(1, 5, 4), 1);
    // HZ=250: 1 ms is one jiffy (rounded up), 16 ms four.
    assert_eq!(msecs_to_jiffies(1, 250), 1);
    assert_eq!(msecs_to_jiffies(16, 250), 4);
    assert_eq!(msecs_to_jiffies(17, 250), 5);
    assert_eq!(msecs_to_jiffies(64, 1000), 64);
}

#[test]
fn prefer_sibling_spreads_by_cores_from_v6_6_and_by_task_count_before() {
    // A prefer_sibling level, busiest fully busy with 4 tasks on 2 cores, local 2 cores
    // with 1 task and spare capacity.
    let sds = || SdLbStats {
        has_busiest: true,
        busiest: SgLbStats {
            group_type: GroupType::FullyBusy,
            ..group(2, 4, 2048, 2048, 4096)
        },
        local: group(2, 1, 300, 300, 1024),
        prefer_sibling: true,
        ..Default::default()
    };
    let v65 = |idle| DecideCtx {
        smt_aware: false,
        ..ctx(idle)
    };
    // Idle: both count the excess, 4 − 1 = 3 tasks, half of it moved.
    for c in [ctx(CpuIdleType::Idle), v65(CpuIdleType::Idle)] {
        assert_eq!(
            calculate_imbalance(&mut sds(), &c),
            (MigrationType::Task, 1)
        );
    }
    // A busy CPU balancing: v6.6's sibling_imbalance is 0 (CPU_NOT_IDLE), v6.5 still
    // spreads by the count.
    assert_eq!(
        calculate_imbalance(&mut sds(), &ctx(CpuIdleType::NotIdle)),
        (MigrationType::Task, 0)
    );
    assert_eq!(
        calculate_imbalance(&mut sds(), &v65(CpuIdleType::NotIdle)),
        (MigrationType::Task, 1)
    );
}

#[test]
fn task_hot_counts_the_next_and_the_last_buddy() {
    use super::lb::LbEnv;
    use crate::machine::presets::smp;
    use crate::sched::features::Features;
    use crate::sched::version::KernelVersion;
    use crate::sched::{PreemptModel, Sched, TaskAttrs};
    let mut s = Sched::new(
        smp(2),
        Features::for_kernel(KernelVersion::V6_1),
        250,
        PreemptModel::None,
    );
    s.cfg.kernel = KernelVersion::V6_1;
    let p = s.add_task(&TaskAttrs::new("p".to_string()));
    s.now = 100_000_000; // long past its exec_start: not hot by time
    s.rqs[1].nr_running = 1;
    let sd = s.sd.for_each_domain(1).next().expect("smp:2 has a domain");
    let env = LbEnv::new(&s, 1, sd, CpuIdleType::Idle);
    assert!(!s.task_hot(p, &env));
    let (se, cfs) = (s.tasks[p].se, s.entities[s.tasks[p].se as usize].cfs_rq);
    // CACHE_HOT_BUDDY: the buddies of CFS (next and last) stay where they are.
    s.cfs_rqs[cfs].last = Some(se);
    assert!(s.task_hot(p, &env));
    s.cfs_rqs[cfs].last = None;
    s.cfs_rqs[cfs].next = Some(se);
    assert!(s.task_hot(p, &env));
}
