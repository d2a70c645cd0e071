//! The `[trace]` table of a scenario file (docs/scenario.md):
//!
//! ```toml
//! [trace]
//! file = "run.pftrace"          # .pftrace or .txt; relative to the scenario file
//! events = ["sched_switch", "sched_waking"]   # or "sched_switch,sched_waking"; default all
//! window = "2s..3s"
//! counters = ["util", "freq"]
//! precision = "us"              # text timestamps: us (kernel layout) or ns
//! ```

use super::select::{parse_counters, parse_events, parse_precision, parse_window, TraceConfig};
use crate::error::InputError;
use std::path::Path;
use toml::Value;

pub const TRACE_KEYS: &[&str] = &["file", "events", "window", "counters", "precision"];

/// The trace a scenario file asks for, if it has a `[trace]` table.
pub fn trace_from_scenario_file(path: &Path) -> Result<Option<TraceConfig>, InputError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        InputError::new(&origin, format!("cannot read the scenario file: {e}"))
            .with_fix("check the path")
    })?;
    let base = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| InputError::new(&origin, e.message().trim().to_string()))?;
    match table.get("trace") {
        None => Ok(None),
        Some(v) => trace_table(v, &origin, base).map(Some),
    }
}

fn list(v: &Value, at: &str) -> Result<String, InputError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.as_str()),
                _ => Err(InputError::new(at, "expected names as strings")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.join(",")),
        _ => Err(InputError::new(
            at,
            "expected a string or an array of strings",
        )),
    }
}

fn string<'a>(v: &'a Value, at: &str) -> Result<&'a str, InputError> {
    v.as_str()
        .ok_or_else(|| InputError::new(at, "expected a string"))
}

/// Parse the `[trace]` table; `base` is the folder a relative `file` starts from.
pub fn trace_table(v: &Value, origin: &str, base: &Path) -> Result<TraceConfig, InputError> {
    let Value::Table(t) = v else {
        return Err(
            InputError::new(format!("{origin}: key 'trace'"), "expected a table")
                .with_fix("write a [trace] table with file = \"run.pftrace\""),
        );
    };
    let at = |k: &str| format!("{origin}: trace.{k}");
    let file = t.get("file").ok_or_else(|| {
        InputError::new(at("file"), "missing").with_fix("add file = \"run.pftrace\" or \"run.txt\"")
    })?;
    let mut cfg = TraceConfig::new(base.join(string(file, &at("file"))?))?;
    for (k, v) in t {
        match k.as_str() {
            "file" => {}
            "events" => cfg.events = parse_events(&list(v, &at(k))?, &at(k))?,
            "window" => cfg.window = parse_window(string(v, &at(k))?, &at(k))?,
            "counters" => cfg.counters = parse_counters(&list(v, &at(k))?, &at(k))?,
            "precision" => cfg.precision = parse_precision(string(v, &at(k))?, &at(k))?,
            other => {
                return Err(
                    InputError::new(origin, format!("unknown key 'trace.{other}'"))
                        .with_fix(format!("known keys: {}", TRACE_KEYS.join(", "))),
                )
            }
        }
    }
    Ok(cfg)
}
