//! ftrace text (`/sys/kernel/tracing/trace`, `--trace run.txt`) to rows: each line
//! `COMM-PID [CPU] FLAGS SECS.FRAC: EVENT: KEY=VALUE …` becomes a [`TraceEvent`]; integer
//! values (`target_cpu=003`) are read as integers, the rest (`prev_state=R+`) kept as text.
//! Header and comment lines (`#`) are skipped.

use super::{FieldValue, TraceEvent};
use crate::error::InputError;

/// Parse a whole trace; `origin` (the file) names the place of a malformed line.
pub fn parse(text: &str, origin: &str) -> Result<Vec<TraceEvent>, InputError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let ev = parse_line(line).ok_or_else(|| {
            InputError::new(
                format!("{origin}:{}", i + 1),
                "not an ftrace event line (COMM-PID [CPU] … TIMESTAMP: EVENT: FIELDS)",
            )
            .with_fix(
                "give a trace written by `schedlab run --trace FILE.txt` or read from tracefs",
            )
        })?;
        out.push(ev);
    }
    Ok(out)
}

/// The `[CPU]` column: its byte range and number.
fn cpu_column(line: &str) -> Option<(usize, usize, u32)> {
    let mut from = 0;
    while let Some(open) = line[from..].find('[').map(|i| i + from) {
        if let Some(close) = line[open..].find(']').map(|i| i + open) {
            if let Ok(cpu) = line[open + 1..close].parse::<u32>() {
                return Some((open, close, cpu));
            }
        }
        from = open + 1;
    }
    None
}

/// `SECS.FRAC` in µs or ns precision to ns.
fn timestamp(s: &str) -> Option<u64> {
    let (secs, frac) = s.split_once('.')?;
    let secs: u64 = secs.trim().parse().ok()?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let scale = 10u64.pow(9 - frac.len() as u32);
    Some(secs * 1_000_000_000 + frac.parse::<u64>().ok()? * scale)
}

fn value(v: &str) -> FieldValue {
    match v.parse::<i64>() {
        Ok(i) => FieldValue::Int(i),
        Err(_) => FieldValue::Text(v.to_string()),
    }
}

fn parse_line(line: &str) -> Option<TraceEvent> {
    let (open, close, cpu) = cpu_column(line)?;
    let task = line[..open].trim();
    let (comm, pid) = task.rsplit_once('-')?;
    let pid: u32 = pid.trim().parse().ok()?;
    // After the CPU: optional latency flags, then the timestamp and the event, each
    // ending in ':'.
    let rest = &line[close + 1..];
    let (head, body) = rest.split_once(": ")?;
    let ts_text = head.split_whitespace().last()?;
    let ts = timestamp(ts_text.trim_end_matches(':'))?;
    let (event, fields_text) = match body.split_once(": ") {
        Some((e, f)) => (e.trim(), f),
        None => (body.trim().trim_end_matches(':'), ""),
    };
    let fields = fields_text
        .split_whitespace()
        .filter_map(|tok| tok.split_once('='))
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| (k.to_string(), value(v)))
        .collect();
    Some(TraceEvent {
        ts,
        cpu: Some(cpu),
        event: event.to_string(),
        common_comm: Some(comm.to_string()),
        common_pid: Some(pid),
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_line() {
        let line =
            "            bash-1085    [001] d..2.  5041.240198: sched_switch: prev_comm=bash \
             prev_pid=1085 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 \
             next_prio=120";
        let e = parse_line(line).unwrap();
        assert_eq!(e.ts, 5_041_240_198_000);
        assert_eq!(e.cpu, Some(1));
        assert_eq!(e.event, "sched_switch");
        assert_eq!(e.common_comm.as_deref(), Some("bash"));
        assert_eq!(e.field("prev_state"), Some(&FieldValue::Text("S".into())));
        assert_eq!(e.field("next_pid"), Some(&FieldValue::Int(0)));
        assert_eq!(e.fields.len(), 7);
    }

    #[test]
    fn idle_and_ns_precision() {
        let line = "          <idle>-0       [003] d..1.     0.000001000: cpu_idle: state=4294967295 cpu_id=3";
        let e = parse_line(line).unwrap();
        assert_eq!((e.ts, e.common_pid), (1000, Some(0)));
        assert_eq!(e.field("state"), Some(&FieldValue::Int(4294967295)));
    }

    #[test]
    fn bad_line_names_its_place() {
        let err = parse("# header\nnonsense\n", "t.txt").unwrap_err();
        assert!(err.to_string().contains("t.txt:2"), "{err}");
    }
}
