//! The scenario value every entry point builds (docs/architecture.md: one scenario value).
//! TOML form and its keys: docs/scenario.md.

pub use crate::sched::PreemptModel;
use crate::time::Ns;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Machine preset name (`smp:8`).
    pub machine: String,
    /// Feature list in debugfs syntax, applied over the kernel defaults.
    pub features: String,
    pub seed: u64,
    /// Stop after this much simulated time; `None` = the workload's own duration, else
    /// when every task has exited (with a safety cap of 1 hour of simulated time).
    pub duration_ns: Option<Ns>,
    pub hz: u32,
    pub preempt: PreemptModel,
    /// Kernel version (`--kernel`, `kernel = "6.5"`); `None` = the machine file's, else current.
    pub kernel: Option<crate::sched::version::KernelVersion>,
    /// PELT half-life in ms: 32 (mainline), 16 or 8 (Android's sched_pelt_multiplier 2, 4).
    pub pelt_halflife_ms: u32,
    /// Kernel sysctls (`--sysctl`, `[sysctl]`).
    pub sysctl: super::sysctl::Sysctls,
    /// CPU frequency governor (`--governor`).
    pub governor: crate::sched::cpufreq_schedutil::Governor,
    /// Seeded run-to-run variation (`[noise]`); off by default.
    pub noise: super::noise::Noise,
    /// Machine cost parameters set over the machine's own (`[costs]`, docs/machines.md),
    /// to show how an answer depends on an assumed cost.
    pub costs: std::collections::BTreeMap<String, u64>,
    /// `-w` arguments, `FRONTEND ARGS…`.
    pub workloads: Vec<String>,
    /// Folder that relative workload paths start from.
    pub base_dir: PathBuf,
    /// The `[cgroups]` tree, parents first (empty = every task in the root group).
    pub cgroups: Vec<crate::sched::fair::group::CgroupSpec>,
    /// `--autogroup` / `autogroup = true`: one task group per session (`-w` workload).
    pub autogroup: bool,
    /// `--tick-aligned` / `tick_aligned = true`: every CPU's tick on one grid from t=0, as
    /// before per-seed tick phases (docs/model.md, Time, work and events).
    pub tick_aligned: bool,
    /// `--boot-start` / `boot_start = true`: the run starts at boot, so each domain's
    /// first periodic balance waits one interval; by default the machine has been idle
    /// for five minutes and every level is due at the first tick (docs/model.md, Load
    /// balancing).
    pub boot_start: bool,
    /// `uclamp_leaked_min = 480`: every CPU starts holding one leaked uclamp entry of that
    /// UCLAMP_MIN (and UCLAMP_MAX 1024), the state the delayed-dequeue posting's uclamp
    /// leak leaves after an uptime (DELAY_DEQUEUE_AS_POSTED; docs/model.md, Kernel
    /// versions); `None`: no leak.
    pub uclamp_leaked_min: Option<u32>,
    /// `--schedutil-rate-limit` / `schedutil_rate_limit = "500us"`: schedutil's
    /// `rate_limit_us` tunable written for every policy; `None`: the kernel's default
    /// (cpufreq_policy_transition_delay_us; docs/model.md, Kernel versions).
    pub schedutil_rate_limit_ns: Option<Ns>,
    /// `--timer-slack` / `timer_slack = "50us"`: every task's timer slack (the kernel's
    /// default 50 µs; 0 fires every sleep exactly on time).
    pub timer_slack_ns: Ns,
    /// `-I` / `interval = "100ms"`: perf stat's counters per interval of simulated time in
    /// the result (`intervals`, docs/results.md); `None`: totals only.
    pub interval_ns: Option<Ns>,
    /// The `[trace]` table / `--trace*` flags: the trace to write, if any. The run itself
    /// does not read it (a traced run is the same run); `experiment::trace_run::run_traced` writes it,
    /// as `schedlab run` does.
    pub trace: Option<crate::trace::select::TraceConfig>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            machine: "smp:1".into(),
            features: String::new(),
            seed: 1,
            duration_ns: None,
            hz: 250,
            preempt: PreemptModel::Full,
            kernel: None,
            pelt_halflife_ms: 32,
            governor: Default::default(),
            sysctl: Default::default(),
            noise: Default::default(),
            costs: Default::default(),
            workloads: Vec::new(),
            base_dir: PathBuf::from("."),
            cgroups: Vec::new(),
            autogroup: false,
            tick_aligned: false,
            boot_start: false,
            uclamp_leaked_min: None,
            schedutil_rate_limit_ns: None,
            timer_slack_ns: crate::sched::TIMER_SLACK_NS,
            interval_ns: None,
            trace: None,
        }
    }
}

/// Where a scenario setting comes from, so that the one setter
/// ([`super::scenario_toml::apply_key`]) names it in its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    /// A scenario file, or a `KEY=VALUE` setting of ab, sweep or study (then the origin
    /// names the setting): errors say `ORIGIN: key 'KEY'` or `ORIGIN: TABLE.ENTRY`.
    File(&'a str),
    /// A command-line flag as the user wrote it (`--preempt`, `--sysctl 'NAME=VALUE'`):
    /// errors name the flag.
    Flag(&'a str),
}

impl Source<'_> {
    /// The place of a top-level key.
    pub fn key(self, key: &str) -> String {
        match self {
            Source::File(origin) => format!("{origin}: key '{key}'"),
            Source::Flag(flag) => flag.to_string(),
        }
    }

    /// The place of one entry of a table (`sysctl.NAME`, `trace.events`).
    pub fn entry(self, table: &str, entry: &str) -> String {
        match self {
            Source::File(origin) => format!("{origin}: {table}.{entry}"),
            Source::Flag(flag) => flag.to_string(),
        }
    }

    /// The file or setting as a whole (unknown keys).
    pub fn origin(self) -> String {
        match self {
            Source::File(origin) | Source::Flag(origin) => origin.to_string(),
        }
    }
}

/// Parse a PELT half-life such as `8ms` into milliseconds (checked later against the values
/// the kernel offers).
pub fn parse_pelt_halflife(s: &str) -> Result<u32, String> {
    let ns = crate::time::parse_duration(s)?;
    if ns % 1_000_000 != 0 || ns == 0 {
        return Err(format!("'{s}' is not a whole number of milliseconds"));
    }
    u32::try_from(ns / 1_000_000).map_err(|_| format!("'{s}' is too long"))
}
