//! Kernel sysctls a scenario may set (`--sysctl NAME=VALUE`, a `[sysctl]` table), by their
//! /proc/sys/kernel names.

use crate::error::InputError;
use crate::sched::version::KernelVersion;

/// The CFS tunables in effect, for the result document's sysctl echo (CFS kernels only, so
/// other kernels' documents are unchanged).
pub fn cfs_echo(s: &crate::sched::Sched) -> Vec<(String, u64)> {
    if !s.cfg.kernel.is_cfs() {
        return Vec::new();
    }
    let t = &s.cfg.cfs;
    vec![
        ("sched_latency_ns".into(), t.latency),
        ("sched_min_granularity_ns".into(), t.min_granularity),
        ("sched_wakeup_granularity_ns".into(), t.wakeup_granularity),
        ("sched_tunable_scaling".into(), t.scaling as u64),
    ]
}

/// Every settable sysctl: (name, range, meaning).
pub const SYSCTLS: &[(&str, (u64, u64), &str)] = &[
    (
        "sched_util_clamp_min",
        (0, 1024),
        "system-wide cap on every task's uclamp_min (kernel/sched/core.c sysctl_sched_uclamp_util_min/max)",
    ),
    (
        "sched_util_clamp_max",
        (0, 1024),
        "system-wide cap on every task's uclamp_max (kernel/sched/core.c sysctl_sched_uclamp_util_min/max)",
    ),
    (
        "sched_latency_ns",
        (100_000, 1_000_000_000),
        "CFS kernels (<= 6.5): the period every runnable task runs once in (default 6 ms x factor)",
    ),
    (
        "sched_min_granularity_ns",
        (100_000, 1_000_000_000),
        "CFS kernels (<= 6.5): the shortest slice and the tick-preemption floor (default 0.75 ms x factor)",
    ),
    (
        "sched_wakeup_granularity_ns",
        (0, 1_000_000_000),
        "CFS kernels (<= 6.5): how far ahead in vruntime a wakee must be to preempt (default 1 ms x factor)",
    ),
    (
        "sched_tunable_scaling",
        (0, 2),
        "CFS kernels (<= 6.5): the CPU-count factor of the three above: 0 none, 1 log (default: 1 + ilog2(min(ncpus, 8))), 2 linear",
    ),
    (
        "sched_rt_runtime_us",
        (0, i32::MAX as u64),
        "RT throttling (kernels < 6.12): real-time runtime per period on each CPU (default 950000; -1 = no limit)",
    ),
    (
        "sched_rt_period_us",
        (1, i32::MAX as u64),
        "RT throttling (kernels < 6.12): the period of sched_rt_runtime_us (default 1000000)",
    ),
    (
        "sched_rr_timeslice_ms",
        (1, i32::MAX as u64),
        "SCHED_RR time slice (default 100, rounded up to whole ticks)",
    ),
];

/// sched_rt_runtime_us = -1: no RT runtime limit (RUNTIME_INF).
pub const RT_RUNTIME_INF: i64 = -1;

/// The CFS tunables, which exist only in kernels up to v6.5 (the pre-v5.13 sysctl ranges).
const CFS_SYSCTLS: [&str; 4] = [
    "sched_latency_ns",
    "sched_min_granularity_ns",
    "sched_wakeup_granularity_ns",
    "sched_tunable_scaling",
];

/// The values in effect; kernel defaults unless set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sysctls {
    pub sched_util_clamp_min: u32,
    pub sched_util_clamp_max: u32,
    /// Any uclamp sysctl was written (this turns the uclamp static key on).
    pub uclamp_written: bool,
    /// CFS tunables as written (`None` = the kernel's scaled default), in CFS_SYSCTLS order.
    pub cfs: [Option<u64>; 4],
    /// sched_rt_runtime_us (−1 = no limit), sched_rt_period_us, sched_rr_timeslice_ms as
    /// written (`None` = default).
    pub rt_runtime_us: Option<i64>,
    pub rt_period_us: Option<u64>,
    pub rr_timeslice_ms: Option<u64>,
}

impl Default for Sysctls {
    fn default() -> Self {
        Sysctls {
            sched_util_clamp_min: 1024,
            sched_util_clamp_max: 1024,
            uclamp_written: false,
            cfs: [None; 4],
            rt_runtime_us: None,
            rt_period_us: None,
            rr_timeslice_ms: None,
        }
    }
}

impl Sysctls {
    /// Set `name` to `value`; `origin` names the flag or file key for errors.
    pub fn set(&mut self, name: &str, value: u64, origin: &str) -> Result<(), InputError> {
        let Some(&(_, (lo, hi), _)) = SYSCTLS.iter().find(|(n, _, _)| *n == name) else {
            let known: Vec<&str> = SYSCTLS.iter().map(|s| s.0).collect();
            return Err(InputError::new(origin, format!("unknown sysctl '{name}'"))
                .with_fix(format!("known: {}", known.join(", "))));
        };
        if value < lo || value > hi {
            return Err(InputError::new(
                origin,
                format!("{name} = {value} is outside {lo}..={hi}"),
            )
            .with_fix(format!("give {name} a value in {lo}..={hi}")));
        }
        if let Some(i) = CFS_SYSCTLS.iter().position(|n| *n == name) {
            self.cfs[i] = Some(value);
            return Ok(());
        }
        match name {
            "sched_rt_runtime_us" => self.set_rt_runtime(value as i64),
            "sched_rt_period_us" => self.rt_period_us = Some(value),
            "sched_rr_timeslice_ms" => self.rr_timeslice_ms = Some(value),
            "sched_util_clamp_min" => self.sched_util_clamp_min = value as u32,
            _ => self.sched_util_clamp_max = value as u32,
        }
        self.uclamp_written |= name.starts_with("sched_util_clamp");
        Ok(())
    }

    /// sched_rt_runtime_us, −1 included (checked against the period in `check_kernel`).
    pub fn set_rt_runtime(&mut self, us: i64) {
        self.rt_runtime_us = Some(us);
    }

    /// The CFS tunables exist only in CFS kernels (v6.6 replaced them by base_slice_ns).
    pub fn check_kernel(&self, v: KernelVersion) -> Result<(), InputError> {
        // sched_rt_global_validate: a finite runtime may not exceed the period.
        let period = self.rt_period_us.unwrap_or(1_000_000);
        if let Some(rt) = self.rt_runtime_us.filter(|&r| r != RT_RUNTIME_INF) {
            if rt as u64 > period {
                return Err(InputError::new(
                    "sysctl",
                    format!("sched_rt_runtime_us = {rt} exceeds sched_rt_period_us = {period}"),
                )
                .with_fix("give a runtime up to the period, or -1 for no limit"));
            }
        }
        match self.cfs.iter().position(|c| c.is_some()) {
            Some(i) if !v.is_cfs() => Err(InputError::new(
                "sysctl",
                format!("{} does not exist in kernel {}", CFS_SYSCTLS[i], v.name()),
            )
            .with_fix("it is a CFS tunable: use --kernel 5.18, 6.1 or 6.5, or drop it")),
            _ => Ok(()),
        }
    }

    /// Parse `NAME=VALUE` (the `--sysctl` flag).
    pub fn set_assignment(&mut self, text: &str) -> Result<(), InputError> {
        let origin = format!("--sysctl '{text}'");
        let (name, value) = text.split_once('=').ok_or_else(|| {
            InputError::new(&origin, "expected NAME=VALUE")
                .with_fix("e.g. --sysctl sched_util_clamp_max=512")
        })?;
        if name.trim() == "sched_rt_runtime_us" && value.trim() == "-1" {
            self.set_rt_runtime(RT_RUNTIME_INF);
            return Ok(());
        }
        let value: u64 = value.trim().parse().map_err(|_| {
            InputError::new(
                &origin,
                format!("'{}' is not a non-negative integer", value.trim()),
            )
        })?;
        self.set(name.trim(), value, &origin)
    }

    /// Write them into the kernel model.
    pub fn apply(&self, sched: &mut crate::sched::Sched) {
        sched.cfg.sysctl_uclamp = [self.sched_util_clamp_min, self.sched_util_clamp_max];
        if self.uclamp_written {
            sched.cfg.uclamp_used = true;
        }
        self.apply_cfs(sched);
        self.apply_rt(sched);
    }

    /// The RT bandwidth and RR slice; the tasks, created before, start with the new slice
    /// (sched_fork reads sched_rr_timeslice).
    fn apply_rt(&self, sched: &mut crate::sched::Sched) {
        if let Some(rt) = self.rt_runtime_us {
            sched.cfg.rt_runtime_ns = (rt != RT_RUNTIME_INF).then(|| rt as u64 * 1000);
        }
        if let Some(p) = self.rt_period_us {
            sched.cfg.rt_period_ns = p * 1000;
        }
        if let Some(ms) = self.rr_timeslice_ms {
            sched.cfg.rr_timeslice_ms = ms;
            let ticks = sched.cfg.rr_timeslice_ticks();
            for r in sched.tasks.iter_mut().filter_map(|t| t.rt.as_deref_mut()) {
                r.time_slice = ticks;
            }
        }
    }

    /// The RT sysctls written, for the result document's echo (documents of runs that
    /// leave them alone are unchanged).
    pub fn rt_echo(&self) -> Vec<(String, u64)> {
        let mut v = Vec::new();
        if let Some(rt) = self.rt_runtime_us {
            // −1 is echoed as u64::MAX: the document's sysctl map holds unsigned values.
            v.push((
                "sched_rt_runtime_us".into(),
                if rt < 0 { u64::MAX } else { rt as u64 },
            ));
        }
        if let Some(p) = self.rt_period_us {
            v.push(("sched_rt_period_us".into(), p));
        }
        if let Some(ms) = self.rr_timeslice_ms {
            v.push(("sched_rr_timeslice_ms".into(), ms));
        }
        v
    }

    /// sched_tunable_scaling re-scales the normalized values (update_sysctl); a tunable
    /// written explicitly keeps its value, as a later debugfs write would.
    fn apply_cfs(&self, sched: &mut crate::sched::Sched) {
        let [latency, min_gran, wakeup_gran, scaling] = self.cfs;
        let scaling = scaling.map_or(crate::sched::TUNABLESCALING_LOG, |s| s as u32);
        let t = &mut sched.cfg.cfs;
        *t = crate::sched::CfsTunables::scaled(sched.machine.nr_cpus(), scaling);
        t.latency = latency.unwrap_or(t.latency);
        t.min_granularity = min_gran.unwrap_or(t.min_granularity);
        t.wakeup_granularity = wakeup_gran.unwrap_or(t.wakeup_granularity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_and_errors() {
        let mut s = Sysctls::default();
        s.set_assignment("sched_util_clamp_max=512").unwrap();
        assert_eq!(s.sched_util_clamp_max, 512);
        assert!(s.uclamp_written);
        let e = s.set_assignment("sched_util_clamp_max=2000").unwrap_err();
        assert!(e.to_string().contains("outside 0..=1024"), "{e}");
        let e = s.set_assignment("sched_foo_ns=1").unwrap_err();
        assert!(e.to_string().contains("sched_util_clamp_min"), "{e}");
        assert!(s.set_assignment("sched_util_clamp_min").is_err());
        assert!(s.set_assignment("sched_util_clamp_min=-1").is_err());
    }
}
