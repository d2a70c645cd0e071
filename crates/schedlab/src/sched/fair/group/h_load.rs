//! Hierarchical load (fair.c update_cfs_rq_h_load / task_h_load): a task's
//! load as its CPU's root sees it, its own load scaled down level by level by the share of
//! each group entity in its parent cfs_rq.

use crate::sched::{CfsRqId, Sched, TaskId};

impl Sched {
    /// cfs_rq->h_load: the root's load_avg for the root, else the parent's h_load times
    /// the group entity's share of the parent's load_avg. The kernel caches it per jiffy;
    /// here it is recomputed (the same value within a jiffy when nothing changed).
    pub fn cfs_rq_h_load(&self, cfs: CfsRqId) -> u64 {
        match self.cfs_rqs[cfs].owner {
            None => self.cfs_rqs[cfs].avg.load_avg,
            Some(se) => {
                let parent = self.entities[se as usize].cfs_rq;
                let h = self.cfs_rq_h_load(parent) as u128;
                let se_load = self.entities[se as usize].avg.load_avg as u128;
                (h * se_load / (self.cfs_rqs[parent].avg.load_avg as u128 + 1)) as u64
            }
        }
    }

    /// task_h_load. Without groups this is the task's load_avg, as
    /// in a kernel built without CONFIG_FAIR_GROUP_SCHED.
    pub fn task_h_load(&self, p: TaskId) -> u64 {
        let se = self.tasks[p].se as usize;
        let load = self.entities[se].avg.load_avg;
        if !self.has_groups() {
            return load;
        }
        let cfs = self.entities[se].cfs_rq;
        let h = self.cfs_rq_h_load(cfs) as u128;
        (load as u128 * h / (self.cfs_rqs[cfs].avg.load_avg as u128 + 1)) as u64
    }
}
