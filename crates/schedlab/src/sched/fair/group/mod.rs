//! Group scheduling (CONFIG_FAIR_GROUP_SCHED, CONFIG_CFS_BANDWIDTH): task groups as a tree,
//! one group entity and one group cfs_rq per CPU at every level (alloc_fair_sched_group,
//! init_tg_cfs_entry).
//!
//! - `mod`: the task-group tree, creation, moving a task into its group
//! - `shares`: cpu.weight → shares, calc_group_shares / update_cfs_group
//! - `propagate`: tg load_avg and PELT propagation up the hierarchy
//! - `h_load`: task_h_load for load balancing
//! - `bandwidth`: cpu.max quota/period, throttling and the period timer
//! - `autogroup`: one group per session
//!
//! The root group is the flat per-CPU runqueue itself: it has no group entity, so a run
//! without groups is the same simulation as before groups existed.

pub mod autogroup;
pub mod bandwidth;
pub mod h_load;
pub mod propagate;
pub mod shares;

#[cfg(test)]
mod tests;

use super::tree::EntityId;
use super::weights::LoadWeight;
use crate::sched::{CfsRq, CfsRqId, Sched, SchedEntity, TaskId};
use crate::time::Ns;
use bandwidth::CfsBandwidth;

pub type TgId = usize;

/// The root task group's index.
pub const ROOT_TG: TgId = 0;

/// One cgroup's cpu-controller settings as the scenario gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupSpec {
    /// Absolute path, e.g. `/top-app` or `/bg/batch`; parents must come first.
    pub path: String,
    /// cpu.weight, 1..=10000 (default 100).
    pub weight: u64,
    /// cpu.idle.
    pub idle: bool,
    /// cpu.max as (quota, period) in ns; `None` = "max" (no limit).
    pub max: Option<(Ns, Ns)>,
    /// cpu.uclamp.min / cpu.uclamp.max as 0..=1024 capacity units.
    pub uclamp: [u32; 2],
    /// Task comm globs placed in this group (`tasks = ["spinner*"]`).
    pub tasks: Vec<String>,
}

impl CgroupSpec {
    pub fn new(path: &str) -> Self {
        CgroupSpec {
            path: path.to_string(),
            weight: shares::CGROUP_WEIGHT_DFL,
            idle: false,
            max: None,
            uclamp: [0, 1024],
            tasks: Vec::new(),
        }
    }
}

/// struct task_group.
#[derive(Debug, Clone)]
pub struct TaskGroup {
    pub path: String,
    pub parent: Option<TgId>,
    /// cpu.weight as configured.
    pub weight: u64,
    /// tg->shares (scaled, NICE_0_LOAD = cpu.weight 100).
    pub shares: u64,
    /// tg->idle (cpu.idle).
    pub idle: bool,
    /// An autogroup (session group) rather than a configured cgroup.
    pub autogroup: bool,
    /// tg->load_avg: Σ of the per-CPU tg_load_avg_contrib.
    pub load_avg: i64,
    /// tg->se[cpu]; `None` for the root group.
    pub se: Vec<Option<EntityId>>,
    /// tg->cfs_rq[cpu].
    pub cfs_rq: Vec<CfsRqId>,
    /// tg->uclamp (min, max): effective clamps after the parent's, 0..=1024.
    pub uclamp: [u32; 2],
    /// tg->cfs_bandwidth; `None` = quota "max".
    pub bw: Option<CfsBandwidth>,
}

impl TaskGroup {
    /// root_task_group over `nr_cpus` CPUs whose root cfs_rqs are ids 0..nr_cpus.
    pub fn root(nr_cpus: usize) -> Self {
        TaskGroup {
            path: "/".into(),
            parent: None,
            weight: shares::CGROUP_WEIGHT_DFL,
            shares: super::weights::NICE_0_LOAD,
            idle: false,
            autogroup: false,
            load_avg: 0,
            se: vec![None; nr_cpus],
            cfs_rq: (0..nr_cpus).collect(),
            uclamp: [0, 1024],
            bw: None,
        }
    }
}

/// Per-cfs_rq group-scheduling state (the cgroup fields of struct cfs_rq).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CfsRqGroup {
    /// cfs_rq->tg.
    pub tg: TgId,
    /// cfs_rq->idle: the owning group is cpu.idle.
    pub idle: bool,
    pub tg_load_avg_contrib: u64,
    pub last_update_tg_load_avg: Ns,
    /// A load change below waits to be propagated to the group entity (cfs_rq->propagate).
    pub propagate: bool,
    pub prop_runnable_sum: i64,
    // Bandwidth control.
    pub runtime_enabled: bool,
    pub runtime_remaining: i64,
    pub throttled: bool,
    /// Throttled ancestors including itself (throttled_hierarchy).
    pub throttle_count: u32,
    pub throttled_clock: Ns,
    pub throttled_clock_pelt: Ns,
    pub throttled_clock_pelt_time: Ns,
}

impl Sched {
    /// Whether any group besides the root exists (CONFIG_FAIR_GROUP_SCHED in effect).
    #[inline]
    pub fn has_groups(&self) -> bool {
        self.groups.len() > 1
    }

    /// The group a path names, if it exists.
    pub fn group_by_path(&self, path: &str) -> Option<TgId> {
        self.groups.iter().position(|g| g.path == path)
    }

    /// sched_create_group + online: a per-CPU group cfs_rq and group entity under
    /// `parent` (init_tg_cfs_entry: the entity starts at NICE_0_LOAD).
    pub fn create_group(&mut self, spec: &CgroupSpec, parent: TgId, autogroup: bool) -> TgId {
        let tg = self.groups.len();
        let n = self.rqs.len();
        let mut ses = Vec::with_capacity(n);
        let mut rqs = Vec::with_capacity(n);
        for cpu in 0..n {
            let se = self.entities.len() as EntityId;
            let q = self.cfs_rqs.len();
            let mut cfs = CfsRq::new(cpu, Some(se));
            cfs.tasks_timeline
                .set_tracks_eligibility(!self.cfg.kernel.is_cfs());
            cfs.grp.tg = tg;
            cfs.grp.idle = spec.idle;
            self.cfs_rqs.push(cfs);
            let load = LoadWeight::raw(super::weights::NICE_0_LOAD);
            let parent_q = self.groups[parent].cfs_rq[cpu];
            self.entities.push(SchedEntity {
                parent: self.groups[parent].se[cpu],
                my_q: Some(q),
                ..SchedEntity::new(load, self.cfg.base_slice, true, parent_q)
            });
            ses.push(Some(se));
            rqs.push(q);
        }
        let shares = if spec.idle {
            super::weights::scale_load(super::weights::WEIGHT_IDLEPRIO as u64)
        } else {
            shares::weight_to_shares(spec.weight)
        };
        self.groups.push(TaskGroup {
            path: spec.path.clone(),
            parent: Some(parent),
            weight: spec.weight,
            shares,
            idle: spec.idle,
            autogroup,
            load_avg: 0,
            se: ses,
            cfs_rq: rqs,
            uclamp: self.tg_uclamp_eff(parent, spec.uclamp),
            bw: None,
        });
        if let Some((quota, period)) = spec.max {
            self.tg_set_cfs_bandwidth(tg, quota, period);
        }
        if spec.uclamp != [0, 1024] {
            self.cfg.uclamp_used = true;
        }
        tg
    }

    /// cpu_util_update_eff: a group's effective clamps are its requests limited by its
    /// parent's effective ones (the root's are [1024, 1024]); min never exceeds max.
    fn tg_uclamp_eff(&self, parent: TgId, req: [u32; 2]) -> [u32; 2] {
        let up = if parent == ROOT_TG {
            [1024, 1024]
        } else {
            self.groups[parent].uclamp
        };
        let max = req[1].min(up[1]);
        [req[0].min(up[0]).min(max), max]
    }

    /// sched_move_task for a task that has not started yet: point its entity at the
    /// group's cfs_rq and entity of its CPU.
    pub fn move_new_task_to_group(&mut self, p: TaskId, tg: TgId) {
        assert!(
            !self.tasks[p].on_rq,
            "only tasks not yet queued move groups"
        );
        self.tasks[p].tg = tg;
        let cpu = self.tasks[p].cpu;
        self.set_task_rq(p, cpu);
    }

    /// set_task_rq: the task's entity belongs to its group's cfs_rq on `cpu`.
    #[inline]
    pub(crate) fn set_task_rq(&mut self, p: TaskId, cpu: usize) {
        let g = &self.groups[self.tasks[p].tg];
        let (cfs, parent) = (g.cfs_rq[cpu], g.se[cpu]);
        let se = &mut self.entities[self.tasks[p].se as usize];
        se.cfs_rq = cfs;
        se.parent = parent;
    }

    /// group_cfs_rq(se) → its cfs_rq's group flag: cfs_rq_is_idle.
    #[inline]
    pub fn cfs_rq_is_idle(&self, cfs: CfsRqId) -> bool {
        self.cfs_rqs[cfs].grp.idle
    }

    /// throttled_hierarchy: this cfs_rq or an ancestor is throttled.
    #[inline]
    pub fn throttled_hierarchy(&self, cfs: CfsRqId) -> bool {
        self.cfs_rqs[cfs].grp.throttle_count > 0
    }

    /// throttled_lb_pair: the task's group is throttled on the source or destination CPU;
    /// the balancer leaves such tasks alone.
    #[inline]
    pub fn throttled_lb_pair(&self, p: TaskId, src: usize, dst: usize) -> bool {
        let g = &self.groups[self.tasks[p].tg];
        self.throttled_hierarchy(g.cfs_rq[src]) || self.throttled_hierarchy(g.cfs_rq[dst])
    }

    /// cfs_rq_throttled.
    #[inline]
    pub fn cfs_rq_throttled(&self, cfs: CfsRqId) -> bool {
        self.cfs_rqs[cfs].grp.throttled
    }

    /// The group path of a task, as results and traces show it.
    pub fn task_group_path(&self, p: TaskId) -> &str {
        &self.groups[self.tasks[p].tg].path
    }

    /// CPU time a group's tasks consumed: Σ over CPUs of the group entity's runtime.
    pub fn group_cpu_time(&self, tg: TgId) -> Ns {
        self.groups[tg]
            .se
            .iter()
            .flatten()
            .map(|&se| self.entities[se as usize].sum_exec_runtime)
            .sum()
    }
}
