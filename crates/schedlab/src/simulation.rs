//! The run loop: pop the earliest event, hand it to the kernel model or the program
//! interpreter, act on pending reschedules, check invariants, repeat until the time limit
//! or until every task has exited.

use crate::engine::Event;
use crate::machine::{CpuId, Machine};
use crate::metrics::latency::WakeupLatencies;
use crate::sched::features::Features;
use crate::sched::version::KernelVersion;
use crate::sched::PreemptModel;
use crate::sched::{Sched, TaskState};
use crate::time::{Ns, NSEC_PER_SEC};
use crate::userspace::interp::SPIN_QUANTUM_NS;
use crate::userspace::{Interpreter, Probes, Step};
use crate::workload::{ToolReport, Workload};

/// Upper bound of a run with no time limit whose tasks never all exit.
pub const DEFAULT_CAP_NS: Ns = 3600 * NSEC_PER_SEC;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    TimeLimit,
    AllExited,
}

impl StopReason {
    pub fn name(self) -> &'static str {
        match self {
            StopReason::TimeLimit => "time_limit",
            StopReason::AllExited => "all_exited",
        }
    }
}

pub struct Simulation {
    pub sched: Sched,
    pub workload: Workload,
    /// What the workloads' tools print after the run (rendered by experiment::run).
    pub reports: Vec<ToolReport>,
    interp: Interpreter,
    pub events_processed: u64,
    /// `events_processed` by kind (`Event::KIND_NAMES`): where a run's events go.
    pub events_by_kind: [u64; Event::KIND_NAMES.len()],
    /// Take a spinner's failed lock retries in one step (on by default; a test turns it
    /// off to check that the results are the same).
    pub batch_failed_spins: bool,
    /// Failed spin retries the run loop took without running the interpreter.
    pub failed_spins_batched: u64,
    live_tasks: usize,
    pub stop_at: Ns,
}

impl Simulation {
    /// `duration`: the time limit; `None` runs until every task exits (capped at one hour).
    pub fn new(
        machine: Machine,
        features: Features,
        hz: u32,
        preempt: PreemptModel,
        workload: Workload,
        duration: Option<Ns>,
    ) -> Result<Simulation, String> {
        Self::with_kernel(
            machine,
            features,
            KernelVersion::Current,
            hz,
            preempt,
            workload,
            duration,
        )
    }

    /// As `new`, modelling kernel `kernel` (set before the tasks are created).
    pub fn with_kernel(
        machine: Machine,
        features: Features,
        kernel: KernelVersion,
        hz: u32,
        preempt: PreemptModel,
        workload: Workload,
        duration: Option<Ns>,
    ) -> Result<Simulation, String> {
        let interp = Interpreter::new(&workload, machine.nr_cpus())?;
        let mut sched = Sched::new(machine, features, hz, preempt);
        sched.set_kernel(kernel);
        sched.attach_observer(Box::new(WakeupLatencies::default()));
        sched.tasks.reserve_exact(workload.tasks.len());
        sched.entities.reserve_exact(workload.tasks.len());
        let mut live_tasks = 0;
        for spec in &workload.tasks {
            let id = sched.add_task(&spec.attrs);
            sched.set_working_set(id, spec.working_set_bytes);
            // A created thread starts when its creator's Op::Create runs (and is then
            // counted as spawned).
            if spec.created_by.is_none() {
                sched.events.push(spec.delay_ns, Event::TaskStart(id));
                live_tasks += 1;
            }
        }
        Ok(Simulation {
            sched,
            live_tasks,
            workload,
            reports: Vec::new(),
            interp,
            events_processed: 0,
            events_by_kind: [0; Event::KIND_NAMES.len()],
            batch_failed_spins: true,
            failed_spins_batched: 0,
            stop_at: duration.unwrap_or(DEFAULT_CAP_NS),
        })
    }

    /// How many distinct program copies the tasks run (equal programs share one).
    pub fn program_copies(&self) -> usize {
        self.interp.program_copies()
    }

    /// What the programs counted and logged (`Op::Count`, `Op::Record`).
    pub fn probes(&self) -> &Probes {
        &self.interp.probes
    }

    /// Check invariants after every `n`th event (1 in tests).
    pub fn set_invariant_every(&mut self, n: u64) {
        self.sched.cfg.invariant_every = n.max(1);
    }

    /// Run to the stop time (or until every task exited), then settle the accounting.
    pub fn run(&mut self) -> StopReason {
        let reason = self.run_until(self.stop_at);
        if reason == StopReason::TimeLimit {
            self.sched.now = self.stop_at;
        }
        self.sched.finish_accounting();
        self.sched.check_invariants();
        for msg in std::mem::take(&mut self.interp.stuck) {
            self.sched.violation(msg);
        }
        reason
    }

    /// Process every event at or before `until` (tests step through a run with this).
    pub fn run_until(&mut self, until: Ns) -> StopReason {
        let every = self.sched.cfg.invariant_every;
        // The first multiple of `every` ahead: a comparison an event, not two divisions.
        let next_check = |done: u64| (done / every + 1).saturating_mul(every);
        let mut check_at = next_check(self.events_processed);
        while self.live_tasks > 0 {
            let Some((at, ev)) = self.sched.events.pop_until(until) else {
                return StopReason::TimeLimit;
            };
            if at < self.sched.now {
                self.sched
                    .violation(format!("time went backwards: {at} < {}", self.sched.now));
            }
            self.sched.now = at;
            let n = match self.take_failed_spins(ev, until) {
                Some(n) => n,
                None => {
                    self.dispatch(ev);
                    self.sched.process_resched();
                    self.sched.settle_deferred_stalls();
                    1
                }
            };
            // Batched spin retries are the work completions they stand for.
            self.events_by_kind[ev.kind()] += n;
            self.events_processed += n;
            if self.events_processed >= check_at {
                self.sched.check_invariants();
                check_at = next_check(self.events_processed);
            }
        }
        StopReason::AllExited
    }

    /// A task spinning on a per-CPU lock held by another task retries every
    /// SPIN_QUANTUM_NS, each retry an event that only re-arms the next; the lock cannot
    /// change hands before another event runs, so the retries due until then are taken
    /// in one step, counted as the events they were. `None`: not such a retry.
    fn take_failed_spins(&mut self, ev: Event, until: Ns) -> Option<u64> {
        let Event::WorkDone(cpu) = ev else {
            return None;
        };
        if !self.batch_failed_spins {
            return None;
        }
        let p = self.sched.rqs[cpu].curr?;
        if !self.interp.spin_retry_fails(p, cpu) {
            return None;
        }
        match self
            .sched
            .take_failed_spin_retries(cpu, SPIN_QUANTUM_NS, until)
        {
            0 => None,
            n => {
                self.failed_spins_batched += n;
                Some(n)
            }
        }
    }

    /// Move the clock to `t` without an event (tests that act on the model directly).
    pub fn advance_clock(&mut self, t: Ns) {
        self.run_until(t);
        self.sched.now = self.sched.now.max(t);
    }

    /// The CPU whose interrupt, IPI or syscall an event is (its return to user mode
    /// honours a pending lazy resched request).
    fn event_cpu(&self, ev: Event) -> Option<CpuId> {
        match ev {
            Event::TaskStart(p) | Event::TimerWake(p) | Event::DlTimer(p) => {
                Some(self.sched.tasks[p].cpu)
            }
            Event::WakeArrive { cpu, .. }
            | Event::WorkDone(cpu)
            | Event::Tick(cpu)
            | Event::HrTick(cpu)
            | Event::Stopper(cpu)
            | Event::NohzKick(cpu)
            | Event::ReschedIpi(cpu)
            | Event::DlServerTimer(cpu) => Some(cpu),
            Event::FreqChange(_)
            | Event::CfsPeriod(_)
            | Event::RtPeriod
            | Event::HintTimeout(_) => None,
        }
    }

    fn dispatch(&mut self, ev: Event) {
        let event_cpu = self.event_cpu(ev);
        self.sched.event_cpu = event_cpu;
        let s = &mut self.sched;
        match ev {
            Event::TaskStart(p) => {
                let st = &mut self.interp.progs[p];
                if !st.start_fixed {
                    st.start = s.now;
                }
                s.wake_up_new_task(p);
            }
            Event::WorkDone(cpu) => {
                let p = s.rqs[cpu].curr.expect("work completes on a busy CPU");
                if self.interp.advance(s, &self.workload, p, cpu) == Step::Exited {
                    self.live_tasks -= 1;
                }
                // Tasks the program forked are live until they exit.
                self.live_tasks += std::mem::take(&mut self.interp.spawned);
            }
            Event::TimerWake(p) => {
                if s.tasks[p].state == TaskState::Sleeping {
                    let cpu = s.tasks[p].cpu;
                    s.try_to_wake_up(p, 0, cpu);
                }
            }
            Event::WakeArrive { task, cpu } => s.wake_arrive(task, cpu),
            Event::Tick(cpu) => s.sched_tick(cpu),
            Event::HrTick(cpu) => s.hrtick(cpu),
            Event::FreqChange(d) => s.apply_freq_change(d),
            Event::Stopper(cpu) => s.active_load_balance_cpu_stop(cpu),
            Event::NohzKick(cpu) => s.nohz_csd_func(cpu),
            Event::CfsPeriod(tg) => s.cfs_period_timer(tg),
            Event::ReschedIpi(cpu) => s.resched_ipi(cpu),
            Event::RtPeriod => s.sched_rt_period_timer(),
            Event::DlTimer(p) => s.dl_task_timer(p),
            Event::DlServerTimer(cpu) => s.dl_server_timer(cpu),
            Event::HintTimeout(obj) => self.interp.hint_timeout(s, obj),
        }
        if let Some(cpu) = event_cpu {
            self.sched.return_to_user(cpu);
        }
    }
}
