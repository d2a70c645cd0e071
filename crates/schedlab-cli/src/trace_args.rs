//! The `--trace*` flags of `schedlab run` and what they do around the run: check the
//! selection before any simulation, print a size estimate for large traces, report what
//! was written.

use clap::Args;
use schedlab::experiment::scenario_toml::{apply_flag, FlagValue};
use schedlab::experiment::trace_run::{estimate, Estimate};
use schedlab::experiment::Scenario;
use schedlab::trace::{TraceConfig, TraceStats};
use schedlab::InputError;
use std::path::Path;

/// Estimated traces larger than this get a warning on stderr before the run.
pub const WARN_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

#[derive(Args, Default)]
pub struct TraceArgs {
    /// Write a trace: FILE.pftrace (Perfetto protobuf) or FILE.txt (ftrace text); the
    /// file appears when the run completes (docs/traces.md).
    #[arg(long, value_name = "FILE")]
    trace: Option<String>,
    /// Events to trace, e.g. sched_switch,sched_waking (default: all).
    #[arg(long, value_name = "LIST")]
    trace_events: Option<String>,
    /// Simulated time span to trace, e.g. 2s..3s, 500ms.. or ..1s.
    #[arg(long, value_name = "START..END")]
    trace_window: Option<String>,
    /// Counter tracks (Perfetto only): util, freq, eevdf, overutilized, all.
    #[arg(long, value_name = "LIST")]
    trace_counters: Option<String>,
    /// Text timestamps: us (the kernel's layout, default) or ns.
    #[arg(long, value_name = "us|ns")]
    trace_precision: Option<String>,
}

impl TraceArgs {
    /// Set the trace the flags ask for over the scenario file's `[trace]` table, each flag
    /// through the table key's setter: `--trace` moves the trace (the file's other keys stay),
    /// the others replace their key.
    pub fn apply(&self, sc: &mut Scenario) -> Result<(), InputError> {
        if let Some(path) = &self.trace {
            let flag = format!("--trace {path}");
            apply_flag(sc, "trace.file", FlagValue::Text(path), &flag)?;
        }
        if let Some(cfg) = &sc.trace {
            check_target(&cfg.path)?;
        }
        let flags = [
            ("trace.events", "--trace-events", &self.trace_events),
            ("trace.window", "--trace-window", &self.trace_window),
            ("trace.counters", "--trace-counters", &self.trace_counters),
            (
                "trace.precision",
                "--trace-precision",
                &self.trace_precision,
            ),
        ];
        for (key, flag, value) in flags {
            if let Some(v) = value {
                apply_flag(sc, key, FlagValue::Text(v), flag)?;
            }
        }
        Ok(())
    }
}

/// The trace's folder must exist; the file itself is created (as FILE.tmp) before the run.
fn check_target(path: &Path) -> Result<(), InputError> {
    let origin = format!("--trace {}", path.display());
    crate::output::check_output_path(path, &origin, "run.pftrace")
}

/// Estimate the trace's size and warn on stderr when it is large.
pub fn warn_if_large(
    scenario: &Scenario,
    cfg: &TraceConfig,
) -> Result<Option<Estimate>, InputError> {
    let est = estimate(scenario, cfg)?;
    if est.bytes > WARN_BYTES {
        eprintln!(
            "schedlab: trace {}: about {} ({:.1} M events) over {:.1} s of simulated time; \
             trim with --trace-window or --trace-events",
            cfg.path.display(),
            human_bytes(est.bytes),
            est.events / 1e6,
            est.span_ns as f64 / 1e9
        );
        return Ok(Some(est));
    }
    Ok(None)
}

pub fn report(cfg: &TraceConfig, st: &TraceStats) {
    eprintln!(
        "schedlab: trace {}: {} events, {} counter samples, {}",
        cfg.path.display(),
        st.total_events(),
        st.counter_samples,
        human_bytes(st.bytes as f64)
    );
}

fn human_bytes(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).ceil())
    }
}

/// Estimate, run with the trace, report (unless quiet).
pub fn run_traced(
    scenario: &Scenario,
    cfg: &TraceConfig,
    quiet: bool,
) -> Result<schedlab::experiment::RunResult, InputError> {
    warn_if_large(scenario, cfg)?;
    // The same progress line as untraced runs (after 2 s, stderr a terminal).
    let (result, stats) = match crate::progress::Progress::for_stderr() {
        Some(mut progress) => {
            let r = schedlab::experiment::trace_run::run_traced_with_progress(
                scenario,
                cfg,
                &mut |now, stop, events| progress.update(now, stop, events),
            );
            progress.finish();
            r?
        }
        None => schedlab::experiment::trace_run::run_traced(scenario, cfg)?,
    };
    if !quiet {
        report(cfg, &stats);
    }
    Ok(result)
}
