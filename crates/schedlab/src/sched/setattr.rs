//! sched_setattr / sched_setscheduler on a task (kernel/sched/syscalls.c
//! __sched_setscheduler): a change within the fair class reweights in place; a change of
//! class or of real-time priority takes the task off its queue (and CPU), sets the new
//! policy and priority, and puts it back, then lets the classes react (check_class_changed).

use super::fair::{dequeue, enqueue};
use super::uapi::{normal_prio, SchedClass};
use super::{Policy, Sched, SchedChange, TaskId};

impl Sched {
    /// Apply `change` to task `p`.
    pub fn sched_setattr(&mut self, p: TaskId, change: &SchedChange) {
        let t = &self.tasks[p];
        let old_class = t.class();
        let policy = change.policy.unwrap_or(t.policy);
        let rt_priority = change
            .rt_priority
            .unwrap_or(if policy.class() == SchedClass::Rt {
                t.rt_priority()
            } else {
                0
            });
        let nice = change.nice.unwrap_or(t.nice).clamp(-20, 19);
        let new_prio = normal_prio(policy, rt_priority, nice);
        // SCHED_DEADLINE is admitted first (__checkparam_dl, the root-domain affinity,
        // sched_dl_overflow): on EINVAL / EPERM / EBUSY the syscall fails and the task
        // keeps its old policy and parameters.
        let dl_params = change.dl.or_else(|| {
            t.dl.as_deref().map(|e| super::DlParams {
                runtime: e.dl_runtime,
                deadline: e.dl_deadline,
                period: e.dl_period,
            })
        });
        if policy == Policy::Deadline {
            match dl_params {
                Some(d) if self.sched_dl_overflow(p, &d).is_ok() => {}
                _ => return,
            }
        }
        if old_class == SchedClass::Fair && policy.class() == SchedClass::Fair {
            return self.setattr_fair(p, change);
        }
        // __sched_setscheduler: the same real-time priority or deadline parameters and no
        // clamp change is no change at all (rt-app re-applies a phase's policy every pass;
        // a requeue would move the task to the tail of its priority).
        let t = &self.tasks[p];
        let same_dl = || {
            change.dl.is_none()
                || t.dl.as_deref().is_some_and(|e| {
                    let d = change.dl.unwrap();
                    let period = if d.period == 0 { d.deadline } else { d.period };
                    (e.dl_runtime, e.dl_deadline, e.dl_period) == (d.runtime, d.deadline, period)
                })
        };
        let unchanged = policy == t.policy
            && change.uclamp.min.is_none()
            && change.uclamp.max.is_none()
            && match policy.class() {
                SchedClass::Rt => rt_priority == t.rt_priority(),
                SchedClass::Dl => same_dl(),
                SchedClass::Fair => false,
            };
        if unchanged {
            return;
        }
        let cpu = self.tasks[p].cpu;
        let queued = self.tasks[p].on_rq;
        let running = self.rqs[cpu].curr == Some(p);
        let old_prio = self.tasks[p].prio();
        if queued {
            self.dequeue_task(cpu, p, dequeue::MIGRATING);
        }
        if running {
            self.put_prev_task(cpu, p);
        }
        // __setscheduler_params: policy, priority, weight, deadline parameters.
        let t = &mut self.tasks[p];
        t.policy = policy;
        t.nice = nice;
        t.rt = (policy.class() == SchedClass::Rt).then(|| {
            let slice = match t.rt.take() {
                Some(r) => r.time_slice,
                None => self.cfg.rr_timeslice_ticks(),
            };
            Box::new(super::rt::RtEntity::new(rt_priority, slice))
        });
        let se = t.se as usize;
        // The deadline bandwidth leaves with the old parameters and comes with the new.
        if old_class == SchedClass::Dl {
            self.dl_detach_task(p, queued);
        }
        if policy == Policy::Deadline {
            if let Some(d) = dl_params {
                self.setparam_dl(p, d);
            }
            self.dl_attach_task(p, queued);
        }
        self.entities[se].load =
            super::fair::weights::LoadWeight::for_task(nice, policy == Policy::Idle);
        if change.uclamp.min.is_some() || change.uclamp.max.is_some() {
            self.set_uclamp(p, change.uclamp.min, change.uclamp.max);
        }
        if queued {
            // A lowered real-time priority goes first in its new queue.
            let flags = if old_prio < new_prio {
                enqueue::HEAD
            } else {
                0
            };
            self.enqueue_task(cpu, p, flags);
            self.tasks[p].on_rq = true;
        }
        if running {
            self.set_next_task(cpu, p);
        }
        // check_class_changed / prio_changed: the running task gives way if it may no
        // longer be the best; a queued one may preempt; an RT CPU that lost its RT work
        // pulls.
        if old_class == SchedClass::Rt && self.rqs[cpu].rt.rt_nr_running == 0 {
            self.pull_rt_task(cpu);
        }
        if old_class == SchedClass::Dl && queued && self.rqs[cpu].dl.dl_nr_running == 0 {
            self.pull_dl_task(cpu);
        }
        if running {
            if old_class != policy.class() || new_prio > old_prio {
                self.resched_curr(cpu);
            }
        } else if queued {
            self.wakeup_preempt(cpu, p, 0);
        }
    }
}
