//! Deadline bandwidth bookkeeping (kernel/sched/deadline.c): each CPU's running_bw (the
//! active utilization: contending tasks, and blocked ones until their 0-lag time — the
//! inactive timer) and this_bw (every deadline task of the CPU), the root domain's
//! total_bw that admission control checks, and cpu_bw_dl for schedutil.
//!
//! The inactive timer is not an event here: a blocked task's 0-lag time is kept and its
//! bandwidth leaves running_bw when the CPU's deadline state is next touched (or read by
//! cpu_bw_dl, which discounts expired entries), so nothing is queued for it. The fair
//! server's bandwidth counts in total_bw (admission) but not in running_bw: the kernel
//! adds it there while the server is active, which raises schedutil's floor by 5 %
//! whenever fair tasks are runnable; the model leaves that out (fair-only runs keep
//! their frequencies). No GRUB reclaiming (SCHED_FLAG_RECLAIM is not modelled).

use super::{DlSe, BW_SHIFT};
use crate::machine::CpuId;
use crate::sched::fair::enqueue;
use crate::sched::uapi::SchedClass;
use crate::sched::{Sched, TaskId};

impl Sched {
    fn dl_bw_of(&self, id: DlSe) -> Option<(CpuId, u64)> {
        match id {
            DlSe::Task(p) => {
                let e = self.tasks[p].dl.as_deref()?;
                (e.dl_runtime > 0).then_some((self.tasks[p].cpu, e.dl_bw))
            }
            DlSe::Server(_) => None,
        }
    }

    /// add_running_bw (kicks cpufreq, as __add_running_bw does).
    pub(crate) fn add_running_bw(&mut self, id: DlSe) {
        if let Some((cpu, bw)) = self.dl_bw_of(id) {
            self.rqs[cpu].dl.running_bw += bw;
            self.cpufreq_update_util(cpu, 0);
        }
    }

    /// sub_running_bw.
    pub(crate) fn sub_running_bw(&mut self, id: DlSe) {
        if let Some((cpu, bw)) = self.dl_bw_of(id) {
            let dl = &mut self.rqs[cpu].dl;
            dl.running_bw = dl.running_bw.saturating_sub(bw);
            self.cpufreq_update_util(cpu, 0);
        }
    }

    /// add_rq_bw.
    pub(crate) fn add_rq_bw(&mut self, id: DlSe) {
        if let Some((cpu, bw)) = self.dl_bw_of(id) {
            self.rqs[cpu].dl.this_bw += bw;
        }
    }

    /// sub_rq_bw.
    pub(crate) fn sub_rq_bw(&mut self, id: DlSe) {
        if let Some((cpu, bw)) = self.dl_bw_of(id) {
            let dl = &mut self.rqs[cpu].dl;
            dl.this_bw = dl.this_bw.saturating_sub(bw);
        }
    }

    /// task_contending: a waking task's bandwidth is active again (unless its inactive
    /// timer had not fired yet); a wake-up migration brings its this_bw along.
    pub(crate) fn task_contending(&mut self, id: DlSe, flags: u32) {
        let DlSe::Task(_) = id else {
            return;
        };
        if self.dl_se(id).dl_runtime == 0 {
            return;
        }
        if flags & enqueue::MIGRATED != 0 {
            self.add_rq_bw(id);
        }
        let e = self.dl_se_mut(id);
        if e.dl_non_contending {
            e.dl_non_contending = false;
        } else {
            self.add_running_bw(id);
        }
    }

    /// task_non_contending: a task blocks (or exits). Past its 0-lag time
    /// (deadline − runtime · period / dl_runtime) its bandwidth leaves running_bw now —
    /// and an exiting one leaves this_bw and total_bw; before it, the inactive timer does
    /// that at the 0-lag time.
    pub(crate) fn task_non_contending(&mut self, id: DlSe) {
        let DlSe::Task(p) = id else {
            return;
        };
        let now = self.now;
        let e = self.dl_se(id);
        if e.dl_runtime == 0 {
            return;
        }
        let zerolag =
            e.deadline as i128 - (e.runtime as i128 * e.dl_period as i128) / e.dl_runtime as i128;
        if zerolag < now as i128 {
            self.inactive_task_timer(p);
            return;
        }
        let cpu = self.tasks[p].cpu;
        let e = self.dl_se_mut(id);
        e.dl_non_contending = true;
        e.zerolag_at = zerolag as u64;
        self.rqs[cpu].dl.inactive.push(p);
    }

    /// inactive_task_timer (or task_non_contending past the 0-lag time): the bandwidth
    /// leaves running_bw; a task that exited or left the class leaves the root domain.
    fn inactive_task_timer(&mut self, p: TaskId) {
        let id = DlSe::Task(p);
        let is_dl = self.tasks[p].class() == SchedClass::Dl;
        if is_dl || self.dl_task_dead(p) {
            self.sub_running_bw(id);
        }
        if !is_dl || self.dl_task_dead(p) {
            if self.dl_task_dead(p) {
                self.sub_rq_bw(id);
            }
            let bw = self.dl_se(id).dl_bw;
            self.rd.dl_bw.total_bw = self.rd.dl_bw.total_bw.saturating_sub(bw);
            // __dl_clear_params.
            self.tasks[p].dl = None;
        }
        if let Some(e) = self.tasks[p].dl.as_deref_mut() {
            e.dl_non_contending = false;
        }
    }

    /// The inactive timers of `cpu`'s blocked deadline tasks whose 0-lag time has come.
    pub(crate) fn dl_inactive_timers(&mut self, cpu: CpuId) {
        if self.rqs[cpu].dl.inactive.is_empty() {
            return;
        }
        let now = self.now;
        let list = std::mem::take(&mut self.rqs[cpu].dl.inactive);
        let mut keep = Vec::new();
        for p in list {
            let Some(e) = self.tasks[p].dl.as_deref() else {
                continue;
            };
            if !e.dl_non_contending || self.tasks[p].cpu != cpu {
                continue;
            }
            if e.zerolag_at <= now {
                self.inactive_task_timer(p);
            } else {
                keep.push(p);
            }
        }
        self.rqs[cpu].dl.inactive.extend(keep);
    }

    /// migrate_task_rq_dl: a waking deadline task leaves `old` (set_task_cpu from
    /// try_to_wake_up): a pending inactive timer is settled there and its this_bw leaves.
    pub(crate) fn migrate_task_rq_dl(&mut self, p: TaskId) {
        let id = DlSe::Task(p);
        if self.tasks[p].dl.is_none() {
            return;
        }
        if self.dl_se(id).dl_non_contending {
            self.sub_running_bw(id);
            self.dl_se_mut(id).dl_non_contending = false;
        }
        self.sub_rq_bw(id);
    }

    /// The running_bw of `cpu` now (the expired inactive timers discounted).
    pub fn running_bw(&self, cpu: CpuId) -> u64 {
        let dl = &self.rqs[cpu].dl;
        let expired: u64 = dl
            .inactive
            .iter()
            .filter_map(|&p| self.tasks[p].dl.as_deref())
            .filter(|e| e.dl_non_contending && e.zerolag_at <= self.now)
            .map(|e| e.dl_bw)
            .sum();
        dl.running_bw.saturating_sub(expired)
    }

    /// cpu_bw_dl: the CPU's active deadline bandwidth in capacity units
    /// ((running_bw · SCHED_CAPACITY_SCALE) >> BW_SHIFT), schedutil's floor.
    pub(crate) fn cpu_bw_dl(&self, cpu: CpuId) -> u64 {
        (self.running_bw(cpu) * 1024) >> BW_SHIFT
    }

    /// A task becomes a deadline task (sched_setattr at creation or later, once
    /// admitted): __dl_add to the root domain; switched_to_dl of a task that is not
    /// queued counts it in its CPU's this_bw now (a queued one is counted by its
    /// ENQUEUE_RESTORE).
    pub(crate) fn dl_attach_task(&mut self, p: TaskId, queued: bool) {
        let bw = self.dl_se(DlSe::Task(p)).dl_bw;
        self.rd.dl_bw.total_bw += bw;
        if !queued {
            self.add_rq_bw(DlSe::Task(p));
        }
    }
}

impl Sched {
    /// The task leaves the deadline class or changes its parameters (sched_setattr):
    /// __dl_sub from the root domain, its replenishment timer cancelled; a task that is
    /// not queued also leaves its CPU's this_bw (and running_bw if still active). A
    /// queued one left them with its DEQUEUE_SAVE. Leaving the class drops the entity.
    pub(crate) fn dl_detach_task(&mut self, p: TaskId, queued: bool) {
        let id = DlSe::Task(p);
        if self.tasks[p].dl.is_none() {
            return;
        }
        let bw = self.dl_se(id).dl_bw;
        self.rd.dl_bw.total_bw = self.rd.dl_bw.total_bw.saturating_sub(bw);
        if !queued {
            if self.dl_se(id).dl_non_contending {
                self.sub_running_bw(id);
                self.dl_se_mut(id).dl_non_contending = false;
            }
            self.sub_rq_bw(id);
        }
        if self.tasks[p].policy != crate::sched::Policy::Deadline {
            self.tasks[p].dl = None;
        }
    }
}
