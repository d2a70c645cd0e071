//! What to trace: the output format (from the file name), the event list, the time window
//! and the optional counter groups, each parsed from the text a user writes in a flag or a
//! scenario file, with errors that name the flag and list the valid values.

use crate::error::InputError;
use crate::time::{parse_duration, Ns};
use std::path::{Path, PathBuf};

/// The ftrace events the tracer can emit, in the order `--trace-events` documents them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    SchedSwitch,
    SchedWaking,
    SchedWakeup,
    SchedWakeupNew,
    SchedMigrateTask,
    SchedProcessExit,
    CpuFrequency,
    CpuIdle,
}

pub const ALL_EVENTS: [EventKind; 8] = [
    EventKind::SchedSwitch,
    EventKind::SchedWaking,
    EventKind::SchedWakeup,
    EventKind::SchedWakeupNew,
    EventKind::SchedMigrateTask,
    EventKind::SchedProcessExit,
    EventKind::CpuFrequency,
    EventKind::CpuIdle,
];

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::SchedSwitch => "sched_switch",
            EventKind::SchedWaking => "sched_waking",
            EventKind::SchedWakeup => "sched_wakeup",
            EventKind::SchedWakeupNew => "sched_wakeup_new",
            EventKind::SchedMigrateTask => "sched_migrate_task",
            EventKind::SchedProcessExit => "sched_process_exit",
            EventKind::CpuFrequency => "cpu_frequency",
            EventKind::CpuIdle => "cpu_idle",
        }
    }

    pub fn from_name(s: &str) -> Option<EventKind> {
        ALL_EVENTS.iter().copied().find(|e| e.name() == s)
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSet(u16);

impl Default for EventSet {
    /// Every event.
    fn default() -> Self {
        EventSet(ALL_EVENTS.iter().fold(0, |m, e| m | e.bit()))
    }
}

impl EventSet {
    pub fn contains(self, e: EventKind) -> bool {
        self.0 & e.bit() != 0
    }
}

/// Counter-track groups (`--trace-counters`), Perfetto output only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CounterSet {
    /// Per-CPU util_avg, util_est, runnable_avg, capacity; per-task util_avg, util_est.
    pub util: bool,
    /// Per-CPU frequency (kHz).
    pub freq: bool,
    /// Per-task EEVDF lag and deadline (virtual ns relative to the queue's V).
    pub eevdf: bool,
    /// The root domain's overutilized flag.
    pub overutilized: bool,
}

pub const COUNTER_GROUPS: &[&str] = &["util", "freq", "eevdf", "overutilized", "all"];

impl CounterSet {
    pub fn any(self) -> bool {
        self.util || self.freq || self.eevdf || self.overutilized
    }
}

/// Output format, chosen by the file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Native Perfetto protobuf (`.pftrace`, `.perfetto-trace`, `.pb`).
    Perfetto,
    /// `/sys/kernel/tracing/trace` text (`.txt`).
    Text,
}

/// Fraction digits of text timestamps: the kernel's microseconds, or nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    #[default]
    Us,
    Ns,
}

/// Everything about one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceConfig {
    pub path: PathBuf,
    pub format: Format,
    pub events: EventSet,
    /// [start, end) in simulated ns.
    pub window: (Ns, Ns),
    pub counters: CounterSet,
    pub precision: Precision,
}

impl TraceConfig {
    /// A trace of every event over the whole run, format from the file name.
    pub fn new(path: impl Into<PathBuf>) -> Result<TraceConfig, InputError> {
        let path = path.into();
        let format = format_for(&path.display().to_string())?;
        Ok(Self::with_format(path, format))
    }

    /// A trace of every event over the whole run, in `format`.
    pub fn with_format(path: PathBuf, format: Format) -> TraceConfig {
        TraceConfig {
            path,
            format,
            events: EventSet::default(),
            window: (0, Ns::MAX),
            counters: CounterSet::default(),
            precision: Precision::Us,
        }
    }
}

/// The format a trace file name asks for (errors name `--trace PATH`).
pub fn format_for(path: &str) -> Result<Format, InputError> {
    format_named(Path::new(path), &format!("--trace {path}"))
}

/// The format the trace file `path` asks for; `origin` names the flag or key in errors.
pub fn format_named(path: &Path, origin: &str) -> Result<Format, InputError> {
    let lower = path.display().to_string().to_ascii_lowercase();
    if [".pftrace", ".perfetto-trace", ".pb"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        Ok(Format::Perfetto)
    } else if lower.ends_with(".txt") {
        Ok(Format::Text)
    } else {
        Err(
            InputError::new(origin, "the file name does not say which format to write")
                .with_fix("end it in .pftrace (Perfetto protobuf) or .txt (ftrace text)"),
        )
    }
}

/// Parse `sched_switch,cpu_frequency,…`; `all` is every event.
pub fn parse_events(list: &str, origin: &str) -> Result<EventSet, InputError> {
    let mut set = 0u16;
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            set |= EventSet::default().0;
            continue;
        }
        match EventKind::from_name(name) {
            Some(e) => set |= e.bit(),
            None => {
                return Err(
                    InputError::new(origin, format!("unknown trace event '{name}'"))
                        .with_fix(format!("valid events: {}, all", event_names())),
                )
            }
        }
    }
    if set == 0 {
        return Err(InputError::new(origin, "no event named")
            .with_fix(format!("list one or more of: {}", event_names())));
    }
    Ok(EventSet(set))
}

fn event_names() -> String {
    ALL_EVENTS
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parse `util,freq,eevdf,overutilized` or `all`.
pub fn parse_counters(list: &str, origin: &str) -> Result<CounterSet, InputError> {
    let mut c = CounterSet::default();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name {
            "util" => c.util = true,
            "freq" => c.freq = true,
            "eevdf" => c.eevdf = true,
            "overutilized" => c.overutilized = true,
            "all" => {
                c = CounterSet {
                    util: true,
                    freq: true,
                    eevdf: true,
                    overutilized: true,
                }
            }
            other => {
                return Err(
                    InputError::new(origin, format!("unknown counter group '{other}'"))
                        .with_fix(format!("valid groups: {}", COUNTER_GROUPS.join(", "))),
                )
            }
        }
    }
    Ok(c)
}

/// Parse `2s..3s`, `2s..` or `..500ms` into [start, end).
pub fn parse_window(text: &str, origin: &str) -> Result<(Ns, Ns), InputError> {
    let fix = "write START..END with units, e.g. 2s..3s, 500ms.. or ..1s";
    let Some((a, b)) = text.split_once("..") else {
        return Err(InputError::new(origin, format!("'{text}' is not a window")).with_fix(fix));
    };
    let bound = |s: &str, default: Ns| -> Result<Ns, InputError> {
        if s.trim().is_empty() {
            Ok(default)
        } else {
            parse_duration(s).map_err(|m| InputError::new(origin, m).with_fix(fix))
        }
    };
    let start = bound(a, 0)?;
    let end = bound(b, Ns::MAX)?;
    if end <= start {
        return Err(
            InputError::new(origin, format!("the window '{text}' is empty"))
                .with_fix("make END later than START"),
        );
    }
    Ok((start, end))
}

/// Parse `us` or `ns`.
pub fn parse_precision(text: &str, origin: &str) -> Result<Precision, InputError> {
    match text {
        "us" => Ok(Precision::Us),
        "ns" => Ok(Precision::Ns),
        other => Err(
            InputError::new(origin, format!("unknown timestamp precision '{other}'"))
                .with_fix("use us (the kernel's layout) or ns"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_selection() {
        let s = parse_events("sched_switch, cpu_idle", "--trace-events").unwrap();
        assert!(s.contains(EventKind::SchedSwitch) && s.contains(EventKind::CpuIdle));
        assert!(!s.contains(EventKind::SchedWaking));
        let e = parse_events("sched_swtch", "--trace-events").unwrap_err();
        assert!(e.to_string().contains("sched_swtch") && e.to_string().contains("cpu_idle"));
        assert_eq!(
            parse_window("2s..3s", "w").unwrap(),
            (2_000_000_000, 3_000_000_000)
        );
        assert_eq!(parse_window("1s..", "w").unwrap().1, Ns::MAX);
        assert!(parse_window("3s..2s", "w").is_err());
        assert!(parse_window("3s", "w").is_err());
        assert!(parse_counters("util,bogus", "c").is_err());
        assert_eq!(format_for("a.pftrace").unwrap(), Format::Perfetto);
        assert!(format_for("a.json").is_err());
    }
}
