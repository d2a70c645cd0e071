//! The `--trace*` flags of `schedlab run` and what they do around the run: check the
//! selection before any simulation, print a size estimate for large traces, report what
//! was written.

use clap::Args;
use schedlab::experiment::trace_run::{estimate, Estimate};
use schedlab::experiment::Scenario;
use schedlab::trace::scenario_toml::trace_from_scenario_file;
use schedlab::trace::select::{
    parse_counters, parse_events, parse_precision, parse_window, Format,
};
use schedlab::trace::{TraceConfig, TraceStats};
use schedlab::InputError;
use std::path::{Path, PathBuf};

/// Estimated traces larger than this get a warning on stderr before the run.
pub const WARN_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

#[derive(Args, Default)]
pub struct TraceArgs {
    /// Write a trace: FILE.pftrace (Perfetto protobuf) or FILE.txt (ftrace text); the
    /// file appears when the run completes (docs/traces.md).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
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
    /// The trace asked for by the scenario file's `[trace]` table and these flags.
    pub fn config(&self, scenario_file: Option<&Path>) -> Result<Option<TraceConfig>, InputError> {
        let from_file = match scenario_file {
            Some(p) => trace_from_scenario_file(p)?,
            None => None,
        };
        let mut cfg = match (&self.trace, from_file) {
            // The flag names the file; the scenario's other [trace] keys still apply.
            (Some(path), Some(f)) => TraceConfig {
                format: TraceConfig::new(path)?.format,
                path: path.clone(),
                ..f
            },
            (Some(path), None) => TraceConfig::new(path)?,
            (None, Some(c)) => c,
            (None, None) => {
                if let Some(flag) = self.stray_flag() {
                    return Err(InputError::new(flag, "has no effect without --trace")
                        .with_fix("add --trace FILE.pftrace or --trace FILE.txt"));
                }
                return Ok(None);
            }
        };
        check_target(&cfg.path)?;
        if let Some(e) = &self.trace_events {
            cfg.events = parse_events(e, "--trace-events")?;
        }
        if let Some(w) = &self.trace_window {
            cfg.window = parse_window(w, "--trace-window")?;
        }
        if let Some(c) = &self.trace_counters {
            cfg.counters = parse_counters(c, "--trace-counters")?;
        }
        if let Some(p) = &self.trace_precision {
            cfg.precision = parse_precision(p, "--trace-precision")?;
        }
        if cfg.counters.any() && cfg.format != Format::Perfetto {
            return Err(InputError::new(
                "--trace-counters",
                "counter tracks are written to Perfetto traces only",
            )
            .with_fix("trace to FILE.pftrace, or leave --trace-counters out"));
        }
        Ok(Some(cfg))
    }

    fn stray_flag(&self) -> Option<&'static str> {
        [
            (self.trace_events.is_some(), "--trace-events"),
            (self.trace_window.is_some(), "--trace-window"),
            (self.trace_counters.is_some(), "--trace-counters"),
            (self.trace_precision.is_some(), "--trace-precision"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
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
    let (result, stats) = schedlab::experiment::trace_run::run_traced(scenario, cfg)?;
    if !quiet {
        report(cfg, &stats);
    }
    Ok(result)
}
