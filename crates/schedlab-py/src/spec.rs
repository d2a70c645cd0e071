//! The inputs of a run as Python gives them (a JSON object: `scenario` file, `machine`,
//! `workloads`, `features`, `kernel`, `seed`, `duration`, `settings`) to a `Scenario`, each
//! through the setter the CLI's flags use, so a bad value gets the CLI's message.

use schedlab::experiment::scenario_toml::{apply_flag, apply_setting, FlagValue};
use schedlab::experiment::{load_scenario, Scenario};
use schedlab::InputError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    scenario: Option<String>,
    machine: Option<String>,
    workloads: Option<Vec<String>>,
    features: Option<String>,
    kernel: Option<String>,
    seed: Option<i64>,
    duration: Option<String>,
    #[serde(default)]
    settings: BTreeMap<String, serde_json::Value>,
}

pub fn parse(json: &str) -> Result<Spec, InputError> {
    serde_json::from_str(json).map_err(|e| {
        InputError::new("schedlab.run arguments", e.to_string()).with_fix(
            "pass scenario=, machine=, workloads=, features=, kernel=, seed=, duration=, settings=",
        )
    })
}

/// A settings value as the text of a `KEY=VALUE` setting (TOML).
fn toml_text(key: &str, v: &serde_json::Value) -> Result<String, InputError> {
    let t = toml::Value::try_from(v).map_err(|e| {
        InputError::new(
            format!("settings['{key}']"),
            format!("cannot be a scenario value: {e}"),
        )
        .with_fix("use a string, number, boolean, list or dict, as in a scenario file")
    })?;
    Ok(t.to_string())
}

/// The scenario the spec describes (the file, then each argument over its key), and the
/// CLI's completion from a calibrated machine file's `[kernel]` table.
pub fn build(spec: &Spec) -> Result<Scenario, InputError> {
    let mut sc = match &spec.scenario {
        Some(p) => load_scenario(Path::new(p))?,
        None => Scenario::default(),
    };
    let texts = [
        ("machine", &spec.machine),
        ("features", &spec.features),
        ("kernel", &spec.kernel),
        ("duration", &spec.duration),
    ];
    for (key, v) in texts {
        if let Some(v) = v {
            apply_flag(&mut sc, key, FlagValue::Text(v), &format!("{key}="))?;
        }
    }
    if let Some(seed) = spec.seed {
        apply_flag(&mut sc, "seed", FlagValue::Int(seed), "seed=")?;
    }
    if let Some(w) = &spec.workloads {
        apply_flag(&mut sc, "workloads", FlagValue::List(w), "workloads=")?;
    }
    for (key, v) in &spec.settings {
        let text = format!("{key}={}", toml_text(key, v)?);
        apply_setting(&mut sc, &text, &format!("settings['{key}']"))?;
    }
    // The run's trace is `Result.trace()`'s business; a scenario file's [trace] is ignored.
    sc.trace = None;
    let given = schedlab_host::machine_kernel::Given {
        hz: spec.settings.contains_key("hz"),
        preempt: spec.settings.contains_key("preempt"),
        autogroup: spec.settings.contains_key("autogroup"),
    };
    let file = spec.scenario.as_deref().map(Path::new);
    schedlab_host::machine_kernel::apply(&mut sc, file, given)?;
    Ok(sc)
}

/// Parse and build in one step.
pub fn scenario(json: &str) -> Result<Scenario, InputError> {
    build(&parse(json)?)
}
