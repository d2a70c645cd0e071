//! The tracer as an observer of the model's tracepoints (sched/tracepoints.rs). Hooks read
//! the model, never change it; an untraced run attaches no tracer and pays one branch a
//! tracepoint.

use super::event::{prev_state, Payload, TaskRef};
use super::select::EventKind;
use super::Tracer;
use crate::machine::CpuId;
use crate::sched::{Sched, SchedClass, SchedObserver, TaskId, TaskState};

/// The task and its p->prio as the kernel's tracepoints print it: 120 + nice for a fair
/// task, 99 − sched_priority for SCHED_FIFO / SCHED_RR, −1 for SCHED_DEADLINE.
fn task_ref(s: &Sched, p: TaskId) -> TaskRef {
    let t = &s.tasks[p];
    TaskRef {
        id: p as u32,
        prio: match t.policy.class() {
            SchedClass::Fair => 120 + t.nice,
            SchedClass::Rt | SchedClass::Dl => t.prio(),
        },
    }
}

fn task_or_idle(s: &Sched, p: Option<TaskId>) -> TaskRef {
    p.map_or(TaskRef::IDLE, |p| task_ref(s, p))
}

impl SchedObserver for Tracer {
    /// sched_switch, from __schedule before the switch (rq.curr is still `prev`).
    /// `preempt`: the switch is a preemption (prev stays runnable).
    fn sched_switch(
        &mut self,
        s: &Sched,
        cpu: CpuId,
        prev: Option<TaskId>,
        next: Option<TaskId>,
        _preempt: bool,
    ) {
        if !self.active(s) {
            return;
        }
        let t = self;
        {
            let now = s.now;
            if prev.is_none() {
                t.exit_idle(s, cpu);
            }
            if t.wants(EventKind::SchedSwitch) {
                // A runnable prev reports R: user-mode tasks are switched out on their
                // return to user mode (__schedule(SM_NONE)); the kernel prints R+ only
                // for preemption of kernel code, which this model does not have.
                let state = match prev.map(|p| (&s.tasks[p].state, s.tasks[p].in_iowait)) {
                    None => prev_state::RUNNING,
                    Some((TaskState::Sleeping, true)) => prev_state::UNINTERRUPTIBLE,
                    Some((TaskState::Sleeping, false)) => prev_state::SLEEPING,
                    Some((TaskState::Dead, _)) => prev_state::ZOMBIE,
                    Some(_) => prev_state::RUNNING,
                };
                let payload = Payload::Switch {
                    prev: task_or_idle(s, prev),
                    prev_state: state,
                    next: task_or_idle(s, next),
                };
                t.push(s, cpu, payload);
            }
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
        }
    }

    /// sched_waking, at the start of try_to_wake_up on the waking CPU.
    fn sched_waking(&mut self, s: &Sched, p: TaskId, waking_cpu: CpuId) {
        if !self.active(s) {
            return;
        }
        let t = self;
        {
            if t.wants(EventKind::SchedWaking) {
                let target_cpu = s.tasks[p].cpu as u32;
                let task = task_ref(s, p);
                t.push(s, waking_cpu, Payload::Waking { task, target_cpu });
            }
        }
    }

    /// sched_wakeup / sched_wakeup_new, once the task is enqueued on `cpu`.
    fn sched_wakeup(&mut self, s: &Sched, p: TaskId, cpu: CpuId, new: bool) {
        if !self.active(s) {
            return;
        }
        let t = self;
        {
            let kind = if new {
                EventKind::SchedWakeupNew
            } else {
                EventKind::SchedWakeup
            };
            if t.wants(kind) {
                let task = task_ref(s, p);
                let target_cpu = cpu as u32;
                let payload = if new {
                    Payload::WakeupNew { task, target_cpu }
                } else {
                    Payload::Wakeup { task, target_cpu }
                };
                t.push(s, cpu, payload);
            }
        }
    }

    /// sched_migrate_task, from set_task_cpu before the task's CPU changes (fork placement
    /// is not a migration, as in the kernel's __set_task_cpu).
    fn sched_migrate_task(&mut self, s: &Sched, p: TaskId, dest: CpuId) {
        let orig = s.tasks[p].cpu;
        if orig == dest || s.tasks[p].state == TaskState::New {
            return;
        }
        if !self.active(s) {
            return;
        }
        let t = self;
        {
            if t.wants(EventKind::SchedMigrateTask) {
                let payload = Payload::Migrate {
                    task: task_ref(s, p),
                    orig_cpu: orig as u32,
                    dest_cpu: dest as u32,
                };
                t.push(s, dest, payload);
            }
        }
    }

    /// sched_process_exit, in do_exit before the final schedule().
    fn sched_process_exit(&mut self, s: &Sched, cpu: CpuId) {
        if !self.active(s) {
            return;
        }
        let t = self;
        {
            if let (true, Some(p)) = (t.wants(EventKind::SchedProcessExit), s.rqs[cpu].curr) {
                let task = task_ref(s, p);
                t.push(s, cpu, Payload::Exit { task });
            }
        }
    }

    /// cpu_frequency for every CPU of frequency domain `d`, after its change.
    fn cpu_frequency(&mut self, s: &Sched, d: usize) {
        if !self.active(s) {
            return;
        }
        let t = self;
        {
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
        }
    }

    /// The scheduler tick of a busy CPU: a counter sampling point.
    fn sched_tick(&mut self, s: &Sched, cpu: CpuId) {
        if !self.active(s) {
            return;
        }
        let t = self;
        {
            if t.counters.enabled() {
                t.counters.sample_cpu(s, cpu);
                if let Some(p) = s.rqs[cpu].curr {
                    t.counters.sample_task(s, p);
                }
                t.push_counters(s, s.now, cpu);
            }
        }
    }
}
