//! The speed suite (`schedlab bench --suite`, docs/performance.md): the full-size scenarios
//! whose simulated-seconds-per-wall-second we track. Every row is also a command line any
//! schedlab binary accepts (`Row::command`), so two binaries can be timed side by side.

use super::bench::on_machine_grouped;
use super::run::run_scenario;
use super::{RunResult, Scenario};
use crate::error::InputError;
use crate::sched::cpufreq_schedutil::Governor;
use crate::time::{Ns, NSEC_PER_MSEC, NSEC_PER_SEC};

/// How a row builds its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// The `bench` standard mix (8 pinned hogs + 8 periodic tasks per CPU) on `machine`.
    Mix,
    /// `schedlab run -m MACHINE [-t DURATION] -w W…`.
    Run(&'static [&'static str]),
}

/// One suite row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub name: &'static str,
    pub what: &'static str,
    pub machine: &'static str,
    /// Simulated time; `None` runs until every task has exited.
    pub duration_ns: Option<Ns>,
    pub kind: RowKind,
}

/// The rows of issue 17, in the order `bench --suite` runs them.
pub const SUITE: &[Row] = &[
    Row {
        name: "mix8",
        what: "64 hogs + 64 periodic, pinned",
        machine: "smp:8",
        duration_ns: Some(600 * NSEC_PER_SEC),
        kind: RowKind::Mix,
    },
    Row {
        name: "mix64",
        what: "512 hogs + 512 periodic, pinned",
        machine: "smp:64",
        duration_ns: Some(10 * NSEC_PER_SEC),
        kind: RowKind::Mix,
    },
    Row {
        name: "hackbench",
        what: "seed 000 at -l 8000",
        machine: "epyc-9654-2s",
        duration_ns: None,
        kind: RowKind::Run(&["hackbench -g 32 -f 20 --threads --pipe -l 8000 -s 100"]),
    },
    Row {
        name: "stress-ng",
        what: "stress-ng --wait 480",
        machine: "power10-240c-smt8",
        duration_ns: Some(250 * NSEC_PER_MSEC),
        kind: RowKind::Run(&["stress-ng --wait 480"]),
    },
    Row {
        name: "prio-lb",
        what: "schbench + 5,000 SCHED_IDLE spinners",
        machine: "vm8",
        duration_ns: Some(30 * NSEC_PER_SEC),
        kind: RowKind::Run(&[
            "schbench -m 1 -t 10 -r 30 -R 200",
            "spinner -n 5000 --policy idle --sleep 500us --work 1ms",
        ]),
    },
    Row {
        name: "sleepers-1m",
        what: "1 M tasks sleeping 10 s between 100 us runs",
        machine: "power10-240c-smt8",
        duration_ns: Some(2 * NSEC_PER_SEC),
        kind: RowKind::Run(&["spinner -n 1000000 --sleep 10s --work 100us --spread 1s"]),
    },
];

/// The row called `name`.
pub fn row(name: &str) -> Result<&'static Row, InputError> {
    SUITE.iter().find(|r| r.name == name).ok_or_else(|| {
        let names: Vec<_> = SUITE.iter().map(|r| r.name).collect();
        InputError::new("--row", format!("unknown suite row '{name}'"))
            .with_fix(format!("use one of: {}", names.join(", ")))
    })
}

impl Row {
    /// Arguments to a schedlab binary that run this row (`bench` for the mixes, `run`
    /// otherwise); the same scenario in every version that has these flags.
    pub fn command(&self) -> Vec<String> {
        let secs = self.duration_ns.map(|d| d / NSEC_PER_SEC);
        match self.kind {
            RowKind::Mix => vec![
                "bench".into(),
                "-m".into(),
                self.machine.into(),
                "--secs".into(),
                secs.expect("mix rows are timed").to_string(),
            ],
            RowKind::Run(ws) => {
                let mut v = vec!["run".into(), "-m".into(), self.machine.into()];
                if let Some(d) = self.duration_ns {
                    v.extend(["-t".into(), format!("{}ms", d / NSEC_PER_MSEC)]);
                }
                for w in ws {
                    v.extend(["-w".into(), (*w).into()]);
                }
                v
            }
        }
    }

    /// Run the row in this process.
    pub fn run(&self) -> Result<RunResult, InputError> {
        match self.kind {
            RowKind::Mix => on_machine_grouped(
                self.duration_ns.expect("mix rows are timed") / NSEC_PER_SEC,
                self.machine,
                Governor::Schedutil,
                0,
            ),
            RowKind::Run(ws) => run_scenario(&Scenario {
                machine: self.machine.into(),
                duration_ns: self.duration_ns,
                workloads: ws.iter().map(|w| (*w).into()).collect(),
                ..Scenario::default()
            }),
        }
    }
}

/// This process's peak resident set in KiB (VmHWM), if the OS tells it.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_unique_names_and_commands() {
        for (i, r) in SUITE.iter().enumerate() {
            assert!(SUITE[..i].iter().all(|o| o.name != r.name));
            assert!(row(r.name).is_ok());
        }
        assert_eq!(
            row("stress-ng").unwrap().command().join(" "),
            "run -m power10-240c-smt8 -t 250ms -w stress-ng --wait 480"
        );
        assert!(row("nope").is_err());
    }
}
