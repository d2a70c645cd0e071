//! Deadline balancing across CPUs (kernel/sched/deadline.c, cpudeadline.c): where a
//! waking deadline task goes (select_task_rq_dl, find_later_rq over cpudl: a CPU without
//! deadline tasks, else the one whose earliest deadline is latest), pushing a waiting
//! task to a CPU where it would run earlier, pulling one when a CPU's deadline work
//! drops, and the overload mask (dlo_mask: CPUs with pushable tasks).

use super::class::dl_time_before;
use super::{cap_scale, DlSe};
use crate::machine::CpuId;
use crate::sched::fair::class::wf;
use crate::sched::fair::dequeue;
use crate::sched::topology::cpumask::CpuMask;
use crate::sched::uapi::SchedClass;
use crate::sched::{Sched, TaskId};

impl Sched {
    /// dl_task_fits_capacity: on asymmetric machines, cap_scale(dl_deadline, capacity) ≥
    /// dl_runtime.
    pub(crate) fn dl_task_fits_capacity(&self, p: TaskId, cpu: CpuId) -> bool {
        let Some(e) = self.tasks[p].dl.as_deref() else {
            return true;
        };
        let cap = self.arch_scale_cpu_capacity(cpu);
        cap_scale(e.dl_deadline, cap) >= e.dl_runtime
    }

    /// cpudl_find: the allowed CPUs with no deadline task (free_cpus; on asymmetric
    /// machines those the task fits, else the biggest misfit); else the CPU whose
    /// earliest deadline is the latest (cpudl_maximum) if the task is allowed there and
    /// its deadline is earlier.
    pub(crate) fn cpudl_find(&self, p: TaskId) -> Option<CpuMask> {
        let n = self.machine.nr_cpus();
        let allowed = &self.tasks[p].cpus_allowed;
        let mut free = CpuMask::from_cpus(
            n,
            (0..n).filter(|&c| allowed[c] && self.rqs[c].dl.dl_nr_running == 0),
        );
        if !free.is_empty() {
            if !self.sd.sched_asym_cpucapacity {
                return Some(free);
            }
            let (mut max_cap, mut max_cpu) = (0, None);
            for c in free.iter().collect::<Vec<_>>() {
                if !self.dl_task_fits_capacity(p, c) {
                    free.clear(c);
                    let cap = self.arch_scale_cpu_capacity(c);
                    if cap > max_cap || (c == self.tasks[p].cpu && cap == max_cap) {
                        max_cap = cap;
                        max_cpu = Some(c);
                    }
                }
            }
            if free.is_empty() {
                if let Some(c) = max_cpu {
                    free.set(c);
                }
            }
            return Some(free);
        }
        // cpudl_maximum: the latest earliest deadline (the first such CPU on a tie).
        let mut best: Option<(CpuId, u64)> = None;
        for c in 0..n {
            if let Some(d) = self.rqs[c].dl.earliest_dl() {
                if best.is_none_or(|(_, bd)| dl_time_before(bd, d)) {
                    best = Some((c, d));
                }
            }
        }
        let (cpu, dl) = best?;
        let deadline = self.tasks[p].dl.as_deref()?.deadline;
        (allowed[cpu] && dl_time_before(deadline, dl)).then(|| CpuMask::from_cpus(n, [cpu]))
    }

    /// find_later_rq: the task's own CPU if it qualifies, else the calling CPU or a CPU
    /// of the lowest wake-affine domain, else any (distributed).
    pub(crate) fn find_later_rq(&mut self, p: TaskId, this_cpu: CpuId) -> Option<CpuId> {
        if self.tasks[p].nr_cpus_allowed == 1 {
            return None;
        }
        let later = self.cpudl_find(p)?;
        self.pick_from_mask(p, &later, this_cpu)
    }

    /// dl_task_is_earliest_deadline: `p` would be the earliest on `cpu`.
    fn dl_task_is_earliest_deadline(&self, p: TaskId, cpu: CpuId) -> bool {
        let rq = &self.rqs[cpu].dl;
        let d = self.tasks[p].dl.as_deref().map_or(u64::MAX, |e| e.deadline);
        rq.dl_nr_running == 0 || rq.earliest_dl().is_none_or(|e| dl_time_before(d, e))
    }

    /// The deadline of the running task of `cpu` if it is a deadline task.
    fn curr_dl_deadline(&self, cpu: CpuId) -> Option<u64> {
        let c = self.rqs[cpu].curr?;
        if self.tasks[c].class() != SchedClass::Dl {
            return None;
        }
        self.tasks[c].dl.as_deref().map(|e| e.deadline)
    }

    /// select_task_rq_dl: a waking task leaves a CPU whose running deadline task would
    /// not yield to it (or cannot move) for one where it is the earliest; on asymmetric
    /// machines also a CPU it does not fit. Forks and exec stay.
    pub(crate) fn select_task_rq_dl(
        &mut self,
        p: TaskId,
        wake_flags: u32,
        this_cpu: CpuId,
    ) -> CpuId {
        let cpu = self.tasks[p].cpu;
        if wake_flags & wf::TTWU == 0 {
            return cpu;
        }
        let pd = self.tasks[p].dl.as_deref().map_or(u64::MAX, |e| e.deadline);
        let mut select_rq = match (self.rqs[cpu].curr, self.curr_dl_deadline(cpu)) {
            (Some(c), Some(cd)) => {
                (self.tasks[c].nr_cpus_allowed < 2 || !dl_time_before(pd, cd))
                    && self.tasks[p].nr_cpus_allowed > 1
            }
            _ => false,
        };
        if self.sd.sched_asym_cpucapacity {
            select_rq |= !self.dl_task_fits_capacity(p, cpu);
        }
        if select_rq {
            if let Some(target) = self.find_later_rq(p, this_cpu) {
                if self.dl_task_is_earliest_deadline(p, target) {
                    return target;
                }
            }
        }
        cpu
    }

    /// enqueue_pushable_dl_task: the CPU becomes DL-overloaded (dl_set_overload).
    pub(crate) fn enqueue_pushable_dl_task(&mut self, cpu: CpuId, p: TaskId) {
        self.dequeue_pushable_dl_task(cpu, p);
        let dl = &mut self.rqs[cpu].dl;
        dl.seq += 1;
        let key = (
            self.tasks[p].dl.as_deref().map_or(0, |e| e.deadline),
            dl.seq,
        );
        dl.pushable.insert(key, p);
        dl.overloaded = true;
        if let Some(e) = self.tasks[p].dl.as_deref_mut() {
            e.push_key = Some(key);
        }
    }

    /// dequeue_pushable_dl_task: the CPU leaves dlo_mask with its last pushable task.
    pub(crate) fn dequeue_pushable_dl_task(&mut self, cpu: CpuId, p: TaskId) {
        let Some(key) = self.tasks[p]
            .dl
            .as_deref_mut()
            .and_then(|e| e.push_key.take())
        else {
            return;
        };
        let dl = &mut self.rqs[cpu].dl;
        dl.pushable.remove(&key);
        if dl.pushable.is_empty() {
            dl.overloaded = false;
        }
    }

    /// The deadline balance callback queued during a switch (push_dl_tasks).
    pub(crate) fn run_dl_balance_callbacks(&mut self, cpu: CpuId) {
        if std::mem::take(&mut self.rqs[cpu].dl.push_queued) {
            while self.push_dl_task(cpu) {}
        }
    }

    /// push_dl_task: the earliest waiting pushable task goes to a CPU where it would be
    /// the earliest; if it beats the running deadline task here (which could move),
    /// reschedule instead.
    pub(crate) fn push_dl_task(&mut self, cpu: CpuId) -> bool {
        let Some(&next) = self.rqs[cpu].dl.pushable.values().next() else {
            return false;
        };
        let Some(curr) = self.rqs[cpu].curr else {
            return false;
        };
        let nd = self.tasks[next]
            .dl
            .as_deref()
            .map_or(u64::MAX, |e| e.deadline);
        if let Some(cd) = self.curr_dl_deadline(cpu) {
            if dl_time_before(nd, cd) && self.tasks[curr].nr_cpus_allowed > 1 {
                self.resched_curr(cpu);
                return false;
            }
        }
        if next == curr {
            return false;
        }
        // find_lock_later_rq (nothing changes between search and move here: no retries).
        let Some(later) = self.find_later_rq(next, cpu) else {
            return false;
        };
        if later == cpu || !self.dl_task_is_earliest_deadline(next, later) {
            return false;
        }
        self.move_queued_dl_task(cpu, later, next);
        self.resched_curr(later);
        true
    }

    /// task_woken_dl: a woken deadline task that waits behind a deadline task that will
    /// not yield to it is pushed at once.
    pub(crate) fn task_woken_dl(&mut self, cpu: CpuId, p: TaskId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let Some(cd) = self.curr_dl_deadline(cpu) else {
            return;
        };
        let pd = self.tasks[p].dl.as_deref().map_or(u64::MAX, |e| e.deadline);
        if curr != p
            && !self.rqs[cpu].need_resched
            && self.tasks[p].nr_cpus_allowed > 1
            && (self.tasks[curr].nr_cpus_allowed < 2 || !dl_time_before(pd, cd))
        {
            while self.push_dl_task(cpu) {}
        }
    }

    /// balance_dl: prev, a deadline task, left the dl_rq: pull (need_pull_dl_task).
    pub(crate) fn balance_dl(&mut self, cpu: CpuId, prev: TaskId) {
        if !self.tasks[prev].dl.as_deref().is_some_and(|e| e.on_rq) {
            self.pull_dl_task(cpu);
        }
    }

    /// pull_dl_task: from every DL-overloaded CPU, the earliest pushable task that may
    /// run here, would be the earliest here and beats what was pulled so far — unless it
    /// is earlier than the deadline task running where it is (it will run there soon).
    pub(crate) fn pull_dl_task(&mut self, this_cpu: CpuId) {
        let n = self.machine.nr_cpus();
        if !(0..n).any(|c| self.rqs[c].dl.overloaded) {
            return;
        }
        let mut dmin = u64::MAX >> 1;
        let mut resched = false;
        for src in 0..n {
            if src == this_cpu || !self.rqs[src].dl.overloaded {
                continue;
            }
            let this = &self.rqs[this_cpu].dl;
            if this.dl_nr_running > 0 {
                if let (Some(cur), Some(next)) =
                    (this.earliest_dl(), self.rqs[src].dl.earliest_dl_next())
                {
                    if dl_time_before(cur, next) {
                        continue;
                    }
                }
            }
            if self.rqs[src].dl.dl_nr_running <= 1 {
                continue;
            }
            // pick_earliest_pushable_dl_task.
            let cand =
                self.rqs[src].dl.pushable.values().copied().find(|&t| {
                    self.tasks[t].cpus_allowed[this_cpu] && self.rqs[src].curr != Some(t)
                });
            let Some(p) = cand else {
                continue;
            };
            let pd = self.tasks[p].dl.as_deref().map_or(u64::MAX, |e| e.deadline);
            if !(dl_time_before(pd, dmin) && self.dl_task_is_earliest_deadline(p, this_cpu)) {
                continue;
            }
            // The donor's dl.deadline: 0 for a task that is not a deadline task.
            let src_curr = self.curr_dl_deadline(src).unwrap_or(0);
            if dl_time_before(pd, src_curr) {
                continue;
            }
            self.move_queued_dl_task(src, this_cpu, p);
            dmin = pd;
            resched = true;
        }
        if resched {
            self.resched_curr(this_cpu);
        }
    }

    /// move_queued_task for push and pull: dequeue on `src` (its bandwidth leaves),
    /// set_task_cpu, enqueue on `dst` (its bandwidth comes along).
    pub(crate) fn move_queued_dl_task(&mut self, src: CpuId, dst: CpuId, p: TaskId) {
        self.tasks[p].on_rq_migrating = true;
        self.dequeue_task_dl(src, p, dequeue::MIGRATING);
        self.set_task_cpu(p, dst);
        self.enqueue_task_dl(dst, p, 0);
        self.tasks[p].on_rq_migrating = false;
    }

    /// The entity at the head of `cpu`'s EDF tree, if it is `id` (tests).
    pub fn dl_leftmost_is(&self, cpu: CpuId, id: DlSe) -> bool {
        self.rqs[cpu].dl.root.values().next() == Some(&id)
    }
}
