//! The deadline class's task hooks as the core calls them (kernel/sched/deadline.c).

use crate::machine::CpuId;
use crate::sched::{Sched, TaskId};

impl Sched {
    /// enqueue_task_dl: a new instance (deadline from now) when the old one is over.
    pub(crate) fn enqueue_task_dl(&mut self, cpu: CpuId, p: TaskId, _flags: u32) {
        self.uclamp_rq_inc(cpu, p);
        let now = self.now;
        let dl_rq = &mut self.rqs[cpu].dl;
        dl_rq.seq += 1;
        let seq = dl_rq.seq;
        let e = self.tasks[p]
            .dl
            .as_mut()
            .expect("a deadline task has a dl entity");
        if e.deadline <= now || e.runtime <= 0 {
            e.deadline = now + e.dl_deadline;
            e.runtime = e.dl_runtime as i64;
        }
        e.key = (e.deadline, seq);
        e.on_rq = true;
        let key = e.key;
        let dl_rq = &mut self.rqs[cpu].dl;
        dl_rq.root.insert(key, p);
        dl_rq.dl_nr_running += 1;
        self.add_nr_running(cpu, 1);
    }

    /// dequeue_task_dl.
    pub(crate) fn dequeue_task_dl(&mut self, cpu: CpuId, p: TaskId, _flags: u32) {
        if self.rqs[cpu].curr == Some(p) {
            self.update_curr_dl(cpu);
        }
        let e = self.tasks[p]
            .dl
            .as_mut()
            .expect("a deadline task has a dl entity");
        if !e.on_rq {
            return;
        }
        e.on_rq = false;
        let key = e.key;
        let dl_rq = &mut self.rqs[cpu].dl;
        dl_rq.root.remove(&key);
        dl_rq.dl_nr_running -= 1;
        self.sub_nr_running(cpu, 1);
        self.uclamp_rq_dec(cpu, p);
    }

    /// pick_next_task_dl: the earliest deadline.
    pub(crate) fn pick_next_task_dl(&self, cpu: CpuId) -> Option<TaskId> {
        self.rqs[cpu].dl.root.values().next().copied()
    }

    /// set_next_task_dl.
    pub(crate) fn set_next_task_dl(&mut self, _cpu: CpuId, p: TaskId) {
        let se = self.tasks[p].se as usize;
        self.entities[se].exec_start = self.now;
    }

    /// put_prev_task_dl.
    pub(crate) fn put_prev_task_dl(&mut self, cpu: CpuId, _p: TaskId) {
        self.update_curr_dl(cpu);
    }

    /// update_curr_dl: charge the runtime used since exec_start.
    pub(crate) fn update_curr_dl(&mut self, cpu: CpuId) {
        let Some((p, delta)) = self.update_curr_common(cpu) else {
            return;
        };
        if let Some(e) = self.tasks[p].dl.as_mut() {
            e.runtime -= delta as i64;
        }
    }

    /// wakeup_preempt_dl: an earlier deadline preempts.
    pub(crate) fn wakeup_preempt_dl(&mut self, cpu: CpuId, p: TaskId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let (a, b) = (
            self.tasks[p].dl.as_ref().map_or(u64::MAX, |e| e.deadline),
            self.tasks[curr]
                .dl
                .as_ref()
                .map_or(u64::MAX, |e| e.deadline),
        );
        if a < b {
            self.resched_curr(cpu);
        }
    }

    /// task_tick_dl.
    pub(crate) fn task_tick_dl(&mut self, cpu: CpuId, _p: TaskId) {
        self.update_curr_dl(cpu);
    }

    /// yield_task_dl.
    pub(crate) fn yield_task_dl(&mut self, _cpu: CpuId, _p: TaskId) {}

    /// select_task_rq_dl.
    pub(crate) fn select_task_rq_dl(
        &mut self,
        p: TaskId,
        _wake_flags: u32,
        _this_cpu: CpuId,
    ) -> CpuId {
        self.tasks[p].cpu
    }
}

impl Sched {
    /// cpu_bw_dl: the deadline bandwidth admitted on the CPU, in capacity units.
    pub(crate) fn cpu_bw_dl(&self, _cpu: CpuId) -> u64 {
        0
    }
}

impl Sched {
    /// dl_task_timer: the replenishment timer of a throttled deadline task.
    pub fn dl_task_timer(&mut self, _p: TaskId) {}
}
