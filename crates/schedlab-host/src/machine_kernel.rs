//! A calibrated machine file's `[kernel]` table (hz, preempt, autogroup, base_slice_ns,
//! version) gives a scenario its kernel settings: `run -m host.toml` simulates the
//! kernel that was measured. A flag or a key of the scenario file still wins.

use schedlab::experiment::{PreemptModel, Scenario};
use schedlab::InputError;
use std::path::Path;

/// Which settings the user gave explicitly (flags).
#[derive(Debug, Clone, Copy, Default)]
pub struct Given {
    pub hz: bool,
    pub preempt: bool,
    pub autogroup: bool,
}

/// The `[kernel]` table of machine `name` if it is a machine file that has one.
pub fn kernel_table(name: &str) -> Result<Option<toml::Table>, InputError> {
    if !name.ends_with(".toml") {
        return Ok(None);
    }
    let Ok(text) = std::fs::read_to_string(name) else {
        // The machine loader reports unreadable files with its own message.
        return Ok(None);
    };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| {
        InputError::new(name, format!("not TOML: {}", e.message())).with_fix("see docs/machines.md")
    })?;
    Ok(doc.get("kernel").and_then(|k| k.as_table()).cloned())
}

/// Keys set in the scenario file, which win over the machine's kernel table.
fn scenario_keys(file: Option<&Path>) -> Vec<String> {
    file.and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

/// Fill the scenario's kernel settings from its machine file's `[kernel]` table.
/// Returns notes for settings the simulator cannot take (e.g. a base slice other than
/// its own scaling).
pub fn apply(
    sc: &mut Scenario,
    scenario_file: Option<&Path>,
    given: Given,
) -> Result<Vec<String>, InputError> {
    let Some(k) = kernel_table(&sc.machine)? else {
        return Ok(Vec::new());
    };
    let keys = scenario_keys(scenario_file);
    let from_file = |key: &str| keys.iter().any(|k| k == key);
    let origin = |key: &str| format!("{}: kernel.{key}", sc.machine);
    let mut notes = Vec::new();
    if let Some(v) = k.get("hz") {
        let hz = v.as_integer().filter(|&h| h > 0).ok_or_else(|| {
            InputError::new(origin("hz"), "not a positive integer").with_fix("write e.g. hz = 250")
        })?;
        if !given.hz && !from_file("hz") {
            sc.hz = hz as u32;
        }
    }
    if let Some(v) = k.get("preempt") {
        let p = v
            .as_str()
            .and_then(PreemptModel::from_name)
            .ok_or_else(|| {
                InputError::new(origin("preempt"), "unknown preemption model")
                    .with_fix("use none, voluntary, full or lazy")
            })?;
        if !given.preempt && !from_file("preempt") {
            sc.preempt = p;
        }
    }
    if let Some(v) = k.get("autogroup") {
        let a = v
            .as_bool()
            .ok_or_else(|| InputError::new(origin("autogroup"), "not true or false"))?;
        if !given.autogroup && !from_file("autogroup") && a {
            sc.autogroup = true;
        }
    }
    if let Some(s) = k.get("base_slice_ns").and_then(|v| v.as_integer()) {
        let n = schedlab::machine::presets::machine_from_name(&sc.machine)?.nr_cpus();
        let sim = 700_000u64 * (1 + (n.clamp(1, 8) as u64).ilog2() as u64);
        if s as u64 != sim {
            notes.push(format!(
                "{}: the host's base slice is {s} ns but the simulator derives {sim} ns from {n} CPUs (no knob for it yet)",
                sc.machine
            ));
        }
    }
    Ok(notes)
}
