//! `schedlab run`: build the scenario (file, then flags over it), run it, report. The
//! scenario flags are shared with `schedlab ab`.

use crate::cli_error::CliError;
use crate::output::JsonTarget;
use clap::Args;
use schedlab::experiment::render_human;
use schedlab::experiment::{load_scenario, run_scenario, PreemptModel, Scenario};
use schedlab::sched::version::KernelVersion;
use schedlab::time::parse_duration;
use schedlab::InputError;
use std::io::Write;
use std::path::PathBuf;

/// The flags every command that runs a scenario shares (run, ab).
#[derive(Args)]
pub struct ScenarioArgs {
    /// Scenario file (TOML, docs/scenario.md); flags override its keys.
    scenario: Option<PathBuf>,
    /// Machine preset, e.g. smp:8 (`schedlab machines`), or a machine file ending in .toml
    /// (relative to the current directory; docs/machines.md).
    #[arg(short, long)]
    machine: Option<String>,
    /// Sched features in debugfs syntax, e.g. NO_DELAY_DEQUEUE,HRTICK (`schedlab features`).
    /// Replaces the scenario file's list.
    #[arg(short, long)]
    features: Option<String>,
    /// Seed for the random streams.
    #[arg(short, long)]
    seed: Option<u64>,
    /// Simulated run length, e.g. 10s, 500ms.
    #[arg(short = 't', long = "time", allow_hyphen_values = true)]
    time: Option<String>,
    /// Tick rate (CONFIG_HZ).
    #[arg(long)]
    hz: Option<u32>,
    /// Kernel version to model: 5.18, 6.1, 6.5 (CFS), 6.6, 6.8, 6.12, 6.18 (EEVDF) or
    /// current (the default); a patch level (6.5.5) is ignored. Replaces the scenario's and
    /// the machine file's `kernel`.
    #[arg(long, value_name = "VERSION")]
    kernel: Option<String>,
    /// Preemption model: none, voluntary, full, lazy.
    #[arg(long)]
    preempt: Option<String>,
    /// PELT half-life: 32ms (mainline), 16ms or 8ms (Android's sched_pelt_multiplier).
    #[arg(long, value_name = "32ms|16ms|8ms")]
    pelt_halflife: Option<String>,
    /// CPU frequency governor: schedutil, performance, powersave or fixed:MHZ.
    #[arg(long, value_name = "GOVERNOR")]
    governor: Option<String>,
    /// Kernel sysctl NAME=VALUE, e.g. sched_util_clamp_max=512; repeatable, applied after
    /// the scenario file's [sysctl] table.
    #[arg(long, value_name = "NAME=VALUE")]
    sysctl: Vec<String>,
    /// Workload command line 'TOOL ARGS…': rtapp FILE.json, hackbench …,
    /// perf-bench-messaging …, schbench …, stress-ng --wait N, spinner …, frames …
    /// (docs/workloads.md); repeatable, the workloads run together. Replaces the scenario
    /// file's list; relative paths start at the current directory.
    #[arg(short, long = "workload")]
    workload: Vec<String>,
    /// Autogroup (CONFIG_SCHED_AUTOGROUP): one task group per session, each `-w` workload
    /// being a session; tasks placed by a [cgroups] table stay in their group.
    #[arg(long)]
    autogroup: bool,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: ScenarioArgs,
    /// Write the result document as JSON to FILE (atomically), or to stdout with `-`
    /// (the human report then goes to stderr).
    #[arg(long, value_name = "FILE|-", allow_hyphen_values = true)]
    json: Option<String>,
    /// No human report.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    trace: crate::trace_args::TraceArgs,
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let json = args.json.as_deref().map(JsonTarget::from_arg).transpose()?;
    let scenario = build_scenario(&args.common)?;
    let result = match args.trace.config(args.common.scenario.as_deref())? {
        Some(cfg) => crate::trace_args::run_traced(&scenario, &cfg, args.quiet)?,
        None => run_scenario(&scenario)?,
    };
    if !args.quiet {
        // What each benchmark itself prints, then the perf-stat-style report.
        let mut text: String = result.workloads.iter().map(|w| w.output()).collect();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&render_human(&result));
        match json {
            Some(JsonTarget::Stdout) => std::io::stderr().lock().write_all(text.as_bytes())?,
            _ => std::io::stdout().lock().write_all(text.as_bytes())?,
        }
    }
    if let Some(target) = json {
        let mut doc = serde_json::to_string_pretty(&result)
            .map_err(|e| CliError::Io(format!("cannot encode the result document: {e}")))?;
        doc.push('\n');
        target.write(&doc)?;
    }
    Ok(())
}

/// The scenario file (or the defaults), with every given flag replacing its key.
pub fn build_scenario(args: &ScenarioArgs) -> Result<Scenario, InputError> {
    let mut sc = match &args.scenario {
        Some(path) => load_scenario(path)?,
        None => Scenario::default(),
    };
    if let Some(m) = &args.machine {
        sc.machine = m.clone();
    }
    if let Some(f) = &args.features {
        sc.features = f.clone();
    }
    if let Some(s) = args.seed {
        sc.seed = s;
    }
    if let Some(t) = &args.time {
        sc.duration_ns = Some(parse_duration(t).map_err(|m| InputError::new("-t/--time", m))?);
    }
    if let Some(hz) = args.hz {
        sc.hz = hz;
    }
    if let Some(k) = &args.kernel {
        sc.kernel = Some(KernelVersion::parse(k, "--kernel")?);
    }
    if let Some(p) = &args.preempt {
        sc.preempt = PreemptModel::from_name(p).ok_or_else(|| {
            InputError::new("--preempt", format!("unknown preemption model '{p}'"))
                .with_fix("use none, voluntary, full or lazy")
        })?;
    }
    if let Some(h) = &args.pelt_halflife {
        sc.pelt_halflife_ms = schedlab::experiment::scenario::parse_pelt_halflife(h)
            .map_err(|m| InputError::new("--pelt-halflife", m))?;
    }
    if let Some(g) = &args.governor {
        sc.governor = schedlab::sched::cpufreq_schedutil::Governor::from_name(g).map_err(|m| {
            InputError::new("--governor", m)
                .with_fix("use schedutil, performance, powersave or fixed:MHZ (e.g. fixed:1401)")
        })?;
    }
    for s in &args.sysctl {
        sc.sysctl.set_assignment(s)?;
    }
    if !args.workload.is_empty() {
        sc.workloads = args.workload.clone();
        sc.base_dir = PathBuf::from(".");
    }
    if args.autogroup {
        sc.autogroup = true;
    }
    Ok(sc)
}
