//! Series from trace rows: per-CPU counter tracks (util_avg, freq_khz, …) and each task's
//! wake-up latencies (sched_wakeup/sched_wakeup_new to the switch that runs it), thinned
//! to a few thousand points per line.

use crate::svg::Series;
use schedlab::trace::read::{FieldValue, TraceEvent};
use std::collections::BTreeMap;

/// Points kept per line.
pub const MAX_POINTS: usize = 2_000;

fn int(e: &TraceEvent, k: &str) -> Option<i64> {
    match e.field(k)? {
        FieldValue::Int(i) => Some(*i),
        FieldValue::Text(_) => None,
    }
}

fn thin(mut pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if pts.len() > MAX_POINTS {
        let k = pts.len().div_ceil(MAX_POINTS);
        let last = *pts.last().expect("non-empty");
        pts = pts.into_iter().step_by(k).collect();
        pts.push(last);
    }
    pts
}

/// One line per CPU of counter `name` over time (ms); falls back to `cpu_frequency`
/// events for `freq_khz` (text traces have no counters).
pub fn cpu_counter(rows: &[TraceEvent], name: &str) -> Vec<Series> {
    let mut per: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for e in rows {
        let hit = e.event == "counter"
            && matches!(e.field("counter"), Some(FieldValue::Text(c)) if c == name)
            && e.field("pid").is_none();
        if let (true, Some(cpu), Some(v)) = (hit, e.cpu, int(e, "value")) {
            per.entry(cpu)
                .or_default()
                .push((e.ts as f64 / 1e6, v as f64));
        }
    }
    if per.is_empty() && name == "freq_khz" {
        for e in rows.iter().filter(|e| e.event == "cpu_frequency") {
            if let (Some(cpu), Some(v)) = (int(e, "cpu_id"), int(e, "state")) {
                per.entry(cpu as u32)
                    .or_default()
                    .push((e.ts as f64 / 1e6, v as f64));
            }
        }
    }
    // A counter holds its value to the end of the trace.
    let end = rows.iter().map(|e| e.ts).max().unwrap_or(0) as f64 / 1e6;
    for pts in per.values_mut() {
        if let Some(&(x, y)) = pts.last() {
            if x < end {
                pts.push((end, y));
            }
        }
    }
    per.into_iter()
        .map(|(cpu, pts)| Series {
            name: format!("CPU{cpu}"),
            points: thin(pts),
            step: true,
        })
        .collect()
}

/// Wake-up latencies (ns) per task (`comm-pid`), from the trace.
pub fn wakeup_latencies(rows: &[TraceEvent]) -> BTreeMap<String, Vec<u64>> {
    let mut woken: BTreeMap<i64, (u64, String)> = BTreeMap::new();
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for e in rows {
        match e.event.as_str() {
            "sched_wakeup" | "sched_wakeup_new" => {
                if let (Some(pid), Some(FieldValue::Text(c))) = (int(e, "pid"), e.field("comm")) {
                    woken.insert(pid, (e.ts, format!("{c}-{pid}")));
                }
            }
            "sched_switch" => {
                if let Some(pid) = int(e, "next_pid") {
                    if let Some((t, comm)) = woken.remove(&pid) {
                        out.entry(comm).or_default().push(e.ts - t);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// CDF lines (latency in µs → fraction) of the `top` task names with most wake-ups.
pub fn latency_cdfs(lat: &BTreeMap<String, Vec<u64>>, top: usize) -> Vec<Series> {
    let mut names: Vec<(&String, &Vec<u64>)> = lat.iter().collect();
    names.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    names
        .into_iter()
        .take(top)
        .map(|(name, v)| {
            let mut v = v.clone();
            v.sort_unstable();
            let n = v.len() as f64;
            let pts = v
                .iter()
                .enumerate()
                .map(|(i, &x)| (x as f64 / 1e3, (i + 1) as f64 / n))
                .collect();
            Series {
                name: format!("{name} ({})", v.len()),
                points: thin(pts),
                step: true,
            }
        })
        .collect()
}
