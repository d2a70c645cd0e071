//! Who ran where: `sched_switch` rows to one lane of segments per CPU (the idle task left
//! blank), each task in its own color. Long traces are cut to their first segments so the
//! page stays light; the note says where.

use crate::svg::{lanes, Segment};
use schedlab::trace::read::{FieldValue, TraceEvent};
use std::collections::BTreeMap;

/// Segments drawn at most (over all CPUs).
pub const MAX_SEGMENTS: usize = 20_000;

fn int(e: &TraceEvent, k: &str) -> Option<i64> {
    match e.field(k)? {
        FieldValue::Int(i) => Some(*i),
        FieldValue::Text(_) => None,
    }
}

fn text(e: &TraceEvent, k: &str) -> String {
    match e.field(k) {
        Some(FieldValue::Text(s)) => s.clone(),
        Some(FieldValue::Int(i)) => i.to_string(),
        None => String::new(),
    }
}

/// The timeline SVG and a note (the span shown), or None without `sched_switch` rows.
pub fn timeline(rows: &[TraceEvent]) -> Option<(String, String)> {
    let switches: Vec<&TraceEvent> = rows.iter().filter(|e| e.event == "sched_switch").collect();
    let first = switches.first()?.ts;
    let last_ts = rows.iter().map(|e| e.ts).max().unwrap_or(first);
    let mut running: BTreeMap<u32, (u64, i64, String)> = BTreeMap::new();
    let mut lanes_: BTreeMap<u32, Vec<Segment>> = BTreeMap::new();
    let mut colors: BTreeMap<i64, usize> = BTreeMap::new();
    let mut count = 0;
    let mut end = last_ts;
    let mut push = |cpu: u32, from: u64, to: u64, pid: i64, comm: &str| {
        let n = colors.len();
        let c = *colors.entry(pid).or_insert(n);
        lanes_.entry(cpu).or_default().push(Segment {
            x0: from as f64 / 1e6,
            x1: to as f64 / 1e6,
            color: c,
            tip: format!(
                "CPU{cpu} {comm}-{pid} {:.3}–{:.3} ms",
                from as f64 / 1e6,
                to as f64 / 1e6
            ),
        });
    };
    for e in &switches {
        let Some(cpu) = e.cpu else { continue };
        if count >= MAX_SEGMENTS {
            end = e.ts;
            break;
        }
        if let Some((from, pid, comm)) = running.remove(&cpu) {
            if pid != 0 {
                push(cpu, from, e.ts, pid, &comm);
                count += 1;
            }
        }
        let pid = int(e, "next_pid").unwrap_or(0);
        running.insert(cpu, (e.ts, pid, text(e, "next_comm")));
    }
    for (cpu, (from, pid, comm)) in running {
        if pid != 0 && from < end {
            push(cpu, from, end, pid, &comm);
        }
    }
    let nr = lanes_.keys().max().map_or(0, |m| m + 1);
    let rows: Vec<(String, Vec<Segment>)> = (0..nr)
        .map(|c| (format!("CPU{c}"), lanes_.remove(&c).unwrap_or_default()))
        .collect();
    let svg = lanes(
        "Per-CPU timeline (who ran where)",
        &rows,
        first as f64 / 1e6,
        end as f64 / 1e6,
        "time (ms)",
    );
    let note = if end < last_ts {
        format!(
            "First {MAX_SEGMENTS} run segments shown ({:.3}–{:.3} ms of {:.3} ms); hover a segment for the task.",
            first as f64 / 1e6,
            end as f64 / 1e6,
            last_ts as f64 / 1e6
        )
    } else {
        "Hover a segment for the task and its span.".to_string()
    };
    Some((svg, note))
}
