//! Running a sweep: every (grid point, seed) whose result is not on disk yet runs, in
//! parallel, and is stored the moment it finishes, so an interrupted sweep resumes; then
//! one table of means over the seeds (docs/sweep.md).

use super::ab::table::num;
use super::parallel::run_each;
use super::sweep::{metrics_of, points, run_file_name, summarize, SweepRow, SweepSpec};
use super::Scenario;
use crate::error::InputError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub struct SweepOutcome {
    pub axes: Vec<String>,
    pub rows: Vec<SweepRow>,
    /// Runs done now, and runs whose stored result was reused.
    pub ran: usize,
    pub reused: usize,
}

fn io_err(path: &Path, what: &str, e: std::io::Error) -> InputError {
    InputError::new(path.display().to_string(), format!("{what}: {e}"))
        .with_fix("check the folder exists and is writable")
}

/// Store a run through a temporary file, so a stored run is whole or absent.
fn write_atomic(path: &Path, text: &str) -> Result<(), InputError> {
    crate::fsutil::write_atomic(path, text).map_err(|e| io_err(path, "cannot store", e))
}

/// A stored run's metrics, if the file holds a whole result document.
fn stored(path: &Path) -> Option<BTreeMap<String, f64>> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(metrics_of(&doc))
}

pub fn run_sweep(
    spec: &SweepSpec,
    out_dir: &Path,
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<SweepOutcome, InputError> {
    let runs_dir = out_dir.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|e| io_err(&runs_dir, "cannot create", e))?;
    let pts = points(spec)?;
    let mut per_point: Vec<Vec<Option<BTreeMap<String, f64>>>> = Vec::new();
    let mut todo: Vec<(usize, usize, PathBuf, Scenario)> = Vec::new();
    for (pi, p) in pts.iter().enumerate() {
        let mut row = Vec::new();
        for (si, &seed) in spec.seeds.iter().enumerate() {
            let path = runs_dir.join(run_file_name(&p.settings, seed));
            let m = stored(&path);
            if m.is_none() {
                todo.push((
                    pi,
                    si,
                    path,
                    Scenario {
                        seed,
                        ..p.scenario.clone()
                    },
                ));
            }
            row.push(m);
        }
        per_point.push(row);
    }
    let reused = pts.len() * spec.seeds.len() - todo.len();
    let scenarios: Vec<Scenario> = todo.iter().map(|t| t.3.clone()).collect();
    let write_error = std::sync::Mutex::new(None);
    // Stored as each run ends; only its metrics are kept in memory.
    let results = run_each(
        &scenarios,
        jobs,
        &|f| {
            let doc = serde_json::to_string_pretty(f.result).expect("results serialize");
            if let Err(e) = write_atomic(&todo[f.index].2, &(doc + "\n")) {
                write_error.lock().expect("no panics").get_or_insert(e);
            }
            progress(f.done, f.total);
        },
        &|_, r| {
            Ok(metrics_of(
                &serde_json::to_value(&r).expect("results serialize"),
            ))
        },
    )?;
    if let Some(e) = write_error.into_inner().expect("no panics") {
        return Err(e);
    }
    for ((pi, si, _, _), m) in todo.iter().zip(results) {
        per_point[*pi][*si] = Some(m);
    }
    let runs: Vec<Vec<BTreeMap<String, f64>>> = per_point
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|m| m.expect("every run is done"))
                .collect()
        })
        .collect();
    Ok(SweepOutcome {
        axes: spec.axes.iter().map(|a| a.key.clone()).collect(),
        rows: summarize(&pts, &runs, &spec.metrics),
        ran: todo.len(),
        reused,
    })
}

/// The metrics present in every row, in path order.
fn common_metrics(rows: &[SweepRow]) -> Vec<String> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    first
        .metrics
        .keys()
        .filter(|k| rows.iter().all(|r| r.metrics.contains_key(*k)))
        .cloned()
        .collect()
}

/// The value an axis takes in a row (the text after `KEY=`).
fn axis_value(setting: &str) -> &str {
    setting.split_once('=').map_or(setting, |(_, v)| v)
}

/// One markdown table: a row per grid point, a column per axis and per metric (mean ± 95% CI).
pub fn render_sweep(o: &SweepOutcome) -> String {
    let metrics = common_metrics(&o.rows);
    let mut s = String::new();
    let mut head: Vec<String> = o.axes.clone();
    head.push("runs".into());
    head.extend(metrics.iter().cloned());
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(head.len()));
    for r in &o.rows {
        let mut cells: Vec<String> = r
            .settings
            .iter()
            .map(|x| match axis_value(x) {
                "" => "(none)".to_string(),
                v => v.to_string(),
            })
            .collect();
        cells.push(r.runs.to_string());
        for m in &metrics {
            let (mean, ci) = r.metrics[m];
            cells.push(format!("{} ± {}", num(mean), num(ci)));
        }
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

/// CSV of the table: axes, runs, then mean and ci95 per metric.
pub fn render_sweep_csv(o: &SweepOutcome) -> String {
    let metrics = common_metrics(&o.rows);
    let mut head: Vec<String> = o.axes.clone();
    head.push("runs".into());
    for m in &metrics {
        head.push(format!("{m}.mean"));
        head.push(format!("{m}.ci95"));
    }
    let mut s = head.join(",") + "\n";
    for r in &o.rows {
        let mut cells: Vec<String> = r
            .settings
            .iter()
            .map(|x| format!("\"{}\"", axis_value(x).replace('"', "\"\"")))
            .collect();
        cells.push(r.runs.to_string());
        for m in &metrics {
            let (mean, ci) = r.metrics[m];
            cells.push(mean.to_string());
            cells.push(ci.to_string());
        }
        s += &(cells.join(",") + "\n");
    }
    s
}
