//! Tracepoints (include/trace/events/sched.h, power.h): the points where observers — trace
//! writers, statistics — see the model. An observer reads the model and never changes
//! it, so an observed run is the same run, event for event (docs/architecture.md).

use super::{Sched, TaskId};
use crate::machine::CpuId;
use std::any::Any;

/// Tracepoint bits for [`SchedObserver::tracepoints`].
pub mod tp {
    pub const SWITCH: u32 = 1 << 0;
    pub const WAKING: u32 = 1 << 1;
    pub const WAKEUP: u32 = 1 << 2;
    pub const MIGRATE: u32 = 1 << 3;
    pub const EXIT: u32 = 1 << 4;
    pub const FREQUENCY: u32 = 1 << 5;
    pub const TICK: u32 = 1 << 6;
    pub const ALL: u32 = (1 << 7) - 1;
}

/// What an observer can attach to. Every method has an empty default.
pub trait SchedObserver: Any {
    /// The tracepoints this observer implements (`tp::*` bits); the others are not
    /// called, so an unobserved tracepoint costs one branch.
    fn tracepoints(&self) -> u32 {
        tp::ALL
    }

    /// sched_switch, from __schedule before the switch (rq.curr is still `prev`);
    /// `preempt`: prev stays runnable.
    fn sched_switch(
        &mut self,
        _s: &Sched,
        _cpu: CpuId,
        _prev: Option<TaskId>,
        _next: Option<TaskId>,
        _preempt: bool,
    ) {
    }
    /// sched_waking, at the start of try_to_wake_up on the waking CPU.
    fn sched_waking(&mut self, _s: &Sched, _p: TaskId, _waking_cpu: CpuId) {}
    /// sched_wakeup / sched_wakeup_new (`new`), once the task is enqueued on `cpu`.
    fn sched_wakeup(&mut self, _s: &Sched, _p: TaskId, _cpu: CpuId, _new: bool) {}
    /// sched_migrate_task, from set_task_cpu before the task's CPU changes.
    fn sched_migrate_task(&mut self, _s: &Sched, _p: TaskId, _dest: CpuId) {}
    /// sched_process_exit, in do_exit before the final schedule().
    fn sched_process_exit(&mut self, _s: &Sched, _cpu: CpuId) {}
    /// cpu_frequency, after frequency domain `domain` changed.
    fn cpu_frequency(&mut self, _s: &Sched, _domain: usize) {}
    /// sched_tick on a busy CPU.
    fn sched_tick(&mut self, _s: &Sched, _cpu: CpuId) {}
}

impl Sched {
    /// Attach an observer; it sees every tracepoint from now on.
    pub fn attach_observer(&mut self, o: Box<dyn SchedObserver>) {
        self.observed |= o.tracepoints();
        self.observers.push(o);
    }

    /// The attached observer of type `T`, if any.
    pub fn observer<T: SchedObserver>(&self) -> Option<&T> {
        self.observers
            .iter()
            .find_map(|o| (o.as_ref() as &dyn Any).downcast_ref::<T>())
    }

    /// Detach and return the observer of type `T`.
    pub fn detach_observer<T: SchedObserver>(&mut self) -> Option<Box<T>> {
        let i = self
            .observers
            .iter()
            .position(|o| (o.as_ref() as &dyn Any).is::<T>())?;
        let o: Box<dyn Any> = self.observers.remove(i);
        self.observed = self.observers.iter().fold(0, |m, o| m | o.tracepoints());
        o.downcast::<T>().ok()
    }

    /// Call `f` on every observer with the model read-only.
    #[inline(never)]
    fn notify(&mut self, f: impl Fn(&mut dyn SchedObserver, &Sched)) {
        let mut obs = std::mem::take(&mut self.observers);
        for o in obs.iter_mut() {
            f(o.as_mut(), self);
        }
        self.observers = obs;
    }

    #[inline(always)]
    pub(crate) fn trace_sched_switch(
        &mut self,
        cpu: CpuId,
        prev: Option<TaskId>,
        next: Option<TaskId>,
        preempt: bool,
    ) {
        if self.observed & tp::SWITCH != 0 {
            self.notify(|o, s| o.sched_switch(s, cpu, prev, next, preempt));
        }
    }

    #[inline(always)]
    pub(crate) fn trace_sched_waking(&mut self, p: TaskId, waking_cpu: CpuId) {
        if self.observed & tp::WAKING != 0 {
            self.notify(|o, s| o.sched_waking(s, p, waking_cpu));
        }
    }

    #[inline(always)]
    pub(crate) fn trace_sched_wakeup(&mut self, p: TaskId, cpu: CpuId, new: bool) {
        if self.observed & tp::WAKEUP != 0 {
            self.notify(|o, s| o.sched_wakeup(s, p, cpu, new));
        }
    }

    #[inline(always)]
    pub(crate) fn trace_sched_migrate_task(&mut self, p: TaskId, dest: CpuId) {
        if self.observed & tp::MIGRATE != 0 {
            self.notify(|o, s| o.sched_migrate_task(s, p, dest));
        }
    }

    #[inline(always)]
    pub(crate) fn trace_sched_process_exit(&mut self, cpu: CpuId) {
        if self.observed & tp::EXIT != 0 {
            self.notify(|o, s| o.sched_process_exit(s, cpu));
        }
    }

    #[inline(always)]
    pub(crate) fn trace_cpu_frequency(&mut self, domain: usize) {
        if self.observed & tp::FREQUENCY != 0 {
            self.notify(|o, s| o.cpu_frequency(s, domain));
        }
    }

    #[inline(always)]
    pub(crate) fn trace_sched_tick(&mut self, cpu: CpuId) {
        if self.observed & tp::TICK != 0 {
            self.notify(|o, s| o.sched_tick(s, cpu));
        }
    }
}
