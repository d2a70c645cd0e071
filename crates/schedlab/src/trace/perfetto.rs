//! Native Perfetto protobuf (docs/traces.md): a `Trace` is a stream of `packet` fields, so the
//! file is written packet by packet as the run goes. Layout:
//!
//! 1. `system_info` with a Linux `utsname.release`, so trace processor decodes the raw
//!    `prev_state` bits with the ≥ 4.14 table (R, R+, S, D, Z);
//! 2. `process_tree` naming every task (each task is its own process, tgid = pid);
//! 3. with counters: `track_descriptor`s (per-CPU tracks at top level, per-task tracks
//!    under the task's thread track, the root domain's overutilized flag);
//! 4. per flushed chunk, one `FtraceEventBundle` per CPU holding that CPU's events in time
//!    order, and one `track_event` packet (TYPE_COUNTER) per counter sample.
//!
//! Field numbers are those of Perfetto's protos (perfetto_trace.proto as shipped in the
//! `perfetto` PyPI package); they are written out here, not generated.

use super::event::{Payload, Rec, TaskRef, IDLE};
use super::out::Out;
use super::proto_encode::Enc;
use super::{Meta, TrackOwner};
use std::io::{self, Write};

/// The kernel release the trace declares (Perfetto picks its prev_state table from it).
pub const KERNEL_RELEASE: &str = "6.8.0-schedlab";

/// trusted_packet_sequence_id of the counter (track_event) sequence.
const SEQ_ID: u64 = 1;

mod f {
    // TracePacket
    pub const PKT_FTRACE_EVENTS: u32 = 1;
    pub const PKT_PROCESS_TREE: u32 = 2;
    pub const PKT_TIMESTAMP: u32 = 8;
    pub const PKT_SEQ_ID: u32 = 10;
    pub const PKT_TRACK_EVENT: u32 = 11;
    pub const PKT_SEQ_FLAGS: u32 = 13;
    pub const PKT_SYSTEM_INFO: u32 = 45;
    pub const PKT_TRACK_DESCRIPTOR: u32 = 60;
    // FtraceEventBundle
    pub const BUNDLE_CPU: u32 = 1;
    pub const BUNDLE_EVENT: u32 = 2;
    // FtraceEvent
    pub const EV_TIMESTAMP: u32 = 1;
    pub const EV_PID: u32 = 2;
    pub const EV_SCHED_SWITCH: u32 = 4;
    pub const EV_CPU_FREQUENCY: u32 = 11;
    pub const EV_CPU_IDLE: u32 = 13;
    pub const EV_SCHED_WAKEUP: u32 = 17;
    pub const EV_SCHED_WAKING: u32 = 20;
    pub const EV_SCHED_WAKEUP_NEW: u32 = 114;
    pub const EV_SCHED_PROCESS_EXIT: u32 = 238;
    pub const EV_SCHED_MIGRATE_TASK: u32 = 491;
}

pub struct PerfettoSink {
    out: Out,
    /// Encoded FtraceEvent fields per CPU for the chunk being written.
    per_cpu: Vec<Enc>,
    /// Encoded packets (counter samples) for the chunk, in order.
    packets: Enc,
}

/// SEQ_INCREMENTAL_STATE_CLEARED.
const SEQ_INCREMENTAL_STATE_CLEARED: u64 = 1;
/// TrackEvent.Type TYPE_COUNTER.
const TYPE_COUNTER: u64 = 4;

impl PerfettoSink {
    /// Write the preamble packets.
    pub fn new(mut out: Out, meta: &Meta, start: u64) -> io::Result<PerfettoSink> {
        let mut e = Enc::default();
        e.message(1, |p| {
            p.message(f::PKT_SYSTEM_INFO, |si| {
                si.message(1, |u| {
                    u.string(1, "Linux");
                    u.string(2, "#1 SMP PREEMPT_DYNAMIC schedlab");
                    u.string(3, KERNEL_RELEASE);
                    u.string(4, "x86_64");
                });
                si.uint(8, meta.nr_cpus as u64);
            });
        });
        e.message(1, |p| {
            p.uint(f::PKT_TIMESTAMP, start);
            p.message(f::PKT_PROCESS_TREE, |pt| {
                for t in &meta.tasks {
                    pt.message(1, |pr| {
                        pr.uint(1, t.pid as u64);
                        pr.uint(2, 1);
                        pr.string(3, &t.comm);
                        if let Some(g) = &t.cgroup {
                            // An extra cmdline argument: the group shows in the process
                            // details.
                            pr.string(3, &format!("cgroup={g}"));
                        }
                    });
                }
                for t in &meta.tasks {
                    pt.message(2, |th| {
                        th.uint(1, t.pid as u64);
                        th.string(2, &t.comm);
                        th.uint(3, t.pid as u64);
                    });
                }
            });
        });
        if !meta.tracks.is_empty() {
            write_track_descriptors(&mut e, meta, start);
        }
        out.write_all(&e.buf)?;
        Ok(PerfettoSink {
            out,
            per_cpu: vec![Enc::default(); meta.nr_cpus],
            packets: Enc::default(),
        })
    }

    pub fn bytes(&self) -> u64 {
        self.out.bytes()
    }

    pub fn write(&mut self, recs: &[Rec], meta: &Meta) -> io::Result<()> {
        for r in recs {
            if let Payload::Counter { track, value } = r.payload {
                let uuid = meta.tracks[track as usize].uuid;
                self.packets.message(1, |p| {
                    p.uint(f::PKT_TIMESTAMP, r.ts);
                    p.uint(f::PKT_SEQ_ID, SEQ_ID);
                    p.message(f::PKT_TRACK_EVENT, |te| {
                        te.uint(9, TYPE_COUNTER);
                        te.uint(11, uuid);
                        te.int(30, value);
                    });
                });
            } else {
                let e = &mut self.per_cpu[r.cpu as usize];
                e.message(f::BUNDLE_EVENT, |ev| encode_event(ev, r, meta));
            }
        }
        let mut e = std::mem::take(&mut self.packets);
        for (cpu, events) in self.per_cpu.iter_mut().enumerate() {
            if events.is_empty() {
                continue;
            }
            e.message(1, |p| {
                p.message(f::PKT_FTRACE_EVENTS, |b| {
                    b.uint(f::BUNDLE_CPU, cpu as u64);
                    b.buf.extend_from_slice(&events.buf);
                });
            });
            events.clear();
        }
        let result = self.out.write_all(&e.buf);
        e.clear();
        self.packets = e;
        result
    }

    pub fn finish(self) -> io::Result<()> {
        self.out.commit()
    }

    pub fn discard(self) {
        self.out.discard();
    }
}

fn who(t: TaskRef, cpu: u32, meta: &Meta) -> (std::borrow::Cow<'_, str>, u64) {
    if t.id == IDLE {
        (format!("swapper/{cpu}").into(), 0)
    } else {
        let info = &meta.tasks[t.id as usize];
        (info.comm.as_str().into(), info.pid as u64)
    }
}

fn encode_event(ev: &mut Enc, r: &Rec, meta: &Meta) {
    ev.uint(f::EV_TIMESTAMP, r.ts);
    let common = if r.common == IDLE {
        0
    } else {
        meta.tasks[r.common as usize].pid as u64
    };
    ev.uint(f::EV_PID, common);
    let wake = |ev: &mut Enc, field: u32, task: TaskRef, target: u32| {
        let (c, p) = who(task, r.cpu, meta);
        ev.message(field, |w| {
            w.string(1, &c);
            w.uint(2, p);
            w.int(3, task.prio as i64);
            w.uint(5, target as u64);
        });
    };
    match r.payload {
        Payload::Switch {
            prev,
            prev_state,
            next,
        } => {
            let (pc, pp) = who(prev, r.cpu, meta);
            let (nc, np) = who(next, r.cpu, meta);
            ev.message(f::EV_SCHED_SWITCH, |s| {
                s.string(1, &pc);
                s.uint(2, pp);
                s.int(3, prev.prio as i64);
                s.int(4, prev_state as i64);
                s.string(5, &nc);
                s.uint(6, np);
                s.int(7, next.prio as i64);
            });
        }
        Payload::Waking { task, target_cpu } => wake(ev, f::EV_SCHED_WAKING, task, target_cpu),
        Payload::Wakeup { task, target_cpu } => wake(ev, f::EV_SCHED_WAKEUP, task, target_cpu),
        Payload::WakeupNew { task, target_cpu } => {
            wake(ev, f::EV_SCHED_WAKEUP_NEW, task, target_cpu)
        }
        Payload::Migrate {
            task,
            orig_cpu,
            dest_cpu,
        } => {
            let (c, p) = who(task, r.cpu, meta);
            ev.message(f::EV_SCHED_MIGRATE_TASK, |m| {
                m.string(1, &c);
                m.uint(2, p);
                m.int(3, task.prio as i64);
                m.uint(4, orig_cpu as u64);
                m.uint(5, dest_cpu as u64);
            });
        }
        Payload::Exit { task } => {
            let (c, p) = who(task, r.cpu, meta);
            ev.message(f::EV_SCHED_PROCESS_EXIT, |x| {
                x.string(1, &c);
                x.uint(2, p);
                x.uint(3, p);
                x.int(4, task.prio as i64);
            });
        }
        Payload::Frequency { khz, cpu_id } => ev.message(f::EV_CPU_FREQUENCY, |c| {
            c.uint(1, khz as u64);
            c.uint(2, cpu_id as u64);
        }),
        Payload::Idle { state, cpu_id } => ev.message(f::EV_CPU_IDLE, |c| {
            c.uint(1, state as u64);
            c.uint(2, cpu_id as u64);
        }),
        Payload::Counter { .. } => {}
    }
}

/// Thread tracks for tasks with counters, then every counter track.
fn write_track_descriptors(e: &mut Enc, meta: &Meta, start: u64) {
    let mut first = true;
    let mut packet = |e: &mut Enc, body: &dyn Fn(&mut Enc)| {
        e.message(1, |p| {
            p.uint(f::PKT_TIMESTAMP, start);
            p.uint(f::PKT_SEQ_ID, SEQ_ID);
            if first {
                p.uint(f::PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
            }
            p.message(f::PKT_TRACK_DESCRIPTOR, |d| body(d));
        });
        first = false;
    };
    let mut seen = Vec::new();
    for t in &meta.tracks {
        if let TrackOwner::Task(id) = t.owner {
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let info = &meta.tasks[id as usize];
            packet(e, &|d| {
                d.uint(1, super::thread_track_uuid(id));
                d.message(4, |th| {
                    th.uint(1, info.pid as u64);
                    th.uint(2, info.pid as u64);
                    th.string(5, &info.comm);
                });
            });
        }
    }
    for t in &meta.tracks {
        packet(e, &|d| {
            d.uint(1, t.uuid);
            d.string(2, &t.name);
            if let TrackOwner::Task(id) = t.owner {
                d.uint(5, super::thread_track_uuid(id));
            }
            d.message(8, |c| {
                if !t.unit.is_empty() {
                    c.string(6, t.unit);
                }
            });
        });
    }
}
