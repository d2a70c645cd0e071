//! A/B comparison over seeds (`schedlab ab`, docs/ab.md): the same scenario under two
//! settings, N seeds each, and per metric the means with 95% confidence intervals, the
//! relative difference and Welch's t-test, Holm-corrected across the metrics shown.

pub mod metrics;
pub mod stats;
pub mod table;

use super::parallel::run_each;
use super::Scenario;
use crate::error::InputError;
use serde::Serialize;
use stats::{holm, welch, Summary};
use std::collections::BTreeMap;

/// Family-wise significance level of the marks.
pub const ALPHA: f64 = 0.05;

/// One side of the comparison.
#[derive(Debug, Clone)]
pub struct Arm {
    /// Short name in tables (`base`, `patch`).
    pub tag: String,
    /// The settings that made it, for the header (`features=UTIL_FITS_CAPACITY`).
    pub settings: Vec<String>,
    pub scenario: Scenario,
    pub seeds: Vec<u64>,
}

impl Arm {
    /// The arm `scenario` makes under `settings` (`KEY=VALUE`, applied in order); errors
    /// name `place` (the flag or argument that gave them) and the setting.
    pub fn with_settings(
        scenario: &Scenario,
        settings: &[String],
        place: &str,
        tag: &str,
        seeds: Vec<u64>,
    ) -> Result<Arm, InputError> {
        let mut sc = scenario.clone();
        for s in settings {
            crate::experiment::scenario_toml::apply_setting(&mut sc, s, &format!("{place} {s}"))?;
        }
        Ok(Arm {
            tag: tag.into(),
            settings: settings.to_vec(),
            scenario: sc,
            seeds,
        })
    }
}

/// Every run's metrics, per arm, in seed order.
#[derive(Debug, Clone, Serialize)]
pub struct ArmRuns {
    pub tag: String,
    pub settings: Vec<String>,
    pub seeds: Vec<u64>,
    pub runs: Vec<BTreeMap<String, f64>>,
}

/// One metric's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct MetricRow {
    pub metric: String,
    pub base_mean: f64,
    pub base_ci95: f64,
    pub patch_mean: f64,
    pub patch_ci95: f64,
    /// (patch − base) / |base| × 100; 0 when both are 0.
    pub perc_diff: f64,
    pub p_value: f64,
    /// Significant after Holm's correction at ALPHA.
    pub significant: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct AbReport {
    pub base: ArmRuns,
    pub patch: ArmRuns,
    pub rows: Vec<MetricRow>,
}

/// Run both arms (all runs in one pool) and compare the metrics the patterns select.
pub fn run_ab(
    base: &Arm,
    patch: &Arm,
    patterns: &[String],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<AbReport, InputError> {
    let mut scenarios = Vec::new();
    for arm in [base, patch] {
        for &seed in &arm.seeds {
            scenarios.push(Scenario {
                seed,
                ..arm.scenario.clone()
            });
        }
    }
    // Each run is flattened on its worker as it ends: only the metric maps are kept.
    let mut runs = run_each(&scenarios, jobs, &|f| progress(f.done, f.total), &|_, r| {
        Ok(metrics::flatten_result(&r))
    })?;
    let patch_runs = runs.split_off(base.seeds.len());
    Ok(compare(
        arm_runs(base, runs),
        arm_runs(patch, patch_runs),
        patterns,
    ))
}

fn arm_runs(arm: &Arm, runs: Vec<BTreeMap<String, f64>>) -> ArmRuns {
    ArmRuns {
        tag: arm.tag.clone(),
        settings: arm.settings.clone(),
        seeds: arm.seeds.clone(),
        runs,
    }
}

/// perc_diff as the seeds' tables print it.
pub fn perc_diff(base: f64, patch: f64) -> f64 {
    if base == 0.0 {
        if patch == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(patch)
        }
    } else {
        (patch - base) / base.abs() * 100.0
    }
}

/// Compare two arms' runs on the metrics present in both that the patterns select.
pub fn compare(base: ArmRuns, patch: ArmRuns, patterns: &[String]) -> AbReport {
    let common: BTreeMap<String, f64> = base
        .runs
        .first()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| {
                    patch
                        .runs
                        .iter()
                        .chain(&base.runs)
                        .all(|r| r.contains_key(*k))
                })
                .map(|(k, v)| (k.clone(), *v))
                .collect()
        })
        .unwrap_or_default();
    let names = metrics::select(patterns, &common);
    let mut rows: Vec<MetricRow> = names
        .into_iter()
        .map(|metric| {
            let xs: Vec<f64> = base.runs.iter().map(|r| r[&metric]).collect();
            let ys: Vec<f64> = patch.runs.iter().map(|r| r[&metric]).collect();
            let (a, b) = (Summary::of(&xs), Summary::of(&ys));
            MetricRow {
                base_mean: a.mean,
                base_ci95: a.ci95(),
                patch_mean: b.mean,
                patch_ci95: b.ci95(),
                perc_diff: perc_diff(a.mean, b.mean),
                p_value: welch(&a, &b).2,
                significant: false,
                metric,
            }
        })
        .collect();
    let ps: Vec<f64> = rows.iter().map(|r| r.p_value).collect();
    for (row, sig) in rows.iter_mut().zip(holm(&ps, ALPHA)) {
        row.significant = sig;
    }
    AbReport { base, patch, rows }
}
