//! Perfetto protobuf to rows: the `ftrace_events` bundles (sched_switch, sched_waking,
//! sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_exit, cpu_frequency,
//! cpu_idle), task names from `process_tree`, and counter samples (`track_event` of type
//! COUNTER) named by their `track_descriptor`s. Field numbers are those `perfetto.rs`
//! writes (Perfetto's own); other packets and events are skipped. Events come out in
//! timestamp order (stable: equal times keep file order).

use super::proto_decode::{fields, Field};
use super::{FieldValue, TraceEvent};
use crate::error::InputError;
use crate::trace::event::prev_state;
use std::collections::BTreeMap;

/// A counter track: its name, and the thread it belongs to (by pid), if any.
#[derive(Default)]
struct TrackInfo {
    name: String,
    parent: Option<u64>,
    pid: Option<u32>,
}

#[derive(Default)]
struct State {
    comms: BTreeMap<u32, String>,
    tracks: BTreeMap<u64, TrackInfo>,
    events: Vec<TraceEvent>,
    /// Counter samples: (ts, track uuid, value), named once every descriptor is known.
    samples: Vec<(u64, u64, i64)>,
}

fn malformed(origin: &str) -> InputError {
    InputError::new(origin, "not a Perfetto trace (malformed protobuf)")
        .with_fix("give a trace written by `schedlab run --trace FILE.pftrace`, complete")
}

/// Decode a whole trace file's bytes.
pub fn decode(bytes: &[u8], origin: &str) -> Result<Vec<TraceEvent>, InputError> {
    let mut st = State::default();
    let mut packets = fields(bytes);
    for (num, f) in packets.by_ref() {
        if num == 1 {
            let b = f.bytes().ok_or_else(|| malformed(origin))?;
            packet(&mut st, b).ok_or_else(|| malformed(origin))?;
        }
    }
    if packets.error {
        return Err(malformed(origin));
    }
    let State {
        comms,
        tracks,
        mut events,
        samples,
    } = st;
    let idle = "<idle>".to_string();
    for e in &mut events {
        if let Some(pid) = e.common_pid {
            let comm = if pid == 0 {
                &idle
            } else {
                comms.get(&pid).unwrap_or(&idle)
            };
            e.common_comm = Some(comm.clone());
        }
    }
    for (ts, uuid, value) in samples {
        events.push(counter_event(&tracks, &comms, ts, uuid, value));
    }
    events.sort_by_key(|e| e.ts);
    Ok(events)
}

fn counter_event(
    tracks: &BTreeMap<u64, TrackInfo>,
    comms: &BTreeMap<u32, String>,
    ts: u64,
    uuid: u64,
    value: i64,
) -> TraceEvent {
    let t = tracks.get(&uuid);
    let name = t.map_or_else(|| format!("track {uuid:#x}"), |t| t.name.clone());
    let pid = t
        .and_then(|t| t.parent)
        .and_then(|p| tracks.get(&p))
        .and_then(|p| p.pid);
    let mut fields = Vec::new();
    let mut cpu = None;
    let mut counter = name.clone();
    if let Some(pid) = pid {
        let comm = comms.get(&pid).cloned().unwrap_or_default();
        counter = name
            .strip_prefix(&format!("{comm} "))
            .unwrap_or(&name)
            .to_string();
        fields.push(("comm".to_string(), FieldValue::Text(comm)));
        fields.push(("pid".to_string(), FieldValue::Int(pid as i64)));
    } else if let Some((head, rest)) = name.split_once(' ') {
        if let Some(c) = head.strip_prefix("cpu").and_then(|c| c.parse::<u32>().ok()) {
            cpu = Some(c);
            counter = rest.to_string();
        }
    }
    fields.insert(0, ("counter".to_string(), FieldValue::Text(counter)));
    fields.push(("value".to_string(), FieldValue::Int(value)));
    TraceEvent {
        ts,
        cpu,
        event: "counter".into(),
        common_comm: None,
        common_pid: None,
        fields,
    }
}

fn packet(st: &mut State, b: &[u8]) -> Option<()> {
    let mut ts = 0u64;
    let mut track_event = None;
    for (num, f) in fields(b) {
        match num {
            8 => ts = f.uint()?,
            1 => bundle(st, f.bytes()?)?,
            2 => process_tree(st, f.bytes()?)?,
            11 => track_event = Some(f.bytes()?),
            60 => track_descriptor(st, f.bytes()?)?,
            _ => {}
        }
    }
    if let Some(te) = track_event {
        let (mut is_counter, mut uuid, mut value) = (false, None, None);
        for (num, f) in fields(te) {
            match num {
                9 => is_counter = f.uint()? == 4,
                11 => uuid = f.uint(),
                30 => value = f.int(),
                // double_counter_value: kept as its integer part.
                44 => value = f.uint().map(|bits| f64::from_bits(bits) as i64),
                _ => {}
            }
        }
        if let (true, Some(uuid), Some(value)) = (is_counter, uuid, value) {
            st.samples.push((ts, uuid, value));
        }
    }
    Some(())
}

fn process_tree(st: &mut State, b: &[u8]) -> Option<()> {
    for (num, f) in fields(b) {
        let (mut pid, mut name) = (None, None);
        for (k, v) in fields(f.bytes()?) {
            match (num, k) {
                (1, 1) | (2, 1) => pid = v.uint(),
                // A process's first cmdline entry, a thread's name.
                (1, 3) if name.is_none() => name = v.text(),
                (2, 2) => name = v.text(),
                _ => {}
            }
        }
        if let (Some(pid), Some(name)) = (pid, name) {
            st.comms.insert(pid as u32, name);
        }
    }
    Some(())
}

fn track_descriptor(st: &mut State, b: &[u8]) -> Option<()> {
    let mut uuid = None;
    let mut info = TrackInfo::default();
    for (num, f) in fields(b) {
        match num {
            1 => uuid = f.uint(),
            2 => info.name = f.text()?,
            5 => info.parent = f.uint(),
            4 => {
                for (k, v) in fields(f.bytes()?) {
                    if k == 2 {
                        info.pid = v.uint().map(|p| p as u32);
                    }
                }
            }
            _ => {}
        }
    }
    st.tracks.insert(uuid?, info);
    Some(())
}

fn bundle(st: &mut State, b: &[u8]) -> Option<()> {
    let mut cpu = None;
    for (num, f) in fields(b) {
        match num {
            1 => cpu = f.uint().map(|c| c as u32),
            2 => {
                if let Some(e) = ftrace_event(f.bytes()?, cpu)? {
                    st.events.push(e);
                }
            }
            _ => {}
        }
    }
    Some(())
}

/// Field names of each event, by field number, as ftrace prints them.
fn layout(event: u32) -> Option<(&'static str, &'static [(u32, &'static str)])> {
    const WAKE: &[(u32, &str)] = &[(1, "comm"), (2, "pid"), (3, "prio"), (5, "target_cpu")];
    Some(match event {
        4 => (
            "sched_switch",
            &[
                (1, "prev_comm"),
                (2, "prev_pid"),
                (3, "prev_prio"),
                (4, "prev_state"),
                (5, "next_comm"),
                (6, "next_pid"),
                (7, "next_prio"),
            ],
        ),
        11 => ("cpu_frequency", &[(1, "state"), (2, "cpu_id")]),
        13 => ("cpu_idle", &[(1, "state"), (2, "cpu_id")]),
        17 => ("sched_wakeup", WAKE),
        20 => ("sched_waking", WAKE),
        114 => ("sched_wakeup_new", WAKE),
        238 => (
            "sched_process_exit",
            &[(1, "comm"), (2, "pid"), (4, "prio")],
        ),
        491 => (
            "sched_migrate_task",
            &[
                (1, "comm"),
                (2, "pid"),
                (3, "prio"),
                (4, "orig_cpu"),
                (5, "dest_cpu"),
            ],
        ),
        _ => return None,
    })
}

fn value(name: &str, f: Field) -> Option<FieldValue> {
    Some(match f {
        Field::Bytes(_) => FieldValue::Text(f.text()?),
        // prev_state as the text trace prints it (R, S, D, Z, R+).
        _ if name == "prev_state" => {
            FieldValue::Text(prev_state::letters(f.uint()? as u16).to_string())
        }
        // int32 fields (prio) are sign-extended varints.
        _ if name.ends_with("prio") => FieldValue::Int(f.int()? as i32 as i64),
        _ => FieldValue::Int(f.int()?),
    })
}

/// One FtraceEvent; `None` inside for events this reader does not know.
fn ftrace_event(b: &[u8], cpu: Option<u32>) -> Option<Option<TraceEvent>> {
    let (mut ts, mut pid, mut body) = (0, None, None);
    for (num, f) in fields(b) {
        match num {
            1 => ts = f.uint()?,
            2 => pid = f.uint().map(|p| p as u32),
            n if layout(n).is_some() => body = Some((n, f.bytes()?)),
            _ => {}
        }
    }
    let Some((num, body)) = body else {
        return Some(None);
    };
    let (name, names) = layout(num)?;
    let mut vals: BTreeMap<u32, FieldValue> = BTreeMap::new();
    for (k, f) in fields(body) {
        if let Some((_, n)) = names.iter().find(|(i, _)| *i == k) {
            vals.insert(k, value(n, f)?);
        }
    }
    let fields = names
        .iter()
        .filter_map(|(k, n)| vals.remove(k).map(|v| (n.to_string(), v)))
        .collect();
    Some(Some(TraceEvent {
        ts,
        cpu,
        event: name.to_string(),
        common_comm: None,
        common_pid: pid,
        fields,
    }))
}
