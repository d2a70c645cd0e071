//! Task and phase scheduling attributes: policy, priority, cpus, util_min / util_max,
//! the fair custom slice (`dl-runtime`), and the keys that are not modelled (taskgroup,
//! nodes_membind).

use super::json::Json;
use super::Compiler;
use crate::error::InputError;
use crate::time::Ns;
use crate::workload::program::UclampReq;
use crate::workload::Policy;

/// Scheduling attributes as written at task or phase level.
#[derive(Default)]
pub struct Attrs {
    pub policy: Option<Policy>,
    pub nice: Option<i32>,
    pub cpus: Option<Vec<usize>>,
    pub uclamp: UclampReq,
    /// `dl-runtime` on a fair policy: the custom slice (sched_attr.sched_runtime).
    pub slice_ns: Option<Ns>,
    /// `taskgroup`: the cgroup the task's threads run in (None = the root group).
    pub cgroup: Option<String>,
}

/// Fix offered whenever a policy cannot be modelled.
const FAIR_POLICIES: &str = "use SCHED_OTHER (or SCHED_BATCH / SCHED_IDLE)";

impl Compiler<'_> {
    /// Handle a scheduling or placement key; `false` = not one.
    pub(super) fn attr(
        &self,
        a: &mut Attrs,
        key: &str,
        v: &Json,
        path: &str,
    ) -> Result<bool, InputError> {
        match key {
            "policy" => a.policy = Some(self.policy(v, path)?),
            "priority" => a.nice = Some(self.nice(v, path)?),
            "cpus" => a.cpus = Some(self.cpus(v, path)?),
            "util_min" => a.uclamp.min = self.util_clamp(v, path)?,
            "util_max" => a.uclamp.max = self.util_clamp(v, path)?,
            // Linux 6.12+: sched_attr.sched_runtime of a fair task is its custom slice
            // (rt-app passes dl-runtime there). 0 = the default slice.
            "dl-runtime" => a.slice_ns = Some(self.micros(v, path)?),
            // Only SCHED_DEADLINE reads these (`period` / `deadline` are rt-app's legacy
            // task-level names); the kernel ignores them for fair tasks.
            "dl-period" | "dl-deadline" | "period" | "deadline" => {
                self.micros(v, path)?;
            }
            "taskgroup" => a.cgroup = self.taskgroup(v, path)?,
            "nodes_membind" => {
                return Err(self
                    .err(path, "NUMA memory binding is not modelled")
                    .with_fix("remove nodes_membind; memory placement has no model here"))
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// rt-app `taskgroup`: a cgroup path; "/" (or "") is the root group. The group must be
    /// declared in the scenario's `[cgroups]` (docs/scenario.md), which the run checks.
    fn taskgroup(&self, v: &Json, path: &str) -> Result<Option<String>, InputError> {
        match self.string(v, path)? {
            "" | "/" => Ok(None),
            g if !g.starts_with('/') => Err(self
                .err(path, format!("taskgroup '{g}' does not start with '/'"))
                .with_fix("write a cgroup path such as \"/tg1\"")),
            g => Ok(Some(g.trim_end_matches('/').to_string())),
        }
    }

    pub(super) fn policy(&self, v: &Json, path: &str) -> Result<Policy, InputError> {
        match self.string(v, path)? {
            "SCHED_OTHER" => Ok(Policy::Normal),
            "SCHED_BATCH" => Ok(Policy::Batch),
            "SCHED_IDLE" => Ok(Policy::Idle),
            p @ ("SCHED_FIFO" | "SCHED_RR") => Err(self
                .err(
                    path,
                    format!("{p} needs the real-time class, which is not modelled"),
                )
                .with_fix(FAIR_POLICIES)),
            "SCHED_DEADLINE" => Err(self
                .err(
                    path,
                    "SCHED_DEADLINE needs the deadline class, which is not modelled",
                )
                .with_fix(FAIR_POLICIES)),
            p => Err(self
                .err(path, format!("unknown policy '{p}'"))
                .with_fix(FAIR_POLICIES)),
        }
    }

    /// rt-app `priority` is the nice value for the fair policies.
    fn nice(&self, v: &Json, path: &str) -> Result<i32, InputError> {
        match self.int(v, path)? {
            n @ -20..=19 => Ok(n as i32),
            n => Err(self
                .err(path, format!("priority {n} is not a nice value"))
                .with_fix("fair policies take a nice value from -20 to 19")),
        }
    }

    /// util_min / util_max: a utilization clamp, 0..=1024; -1 leaves it unchanged.
    fn util_clamp(&self, v: &Json, path: &str) -> Result<Option<u32>, InputError> {
        match self.int(v, path)? {
            -1 => Ok(None),
            n @ 0..=1024 => Ok(Some(n as u32)),
            n => Err(self
                .err(path, format!("utilization clamp {n} is out of range"))
                .with_fix("util_min and util_max take 0 to 1024 (-1 = unchanged)")),
        }
    }

    fn cpus(&self, v: &Json, path: &str) -> Result<Vec<usize>, InputError> {
        let Json::Array(items) = v else {
            return Err(self.wrong_type(path, "an array of CPU ids", v));
        };
        let mut cpus = items
            .iter()
            .enumerate()
            .map(|(i, c)| Ok(self.non_negative(c, &format!("{path}[{i}]"))? as usize))
            .collect::<Result<Vec<_>, InputError>>()?;
        if cpus.is_empty() {
            return Err(self
                .err(path, "empty CPU list")
                .with_fix("list at least one CPU, or leave `cpus` out for all"));
        }
        // A cpu_set_t: order and repeats do not matter.
        cpus.sort_unstable();
        cpus.dedup();
        Ok(cpus)
    }
}
