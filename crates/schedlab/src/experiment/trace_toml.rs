//! The `[trace]` table of a scenario file (docs/scenario.md), also what the `--trace*`
//! flags set (docs/traces.md):
//!
//! ```toml
//! [trace]
//! file = "run.pftrace"          # .pftrace or .txt; relative to the scenario file
//! events = ["sched_switch", "sched_waking"]   # or "sched_switch,sched_waking"; default all
//! window = "2s..3s"
//! counters = ["util", "freq"]
//! precision = "us"              # text timestamps: us (kernel layout) or ns
//! ```

use crate::error::InputError;
use crate::experiment::scenario::Source;
use crate::trace::select::{
    format_named, parse_counters, parse_events, parse_precision, parse_window, Format, TraceConfig,
};
use std::path::Path;
use toml::Value;

pub const TRACE_KEYS: &[&str] = &["file", "events", "window", "counters", "precision"];

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

/// Apply a `[trace]` table over the trace settings so far: the table of a scenario file,
/// or one `--trace*` flag or `trace.KEY=VALUE` setting as a one-entry table. `file` starts
/// a trace (or moves it: the other settings stay), every other key replaces its setting;
/// without a trace yet, `file` is required. `base` is the folder a relative `file` starts
/// from.
pub fn apply_trace(
    cur: &mut Option<TraceConfig>,
    v: &Value,
    src: Source,
    base: &Path,
) -> Result<(), InputError> {
    let Value::Table(t) = v else {
        return Err(InputError::new(src.key("trace"), "expected a table")
            .with_fix("write a [trace] table with file = \"run.pftrace\""));
    };
    let at = |k: &str| src.entry("trace", k);
    let mut cfg = match (t.get("file"), cur.as_ref()) {
        (Some(file), cur) => {
            let path = base.join(string(file, &at("file"))?);
            let format = format_named(&path, &at("file"))?;
            match cur {
                Some(c) => TraceConfig {
                    path,
                    format,
                    ..c.clone()
                },
                None => TraceConfig::with_format(path, format),
            }
        }
        (None, Some(c)) => c.clone(),
        (None, None) => {
            return Err(match src {
                Source::File(_) => InputError::new(at("file"), "missing")
                    .with_fix("add file = \"run.pftrace\" or \"run.txt\""),
                Source::Flag(flag) => InputError::new(flag, "has no effect without --trace")
                    .with_fix("add --trace FILE.pftrace or --trace FILE.txt"),
            })
        }
    };
    for (k, v) in t {
        match k.as_str() {
            "file" => {}
            "events" => cfg.events = parse_events(&list(v, &at(k))?, &at(k))?,
            "window" => cfg.window = parse_window(string(v, &at(k))?, &at(k))?,
            "counters" => cfg.counters = parse_counters(&list(v, &at(k))?, &at(k))?,
            "precision" => cfg.precision = parse_precision(string(v, &at(k))?, &at(k))?,
            other => {
                return Err(
                    InputError::new(src.origin(), format!("unknown key 'trace.{other}'"))
                        .with_fix(format!("known keys: {}", TRACE_KEYS.join(", "))),
                )
            }
        }
    }
    if cfg.counters.any() && cfg.format != Format::Perfetto {
        // Named where the table made them clash: its counters, else its (text) file.
        let key = if t.contains_key("counters") {
            "counters"
        } else {
            "file"
        };
        return Err(InputError::new(
            at(key),
            "counter tracks are written to Perfetto traces only",
        )
        .with_fix("trace to FILE.pftrace, or leave the counters out"));
    }
    *cur = Some(cfg);
    Ok(())
}
