//! The core's calls into the scheduling classes (kernel/sched/core.c: enqueue_task,
//! dequeue_task, __pick_next_task, put_prev_set_next_task, wakeup_preempt, sched_tick's
//! task_tick, do_sched_yield), dispatched on the task's class: deadline above real-time
//! above fair (docs/model.md, Real-time and deadline classes).

use super::uapi::SchedClass;
use super::{Sched, TaskId};
use crate::machine::CpuId;

impl Sched {
    /// enqueue_task.
    pub fn enqueue_task(&mut self, cpu: CpuId, p: TaskId, flags: u32) {
        match self.tasks[p].class() {
            SchedClass::Fair => {
                self.enqueue_task_fair(cpu, p, flags);
                // The fair class became runnable: dl_server_start.
                self.dl_server_sync(cpu);
            }
            SchedClass::Rt => {
                self.enqueue_task_rt(cpu, p, flags);
                // inc_rt_group → start_rt_bandwidth.
                self.start_rt_bandwidth();
            }
            SchedClass::Dl => self.enqueue_task_dl(cpu, p, flags),
        }
    }

    /// dequeue_task; false if a fair task's dequeue was delayed.
    pub fn dequeue_task(&mut self, cpu: CpuId, p: TaskId, flags: u32) -> bool {
        match self.tasks[p].class() {
            SchedClass::Fair => {
                let done = self.dequeue_task_fair(cpu, p, flags);
                // No fair task left: dl_server_stop (v6.12 – v6.16's dequeue_task_fair).
                self.dl_server_sync(cpu);
                return done;
            }
            SchedClass::Rt => self.dequeue_task_rt(cpu, p, flags),
            SchedClass::Dl => self.dequeue_task_dl(cpu, p, flags),
        }
        self.tasks[p].on_rq = false;
        true
    }

    /// add_nr_running / sub_nr_running for the classes that count one task at a time.
    pub(crate) fn add_nr_running(&mut self, cpu: CpuId, n: u32) {
        let rq = &mut self.rqs[cpu];
        let before = rq.nr_running;
        rq.nr_running += n;
        // A second runnable task overloads the root domain (set_rd_overloaded).
        if before < 2 && rq.nr_running >= 2 {
            self.set_rd_overloaded(cpu, true);
        }
    }

    pub(crate) fn sub_nr_running(&mut self, cpu: CpuId, n: u32) {
        self.rqs[cpu].nr_running -= n;
    }

    /// __pick_next_task with put_prev_set_next_task: the balance step of prev's class
    /// (an RT or DL prev that left pulls work of its class), then the first class with a
    /// task: deadline, real-time, fair (which balances newly idle when it has nothing
    /// either). When the fair deadline server is the earliest DL entity, the fair class
    /// picks (the server's server_pick_task) and its task runs ahead of RT tasks; if it
    /// finds none, the server stops and the pick goes on (__pick_task_dl).
    pub(crate) fn pick_next_task(&mut self, cpu: CpuId, prev: Option<TaskId>) -> Option<TaskId> {
        let prev_class = prev.map(|p| self.tasks[p].class());
        match (prev, prev_class) {
            (Some(p), Some(SchedClass::Rt)) => self.balance_rt(cpu, p),
            (Some(p), Some(SchedClass::Dl)) => self.balance_dl(cpu, p),
            _ => {}
        }
        self.dl_server_sync(cpu);
        self.rqs[cpu].dl.dl_server_running = false;
        let server = matches!(self.pick_task_dl(cpu), Some(super::dl::DlSe::Server(_)));
        let high = if server {
            None
        } else {
            self.pick_next_task_dl(cpu)
                .or_else(|| self.pick_next_task_rt(cpu))
        };
        let Some(next) = high else {
            // The fair class puts a fair prev itself.
            let fair_prev = prev.filter(|_| prev_class == Some(SchedClass::Fair));
            if let Some(p) = prev.filter(|_| fair_prev.is_none()) {
                self.put_prev_task(cpu, p);
            }
            let next = self.pick_next_task_fair(cpu, fair_prev);
            if next.is_none() {
                // Going idle with no fair task left: the server stops.
                self.dl_server_sync(cpu);
            }
            if !server || next.is_some() {
                self.rqs[cpu].dl.dl_server_running = server;
                return next;
            }
            // The server found no fair task: dl_server_stop, and pick again (prev is put).
            self.dl_server_stop(cpu);
            let next = self
                .pick_next_task_dl(cpu)
                .or_else(|| self.pick_next_task_rt(cpu))?;
            match self.tasks[next].class() {
                SchedClass::Dl => self.set_next_task_dl(cpu, next, false),
                _ => self.set_next_task_rt(cpu, next, false),
            }
            return Some(next);
        };
        if Some(next) != prev {
            if let Some(p) = prev {
                self.put_prev_task(cpu, p);
            }
            match self.tasks[next].class() {
                SchedClass::Dl => {
                    self.set_next_task_dl(cpu, next, prev_class == Some(SchedClass::Dl))
                }
                _ => self.set_next_task_rt(cpu, next, prev_class == Some(SchedClass::Rt)),
            }
        }
        Some(next)
    }

    /// set_next_task: the task becomes the running one of its class (after a class change).
    pub(crate) fn set_next_task(&mut self, cpu: CpuId, p: TaskId) {
        match self.tasks[p].class() {
            SchedClass::Fair => self.set_next_task_fair(p, true),
            SchedClass::Rt => self.set_next_task_rt(cpu, p, false),
            SchedClass::Dl => self.set_next_task_dl_restore(cpu, p),
        }
    }

    /// put_prev_task.
    pub(crate) fn put_prev_task(&mut self, cpu: CpuId, p: TaskId) {
        match self.tasks[p].class() {
            SchedClass::Fair => self.put_prev_task_fair(p),
            SchedClass::Rt => self.put_prev_task_rt(cpu, p),
            SchedClass::Dl => self.put_prev_task_dl(cpu, p),
        }
    }

    /// wakeup_preempt (core): an idle CPU always reschedules; a task of a higher class
    /// preempts at once; within a class the class decides.
    pub(crate) fn wakeup_preempt(&mut self, cpu: CpuId, p: TaskId, wake_flags: u32) {
        let Some(curr) = self.rqs[cpu].curr else {
            self.resched_curr(cpu);
            return;
        };
        let (pc, cc) = (self.tasks[p].class(), self.tasks[curr].class());
        if pc == cc {
            match pc {
                SchedClass::Fair => self.wakeup_preempt_fair(cpu, p, wake_flags),
                SchedClass::Rt => self.wakeup_preempt_rt(cpu, p),
                SchedClass::Dl => self.wakeup_preempt_dl(cpu, p),
            }
        } else if pc > cc {
            self.resched_curr(cpu);
        }
    }

    /// task_woken: the class's follow-up once a woken task is queued (RT pushes it if it
    /// waits behind a real-time task that will not yield).
    pub(crate) fn task_woken(&mut self, cpu: CpuId, p: TaskId) {
        match self.tasks[p].class() {
            SchedClass::Rt => self.task_woken_rt(cpu, p),
            SchedClass::Dl => self.task_woken_dl(cpu, p),
            SchedClass::Fair => {}
        }
    }

    /// The class's task_tick for the running task.
    pub(crate) fn task_tick(&mut self, cpu: CpuId, p: TaskId) {
        self.dl_server_sync(cpu);
        match self.tasks[p].class() {
            SchedClass::Fair => self.task_tick_fair(cpu, false),
            SchedClass::Rt => self.task_tick_rt(cpu, p),
            SchedClass::Dl => self.task_tick_dl(cpu, p),
        }
    }

    /// The class's yield_task for the running task.
    pub(crate) fn yield_task(&mut self, cpu: CpuId, p: TaskId) {
        match self.tasks[p].class() {
            SchedClass::Fair => self.yield_task_fair(cpu),
            SchedClass::Rt => self.yield_task_rt(cpu, p),
            SchedClass::Dl => self.yield_task_dl(cpu, p),
        }
    }

    /// update_curr_common for the RT and DL classes: the running task's runtime since
    /// exec_start goes to its sum_exec_runtime; returns the task and the delta (None when
    /// idle or nothing elapsed).
    pub(crate) fn update_curr_common(&mut self, cpu: CpuId) -> Option<(TaskId, crate::time::Ns)> {
        let p = self.rqs[cpu].curr?;
        let se = self.tasks[p].se as usize;
        let delta = self.now.saturating_sub(self.entities[se].exec_start);
        if delta == 0 {
            return None;
        }
        let e = &mut self.entities[se];
        e.sum_exec_runtime += delta;
        e.exec_start = self.now;
        Some((p, delta))
    }

    /// Charge the running task's runtime up to now (update_curr of its class).
    pub(crate) fn update_curr_of(&mut self, cpu: CpuId, p: TaskId) {
        match self.tasks[p].class() {
            SchedClass::Fair => {
                let mut cur = Some(self.tasks[p].se);
                while let Some(e) = cur {
                    let c = self.entities[e as usize].cfs_rq;
                    self.update_curr(c);
                    cur = self.entities[e as usize].parent;
                }
            }
            SchedClass::Rt => self.update_curr_rt(cpu),
            SchedClass::Dl => self.update_curr_dl(cpu),
        }
    }
}
