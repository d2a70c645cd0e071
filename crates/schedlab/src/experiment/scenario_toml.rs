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
    "kernel",
    "pelt_halflife",
    "governor",
    "sysctl",
    "noise",
    "workloads",
    "trace",
    "cgroups",
    "autogroup",
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
        apply_key(&mut sc, key, value, origin)?;
    }
    Ok(sc)
}

/// Set one scenario key from its TOML value (a file's top-level key, or a `KEY=VALUE`
/// setting of `ab` / `sweep`). `origin` names the source in errors.
pub fn apply_key(
    sc: &mut Scenario,
    key: &str,
    value: &Value,
    origin: &str,
) -> Result<(), InputError> {
    let at = || format!("{origin}: key '{key}'");
    match key {
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
        "kernel" => {
            let s = string(value, &at)?;
            sc.kernel = Some(crate::sched::version::KernelVersion::parse(&s, &at())?);
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
        "cgroups" => sc.cgroups = super::cgroups_toml::cgroups(value, origin)?,
        "autogroup" => match value {
            Value::Boolean(b) => sc.autogroup = *b,
            other => return Err(wrong_type(&at(), "true or false", other)),
        },
        "noise" => sc.noise = noise(value, origin)?,
        "trace" => drop(crate::trace::scenario_toml::trace_table(
            value,
            origin,
            &sc.base_dir,
        )?),
        _ => {
            return Err(InputError::new(origin, format!("unknown key '{key}'"))
                .with_fix(format!("known keys: {}", SCENARIO_KEYS.join(", "))))
        }
    }
    Ok(())
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

/// `[noise]`: `start_jitter = "1ms"`, `work_jitter_pct = 2` (0–50, may be fractional).
fn noise(v: &Value, origin: &str) -> Result<super::noise::Noise, InputError> {
    let Value::Table(t) = v else {
        return Err(wrong_type(&format!("{origin}: key 'noise'"), "a table", v));
    };
    let mut n = super::noise::Noise::default();
    for (name, v) in t {
        let place = format!("{origin}: noise.{name}");
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
            _ => {
                return Err(InputError::new(&place, "unknown noise key")
                    .with_fix("known keys: start_jitter, work_jitter_pct"))
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
    let (key, raw) = (key.trim(), raw.trim());
    let value = match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(raw.into())),
        Err(_) => Value::String(raw.into()),
    };
    match key.split_once('.') {
        Some((table, entry)) => {
            let mut inner = toml::Table::new();
            inner.insert(entry.to_string(), value);
            if table == "noise" {
                // Keep the other noise settings: merge into the current ones.
                let mut cur = toml::Table::new();
                if sc.noise.start_jitter_ns > 0 {
                    cur.insert(
                        "start_jitter".into(),
                        Value::String(format!("{}ns", sc.noise.start_jitter_ns)),
                    );
                }
                if sc.noise.work_jitter_ppm > 0 {
                    cur.insert(
                        "work_jitter_pct".into(),
                        Value::Float(sc.noise.work_jitter_ppm as f64 / 10_000.0),
                    );
                }
                cur.extend(inner);
                inner = cur;
            }
            apply_key(sc, table, &Value::Table(inner), origin)
        }
        None => apply_key(sc, key, &value, origin),
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
}
