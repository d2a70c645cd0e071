//! `schedlab sweep`: a grid of settings × seeds run in parallel, each run's result kept on
//! disk so an interrupted sweep resumes where it stopped, and one table of means (docs/sweep.md).
//!
//! ```toml
//! scenario = "hackbench.toml"    # relative to this file; or scenario keys under [base]
//! seeds = 5                       # or a list: [1, 2, 3]
//! metrics = ["perf.*"]
//! [[axis]]
//! key = "features"
//! values = ["", "UTIL_FITS_CAPACITY", "SELECT_BIAS_PREV"]
//! [[axis]]
//! key = "machine"
//! values = ["smp:8", "smt:4x2"]
//! ```

use super::ab::metrics::{default_patterns, flatten, select};
use super::ab::stats::Summary;
use super::scenario_toml::{apply_key, apply_setting, load_scenario};
use super::Scenario;
use crate::error::InputError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Value;

/// One axis: a scenario key and the values it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub key: String,
    /// Each value as a `KEY=VALUE` setting.
    pub settings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// The sweep file, for errors.
    pub origin: String,
    pub base: Scenario,
    pub axes: Vec<Axis>,
    pub seeds: Vec<u64>,
    pub metrics: Vec<String>,
}

/// One grid point: its settings (one per axis) and the scenario they make.
#[derive(Debug, Clone)]
pub struct Point {
    pub settings: Vec<String>,
    pub scenario: Scenario,
}

/// A value as it appears in a `KEY=VALUE` setting (strings bare, the rest as TOML).
fn setting_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Parse a sweep file.
pub fn load_sweep(path: &Path) -> Result<SweepSpec, InputError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError::new(&origin, format!("cannot read the sweep file: {e}")))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    parse_sweep(&text, &origin, &dir)
}

pub fn parse_sweep(text: &str, origin: &str, dir: &Path) -> Result<SweepSpec, InputError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        InputError::new(origin, format!("malformed TOML: {}", e.message().trim()))
            .with_fix(crate::experiment::scenario_toml::TOML_SYNTAX_FIX)
    })?;
    let mut base = Scenario {
        base_dir: dir.to_path_buf(),
        ..Scenario::default()
    };
    let mut seeds = vec![1];
    let mut metrics = default_patterns();
    let mut axes = Vec::new();
    // The scenario file first, so [base] keys refine it whatever the key order.
    if let Some(v) = table.get("scenario") {
        let Value::String(file) = v else {
            return Err(InputError::new(
                format!("{origin}: key 'scenario'"),
                "expected a file name",
            ));
        };
        base = load_scenario(&dir.join(file))?;
    }
    for (key, v) in &table {
        let at = format!("{origin}: key '{key}'");
        match key.as_str() {
            "scenario" => {}
            "base" => {
                let Value::Table(t) = v else {
                    return Err(InputError::new(at, "expected a table of scenario keys"));
                };
                for (k, v) in t {
                    apply_key(&mut base, k, v, &format!("{origin}: base"))?;
                }
            }
            "seeds" => {
                seeds = match v {
                    Value::Integer(n) if (1..=10_000).contains(n) => (1..=*n as u64).collect(),
                    Value::Array(a) => a
                        .iter()
                        .map(|x| match x {
                            Value::Integer(i) if *i >= 0 => Ok(*i as u64),
                            _ => Err(InputError::new(&at, "seeds must be integers ≥ 0")),
                        })
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(InputError::new(
                            at,
                            "expected a count (1..=10000) or a list of seeds",
                        )
                        .with_fix("write e.g. seeds = 5 or seeds = [1, 2, 3]"))
                    }
                };
                if seeds.is_empty() {
                    return Err(InputError::new(at, "no seeds"));
                }
            }
            "metrics" => {
                let Value::Array(a) = v else {
                    return Err(InputError::new(at, "expected an array of metric patterns"));
                };
                metrics = a
                    .iter()
                    .map(|x| match x {
                        Value::String(s) => Ok(s.clone()),
                        _ => Err(InputError::new(&at, "metric patterns are strings")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "axis" => {
                let Value::Array(a) = v else {
                    return Err(InputError::new(at, "expected [[axis]] tables"));
                };
                for (i, ax) in a.iter().enumerate() {
                    axes.push(axis(ax, &format!("{origin}: axis[{i}]"))?);
                }
            }
            _ => {
                return Err(InputError::new(origin, format!("unknown key '{key}'"))
                    .with_fix("known keys: scenario, base, seeds, metrics, axis"));
            }
        }
    }
    let spec = SweepSpec {
        origin: origin.to_string(),
        base,
        axes,
        seeds,
        metrics,
    };
    // Build and check every point now so a bad value fails before any run.
    for p in points(&spec)? {
        super::run::check_settings(&p.scenario).map_err(|e| {
            let at = if p.settings.is_empty() {
                format!("{origin}: base")
            } else {
                format!("{origin}: point {}", p.settings.join(" "))
            };
            InputError {
                origin: at,
                message: e.to_string(),
                fix: None,
            }
        })?;
    }
    Ok(spec)
}

fn axis(v: &Value, at: &str) -> Result<Axis, InputError> {
    let Value::Table(t) = v else {
        return Err(InputError::new(at, "expected a table with key and values"));
    };
    let key = match t.get("key") {
        Some(Value::String(k)) => k.clone(),
        _ => {
            return Err(
                InputError::new(at, "missing key = \"NAME\"").with_fix("e.g. key = \"features\"")
            )
        }
    };
    let Some(Value::Array(values)) = t.get("values") else {
        return Err(InputError::new(at, "missing values = [...]"));
    };
    if values.is_empty() {
        return Err(InputError::new(at, "values is empty"));
    }
    if let Some(extra) = t.keys().find(|k| *k != "key" && *k != "values") {
        return Err(InputError::new(at, format!("unknown key '{extra}'"))
            .with_fix("an axis has key and values"));
    }
    Ok(Axis {
        settings: values
            .iter()
            .map(|v| format!("{key}={}", setting_value(v)))
            .collect(),
        key,
    })
}

/// Every grid point, the first axis varying slowest.
pub fn points(spec: &SweepSpec) -> Result<Vec<Point>, InputError> {
    let mut pts = vec![Point {
        settings: Vec::new(),
        scenario: spec.base.clone(),
    }];
    for ax in &spec.axes {
        let mut next = Vec::new();
        for p in &pts {
            for s in &ax.settings {
                let mut sc = p.scenario.clone();
                apply_setting(&mut sc, s, &format!("{}: axis {}", spec.origin, ax.key))?;
                let mut settings = p.settings.clone();
                settings.push(s.clone());
                next.push(Point {
                    settings,
                    scenario: sc,
                });
            }
        }
        pts = next;
    }
    Ok(pts)
}

/// The file a run's metrics are kept in: settings and seed, made file-name safe.
pub fn run_file_name(settings: &[String], seed: u64) -> String {
    let mut name: String = settings
        .iter()
        .map(|s| {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("+");
    if name.is_empty() {
        name = "base".into();
    }
    // Different settings can sanitize alike; a hash of the exact text keeps them apart.
    let h = settings
        .iter()
        .flat_map(|s| s.bytes().chain([0]))
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{name}.{h:016x}.seed{seed}.json")
}

/// One row of the sweep table: a grid point and its metrics' summaries.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SweepRow {
    pub settings: Vec<String>,
    pub runs: usize,
    /// metric → (mean, 95% CI half-width).
    pub metrics: BTreeMap<String, (f64, f64)>,
}

/// Summaries per point from each point's runs (flattened metrics).
pub fn summarize(
    points: &[Point],
    runs: &[Vec<BTreeMap<String, f64>>],
    patterns: &[String],
) -> Vec<SweepRow> {
    points
        .iter()
        .zip(runs)
        .map(|(p, rs)| {
            let names = rs.first().map(|m| select(patterns, m)).unwrap_or_default();
            let metrics = names
                .into_iter()
                .filter(|n| rs.iter().all(|r| r.contains_key(n)))
                .map(|n| {
                    let xs: Vec<f64> = rs.iter().map(|r| r[&n]).collect();
                    let s = Summary::of(&xs);
                    (n, (s.mean, s.ci95()))
                })
                .collect();
            SweepRow {
                settings: p.settings.clone(),
                runs: rs.len(),
                metrics,
            }
        })
        .collect()
}

/// Flatten a stored result document.
pub fn metrics_of(doc: &serde_json::Value) -> BTreeMap<String, f64> {
    flatten(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_and_names() {
        let spec = parse_sweep(
            r#"
seeds = 2
metrics = ["perf.*"]
[base]
machine = "smp:2"
workloads = ["rtapp x.json"]
[[axis]]
key = "features"
values = ["", "UTIL_FITS_CAPACITY"]
[[axis]]
key = "hz"
values = [250, 1000]
"#,
            "s.toml",
            Path::new("/d"),
        )
        .unwrap();
        let pts = points(&spec).unwrap();
        assert_eq!(pts.len(), 4);
        assert_eq!(pts[1].settings, vec!["features=", "hz=1000"]);
        assert_eq!(pts[2].scenario.features, "UTIL_FITS_CAPACITY");
        assert_eq!(pts[3].scenario.hz, 1000);
        assert_eq!(spec.seeds, vec![1, 2]);
        let a = run_file_name(&pts[2].settings, 1);
        assert!(a.starts_with("features_UTIL_FITS_CAPACITY+hz_250."), "{a}");
        assert_ne!(
            run_file_name(&["a=b c".into()], 1),
            run_file_name(&["a=b_c".into()], 1)
        );
        let e = parse_sweep(
            "[[axis]]\nkey = \"hz\"\nvalues = [0]\n",
            "s.toml",
            Path::new("/d"),
        );
        assert!(e.is_err(), "hz = 0 is refused before any run");
        let e = parse_sweep("grid = 1\n", "s.toml", Path::new("/d"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key 'grid'"), "{e}");
    }
}
