//! Running a study and printing ours beside the thread's numbers (docs/studies.md).

use super::ab::perc_diff;
use super::ab::stats::{resolvable_pct, welch, Summary};
use super::ab::table::num;
use super::parallel::run_each;
use super::study::{metric_values, Better, Study};
use super::study_runs::RunsDir;
use super::Scenario;
use crate::error::InputError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Which way a change went, judged by the metric's better direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Better,
    Worse,
    Unchanged,
    /// A change on a metric with no better direction.
    Up,
    Down,
}

/// Changes smaller than this (percent) count as unchanged.
pub const UNCHANGED_PCT: f64 = 1.0;

pub fn direction(diff_pct: f64, better: Better, significant: bool) -> Direction {
    if !significant || diff_pct.abs() < UNCHANGED_PCT {
        return Direction::Unchanged;
    }
    match (better, diff_pct > 0.0) {
        (Better::Lower, true) | (Better::Higher, false) => Direction::Worse,
        (Better::Lower, false) | (Better::Higher, true) => Direction::Better,
        (Better::None, true) => Direction::Up,
        (Better::None, false) => Direction::Down,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct VariantRow {
    pub tag: String,
    pub mean: f64,
    pub ci95: f64,
    pub perc_diff: f64,
    pub p_value: f64,
    pub ours: Direction,
    pub published: Option<f64>,
    pub published_perc_diff: Option<f64>,
    pub theirs: Option<Direction>,
    /// Every seed's value equals the base's bit for bit: the variant did nothing to this
    /// metric (an inert knob), so "unchanged" cannot count as agreement.
    pub identical_to_base: bool,
    /// The tag of the variant every seed equals bit for bit, when that is the metric's
    /// base or the study's first variant (the run without any switch): the switch did
    /// nothing here, so the row is not counted (a table B row compared against another
    /// variant stays inert if it equals the unswitched run).
    pub identical_to: Option<String>,
    /// Whether this row agrees with the thread (None: the thread has no number here).
    pub agrees: Option<bool>,
    /// The row perc_diff is taken against.
    pub is_base: bool,
    /// The variant's own base (`base = "TAG"` in its [[variant]]) when it is not the
    /// metric's: this row's perc_diff is against that run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    /// The smallest |perc_diff| these seeds detect with 80 % power at p < 0.05, from this
    /// run's and its base's spread (`resolvable_pct`): a thread effect below it cannot
    /// show as significant here, whatever the model does. None for the base row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolves_pct: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricResult {
    pub name: String,
    pub path: String,
    pub rows: Vec<VariantRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StudyResult {
    pub name: String,
    pub seeds: usize,
    pub metrics: Vec<MetricResult>,
}

/// Run every variant over `seeds` and compare. With `runs`, every run's result document
/// is also written there as TAG-seedN.json as soon as the run ends (and, with its
/// `resume`, a run stored there by the same commit and scenario is read, not run);
/// otherwise only each run's metric values are kept, not its document.
pub fn run_study(
    study: &Study,
    seeds: &[u64],
    jobs: usize,
    runs: Option<&RunsDir>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyResult, InputError> {
    let scenarios: Vec<Scenario> = study
        .variants
        .iter()
        .flat_map(|v| {
            seeds.iter().map(|&seed| Scenario {
                seed,
                ..v.scenario.clone()
            })
        })
        .collect();
    let n = seeds.len();
    let tag_of = |i: usize| study.variants[i / n].tag.as_str();
    if let Some(dir) = runs {
        dir.prepare()?;
    }
    // Per run, each metric's value (None: the path is not in that run's document).
    let mut values_by_run: Vec<Option<Vec<Option<f64>>>> = scenarios
        .iter()
        .enumerate()
        .map(|(i, sc)| runs.and_then(|dir| dir.stored(tag_of(i), sc, &study.metrics)))
        .collect();
    let todo: Vec<usize> = (0..scenarios.len())
        .filter(|&i| values_by_run[i].is_none())
        .collect();
    let to_run: Vec<Scenario> = todo.iter().map(|&i| scenarios[i].clone()).collect();
    let ran = run_each(
        &to_run,
        jobs,
        &|f| progress(f.done, f.total),
        &|t, result| {
            let doc = serde_json::to_value(&result).expect("results serialize");
            drop(result);
            if let Some(dir) = runs {
                dir.store(tag_of(todo[t]), &to_run[t], &doc)?;
            }
            Ok(metric_values(&study.metrics, &doc))
        },
    )?;
    for (&i, v) in todo.iter().zip(ran) {
        values_by_run[i] = Some(v);
    }
    let values_by_run: Vec<Vec<Option<f64>>> = values_by_run
        .into_iter()
        .map(|v| v.expect("every run is stored or done"))
        .collect();
    let mut metrics = Vec::new();
    for (mi, m) in study.metrics.iter().enumerate() {
        let values = |vi: usize| -> Result<Vec<f64>, InputError> {
            values_by_run[vi * n..(vi + 1) * n]
                .iter()
                .map(|r| {
                    r[mi].ok_or_else(|| {
                        InputError::new(
                            format!("study {}", study.name),
                            format!("no metric '{}' in the results", m.path),
                        )
                        .with_fix("see the result document (run --json -) for paths")
                    })
                })
                .collect()
        };
        // Values by variant, read once: a row's base is the metric's or its variant's own.
        let mut read: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        let mut values_of = |vi: usize| -> Result<Vec<f64>, InputError> {
            if let Some(v) = read.get(&vi) {
                return Ok(v.clone());
            }
            let v = values(vi)?;
            read.insert(vi, v.clone());
            Ok(v)
        };
        let mut rows = Vec::new();
        for (vi, v) in study.variants.iter().enumerate() {
            if !m.variants.is_empty() && !m.variants.contains(&vi) {
                continue;
            }
            let vals = values_of(vi)?;
            let is_base = vi == m.base;
            let row_base = match v.base {
                Some(b) if !is_base => b,
                _ => m.base,
            };
            let base_values = values_of(row_base)?;
            let base = Summary::of(&base_values);
            let base_pub = m.published.get(&study.variants[row_base].tag).copied();
            let same = |other: &[f64]| vals.iter().zip(other).all(|(a, b)| a == b);
            let identical = !is_base && same(&base_values);
            let identical_to = if is_base {
                None
            } else if identical {
                Some(study.variants[row_base].tag.clone())
            } else if vi != 0 && row_base != 0 && same(&values_of(0)?) {
                // Equal to the unswitched run while compared against another base.
                Some(study.variants[0].tag.clone())
            } else {
                None
            };
            let s = Summary::of(&vals);
            let diff = perc_diff(base.mean, s.mean);
            let p = welch(&base, &s).2;
            let published = m.published.get(&v.tag).copied();
            // The thread's perc_diff as printed, else from its values.
            let pub_diff = match (base_pub, published) {
                _ if m.published_perc_diff.contains_key(&v.tag) => {
                    m.published_perc_diff.get(&v.tag).copied()
                }
                _ if is_base && (published.is_some() || !m.published_perc_diff.is_empty()) => {
                    Some(0.0)
                }
                (Some(b), Some(x)) => Some(perc_diff(b, x)),
                _ => None,
            };
            let ours = direction(diff, m.better, p < 0.05);
            let theirs = pub_diff.map(|d| direction(d, m.better, true));
            rows.push(VariantRow {
                tag: v.tag.clone(),
                mean: s.mean,
                ci95: s.ci95(),
                perc_diff: diff,
                p_value: p,
                ours,
                published,
                published_perc_diff: pub_diff,
                theirs,
                agrees: agreement(ours, theirs, identical_to.is_some(), is_base),
                identical_to_base: identical,
                identical_to,
                is_base,
                compared_with: (row_base != m.base).then(|| study.variants[row_base].tag.clone()),
                resolves_pct: if is_base {
                    None
                } else {
                    resolvable_pct(&base, &s)
                },
            });
        }
        metrics.push(MetricResult {
            name: m.name.clone(),
            path: m.path.clone(),
            rows,
        });
    }
    Ok(StudyResult {
        name: study.name.clone(),
        seeds: n,
        metrics,
    })
}

/// Whether a row agrees with the thread: not counted (None) for the base row, where the
/// thread has no number, and for an inert variant (every seed bit-identical to the base:
/// it reproduces nothing, not even "unchanged"); else whether both went the same way.
pub fn agreement(
    ours: Direction,
    theirs: Option<Direction>,
    identical_to_base: bool,
    is_base: bool,
) -> Option<bool> {
    if is_base || identical_to_base {
        return None;
    }
    theirs.map(|t| t == ours)
}

fn dir_text(d: Direction) -> &'static str {
    match d {
        Direction::Better => "better",
        Direction::Worse => "worse",
        Direction::Unchanged => "unchanged",
        Direction::Up => "up",
        Direction::Down => "down",
    }
}

/// The table: per metric and variant, ours (mean ± CI, perc_diff) beside the thread's.
pub fn render_study(study: &Study, r: &StudyResult) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}: {}", study.name, study.title);
    let _ = writeln!(s, "- thread: {}", study.thread);
    if !study.scale.is_empty() {
        let _ = writeln!(s, "- scale: {}", study.scale);
    }
    let _ = writeln!(
        s,
        "- {} seed(s) per variant; ± is the 95% CI; perc_diff against '{}' unless a metric names another (base); a direction counts when |perc_diff| ≥ {UNCHANGED_PCT}% (and p < 0.05 for ours); \"= TAG\": every seed bit-identical to the base or to the study's first variant (an inert switch), not counted\n",
        r.seeds, study.variants[0].tag
    );
    let _ = writeln!(
        s,
        "| metric | tag | ours | perc_diff | thread | perc_diff | direction ours / thread |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    let (mut agree, mut compared) = (0, 0);
    // The same count over the rows whose thread numbers are the seed file's own.
    let (mut own_agree, mut own_compared) = (0, 0);
    let from_seed_file = |tag: &str| {
        study
            .variants
            .iter()
            .find(|v| v.tag == tag)
            .is_none_or(|v| v.source.is_empty())
    };
    for m in &r.metrics {
        for (i, row) in m.rows.iter().enumerate() {
            let name = if i == 0 { m.name.as_str() } else { "" };
            let theirs_val = row.published.map_or("—".to_string(), num);
            let theirs_diff = row
                .published_perc_diff
                .map_or("—".to_string(), |d| format!("{}%", num(d)));
            let ours = if let Some(tag) = &row.identical_to {
                format!("= {tag}")
            } else {
                dir_text(row.ours).to_string()
            };
            let dirs = match (row.is_base, row.theirs, row.agrees) {
                (true, ..) => "(base)".to_string(),
                (_, Some(t), Some(ok)) => {
                    compared += 1;
                    agree += ok as usize;
                    if from_seed_file(&row.tag) {
                        own_compared += 1;
                        own_agree += ok as usize;
                    }
                    format!("{ours} / {}{}", dir_text(t), if ok { " ✓" } else { " ✗" })
                }
                (_, Some(t), None) => format!("{ours} / {} (inert: not counted)", dir_text(t)),
                _ => ours,
            };
            let tag = match &row.compared_with {
                Some(b) => format!("{} (vs {b})", row.tag),
                None => row.tag.clone(),
            };
            let _ = writeln!(
                s,
                "| {name} | {tag} | {} ± {} | {}% | {theirs_val} | {theirs_diff} | {dirs} |",
                num(row.mean),
                num(row.ci95),
                num(row.perc_diff)
            );
        }
    }
    let _ = write!(
        s,
        "\ndirections agreeing with the thread: {agree} of {compared}"
    );
    if own_compared < compared {
        let _ = write!(
            s,
            " ({own_agree} of {own_compared} from {} itself)",
            study.thread
        );
    }
    let _ = writeln!(s);
    let below = below_resolution(r);
    if !below.is_empty() {
        let _ = writeln!(
            s,
            "\nThread effects smaller than {} seed(s) resolve here (80 % power at p < 0.05, from both runs' spread), so ours cannot show them as significant: {}",
            r.seeds,
            below.join("; ")
        );
    }
    let sourced: Vec<_> = study
        .variants
        .iter()
        .filter(|v| !v.source.is_empty())
        .collect();
    if !sourced.is_empty() {
        let _ = writeln!(s, "\nThread numbers not from {}:", study.thread);
        for v in sourced {
            let _ = writeln!(s, "- {}: {}", v.tag, v.source);
        }
    }
    if !study.notes.is_empty() {
        let _ = writeln!(s, "\n{}", study.notes.trim());
    }
    s
}

/// Counted rows whose thread perc_diff is a change smaller than the row resolves:
/// "METRIC TAG: thread X%, resolves ±Y%".
fn below_resolution(r: &StudyResult) -> Vec<String> {
    let mut out = Vec::new();
    for m in &r.metrics {
        for row in &m.rows {
            let (Some(theirs), Some(res), Some(_)) =
                (row.published_perc_diff, row.resolves_pct, row.agrees)
            else {
                continue;
            };
            if theirs.abs() >= UNCHANGED_PCT && theirs.abs() < res {
                out.push(format!(
                    "{} {}: thread {}%, resolves ±{}%",
                    m.name,
                    row.tag,
                    num(theirs),
                    num(res)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A study of `body` ([[variant]]s and [[metric]]s) on one CPU running `workload`.
    fn study_text(workload: &str, body: &str) -> String {
        format!(
            "title = \"t\"\n[scenario]\nmachine = \"smp:1\"\nduration = \"20ms\"\nworkloads = [\"{workload}\"]\n{body}"
        )
    }

    fn parse(text: &str) -> Result<Study, InputError> {
        crate::experiment::study::parse_study(text, "t", "t.toml", std::path::Path::new("."))
    }

    fn assert_refused(text: &str, want: &str) {
        let e = parse(text).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }

    #[test]
    fn directions() {
        assert_eq!(direction(-10.0, Better::Lower, true), Direction::Better);
        assert_eq!(direction(10.0, Better::Lower, true), Direction::Worse);
        assert_eq!(direction(10.0, Better::Higher, true), Direction::Better);
        assert_eq!(direction(0.5, Better::Higher, true), Direction::Unchanged);
        assert_eq!(direction(30.0, Better::Higher, false), Direction::Unchanged);
        assert_eq!(direction(30.0, Better::None, true), Direction::Up);
    }

    #[test]
    fn an_inert_variant_agrees_with_nothing() {
        use Direction::*;
        assert_eq!(agreement(Better, Some(Better), false, false), Some(true));
        assert_eq!(
            agreement(Unchanged, Some(Unchanged), false, false),
            Some(true)
        );
        assert_eq!(agreement(Unchanged, Some(Unchanged), true, false), None);
        assert_eq!(
            agreement(Unchanged, Some(Better), false, false),
            Some(false)
        );
        assert_eq!(agreement(Worse, Some(Better), false, false), Some(false));
        assert_eq!(agreement(Better, Some(Better), false, true), None);
    }

    /// Variants a, b (HZ 1000) and c (HZ 100, then `c_extra`) and one switch-count
    /// metric (then `metric_extra`).
    fn abc_study(c_extra: &str, metric_extra: &str) -> String {
        study_text(
            "spinner -n 1 --sleep 1ms --work 1ms",
            &format!(
                r#"
[[variant]]
tag = "a"
[[variant]]
tag = "b"
settings = ["hz=1000"]
[[variant]]
tag = "c"
settings = ["hz=100"]
{c_extra}
[[metric]]
name = "switches"
path = "perf.context_switches"
{metric_extra}
"#
            ),
        )
    }

    /// A row with no effect on either side; tests set the fields they are about.
    fn plain_row(tag: &str) -> VariantRow {
        VariantRow {
            tag: tag.into(),
            mean: 1.0,
            ci95: 0.1,
            perc_diff: 0.0,
            p_value: 1.0,
            ours: Direction::Unchanged,
            published: None,
            published_perc_diff: None,
            theirs: None,
            identical_to_base: false,
            identical_to: None,
            agrees: None,
            is_base: false,
            compared_with: None,
            resolves_pct: None,
        }
    }

    /// A result of one metric ("cs", the switch count) with these rows.
    fn one_metric(rows: Vec<VariantRow>) -> StudyResult {
        StudyResult {
            name: "t".into(),
            seeds: 5,
            metrics: vec![MetricResult {
                name: "cs".into(),
                path: "perf.context_switches".into(),
                rows,
            }],
        }
    }

    #[test]
    fn runs_are_written_as_documents_and_their_values_make_the_rows() {
        let (study, dir, r) = study_with_runs_folder();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let want: Vec<String> = ["a", "b", "c"]
            .iter()
            .flat_map(|t| (1..=2).map(move |s| format!("{t}-seed{s}")))
            .flat_map(|f| [format!("{f}.json"), format!("{f}.key")])
            .collect();
        assert_eq!(names, want);
        // Each row's mean is the mean of its documents' values, read back from disk.
        for row in &r.metrics[0].rows {
            assert_eq!(
                row.mean,
                (switches(dir.path(), &row.tag, 1) + switches(dir.path(), &row.tag, 2)) / 2.0,
                "{}",
                row.tag
            );
        }
        // The same study without a runs folder gives the same table.
        let again = run_study(&study, &[1, 2], 1, None, &|_, _| {}).unwrap();
        assert_eq!(
            serde_json::to_string(&again).unwrap(),
            serde_json::to_string(&r).unwrap()
        );
    }

    /// The a/b/c study over seeds 1 and 2, its runs stored (model "abc1234").
    fn study_with_runs_folder() -> (Study, tempfile::TempDir, StudyResult) {
        let study = parse(&abc_study("", "")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let runs = RunsDir::new(dir.path(), "abc1234", false);
        let r = run_study(&study, &[1, 2], 2, Some(&runs), &|_, _| {}).unwrap();
        (study, dir, r)
    }

    fn switches(dir: &std::path::Path, tag: &str, seed: u64) -> f64 {
        let path = dir.join(format!("{tag}-seed{seed}.json"));
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        doc["perf"]["context_switches"].as_f64().unwrap()
    }

    #[test]
    fn an_interrupted_study_resumes_from_its_runs_folder() {
        let (study, dir, whole) = study_with_runs_folder();
        let file = |name: &str| dir.path().join(name);
        // Interrupted before b's seed 2 ended (its document whole, its key not yet
        // written), and c's seed 1 stored by other model code.
        std::fs::remove_file(file("b-seed2.key")).unwrap();
        let key = std::fs::read_to_string(file("c-seed1.key")).unwrap();
        std::fs::write(file("c-seed1.key"), key.replace("abc1234", "def5678")).unwrap();
        let resumed = RunsDir::new(dir.path(), "abc1234", true);
        let r = run_study(&study, &[1, 2], 2, Some(&resumed), &|_, _| {}).unwrap();
        assert_eq!((resumed.reused(), resumed.stale()), (4, 2));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
        // Run again, the two carry this model's key now.
        assert!(std::fs::read_to_string(file("c-seed1.key"))
            .unwrap()
            .contains("abc1234"));
        assert!(file("b-seed2.key").exists());
        // A matching run is read, not run: a value changed on disk is what the row shows.
        let doc = std::fs::read_to_string(file("a-seed1.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        v["perf"]["context_switches"] = serde_json::json!(1_000_000_u64);
        std::fs::write(file("a-seed1.json"), v.to_string()).unwrap();
        let again = RunsDir::new(dir.path(), "abc1234", true);
        let r = run_study(&study, &[1, 2], 1, Some(&again), &|_, _| {}).unwrap();
        assert_eq!((again.reused(), again.stale()), (6, 0));
        let a = &r.metrics[0].rows[0];
        assert_eq!(a.mean, (1_000_000.0 + switches(dir.path(), "a", 2)) / 2.0);
        // Without --resume every run runs again and is stored again.
        let fresh = RunsDir::new(dir.path(), "abc1234", false);
        let r = run_study(&study, &[1, 2], 1, Some(&fresh), &|_, _| {}).unwrap();
        assert_eq!(fresh.reused(), 0);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
    }

    #[test]
    fn a_metric_can_cover_some_variants_only() {
        let text = |extra: &str| abc_study("", extra);
        let study = parse(&text("base = \"b\"\nvariants = [\"b\", \"c\"]")).unwrap();
        let r = run_study(&study, &[1], 1, None, &|_, _| {}).unwrap();
        let tags: Vec<&str> = r.metrics[0].rows.iter().map(|x| x.tag.as_str()).collect();
        assert_eq!(tags, ["b", "c"]);
        assert!(r.metrics[0].rows[0].is_base);
        assert_refused(&text("variants = [\"a\", \"x\"]"), "'x' is not a variant");
        assert_refused(
            &text("base = \"a\"\nvariants = [\"b\", \"c\"]"),
            "base 'a' is not in its variants",
        );
    }

    #[test]
    fn a_row_equal_to_the_unswitched_run_is_not_counted() {
        // "b" changes nothing, so against base "c" it only shows what "a" shows: inert.
        let text = study_text(
            "spinner -n 2 --sleep 1ms --work 1ms",
            r#"
[[variant]]
tag = "a"
[[variant]]
tag = "b"
[[variant]]
tag = "c"
settings = ['workloads=["spinner -n 3 --sleep 1ms --work 1ms"]']
[[metric]]
name = "switches"
path = "perf.context_switches"
base = "c"
published = { a = 1, b = 2, c = 1 }
"#,
        );
        let study = parse(&text).unwrap();
        let r = run_study(&study, &[1, 2], 1, None, &|_, _| {}).unwrap();
        let rows = &r.metrics[0].rows;
        assert_eq!(rows[0].identical_to, None);
        assert!(rows[0].agrees.is_some(), "a differs from c: counted");
        assert_eq!(rows[1].identical_to.as_deref(), Some("a"));
        assert_eq!(rows[1].agrees, None);
        assert!(render_study(&study, &r).contains("= a / "));
    }

    #[test]
    fn a_sum_metric_adds_every_value_its_glob_matches() {
        let text = r#"
title = "t"
[scenario]
machine = "smp:2"
duration = "20ms"
workloads = ["stress-ng --wait 1", "stress-ng --wait 2"]
[[variant]]
tag = "a"
[[variant]]
tag = "b"
settings = ["hz=1000"]
[[metric]]
name = "all"
path = "workloads.*.bogo_ops"
sum = true
[[metric]]
name = "first"
path = "workloads.0.bogo_ops"
[[metric]]
name = "second"
path = "workloads.1.bogo_ops"
"#;
        let study =
            crate::experiment::study::parse_study(text, "t", "t.toml", std::path::Path::new("."))
                .unwrap();
        let r = run_study(&study, &[1], 1, None, &|_, _| {}).unwrap();
        for v in 0..2 {
            let (all, first, second) = (
                r.metrics[0].rows[v].mean,
                r.metrics[1].rows[v].mean,
                r.metrics[2].rows[v].mean,
            );
            assert!(first > 0.0 && second > 0.0);
            assert_eq!(all, first + second);
        }
    }

    #[test]
    fn a_variant_with_its_own_base_is_compared_with_it() {
        // "c" and "d" are an assumption check: d's switch against c, not against a.
        let text = |extra: &str| {
            study_text(
                "spinner -n 2 --sleep 1ms --work 1ms",
                &format!(
                    r#"
[[variant]]
tag = "a"
[[variant]]
tag = "c"
settings = ['workloads=["spinner -n 3 --sleep 1ms --work 1ms"]']
[[variant]]
tag = "d"
settings = ['workloads=["spinner -n 3 --sleep 1ms --work 1ms"]', "hz=1000"]
{extra}
[[metric]]
name = "switches"
path = "perf.context_switches"
"#
                ),
            )
        };
        let study = parse(&text("base = \"c\"")).unwrap();
        let r = run_study(&study, &[1, 2], 1, None, &|_, _| {}).unwrap();
        let rows = &r.metrics[0].rows;
        let (c, d) = (rows[1].mean, rows[2].mean);
        assert_ne!(c, d);
        assert_eq!(rows[2].perc_diff, perc_diff(c, d));
        assert_eq!(rows[2].compared_with.as_deref(), Some("c"));
        assert_eq!(rows[1].compared_with, None);
        assert!(render_study(&study, &r).contains("| d (vs c) |"));
        assert_refused(&text("base = \"x\""), "base 'x' is not an earlier variant");
        assert_refused(&text("bsae = \"c\""), "unknown key 'bsae'");
    }

    #[test]
    fn thread_effects_below_what_the_seeds_resolve_are_named() {
        let row =
            |tag: &str, theirs: Option<f64>, resolves: Option<f64>, is_base: bool| VariantRow {
                published_perc_diff: theirs,
                theirs: theirs.map(|d| direction(d, Better::Lower, true)),
                agrees: (!is_base && theirs.is_some()).then_some(false),
                is_base,
                resolves_pct: resolves,
                ..plain_row(tag)
            };
        let r = one_metric(vec![
            row("base", Some(0.0), None, true),
            // 7 % by the thread, 10 % resolvable: named.
            row("small", Some(7.0), Some(10.0), false),
            // 30 % against 10 %: resolvable, not named.
            row("big", Some(-30.0), Some(10.0), false),
            // "Unchanged" by the thread is no effect to resolve.
            row("flat", Some(0.5), Some(10.0), false),
            // No thread number: nothing to compare.
            row("ours", None, Some(10.0), false),
        ]);
        assert_eq!(below_resolution(&r), ["cs small: thread 7%, resolves ±10%"]);
    }

    #[test]
    fn rows_from_another_posting_are_counted_apart() {
        let text = abc_study(r#"source = "the v2 posting""#, "");
        let study = parse(&text.replace(
            "title = \"t\"\n",
            "title = \"t\"\nthread = \"seeds/x.txt\"\n",
        ))
        .unwrap();
        let row = |tag: &str, agrees: Option<bool>| VariantRow {
            published_perc_diff: Some(0.0),
            theirs: Some(Direction::Unchanged),
            agrees,
            is_base: agrees.is_none(),
            ..plain_row(tag)
        };
        let mut r = one_metric(vec![
            row("a", None),
            row("b", Some(true)),
            row("c", Some(false)),
        ]);
        let text = render_study(&study, &r);
        assert!(
            text.contains("agreeing with the thread: 1 of 2 (1 of 1 from seeds/x.txt itself)\n"),
            "{text}"
        );
        // Without rows from elsewhere there is one count only.
        r.metrics[0].rows.pop();
        let text = render_study(&study, &r);
        assert!(
            text.contains("agreeing with the thread: 1 of 1\n"),
            "{text}"
        );
    }
}
