//! Kernel sysctls a scenario may set (`--sysctl NAME=VALUE`, a `[sysctl]` table), by their
//! /proc/sys/kernel names.

use crate::error::InputError;

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
];

/// The values in effect; kernel defaults unless set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sysctls {
    pub sched_util_clamp_min: u32,
    pub sched_util_clamp_max: u32,
    /// Any uclamp sysctl was written (this turns the uclamp static key on).
    pub uclamp_written: bool,
}

impl Default for Sysctls {
    fn default() -> Self {
        Sysctls {
            sched_util_clamp_min: 1024,
            sched_util_clamp_max: 1024,
            uclamp_written: false,
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
            ));
        }
        match name {
            "sched_util_clamp_min" => self.sched_util_clamp_min = value as u32,
            _ => self.sched_util_clamp_max = value as u32,
        }
        self.uclamp_written = true;
        Ok(())
    }

    /// Parse `NAME=VALUE` (the `--sysctl` flag).
    pub fn set_assignment(&mut self, text: &str) -> Result<(), InputError> {
        let origin = format!("--sysctl '{text}'");
        let (name, value) = text.split_once('=').ok_or_else(|| {
            InputError::new(&origin, "expected NAME=VALUE")
                .with_fix("e.g. --sysctl sched_util_clamp_max=512")
        })?;
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
        let e = s.set_assignment("sched_latency_ns=1").unwrap_err();
        assert!(e.to_string().contains("sched_util_clamp_min"), "{e}");
        assert!(s.set_assignment("sched_util_clamp_min").is_err());
        assert!(s.set_assignment("sched_util_clamp_min=-1").is_err());
    }
}
