//! Studies: a seed thread's experiment as a file under `studies/` — the scenario, the
//! variants it compares, the metrics the thread reported and the numbers it published —
//! so `schedlab study run NAME` prints ours beside theirs (docs/studies.md).
//!
//! ```toml
//! title = "UTIL_FITS_CAPACITY / SELECT_BIAS_PREV"
//! thread = "seeds/000_801d15aa4b6c1794.txt"
//! scale = "hackbench -l 480000 scaled to -l 480"
//! seeds = 3
//! [scenario]                  # scenario keys (docs/scenario.md)
//! machine = "epyc-9654-2s"
//! workloads = ["hackbench -g 32 -f 20 --threads --pipe -l 480 -s 100"]
//! [[variant]]
//! tag = "baseline"            # the first variant is the reference of perc_diff
//! [[variant]]
//! tag = "UTIL_FITS_CAPACITY"
//! settings = ["features=UTIL_FITS_CAPACITY"]
//! source = "the v2 posting, 19 Oct 2023"   # when its numbers are not from `thread`
//! [[variant]]
//! tag = "baseline_voluntary"
//! settings = ["preempt=voluntary"]
//! [[variant]]
//! tag = "UTIL_FITS_CAPACITY_voluntary"
//! settings = ["features=UTIL_FITS_CAPACITY", "preempt=voluntary"]
//! base = "baseline_voluntary"   # an earlier variant: this row's perc_diff is against it
//! [[metric]]
//! name = "cpu-migrations"
//! path = "perf.cpu_migrations"
//! better = "lower"            # lower | higher | none
//! published = { baseline = 117e6, UTIL_FITS_CAPACITY = 47e6 }
//! published_perc_diff = { UTIL_FITS_CAPACITY = -59.83 }   # as printed, if it was
//! base = "baseline"           # perc_diff against this variant (default: the first)
//! variants = ["baseline", "UTIL_FITS_CAPACITY"]   # only these rows (default: all)
//! sum = true                  # path is a glob; the metric is the sum of its matches
//! [full]                      # `study run --full`: the thread's own size (optional)
//! scale = "hackbench -l 480000, as the thread ran it; ≈ 15 h on one core"
//! settings = ['workloads=["hackbench -g 32 -f 20 --threads --pipe -l 480000 -s 100"]']
//! [size.large]                # `study run --size large`: any other named size (optional)
//! scale = "hackbench -l 32000; ≈ 50 min on one core"
//! settings = ['workloads=["hackbench -g 32 -f 20 --threads --pipe -l 32000 -s 100"]']
//! ```

use super::scenario_toml::{apply_key, apply_setting};
use super::Scenario;
use crate::error::InputError;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
    /// No preferred direction (e.g. context switches as a side effect).
    None,
}

#[derive(Debug, Clone)]
pub struct StudyMetric {
    pub name: String,
    /// Result-document path (docs/results.md).
    pub path: String,
    pub better: Better,
    /// The thread's numbers by variant tag.
    pub published: BTreeMap<String, f64>,
    /// The thread's perc_diff as it printed them, where it did (computed from its
    /// rounded values otherwise).
    pub published_perc_diff: BTreeMap<String, f64>,
    /// The variant perc_diff is taken against, ours and the thread's (default: the
    /// first), as the thread's own table did.
    pub base: usize,
    /// The variants this metric is reported for (indexes; empty = all), e.g. a second
    /// machine's pair compared only with itself.
    pub variants: Vec<usize>,
    /// `sum = true`: `path` is a glob (`workloads.*.bogo_ops_per_s`) and the metric is
    /// the sum of every value it matches, e.g. one figure over several workloads.
    pub sum: bool,
}

impl StudyMetric {
    /// The value in one run's flattened document: at `path`, or with `sum` the sum of
    /// every value its glob matches (None when nothing matches).
    pub fn value(&self, flat: &BTreeMap<String, f64>) -> Option<f64> {
        if self.sum {
            let hits: Vec<f64> = flat
                .iter()
                .filter(|(k, _)| super::glob::glob_match(&self.path, k))
                .map(|(_, v)| *v)
                .collect();
            (!hits.is_empty()).then(|| hits.iter().sum())
        } else {
            flat.get(&self.path).copied()
        }
    }
}

/// Each metric's value in one run's result document (None: not in it). Only the top-level
/// sections the metrics' paths start in are flattened (a document holds every task's and
/// CPU's figures, a study reads a few), unless some path starts with a pattern.
pub fn metric_values(metrics: &[StudyMetric], doc: &serde_json::Value) -> Vec<Option<f64>> {
    use super::ab::metrics::{flatten, flatten_into};
    let firsts: Option<std::collections::BTreeSet<&str>> = metrics
        .iter()
        .map(|m| {
            let first = m.path.split('.').next().unwrap_or_default();
            (!first.contains(['*', '?'])).then_some(first)
        })
        .collect();
    let flat = match (firsts, doc.as_object()) {
        (Some(firsts), Some(top)) => {
            let mut flat = BTreeMap::new();
            for first in firsts {
                if let Some(v) = top.get(first) {
                    flatten_into(v, first.to_string(), &mut flat);
                }
            }
            flat
        }
        _ => flatten(doc),
    };
    metrics.iter().map(|m| m.value(&flat)).collect()
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub tag: String,
    /// Where this variant's published numbers come from when not the study's `thread`
    /// (another posting of the series, a reply): printed under the table.
    pub source: String,
    pub settings: Vec<String>,
    pub scenario: Scenario,
    /// `base = "TAG"`: this variant's rows are compared with that earlier variant instead
    /// of the metric's base — an assumption check's switched run against its own
    /// unswitched run.
    pub base: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct Study {
    pub name: String,
    pub title: String,
    pub thread: String,
    pub scale: String,
    /// The size it runs at: None for the default, "full" for `[full]` (`study run
    /// --full`), otherwise a `[size.NAME]` (`study run --size NAME`).
    pub size: Option<String>,
    pub notes: String,
    pub seeds: Vec<u64>,
    pub variants: Vec<Variant>,
    pub metrics: Vec<StudyMetric>,
}

fn string_of(t: &toml::Table, key: &str, at: &str) -> Result<String, InputError> {
    match t.get(key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(InputError::new(
            format!("{at}: key '{key}'"),
            "expected a string",
        )),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// The most seeds a study runs per variant (its `seeds`, `-n`, Python's `seeds=`): enough
/// for the phone studies' small effects (a ±2 % effect needs about 2,000), which take
/// milliseconds a run.
pub const MAX_STUDY_SEEDS: u64 = 10_000;

/// Seeds 1..=n for a count from the study file, `study run -n` or Python's `study(seeds=)`.
pub fn seeds_from_count(n: u64, place: &str, fix: &str) -> Result<Vec<u64>, InputError> {
    if !(1..=MAX_STUDY_SEEDS).contains(&n) {
        return Err(
            InputError::new(place, format!("needs 1..={MAX_STUDY_SEEDS} seeds")).with_fix(fix),
        );
    }
    Ok((1..=n).collect())
}

/// Read `studies/NAME.toml`.
pub fn load_study(dir: &Path, name: &str) -> Result<Study, InputError> {
    load_study_sized(dir, name, None)
}

/// Read `studies/NAME.toml` at a named size (`full` for its `[full]` table, another name
/// for its `[size.NAME]`), or at its default size for None.
pub fn load_study_sized(dir: &Path, name: &str, size: Option<&str>) -> Result<Study, InputError> {
    let path = dir.join(format!("{name}.toml"));
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        InputError::new(&origin, format!("cannot read the study: {e}"))
            .with_fix("`schedlab study list` shows the studies")
    })?;
    parse_study_sized(&text, name, &origin, dir, size)
}

pub fn parse_study(text: &str, name: &str, origin: &str, dir: &Path) -> Result<Study, InputError> {
    parse_study_sized(text, name, origin, dir, None)
}

/// The `study run` flag that selects a named size: `--full` or `--size NAME`.
pub fn size_flag(name: &str) -> String {
    if name == "full" {
        "--full".to_string()
    } else {
        format!("--size {name}")
    }
}

/// A size's scale text and the settings applied to the scenario before each variant's own.
struct Size {
    scale: String,
    settings: Vec<String>,
    /// Where it is written, for errors: `[full]` or `[size.NAME]`.
    at: String,
}

/// Every named size of a study: `[full]` as "full", then each `[size.NAME]`.
fn sizes(t: &toml::Table, origin: &str) -> Result<BTreeMap<String, Size>, InputError> {
    let mut out = BTreeMap::new();
    if let Some(v) = t.get("full") {
        out.insert(
            "full".to_string(),
            size_table(v, format!("{origin}: [full]"))?,
        );
    }
    if let Some(v) = t.get("size") {
        let Value::Table(st) = v else {
            return Err(InputError::new(
                format!("{origin}: key 'size'"),
                "expected tables [size.NAME]",
            ));
        };
        for (name, v) in st {
            let at = format!("{origin}: [size.{name}]");
            if name == "full" {
                return Err(InputError::new(&at, "the full size is the [full] table")
                    .with_fix("write it as [full]"));
            }
            out.insert(name.clone(), size_table(v, at)?);
        }
    }
    Ok(out)
}

fn size_table(v: &Value, at: String) -> Result<Size, InputError> {
    let Value::Table(ft) = v else {
        return Err(InputError::new(at, "expected a table"));
    };
    if let Some(k) = ft
        .keys()
        .find(|k| !["scale", "settings"].contains(&k.as_str()))
    {
        return Err(InputError::new(&at, format!("unknown key '{k}'"))
            .with_fix("known keys: scale, settings"));
    }
    Ok(Size {
        scale: string_of(ft, "scale", &at)?,
        settings: settings_of(ft, &at)?,
        at,
    })
}

fn settings_of(t: &toml::Table, at: &str) -> Result<Vec<String>, InputError> {
    match t.get("settings") {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| match s {
                Value::String(s) => Ok(s.clone()),
                _ => Err(InputError::new(at, "settings are KEY=VALUE strings")),
            })
            .collect(),
        Some(_) => Err(InputError::new(at, "settings must be an array")),
    }
}

pub fn parse_study_sized(
    text: &str,
    name: &str,
    origin: &str,
    dir: &Path,
    size: Option<&str>,
) -> Result<Study, InputError> {
    let t: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        InputError::new(origin, format!("malformed TOML: {}", e.message().trim()))
            .with_fix(crate::experiment::scenario_toml::TOML_SYNTAX_FIX)
    })?;
    const KEYS: &[&str] = &[
        "title", "thread", "scale", "notes", "seeds", "scenario", "variant", "metric", "full",
        "size",
    ];
    if let Some(k) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(InputError::new(origin, format!("unknown key '{k}'"))
            .with_fix(format!("known keys: {}", KEYS.join(", "))));
    }
    let mut base = Scenario {
        base_dir: dir.to_path_buf(),
        ..Scenario::default()
    };
    if let Some(v) = t.get("scenario") {
        let Value::Table(st) = v else {
            return Err(InputError::new(origin, "[scenario] must be a table"));
        };
        for (k, v) in st {
            apply_key(&mut base, k, v, &format!("{origin}: scenario"))?;
        }
    }
    let mut scale = string_of(&t, "scale", origin)?;
    let mut sizes = sizes(&t, origin)?;
    if let Some(name) = size {
        let Some(sz) = sizes.remove(name) else {
            let flag = size_flag(name);
            let known: Vec<String> = sizes.keys().map(|k| size_flag(k)).collect();
            let fix = if known.is_empty() {
                "run it without a size flag: it has only its default size".to_string()
            } else {
                format!("its sizes: {} (or none: the default)", known.join(", "))
            };
            return Err(
                InputError::new(origin, format!("{flag}: this study has no such size"))
                    .with_fix(fix),
            );
        };
        for s in &sz.settings {
            apply_setting(&mut base, s, &sz.at)?;
        }
        scale = sz.scale;
    }
    let seeds = match t.get("seeds") {
        None => vec![1],
        // Not an integer, or negative: 0, which the range check refuses.
        Some(v) => seeds_from_count(
            v.as_integer()
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(0),
            &format!("{origin}: key 'seeds'"),
            "e.g. seeds = 5",
        )?,
    };
    let mut variants = Vec::new();
    for (i, v) in array(&t, "variant", origin)?.iter().enumerate() {
        let at = format!("{origin}: variant[{i}]");
        let Value::Table(vt) = v else {
            return Err(InputError::new(at, "expected a table"));
        };
        const VARIANT_KEYS: &[&str] = &["tag", "settings", "source", "base"];
        if let Some(k) = vt.keys().find(|k| !VARIANT_KEYS.contains(&k.as_str())) {
            return Err(InputError::new(&at, format!("unknown key '{k}'"))
                .with_fix(format!("known keys: {}", VARIANT_KEYS.join(", "))));
        }
        let tag = string_of(vt, "tag", &at)?;
        if tag.is_empty() {
            return Err(InputError::new(at, "missing tag"));
        }
        let own_base = match string_of(vt, "base", &at)?.as_str() {
            "" => None,
            b => Some(
                variants
                    .iter()
                    .position(|v: &Variant| v.tag == b)
                    .ok_or_else(|| {
                        InputError::new(&at, format!("base '{b}' is not an earlier variant"))
                            .with_fix("name a [[variant]] tag listed above this one")
                    })?,
            ),
        };
        let settings = settings_of(vt, &at)?;
        let mut sc = base.clone();
        for s in &settings {
            apply_setting(&mut sc, s, &format!("{at} ({tag})"))?;
        }
        super::run::check_settings(&sc)
            .map_err(|e| InputError::new(format!("{at} ({tag})"), e.to_string()))?;
        variants.push(Variant {
            source: string_of(vt, "source", &at)?,
            tag,
            settings,
            scenario: sc,
            base: own_base,
        });
    }
    if variants.len() < 2 {
        return Err(
            InputError::new(origin, "a study compares at least two [[variant]]s")
                .with_fix("add a [[variant]] with a tag and the settings it changes"),
        );
    }
    let mut metrics = Vec::new();
    for (i, m) in array(&t, "metric", origin)?.iter().enumerate() {
        let at = format!("{origin}: metric[{i}]");
        let Value::Table(mt) = m else {
            return Err(InputError::new(at, "expected a table"));
        };
        let better = match string_of(mt, "better", &at)?.as_str() {
            "lower" => Better::Lower,
            "higher" => Better::Higher,
            "" | "none" => Better::None,
            other => {
                return Err(InputError::new(at, format!("better = '{other}'"))
                    .with_fix("use lower, higher or none"))
            }
        };
        let published = tag_numbers(mt, "published", &variants, &at)?;
        let published_perc_diff = tag_numbers(mt, "published_perc_diff", &variants, &at)?;
        let base = match string_of(mt, "base", &at)?.as_str() {
            "" => 0,
            tag => variants.iter().position(|v| v.tag == tag).ok_or_else(|| {
                InputError::new(&at, format!("base '{tag}' is not a variant"))
                    .with_fix("name one of the [[variant]] tags")
            })?,
        };
        let path = string_of(mt, "path", &at)?;
        if path.is_empty() {
            return Err(InputError::new(at, "missing path"));
        }
        let only = metric_variants(mt, &variants, &at)?;
        if !only.is_empty() && !only.contains(&base) {
            return Err(InputError::new(
                &at,
                format!("base '{}' is not in its variants", variants[base].tag),
            )
            .with_fix("name the base among the metric's variants, or set base"));
        }
        metrics.push(StudyMetric {
            name: string_of(mt, "name", &at)?,
            path,
            better,
            published,
            published_perc_diff,
            base,
            variants: only,
            sum: match mt.get("sum") {
                None => false,
                Some(Value::Boolean(b)) => *b,
                Some(_) => {
                    return Err(InputError::new(
                        format!("{at}: key 'sum'"),
                        "expected true or false",
                    ))
                }
            },
        });
    }
    Ok(Study {
        name: name.to_string(),
        title: string_of(&t, "title", origin)?,
        thread: string_of(&t, "thread", origin)?,
        scale,
        size: size.map(str::to_string),
        notes: string_of(&t, "notes", origin)?,
        seeds,
        variants,
        metrics,
    })
}

/// A metric's `variants = [TAG, …]` as variant indexes (empty when absent).
fn metric_variants(
    mt: &toml::Table,
    variants: &[Variant],
    at: &str,
) -> Result<Vec<usize>, InputError> {
    let Some(v) = mt.get("variants") else {
        return Ok(Vec::new());
    };
    let Value::Array(tags) = v else {
        return Err(InputError::new(
            at,
            "variants must be a list of variant tags",
        ));
    };
    tags.iter()
        .map(|t| {
            let tag = t.as_str().unwrap_or_default();
            variants.iter().position(|x| x.tag == tag).ok_or_else(|| {
                InputError::new(at, format!("variants: '{tag}' is not a variant"))
                    .with_fix("name [[variant]] tags")
            })
        })
        .collect()
}

/// A `{ TAG = number, … }` table of a metric, every tag a variant's.
fn tag_numbers(
    mt: &toml::Table,
    key: &str,
    variants: &[Variant],
    at: &str,
) -> Result<BTreeMap<String, f64>, InputError> {
    let mut out = BTreeMap::new();
    if let Some(Value::Table(p)) = mt.get(key) {
        for (tag, v) in p {
            if !variants.iter().any(|x| &x.tag == tag) {
                return Err(InputError::new(
                    at,
                    format!("{key} value for unknown variant '{tag}'"),
                ));
            }
            let x = number(v)
                .ok_or_else(|| InputError::new(at, format!("{key}.{tag} is not a number")))?;
            out.insert(tag.clone(), x);
        }
    }
    Ok(out)
}

fn array<'a>(t: &'a toml::Table, key: &str, origin: &str) -> Result<&'a [Value], InputError> {
    match t.get(key) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(InputError::new(
            origin,
            format!("'{key}' must be [[{key}]] tables"),
        )),
    }
}

/// The studies in `dir`: (name, title), sorted by name.
pub fn list_studies(dir: &Path) -> Result<Vec<(String, String)>, InputError> {
    let rd = std::fs::read_dir(dir).map_err(|e| {
        InputError::new(
            dir.display().to_string(),
            format!("cannot read the studies folder: {e}"),
        )
        .with_fix("run from the repository root or pass --dir")
    })?;
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "toml") {
            let name = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let s = load_study(dir, &name)?;
            out.push((name, s.title));
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
title = "t"
scale = "small"
[scenario]
machine = "smp:1"
workloads = ["spinner -n 1 --sleep 1ms --work 1ms"]
[full]
scale = "the thread's"
settings = ['workloads=["spinner -n 4 --sleep 1ms --work 1ms"]']
[[variant]]
tag = "a"
[[variant]]
tag = "b"
settings = ["hz=1000"]
"#;

    fn parse(text: &str, size: Option<&str>) -> Result<Study, InputError> {
        parse_study_sized(text, "t", "t.toml", Path::new("."), size)
    }

    fn metric(path: &str, sum: bool) -> StudyMetric {
        StudyMetric {
            name: path.into(),
            path: path.into(),
            better: Better::Lower,
            published: BTreeMap::new(),
            published_perc_diff: BTreeMap::new(),
            base: 0,
            variants: Vec::new(),
            sum,
        }
    }

    /// Flattening only the sections the paths start in gives what flattening the whole
    /// document gives, for literal paths, sums over a glob and paths that start with one.
    #[test]
    fn metric_values_read_only_the_sections_they_need_and_agree_with_a_full_flatten() {
        let doc = serde_json::json!({
            "perf": {"context_switches": 7, "cpu_migrations": 2},
            "tasks": [{"cpu_time_ns": 5}, {"cpu_time_ns": 6}],
            "workloads": [{"bogo_ops_per_s": 1.5}, {"bogo_ops_per_s": 2.5}],
            "sched_profile": [{"function": "enqueue_task_fair", "pct": 3.0}],
        });
        let sets = [
            vec![
                metric("perf.context_switches", false),
                metric("workloads.*.bogo_ops_per_s", true),
            ],
            vec![
                metric("sched_profile.enqueue_task_fair.pct", false),
                metric("nope.x", false),
            ],
            vec![
                metric("*.cpu_time_ns", true),
                metric("perf.cpu_migrations", false),
            ],
        ];
        let want = [
            vec![Some(7.0), Some(4.0)],
            vec![Some(3.0), None],
            vec![Some(11.0), Some(2.0)],
        ];
        let flat = super::super::ab::metrics::flatten(&doc);
        for (metrics, want) in sets.iter().zip(want) {
            let full: Vec<Option<f64>> = metrics.iter().map(|m| m.value(&flat)).collect();
            assert_eq!(metric_values(metrics, &doc), want);
            assert_eq!(full, want);
        }
    }

    #[test]
    fn each_size_applies_its_settings_to_every_variant() {
        let text = TEXT.replace(
            "[[variant]]\ntag = \"a\"",
            "[size.mid]\nscale = \"between\"\nsettings = ['workloads=[\"spinner -n 2 --sleep 1ms --work 1ms\"]']\n[[variant]]\ntag = \"a\"",
        );
        let small = parse(&text, None).unwrap();
        assert_eq!(
            (small.scale.as_str(), small.size.as_deref()),
            ("small", None)
        );
        for (size, scale, n) in [
            (Some("full"), "the thread's", 4),
            (Some("mid"), "between", 2),
        ] {
            let big = parse(&text, size).unwrap();
            assert_eq!((big.scale.as_str(), big.size.as_deref()), (scale, size));
            for (s, b) in small.variants.iter().zip(&big.variants) {
                assert_eq!(
                    s.scenario.workloads,
                    ["spinner -n 1 --sleep 1ms --work 1ms"]
                );
                assert_eq!(
                    b.scenario.workloads,
                    [format!("spinner -n {n} --sleep 1ms --work 1ms")]
                );
                assert_eq!(
                    s.scenario.hz, b.scenario.hz,
                    "the variant's own settings stay"
                );
            }
        }
    }

    #[test]
    fn size_errors_name_the_place_and_the_sizes_there_are() {
        let none = TEXT.replace("[full]", "[ignored]");
        let e = parse(&none, None).unwrap_err().to_string();
        assert!(e.contains("unknown key 'ignored'"), "{e}");
        let without = TEXT
            .replace("[full]\n", "")
            .replace("scale = \"the thread's\"\n", "")
            .replace(
                "settings = ['workloads=[\"spinner -n 4 --sleep 1ms --work 1ms\"]']\n",
                "",
            );
        let e = parse(&without, Some("full")).unwrap_err().to_string();
        assert!(
            e.contains("--full: this study has no such size") && e.contains("only its default"),
            "{e}"
        );
        let e = parse(TEXT, Some("mid")).unwrap_err().to_string();
        assert!(
            e.contains("--size mid: this study has no such size")
                && e.contains("its sizes: --full"),
            "{e}"
        );
        let bad = TEXT.replace("scale = \"the thread's\"", "size = 3");
        let e = parse(&bad, None).unwrap_err().to_string();
        assert!(
            e.contains("[full]") && e.contains("unknown key 'size'"),
            "{e}"
        );
        let named_full = TEXT.replace("[full]", "[size.full]");
        let e = parse(&named_full, None).unwrap_err().to_string();
        assert!(
            e.contains("[size.full]") && e.contains("write it as [full]"),
            "{e}"
        );
        let flat = format!("size = 3\n{TEXT}");
        let e = parse(&flat, None).unwrap_err().to_string();
        assert!(e.contains("key 'size'") && e.contains("[size.NAME]"), "{e}");
    }
}
