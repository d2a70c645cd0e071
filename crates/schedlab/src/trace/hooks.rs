//! The hook methods the kernel model calls at its event points. Each public hook is an
//! inlined `if self.tracer.is_some()` around a cold function, so a call site is one line
//! and an untraced run pays one predictable branch. Hooks read the model, never change it.

use super::event::{prev_state, Payload, TaskRef};
use super::select::EventKind;
use super::Tracer;
use crate::machine::CpuId;
use crate::sched::{Sched, TaskId, TaskState};

impl Sched {
    #[inline(always)]
    pub fn trace_switch(
        &mut self,
        cpu: CpuId,
        prev: Option<TaskId>,
        next: Option<TaskId>,
        preempt: bool,
    ) {
        if self.tracer.is_some() {
            self.trace_switch_on(cpu, prev, next, preempt);
        }
    }

    #[inline(always)]
    pub fn trace_yield(&mut self, cpu: CpuId) {
        if self.tracer.is_some() {
            self.trace_yield_on(cpu);
        }
    }

    #[inline(always)]
    pub fn trace_waking(&mut self, p: TaskId, waking_cpu: CpuId) {
        if self.tracer.is_some() {
            self.trace_waking_on(p, waking_cpu);
        }
    }

    #[inline(always)]
    pub fn trace_wakeup(&mut self, p: TaskId, cpu: CpuId, new: bool) {
        if self.tracer.is_some() {
            self.trace_wakeup_on(p, cpu, new);
        }
    }

    #[inline(always)]
    pub fn trace_migrate(&mut self, p: TaskId, dest: CpuId) {
        if self.tracer.is_some() {
            self.trace_migrate_on(p, dest);
        }
    }

    #[inline(always)]
    pub fn trace_exit(&mut self, cpu: CpuId) {
        if self.tracer.is_some() {
            self.trace_exit_on(cpu);
        }
    }

    #[inline(always)]
    pub fn trace_freq(&mut self, d: usize) {
        if self.tracer.is_some() {
            self.trace_freq_on(d);
        }
    }

    #[inline(always)]
    pub fn trace_tick(&mut self, cpu: CpuId) {
        if self.tracer.is_some() {
            self.trace_tick_on(cpu);
        }
    }

    /// Run `f` with the tracer taken out of the model, if the window is open.
    fn with_tracer(&mut self, f: impl FnOnce(&mut Tracer, &Sched)) {
        if let Some(mut t) = self.tracer.take() {
            if t.active(self) {
                f(&mut t, self);
            }
            self.tracer = Some(t);
        }
    }

    fn task_ref(&self, p: TaskId) -> TaskRef {
        TaskRef {
            id: p as u32,
            prio: 120 + self.tasks[p].nice,
        }
    }

    fn task_or_idle(&self, p: Option<TaskId>) -> TaskRef {
        p.map_or(TaskRef::IDLE, |p| self.task_ref(p))
    }

    /// sched_switch, from __schedule before the switch (rq.curr is still `prev`).
    /// `preempt`: the switch is a preemption (prev stays runnable).
    #[cold]
    #[inline(never)]
    fn trace_switch_on(
        &mut self,
        cpu: CpuId,
        prev: Option<TaskId>,
        next: Option<TaskId>,
        preempt: bool,
    ) {
        self.with_tracer(|t, s| {
            let now = s.now;
            if prev.is_none() {
                t.exit_idle(s, cpu);
            }
            if t.wants(EventKind::SchedSwitch) {
                let yielded = t.yield_at[cpu] == Some(now);
                let state = match prev.map(|p| (&s.tasks[p].state, s.tasks[p].in_iowait)) {
                    None => prev_state::RUNNING,
                    Some((TaskState::Sleeping, true)) => prev_state::UNINTERRUPTIBLE,
                    Some((TaskState::Sleeping, false)) => prev_state::SLEEPING,
                    Some((TaskState::Dead, _)) => prev_state::ZOMBIE,
                    Some(_) if preempt && !yielded => prev_state::PREEMPTED,
                    Some(_) => prev_state::RUNNING,
                };
                let payload = Payload::Switch {
                    prev: s.task_or_idle(prev),
                    prev_state: state,
                    next: s.task_or_idle(next),
                };
                t.push(s, cpu, payload);
            }
            t.yield_at[cpu] = None;
            if t.counters.enabled() {
                t.counters.sample_cpu(s, cpu);
                for p in [prev, next].into_iter().flatten() {
                    t.counters.sample_task(s, p);
                }
                t.push_counters(s, now, cpu);
            }
            if next.is_none() {
                t.enter_idle(cpu, now, now);
            }
        });
    }

    /// sched_yield() on `cpu`: its switch (if any) reports `R`, not `R+`.
    #[cold]
    #[inline(never)]
    fn trace_yield_on(&mut self, cpu: CpuId) {
        let now = self.now;
        if let Some(t) = self.tracer.as_mut() {
            t.yield_at[cpu] = Some(now);
        }
    }

    /// sched_waking, at the start of try_to_wake_up on the waking CPU.
    #[cold]
    #[inline(never)]
    fn trace_waking_on(&mut self, p: TaskId, waking_cpu: CpuId) {
        self.with_tracer(|t, s| {
            if t.wants(EventKind::SchedWaking) {
                let target_cpu = s.tasks[p].cpu as u32;
                let task = s.task_ref(p);
                t.push(s, waking_cpu, Payload::Waking { task, target_cpu });
            }
        });
    }

    /// sched_wakeup / sched_wakeup_new, once the task is enqueued on `cpu`.
    #[cold]
    #[inline(never)]
    fn trace_wakeup_on(&mut self, p: TaskId, cpu: CpuId, new: bool) {
        self.with_tracer(|t, s| {
            let kind = if new {
                EventKind::SchedWakeupNew
            } else {
                EventKind::SchedWakeup
            };
            if t.wants(kind) {
                let task = s.task_ref(p);
                let target_cpu = cpu as u32;
                let payload = if new {
                    Payload::WakeupNew { task, target_cpu }
                } else {
                    Payload::Wakeup { task, target_cpu }
                };
                t.push(s, cpu, payload);
            }
        });
    }

    /// sched_migrate_task, from set_task_cpu before the task's CPU changes (fork placement
    /// is not a migration, as in the kernel's __set_task_cpu).
    #[cold]
    #[inline(never)]
    fn trace_migrate_on(&mut self, p: TaskId, dest: CpuId) {
        let orig = self.tasks[p].cpu;
        if orig == dest || self.tasks[p].state == TaskState::New {
            return;
        }
        self.with_tracer(|t, s| {
            if t.wants(EventKind::SchedMigrateTask) {
                let payload = Payload::Migrate {
                    task: s.task_ref(p),
                    orig_cpu: orig as u32,
                    dest_cpu: dest as u32,
                };
                t.push(s, dest, payload);
            }
        });
    }

    /// sched_process_exit, in do_exit before the final schedule().
    #[cold]
    #[inline(never)]
    fn trace_exit_on(&mut self, cpu: CpuId) {
        self.with_tracer(|t, s| {
            if let (true, Some(p)) = (t.wants(EventKind::SchedProcessExit), s.rqs[cpu].curr) {
                let task = s.task_ref(p);
                t.push(s, cpu, Payload::Exit { task });
            }
        });
    }

    /// cpu_frequency for every CPU of frequency domain `d`, after its change.
    #[cold]
    #[inline(never)]
    fn trace_freq_on(&mut self, d: usize) {
        self.with_tracer(|t, s| {
            let khz = s.machine.freq_domains[d].cur_khz;
            for &cpu in &s.machine.freq_domains[d].cpus {
                if t.wants(EventKind::CpuFrequency) {
                    let cpu_id = cpu as u32;
                    t.push(s, cpu, Payload::Frequency { khz, cpu_id });
                }
                if t.counters.enabled() {
                    t.counters.sample_freq(s, cpu);
                    t.push_counters(s, s.now, cpu);
                }
            }
        });
    }

    /// The scheduler tick of a busy CPU: a counter sampling point.
    #[cold]
    #[inline(never)]
    fn trace_tick_on(&mut self, cpu: CpuId) {
        self.with_tracer(|t, s| {
            if t.counters.enabled() {
                t.counters.sample_cpu(s, cpu);
                if let Some(p) = s.rqs[cpu].curr {
                    t.counters.sample_task(s, p);
                }
                t.push_counters(s, s.now, cpu);
            }
        });
    }
}
