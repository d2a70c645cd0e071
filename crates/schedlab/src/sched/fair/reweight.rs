//! Weight changes of a queued or sleeping entity: nice and policy changes
//! (reweight_entity, v7.0 form; __setparam_fair for the slice).

use super::tree::EntityId;
use super::weights::LoadWeight;
use crate::sched::{Policy, SchedChange};
use crate::sched::{Sched, TaskId};

impl Sched {
    /// reweight_entity (v7.0): lag, relative deadline and relative vprot
    /// scale by W/W′, then the entity is placed again from V.
    pub(crate) fn reweight_entity(&mut self, se: EntityId, new: LoadWeight) {
        if self.cfs_era() {
            return self.reweight_entity_cfs(se, new);
        }
        let cfs = self.entities[se as usize].cfs_rq;
        let on_rq = self.entities[se as usize].on_rq;
        let is_curr = self.cfs_rqs[cfs].curr == Some(se);
        let mut rel_vprot = None;
        if on_rq {
            self.update_curr(cfs);
            self.update_entity_lag(cfs, se);
            let protected = is_curr && self.protect_slice(se);
            let e = &mut self.entities[se as usize];
            e.deadline = e.deadline.wrapping_sub(e.vruntime);
            e.rel_deadline = true;
            if protected {
                rel_vprot = Some(e.vprot.wrapping_sub(e.vruntime) as i64);
            }
            if !is_curr {
                self.__dequeue_entity(cfs, se);
            }
            let rq = &mut self.cfs_rqs[cfs];
            rq.nr_queued -= 1;
            rq.load.weight -= self.entities[se as usize].load.weight;
            rq.load.inv_weight = 0;
        }
        let old_w = self.entities[se as usize].load.weight as i64;
        let new_w = new.weight as i64;
        let e = &mut self.entities[se as usize];
        e.vlag = scale_by(e.vlag, old_w, new_w);
        if e.rel_deadline {
            e.deadline = scale_by(e.deadline as i64, old_w, new_w) as u64;
        }
        let rel_vprot = rel_vprot.map(|v| scale_by(v, old_w, new_w));
        e.load = new;
        if on_rq {
            self.place_entity(cfs, se, 0);
            if let Some(v) = rel_vprot {
                let e = &mut self.entities[se as usize];
                e.vprot = e.vruntime.wrapping_add(v as u64);
            }
            if !is_curr {
                self.__enqueue_entity(cfs, se);
            }
            let rq = &mut self.cfs_rqs[cfs];
            rq.nr_queued += 1;
            rq.load.weight += new.weight;
            rq.load.inv_weight = 0;
        }
    }

    /// sched_setattr for fair tasks: policy, nice, custom slice and uclamp
    /// (__sched_setscheduler, __setparam_fair, __setscheduler_uclamp).
    /// Affinity is handled by the core (it may migrate the task).
    pub fn setattr_fair(&mut self, p: TaskId, change: &SchedChange) {
        let was_idle = self.tasks[p].is_idle_policy();
        if let Some(policy) = change.policy {
            self.tasks[p].policy = policy;
        }
        if let Some(nice) = change.nice {
            self.tasks[p].nice = nice.clamp(-20, 19);
        }
        if let Some(slice) = change.slice_ns {
            let e = &mut self.entities[self.tasks[p].se as usize];
            if slice == 0 {
                e.custom_slice = false;
                e.slice = self.cfg.base_slice;
            } else {
                e.custom_slice = true;
                e.slice = slice.clamp(100_000, 100_000_000);
            }
        }
        if change.uclamp.min.is_some() || change.uclamp.max.is_some() {
            self.set_uclamp(p, change.uclamp.min, change.uclamp.max);
        }
        let t = &self.tasks[p];
        let new = LoadWeight::for_task(t.nice, t.policy == Policy::Idle);
        let is_idle = t.is_idle_policy();
        let se = t.se;
        let old = self.entities[se as usize].load;
        if old != new {
            self.reweight_entity(se, new);
        }
        if was_idle != is_idle && self.tasks[p].on_rq {
            let delta: i32 = if is_idle { 1 } else { -1 };
            self.for_each_level(se, |rq| rq.h_nr_idle = (rq.h_nr_idle as i32 + delta) as u32);
        }
        // prio_changed_fair: a running task that got lighter gives way; a queued one may
        // preempt.
        let cpu = self.tasks[p].cpu;
        if old != new && self.cfs_rqs[self.entities[se as usize].cfs_rq].nr_queued > 1 {
            if self.tasks[p].on_cpu {
                if new.weight < old.weight {
                    self.resched_curr(cpu);
                }
            } else if self.tasks[p].on_rq {
                self.wakeup_preempt(cpu, p, 0);
            }
        }
    }
}

/// `v · num / den` truncated toward zero, as an i128 product would give it, on the 64-bit
/// path when the product fits (group entities are reweighted all the time).
#[inline]
fn scale_by(v: i64, num: i64, den: i64) -> i64 {
    match v.checked_mul(num) {
        Some(p) => p / den,
        None => (v as i128 * num as i128 / den as i128) as i64,
    }
}
