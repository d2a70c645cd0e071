//! SCHED_DEADLINE admission control as sched_setattr applies it (kernel/sched/syscalls.c
//! __sched_setscheduler, deadline.c __checkparam_dl / sched_dl_overflow / __dl_overflow):
//! the parameter checks (EINVAL), the root-domain affinity rule (EPERM) and the global
//! bandwidth limit (EBUSY): the admitted tasks' Σ runtime/period, plus the fair servers'
//! 5 % per CPU from v6.12, may not exceed sched_rt_runtime / sched_rt_period (95 %) of
//! the CPUs' capacity. The errors name the errno and the numbers, for front ends that
//! build workloads and for Simulation::with_kernel, which refuses inadmissible tasks.

use super::{to_ratio, BW_SHIFT, DL_SCALE, FAIR_SERVER_PERIOD, FAIR_SERVER_RUNTIME};
use super::{SYSCTL_SCHED_DL_PERIOD_MAX_US, SYSCTL_SCHED_DL_PERIOD_MIN_US};
use crate::machine::Machine;
use crate::sched::rt::bandwidth::{DEF_RT_PERIOD_NS, DEF_RT_RUNTIME_NS};
use crate::sched::uapi::{DlParams, Policy, TaskAttrs};
use crate::sched::version::KernelVersion;
use crate::sched::{Sched, TaskId};
use crate::time::Ns;

fn ms(ns: Ns) -> String {
    let v = ns as f64 / 1e6;
    if v.fract() == 0.0 {
        format!("{v:.0} ms")
    } else {
        format!("{v} ms")
    }
}

/// __checkparam_dl: deadline nonzero, runtime ≥ 2^DL_SCALE ns, no bit 63, runtime ≤
/// deadline ≤ period (a zero period is the deadline), period within
/// sysctl_sched_dl_period_min .. _max (100 µs .. 2^22 µs).
pub fn checkparam_dl(d: &DlParams) -> Result<(), String> {
    let fail = |why: String| Err(format!("{why}: sched_setattr fails with EINVAL"));
    if d.deadline == 0 {
        return fail("SCHED_DEADLINE deadline is 0".into());
    }
    if d.runtime < 1 << DL_SCALE {
        return fail(format!(
            "SCHED_DEADLINE runtime {} ns is below the minimum of {} ns (2^DL_SCALE)",
            d.runtime,
            1u64 << DL_SCALE
        ));
    }
    if d.deadline & (1 << 63) != 0 || d.period & (1 << 63) != 0 {
        return fail("SCHED_DEADLINE deadline or period has bit 63 set".into());
    }
    let period = if d.period == 0 { d.deadline } else { d.period };
    if period < d.deadline || d.deadline < d.runtime {
        return fail(format!(
            "SCHED_DEADLINE runtime {} / deadline {} / period {}: the kernel needs runtime ≤ \
             deadline ≤ period",
            ms(d.runtime),
            ms(d.deadline),
            ms(period)
        ));
    }
    let (min, max) = (
        SYSCTL_SCHED_DL_PERIOD_MIN_US * 1000,
        SYSCTL_SCHED_DL_PERIOD_MAX_US * 1000,
    );
    if period < min || period > max {
        return fail(format!(
            "SCHED_DEADLINE period {} is outside sched_deadline_period_min_us .. _max_us \
             ({} µs .. {} µs)",
            ms(period),
            SYSCTL_SCHED_DL_PERIOD_MIN_US,
            SYSCTL_SCHED_DL_PERIOD_MAX_US
        ));
    }
    Ok(())
}

/// One task's checks: a SCHED_DEADLINE task needs its parameters (checkparam_dl) and an
/// affinity covering the whole root domain (one root domain here: every CPU; without
/// exclusive cpusets the kernel refuses a narrower one with EPERM). Other policies pass.
pub fn dl_check_task(attrs: &TaskAttrs, nr_cpus: usize) -> Result<(), String> {
    if attrs.policy != Policy::Deadline {
        return Ok(());
    }
    let who = format!("task '{}'", attrs.comm);
    let Some(d) = attrs.dl else {
        return Err(format!(
            "{who}: SCHED_DEADLINE without runtime/deadline/period: sched_setattr fails with \
             EINVAL"
        ));
    };
    checkparam_dl(&d).map_err(|e| format!("{who}: {e}"))?;
    if let Some(cpus) = &attrs.cpus {
        let mut all = vec![false; nr_cpus];
        for &c in cpus {
            if c < nr_cpus {
                all[c] = true;
            }
        }
        if all.iter().any(|&a| !a) {
            return Err(format!(
                "{who}: a SCHED_DEADLINE task must be allowed on every CPU of its root domain \
                 (affinity {cpus:?} of {nr_cpus} CPUs; the kernel needs an exclusive cpuset for \
                 that): sched_setattr fails with EPERM"
            ));
        }
    }
    Ok(())
}

/// The global limit as the root domain's dl_bw holds it.
#[derive(Debug, Clone, Copy)]
struct DlLimit {
    /// dl_b->bw: to_ratio(sched_rt_period, sched_rt_runtime); None = RUNTIME_INF (−1).
    bw: Option<u64>,
    /// dl_bw_capacity: CPUs << SCHED_CAPACITY_SHIFT on a symmetric machine, else Σ
    /// capacity_orig.
    cap: u64,
    cpus: usize,
    runtime: Option<Ns>,
    period: Ns,
    /// The fair servers' Σ bandwidth (v6.12+: dl_server_apply_params at boot).
    servers: u64,
}

impl DlLimit {
    fn new(machine: &Machine, kernel: KernelVersion, runtime: Option<Ns>, period: Ns) -> Self {
        let cpus = machine.nr_cpus();
        let cap = (0..cpus).map(|c| machine.arch_scale_cpu_capacity(c)).sum();
        let servers = if kernel.has_fair_server() {
            cpus as u64 * to_ratio(FAIR_SERVER_PERIOD, FAIR_SERVER_RUNTIME)
        } else {
            0
        };
        DlLimit {
            bw: runtime.map(|r| to_ratio(period, r)),
            cap,
            cpus,
            runtime,
            period,
            servers,
        }
    }

    /// __dl_overflow: cap_scale(bw, cap) < total_bw − old + new.
    fn overflows(&self, total: u64) -> bool {
        self.bw
            .is_some_and(|bw| ((bw as u128 * self.cap as u128) >> 10) < total as u128)
    }

    /// The EBUSY text: the tasks' bandwidth `asked` (servers excluded) and the limit.
    fn error(&self, who: &str, asked: u64) -> String {
        let cpus_of = |bw: u64| bw as f64 / (1u64 << BW_SHIFT) as f64;
        let limit = self
            .bw
            .map_or(0.0, |bw| cpus_of(bw) * self.cap as f64 / 1024.0);
        let pct = self
            .runtime
            .map_or(100.0, |r| r as f64 * 100.0 / self.period as f64);
        let mut s = format!(
            "SCHED_DEADLINE tasks ask {:.2} CPUs of bandwidth; the limit is {limit:.2} ({pct:.0}% \
             of {} CPUs",
            cpus_of(asked),
            self.cpus
        );
        if self.cap != self.cpus as u64 * 1024 {
            s += &format!(" of total capacity {}", self.cap);
        }
        s += ")";
        if self.servers > 0 {
            s += &format!(
                ", of which the fair deadline servers hold {:.2} (50 ms/s per CPU, v6.12+)",
                cpus_of(self.servers)
            );
        }
        format!("{s}: sched_setattr of {who} fails with EBUSY")
    }
}

/// Admission of a set of tasks created in order (each sched_setattr to SCHED_DEADLINE is
/// admitted against those before it): Ok, or the first refusal — EINVAL or EPERM from the
/// task's own checks, EBUSY with the whole set's bandwidth and the limit. Uses the
/// default sysctls (sched_rt_runtime_us 950000, sched_rt_period_us 1000000).
pub fn dl_admit<'a>(
    machine: &Machine,
    kernel: KernelVersion,
    tasks: impl IntoIterator<Item = &'a TaskAttrs>,
) -> Result<(), String> {
    dl_admit_with(
        machine,
        kernel,
        Some(DEF_RT_RUNTIME_NS),
        DEF_RT_PERIOD_NS,
        tasks,
    )
}

/// dl_admit with explicit sched_rt_runtime (None = −1, no limit) and sched_rt_period.
pub fn dl_admit_with<'a>(
    machine: &Machine,
    kernel: KernelVersion,
    rt_runtime: Option<Ns>,
    rt_period: Ns,
    tasks: impl IntoIterator<Item = &'a TaskAttrs>,
) -> Result<(), String> {
    let limit = DlLimit::new(machine, kernel, rt_runtime, rt_period);
    let mut total = limit.servers;
    let mut first_refused: Option<String> = None;
    for t in tasks {
        dl_check_task(t, limit.cpus)?;
        let Some(d) = t.dl.filter(|_| t.policy == Policy::Deadline) else {
            continue;
        };
        let period = if d.period == 0 { d.deadline } else { d.period };
        let new_bw = to_ratio(period, d.runtime);
        total += new_bw;
        if first_refused.is_none() && limit.overflows(total) {
            first_refused = Some(format!("task '{}'", t.comm));
        }
    }
    match first_refused {
        Some(who) => Err(limit.error(&who, total - limit.servers)),
        None => Ok(()),
    }
}

impl Sched {
    /// dl_admit for this machine, kernel and sysctls.
    pub fn dl_admit<'a>(
        &self,
        tasks: impl IntoIterator<Item = &'a TaskAttrs>,
    ) -> Result<(), String> {
        dl_admit_with(
            &self.machine,
            self.cfg.kernel,
            self.cfg.rt_runtime_ns,
            self.cfg.rt_period_ns,
            tasks,
        )
    }

    /// sched_dl_overflow at run time (sched_setattr of `p` to SCHED_DEADLINE with `d`):
    /// the parameter and affinity checks, then the bandwidth against what is admitted
    /// now (the task's own old bandwidth replaced). Err leaves the task as it was.
    pub fn sched_dl_overflow(&mut self, p: TaskId, d: &DlParams) -> Result<(), String> {
        let t = &self.tasks[p];
        let attrs = TaskAttrs {
            comm: t.comm.clone(),
            policy: Policy::Deadline,
            nice: t.nice,
            rt_priority: 0,
            dl: Some(*d),
            slice_ns: None,
            uclamp: Default::default(),
            cpus: Some(
                (0..self.machine.nr_cpus())
                    .filter(|&c| t.cpus_allowed[c])
                    .collect(),
            ),
        };
        dl_check_task(&attrs, self.machine.nr_cpus())?;
        for cpu in 0..self.machine.nr_cpus() {
            self.dl_inactive_timers(cpu);
        }
        let limit = DlLimit::new(
            &self.machine,
            self.cfg.kernel,
            self.cfg.rt_runtime_ns,
            self.cfg.rt_period_ns,
        );
        let period = if d.period == 0 { d.deadline } else { d.period };
        let new_bw = to_ratio(period, d.runtime);
        let old_bw = match self.tasks[p].dl.as_deref() {
            Some(e) if self.tasks[p].policy == Policy::Deadline => e.dl_bw,
            _ => 0,
        };
        let total = limit.servers + self.rd.dl_bw.total_bw - old_bw + new_bw;
        if limit.overflows(total) {
            let who = format!("task '{}'", self.tasks[p].comm);
            return Err(limit.error(&who, total - limit.servers));
        }
        Ok(())
    }
}
