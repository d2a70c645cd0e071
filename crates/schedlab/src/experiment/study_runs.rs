//! A study's runs folder (`study run --runs DIR`): every run's result document, written
//! as the run ends, beside a key saying what made it, so that `--resume` can take a
//! finished run's values from its document instead of running it again (a study at the
//! thread's size runs for hours; an interrupted one need not start over).

use super::study::{metric_values, StudyMetric};
use super::Scenario;
use crate::error::InputError;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where a study's runs go, and whether finished ones are reused.
pub struct RunsDir {
    pub path: PathBuf,
    /// What names the model the binary was built from (the CLI passes a hash of the
    /// library's source): part of every run's key, so a run made by other code is
    /// run again, and a commit that changes only docs keeps the runs.
    model: String,
    /// Reuse a run whose document and key are on disk and whose key matches.
    pub resume: bool,
    reused: AtomicUsize,
    stale: AtomicUsize,
}

impl RunsDir {
    pub fn new(path: &Path, model: &str, resume: bool) -> Self {
        RunsDir {
            path: path.to_path_buf(),
            model: model.to_string(),
            resume,
            reused: AtomicUsize::new(0),
            stale: AtomicUsize::new(0),
        }
    }

    /// Create the folder.
    pub fn prepare(&self) -> Result<(), InputError> {
        std::fs::create_dir_all(&self.path).map_err(|e| {
            InputError::new(
                format!("--runs {}", self.path.display()),
                format!("cannot create: {e}"),
            )
        })
    }

    /// Runs taken from the folder, and stored runs that were run again because their key
    /// did not match (other model code or another scenario) or was never written.
    pub fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    pub fn stale(&self) -> usize {
        self.stale.load(Ordering::Relaxed)
    }

    /// DIR/TAG-seedN.json (the tag made file-safe).
    fn doc_path(&self, tag: &str, seed: u64) -> PathBuf {
        let safe: String = tag
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.path.join(format!("{safe}-seed{seed}.json"))
    }

    fn key_path(&self, tag: &str, seed: u64) -> PathBuf {
        self.doc_path(tag, seed).with_extension("key")
    }

    /// What made a run: the model and the scenario as the study built it, with the
    /// text of a machine file it names (workload files are named, not read).
    fn key(&self, scenario: &Scenario) -> String {
        let machine_file = std::fs::read_to_string(&scenario.machine).unwrap_or_default();
        format!(
            "schedlab model {}\n{scenario:#?}\nmachine file:\n{machine_file}",
            self.model
        )
    }

    /// A stored run's metric values, when `--resume` is on and its key matches; else None
    /// (a stored run with another key is counted as stale, and runs again).
    pub fn stored(
        &self,
        tag: &str,
        scenario: &Scenario,
        metrics: &[StudyMetric],
    ) -> Option<Vec<Option<f64>>> {
        if !self.resume {
            return None;
        }
        let doc_path = self.doc_path(tag, scenario.seed);
        let key = std::fs::read_to_string(self.key_path(tag, scenario.seed)).ok();
        if key.as_deref() != Some(self.key(scenario).as_str()) {
            if key.is_some() || doc_path.exists() {
                self.stale.fetch_add(1, Ordering::Relaxed);
            }
            return None;
        }
        // The key is written after the document, so a matching key means a whole one.
        let text = std::fs::read_to_string(&doc_path).ok()?;
        let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
        self.reused.fetch_add(1, Ordering::Relaxed);
        Some(metric_values(metrics, &doc))
    }

    /// Store a finished run: its document, then its key (each through a temporary file,
    /// so either is whole or absent, and a key never stands beside a missing document).
    pub fn store(
        &self,
        tag: &str,
        scenario: &Scenario,
        doc: &serde_json::Value,
    ) -> Result<(), InputError> {
        let write = |path: &Path, text: &str| {
            crate::fsutil::write_atomic(path, text).map_err(|e| {
                InputError::new(
                    format!("--runs {}", path.display()),
                    format!("cannot write: {e}"),
                )
            })
        };
        let key_path = self.key_path(tag, scenario.seed);
        // An old key must not outlive the document it described.
        let _ = std::fs::remove_file(&key_path);
        let mut text = serde_json::to_string_pretty(doc).expect("results serialize");
        text.push('\n');
        write(&self.doc_path(tag, scenario.seed), &text)?;
        write(&key_path, &self.key(scenario))
    }
}
