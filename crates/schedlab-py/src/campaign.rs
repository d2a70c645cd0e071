//! Many runs: `ab`, `sweep` and `study`, with the CLI's statistics (the library's). A sweep
//! is split so any executor can run it: `sweep_points` (the grid, checked), `run_metrics`
//! (one grid point and seed: what a Ray task runs), `sweep_summary` (means and intervals
//! over the seeds); `run_metrics_many` is the local executor's thread pool.

use crate::{spec, to_py};
use pyo3::prelude::*;
use schedlab::experiment::ab::metrics::{default_patterns, flatten_result};
use schedlab::experiment::ab::{run_ab, Arm};
use schedlab::experiment::parallel::run_each;
use schedlab::experiment::scenario_toml::apply_setting;
use schedlab::experiment::study::{list_studies, load_study_sized, seeds_from_count};
use schedlab::experiment::study_run::run_study;
use schedlab::experiment::sweep::{points, summarize, Axis, SweepSpec};
use schedlab::experiment::{run_scenario, Scenario};
use schedlab::InputError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn encode<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot encode: {e}")))
}

fn jobs(j: Option<usize>) -> usize {
    j.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn no_progress(_: usize, _: usize) {}

/// `schedlab ab`: the comparison document (`ab --json`) as JSON text.
#[pyfunction]
#[pyo3(signature = (spec, base, patch, seeds=10, first_seed=1, independent_seeds=false, metrics=Vec::new(), jobs=None, base_tag="base".to_string(), patch_tag="patch".to_string()))]
#[allow(clippy::too_many_arguments)]
pub fn ab_json(
    py: Python<'_>,
    spec: &str,
    base: Vec<String>,
    patch: Vec<String>,
    seeds: u64,
    first_seed: u64,
    independent_seeds: bool,
    metrics: Vec<String>,
    jobs: Option<usize>,
    base_tag: String,
    patch_tag: String,
) -> PyResult<String> {
    let run = || -> Result<_, InputError> {
        if !(2..=10_000).contains(&seeds) {
            return Err(InputError::new("seeds=", "needs 2..=10000 seeds per side")
                .with_fix("e.g. seeds=10"));
        }
        let sc = spec::scenario(spec)?;
        let base_seeds: Vec<u64> = (0..seeds).map(|i| first_seed + i).collect();
        let patch_seeds: Vec<u64> = if independent_seeds {
            (0..seeds).map(|i| first_seed + seeds + i).collect()
        } else {
            base_seeds.clone()
        };
        let b = Arm::with_settings(&sc, &base, "base=", &base_tag, base_seeds)?;
        let p = Arm::with_settings(&sc, &patch, "patch=", &patch_tag, patch_seeds)?;
        for side in [&b, &p] {
            schedlab::experiment::run::check_settings(&side.scenario)?;
        }
        let patterns = if metrics.is_empty() {
            default_patterns()
        } else {
            metrics.clone()
        };
        let report = run_ab(&b, &p, &patterns, self::jobs(jobs), &no_progress)?;
        if report.rows.is_empty() {
            return Err(
                InputError::new("metrics=", "no metric of the results matches")
                    .with_fix("see the result document (Result.raw) for metric paths"),
            );
        }
        Ok(report)
    };
    let report = py.detach(run).map_err(to_py)?;
    encode(&report)
}

/// The sweep of `spec` over `axes` (key, values as `KEY=VALUE` texts) and `seeds`.
fn sweep_spec(
    spec: &str,
    axes: &[(String, Vec<String>)],
    seeds: &[u64],
    metrics: &[String],
) -> Result<SweepSpec, InputError> {
    if seeds.is_empty() {
        return Err(
            InputError::new("seeds=", "no seeds").with_fix("e.g. seeds=3 or seeds=[1, 2, 3]")
        );
    }
    Ok(SweepSpec {
        origin: "schedlab.sweep".into(),
        base: spec::scenario(spec)?,
        axes: axes
            .iter()
            .map(|(key, values)| Axis {
                key: key.clone(),
                settings: values.iter().map(|v| format!("{key}={v}")).collect(),
            })
            .collect(),
        seeds: seeds.to_vec(),
        metrics: if metrics.is_empty() {
            default_patterns()
        } else {
            metrics.to_vec()
        },
    })
}

/// The grid points' settings, in the order `schedlab sweep` runs them; every point is
/// checked (machine, features, workloads) before anything runs.
#[pyfunction]
pub fn sweep_points(
    spec: &str,
    axes: Vec<(String, Vec<String>)>,
    seeds: Vec<u64>,
) -> PyResult<Vec<Vec<String>>> {
    let run = || -> Result<_, InputError> {
        let s = sweep_spec(spec, &axes, &seeds, &[])?;
        let pts = points(&s)?;
        for p in &pts {
            schedlab::experiment::run::check_settings(&p.scenario)?;
        }
        Ok(pts.into_iter().map(|p| p.settings).collect())
    };
    run().map_err(to_py)
}

fn point_scenario(spec: &str, settings: &[String], seed: u64) -> Result<Scenario, InputError> {
    let mut sc = spec::scenario(spec)?;
    for s in settings {
        apply_setting(&mut sc, s, &format!("sweep {s}"))?;
    }
    sc.seed = seed;
    Ok(sc)
}

fn metrics_json(r: &schedlab::RunResult) -> String {
    serde_json::to_string(&flatten_result(r)).expect("numbers serialize")
}

/// One grid point at one seed: its flattened metrics (JSON). What each Ray task runs.
#[pyfunction]
pub fn run_metrics(
    py: Python<'_>,
    spec: &str,
    settings: Vec<String>,
    seed: u64,
) -> PyResult<String> {
    let run = || -> Result<_, InputError> {
        let sc = point_scenario(spec, &settings, seed)?;
        Ok(metrics_json(&run_scenario(&sc)?))
    };
    py.detach(run).map_err(to_py)
}

/// Many (settings, seed) runs on a local thread pool, results in input order.
#[pyfunction]
#[pyo3(signature = (spec, runs, jobs=None))]
pub fn run_metrics_many(
    py: Python<'_>,
    spec: &str,
    runs: Vec<(Vec<String>, u64)>,
    jobs: Option<usize>,
) -> PyResult<Vec<String>> {
    let run = || -> Result<_, InputError> {
        let scenarios = runs
            .iter()
            .map(|(settings, seed)| point_scenario(spec, settings, *seed))
            .collect::<Result<Vec<_>, _>>()?;
        // Each run's metrics are made on its worker; its document is not kept.
        run_each(&scenarios, self::jobs(jobs), &|_| {}, &|_, r| {
            Ok(metrics_json(&r))
        })
    };
    py.detach(run).map_err(to_py)
}

/// The sweep table (`schedlab sweep`'s rows: settings, runs, metric → (mean, ci95)) as JSON,
/// from every point's runs (metrics JSON per seed, points in `sweep_points` order).
#[pyfunction]
pub fn sweep_summary(
    spec: &str,
    axes: Vec<(String, Vec<String>)>,
    seeds: Vec<u64>,
    metrics: Vec<String>,
    runs: Vec<Vec<String>>,
) -> PyResult<String> {
    let run = || -> Result<_, InputError> {
        let s = sweep_spec(spec, &axes, &seeds, &metrics)?;
        let pts = points(&s)?;
        let parsed: Vec<Vec<BTreeMap<String, f64>>> = runs
            .iter()
            .map(|row| {
                row.iter()
                    .map(|m| {
                        serde_json::from_str(m)
                            .map_err(|e| InputError::new("sweep runs", e.to_string()))
                    })
                    .collect()
            })
            .collect::<Result<_, _>>()?;
        if parsed.len() != pts.len() || parsed.iter().any(|r| r.len() != seeds.len()) {
            return Err(InputError::new(
                "sweep runs",
                "one list of runs per point, one run per seed expected",
            ));
        }
        Ok(summarize(&pts, &parsed, &s.metrics))
    };
    encode(&run().map_err(to_py)?)
}

fn studies_dir(dir: Option<String>) -> PathBuf {
    if let Some(d) = dir {
        return PathBuf::from(d);
    }
    let here = PathBuf::from("studies");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../studies")
}

/// `schedlab study list`: (name, title) pairs.
#[pyfunction]
#[pyo3(signature = (dir=None))]
pub fn study_list(dir: Option<String>) -> PyResult<Vec<(String, String)>> {
    list_studies(&studies_dir(dir)).map_err(to_py)
}

/// `schedlab study run NAME --json -` (`--size SIZE`, `--full` for "full"): the study
/// result as JSON.
#[pyfunction]
#[pyo3(signature = (name, seeds=None, jobs=None, dir=None, size=None))]
pub fn study_json(
    py: Python<'_>,
    name: &str,
    seeds: Option<u64>,
    jobs: Option<usize>,
    dir: Option<String>,
    size: Option<String>,
) -> PyResult<String> {
    let run = || -> Result<_, InputError> {
        let study = load_study_sized(&studies_dir(dir), name, size.as_deref())?;
        let seeds: Vec<u64> = match seeds {
            Some(n) => seeds_from_count(n, "seeds=", "e.g. seeds=3")?,
            None => study.seeds.clone(),
        };
        run_study(&study, &seeds, self::jobs(jobs), None, &no_progress)
    };
    let r = py.detach(run).map_err(to_py)?;
    encode(&r)
}
