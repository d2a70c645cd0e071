//! Readers for the trace tests, written from the formats' documentation rather than from
//! the writer: the kernel's `/sys/kernel/tracing/trace` line layout and protobuf's wire
//! format with Perfetto's field numbers.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// One event line of an ftrace text trace.
#[derive(Debug, Clone)]
pub struct Line {
    pub comm: String,
    pub pid: u32,
    pub cpu: u32,
    pub flags: String,
    pub ts_ns: u64,
    pub event: String,
    pub fields: BTreeMap<String, String>,
}

/// Parse `comm-pid [cpu] flags secs.frac: event: k=v …` (trace_print_context + TP_printk).
pub fn parse_line(line: &str) -> Option<Line> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let open = line.find(" [")?;
    let (who, rest) = line.split_at(open);
    let who = who.trim_start().trim_end();
    let dash = who.rfind('-')?;
    let comm = who[..dash].to_string();
    let pid = who[dash + 1..].trim().parse().ok()?;
    let close = rest.find(']')?;
    let cpu = rest[2..close].parse().ok()?;
    let mut it = rest[close + 1..].split_whitespace();
    let flags = it.next()?.to_string();
    let ts = it.next()?.strip_suffix(':')?;
    let (secs, frac) = ts.split_once('.')?;
    let scale = 10u64.pow(9 - frac.len() as u32);
    let ts_ns = secs.parse::<u64>().ok()? * 1_000_000_000 + frac.parse::<u64>().ok()? * scale;
    let event = it.next()?.strip_suffix(':')?.to_string();
    let fields = it
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Some(Line {
        comm,
        pid,
        cpu,
        flags,
        ts_ns,
        event,
        fields,
    })
}

pub fn parse_text(text: &str) -> Vec<Line> {
    text.lines().filter_map(parse_line).collect()
}

/// A sched_switch as both readers return it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switch {
    pub ts: u64,
    pub cpu: u32,
    pub prev_pid: u32,
    pub prev_state: String,
    pub next_pid: u32,
}

pub fn text_switches(lines: &[Line]) -> Vec<Switch> {
    lines
        .iter()
        .filter(|l| l.event == "sched_switch")
        .map(|l| Switch {
            ts: l.ts_ns,
            cpu: l.cpu,
            prev_pid: l.fields["prev_pid"].parse().unwrap(),
            prev_state: l.fields["prev_state"].clone(),
            next_pid: l.fields["next_pid"].parse().unwrap(),
        })
        .collect()
}

/// CPU time per pid from the switches: each task runs from its switch-in to its switch-out
/// on that CPU; a task still on a CPU at the end runs until `end`.
pub fn rebuilt_cpu_time(switches: &[Switch], end: u64) -> BTreeMap<u32, u64> {
    let mut since: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    let mut total = BTreeMap::new();
    for s in switches {
        if let Some((pid, t0)) = since.remove(&s.cpu) {
            if pid != 0 {
                *total.entry(pid).or_insert(0) += s.ts - t0;
            }
        }
        since.insert(s.cpu, (s.next_pid, s.ts));
    }
    for (_, (pid, t0)) in since {
        if pid != 0 {
            *total.entry(pid).or_insert(0) += end - t0;
        }
    }
    total
}

/// Every switch's prev is the task the CPU was running (idle, pid 0, at the start), and
/// time never goes backwards on a CPU. Returns the number of switches checked.
pub fn check_switch_chain(switches: &[Switch]) -> usize {
    let mut running: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    for s in switches {
        let (pid, t) = running.get(&s.cpu).copied().unwrap_or((0, 0));
        assert_eq!(
            s.prev_pid, pid,
            "CPU {} at {}: prev is not the running task",
            s.cpu, s.ts
        );
        assert!(
            s.ts >= t,
            "CPU {}: time went back from {t} to {}",
            s.cpu,
            s.ts
        );
        running.insert(s.cpu, (s.next_pid, s.ts));
    }
    switches.len()
}

// ---- protobuf -------------------------------------------------------------------------

/// A decoded protobuf field: varint or length-delimited bytes.
#[derive(Debug, Clone, Copy)]
pub enum Val<'a> {
    Int(u64),
    Bytes(&'a [u8]),
}

fn varint(b: &[u8], i: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let byte = b[*i];
        *i += 1;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return v;
        }
        shift += 7;
    }
}

/// The fields of one message, in order.
pub fn fields(b: &[u8]) -> Vec<(u32, Val<'_>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let key = varint(b, &mut i);
        let (field, wire) = ((key >> 3) as u32, key & 7);
        match wire {
            0 => out.push((field, Val::Int(varint(b, &mut i)))),
            2 => {
                let n = varint(b, &mut i) as usize;
                out.push((field, Val::Bytes(&b[i..i + n])));
                i += n;
            }
            1 => i += 8,
            5 => i += 4,
            w => panic!("unexpected wire type {w}"),
        }
    }
    out
}

pub fn int(fs: &[(u32, Val)], f: u32) -> Option<u64> {
    fs.iter().find_map(|(n, v)| match v {
        Val::Int(x) if *n == f => Some(*x),
        _ => None,
    })
}

pub fn msg<'a>(fs: &[(u32, Val<'a>)], f: u32) -> Option<&'a [u8]> {
    fs.iter().find_map(|(n, v)| match v {
        Val::Bytes(x) if *n == f => Some(*x),
        _ => None,
    })
}

/// Every sched_switch of a Perfetto trace (TracePacket.ftrace_events=1 → bundle cpu=1,
/// event=2 → FtraceEvent timestamp=1, sched_switch=4), per CPU in file order, then merged
/// by time. Also counts events by FtraceEvent field number.
pub fn proto_switches(trace: &[u8]) -> (Vec<Switch>, BTreeMap<u32, u64>) {
    let mut out = Vec::new();
    let mut counts = BTreeMap::new();
    for (f, p) in fields(trace) {
        assert_eq!(f, 1, "Trace has only packets");
        let Val::Bytes(p) = p else { panic!() };
        let pf = fields(p);
        let Some(bundle) = msg(&pf, 1) else { continue };
        let bf = fields(bundle);
        let cpu = int(&bf, 1).unwrap() as u32;
        for (n, ev) in bf {
            let (2, Val::Bytes(ev)) = (n, ev) else {
                continue;
            };
            let ef = fields(ev);
            let ts = int(&ef, 1).unwrap();
            for (k, _) in ef.iter().filter(|(k, _)| *k > 2) {
                *counts.entry(*k).or_insert(0) += 1;
            }
            if let Some(sw) = msg(&ef, 4) {
                let sf = fields(sw);
                let state = int(&sf, 4).unwrap_or(0);
                out.push(Switch {
                    ts,
                    cpu,
                    prev_pid: int(&sf, 2).unwrap_or(0) as u32,
                    prev_state: match state {
                        0 => "R",
                        1 => "S",
                        2 => "D",
                        0x20 => "Z",
                        0x100 => "R+",
                        _ => "?",
                    }
                    .to_string(),
                    next_pid: int(&sf, 6).unwrap_or(0) as u32,
                });
            }
        }
    }
    out.sort_by_key(|s| s.ts);
    (out, counts)
}
