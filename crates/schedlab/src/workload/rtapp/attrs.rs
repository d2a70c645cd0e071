//! Task and phase scheduling attributes: policy, priority, cpus, util_min / util_max,
//! the SCHED_DEADLINE parameters (`dl-runtime`, `dl-period`, `dl-deadline`; on a fair
//! policy `dl-runtime` is the custom slice), and the keys that are not modelled
//! (nodes_membind, `dl-reclaim: true`).

use super::json::Json;
use super::Compiler;
use crate::error::InputError;
use crate::sched::{DlParams, SchedClass};
use crate::time::Ns;
use crate::workload::program::UclampReq;
use crate::workload::sched_params::{check_dl, check_rt_priority, ParamError};
use crate::workload::Policy;

/// Scheduling attributes as written at task or phase level. `priority` and the `dl-*`
/// keys mean different things per policy, so they are kept as written and read by
/// [`Compiler::resolve`] once the policy in force is known.
#[derive(Default)]
pub struct Attrs {
    pub policy: Option<Policy>,
    /// `priority` and its JSON path: the nice value of a fair policy, the sched_priority
    /// of SCHED_FIFO / SCHED_RR, ignored by SCHED_DEADLINE (rt-app passes 0).
    pub priority: Option<(i64, String)>,
    pub cpus: Option<Vec<usize>>,
    pub uclamp: UclampReq,
    /// `dl-runtime`: the custom slice on a fair policy (sched_attr.sched_runtime), the
    /// runtime of SCHED_DEADLINE.
    pub dl_runtime: Option<Ns>,
    pub dl_period: Option<Ns>,
    pub dl_deadline: Option<Ns>,
    /// rt-app's legacy task-level names of the three (`runtime`, which is also an
    /// event key, `period`, `deadline`).
    pub legacy_runtime: Option<Ns>,
    pub legacy_period: Option<Ns>,
    pub legacy_deadline: Option<Ns>,
    /// `taskgroup`: the cgroup the task's threads run in (None = the root group).
    pub cgroup: Option<String>,
}

/// What the attributes of a task or phase set, read for the policy in force.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub nice: Option<i32>,
    pub rt_priority: Option<u32>,
    pub slice_ns: Option<Ns>,
    pub dl: Option<DlParams>,
}

/// rt-app's DEFAULT_THREAD_PRIORITY: the sched_priority of a real-time task or phase
/// that names its policy without a `priority`.
pub const DEFAULT_RT_PRIORITY: u32 = 10;

/// Fix offered for an unknown policy.
const POLICIES: &str =
    "use SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR or SCHED_DEADLINE";

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
            "priority" => a.priority = Some((self.int(v, path)?, path.to_string())),
            "cpus" => a.cpus = Some(self.cpus(v, path)?),
            "util_min" => a.uclamp.min = self.util_clamp(v, path)?,
            "util_max" => a.uclamp.max = self.util_clamp(v, path)?,
            // SCHED_DEADLINE's runtime; Linux 6.12+ takes sched_attr.sched_runtime of a
            // fair task as its custom slice (rt-app passes dl-runtime there). 0 = the
            // default slice.
            "dl-runtime" => a.dl_runtime = Some(self.micros(v, path)?),
            "dl-period" => a.dl_period = Some(self.micros(v, path)?),
            "dl-deadline" => a.dl_deadline = Some(self.micros(v, path)?),
            // rt-app's legacy task-level names; it reads them only in a task object.
            "period" => a.legacy_period = Some(self.micros(v, path)?),
            "deadline" => a.legacy_deadline = Some(self.micros(v, path)?),
            // SCHED_FLAG_RECLAIM, read by rt-app's grub-support branch (its
            // deadline_reclaim examples); rt-app's master ignores the key.
            "dl-reclaim" => match v {
                Json::Bool(false) => {}
                Json::Bool(true) => {
                    return Err(self
                        .err(
                            path,
                            "SCHED_DEADLINE bandwidth reclaiming (SCHED_FLAG_RECLAIM, GRUB) is not modelled",
                        )
                        .with_fix("remove dl-reclaim or set it to false (plain CBS throttling)"))
                }
                _ => return Err(self.wrong_type(path, "true or false", v)),
            },
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

    /// Read `a`'s priority and deadline keys for `policy`, the policy in force at that
    /// point (the task's, or for a phase the one it names or else the previous phase's).
    /// `task` = a task object, which also reads the legacy `period` / `deadline`.
    /// `path` is the object's, for errors that no single key causes.
    pub(super) fn resolve(
        &self,
        a: &Attrs,
        policy: Policy,
        task: bool,
        path: &str,
    ) -> Result<Resolved, InputError> {
        let param = |e: ParamError, at: &str| self.err(at, e.message).with_fix(e.fix);
        let mut r = Resolved::default();
        match policy.class() {
            SchedClass::Fair => {
                if let Some((n, at)) = &a.priority {
                    r.nice = Some(match *n {
                        n @ -20..=19 => n as i32,
                        n => {
                            return Err(self
                                .err(at, format!("priority {n} is not a nice value"))
                                .with_fix("fair policies take a nice value from -20 to 19"))
                        }
                    });
                }
                r.slice_ns = a.dl_runtime;
            }
            SchedClass::Rt => {
                if let Some((n, at)) = &a.priority {
                    r.rt_priority = Some(
                        check_rt_priority(policy.kernel_name(), *n).map_err(|e| param(e, at))?,
                    );
                }
            }
            SchedClass::Dl => {
                // rt-app parse_sched_data: dl-period defaults to dl-runtime, dl-deadline
                // to the period; in a task object a zero runtime, period or deadline
                // then falls back on the legacy `runtime` / `period` / `deadline`.
                let mut runtime = a.dl_runtime.unwrap_or(0);
                let mut period = a.dl_period.unwrap_or(runtime);
                let mut deadline = a.dl_deadline.unwrap_or(period);
                if task {
                    if runtime == 0 {
                        runtime = a.legacy_runtime.unwrap_or(0);
                    }
                    if period == 0 {
                        period = a.legacy_period.unwrap_or(runtime);
                    }
                    if deadline == 0 {
                        deadline = a.legacy_deadline.unwrap_or(period);
                    }
                }
                if runtime == 0 {
                    return Err(self
                        .err(path, "SCHED_DEADLINE without dl-runtime")
                        .with_fix(
                        "give dl-runtime (µs), and dl-period / dl-deadline if they differ from it",
                    ));
                }
                let dl = DlParams {
                    runtime,
                    deadline,
                    period,
                };
                check_dl(&dl).map_err(|e| param(e, path))?;
                r.dl = Some(dl);
            }
        }
        Ok(r)
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
            "SCHED_FIFO" => Ok(Policy::Fifo),
            "SCHED_RR" => Ok(Policy::Rr),
            "SCHED_DEADLINE" => Ok(Policy::Deadline),
            p => Err(self
                .err(path, format!("unknown policy '{p}'"))
                .with_fix(POLICIES)),
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
