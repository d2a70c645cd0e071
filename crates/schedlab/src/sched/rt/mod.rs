//! The real-time class (kernel/sched/rt.c): SCHED_FIFO and SCHED_RR tasks in 99 priority
//! queues per CPU, push/pull balancing across CPUs (cpupri), RR time slices, the RT PELT
//! signal and, for kernels before v6.12, RT throttling (docs/model.md, Real-time and
//! deadline classes). No RT group scheduling (CONFIG_RT_GROUP_SCHED off, as on distribution
//! and Android kernels).

pub mod bandwidth;
pub mod class;
pub mod push_pull;

use crate::sched::TaskId;
use std::collections::BTreeMap;

/// RR_TIMESLICE: 100 ms in ticks (include/linux/sched/rt.h).
pub const RR_TIMESLICE_MS: u64 = 100;

/// struct sched_rt_entity, the parts the model uses, and the task's rt_priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtEntity {
    /// p->rt_priority (sched_priority 1..=99).
    pub rt_priority: u32,
    /// Ticks left of an RR task's time slice (rt_se.time_slice).
    pub time_slice: u32,
    /// rt_se.on_rq: queued in its CPU's priority array.
    pub on_rq: bool,
    /// The key of the task in its queue (priority, FIFO position).
    pub(crate) key: (i32, i64),
    /// Counted in rt_nr_migratory when queued (more than one CPU allowed then; an
    /// affinity change while queued does not unbalance the count, as set_cpus_allowed_rt).
    pub(crate) migratory: bool,
    /// The task's key on its CPU's pushable list (plist pushable_tasks), if it is on it.
    pub(crate) push_key: Option<(i32, i64)>,
}

impl RtEntity {
    pub fn new(rt_priority: u32, time_slice: u32) -> Self {
        RtEntity {
            rt_priority,
            time_slice,
            on_rq: false,
            key: (0, 0),
            migratory: false,
            push_key: None,
        }
    }
}

/// struct rt_rq (kernel/sched/sched.h), without RT groups.
#[derive(Debug, Clone, Default)]
pub struct RtRq {
    /// The priority array: queued tasks by (prio, position); the first key is the pick.
    pub(crate) active: BTreeMap<(i32, i64), TaskId>,
    /// Next tail / head position (enqueue at the tail, ENQUEUE_HEAD at the head).
    pub(crate) tail: i64,
    pub(crate) head: i64,
    pub rt_nr_running: u32,
    /// rt_nr_total / rt_nr_migratory: the overload test (update_rt_migration).
    pub rt_nr_total: u32,
    pub rt_nr_migratory: u32,
    pub overloaded: bool,
    /// Tasks that may be pushed elsewhere: queued, not running, more than one CPU allowed.
    pub(crate) pushable_tasks: BTreeMap<(i32, i64), TaskId>,
    /// How many of its tasks rq->nr_running holds: rt_nr_running while the rt_rq is
    /// queued (rt_queued), 0 while it is throttled (dequeue_top_rt_rq).
    pub(crate) rt_nr_running_counted: u32,
    /// cpumask_any_and_distribute's per-CPU previous pick (find_lowest_rq on this CPU).
    pub(crate) distribute_prev: usize,
    /// A push is queued to run after the current switch (rt_queue_push_tasks).
    pub(crate) push_queued: bool,
    /// Runtime used in the current bandwidth period, and whether it ran out (throttled).
    pub rt_time: u64,
    pub rt_throttled: bool,
}

impl RtRq {
    /// highest_prio.curr: the best queued priority, MAX_RT_PRIO when empty.
    pub fn highest_prio(&self) -> i32 {
        self.active
            .keys()
            .next()
            .map_or(crate::sched::uapi::MAX_RT_PRIO, |k| k.0)
    }

    /// highest_prio.next: the best pushable priority, MAX_RT_PRIO when none.
    pub fn highest_prio_next(&self) -> i32 {
        self.pushable_tasks
            .keys()
            .next()
            .map_or(crate::sched::uapi::MAX_RT_PRIO, |k| k.0)
    }

    /// rt_rq_is_runnable: queued and not throttled.
    pub fn is_runnable(&self) -> bool {
        self.rt_nr_running_counted > 0
    }
}
