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
//! ```
//!
//! `duration` must be a string (`"10s"`, `"500ms"`, `"2.5s"`): a bare TOML number is
//! refused because it would be unclear whether it counts seconds or nanoseconds.

use super::{PreemptModel, Scenario};
use crate::error::InputError;
use crate::time::parse_duration;
use std::path::Path;
use toml::Value;

/// Every key a scenario file may contain, in documentation order.
pub const SCENARIO_KEYS: &[&str] = &[
    "machine",
    "features",
    "seed",
    "duration",
    "hz",
    "preempt",
    "pelt_halflife",
    "governor",
    "sysctl",
    "workloads",
    "trace",
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
        let msg = e.message().trim().replace('\n', "; ");
        InputError::new(at, format!("malformed TOML: {msg}"))
    })?;

    let mut sc = Scenario {
        base_dir: base_dir.to_path_buf(),
        ..Scenario::default()
    };
    for (key, value) in &table {
        let at = || format!("{origin}: key '{key}'");
        match key.as_str() {
            "machine" => sc.machine = string(value, &at)?,
            "features" => sc.features = features(value, &at)?,
            "seed" => sc.seed = integer(value, &at, 0, u64::MAX)?,
            "duration" => {
                let s = match value {
                    Value::String(s) => s,
                    other => {
                        return Err(wrong_type(&at(), "a string with a unit", other)
                            .with_fix("write e.g. duration = \"10s\" or \"500ms\""))
                    }
                };
                sc.duration_ns = Some(parse_duration(s).map_err(|m| InputError::new(at(), m))?);
            }
            "hz" => sc.hz = integer(value, &at, 1, u32::MAX as u64)? as u32,
            "preempt" => {
                let s = string(value, &at)?;
                sc.preempt = PreemptModel::from_name(&s).ok_or_else(|| {
                    InputError::new(at(), format!("unknown preemption model '{s}'"))
                        .with_fix("use none, voluntary, full or lazy")
                })?;
            }
            "pelt_halflife" => {
                let s = string(value, &at)?;
                sc.pelt_halflife_ms = super::scenario::parse_pelt_halflife(&s).map_err(|m| {
                    InputError::new(at(), m).with_fix("use \"32ms\", \"16ms\" or \"8ms\"")
                })?;
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
            "sysctl" => {
                let Value::Table(t) = value else {
                    return Err(wrong_type(&at(), "a table of NAME = VALUE", value));
                };
                for (name, v) in t {
                    let place = format!("{origin}: sysctl.{name}");
                    let n = integer(v, &|| place.clone(), 0, u64::MAX)?;
                    sc.sysctl.set(name, n, &place)?;
                }
            }
            "workloads" => sc.workloads = workloads(value, &at)?,
            "trace" => drop(crate::trace::scenario_toml::trace_table(
                value, origin, base_dir,
            )?),
            _ => {
                return Err(InputError::new(origin, format!("unknown key '{key}'"))
                    .with_fix(format!("known keys: {}", SCENARIO_KEYS.join(", "))))
            }
        }
    }
    Ok(sc)
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
        Value::Integer(i) => Err(InputError::new(
            at(),
            format!("{i} is out of range; expected {min}..={max}"),
        )),
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
}
