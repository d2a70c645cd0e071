//! `schedlab ab`: one scenario under two settings over N seeds (docs/ab.md).

use crate::cli_error::CliError;
use crate::output::JsonTarget;
use crate::run::{build_scenario, ScenarioArgs};
use clap::Args;
use schedlab::experiment::ab::metrics::default_patterns;
use schedlab::experiment::ab::table::{render_csv, render_markdown};
use schedlab::experiment::ab::{run_ab, Arm};
use schedlab::InputError;
use std::io::Write;

#[derive(Args)]
pub struct AbArgs {
    #[command(flatten)]
    common: ScenarioArgs,
    /// A setting of the base side, KEY=VALUE as in a scenario file, e.g.
    /// features=NO_DELAY_DEQUEUE or sysctl.sched_util_clamp_max=512; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    base: Vec<String>,
    /// A setting of the patch side, e.g. features=UTIL_FITS_CAPACITY, pelt_halflife=8ms,
    /// governor=performance, machine=smp:16; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    patch: Vec<String>,
    /// Seeds per side.
    #[arg(short = 'n', long, default_value_t = 10)]
    seeds: u64,
    /// First seed; the base side runs seeds FIRST..FIRST+N.
    #[arg(long, default_value_t = 1)]
    first_seed: u64,
    /// Give the patch side its own seeds (FIRST+N..FIRST+2N) instead of the base's.
    #[arg(long)]
    independent_seeds: bool,
    /// Metric to compare: a result-document path, `*` matching anything
    /// (e.g. 'workloads.*', perf.cpu_migrations); repeatable. Default: perf.*, energy.*,
    /// workloads.*.
    #[arg(long, value_name = "PATTERN")]
    metric: Vec<String>,
    /// Parallel runs (default: the host's CPUs).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Write the full comparison (every run's metrics, every row) as JSON to FILE or -.
    #[arg(long, value_name = "FILE|-", allow_hyphen_values = true)]
    json: Option<String>,
    /// Write every run's metrics as CSV (tag,seed,metric,value) to FILE or -.
    #[arg(long, value_name = "FILE|-", allow_hyphen_values = true)]
    csv: Option<String>,
    /// Tags of the two sides in the table.
    #[arg(long, default_value = "base")]
    base_tag: String,
    #[arg(long, default_value = "patch")]
    patch_tag: String,
    /// Write a self-contained HTML report (metric table with intervals, bar charts) to FILE
    /// (docs/report.md).
    #[arg(long, value_name = "FILE")]
    html: Option<std::path::PathBuf>,
}

pub fn ab(args: AbArgs) -> Result<(), CliError> {
    if args.seeds < 2 || args.seeds > 10_000 {
        return Err(
            InputError::new("-n/--seeds", "needs 2..=10000 seeds per side")
                .with_fix("e.g. -n 10")
                .into(),
        );
    }
    let json = args.json.as_deref().map(JsonTarget::from_arg).transpose()?;
    let csv = args.csv.as_deref().map(JsonTarget::from_arg).transpose()?;
    if let Some(h) = &args.html {
        crate::report::check_target(h, "--html")?;
    }
    let scenario = build_scenario(&args.common)?;
    let n = args.seeds;
    let base_seeds: Vec<u64> = (0..n).map(|i| args.first_seed + i).collect();
    let patch_seeds: Vec<u64> = if args.independent_seeds {
        (0..n).map(|i| args.first_seed + n + i).collect()
    } else {
        base_seeds.clone()
    };
    let base = Arm::with_settings(&scenario, &args.base, "--base", &args.base_tag, base_seeds)?;
    let patch = Arm::with_settings(
        &scenario,
        &args.patch,
        "--patch",
        &args.patch_tag,
        patch_seeds,
    )?;
    // Check both sides fully (machine, features, workloads) before spending time.
    for side in [&base, &patch] {
        schedlab::experiment::run::check_settings(&side.scenario)?;
    }
    if base.scenario.noise.is_off() && patch.scenario.noise.is_off() {
        eprintln!(
            "schedlab: note: no [noise] in the scenario, so every seed gives the same run and \
             the intervals are 0; add e.g. --base noise.work_jitter_pct=1 --patch \
             noise.work_jitter_pct=1 (docs/ab.md)"
        );
    }
    let patterns: Vec<String> = if args.metric.is_empty() {
        default_patterns()
    } else {
        args.metric.clone()
    };
    let jobs = crate::parallel_args::jobs(args.jobs);
    let progress = crate::parallel_args::progress();
    let report = run_ab(&base, &patch, &patterns, jobs, &progress)?;
    if report.rows.is_empty() {
        return Err(
            InputError::new("--metric", "no metric of the results matches")
                .with_fix("see the result document (run --json -) for metric paths")
                .into(),
        );
    }
    let table = render_markdown(&report);
    let to_stdout =
        matches!(json, Some(JsonTarget::Stdout)) || matches!(csv, Some(JsonTarget::Stdout));
    if to_stdout {
        std::io::stderr().lock().write_all(table.as_bytes())?;
    } else {
        std::io::stdout().lock().write_all(table.as_bytes())?;
    }
    if let Some(t) = json {
        let mut doc = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::Io(format!("cannot encode the comparison: {e}")))?;
        doc.push('\n');
        t.write(&doc)?;
    }
    if let Some(t) = csv {
        t.write(&render_csv(&report))?;
    }
    if let Some(path) = &args.html {
        let doc = serde_json::to_value(&report)
            .map_err(|e| CliError::Io(format!("cannot encode the comparison: {e}")))?;
        let html = schedlab_report::render_ab(&doc, "schedlab ab");
        crate::report::write_html(path, &html)?;
    }
    Ok(())
}
