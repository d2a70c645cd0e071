//! The page of one run: summary (scenario, perf counters, energy), perf stat's counters
//! per interval (a run with `interval`), the per-CPU timeline, util and frequency over
//! time, wake-up latency distributions, and the per-task table.
//! Without trace rows the time plots are left out (a note says how to get them) and the
//! latencies come from the result's percentiles.

use crate::html::{cell, esc, kv, note, page, section, table};
use crate::series::{cpu_counter, latency_cdfs, wakeup_latencies};
use crate::svg::{bars, lines, Bar, Series};
use crate::timeline::timeline;
use schedlab::trace::read::TraceEvent;
use serde_json::Value;

fn flat_kv(v: &Value, prefix: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flat_kv(x, &p, out);
            }
        }
        Value::Array(a) if a.iter().all(|x| !x.is_object()) => {
            let items: Vec<String> = a.iter().map(cell).collect();
            out.push((prefix.to_string(), items.join(", ")));
        }
        Value::Array(_) => {}
        other => out.push((prefix.to_string(), cell(other))),
    }
}

fn summary(doc: &Value) -> String {
    let mut s = String::new();
    for key in ["scenario", "perf", "energy", "sim"] {
        if let Some(v) = doc.get(key) {
            let mut rows = Vec::new();
            flat_kv(v, "", &mut rows);
            s.push_str(&format!("<h3>{}</h3>", esc(key)));
            s.push_str(&kv(&rows));
        }
    }
    s
}

/// Columns of the task table: the scalar keys, and the wake-up latency percentiles.
fn task_table(doc: &Value) -> String {
    let Some(tasks) = doc.get("tasks").and_then(Value::as_array) else {
        return note("no tasks");
    };
    let mut head: Vec<String> = Vec::new();
    for t in tasks {
        if let Some(m) = t.as_object() {
            for (k, v) in m {
                let names: Vec<String> = match v {
                    Value::Object(o) => o.keys().map(|s| format!("{k}.{s}")).collect(),
                    _ => vec![k.clone()],
                };
                for n in names {
                    if !head.contains(&n) {
                        head.push(n);
                    }
                }
            }
        }
    }
    let rows: Vec<Vec<String>> = tasks
        .iter()
        .map(|t| {
            head.iter()
                .map(|h| {
                    let v = match h.split_once('.') {
                        Some((a, b)) => t.get(a).and_then(|x| x.get(b)),
                        None => t.get(h),
                    };
                    v.map(cell).unwrap_or_default()
                })
                .collect()
        })
        .collect();
    table(&head, &rows)
}

/// p50/p90/p99 wake-up latency bars (µs) of the tasks with the most wake-ups, from the
/// result document.
fn percentile_bars(doc: &Value) -> String {
    let mut tasks: Vec<(String, &Value)> = doc
        .get("tasks")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| {
                    let name = format!("{}-{}", t.get("comm")?.as_str()?, t.get("pid")?);
                    Some((name, t.get("wakeup_latency_ns")?))
                })
                .filter(|(_, l)| l.get("count").and_then(Value::as_u64).unwrap_or(0) > 0)
                .collect()
        })
        .unwrap_or_default();
    tasks.sort_by_key(|(_, l)| {
        std::cmp::Reverse(l.get("count").and_then(Value::as_u64).unwrap_or(0))
    });
    let mut s = String::new();
    for (comm, l) in tasks.into_iter().take(8) {
        let bar = |k: &str| Bar {
            label: k.to_string(),
            value: l.get(k).and_then(Value::as_f64).unwrap_or(0.0) / 1e3,
            ci: 0.0,
        };
        // Past 131,072 wake-ups the simulator keeps a histogram (docs/results.md).
        let approx = l.get("approximate").and_then(Value::as_bool) == Some(true);
        let approx = if approx {
            ", p50–p99 to 3 significant digits"
        } else {
            ""
        };
        s.push_str(&bars(
            &format!("{comm} wake-up latency (µs{approx})"),
            &[bar("p50"), bar("p90"), bar("p99"), bar("max")],
            false,
        ));
    }
    s
}

/// The result's `intervals` as step charts against time, one per counter; `None` for a
/// run without them.
fn interval_charts(doc: &Value) -> Option<String> {
    let rows = doc.get("intervals")?.as_array()?;
    let series = |key: &str| Series {
        name: key.replace('_', " "),
        points: rows
            .iter()
            .filter_map(|r| Some((r["end_ns"].as_f64()? / 1e6, r[key].as_f64()?)))
            .collect(),
        step: true,
    };
    let mut s = String::new();
    for (title, keys, unit) in [
        (
            "Context switches and migrations per interval",
            &["context_switches", "cpu_migrations"][..],
            "count",
        ),
        ("CPUs utilized", &["cpus_utilized"][..], "CPUs"),
        (
            "Workload counters per interval",
            &["workload_counters"][..],
            "count",
        ),
    ] {
        let all: Vec<Series> = keys.iter().map(|k| series(k)).collect();
        s.push_str(&lines(
            title,
            &all,
            "time (ms), each value over the interval ending there",
            unit,
        )?);
    }
    Some(s)
}

/// The whole page.
pub fn render_run(doc: &Value, trace: Option<&[TraceEvent]>, title: &str) -> String {
    let mut body = section("Summary", &summary(doc));
    if let Some(charts) = interval_charts(doc) {
        body.push_str(&section("Per interval (perf stat -I)", &charts));
    }
    match trace {
        Some(rows) if !rows.is_empty() => {
            match timeline(rows) {
                Some((svg, n)) => body.push_str(&section("Per-CPU timeline", &(svg + &note(&n)))),
                None => body.push_str(&section(
                    "Per-CPU timeline",
                    &note("the trace has no sched_switch events"),
                )),
            }
            let mut plots = String::new();
            for (name, label) in [("util_avg", "util_avg"), ("freq_khz", "kHz")] {
                if let Some(svg) = lines(
                    &format!("CPU {name}"),
                    &cpu_counter(rows, name),
                    "time (ms)",
                    label,
                ) {
                    plots.push_str(&svg);
                }
            }
            if plots.is_empty() {
                plots = note(
                    "no util or frequency samples in the trace (counters need a .pftrace trace)",
                );
            }
            body.push_str(&section("Utilization and frequency", &plots));
            let cdfs = latency_cdfs(&wakeup_latencies(rows), 8);
            let lat = lines(
                "Wake-up latency CDF per task",
                &cdfs,
                "latency (µs)",
                "fraction",
            )
            .unwrap_or_else(|| note("no wake-ups in the trace"));
            body.push_str(&section(
                "Wake-up latency distributions",
                &(lat + &percentile_bars(doc)),
            ));
        }
        _ => {
            body.push_str(&section(
                "Timeline, utilization and frequency",
                &note("no trace given: run with --html (traces itself) or pass --trace FILE to `schedlab report`"),
            ));
            body.push_str(&section(
                "Wake-up latency percentiles",
                &percentile_bars(doc),
            ));
        }
    }
    body.push_str(&section("Tasks", &task_table(doc)));
    page(title, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_intervals_gets_their_charts_and_one_without_does_not() {
        let row = |end: u64, sw: u64| {
            serde_json::json!({"end_ns": end, "context_switches": sw, "cpu_migrations": 1,
                "task_clock_ns": 5, "cpus_utilized": 0.5, "workload_counters": 3})
        };
        let with = serde_json::json!({"intervals": [row(10, 4), row(20, 6)]});
        let charts = interval_charts(&with).unwrap();
        assert_eq!(charts.matches("<svg").count(), 3);
        assert!(charts.contains("context switches") && charts.contains("cpus utilized"));
        assert!(render_run(&with, None, "t").contains("Per interval (perf stat -I)"));
        let without = serde_json::json!({"perf": {}});
        assert!(interval_charts(&without).is_none());
        assert!(!render_run(&without, None, "t").contains("Per interval"));
    }
}
