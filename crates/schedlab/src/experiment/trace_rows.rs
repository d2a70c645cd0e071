//! A run's trace as rows, no trace file asked of the user (the Python `Result.trace`,
//! the HTML report): the run is traced to a Perfetto file in the temporary folder, read
//! back with `trace::read`, and the file removed. A traced run is the same run, so the rows
//! belong to the untraced result of the same scenario and seed too.

use crate::error::InputError;
use crate::experiment::trace_run::run_traced;
use crate::experiment::{RunResult, Scenario};
use crate::trace::read::{pftrace, TraceEvent};
use crate::trace::select::{parse_counters, parse_events, parse_window, Format};
use crate::trace::TraceConfig;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which rows: event list, window and counter groups in the `--trace-*` flags' syntax
/// (`None`: every event, the whole run, counters `all`).
#[derive(Debug, Clone, Default)]
pub struct RowSelection {
    pub events: Option<String>,
    pub window: Option<String>,
    pub counters: Option<String>,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Run `scenario` traced and return its result and trace rows (time order).
pub fn run_trace_rows(
    scenario: &Scenario,
    sel: &RowSelection,
) -> Result<(RunResult, Vec<TraceEvent>), InputError> {
    let name = format!(
        "schedlab-rows-{}-{}.pftrace",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let path = std::env::temp_dir().join(name);
    let mut cfg = TraceConfig::with_format(path.clone(), Format::Perfetto);
    if let Some(e) = &sel.events {
        cfg.events = parse_events(e, "events")?;
    }
    if let Some(w) = &sel.window {
        cfg.window = parse_window(w, "window")?;
    }
    cfg.counters = parse_counters(sel.counters.as_deref().unwrap_or("all"), "counters")?;
    let ran = run_traced(scenario, &cfg);
    let read = ran.and_then(|(result, _)| {
        let bytes = std::fs::read(&path).map_err(|e| {
            InputError::new(path.display().to_string(), format!("cannot read back: {e}"))
                .with_fix("check the free space of the temporary folder (TMPDIR)")
        })?;
        Ok((
            result,
            pftrace::decode(&bytes, &path.display().to_string())?,
        ))
    });
    let _ = std::fs::remove_file(&path);
    read
}
