//! Workloads: the task-program IR the engine executes, and the front ends that compile
//! community benchmark descriptions (rt-app JSON, …) into it.

pub mod program;
pub mod rtapp;

pub use program::{Op, Policy, SchedChange, TaskSpec, TimerMode, Workload};

use crate::error::InputError;
use std::path::Path;

/// Front ends accepted by `-w 'FRONTEND ARGS…'`, for error messages.
pub const FRONTENDS: &[&str] = &["rtapp FILE.json"];

/// Build a workload from a `-w` argument such as `rtapp examples/two-hogs.json`.
/// Relative paths are resolved against `base_dir` (the scenario file's folder, or the
/// current directory for flags).
pub fn build_workload(spec: &str, base_dir: &Path) -> Result<Workload, InputError> {
    let mut words = spec.split_whitespace();
    let origin = format!("workload '{spec}'");
    match words.next() {
        Some("rtapp") => {
            let file = words.next().ok_or_else(|| {
                InputError::new(&origin, "rtapp needs a JSON file")
                    .with_fix("write -w 'rtapp FILE.json'")
            })?;
            if let Some(extra) = words.next() {
                return Err(
                    InputError::new(&origin, format!("unexpected argument '{extra}'"))
                        .with_fix("rtapp takes exactly one JSON file"),
                );
            }
            let path = base_dir.join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                InputError::new(path.display().to_string(), format!("cannot read: {e}"))
                    .with_fix("check the path; relative paths start at the scenario's folder")
            })?;
            rtapp::parse_rtapp(&text, &path.display().to_string())
        }
        Some(other) => Err(InputError::new(
            &origin,
            format!("unknown workload front end '{other}'"),
        )
        .with_fix(format!("known: {}", FRONTENDS.join(", ")))),
        None => Err(InputError::new(&origin, "empty workload")
            .with_fix(format!("known: {}", FRONTENDS.join(", ")))),
    }
}
