//! Checks of real-time and deadline parameters that every front end shares: the ones
//! sched_setattr makes per task (kernel/sched/syscalls.c `valid_policy` and the priority
//! range of __sched_setscheduler; kernel/sched/deadline.c `__checkparam_dl`), so a file
//! the kernel would refuse with EINVAL is refused here at load time, with a fix.
//!
//! The global admission test of a set of SCHED_DEADLINE tasks (their summed bandwidth
//! against 95 % of the CPUs, `sched_dl_overflow`) needs the machine and belongs to the
//! deadline class (issue 20, part 3): its call site is marked `TODO(issue 20, DL
//! admission)` in experiment/run.rs `prepare_on`.

use super::cmdline::{self, long_value, OptSpec, Parsed};
use super::{Policy, TaskSpec};
use crate::error::InputError;
use crate::sched::uapi::MAX_RT_PRIORITY;
use crate::sched::{DlParams, SchedChange, SchedClass};
use crate::time::{Ns, NSEC_PER_USEC};

/// `sysctl_sched_dl_period_min` (100 µs) and `_max` (2^22 µs ≈ 4.19 s), the bounds
/// __checkparam_dl puts on a deadline task's period since Linux 5.9.
pub const DL_PERIOD_MIN_NS: Ns = 100 * NSEC_PER_USEC;
pub const DL_PERIOD_MAX_NS: Ns = (1 << 22) * NSEC_PER_USEC;
/// DL_SCALE: the runtime must be at least 2^10 ns (the kernel drops those bits).
pub const DL_RUNTIME_MIN_NS: Ns = 1 << 10;

/// A refused parameter set: what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    pub message: String,
    pub fix: String,
}

fn refuse(message: String, fix: &str) -> ParamError {
    ParamError {
        message,
        fix: fix.to_string(),
    }
}

/// sched_priority of SCHED_FIFO / SCHED_RR: 1..=99 (`policy` names it in the message).
pub fn check_rt_priority(policy: &str, prio: i64) -> Result<u32, ParamError> {
    match prio {
        1..=99 => Ok(prio as u32),
        _ => Err(refuse(
            format!("priority {prio} is not a real-time priority ({policy} takes 1 to {MAX_RT_PRIORITY}; sched_setattr would fail with EINVAL)"),
            "give a sched_priority from 1 (lowest) to 99 (highest)",
        )),
    }
}

/// __checkparam_dl: deadline ≠ 0, runtime ≥ 1024 ns, runtime ≤ deadline ≤ period (a zero
/// period is the deadline), period within [100 µs, 2^22 µs]. Values in the message are µs.
pub fn check_dl(p: &DlParams) -> Result<(), ParamError> {
    let us = |ns: Ns| {
        if ns.is_multiple_of(NSEC_PER_USEC) {
            format!("{} µs", ns / NSEC_PER_USEC)
        } else {
            format!("{ns} ns")
        }
    };
    let period = if p.period == 0 { p.deadline } else { p.period };
    if p.runtime < DL_RUNTIME_MIN_NS {
        return Err(refuse(
            format!(
                "SCHED_DEADLINE runtime {} is below the kernel's minimum of 1024 ns",
                us(p.runtime)
            ),
            "give a runtime of at least 2 µs (dl-runtime)",
        ));
    }
    if p.deadline == 0 {
        return Err(refuse(
            "SCHED_DEADLINE deadline 0".to_string(),
            "give a deadline (dl-deadline, default: the period) of at least the runtime",
        ));
    }
    if p.runtime > p.deadline {
        return Err(refuse(
            format!(
                "SCHED_DEADLINE runtime {} exceeds its deadline {}",
                us(p.runtime),
                us(p.deadline)
            ),
            "the kernel needs runtime <= deadline <= period",
        ));
    }
    if p.deadline > period {
        return Err(refuse(
            format!(
                "SCHED_DEADLINE deadline {} exceeds its period {}",
                us(p.deadline),
                us(period)
            ),
            "the kernel needs runtime <= deadline <= period",
        ));
    }
    if !(DL_PERIOD_MIN_NS..=DL_PERIOD_MAX_NS).contains(&period) {
        return Err(refuse(
            format!(
                "SCHED_DEADLINE period {} is outside the kernel's 100 µs to 4194304 µs (sched_deadline_period_min_us / _max_us)",
                us(period)
            ),
            "give a period (dl-period, default: the runtime) from 100 µs to about 4.19 s",
        ));
    }
    Ok(())
}

/// A policy as a command-line front end gives it (`--policy`, `--priority`,
/// `--dl-runtime`, `--dl-deadline`, `--dl-period`): the policy, the sched_priority of a
/// real-time one and the parameters of SCHED_DEADLINE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CliPolicy {
    pub policy: Policy,
    pub rt_priority: u32,
    pub dl: Option<DlParams>,
}

impl CliPolicy {
    /// The sched_setattr a task makes to take this policy and `nice` (a launched child
    /// switching itself, as `chrt` does).
    pub fn change(&self, nice: i32) -> SchedChange {
        SchedChange {
            policy: Some(self.policy),
            rt_priority: (self.policy.class() == SchedClass::Rt).then_some(self.rt_priority),
            dl: self.dl,
            nice: Some(nice),
            ..SchedChange::default()
        }
    }

    /// Give `spec` this policy (its nice value is set apart).
    pub fn apply(&self, spec: TaskSpec) -> TaskSpec {
        match self.policy.class() {
            SchedClass::Fair => spec.policy(self.policy),
            SchedClass::Rt => spec.rt(self.policy, self.rt_priority),
            SchedClass::Dl => spec.deadline(self.dl.expect("checked by cli_policy")),
        }
    }
}

/// The options [`cli_policy`] reads; a front end adds them to its own.
pub const POLICY_OPTS: [OptSpec; 5] = [
    long_value("policy"),
    long_value("priority"),
    long_value("dl-runtime"),
    long_value("dl-deadline"),
    long_value("dl-period"),
];

/// Read `--policy` (normal / other / SCHED_OTHER, batch, idle, fifo, rr, deadline, in
/// either spelling; default normal), `--priority N` (sched_priority 1..=99, required by
/// fifo and rr, as chrt requires it) and, for deadline, `--dl-runtime DUR` (required),
/// `--dl-period DUR` (required) and `--dl-deadline DUR` (default: the period); bare
/// numbers are µs. Options that do not fit the policy are errors.
pub fn cli_policy(tool: &str, p: &Parsed) -> Result<CliPolicy, InputError> {
    let at = |spec: &OptSpec| format!("{tool} {}", spec.display());
    let policy = match p.get("policy") {
        None => Policy::Normal,
        Some((spec, v)) => match v {
            "normal" | "other" | "SCHED_OTHER" => Policy::Normal,
            "batch" | "SCHED_BATCH" => Policy::Batch,
            "idle" | "SCHED_IDLE" => Policy::Idle,
            "fifo" | "SCHED_FIFO" => Policy::Fifo,
            "rr" | "SCHED_RR" => Policy::Rr,
            "deadline" | "SCHED_DEADLINE" => Policy::Deadline,
            other => {
                return Err(
                    InputError::new(at(spec), format!("unknown policy '{other}'"))
                        .with_fix("use normal, batch, idle, fifo, rr or deadline"),
                )
            }
        },
    };
    let class = policy.class();
    let name = policy.kernel_name();
    let mut out = CliPolicy {
        policy,
        rt_priority: 0,
        dl: None,
    };
    match (p.get("priority"), class) {
        (Some((spec, v)), SchedClass::Rt) => {
            let n: i64 = v.trim().parse().map_err(|_| {
                InputError::new(at(spec), format!("'{v}' is not an integer"))
                    .with_fix("give a sched_priority from 1 to 99")
            })?;
            out.rt_priority = check_rt_priority(name, n)
                .map_err(|e| InputError::new(at(spec), e.message).with_fix(e.fix))?;
        }
        (None, SchedClass::Rt) => {
            return Err(InputError::new(
                format!("{tool} --policy"),
                format!("{name} needs --priority"),
            )
            .with_fix("add --priority N, a sched_priority from 1 (lowest) to 99 (highest)"))
        }
        (Some((spec, _)), _) => {
            return Err(InputError::new(
                at(spec),
                format!("--priority is the sched_priority of SCHED_FIFO / SCHED_RR, not of {name}"),
            )
            .with_fix("use --policy fifo or rr with it (a fair task's priority is --nice)"))
        }
        (None, _) => {}
    }
    let dur = |long: &str| match p.get(long) {
        Some((spec, v)) => cmdline::duration(tool, spec, v, "us").map(|d| Some((d, *spec))),
        None => Ok(None),
    };
    let (runtime, deadline, period) = (dur("dl-runtime")?, dur("dl-deadline")?, dur("dl-period")?);
    if class != SchedClass::Dl {
        if let Some((_, spec)) = runtime.or(deadline).or(period) {
            return Err(InputError::new(
                at(&spec),
                format!(
                    "{} is a SCHED_DEADLINE parameter, and the policy is {name}",
                    spec.display()
                ),
            )
            .with_fix("add --policy deadline, or remove it"));
        }
        return Ok(out);
    }
    let need = |v: Option<(Ns, OptSpec)>, long: &str| {
        v.map(|(d, _)| d).ok_or_else(|| {
            InputError::new(
                format!("{tool} --policy"),
                format!("SCHED_DEADLINE needs --{long}"),
            )
            .with_fix("give --dl-runtime and --dl-period (and --dl-deadline if it is shorter than the period)")
        })
    };
    let period = need(period, "dl-period")?;
    let dl = DlParams {
        runtime: need(runtime, "dl-runtime")?,
        deadline: deadline.map(|(d, _)| d).unwrap_or(period),
        period,
    };
    check_dl(&dl).map_err(|e| {
        InputError::new(format!("{tool} --policy deadline"), e.message).with_fix(e.fix)
    })?;
    out.dl = Some(dl);
    Ok(out)
}
