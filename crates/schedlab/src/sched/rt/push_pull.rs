//! Real-time balancing across CPUs (kernel/sched/rt.c, cpupri.c): where a waking RT task
//! goes (select_task_rq_rt, find_lowest_rq over cpupri), pushing a waiting RT task to a
//! CPU running something of lower priority, and pulling one when a CPU's RT priority
//! drops. The RT_PUSH_IPI variant of the pull (the overloaded CPU pushes after an IPI) is
//! modelled as the direct pull, which moves the same task at once.

use crate::machine::CpuId;
use crate::sched::fair::class::wf;
use crate::sched::topology::cpumask::CpuMask;
use crate::sched::topology::SdFlags;
use crate::sched::uapi::MAX_RT_PRIO;
use crate::sched::{Sched, TaskId};

/// CPUPRI_NORMAL: a CPU running no RT task; CPUPRI_HIGHER: one with a deadline task
/// (kernel/sched/cpupri.h).
const CPUPRI_NORMAL: i32 = 0;
const CPUPRI_HIGHER: i32 = 100;

/// convert_prio for a task's p->prio: 99 − prio for RT priorities (1..=99).
fn task_cpupri(prio: i32) -> i32 {
    if prio < 0 {
        CPUPRI_HIGHER
    } else if prio < MAX_RT_PRIO - 1 {
        MAX_RT_PRIO - 1 - prio
    } else {
        CPUPRI_NORMAL
    }
}

impl Sched {
    /// The CPU's cpupri level (cpupri_set from rt_rq highest_prio.curr; a CPU with a
    /// deadline task is above every RT level).
    fn cpupri_of(&self, cpu: CpuId) -> i32 {
        let rq = &self.rqs[cpu];
        if rq.dl.dl_nr_running > 0 {
            return CPUPRI_HIGHER;
        }
        task_cpupri(rq.rt.highest_prio())
    }

    /// rt_task_fits_capacity: on asymmetric machines, the CPU's capacity covers the task's
    /// effective uclamp_min (capped by its uclamp_max).
    fn rt_task_fits_capacity(&self, p: TaskId, cpu: CpuId) -> bool {
        if !self.sd.sched_asym_cpucapacity {
            return true;
        }
        use crate::sched::uclamp::UclampId;
        let min = self.uclamp_eff_value(p, UclampId::Min);
        let max = self.uclamp_eff_value(p, UclampId::Max);
        self.arch_scale_cpu_capacity(cpu) >= u64::from(min.min(max))
    }

    /// cpupri_find_fitness: the allowed CPUs at the lowest cpupri level below the task's
    /// that has any, preferring CPUs the task fits (a level without fitting CPUs is
    /// skipped; if none fits anywhere, fitness is ignored). None when no CPU runs at a
    /// lower priority.
    pub(crate) fn cpupri_find(&self, p: TaskId) -> Option<CpuMask> {
        let n = self.machine.nr_cpus();
        let task_pri = task_cpupri(self.tasks[p].prio());
        let levels: Vec<i32> = (0..n).map(|c| self.cpupri_of(c)).collect();
        let allowed = &self.tasks[p].cpus_allowed;
        for fitness in [true, false] {
            for idx in 0..task_pri {
                let mask = CpuMask::from_cpus(
                    n,
                    (0..n).filter(|&c| {
                        levels[c] == idx
                            && allowed[c]
                            && (!fitness || self.rt_task_fits_capacity(p, c))
                    }),
                );
                if !mask.is_empty() {
                    return Some(mask);
                }
            }
            if !self.sd.sched_asym_cpucapacity {
                break;
            }
        }
        None
    }

    /// cpumask_any_and_distribute, with the per-CPU previous pick of `on` (the calling
    /// CPU): the first CPU of `a ∩ b` after the previous pick, wrapping.
    fn any_and_distribute(&mut self, on: CpuId, a: &CpuMask, b: Option<&CpuMask>) -> Option<CpuId> {
        let prev = self.rqs[on].rt.distribute_prev;
        let n = self.machine.nr_cpus();
        let start = (prev + 1) % n;
        let pick = a
            .iter_wrap(start)
            .find(|&c| b.is_none_or(|m| m.contains(c)))?;
        self.rqs[on].rt.distribute_prev = pick;
        Some(pick)
    }

    /// find_lowest_rq: a CPU running something of lower priority than `p`: the task's own
    /// CPU if it qualifies, else the calling CPU or a CPU in the lowest wake-affine
    /// domain, else any (distributed).
    pub(crate) fn find_lowest_rq(&mut self, p: TaskId, this_cpu: CpuId) -> Option<CpuId> {
        if self.tasks[p].nr_cpus_allowed == 1 {
            return None;
        }
        let lowest = self.cpupri_find(p)?;
        self.pick_from_mask(p, &lowest, this_cpu)
    }

    /// The choice find_lowest_rq and find_later_rq make among the CPUs of `mask`: the
    /// task's own CPU, else the calling CPU or a distributed pick in the lowest
    /// wake-affine domain holding one, else the calling CPU or any (distributed).
    pub(crate) fn pick_from_mask(
        &mut self,
        p: TaskId,
        mask: &CpuMask,
        this_cpu: CpuId,
    ) -> Option<CpuId> {
        let cpu = self.tasks[p].cpu;
        if mask.contains(cpu) {
            return Some(cpu);
        }
        let this = mask.contains(this_cpu).then_some(this_cpu);
        let domains: Vec<_> = self.sd.for_each_domain(cpu).collect();
        for sd in domains {
            if !self.sd.domains[sd].flags.intersects(SdFlags::WAKE_AFFINE) {
                continue;
            }
            let span = self.sd.span(sd).clone();
            if let Some(t) = this.filter(|&t| span.contains(t)) {
                return Some(t);
            }
            if let Some(best) = self.any_and_distribute(this_cpu, mask, Some(&span)) {
                return Some(best);
            }
        }
        if this.is_some() {
            return this;
        }
        self.any_and_distribute(this_cpu, mask, None)
    }

    /// select_task_rq_rt: a waking (or new) RT task leaves a CPU whose current task is
    /// real-time and would not yield to it (or cannot move), for a CPU of lower priority.
    pub(crate) fn select_task_rq_rt(
        &mut self,
        p: TaskId,
        wake_flags: u32,
        this_cpu: CpuId,
    ) -> CpuId {
        let cpu = self.tasks[p].cpu;
        if wake_flags & (wf::TTWU | wf::FORK) == 0 {
            return cpu;
        }
        let prio = self.tasks[p].prio();
        let test = self.rqs[cpu].curr.is_some_and(|c| {
            let t = &self.tasks[c];
            t.prio() < MAX_RT_PRIO && (t.nr_cpus_allowed < 2 || t.prio() <= prio)
        });
        if !test && self.rt_task_fits_capacity(p, cpu) {
            return cpu;
        }
        let Some(target) = self.find_lowest_rq(p, this_cpu) else {
            return cpu;
        };
        if !test && !self.rt_task_fits_capacity(p, target) {
            return cpu;
        }
        if prio < self.rqs[target].rt.highest_prio() {
            target
        } else {
            cpu
        }
    }

    /// update_rt_migration: the CPU is RT-overloaded (in rto_mask) while it holds more
    /// than one RT task and one of them may run elsewhere.
    pub(crate) fn update_rt_migration(&mut self, cpu: CpuId) {
        let rt = &self.rqs[cpu].rt;
        let over = rt.rt_nr_migratory > 0 && rt.rt_nr_total > 1;
        if over != rt.overloaded {
            self.rqs[cpu].rt.overloaded = over;
            if over {
                self.rd.rto_count += 1;
            } else {
                self.rd.rto_count -= 1;
            }
        }
    }

    /// enqueue_pushable_task.
    pub(crate) fn enqueue_pushable_task(&mut self, cpu: CpuId, p: TaskId) {
        self.dequeue_pushable_task(cpu, p);
        let rt = &mut self.rqs[cpu].rt;
        rt.tail += 1;
        let key = (self.tasks[p].prio(), rt.tail);
        rt.pushable_tasks.insert(key, p);
        self.tasks[p].rt_se_mut().push_key = Some(key);
    }

    /// dequeue_pushable_task.
    pub(crate) fn dequeue_pushable_task(&mut self, cpu: CpuId, p: TaskId) {
        if let Some(key) = self.tasks[p].rt_se_mut().push_key.take() {
            self.rqs[cpu].rt.pushable_tasks.remove(&key);
        }
    }

    /// rt_queue_push_tasks: push after the switch in progress (a balance callback).
    pub(crate) fn rt_queue_push_tasks(&mut self, cpu: CpuId) {
        self.rqs[cpu].rt.push_queued = true;
    }

    /// The balance callbacks queued during a switch (do_balance_callbacks).
    pub(crate) fn run_rt_balance_callbacks(&mut self, cpu: CpuId) {
        if std::mem::take(&mut self.rqs[cpu].rt.push_queued) {
            self.push_rt_tasks(cpu);
        }
    }

    /// push_rt_tasks: push until nothing more moves.
    pub(crate) fn push_rt_tasks(&mut self, cpu: CpuId) {
        while self.push_rt_task(cpu) {}
    }

    /// push_rt_task: the best waiting pushable task goes to a CPU running something of
    /// lower priority; if it beats the running task here, reschedule instead.
    fn push_rt_task(&mut self, cpu: CpuId) -> bool {
        if !self.rqs[cpu].rt.overloaded {
            return false;
        }
        let Some(&next) = self.rqs[cpu].rt.pushable_tasks.values().next() else {
            return false;
        };
        let Some(curr) = self.rqs[cpu].curr else {
            return false;
        };
        if self.tasks[next].prio() < self.tasks[curr].prio() {
            self.resched_curr(cpu);
            return false;
        }
        let Some(lowest) = self.find_lock_lowest_rq(next, cpu) else {
            return false;
        };
        self.move_queued_rt_task(cpu, lowest, next);
        self.resched_curr(lowest);
        true
    }

    /// find_lock_lowest_rq without the locking (nothing changes between the search and
    /// the move here, so the kernel's RT_MAX_TRIES retries never happen): a lower-priority
    /// CPU still below the task.
    fn find_lock_lowest_rq(&mut self, p: TaskId, cpu: CpuId) -> Option<CpuId> {
        let lowest = self.find_lowest_rq(p, cpu)?;
        if lowest == cpu || self.rqs[lowest].rt.highest_prio() <= self.tasks[p].prio() {
            return None;
        }
        Some(lowest)
    }

    /// task_woken_rt: a woken RT task that waits behind a real-time task that will not
    /// yield to it is pushed at once.
    pub(crate) fn task_woken_rt(&mut self, cpu: CpuId, p: TaskId) {
        let Some(curr) = self.rqs[cpu].curr else {
            return;
        };
        let c = &self.tasks[curr];
        let push = curr != p
            && !self.rqs[cpu].need_resched
            && self.tasks[p].nr_cpus_allowed > 1
            && c.prio() < MAX_RT_PRIO
            && (c.nr_cpus_allowed < 2 || c.prio() <= self.tasks[p].prio());
        if push {
            self.push_rt_tasks(cpu);
        }
    }

    /// balance_rt: prev, an RT task, left the queue and this CPU's RT priority dropped:
    /// pull (need_pull_rt_task, pull_rt_task). Runs before the pick, which then sees
    /// what was pulled.
    pub(crate) fn balance_rt(&mut self, cpu: CpuId, prev: TaskId) {
        if !self.tasks[prev].rt_se_mut().on_rq
            && self.rqs[cpu].rt.highest_prio() > self.tasks[prev].prio()
        {
            self.pull_rt_task(cpu);
        }
    }

    /// pull_rt_task: from every RT-overloaded CPU, take its best waiting task that may run
    /// here and beats this CPU's best — unless it is about to run where it is.
    pub(crate) fn pull_rt_task(&mut self, this_cpu: CpuId) {
        if self.rd.rto_count == 0 {
            return;
        }
        for src in 0..self.machine.nr_cpus() {
            if src == this_cpu || !self.rqs[src].rt.overloaded {
                continue;
            }
            let this_best = self.rqs[this_cpu].rt.highest_prio();
            if self.rqs[src].rt.highest_prio_next() >= this_best {
                continue;
            }
            // pick_highest_pushable_task: the first pushable task allowed here.
            let cand = self.rqs[src]
                .rt
                .pushable_tasks
                .values()
                .copied()
                .find(|&t| self.tasks[t].cpus_allowed[this_cpu] && self.rqs[src].curr != Some(t));
            let Some(p) = cand else {
                continue;
            };
            if self.tasks[p].prio() >= this_best {
                continue;
            }
            let src_curr_prio = self.rqs[src]
                .curr
                .map_or(i32::MAX, |c| self.tasks[c].prio());
            if self.tasks[p].prio() < src_curr_prio {
                continue;
            }
            self.move_queued_rt_task(src, this_cpu, p);
        }
    }
}
