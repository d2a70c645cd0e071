//! Scenario files: the TOML form of [`Scenario`] (keys documented in docs/scenario.md).
//!
//! ```toml
//! machine = "smp:4"
//! features = "NO_DELAY_DEQUEUE,HRTICK"   # or ["NO_DELAY_DEQUEUE", "HRTICK"]
//! seed = 1
//! duration = "10s"                       # a string with a unit; bare numbers are refused
//! hz = 250
//! preempt = "full"
//! pelt_halflife = "32ms"                 # 32ms, 16ms or 8ms
//! governor = "schedutil"                 # performance, powersave, fixed:MHZ
//! [sysctl]                               # /proc/sys/kernel names
//! sched_util_clamp_max = 512
//! workloads = ["rtapp two-hogs.json"]    # relative paths start at this file's folder
//! [trace]                                # kept in Scenario::trace (experiment::trace_toml)
//! file = "run.pftrace"
//! ```
//!
//! Command-line flags set the same keys through the same setter ([`apply_flag`]), so a
//! flag and its key share their error texts; only the place differs (`--hz` or
//! `FILE: key 'hz'`).
//!
//! `duration` must be a string (`"10s"`, `"500ms"`, `"2.5s"`): a bare TOML number is
//! refused because it would be unclear whether it counts seconds or nanoseconds.

use super::scenario::Source;
use super::{PreemptModel, Scenario};
use crate::error::InputError;
use crate::time::parse_duration;
use std::path::{Path, PathBuf};
use toml::Value;

/// Every key a scenario file may contain, in documentation order.
pub const SCENARIO_KEYS: &[&str] = &[
    "machine",
    "features",
    "seed",
    "duration",
    "hz",
    "preempt",
    "kernel",
    "pelt_halflife",
    "governor",
    "schedutil_rate_limit",
    "sysctl",
    "noise",
    "costs",
    "workloads",
    "trace",
    "cgroups",
    "autogroup",
    "tick_aligned",
    "boot_start",
    "timer_slack",
    "uclamp_leaked_min",
    "interval",
];

/// Read and parse a scenario file; relative workload paths start at its folder.
pub fn load_scenario(path: &Path) -> Result<Scenario, InputError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        InputError::new(&origin, format!("cannot read the scenario file: {e}"))
            .with_fix("check the path")
    })?;
    let base_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    parse_scenario(&text, &origin, base_dir)
}

/// Parse scenario TOML `text`. `origin` names the file in errors; `base_dir` is the folder
/// relative workload paths start from. Keys left out keep [`Scenario::default`] values.
pub fn parse_scenario(text: &str, origin: &str, base_dir: &Path) -> Result<Scenario, InputError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let at = match e.span() {
            Some(span) => {
                let (line, col) = line_col(text, span.start);
                format!("{origin}:{line}:{col}")
            }
            None => origin.to_string(),
        };
        let msg = match e.message().trim() {
            // The toml crate gives some syntax errors no text (`a =`).
            "" => "a key without a value, or an unclosed bracket".to_string(),
            m => m.replace('\n', "; "),
        };
        InputError::new(at, format!("malformed TOML: {msg}")).with_fix(TOML_SYNTAX_FIX)
    })?;

    let mut sc = Scenario {
        base_dir: base_dir.to_path_buf(),
        ..Scenario::default()
    };
    for (key, value) in &table {
        apply_key(&mut sc, key, value, origin)?;
    }
    Ok(sc)
}

/// The highest tick rate a scenario may ask for (`hz`, `--hz`).
pub const MAX_HZ: u64 = 100_000;

/// The fix of a TOML syntax error: the forms a scenario file uses.
pub const TOML_SYNTAX_FIX: &str =
    "write `key = \"text\"`, `key = 10` or `[table]`, one per line; docs/scenario.md lists the keys";

/// Set one scenario key from its TOML value (a file's top-level key, or a `KEY=VALUE`
/// setting of `ab` / `sweep`). `origin` names the source in errors. A `trace` table is
/// applied over the trace settings so far (`experiment::trace_toml::apply_trace`).
pub fn apply_key(
    sc: &mut Scenario,
    key: &str,
    value: &Value,
    origin: &str,
) -> Result<(), InputError> {
    set(sc, key, value, Source::File(origin))
}

/// A command-line flag's value, as clap parsed it.
#[derive(Debug, Clone, Copy)]
pub enum FlagValue<'a> {
    /// `-m smp:2`, `-t 10s`, `--trace-events LIST`: a TOML string.
    Text(&'a str),
    /// `--seed 7`, `--hz 1000`: a TOML integer.
    Int(i64),
    /// A repeatable flag (`-w A -w B`): an array of strings.
    List(&'a [String]),
    /// A switch (`--autogroup`): `true`.
    Switch,
}

/// Set one scenario key from a command-line flag: the file key's setter and error texts,
/// with `flag` (as the user wrote it) as the place. A dotted key sets one entry of a table
/// (`trace.events`) and keeps the others. Relative workload paths of flags start at the
/// current directory.
pub fn apply_flag(
    sc: &mut Scenario,
    key: &str,
    value: FlagValue,
    flag: &str,
) -> Result<(), InputError> {
    let value = match value {
        FlagValue::Text(t) => Value::String(t.to_string()),
        FlagValue::Int(i) => Value::Integer(i),
        FlagValue::List(items) => Value::Array(items.iter().cloned().map(Value::String).collect()),
        FlagValue::Switch => Value::Boolean(true),
    };
    set_dotted(sc, key, value, Source::Flag(flag))
}

/// A `NAME=VALUE` flag that sets one entry of a table (`--sysctl sched_util_clamp_max=512`):
/// VALUE is read as in a `KEY=VALUE` setting; errors name the flag and its text.
pub fn apply_flag_assignment(
    sc: &mut Scenario,
    table: &str,
    text: &str,
    flag: &str,
) -> Result<(), InputError> {
    let place = format!("{flag} '{text}'");
    let Some((name, raw)) = text.split_once('=') else {
        let example = match table {
            "sysctl" => "sched_util_clamp_max=512",
            _ => "NAME=VALUE",
        };
        return Err(InputError::new(place, "expected NAME=VALUE")
            .with_fix(format!("e.g. {flag} {example}")));
    };
    let key = format!("{table}.{}", name.trim());
    set_dotted(sc, &key, setting_value(raw.trim()), Source::Flag(&place))
}

/// The one setter: every way of building a [`Scenario`] sets its keys here.
fn set(sc: &mut Scenario, key: &str, value: &Value, src: Source) -> Result<(), InputError> {
    let at = || src.key(key);
    match key {
        "machine" => sc.machine = string(value, &at)?,
        "features" => {
            let list = features(value, &at)?;
            // Names are checked here so the error names the file or flag; whether the
            // kernel has the feature is checked once the kernel is known.
            crate::sched::features::check_names(&list, &at())?;
            sc.features = list;
        }
        "seed" => sc.seed = integer(value, &at, 0, u64::MAX)?,
        "duration" => {
            let s = match value {
                Value::String(s) => s,
                other => {
                    return Err(wrong_type(&at(), "a string with a unit", other)
                        .with_fix("write e.g. duration = \"10s\" or \"500ms\""))
                }
            };
            sc.duration_ns = Some(parse_duration(s).map_err(|m| match m.split_once("; ") {
                Some((what, fix)) => InputError::new(at(), what).with_fix(fix),
                None => InputError::new(at(), m).with_fix("write e.g. \"10s\" or \"500ms\""),
            })?);
        }
        "hz" => {
            // At most 100 kHz: beyond 10⁹ the tick period rounds to 0 ns (found by
            // fuzzing: `hz = 2147483647` divided by it), and long before that every CPU
            // would tick faster than anything it runs.
            sc.hz = integer(value, &at, 1, MAX_HZ)
                .map_err(|e| e.with_fix("use a kernel HZ value such as 100, 250 or 1000"))?
                as u32
        }
        "preempt" => {
            let s = string(value, &at)?;
            sc.preempt = PreemptModel::from_name(&s).ok_or_else(|| {
                InputError::new(at(), format!("unknown preemption model '{s}'"))
                    .with_fix("use none, voluntary, full or lazy")
            })?;
        }
        "kernel" => {
            let s = string(value, &at)?;
            sc.kernel = Some(crate::sched::version::KernelVersion::parse(&s, &at())?);
        }
        "pelt_halflife" => {
            let s = string(value, &at)?;
            let fix = "use \"32ms\", \"16ms\" or \"8ms\"";
            sc.pelt_halflife_ms = super::scenario::parse_pelt_halflife(&s)
                .map_err(|m| InputError::new(at(), m).with_fix(fix))?;
            super::run::pelt_lshift(sc.pelt_halflife_ms)
                .map_err(|e| InputError::new(at(), e.message).with_fix(fix))?;
        }
        "governor" => {
            let s = string(value, &at)?;
            sc.governor =
                crate::sched::cpufreq_schedutil::Governor::from_name(&s).map_err(|m| {
                    InputError::new(at(), m).with_fix(
                        "use schedutil, performance, powersave or fixed:MHZ (e.g. fixed:1401)",
                    )
                })?;
        }
        "schedutil_rate_limit" => {
            let fix = "write whole microseconds up to 10 s, e.g. schedutil_rate_limit = \"500us\" or \"10ms\"";
            let Value::String(s) = value else {
                return Err(wrong_type(&at(), "a string with a unit", value).with_fix(fix));
            };
            let ns = parse_duration(s).map_err(|m| InputError::new(at(), m).with_fix(fix))?;
            if ns % 1000 != 0 || ns > 10_000_000_000 {
                return Err(InputError::new(
                    at(),
                    format!("{s}: rate_limit_us takes whole microseconds, at most 10 s"),
                )
                .with_fix(fix));
            }
            sc.schedutil_rate_limit_ns = Some(ns);
        }
        "sysctl" => {
            let Value::Table(t) = value else {
                return Err(wrong_type(&at(), "a table of NAME = VALUE", value));
            };
            for (name, v) in t {
                let place = src.entry("sysctl", name);
                if name == "sched_rt_runtime_us" && v.as_integer() == Some(-1) {
                    sc.sysctl.set_rt_runtime(super::sysctl::RT_RUNTIME_INF);
                    continue;
                }
                let n = integer(v, &|| place.clone(), 0, u64::MAX)?;
                sc.sysctl.set(name, n, &place)?;
            }
        }
        "workloads" => {
            sc.workloads = workloads(value, &at)?;
            if let Source::Flag(_) = src {
                sc.base_dir = PathBuf::from(".");
            }
        }
        "cgroups" => sc.cgroups = super::cgroups_toml::cgroups(value, &src.origin())?,
        "autogroup" => match value {
            Value::Boolean(b) => sc.autogroup = *b,
            other => return Err(wrong_type(&at(), "true or false", other)),
        },
        "timer_slack" => {
            let s = match value {
                Value::String(s) => s,
                other => {
                    return Err(wrong_type(&at(), "a string with a unit", other)
                        .with_fix("write e.g. timer_slack = \"50us\" or \"0us\""))
                }
            };
            sc.timer_slack_ns = parse_duration(s).map_err(|m| InputError::new(at(), m))?;
        }
        "interval" => {
            let Value::String(s) = value else {
                return Err(wrong_type(&at(), "a string with a unit", value)
                    .with_fix("write e.g. interval = \"100ms\""));
            };
            let ns = parse_duration(s)
                .map_err(|m| InputError::new(at(), m).with_fix("write e.g. 100ms or 1s"))?;
            if ns == 0 {
                return Err(InputError::new(at(), "the interval must be longer than 0")
                    .with_fix("write e.g. interval = \"100ms\", or leave the key out"));
            }
            sc.interval_ns = Some(ns);
        }
        "tick_aligned" => match value {
            Value::Boolean(b) => sc.tick_aligned = *b,
            other => return Err(wrong_type(&at(), "true or false", other)),
        },
        "boot_start" => match value {
            Value::Boolean(b) => sc.boot_start = *b,
            other => return Err(wrong_type(&at(), "true or false", other)),
        },
        "uclamp_leaked_min" => {
            sc.uclamp_leaked_min = Some(integer(value, &at, 0, 1024)? as u32);
        }
        "noise" => sc.noise = noise(value, src, Default::default())?,
        "costs" => {
            let Value::Table(t) = value else {
                return Err(wrong_type(&at(), "a table of NAME = VALUE", value));
            };
            let known = crate::machine::Costs::names();
            for (name, v) in t {
                let place = src.entry("costs", name);
                if !known.contains(name) {
                    return Err(InputError::new(place, format!("unknown cost '{name}'"))
                        .with_fix(format!("known costs: {}", known.join(", "))));
                }
                let n = integer(v, &|| place.clone(), 0, u64::MAX)?;
                let mut one = std::collections::BTreeMap::new();
                one.insert(name.clone(), n);
                crate::machine::Costs::default()
                    .with_overrides(&one)
                    .map_err(|e| InputError::new(&place, e).with_fix("use a smaller value"))?;
                sc.costs.insert(name.clone(), n);
            }
        }
        "trace" => {
            // A file's trace path starts at its folder; a flag's is the user's, as typed.
            let base = match src {
                Source::File(_) => sc.base_dir.clone(),
                Source::Flag(_) => PathBuf::new(),
            };
            crate::experiment::trace_toml::apply_trace(&mut sc.trace, value, src, &base)?
        }
        _ => {
            return Err(
                InputError::new(src.origin(), format!("unknown key '{key}'"))
                    .with_fix(format!("known keys: {}", SCENARIO_KEYS.join(", "))),
            )
        }
    }
    Ok(())
}

/// `TABLE.ENTRY` sets one entry of a table, keeping its others (`sysctl` and `trace` keep
/// them in their setters, `noise` starts from the current settings); a plain key is set as
/// a whole.
fn set_dotted(sc: &mut Scenario, key: &str, value: Value, src: Source) -> Result<(), InputError> {
    match key.split_once('.') {
        Some((table, entry)) => {
            let mut inner = toml::Table::new();
            inner.insert(entry.to_string(), value);
            if table == "noise" {
                // One entry over the current settings, the others kept.
                sc.noise = noise(&Value::Table(inner), src, sc.noise)?;
                return Ok(());
            }
            set(sc, table, &Value::Table(inner), src)
        }
        None => set(sc, key, &value, src),
    }
}

/// 1-based line and column (in characters) of byte offset `pos` in `text`.
fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let before = &text[..pos.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

fn wrong_type(at: &str, expected: &str, got: &Value) -> InputError {
    InputError::new(at, format!("expected {expected}, found {}", type_name(got)))
        .with_fix(format!("give {expected} (docs/scenario.md)"))
}

fn string(v: &Value, at: &dyn Fn() -> String) -> Result<String, InputError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(wrong_type(&at(), "a string", other)),
    }
}

fn integer(v: &Value, at: &dyn Fn() -> String, min: u64, max: u64) -> Result<u64, InputError> {
    match v {
        Value::Integer(i) if *i >= 0 && (*i as u64) >= min && (*i as u64) <= max => Ok(*i as u64),
        Value::Integer(i) => {
            // A TOML integer is an i64: that is the largest anyone can write.
            let max = max.min(i64::MAX as u64);
            Err(InputError::new(at(), format!("{i} is out of range"))
                .with_fix(format!("give an integer in {min}..={max}")))
        }
        other => Err(wrong_type(&at(), "an integer", other)),
    }
}

/// `features` is a debugfs-syntax string or an array of names; both become one list.
fn features(v: &Value, at: &dyn Fn() -> String) -> Result<String, InputError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Array(items) => {
            let names = items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.as_str()),
                    other => Err(wrong_type(&at(), "feature names as strings", other)),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(names.join(","))
        }
        other => Err(wrong_type(
            &at(),
            "a string or an array of feature names",
            other,
        )),
    }
}

/// `[noise]`: `start_jitter = "1ms"`, `work_jitter_pct = 2` (0–50, may be fractional).
/// The `[noise]` table's entries set over `start` (the defaults for a whole table, the
/// current settings for one `noise.KEY=VALUE`).
fn noise(
    v: &Value,
    src: Source,
    start: super::noise::Noise,
) -> Result<super::noise::Noise, InputError> {
    let Value::Table(t) = v else {
        return Err(wrong_type(&src.key("noise"), "a table", v));
    };
    let mut n = start;
    for (name, v) in t {
        let place = src.entry("noise", name);
        match name.as_str() {
            "start_jitter" => {
                let s = string(v, &|| place.clone())?;
                n.start_jitter_ns = parse_duration(&s).map_err(|m| InputError::new(&place, m))?;
            }
            "work_jitter_pct" => {
                let pct = match v {
                    Value::Integer(i) => *i as f64,
                    Value::Float(f) => *f,
                    other => return Err(wrong_type(&place, "a number of percent", other)),
                };
                if !(0.0..=50.0).contains(&pct) {
                    return Err(InputError::new(&place, format!("{pct}% is out of range"))
                        .with_fix("use 0 to 50 (percent)"));
                }
                n.work_jitter_ppm = (pct * 10_000.0).round() as u32;
            }
            "housekeeping_hz" => match v {
                Value::Integer(i) if (0..=10_000).contains(i) => n.housekeeping_hz = *i as u32,
                other => {
                    return Err(wrong_type(
                        &place,
                        "wake-ups per CPU per second, 0 to 10000",
                        other,
                    ))
                }
            },
            "housekeeping_run" => {
                let s = string(v, &|| place.clone())?;
                n.housekeeping_run_ns =
                    parse_duration(&s).map_err(|m| InputError::new(&place, m))?;
            }
            "timer_jitter" => {
                let s = string(v, &|| place.clone())?;
                n.timer_jitter_ns = parse_duration(&s).map_err(|m| InputError::new(&place, m))?;
            }
            _ => {
                return Err(InputError::new(&place, "unknown noise key").with_fix(
                    "known keys: start_jitter, work_jitter_pct, housekeeping_hz, housekeeping_run, timer_jitter",
                ))
            }
        }
    }
    Ok(n)
}

/// Apply a `KEY=VALUE` setting (`ab --base/--patch`, `sweep`): VALUE is read as TOML when
/// it parses (`hz=1000`, `features=["A","B"]`), else as a string (`features=NO_HRTICK`);
/// a dotted key sets one entry of a table (`sysctl.sched_util_clamp_max=512`).
pub fn apply_setting(sc: &mut Scenario, setting: &str, origin: &str) -> Result<(), InputError> {
    let Some((key, raw)) = setting.split_once('=') else {
        return Err(
            InputError::new(origin, format!("'{setting}' is not KEY=VALUE"))
                .with_fix("write e.g. features=UTIL_FITS_CAPACITY or pelt_halflife=8ms"),
        );
    };
    set_dotted(
        sc,
        key.trim(),
        setting_value(raw.trim()),
        Source::File(origin),
    )
}

/// The VALUE of a `KEY=VALUE` setting: TOML when it parses, else the text as a string.
fn setting_value(raw: &str) -> Value {
    match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(raw.into())),
        Err(_) => Value::String(raw.into()),
    }
}

fn workloads(v: &Value, at: &dyn Fn() -> String) -> Result<Vec<String>, InputError> {
    let fix = "write e.g. workloads = [\"rtapp two-hogs.json\"]";
    match v {
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(wrong_type(&at(), "workload strings", other).with_fix(fix)),
            })
            .collect(),
        other => Err(wrong_type(&at(), "an array of strings", other).with_fix(fix)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NSEC_PER_MSEC;

    fn parse(text: &str) -> Result<Scenario, InputError> {
        parse_scenario(text, "t.toml", Path::new("/scen"))
    }

    #[test]
    fn every_key() {
        let sc = parse(
            r#"
machine = "smp:4"
features = ["NO_DELAY_DEQUEUE", "HRTICK"]
seed = 7
duration = "500ms"
hz = 1000
preempt = "lazy"
workloads = ["rtapp a.json", "rtapp b.json"]
"#,
        )
        .unwrap();
        assert_eq!(sc.machine, "smp:4");
        assert_eq!(sc.features, "NO_DELAY_DEQUEUE,HRTICK");
        assert_eq!(sc.seed, 7);
        assert_eq!(sc.duration_ns, Some(500 * NSEC_PER_MSEC));
        assert_eq!(sc.hz, 1000);
        assert_eq!(sc.preempt, PreemptModel::Lazy);
        assert_eq!(sc.workloads, vec!["rtapp a.json", "rtapp b.json"]);
        assert_eq!(sc.base_dir, Path::new("/scen"));
    }

    #[test]
    fn empty_file_is_the_default() {
        let sc = parse("").unwrap();
        assert_eq!(
            sc,
            Scenario {
                base_dir: "/scen".into(),
                ..Scenario::default()
            }
        );
        assert_eq!(parse("features = 'HRTICK'").unwrap().features, "HRTICK");
    }

    #[test]
    fn unknown_key_names_file_key_and_known_keys() {
        let s = parse("mashine = 'smp:2'").unwrap_err().to_string();
        assert!(s.starts_with("t.toml:"), "{s}");
        assert!(s.contains("unknown key 'mashine'"), "{s}");
        assert!(s.contains("known keys: machine, features, seed"), "{s}");
    }

    #[test]
    fn malformed_toml_has_line_and_column() {
        let s = parse("seed = 1\nmachine = \"smp:2\nhz = 3\n")
            .unwrap_err()
            .to_string();
        assert!(s.starts_with("t.toml:2:"), "{s}");
        assert!(s.contains("malformed TOML"), "{s}");
        assert!(!s.contains('\n'), "one line: {s}");
    }

    #[test]
    fn wrong_types_are_named() {
        let s = parse("seed = 'one'").unwrap_err().to_string();
        assert!(s.contains("key 'seed'") && s.contains("expected an integer, found a string"));
        let s = parse("seed = -1").unwrap_err().to_string();
        assert!(s.contains("out of range"), "{s}");
        let s = parse("hz = 0").unwrap_err().to_string();
        assert!(s.contains("out of range"), "{s}");
        let s = parse("duration = 10").unwrap_err().to_string();
        assert!(s.contains("expected a string with a unit"), "{s}");
        let s = parse("duration = '-5s'").unwrap_err().to_string();
        assert!(s.contains("negative"), "{s}");
        let s = parse("workloads = 'rtapp x.json'").unwrap_err().to_string();
        assert!(s.contains("expected an array of strings"), "{s}");
        let s = parse("workloads = [1]").unwrap_err().to_string();
        assert!(s.contains("found an integer"), "{s}");
        let s = parse("preempt = 'rt'").unwrap_err().to_string();
        assert!(s.contains("unknown preemption model 'rt'"), "{s}");
        let s = parse("features = [true]").unwrap_err().to_string();
        assert!(s.contains("found a boolean"), "{s}");
    }

    #[test]
    fn load_resolves_base_dir_and_reports_missing_files() {
        let e = load_scenario(Path::new("/nonexistent/x.toml")).unwrap_err();
        assert!(e.to_string().contains("cannot read the scenario file"));
        let dir = std::env::temp_dir().join(format!("schedlab-scen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("s.toml");
        std::fs::write(&file, "machine = 'smp:2'\n").unwrap();
        let sc = load_scenario(&file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(sc.machine, "smp:2");
        assert_eq!(sc.base_dir, dir);
    }

    #[test]
    fn noise_table_and_settings() {
        let sc = parse("[noise]\nstart_jitter = \"2ms\"\nwork_jitter_pct = 1.5\n").unwrap();
        assert_eq!(sc.noise.start_jitter_ns, 2 * NSEC_PER_MSEC);
        assert_eq!(sc.noise.work_jitter_ppm, 15_000);
        let e = parse("[noise]\nwork_jitter_pct = 80\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("noise.work_jitter_pct") && e.contains("0 to 50"),
            "{e}"
        );
        let e = parse("[noise]\njitter = 1\n").unwrap_err().to_string();
        assert!(e.contains("unknown noise key"), "{e}");

        let mut sc = Scenario::default();
        apply_setting(&mut sc, "features=UTIL_FITS_CAPACITY", "--patch").unwrap();
        assert_eq!(sc.features, "UTIL_FITS_CAPACITY");
        apply_setting(&mut sc, "hz=1000", "--patch").unwrap();
        assert_eq!(sc.hz, 1000);
        apply_setting(&mut sc, "pelt_halflife=8ms", "--patch").unwrap();
        assert_eq!(sc.pelt_halflife_ms, 8);
        apply_setting(&mut sc, "noise.work_jitter_pct=2", "--base").unwrap();
        apply_setting(&mut sc, "noise.start_jitter=1ms", "--base").unwrap();
        assert_eq!(sc.noise.work_jitter_ppm, 20_000, "kept across settings");
        assert_eq!(sc.noise.start_jitter_ns, NSEC_PER_MSEC);
        apply_setting(&mut sc, "noise.housekeeping_hz=22", "--base").unwrap();
        apply_setting(&mut sc, "noise.housekeeping_run=30us", "--base").unwrap();
        apply_setting(&mut sc, "noise.timer_jitter=20us", "--base").unwrap();
        assert_eq!(sc.noise.work_jitter_ppm, 20_000, "kept across settings");
        assert_eq!(sc.noise.start_jitter_ns, NSEC_PER_MSEC);
        assert_eq!(sc.noise.housekeeping_hz, 22, "kept across settings");
        assert_eq!(sc.noise.housekeeping_run_ns, 30_000, "kept across settings");
        assert_eq!(sc.noise.timer_jitter_ns, 20_000);
        let sc2 = parse(
            "[noise]
timer_jitter = \"15us\"\n",
        )
        .unwrap();
        assert_eq!(sc2.noise.timer_jitter_ns, 15_000);
        apply_setting(&mut sc, "sysctl.sched_util_clamp_max=512", "--patch").unwrap();
        let e = apply_setting(&mut sc, "hz", "--patch")
            .unwrap_err()
            .to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
        let e = apply_setting(&mut sc, "bogus=1", "--patch")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--patch") && e.contains("unknown key 'bogus'"),
            "{e}"
        );
    }

    #[test]
    fn trace_table_is_kept_in_the_scenario() {
        use crate::trace::select::{EventKind, Format, Precision};
        let sc = parse(
            "[trace]\nfile = \"out.txt\"\nevents = [\"sched_switch\"]\n\
             window = \"1s..2s\"\nprecision = \"ns\"\n",
        )
        .unwrap();
        let t = sc.trace.expect("the [trace] table is kept");
        assert_eq!(t.path, Path::new("/scen/out.txt"), "relative to the file");
        assert_eq!(t.format, Format::Text);
        assert!(t.events.contains(EventKind::SchedSwitch));
        assert!(!t.events.contains(EventKind::SchedWaking));
        assert_eq!(t.window, (1_000_000_000, 2_000_000_000));
        assert_eq!(t.precision, Precision::Ns);
        assert_eq!(parse("seed = 2").unwrap().trace, None);
        let e = parse("[trace]\nfile = \"x.txt\"\ncounters = \"util\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: trace.counters: ") && e.contains("Perfetto traces only"),
            "{e}"
        );
    }

    #[test]
    fn flags_use_the_keys_setter_and_its_texts() {
        let cases: &[(&str, Value, FlagValue, &str)] = &[
            (
                "preempt",
                Value::String("rt".into()),
                FlagValue::Text("rt"),
                "--preempt",
            ),
            (
                "duration",
                Value::String("-5s".into()),
                FlagValue::Text("-5s"),
                "-t/--time",
            ),
            ("hz", Value::Integer(0), FlagValue::Int(0), "--hz"),
            (
                "pelt_halflife",
                Value::String("5.5ms".into()),
                FlagValue::Text("5.5ms"),
                "--pelt-halflife",
            ),
            (
                "governor",
                Value::String("x".into()),
                FlagValue::Text("x"),
                "--governor",
            ),
        ];
        for (key, file_value, flag_value, flag) in cases {
            let from_file =
                apply_key(&mut Scenario::default(), key, file_value, "t.toml").unwrap_err();
            let from_flag =
                apply_flag(&mut Scenario::default(), key, *flag_value, flag).unwrap_err();
            assert_eq!(from_file.origin, format!("t.toml: key '{key}'"));
            assert_eq!(from_flag.origin, *flag);
            assert_eq!(from_file.message, from_flag.message, "{key}");
            assert_eq!(from_file.fix, from_flag.fix, "{key}");
        }

        let mut sc = parse("workloads = [\"rtapp a.json\"]\nseed = 3").unwrap();
        apply_flag(&mut sc, "seed", FlagValue::Int(9), "-s/--seed").unwrap();
        let w = vec!["rtapp b.json".to_string()];
        apply_flag(&mut sc, "workloads", FlagValue::List(&w), "-w").unwrap();
        apply_flag(&mut sc, "autogroup", FlagValue::Switch, "--autogroup").unwrap();
        assert_eq!((sc.seed, sc.autogroup), (9, true));
        assert_eq!(sc.workloads, w);
        assert_eq!(
            sc.base_dir,
            Path::new("."),
            "a flag's paths start at the cwd"
        );

        apply_flag_assignment(&mut sc, "sysctl", "sched_util_clamp_max=512", "--sysctl").unwrap();
        assert_eq!(sc.sysctl.sched_util_clamp_max, 512);
        let e = apply_flag_assignment(&mut sc, "sysctl", "sched_util_clamp_min=2000", "--sysctl")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--sysctl 'sched_util_clamp_min=2000': ") && e.contains("0..=1024"),
            "{e}"
        );
        let e = parse("[sysctl]\nsched_util_clamp_min = 2000\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: sysctl.sched_util_clamp_min: ") && e.contains("0..=1024"),
            "{e}"
        );
    }

    #[test]
    fn trace_flags_apply_over_the_table() {
        use crate::trace::select::{EventKind, Format};
        let text = |t| FlagValue::Text(t);
        let mut sc = Scenario::default();
        let e = apply_flag(&mut sc, "trace.events", text("cpu_idle"), "--trace-events")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--trace-events: has no effect without --trace"),
            "{e}"
        );

        let mut sc = parse("[trace]\nfile = \"a.pftrace\"\nevents = \"cpu_idle\"\n").unwrap();
        apply_flag(&mut sc, "trace.file", text("b.txt"), "--trace b.txt").unwrap();
        let t = sc.trace.clone().unwrap();
        assert_eq!(t.path, Path::new("b.txt"), "a flag's path is kept as typed");
        assert_eq!(t.format, Format::Text);
        assert!(
            t.events.contains(EventKind::CpuIdle) && !t.events.contains(EventKind::SchedSwitch)
        );
        let e = apply_flag(&mut sc, "trace.counters", text("util"), "--trace-counters")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--trace-counters: counter tracks"), "{e}");
        let e = apply_flag(&mut sc, "trace.window", text("2s"), "--trace-window")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--trace-window: '2s' is not a window"), "{e}");
        let e = apply_flag(&mut sc, "trace.file", text("c.json"), "--trace c.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--trace c.json: the file name does not say"),
            "{e}"
        );
        assert_eq!(sc.trace, Some(t), "a refused flag changes nothing");
    }

    #[test]
    fn schedutil_rate_limit_takes_whole_microseconds_up_to_ten_seconds() {
        let sc = parse("schedutil_rate_limit = \"500us\"").unwrap();
        assert_eq!(sc.schedutil_rate_limit_ns, Some(500_000));
        assert_eq!(parse("").unwrap().schedutil_rate_limit_ns, None);
        for bad in ["\"1500ns\"", "\"11s\"", "500"] {
            let e = parse(&format!("schedutil_rate_limit = {bad}"))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("t.toml: key 'schedutil_rate_limit'") && e.contains("microseconds"),
                "{bad}: {e}"
            );
        }
    }
}
