//! Scheduler state: tasks, sched entities, cfs runqueues and per-CPU runqueues.
//! Entities and cfs_rqs live in arenas indexed by ids so that the hierarchical cfs_rq of
//! group scheduling (a group entity owning a cfs_rq, `parent` links) fits without a rewrite.

use super::cpufreq_schedutil::Cpufreq;
use super::fair::load_avg::{Removed, RqClockPelt, UtilMean};
use super::fair::tree::{EntityId, EntityTree};
use super::fair::weights::LoadWeight;
use super::features::Features;
use super::pelt::SchedAvg;
use super::sim::energy_meter::PowerMeter;
use super::uclamp::UclampRq;
use super::version::KernelVersion;
use crate::engine::EventQueue;
use crate::machine::{CpuId, Machine};
use crate::sched::Policy;
use crate::sched::PreemptModel;
use crate::time::Ns;

pub use crate::ids::TaskId;
pub type CfsRqId = usize;

/// struct sched_entity (include/linux/sched.h).
#[derive(Debug, Clone)]
pub struct SchedEntity {
    pub load: LoadWeight,
    pub vruntime: u64,
    pub deadline: u64,
    /// Virtual lag V − v, saved at dequeue.
    pub vlag: i64,
    pub slice: u64,
    pub custom_slice: bool,
    pub rel_deadline: bool,
    pub sched_delayed: bool,
    pub on_rq: bool,
    /// Protected vruntime bound (RUN_TO_PARITY; fair.c set_protect_slice).
    pub vprot: u64,
    pub exec_start: Ns,
    pub sum_exec_runtime: Ns,
    pub prev_sum_exec_runtime: Ns,
    /// sum_exec_runtime when the task last went to sleep: runtime in the current
    /// activation is sum_exec_runtime minus this (util_est_faster RFC).
    pub prev_sum_exec_runtime_vol: Ns,
    /// The cfs_rq this entity is (or would be) queued on.
    pub cfs_rq: CfsRqId,
    /// Group entity one level up; `None` at the root level.
    pub parent: Option<EntityId>,
    /// The cfs_rq a group entity owns; `None` for tasks.
    pub my_q: Option<CfsRqId>,
    /// The task this entity is, if it is a task entity.
    pub task: Option<TaskId>,
    /// PELT signals and util_est (se->avg).
    pub avg: SchedAvg,
}

impl SchedEntity {
    /// A fresh entity as __sched_fork / init_tg_cfs_entry leave it: vruntime, lag,
    /// deadline and runtime zero, not queued, no PELT history.
    pub fn new(load: LoadWeight, slice: u64, custom_slice: bool, cfs_rq: CfsRqId) -> Self {
        SchedEntity {
            load,
            vruntime: 0,
            deadline: 0,
            vlag: 0,
            slice,
            custom_slice,
            rel_deadline: false,
            sched_delayed: false,
            on_rq: false,
            vprot: 0,
            exec_start: 0,
            sum_exec_runtime: 0,
            prev_sum_exec_runtime: 0,
            prev_sum_exec_runtime_vol: 0,
            cfs_rq,
            parent: None,
            my_q: None,
            task: None,
            avg: SchedAvg::default(),
        }
    }
}

/// struct cfs_rq (kernel/sched/sched.h). `repr(C)`, line-aligned: what the balancer's
/// group walk reads for every CPU (update_sg_lb_stats: the PELT signals, then the
/// counts) fills the first line and starts the second, instead of straddling three.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct CfsRq {
    /// PELT signals; on the root cfs_rq, util_est is the enqueued tasks' sum (util_est_enqueue).
    pub avg: SchedAvg,
    pub nr_queued: u32,
    pub h_nr_queued: u32,
    /// h_nr_queued minus delayed tasks.
    pub h_nr_runnable: u32,
    pub h_nr_idle: u32,
    /// Σ W of queued entities, including curr and delayed ones.
    pub load: LoadWeight,
    pub cpu: CpuId,
    pub sum_w_vruntime: i64,
    pub sum_weight: u64,
    pub zero_vruntime: u64,
    pub curr: Option<EntityId>,
    pub next: Option<EntityId>,
    /// CFS (<= v6.5): the task a wake-up preempted (LAST_BUDDY) and the yielder (skip).
    pub last: Option<EntityId>,
    pub skip: Option<EntityId>,
    /// CFS (<= v6.5): the monotonic floor placement and renormalisation use.
    pub min_vruntime: u64,
    pub tasks_timeline: EntityTree,
    /// Group entity that owns this cfs_rq (`None` for a CPU's root cfs_rq).
    pub owner: Option<EntityId>,
    /// Contributions of tasks that left by wake-up migration (remove_entity_load_avg).
    pub removed: Removed,
    /// Group-scheduling state: task group, tg load, propagation, h_load, bandwidth.
    pub grp: super::fair::group::CfsRqGroup,
}

impl CfsRq {
    pub fn new(cpu: CpuId, owner: Option<EntityId>) -> Self {
        CfsRq {
            cpu,
            load: LoadWeight::default(),
            nr_queued: 0,
            h_nr_queued: 0,
            h_nr_runnable: 0,
            h_nr_idle: 0,
            sum_w_vruntime: 0,
            sum_weight: 0,
            // Initial zero_vruntime = (u64)(−2²⁰) (init_cfs_rq).
            zero_vruntime: (-(1i64 << 20)) as u64,
            curr: None,
            next: None,
            last: None,
            skip: None,
            // (u64)(−2²⁰), as init_cfs_rq set min_vruntime.
            min_vruntime: (-(1i64 << 20)) as u64,
            tasks_timeline: EntityTree::new(),
            owner,
            avg: SchedAvg::default(),
            removed: Removed::default(),
            grp: Default::default(),
        }
    }

    /// The fair tasks the load balancer counts here: h_nr_runnable from v6.14, before it
    /// h_nr_running, delayed tasks included (KernelVersion::balances_runnable_tasks_only).
    #[inline]
    pub fn lb_h_nr_running(&self, kernel: KernelVersion) -> u32 {
        if kernel.balances_runnable_tasks_only() {
            self.h_nr_runnable
        } else {
            self.h_nr_queued
        }
    }
}

/// Task life-cycle as the core sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// Not yet created (start delay pending).
    New,
    /// TASK_RUNNING: queued or on a CPU.
    Running,
    /// Blocked; may still be on_rq as a delayed entity.
    Sleeping,
    /// Woken, wake-up in flight to its target CPU (TTWU_QUEUE / idle exit).
    Waking,
    Dead,
}

/// The work a task has left in its current busy period (docs/architecture.md: the
/// kernel model sees work left, never the workload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Nothing to do: the task will block or exit at its next step.
    None,
    /// Reference nanoseconds of work left (at capacity 1024, top frequency).
    Reference(Ns),
    /// Busy until this absolute time whatever the CPU speed.
    Until(Ns),
}

/// struct task_struct, the scheduler's part of it, under the kernel's names; statistics and
/// the simulator's own state in their own structs. `repr(C)`: the fields the wake-up, pick
/// and switch paths read come first, so they share cache lines.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Task {
    pub se: EntityId,
    pub nice: i32,
    /// task_cpu(p).
    pub cpu: CpuId,
    /// task_group(p): index into `Sched::groups` (0 = the root group).
    pub tg: usize,
    pub state: TaskState,
    pub policy: Policy,
    /// p->on_rq: queued on a runqueue (true while delayed too).
    pub on_rq: bool,
    /// TASK_ON_RQ_MIGRATING: being moved between runqueues while runnable.
    pub on_rq_migrating: bool,
    pub on_cpu: bool,
    /// p->sched_migrated: a CPU change since the last sched-in (perf's cpu-migrations).
    pub sched_migrated: bool,
    /// p->in_iowait: sleeping in io_schedule(); cleared once it runs again.
    pub in_iowait: bool,
    /// Wake flags of the wake-up in flight (try_to_wake_up's wake_flags).
    pub wake_flags: u32,
    /// Requested uclamp (min, max), 0..=1024 (p->uclamp_req).
    pub uclamp_req: [u32; 2],
    /// Here, not first: it fills the 4 bytes `repr(C)` would pad before `sim` (336 bytes).
    pub pid: u32,
    /// Not kernel state: the work the task has left and what the simulator's physics owe it.
    pub sim: TaskSim,
    pub nr_cpus_allowed: usize,
    /// p->stats (struct sched_statistics) and perf's software counters.
    pub stats: TaskStats,
    /// p->recent_used_cpu (select_idle_sibling's recent-CPU check).
    pub recent_used_cpu: CpuId,
    /// p->cpus_mask as a bitmap over machine CPUs.
    pub cpus_allowed: crate::sched::cpus_allowed::CpusAllowed,
    /// wakee_flips / wakee_flip_decay_ts / last_wakee (fair.c record_wakee).
    pub wakee_flips: u64,
    pub wakee_flip_decay_ts: Ns,
    pub last_wakee: Option<TaskId>,
    pub nvcsw: u64,
    pub nivcsw: u64,
    /// se.nr_migrations.
    pub nr_migrations: u64,
    pub comm: String,
    /// struct sched_rt_entity and p->rt_priority, for real-time tasks (boxed, as the
    /// deadline entity: most tasks are fair and a million-task run pays 8 bytes each).
    pub rt: Option<Box<super::rt::RtEntity>>,
    /// struct sched_dl_entity (boxed: most tasks are not deadline tasks).
    pub dl: Option<Box<super::dl::DlEntity>>,
}

/// The task's statistics: schedstats (struct sched_statistics), perf's software counters
/// and the results' time-weighted util_avg.
#[derive(Debug, Clone, Default)]
pub struct TaskStats {
    /// When the task last became runnable-but-not-running (stats.wait_start).
    pub wait_start: Option<Ns>,
    /// stats.wait_sum.
    pub wait_sum: Ns,
    /// When the pending wake-up was issued, for the wake-up latency statistics.
    pub wakeup_at: Option<Ns>,
    /// perf's cpu-migrations and context-switches counts for this task.
    pub perf_migrations: u64,
    pub perf_switches: u64,
    /// Time-weighted util_avg accumulator (results' util_avg_mean).
    pub util_mean: UtilMean,
}

/// The simulator's per-task state (docs/model.md, Hardware costs).
#[derive(Debug, Clone)]
pub struct TaskSim {
    pub work: Work,
    /// Cache lines a migration must refill (the task's working set, from its workload);
    /// `None`: the machine's flat `migrate_*_ns` (Sched::migration_penalty).
    pub working_set_lines: Option<u32>,
    /// Migration penalty owed: extra reference work added to the next busy period.
    pub cache_penalty_ns: Ns,
    /// Where and after which of that CPU's switches (rq.nr_switches) the task last left
    /// a CPU: how warm the kernel's state for it still is (Sched::context_switch_cost).
    pub switched_out: Option<(CpuId, u64)>,
}

impl Default for TaskSim {
    fn default() -> Self {
        TaskSim {
            work: Work::None,
            working_set_lines: None,
            cache_penalty_ns: 0,
            switched_out: None,
        }
    }
}

impl Task {
    pub fn is_idle_policy(&self) -> bool {
        self.policy == Policy::Idle
    }

    /// p->sched_class.
    #[inline]
    pub fn class(&self) -> super::uapi::SchedClass {
        self.policy.class()
    }

    /// A fair-class task (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE).
    #[inline]
    pub fn is_fair(&self) -> bool {
        self.class() == super::uapi::SchedClass::Fair
    }

    /// p->rt_priority (sched_priority, 1..=99 for SCHED_FIFO / SCHED_RR; 0 otherwise).
    pub fn rt_priority(&self) -> u32 {
        self.rt.as_ref().map_or(0, |r| r.rt_priority)
    }

    /// p->prio (no priority inheritance: normal_prio): −1 deadline, 0..=98 real-time,
    /// 100..=139 fair.
    #[inline]
    pub fn prio(&self) -> i32 {
        super::uapi::normal_prio(self.policy, self.rt_priority(), self.nice)
    }

    /// The real-time entity of an RT task.
    #[inline]
    pub fn rt_se(&self) -> &super::rt::RtEntity {
        self.rt
            .as_deref()
            .expect("a real-time task has an rt entity")
    }

    #[inline]
    pub fn rt_se_mut(&mut self) -> &mut super::rt::RtEntity {
        self.rt
            .as_deref_mut()
            .expect("a real-time task has an rt entity")
    }
}

/// struct rq: one per CPU. `repr(C)`, one cache line first: what every event and every
/// CPU a balance pass scans reads (curr, cfs, the counts, the capacity) sits together,
/// and each rq starts on a line of its own.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Rq {
    /// The running task; `None` = the idle task.
    pub curr: Option<TaskId>,
    pub cfs: CfsRqId,
    /// scale_rt_capacity's value for avg_rt, avg_dl, avg_hw and avg_irq below, refreshed
    /// whenever one is written (Sched::refresh_capacity): capacity_of reads this word
    /// instead of four signals' lines on every CPU a balance pass scans.
    pub scale_rt_capacity: u64,
    /// Queued tasks, including delayed ones and curr.
    pub nr_running: u32,
    /// Wake-ups queued to this CPU and not yet activated (rq->ttwu_pending).
    pub ttwu_pending: u32,
    /// TIF_NEED_RESCHED.
    pub need_resched: bool,
    /// TIF_NEED_RESCHED_LAZY.
    pub need_resched_lazy: bool,
    pub cpu: CpuId,
    pub nr_switches: u64,
    /// Not kernel state: the CPU's progress, idle periods and energy meter.
    pub sim: RqSim,
    /// Clocks feeding PELT (update_rq_clock_pelt).
    pub pelt: RqClockPelt,
    // load balancing (docs/model.md, Load balancing)
    pub lb: super::fair::balance::RqBalance,
    /// rq->avg_rt, avg_dl, avg_hw, avg_irq: RT, DL, HW-pressure and IRQ signals (the
    /// last two have no input in this model).
    pub avg_rt: SchedAvg,
    pub avg_dl: SchedAvg,
    pub avg_hw: SchedAvg,
    pub avg_irq: SchedAvg,
    pub uclamp: UclampRq,
    /// rq->rt: the real-time runqueue.
    pub rt: super::rt::RtRq,
    /// rq->dl: the deadline runqueue.
    pub dl: super::dl::DlRq,
    /// Times this CPU entered idle (tick_nohz idle calls; schedutil's hold heuristic).
    pub idle_calls: u64,
}

// The first line holds the PELT signals, the counts follow (CfsRq's doc).
const _: () =
    assert!(std::mem::size_of::<SchedAvg>() == 64 && std::mem::offset_of!(CfsRq, h_nr_idle) < 80);

// The first line holds what its doc says; a field added before `sim` must not push it out.
const _: () = assert!(std::mem::offset_of!(Rq, sim) == 64);

/// The simulator's per-CPU state (docs/model.md, Hardware costs).
#[derive(Debug, Clone, Default)]
pub struct RqSim {
    /// When an idle CPU already kicked awake will be ready to run (idle-exit latency).
    pub wake_ready_at: Ns,
    /// Where this CPU's wake-up path is: the wake-ups it issues back to back (a wake-all,
    /// timers due together) run one after another, each sched_wakeup_ns.
    pub wake_path_until: Ns,
    /// When the current task's work started progressing (after the context-switch cost).
    pub progress_start: Ns,
    pub idle_since: Option<Ns>,
    pub idle_ns: Ns,
    pub meter: PowerMeter,
    /// Machine::speed of the CPU (capacity at the current frequency), kept up to date
    /// when the frequency changes: read on every progress update without touching the
    /// machine's CPU and domain records.
    pub(crate) base_speed: u64,
}

/// Simulation-wide knobs the kernel model reads.
#[derive(Debug, Clone)]
pub struct SchedConfig {
    pub hz: u32,
    pub preempt: PreemptModel,
    /// sysctl_sched_base_slice after tunable scaling (fair.c update_sysctl).
    pub base_slice: Ns,
    /// Check invariants after every Nth event (1 = every event).
    pub invariant_every: u64,
    /// Offset of each CPU's tick grid from t=0 (all 0: one aligned grid).
    pub tick_offset: Vec<Ns>,
    /// current->timer_slack_ns of every task (50 µs, the kernel's default for fair
    /// tasks): how late a sleep's hrtimer may fire (Sched::hrtimer_expiry).
    pub timer_slack_ns: Ns,
    /// sched_pelt_lshift: 0, 1, 2 for PELT half-lives of 32, 16, 8 ms (Android's
    /// sched_pelt_multiplier; docs/model.md, PELT and util_est).
    pub pelt_lshift: u32,
    /// The sched_uclamp_used static key.
    pub uclamp_used: bool,
    /// sysctl sched_util_clamp_min / _max (core.c).
    pub sysctl_uclamp: [u32; 2],
    /// The machine has asymmetric capacities and an energy model (EAS needs schedutil too).
    pub eas_capable: bool,
    /// The kernel version modelled (docs/model.md, Kernel versions).
    pub kernel: KernelVersion,
    /// CFS tunables (kernels up to v6.5), after sched_tunable_scaling.
    pub cfs: CfsTunables,
    /// sysctl sched_rt_runtime_us in ns (None = −1, no limit) and sched_rt_period_us.
    pub rt_runtime_ns: Option<Ns>,
    pub rt_period_ns: Ns,
    /// sysctl sched_rr_timeslice_ms (RR_TIMESLICE, 100 ms by default).
    pub rr_timeslice_ms: u64,
    /// Seconds the machine has been up, idle, when the run starts: jiffies start there
    /// while every balance timestamp (sd->last_balance, rq->next_balance) is from boot,
    /// so each level's periodic balance is due at the first tick, as on a machine idle
    /// before an experiment (0: the run starts at boot; docs/model.md, Load balancing).
    pub uptime_at_start_s: u64,
}

/// The CFS-era tunables (fair.c, v5.18 – v6.5; debugfs latency_ns, min_granularity_ns,
/// wakeup_granularity_ns, idle_min_granularity_ns), scaled by sched_tunable_scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfsTunables {
    /// sysctl_sched_latency: the period every runnable task runs once in (6 ms normalized).
    pub latency: Ns,
    /// sysctl_sched_min_granularity (0.75 ms normalized).
    pub min_granularity: Ns,
    /// sysctl_sched_idle_min_granularity (0.75 ms, not scaled): SCHED_IDLE entities' minimum.
    pub idle_min_granularity: Ns,
    /// sysctl_sched_wakeup_granularity (1 ms normalized).
    pub wakeup_granularity: Ns,
    /// sched_nr_latency = latency / min_granularity at boot (8); writes through debugfs do
    /// not recompute it.
    pub nr_latency: u32,
    /// sysctl_sched_tunable_scaling the values were scaled with.
    pub scaling: u32,
}

/// normalized_sysctl_sched_latency / _min_granularity / _wakeup_granularity (fair.c ≤ v6.5).
pub const NORMALIZED_SCHED_LATENCY: Ns = 6_000_000;
pub const NORMALIZED_MIN_GRANULARITY: Ns = 750_000;
pub const NORMALIZED_WAKEUP_GRANULARITY: Ns = 1_000_000;

/// sched_tunable_scaling values (SCHED_TUNABLESCALING_NONE / LOG / LINEAR).
pub const TUNABLESCALING_NONE: u32 = 0;
pub const TUNABLESCALING_LOG: u32 = 1;
pub const TUNABLESCALING_LINEAR: u32 = 2;

/// get_update_sysctl_factor: 1, 1 + ilog2(min(ncpus, 8)) or min(ncpus, 8).
pub fn sysctl_factor(nr_cpus: usize, scaling: u32) -> Ns {
    let n = nr_cpus.clamp(1, 8) as u32;
    match scaling {
        TUNABLESCALING_NONE => 1,
        TUNABLESCALING_LINEAR => n as Ns,
        _ => (1 + n.ilog2()) as Ns,
    }
}

impl CfsTunables {
    /// update_sysctl: the normalized values times the scaling factor.
    pub fn scaled(nr_cpus: usize, scaling: u32) -> Self {
        let f = sysctl_factor(nr_cpus, scaling);
        CfsTunables {
            latency: NORMALIZED_SCHED_LATENCY * f,
            min_granularity: NORMALIZED_MIN_GRANULARITY * f,
            idle_min_granularity: 750_000,
            wakeup_granularity: NORMALIZED_WAKEUP_GRANULARITY * f,
            nr_latency: 8,
            scaling,
        }
    }
}

impl SchedConfig {
    /// sched_rr_timeslice in ticks: msecs_to_jiffies(sched_rr_timeslice_ms), at least one.
    pub fn rr_timeslice_ticks(&self) -> u32 {
        ((self.rr_timeslice_ms * self.hz as u64).div_ceil(1000)).max(1) as u32
    }

    /// TICK_NSEC = 10⁹ / HZ.
    pub fn tick_nsec(&self) -> Ns {
        1_000_000_000 / self.hz as Ns
    }

    /// The first tick of `cpu`'s grid strictly after `now`.
    pub fn next_tick_after(&self, cpu: CpuId, now: Ns) -> Ns {
        let (tick, off) = (self.tick_nsec(), self.tick_offset[cpu]);
        if now < off {
            return off;
        }
        off + ((now - off) / tick + 1) * tick
    }
}

/// The default timer slack of a task (init_task.timer_slack_ns, 50 µs).
pub const TIMER_SLACK_NS: Ns = 50_000;

/// How long the machine has been up, idle, when a run starts (SchedConfig::
/// uptime_at_start_s): five minutes, longer than any balance interval up to 3,000 CPUs
/// (max_load_balance_interval is HZ × nr_cpus / 10 jiffies).
pub const UPTIME_AT_START_S: u64 = 300;

/// normalized_sysctl_sched_base_slice (fair.c).
pub const NORMALIZED_BASE_SLICE: Ns = 700_000;

/// sysctl_sched_base_slice with SCHED_TUNABLESCALING_LOG: 0.7 ms × (1 + ilog2(min(n, 8))).
pub fn base_slice_for(nr_cpus: usize) -> Ns {
    let n = nr_cpus.clamp(1, 8) as u32;
    NORMALIZED_BASE_SLICE * (1 + n.ilog2()) as Ns
}

/// The whole kernel model.
pub struct Sched {
    pub machine: Machine,
    pub features: Features,
    pub cfg: SchedConfig,
    pub now: Ns,
    pub tasks: Vec<Task>,
    pub entities: Vec<SchedEntity>,
    pub cfs_rqs: Vec<CfsRq>,
    pub rqs: Vec<Rq>,
    /// SMT siblings of each CPU (other threads of its core).
    pub smt_siblings: Vec<Vec<CpuId>>,
    /// cpu_smt_mask: every thread of the CPU's core, itself included, ascending.
    pub smt_mask: Vec<Vec<CpuId>>,
    /// Not kernel state: each CPU's core as a dense index (u32::MAX without SMT) and each
    /// core's busy threads, so the speed of a thread (sim::hw::cpu_speed, on every
    /// progress update) reads one counter instead of every sibling's runqueue.
    pub(crate) smt_core: Vec<u32>,
    pub(crate) smt_busy: Vec<u8>,
    /// cpu_speed's per-thread share in percent by busy sibling count (index 0: alone),
    /// computed once from the machine's smt_busy_speed_pct: no division per update.
    pub(crate) smt_share_pct: Vec<u64>,
    /// Not kernel state: each CPU's capacity at its top frequency (Machine's, which
    /// never changes during a run) in one dense array, the copy arch_scale_cpu_capacity
    /// reads: the balancer's group walk reads it for every CPU, and Machine's CPU table
    /// spends a cache line on each.
    pub(crate) capacity_orig: Vec<u32>,
    /// CPUs examined by the placement in progress (charged as scan time).
    pub placement_visits: u64,
    /// select_idle_cpu's scan order, kept between calls so a wake-up allocates nothing.
    pub(crate) sis_scan_order: Vec<CpuId>,
    pub placement: super::fair::placement::PlacementStats,
    /// The cache line of each sched_domain_shared (by shared id): has_idle_cores,
    /// nr_idle_scan and nr_busy_cpus, modelled like the root domain's line.
    pub sd_shared_lines: Vec<super::sim::shared_line::SharedLine>,
    /// The scheduler's own CPU time, by kernel function and by CPU (simulator physics).
    pub overhead: super::sim::overhead::SchedOverhead,
    /// Seeded work-length noise (scenario `[noise]`); None = exact work.
    pub work_noise: Option<super::sim::noise::WorkNoise>,
    /// Timer-interrupt latency added to sleepers' wake-ups (`[noise] timer_jitter`).
    pub timer_noise: Option<super::sim::noise::TimerNoise>,
    pub cpufreq: Cpufreq,
    /// The root domain (one per machine: no cpusets).
    pub rd: super::capacity::RootDomain,
    /// The sched-domain hierarchy (kernel/sched/topology.c), built once from the machine.
    pub sd: super::topology::SchedDomains,
    /// Energy-model perf states per frequency domain (built once from the machine).
    pub em: Vec<Vec<super::energy_model::EmPerfState>>,
    pub events: EventQueue,
    /// CPUs whose need_resched must be acted on before the current event ends.
    pub resched_now: Vec<CpuId>,
    /// The CPU whose interrupt, IPI or syscall the current event runs in (None: no CPU's,
    /// e.g. a frequency change).
    pub event_cpu: Option<CpuId>,
    pub invariant_violations: u64,
    pub invariant_messages: Vec<String>,
    /// Optional probe: every context switch as (time, cpu, prev, next). Observation only.
    pub switch_log: Option<Vec<SwitchRecord>>,
    /// Optional probe: every util_est update at a sleep (sched_util_est_se). Observation only.
    pub util_est_log: Option<Vec<UtilEstRecord>>,
    // load balancing (docs/model.md, Load balancing)
    pub lb: super::fair::balance::SchedBalance,
    /// Observers of the tracepoints (trace writers, statistics). Observation only.
    pub observers: Vec<Box<dyn super::tracepoints::SchedObserver>>,
    /// The union of the observers' tracepoint bits.
    pub observed: u32,
    /// Task groups; index 0 is the root group (the flat per-CPU runqueues).
    pub groups: Vec<super::fair::group::TaskGroup>,
}

/// One util_est_update as a probe sees it: the inputs and the field before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtilEstRecord {
    pub at: Ns,
    pub task: TaskId,
    pub dequeued: u64,
    pub runnable: u64,
    pub before: u32,
    pub after: u32,
}

/// One context switch as a probe sees it (sched_switch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchRecord {
    pub at: Ns,
    pub cpu: CpuId,
    pub prev: Option<TaskId>,
    pub next: Option<TaskId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_slice_scaling() {
        assert_eq!(base_slice_for(1), 700_000);
        assert_eq!(base_slice_for(2), 1_400_000);
        assert_eq!(base_slice_for(3), 1_400_000);
        assert_eq!(base_slice_for(4), 2_100_000);
        assert_eq!(base_slice_for(7), 2_100_000);
        assert_eq!(base_slice_for(8), 2_800_000);
        assert_eq!(base_slice_for(384), 2_800_000);
    }
}
