//! Metrics of a run for comparison: the numeric leaves of its result document, named by
//! their path (`perf.cpu_migrations`, `workloads.0.time_s`), chosen by glob patterns.

use crate::experiment::glob::glob_match;
use serde_json::Value;
use std::collections::BTreeMap;

/// The metrics `ab` and `sweep` compare when none are named: perf's counters, energy,
/// and every workload's own figures (summaries only: see `is_raw_series`).
pub const DEFAULT_METRICS: &[&str] = &["perf.*", "energy.*", "workloads.*"];

/// A raw sample or histogram cell (the path ends in an array index, e.g.
/// `workloads.0.frame_duration_ms.17`): left out of the defaults, which would otherwise
/// compare hundreds of individual frames; name it with `--metric` to get it.
pub fn is_raw_series(path: &str) -> bool {
    path.rsplit('.')
        .next()
        .is_some_and(|last| last.chars().all(|c| c.is_ascii_digit()))
}

/// The default metric patterns, as owned strings.
pub fn default_patterns() -> Vec<String> {
    DEFAULT_METRICS.iter().map(|s| s.to_string()).collect()
}

/// Paths that never make sense to compare: host timing and per-task / per-CPU detail
/// (name them explicitly to get them).
fn excluded_by_default(path: &str) -> bool {
    path == "sim.wall_s"
}

/// `flatten` of a run's result document, made from the result itself (what a campaign
/// keeps of each run).
pub fn flatten_result(r: &crate::experiment::RunResult) -> BTreeMap<String, f64> {
    flatten(&serde_json::to_value(r).expect("results serialize"))
}

/// Every numeric leaf of `doc`, keyed by dotted path (array elements by index).
pub fn flatten(doc: &Value) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    flatten_into(doc, String::new(), &mut out);
    out
}

/// `flatten`'s entries for the subtree `v` at `path` (a top-level key, say), added to `out`.
pub fn flatten_into(v: &Value, path: String, out: &mut BTreeMap<String, f64>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                out.insert(path, x);
            }
        }
        Value::Bool(b) => {
            out.insert(path, *b as u8 as f64);
        }
        Value::Object(m) => {
            for (k, v) in m {
                flatten_into(v, join(k), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                // Entries that name a function (sched_profile) are keyed by it, so the
                // path does not depend on their order.
                let key = match v.get("function") {
                    Some(Value::String(f)) => f.clone(),
                    _ => i.to_string(),
                };
                flatten_into(v, join(&key), out);
            }
        }
        _ => {}
    }
}

/// The metric names of `available` that any pattern selects, in path order. With the
/// default patterns, raw series are left out.
pub fn select(patterns: &[String], available: &BTreeMap<String, f64>) -> Vec<String> {
    let defaults = patterns == default_patterns().as_slice();
    available
        .keys()
        .filter(|k| !excluded_by_default(k) && patterns.iter().any(|p| glob_match(p, k)))
        .filter(|k| !(defaults && is_raw_series(k)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flatten_and_select() {
        let doc: Value = serde_json::json!({
            "perf": {"context_switches": 10, "cpus_utilized": 1.5},
            "sim": {"wall_s": 0.2, "stop_reason": "time_limit"},
            "workloads": [{"time_s": 2.5}],
            "sched_profile": [{"function": "enqueue_task_fair", "ns": 5}],
            "root_domain": {"eas": true}
        });
        let m = flatten(&doc);
        assert_eq!(m["perf.context_switches"], 10.0);
        assert_eq!(m["workloads.0.time_s"], 2.5);
        assert_eq!(m["root_domain.eas"], 1.0);
        assert_eq!(m["sched_profile.enqueue_task_fair.ns"], 5.0);
        assert!(!m.contains_key("sim.stop_reason"));
        let pats = default_patterns();
        assert_eq!(
            select(&pats, &m),
            vec![
                "perf.context_switches",
                "perf.cpus_utilized",
                "workloads.0.time_s"
            ]
        );
        // Raw series only when asked for.
        let mut m2 = m.clone();
        m2.insert("workloads.0.frame_duration_ms.3".into(), 16.0);
        assert_eq!(select(&pats, &m2).len(), 3);
        assert_eq!(select(&["workloads.*".into()], &m2).len(), 2);
        assert!(
            select(&["sim.*".into()], &m).is_empty(),
            "wall time never compared"
        );
        assert!(
            glob_match("a.*.c", "a.b.c") && !glob_match("a.*.c", "a.b.d") && glob_match("*", "x")
        );
    }
}
