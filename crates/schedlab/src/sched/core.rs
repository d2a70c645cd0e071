//! The core scheduler (kernel/sched/core.c): wake-ups, schedule(), the tick, resched
//! requests under each preemption model, set_task_cpu, and the CPU-side bookkeeping of
//! a task's progress through its work.

use super::fair::class::wf;
use super::fair::weights::LoadWeight;
use super::fair::{dequeue, enqueue};
use super::sim::overhead::{SchedFn, Stall};
use super::version::KernelVersion;
use super::{
    base_slice_for, sysctl_factor, CfsRq, CfsTunables, Rq, RqSim, Sched, SchedConfig, SchedEntity,
    Task, TaskId, TaskSim, TaskState, TaskStats, Work, TIMER_SLACK_NS, TUNABLESCALING_LOG,
    UPTIME_AT_START_S,
};
use crate::engine::queue::CpuTimer;
use crate::engine::{Event, EventQueue};
use crate::machine::{CpuId, Machine};
use crate::sched::cpus_allowed::CpusAllowed;
use crate::sched::features::Features;
use crate::sched::PreemptModel;
use crate::sched::{Policy, TaskAttrs};
use crate::time::Ns;

impl Sched {
    pub fn new(machine: Machine, features: Features, hz: u32, preempt: PreemptModel) -> Sched {
        let n = machine.nr_cpus();
        let cfs_rqs = (0..n).map(|cpu| CfsRq::new(cpu, None)).collect();
        let rqs = (0..n)
            .map(|cpu| Rq {
                cpu,
                curr: None,
                cfs: cpu,
                nr_running: 0,
                nr_switches: 0,
                need_resched: false,
                need_resched_lazy: false,
                ttwu_pending: 0,
                pelt: Default::default(),
                rt: Default::default(),
                dl: Default::default(),
                avg_rt: Default::default(),
                avg_dl: Default::default(),
                avg_hw: Default::default(),
                avg_irq: Default::default(),
                scale_rt_capacity: 0,
                idle_calls: 0,
                uclamp: Default::default(),
                lb: Default::default(),
                sim: RqSim {
                    idle_since: Some(0),
                    ..Default::default()
                },
            })
            .collect();
        let sd = super::topology::build_sched_domains(&machine);
        let capacity_orig = machine.cpus.iter().map(|c| c.capacity).collect();
        let mut s = Sched {
            cfg: SchedConfig {
                hz,
                preempt,
                base_slice: base_slice_for(n),
                invariant_every: 1,
                tick_offset: vec![0; n],
                timer_slack_ns: TIMER_SLACK_NS,
                pelt_lshift: 0,
                uclamp_used: false,
                sysctl_uclamp: [1024, 1024],
                eas_capable: false,
                kernel: KernelVersion::Current,
                cfs: CfsTunables::scaled(n, super::TUNABLESCALING_LOG),
                rt_runtime_ns: Some(super::rt::bandwidth::DEF_RT_RUNTIME_NS),
                rt_period_ns: super::rt::bandwidth::DEF_RT_PERIOD_NS,
                rr_timeslice_ms: super::rt::RR_TIMESLICE_MS,
                uptime_at_start_s: UPTIME_AT_START_S,
            },
            machine,
            features,
            now: 0,
            tasks: Vec::new(),
            entities: Vec::new(),
            cfs_rqs,
            rqs,
            smt_siblings: Vec::new(),
            smt_mask: Vec::new(),
            smt_core: Vec::new(),
            smt_busy: Vec::new(),
            smt_share_pct: Vec::new(),
            capacity_orig,
            placement_visits: 0,
            sis_scan_order: Vec::new(),
            placement: Default::default(),
            overhead: super::sim::overhead::SchedOverhead::new(n),
            sd_shared_lines: Vec::new(),
            work_noise: None,
            timer_noise: None,
            cpufreq: Default::default(),
            rd: Default::default(),
            sd,
            em: Vec::new(),
            events: EventQueue::default(),
            resched_now: Vec::new(),
            event_cpu: None,
            invariant_violations: 0,
            invariant_messages: Vec::new(),
            switch_log: None,
            util_est_log: None,
            lb: Default::default(),
            observers: Vec::new(),
            observed: 0,
            groups: Vec::new(),
        };
        s.groups.push(super::fair::group::TaskGroup::root(n));
        s.build_smt_siblings();
        s.refresh_base_speeds();
        for cpu in 0..n {
            s.refresh_capacity(cpu);
        }
        s.cfg.eas_capable = s.machine_eas_capable();
        s.em = (0..s.machine.freq_domains.len())
            .map(|d| super::energy_model::em_perf_domain(&s.machine, d))
            .collect();
        s.cpufreq_init(Default::default());
        s.meter_init();
        s.balance_init();
        s
    }

    /// Model kernel `v` (docs/model.md, Kernel versions): its base slice and CFS tunables.
    /// Called before any task exists.
    pub fn set_kernel(&mut self, v: KernelVersion) {
        let n = self.machine.nr_cpus();
        self.cfg.kernel = v;
        self.cfg.base_slice = v.normalized_base_slice() * sysctl_factor(n, TUNABLESCALING_LOG);
        self.cfg.cfs = CfsTunables::scaled(n, TUNABLESCALING_LOG);
        // CFS picks the leftmost: its queues need not keep what __pick_eevdf's walk reads.
        for c in &mut self.cfs_rqs {
            c.tasks_timeline.set_tracks_eligibility(!v.is_cfs());
        }
    }

    /// Create a task in the New state (sched_fork); it starts with wake_up_new_task.
    pub fn add_task(&mut self, spec: &TaskAttrs) -> TaskId {
        let id = self.tasks.len();
        let se = self.entities.len() as u32;
        let n = self.machine.nr_cpus();
        let allowed = match &spec.cpus {
            None => CpusAllowed::all(n),
            Some(cpus) => CpusAllowed::from_cpus(n, cpus),
        };
        let nr_allowed = allowed.weight();
        let first_allowed = allowed.first().unwrap_or(0);
        let (slice, custom) = match spec.slice_ns {
            Some(s) if s > 0 => (s.clamp(100_000, 100_000_000), true),
            _ => (self.cfg.base_slice, false),
        };
        // __sched_fork: vruntime 0, vlag 0, rel_deadline 0.
        let load = LoadWeight::for_task(spec.nice, spec.policy == Policy::Idle);
        let cfs = self.rqs[first_allowed].cfs;
        self.entities.push(SchedEntity {
            task: Some(id),
            ..SchedEntity::new(load, slice, custom, cfs)
        });
        self.init_entity_runnable_average(se);
        self.tasks.push(Task {
            pid: 1000 + id as u32,
            comm: spec.comm.clone(),
            policy: spec.policy,
            nice: spec.nice.clamp(-20, 19),
            se,
            rt: (spec.policy.class() == super::uapi::SchedClass::Rt).then(|| {
                Box::new(super::rt::RtEntity::new(
                    spec.rt_priority,
                    self.cfg.rr_timeslice_ticks(),
                ))
            }),
            dl: spec.dl.map(|d| Box::new(super::dl::DlEntity::new(d))),
            cpu: first_allowed,
            state: TaskState::New,
            on_rq: false,
            on_rq_migrating: false,
            on_cpu: false,
            cpus_allowed: allowed,
            nr_cpus_allowed: nr_allowed,
            wake_flags: 0,
            nvcsw: 0,
            nivcsw: 0,
            nr_migrations: 0,
            sched_migrated: false,
            wakee_flips: 0,
            wakee_flip_decay_ts: 0,
            last_wakee: None,
            recent_used_cpu: first_allowed,
            in_iowait: false,
            uclamp_req: [0, 1024],
            tg: 0,
            stats: TaskStats::default(),
            sim: TaskSim::default(),
        });
        if spec.uclamp.min.is_some() || spec.uclamp.max.is_some() {
            self.set_uclamp(id, spec.uclamp.min, spec.uclamp.max);
        }
        if spec.policy == Policy::Deadline && self.tasks[id].dl.is_some() {
            // The initial sched_setattr (admitted by Simulation::with_kernel).
            self.dl_attach_task(id, false);
        }
        id
    }

    // ---- resched requests -------------------------------------------------------------

    /// resched_curr: set need_resched. Tasks run in user mode in this model, and every
    /// preemption model honours the flag on the next return to user mode
    /// (exit_to_user_mode_loop): the end of the interrupt, IPI or syscall in which the
    /// request was made, or of the reschedule IPI a remote request sends — so it takes
    /// effect before the current event ends. An idle CPU reschedules at once too.
    pub fn resched_curr(&mut self, cpu: CpuId) {
        self.rqs[cpu].need_resched = true;
        let remote = self.event_cpu.is_some_and(|c| c != cpu);
        if !remote {
            self.resched_now.push(cpu);
        } else if !self.events.is_armed(cpu, CpuTimer::ReschedIpi) {
            // smp_send_reschedule: the target acts when the IPI arrives; an idle target
            // first leaves its idle state.
            let from = self.event_cpu.unwrap_or(cpu);
            let mut at = self.send_ipi(from, cpu);
            if self.rqs[cpu].curr.is_none() {
                at = self.idle_exit_at(cpu, at);
            }
            self.events.arm(cpu, CpuTimer::ReschedIpi, at);
        }
    }

    /// An IPI from `from` to `to` (reschedule, TTWU_QUEUE wake list, nohz kick, stopper):
    /// the sender spends `ipi_send_ns` raising it (charged at the end of the current
    /// event); returns when it reaches the target. No IPI to the CPU itself.
    pub(crate) fn send_ipi(&mut self, from: CpuId, to: CpuId) -> Ns {
        if from == to {
            return self.now;
        }
        let (send, flight) = (
            self.machine.costs.ipi_send_ns,
            self.machine.costs.wakeup_ipi_ns,
        );
        self.charge_sched_time(from, send, Stall::Deferred);
        self.now + flight
    }

    /// When a sleep's hrtimer armed on `cpu` by its running task for `soft` fires:
    /// hrtimer_set_expires_range_ns gives it [soft, soft + timer_slack]; it fires at the
    /// hard end unless an earlier hrtimer interrupt of that CPU in the range expires it —
    /// the tick, if the CPU stays busy once the sleeper has left (others queued). A CPU
    /// the sleeper leaves idle stops its tick (NOHZ) until the earliest hard expiry.
    /// Judged when the timer is armed: the model does not re-judge if the CPU's load
    /// changes before the expiry.
    pub fn hrtimer_expiry(&mut self, cpu: CpuId, soft: Ns) -> Ns {
        let late = self.timer_noise.as_mut().map_or(0, |n| n.delay());
        let hard = soft + self.cfg.timer_slack_ns;
        let stays_busy = self.rqs[cpu].nr_running > 1;
        if hard == soft || !stays_busy || !self.events.is_armed(cpu, CpuTimer::Tick) {
            return hard + late;
        }
        self.cfg
            .next_tick_after(cpu, soft.saturating_sub(1))
            .min(hard)
            + late
    }

    /// The reschedule IPI arrives: its return to user mode acts on need_resched.
    pub fn resched_ipi(&mut self, cpu: CpuId) {
        self.timer_return_to_user(cpu);
    }

    /// resched_curr_lazy: under the lazy model only TIF_NEED_RESCHED_LAZY is set and no IPI
    /// is sent. The flag is honoured on a return to user mode of that CPU: at once when
    /// the request is made on the CPU itself, else at its next interrupt or syscall
    /// (`return_to_user`), and the tick promotes it. Otherwise a normal resched.
    pub fn resched_curr_lazy(&mut self, cpu: CpuId) {
        if self.cfg.preempt == PreemptModel::Lazy && self.rqs[cpu].curr.is_some() {
            if !self.rqs[cpu].need_resched {
                self.rqs[cpu].need_resched_lazy = true;
                if self.event_cpu == Some(cpu) {
                    self.resched_now.push(cpu);
                }
            }
        } else {
            self.resched_curr(cpu);
        }
    }

    /// The end of an interrupt, IPI or syscall on `cpu`, on the way back to user mode:
    /// a pending need_resched (lazy or not) is acted on (exit_to_user_mode_loop). Requests
    /// other than lazy ones are already queued when made.
    pub fn return_to_user(&mut self, cpu: CpuId) {
        let rq = &self.rqs[cpu];
        if rq.need_resched_lazy && !rq.need_resched {
            self.resched_now.push(cpu);
        }
    }

    /// The end of a timer interrupt (tick, HRTICK) on `cpu`: any pending request acts.
    fn timer_return_to_user(&mut self, cpu: CpuId) {
        let rq = &self.rqs[cpu];
        if rq.need_resched || rq.need_resched_lazy {
            self.resched_now.push(cpu);
        }
    }

    /// Act on every need_resched that must take effect before the current event ends.
    pub fn process_resched(&mut self) {
        while let Some(cpu) = self.resched_now.pop() {
            let rq = &self.rqs[cpu];
            if rq.need_resched || rq.need_resched_lazy {
                self.schedule(cpu, true);
            }
        }
    }

    // ---- placement and migration ------------------------------------------------------

    /// available_idle_cpu: nothing running, nothing queued, no wake-up in flight.
    pub fn cpu_is_idle(&self, cpu: CpuId) -> bool {
        let rq = &self.rqs[cpu];
        rq.curr.is_none() && rq.nr_running == 0 && rq.ttwu_pending == 0
    }

    /// set_task_cpu: move a not-running task's home; counts a migration when it changes
    /// (nr_migrations, perf_event_task_migrate; docs/model.md, Accounting).
    pub fn set_task_cpu(&mut self, p: TaskId, cpu: CpuId) {
        self.trace_sched_migrate_task(p, cpu);
        if self.tasks[p].cpu != cpu
            && self.tasks[p].state != TaskState::New
            && self.tasks[p].is_fair()
        {
            self.migrate_task_rq_fair(p);
        }
        if self.tasks[p].cpu != cpu
            && self.tasks[p].state == TaskState::Waking
            && self.tasks[p].class() == super::SchedClass::Dl
        {
            self.migrate_task_rq_dl(p);
        }
        if self.tasks[p].cpu != cpu && self.tasks[p].state != TaskState::New {
            let penalty = self.migration_penalty(p, self.tasks[p].cpu, cpu);
            self.tasks[p].sim.cache_penalty_ns += penalty;
        }
        let t = &mut self.tasks[p];
        if t.cpu != cpu {
            t.nr_migrations += 1;
            t.sched_migrated = true;
            t.cpu = cpu;
        }
        // set_task_rq: the group's cfs_rq and entity on the new CPU.
        self.set_task_rq(p, cpu);
    }

    // ---- wake-ups ---------------------------------------------------------------------

    /// try_to_wake_up, issued from `waking_cpu` (the timer's CPU or the waker's).
    pub fn try_to_wake_up(&mut self, p: TaskId, wake_flags: u32, waking_cpu: CpuId) {
        if self.tasks[p].state != TaskState::Sleeping {
            return;
        }
        self.trace_sched_waking(p, waking_cpu);
        // The wake-up path runs on the waking CPU (docs/model.md, Hardware costs).
        let cost = self.machine.costs.sched_wakeup_ns;
        self.in_sched_fn(SchedFn::TryToWakeUp, |s| {
            s.charge_sched_time(waking_cpu, cost, Stall::Now)
        });
        // __wake_up_common and wake_up_q wake one task after another: this wakee's path
        // starts when the CPU's previous one ended.
        let path = &mut self.rqs[waking_cpu].sim.wake_path_until;
        let start = (*path).max(self.now);
        *path = start + cost;
        self.tasks[p].stats.wakeup_at = Some(self.now);
        if self.tasks[p].on_rq {
            // ttwu_runnable: still queued (delayed dequeue); wakes where it is.
            let cpu = self.tasks[p].cpu;
            let t = &mut self.tasks[p];
            t.state = TaskState::Running;
            t.stats.wait_start = Some(self.now);
            if self.entities[t.se as usize].sched_delayed {
                self.enqueue_task_fair(cpu, p, enqueue::DELAYED);
            }
            if !self.tasks[p].on_cpu {
                self.wakeup_preempt(cpu, p, wake_flags);
            }
            self.trace_sched_wakeup(p, cpu, false);
            return;
        }
        // select_task_rq_fair's record_wakee, in the waker's context (the task running
        // on the waking CPU; a wake-up from idle has no waker to record).
        if let Some(waker) = self.rqs[waking_cpu].curr.filter(|&w| w != p) {
            if self.tasks[p].is_fair() {
                self.record_wakee(waker, p);
            }
        }
        let mut flags = wake_flags | wf::TTWU;
        let cpu = self.select_task_rq(p, flags, waking_cpu);
        if cpu != self.tasks[p].cpu {
            flags |= wf::MIGRATED;
            self.set_task_cpu(p, cpu);
        }
        self.tasks[p].state = TaskState::Waking;
        self.tasks[p].wake_flags = flags;
        self.ttwu_queue(p, cpu, waking_cpu, start);
    }

    /// ttwu_queue: activate now, or after the IPI / idle-exit delay of the target CPU.
    /// A busy remote CPU that shares the waker's cache is enqueued by the waker itself
    /// (ttwu_queue_cond), so its wake-up preemption is a remote request; without
    /// TTWU_QUEUE every remote wake-up is (an idle target is then kicked by resched_curr).
    /// `start`: when this wake-up's path begins on the waking CPU (after the wake-ups it
    /// issued just before).
    fn ttwu_queue(&mut self, p: TaskId, cpu: CpuId, waking_cpu: CpuId, start: Ns) {
        let wake_list = self
            .features
            .on(crate::sched::features::Feature::TTWU_QUEUE);
        let busy_sharing = self.rqs[cpu].nr_running > 0 && self.cpus_share_cache(waking_cpu, cpu);
        let by_waker = cpu != waking_cpu && (!wake_list || busy_sharing);
        let mut at = start;
        if !by_waker {
            // The IPI leaves when this wake-up's path runs.
            at = self.send_ipi(waking_cpu, cpu) + (start - self.now);
            if self.rqs[cpu].curr.is_none() && self.rqs[cpu].nr_running == 0 {
                at = self.idle_exit_at(cpu, at);
            }
        }
        if at == self.now {
            self.ttwu_do_activate(p, cpu);
        } else {
            self.rqs[cpu].ttwu_pending += 1;
            self.events.push(at, Event::WakeArrive { task: p, cpu });
        }
    }

    /// A queued wake-up arrives at its CPU.
    pub fn wake_arrive(&mut self, p: TaskId, cpu: CpuId) {
        self.rqs[cpu].ttwu_pending -= 1;
        self.ttwu_do_activate(p, cpu);
    }

    /// ttwu_do_activate: enqueue the wakee and check preemption.
    fn ttwu_do_activate(&mut self, p: TaskId, cpu: CpuId) {
        let flags = self.tasks[p].wake_flags;
        let mut eflags = enqueue::WAKEUP;
        if flags & wf::MIGRATED != 0 {
            eflags |= enqueue::MIGRATED;
        }
        if flags & wf::FORK != 0 {
            eflags = enqueue::INITIAL;
            self.update_rq_clock(cpu);
            if self.tasks[p].is_fair() {
                self.post_init_entity_util_avg(p);
            }
        }
        let t = &mut self.tasks[p];
        t.state = TaskState::Running;
        t.on_rq = true;
        t.stats.wait_start = Some(self.now);
        self.enqueue_task(cpu, p, eflags);
        self.wakeup_preempt(cpu, p, flags);
        self.trace_sched_wakeup(p, cpu, flags & wf::FORK != 0);
        self.task_woken(cpu, p);
        // Before v7.0 ttwu_do_activate updated rq->avg_idle (wake_up_new_task does not).
        if flags & wf::FORK == 0 && !self.cfg.kernel.updates_avg_idle_at_put_prev_idle() {
            self.update_rq_avg_idle(cpu);
        }
    }

    /// sched_fork's __set_task_cpu(p, smp_processor_id()): a new task starts on the CPU
    /// its parent forks it on, where wake_up_new_task's placement begins (kept on its
    /// first allowed CPU when it may not run there).
    pub fn sched_fork_on(&mut self, p: TaskId, parent_cpu: CpuId) {
        if self.tasks[p].cpus_allowed[parent_cpu] {
            self.set_task_cpu(p, parent_cpu);
        }
    }

    /// wake_up_new_task: place and enqueue a new task with ENQUEUE_INITIAL.
    /// Fork placement is never a counted migration.
    pub fn wake_up_new_task(&mut self, p: TaskId) {
        // The parent forks on the CPU the child starts out on (its first allowed CPU).
        let parent_cpu = self.tasks[p].cpu;
        self.tasks[p].recent_used_cpu = parent_cpu;
        let cpu = self.select_task_rq(p, wf::FORK, parent_cpu);
        self.set_task_cpu(p, cpu);
        let t = &mut self.tasks[p];
        t.nr_migrations = 0;
        t.sched_migrated = false;
        t.stats.util_mean.start = self.now;
        t.stats.util_mean.mark = self.now;
        t.state = TaskState::Waking;
        t.wake_flags = wf::FORK;
        t.stats.wakeup_at = Some(self.now);
        // activate_task on the child's rq at once (no wake list), so the next fork sees
        // it there; an idle target is kicked by IPI (resched_curr).
        self.ttwu_do_activate(p, cpu);
    }

    // ---- schedule() -------------------------------------------------------------------

    /// __schedule: block prev if it is going to sleep (and this is not a preemption),
    /// pick, and switch (counting: docs/model.md, Accounting).
    pub fn schedule(&mut self, cpu: CpuId, preempt: bool) {
        let rq = &mut self.rqs[cpu];
        rq.need_resched = false;
        rq.need_resched_lazy = false;
        let prev = rq.curr;
        let mut voluntary = false;
        if let Some(p) = prev {
            let state = self.tasks[p].state;
            if !preempt && matches!(state, TaskState::Sleeping | TaskState::Dead) {
                let mut flags = dequeue::SLEEP;
                if state == TaskState::Dead {
                    flags |= dequeue::SPECIAL;
                }
                self.dequeue_task(cpu, p, flags);
                voluntary = true;
            }
        }
        let next = self.pick_next_task(cpu, prev);
        if next == prev {
            self.run_rt_balance_callbacks(cpu);
            self.run_dl_balance_callbacks(cpu);
            self.settle_deferred_stall(cpu);
            return;
        }
        // A real switch: the slice timer starts over for the next task.
        self.events.cancel(cpu, CpuTimer::HrTick);
        if let Some(n) = next.filter(|&n| self.tasks[n].is_fair()) {
            self.hrtick_start_fair(cpu, n);
        }
        self.rqs[cpu].nr_switches += 1;
        if let Some(p) = prev {
            let t = &mut self.tasks[p];
            if voluntary {
                t.nvcsw += 1;
            } else {
                t.nivcsw += 1;
            }
            t.stats.perf_switches += 1;
        }
        self.trace_sched_switch(cpu, prev, next, preempt);
        self.context_switch(cpu, prev, next);
        self.run_rt_balance_callbacks(cpu);
        self.run_dl_balance_callbacks(cpu);
        self.settle_deferred_stall(cpu);
    }

    /// The switch cost before `next` makes progress on `cpu` (docs/model.md, Hardware
    /// costs): the hot cost when it left this CPU one switch ago (a ping-pong), the cold
    /// cost from four switches ago or when it last ran elsewhere, linear in between.
    /// Read after rq.nr_switches counted this switch.
    pub fn context_switch_cost(&self, cpu: CpuId, next: TaskId) -> Ns {
        let c = &self.machine.costs;
        let (hot, cold) = (
            c.context_switch_ns,
            c.context_switch_cold_ns.max(c.context_switch_ns),
        );
        let since = match self.tasks[next].sim.switched_out {
            Some((last, seq)) if last == cpu => self.rqs[cpu].nr_switches - seq,
            _ => return cold,
        };
        hot + (cold - hot) * since.saturating_sub(1).min(3) / 3
    }

    /// context_switch: settle prev's progress, start next's (after the switch cost), and
    /// keep idle time, wait time and wake-up latency.
    fn context_switch(&mut self, cpu: CpuId, prev: Option<TaskId>, next: Option<TaskId>) {
        let now = self.now;
        if let Some(log) = &mut self.switch_log {
            log.push(super::SwitchRecord {
                at: now,
                cpu,
                prev,
                next,
            });
        }
        self.settle_progress(cpu);
        self.meter_account(cpu);
        let busy_changes = prev.is_none() != next.is_none();
        if busy_changes {
            self.settle_siblings(cpu);
        }
        let switch_ns = next.map_or(0, |n| self.context_switch_cost(cpu, n));
        if let Some(p) = prev {
            let t = &mut self.tasks[p];
            t.sim.switched_out = Some((cpu, self.rqs[cpu].nr_switches));
            t.on_cpu = false;
            if t.state == TaskState::Running {
                t.stats.wait_start = Some(now);
            }
        } else if let Some(since) = self.rqs[cpu].sim.idle_since.take() {
            self.rqs[cpu].sim.idle_ns += now - since;
            self.meter_idle_period(cpu, now - since);
            // put_prev_task_idle (kernel/sched/idle.c), v7.0 on.
            if self.cfg.kernel.updates_avg_idle_at_put_prev_idle() {
                self.update_rq_avg_idle(cpu);
            }
        }
        self.rqs[cpu].curr = next;
        if busy_changes {
            self.note_smt_busy(cpu, next.is_some());
        }
        match next {
            Some(n) => {
                let start = now + switch_ns;
                let t = &mut self.tasks[n];
                t.on_cpu = true;
                // io_schedule_finish.
                t.in_iowait = false;
                if let Some(w) = t.stats.wait_start.take() {
                    t.stats.wait_sum += now - w;
                }
                // Wake-up latency statistics read it at sched_switch.
                t.stats.wakeup_at = None;
                if t.sched_migrated {
                    t.sched_migrated = false;
                    t.stats.perf_migrations += 1;
                }
                self.rqs[cpu].sim.progress_start = start;
                self.apply_cache_penalty(n);
                self.arm_work(cpu);
                if !self.events.is_armed(cpu, CpuTimer::Tick) {
                    // NOHZ: the tick restarts on the CPU's tick grid.
                    let at = self.cfg.next_tick_after(cpu, now);
                    self.events.arm(cpu, CpuTimer::Tick, at);
                }
            }
            None => {
                self.rqs[cpu].sim.idle_since = Some(now);
                self.rqs[cpu].idle_calls += 1;
                // The idle loop stops the tick (tick_nohz_idle_stop_tick).
                self.nohz_balance_enter_idle(cpu);
                self.events.cancel(cpu, CpuTimer::HrTick);
                self.events.cancel(cpu, CpuTimer::Work);
                // pick_next_task_idle → update_idle_core.
                self.update_idle_core(cpu);
            }
        }
        if busy_changes {
            self.rearm_siblings(cpu);
        }
    }

    // ---- what the running task asks for (the engine calls these) -----------------------

    /// The running task on `cpu` starts a new busy period.
    pub fn set_work(&mut self, cpu: CpuId, work: Work) {
        // Nothing here changes the CPU's speed: read it once for both steps.
        let speed = Some(self.cpu_speed(cpu));
        self.settle_progress_at(cpu, speed);
        let p = self.rqs[cpu].curr.expect("set_work on an idle CPU");
        let work = match (work, self.work_noise.as_mut()) {
            (Work::Reference(ns), Some(n)) => Work::Reference(n.jitter(ns)),
            (w, _) => w,
        };
        self.tasks[p].sim.work = work;
        self.apply_cache_penalty(p);
        self.arm_work_at(cpu, speed);
    }

    /// The running task blocks in io_schedule(): as block_current, with in_iowait set.
    pub fn block_current_iowait(&mut self, cpu: CpuId) {
        let p = self.rqs[cpu].curr.expect("block on an idle CPU");
        self.tasks[p].in_iowait = true;
        self.block_current(cpu);
    }

    /// The running task blocks (sleep, wait): schedule() with a non-running state.
    pub fn block_current(&mut self, cpu: CpuId) {
        let p = self.rqs[cpu].curr.expect("block on an idle CPU");
        self.settle_progress(cpu);
        self.tasks[p].sim.work = Work::None;
        self.tasks[p].state = TaskState::Sleeping;
        self.schedule(cpu, false);
    }

    /// The running task exits (do_exit → a final schedule()).
    pub fn exit_current(&mut self, cpu: CpuId) {
        let p = self.rqs[cpu].curr.expect("exit on an idle CPU");
        self.settle_progress(cpu);
        self.tasks[p].sim.work = Work::None;
        self.tasks[p].state = TaskState::Dead;
        self.trace_sched_process_exit(cpu);
        self.schedule(cpu, false);
    }

    /// sched_yield(): yield_task_fair then schedule(); an involuntary switch.
    pub fn yield_current(&mut self, cpu: CpuId) {
        let p = self.rqs[cpu].curr.expect("yield on an idle CPU");
        self.settle_progress(cpu);
        self.tasks[p].sim.work = Work::None;
        self.arm_work(cpu);
        self.yield_task(cpu, p);
        self.schedule(cpu, true);
    }

    /// sched_setaffinity on the running task: if its CPU is no longer allowed, move it
    /// (migration_cpu_stop: a non-sleep dequeue, set_task_cpu, enqueue on the new CPU).
    pub fn set_affinity_current(&mut self, cpu: CpuId, cpus: &[CpuId]) {
        let p = self.rqs[cpu].curr.expect("affinity on an idle CPU");
        let n = self.machine.nr_cpus();
        let allowed = CpusAllowed::from_cpus(n, cpus);
        if !allowed.iter().any(|&a| a) {
            return;
        }
        self.tasks[p].nr_cpus_allowed = allowed.iter().filter(|&&a| a).count();
        self.tasks[p].cpus_allowed = allowed;
        if self.tasks[p].cpus_allowed[cpu] {
            return;
        }
        let dest = self.tasks[p].cpus_allowed.iter().position(|&a| a).unwrap();
        self.settle_progress(cpu);
        self.tasks[p].on_rq_migrating = true;
        self.dequeue_task(cpu, p, dequeue::MIGRATING);
        self.tasks[p].state = TaskState::Waking;
        self.schedule(cpu, true);
        self.set_task_cpu(p, dest);
        self.tasks[p].on_rq_migrating = false;
        self.tasks[p].wake_flags = wf::MIGRATED;
        self.ttwu_queue(p, dest, cpu, self.now);
    }

    // ---- ticks ------------------------------------------------------------------------

    /// sched_tick: promote a lazy request, task_tick, and honour need_resched on the
    /// way back to user mode (every preemption model does). The tick stops on idle CPUs.
    pub fn sched_tick(&mut self, cpu: CpuId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let tick = self.cfg.tick_nsec();
        self.events.arm(cpu, CpuTimer::Tick, self.now + tick);
        if self.rqs[cpu].need_resched_lazy {
            self.rqs[cpu].need_resched_lazy = false;
            self.resched_curr(cpu);
        }
        self.task_tick(cpu, curr);
        self.trace_sched_tick(cpu);
        // Periodic and NOHZ balancing; the softirq also ages blocked load (sched_balance_softirq).
        self.sched_balance_trigger(cpu);
        self.timer_return_to_user(cpu);
    }

    pub(crate) fn arm_hrtick(&mut self, cpu: CpuId, at: Ns) {
        self.events.arm(cpu, CpuTimer::HrTick, at);
    }

    /// The HRTICK timer: a queued tick (core.c hrtick).
    pub fn hrtick(&mut self, cpu: CpuId) {
        if !self.rqs[cpu].curr.is_some_and(|c| self.tasks[c].is_fair()) {
            return;
        }
        self.task_tick_fair(cpu, true);
        self.timer_return_to_user(cpu);
    }

    /// Charge running tasks and idle CPUs up to `now` (end of the run).
    pub fn finish_accounting(&mut self) {
        for cpu in 0..self.rqs.len() {
            if let Some(p) = self.rqs[cpu].curr {
                self.update_curr_of(cpu, p);
            } else if let Some(since) = self.rqs[cpu].sim.idle_since {
                self.rqs[cpu].sim.idle_ns += self.now - since;
                self.meter_idle_period(cpu, self.now - since);
                self.rqs[cpu].sim.idle_since = Some(self.now);
            }
            self.meter_account(cpu);
        }
        let now = self.now;
        for t in &mut self.tasks {
            if let Some(w) = t.stats.wait_start.take() {
                t.stats.wait_sum += now - w;
                t.stats.wait_start = Some(now);
            }
        }
    }
}
