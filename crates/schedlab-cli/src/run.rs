//! `schedlab run`: build the scenario (file, then flags over it), run it, report. The
//! scenario flags are shared with `schedlab ab`.

use crate::cli_error::CliError;
use crate::output::JsonTarget;
use clap::Args;
use schedlab::experiment::report_csv::render_csv;
use schedlab::experiment::run::{execute_with_progress, prepare, scenario_workload};
use schedlab::experiment::scenario_toml::{apply_flag, apply_flag_assignment, FlagValue};
use schedlab::experiment::{load_scenario, run_scenario, Scenario};
use schedlab::experiment::{render_human_with, Detail, RunResult};
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
    // 0..=i64::MAX: what a scenario file's TOML integer can hold.
    #[arg(short, long, value_parser = clap::value_parser!(i64).range(0..))]
    seed: Option<i64>,
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
    /// Every CPU's tick on one grid from t=0 (by default each seed gives each CPU its own
    /// tick phase, as on a real machine).
    #[arg(long)]
    tick_aligned: bool,
    /// Start the run at boot: each sched domain's first periodic balance waits one
    /// balance interval (by default the machine has been idle before the run and every
    /// level balances at the first tick).
    #[arg(long)]
    boot_start: bool,
    /// schedutil's rate_limit_us for every policy, e.g. 500us (default: the kernel's,
    /// from the transition latency).
    #[arg(long, value_name = "DURATION")]
    schedutil_rate_limit: Option<String>,
    /// Every task's timer slack: how late a sleep may end (default 50us, the kernel's;
    /// 0us wakes sleepers exactly on time).
    #[arg(long, value_name = "DURATION")]
    timer_slack: Option<String>,
    /// perf stat's counters (context switches, migrations, task clock, CPUs utilized) and
    /// the workloads' counters per interval of simulated time, e.g. 100ms, as `perf stat
    /// -I` prints them: a table in the report, `intervals` in the JSON.
    #[arg(short = 'I', long, value_name = "DURATION")]
    interval: Option<String>,
}

impl ScenarioArgs {
    /// Which of -m, --hz, --preempt, --autogroup were given, and the scenario file.
    pub fn given(&self) -> ([bool; 4], Option<&std::path::Path>) {
        let flags = [
            self.machine.is_some(),
            self.hz.is_some(),
            self.preempt.is_some(),
            self.autogroup,
        ];
        (flags, self.scenario.as_deref())
    }
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
    /// Write a self-contained HTML report (summary, per-CPU timeline, util and frequency,
    /// latencies, tasks) to FILE; the run is traced for it (docs/report.md).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The report as `perf stat -x SEP` CSV (no thousands separators), on stderr as perf
    /// prints it: `value,unit,event,run-time,run-%,metric,metric-unit` per counter.
    #[arg(short = 'x', long = "field-separator", value_name = "SEP")]
    field_separator: Option<String>,
    /// Summary tables (tasks grouped by name, CPUs by package) whatever the size; the
    /// default above 64 CPUs or 64 tasks.
    #[arg(long, conflicts_with = "per_cpu")]
    summary: bool,
    /// One line per task and per CPU whatever the size.
    #[arg(short = 'A', long = "per-cpu")]
    per_cpu: bool,
    #[command(flatten)]
    trace: crate::trace_args::TraceArgs,
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let json = args.json.as_deref().map(JsonTarget::from_arg).transpose()?;
    if args.field_separator.as_deref() == Some("") {
        return Err(
            InputError::new("-x/--field-separator", "the separator is empty")
                .with_fix("give one, e.g. -x, or -x ';'")
                .into(),
        );
    }
    let mut scenario = build_scenario(&args.common)?;
    args.trace.apply(&mut scenario)?;
    if let Some(h) = &args.html {
        crate::report::check_target(h, "--html")?;
    }
    // With --html the run is traced (to the --trace file if there is one, read back).
    let mut rows = None;
    let result = match (&scenario.trace, &args.html) {
        (Some(cfg), _) => {
            let r = crate::trace_args::run_traced(&scenario, cfg, args.quiet)?;
            if args.html.is_some() {
                rows = Some(schedlab::trace::read::read_trace(&cfg.path)?);
            }
            r
        }
        (None, Some(_)) => {
            let sel = schedlab::experiment::trace_rows::RowSelection::default();
            let (r, ev) = schedlab::experiment::trace_rows::run_trace_rows(&scenario, &sel)?;
            rows = Some(ev);
            r
        }
        (None, None) => run_with_progress(&scenario)?,
    };
    if !args.quiet {
        // What each benchmark itself prints goes to stdout (stderr when stdout carries the
        // JSON document); the perf-stat-style report to stderr, where perf prints it.
        let tools: String = result.workloads.iter().map(|w| w.output()).collect();
        let report = match &args.field_separator {
            Some(sep) => render_csv(&result, sep),
            None => {
                let detail = match (args.summary, args.per_cpu) {
                    (true, _) => Detail::Summary,
                    (_, true) => Detail::Full,
                    _ => Detail::Auto,
                };
                render_human_with(&result, detail)
            }
        };
        match json {
            Some(JsonTarget::Stdout) => std::io::stderr().lock().write_all(tools.as_bytes())?,
            _ => std::io::stdout().lock().write_all(tools.as_bytes())?,
        }
        std::io::stdout().lock().flush()?;
        let mut err = std::io::stderr().lock();
        if !tools.is_empty() && args.field_separator.is_none() {
            err.write_all(b"\n")?;
        }
        err.write_all(report.as_bytes())?;
    }
    if let Some(target) = json {
        let mut doc = serde_json::to_string_pretty(&result)
            .map_err(|e| CliError::Io(format!("cannot encode the result document: {e}")))?;
        doc.push('\n');
        target.write(&doc)?;
    }
    if let Some(path) = &args.html {
        let doc = serde_json::to_value(&result)
            .map_err(|e| CliError::Io(format!("cannot encode the result document: {e}")))?;
        let html = schedlab_report::render_run(&doc, rows.as_deref(), "schedlab run");
        crate::report::write_html(path, &html)?;
    }
    Ok(())
}

/// Run the scenario, with a progress line on stderr when it is a terminal.
fn run_with_progress(scenario: &Scenario) -> Result<RunResult, InputError> {
    let Some(mut progress) = crate::progress::Progress::for_stderr() else {
        return run_scenario(scenario);
    };
    let workload = scenario_workload(scenario)?;
    let sim = prepare(scenario, workload)?;
    let result = execute_with_progress(scenario, sim, &mut |now, stop, events| {
        progress.update(now, stop, events)
    });
    progress.finish();
    Ok(result)
}

/// The scenario file (or the defaults), with every given flag replacing its key through
/// the file keys' own setter (so a flag and its key share their error texts).
pub fn build_scenario(args: &ScenarioArgs) -> Result<Scenario, InputError> {
    fn text(v: &Option<String>) -> Option<FlagValue<'_>> {
        v.as_deref().map(FlagValue::Text)
    }
    let mut sc = match &args.scenario {
        Some(path) => load_scenario(path)?,
        None => Scenario::default(),
    };
    let flags = [
        ("machine", "-m/--machine", text(&args.machine)),
        ("features", "-f/--features", text(&args.features)),
        ("seed", "-s/--seed", args.seed.map(FlagValue::Int)),
        ("duration", "-t/--time", text(&args.time)),
        ("hz", "--hz", args.hz.map(|hz| FlagValue::Int(hz.into()))),
        ("kernel", "--kernel", text(&args.kernel)),
        ("preempt", "--preempt", text(&args.preempt)),
        (
            "pelt_halflife",
            "--pelt-halflife",
            text(&args.pelt_halflife),
        ),
        ("governor", "--governor", text(&args.governor)),
        (
            "schedutil_rate_limit",
            "--schedutil-rate-limit",
            text(&args.schedutil_rate_limit),
        ),
        ("timer_slack", "--timer-slack", text(&args.timer_slack)),
        ("interval", "-I/--interval", text(&args.interval)),
    ];
    for (key, flag, value) in flags {
        if let Some(value) = value {
            apply_flag(&mut sc, key, value, flag)?;
        }
    }
    for s in &args.sysctl {
        apply_flag_assignment(&mut sc, "sysctl", s, "--sysctl")?;
    }
    if !args.workload.is_empty() {
        let list = FlagValue::List(&args.workload);
        apply_flag(&mut sc, "workloads", list, "-w/--workload")?;
    }
    if args.autogroup {
        apply_flag(&mut sc, "autogroup", FlagValue::Switch, "--autogroup")?;
    }
    if args.tick_aligned {
        apply_flag(&mut sc, "tick_aligned", FlagValue::Switch, "--tick-aligned")?;
    }
    if args.boot_start {
        apply_flag(&mut sc, "boot_start", FlagValue::Switch, "--boot-start")?;
    }
    // A calibrated machine file's [kernel] table fills the settings not given here.
    let (g, file) = args.given();
    let given = schedlab_host::machine_kernel::Given {
        hz: g[1],
        preempt: g[2],
        autogroup: g[3],
    };
    for note in schedlab_host::machine_kernel::apply(&mut sc, file, given)? {
        eprintln!("schedlab: note: {note}");
    }
    Ok(sc)
}
