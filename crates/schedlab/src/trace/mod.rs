//! Trace output (docs/traces.md): ftrace events and counter samples captured at the kernel
//! model's event points, streamed to a Perfetto protobuf or an ftrace text file.
//!
//! The kernel model holds an `Option<Box<Tracer>>`; each hook site is one
//! `if self.tracer.is_some()` branch, so a run without a trace pays nothing else. Hooks
//! only read the model: a traced run is the same run, event for event.

mod buffer;
pub mod counters;
pub mod event;
pub mod ftrace_text;
mod hooks;
mod out;
pub mod perfetto;
pub mod proto_encode;
pub mod read;
pub mod select;

use crate::sched::{Sched, TaskId};
use crate::time::Ns;
use buffer::Buffer;
use event::{Payload, Rec, TaskInfo, PWR_EVENT_EXIT};
use ftrace_text::TextSink;
use out::Out;
use perfetto::PerfettoSink;
pub use select::TraceConfig;
use select::{EventKind, Format};
use std::io;

/// What owns a counter track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackOwner {
    Cpu(u32),
    Task(u32),
    RootDomain,
}

/// One counter track of a Perfetto trace.
#[derive(Debug, Clone)]
pub struct Track {
    pub uuid: u64,
    pub name: String,
    pub unit: &'static str,
    pub owner: TrackOwner,
}

/// What the sinks need to render records: names, pids, CPU count, counter tracks.
pub struct Meta {
    pub tasks: Vec<TaskInfo>,
    pub nr_cpus: usize,
    pub tracks: Vec<Track>,
}

/// The track uuid of a task's thread (parent of its counter tracks).
pub fn thread_track_uuid(task: u32) -> u64 {
    0x2_0000_0000 + task as u64 * 16
}

enum Sink {
    Text(TextSink),
    Perfetto(PerfettoSink),
}

/// An idle period the tracer has seen start.
#[derive(Clone, Copy)]
struct IdleMark {
    since: Ns,
    /// The entry record still waiting for its state.
    placeholder: Option<u64>,
}

/// Records per event kind (plus counter samples), reported after a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceStats {
    pub events: [u64; 8],
    pub counter_samples: u64,
    pub bytes: u64,
}

impl TraceStats {
    pub fn total_events(&self) -> u64 {
        self.events.iter().sum()
    }
}

pub struct Tracer {
    cfg: TraceConfig,
    meta: Meta,
    buf: Buffer,
    sink: Option<Sink>,
    error: Option<io::Error>,
    opened: bool,
    closed: bool,
    idle: Vec<Option<IdleMark>>,
    /// Target residencies of each CPU's idle states.
    idle_targets: Vec<Vec<Ns>>,
    counters: counters::CounterState,
    stats: TraceStats,
    /// Time of the latest record.
    last_ts: Ns,
}

/// How the trace names task `p`.
fn task_info(s: &Sched, p: TaskId) -> TaskInfo {
    TaskInfo {
        pid: s.tasks[p].pid,
        comm: event::trace_comm(&s.tasks[p].comm),
        cgroup: s.has_groups().then(|| s.task_group_path(p).to_string()),
    }
}

impl Tracer {
    /// Open the output (a temporary file beside `cfg.path`) and write its preamble.
    pub fn create(cfg: TraceConfig, s: &Sched) -> io::Result<Tracer> {
        // Text goes to a body file first: its header, written last, counts the entries.
        let suffix = match cfg.format {
            Format::Text => ".body.tmp",
            Format::Perfetto => ".tmp",
        };
        let out = Out::create(&cfg.path, suffix)?;
        Self::with_out(cfg, s, out)
    }

    /// A tracer that encodes everything but writes nothing (size estimates).
    pub fn counting(cfg: TraceConfig, s: &Sched) -> Tracer {
        Self::with_out(cfg, s, Out::null()).expect("a null sink cannot fail")
    }

    fn with_out(cfg: TraceConfig, s: &Sched, out: Out) -> io::Result<Tracer> {
        let nr_cpus = s.machine.nr_cpus();
        let tasks: Vec<TaskInfo> = (0..s.tasks.len()).map(|p| task_info(s, p)).collect();
        let counters_on = cfg.format == Format::Perfetto && cfg.counters.any();
        let (counters, tracks) = if counters_on {
            counters::CounterState::new(cfg.counters, nr_cpus, &tasks)
        } else {
            Default::default()
        };
        let meta = Meta {
            tasks,
            nr_cpus,
            tracks,
        };
        let start = cfg.window.0;
        let sink = match cfg.format {
            Format::Text => Sink::Text(TextSink::new(out, cfg.precision)),
            Format::Perfetto => Sink::Perfetto(PerfettoSink::new(out, &meta, start)?),
        };
        let idle_targets = (0..nr_cpus)
            .map(|c| {
                let d = &s.machine.freq_domains[s.machine.cpus[c].freq_domain];
                d.idle_states
                    .iter()
                    .map(|i| i.target_residency_ns)
                    .collect()
            })
            .collect();
        Ok(Tracer {
            cfg,
            meta,
            buf: Buffer::default(),
            sink: Some(sink),
            error: None,
            opened: false,
            closed: false,
            idle: vec![None; nr_cpus],
            idle_targets,
            counters,
            stats: TraceStats::default(),
            last_ts: 0,
        })
    }

    pub fn config(&self) -> &TraceConfig {
        &self.cfg
    }

    pub fn stats(&self) -> TraceStats {
        let mut st = self.stats.clone();
        st.bytes = match &self.sink {
            Some(Sink::Text(t)) => t.bytes(),
            Some(Sink::Perfetto(p)) => p.bytes(),
            None => 0,
        };
        st
    }

    fn wants(&self, e: EventKind) -> bool {
        self.cfg.events.contains(e)
    }

    /// Whether `now` is inside the window; opens it (writing the initial state) on the
    /// first hook inside it and closes it on the first hook past it.
    fn active(&mut self, s: &Sched) -> bool {
        if self.closed || self.sink.is_none() {
            return false;
        }
        // Tasks forked during the run (rt-app `fork`) join the task table.
        for p in self.meta.tasks.len()..s.tasks.len() {
            self.meta.tasks.push(task_info(s, p));
        }
        let (start, end) = self.cfg.window;
        if s.now >= end {
            self.close(end.min(s.now));
            return false;
        }
        if s.now < start {
            return false;
        }
        if !self.opened {
            self.open(s, start);
        }
        true
    }

    /// The state at the window's start: each CPU's frequency and idle period, and every
    /// counter's value.
    fn open(&mut self, s: &Sched, start: Ns) {
        self.opened = true;
        for cpu in 0..self.meta.nr_cpus {
            if self.wants(EventKind::CpuFrequency) {
                let d = &s.machine.freq_domains[s.machine.cpus[cpu].freq_domain];
                let khz = d.cur_khz;
                self.push_at(
                    start,
                    s,
                    cpu,
                    Payload::Frequency {
                        khz,
                        cpu_id: cpu as u32,
                    },
                );
            }
            if s.rqs[cpu].curr.is_none() {
                let since = s.rqs[cpu].sim.idle_since.unwrap_or(start);
                self.enter_idle(cpu, start, since);
            }
        }
        if self.counters.enabled() {
            self.counters.sample_all(s);
            self.push_counters(s, start, 0);
        }
    }

    fn close(&mut self, end: Ns) {
        if self.closed {
            return;
        }
        self.closed = true;
        for cpu in 0..self.idle.len() {
            self.settle_idle(cpu, end);
        }
    }

    /// Push an event on `cpu` at `ts` in the context of the task running there.
    fn push_at(&mut self, ts: Ns, s: &Sched, cpu: usize, payload: Payload) -> u64 {
        let common = s.rqs[cpu].curr.map_or(event::IDLE, |p| p as u32);
        self.push_as(ts, common, cpu, payload)
    }

    /// Push an event in the context of task `common` (a task index or IDLE).
    fn push_as(&mut self, ts: Ns, common: u32, cpu: usize, payload: Payload) -> u64 {
        self.last_ts = self.last_ts.max(ts);
        let kind = kind_of(&payload);
        if let Some(k) = kind {
            self.stats.events[k as usize] += 1;
        }
        let at = self.buf.push(Rec {
            ts,
            cpu: cpu as u32,
            common,
            payload,
        });
        if self.buf.len() >= buffer::CHUNK {
            self.flush(false);
        }
        at
    }

    /// Push the counter samples taken since the last call.
    fn push_counters(&mut self, s: &Sched, ts: Ns, cpu: usize) {
        let pending = std::mem::take(&mut self.counters.pending);
        for &(track, value) in &pending {
            self.stats.counter_samples += 1;
            self.push_at(ts, s, cpu, Payload::Counter { track, value });
        }
        self.counters.pending = pending;
        self.counters.pending.clear();
    }

    fn push(&mut self, s: &Sched, cpu: usize, payload: Payload) {
        self.push_at(s.now, s, cpu, payload);
    }

    /// An idle period of `cpu` began at `since`; its cpu_idle entry is stamped `ts`.
    fn enter_idle(&mut self, cpu: usize, ts: Ns, since: Ns) {
        if !self.wants(EventKind::CpuIdle) {
            return;
        }
        let cpu_id = cpu as u32;
        let placeholder = if self.idle_targets[cpu].is_empty() {
            // No cpuidle driver: default_idle_call traces state 1.
            self.push_as(ts, event::IDLE, cpu, Payload::Idle { state: 1, cpu_id });
            None
        } else {
            Some(self.push_as(ts, event::IDLE, cpu, Payload::Idle { state: 0, cpu_id }))
        };
        self.idle[cpu] = Some(IdleMark { since, placeholder });
    }

    /// Give the open idle entry of `cpu` the state an idle period ending at `end` used.
    fn settle_idle(&mut self, cpu: usize, end: Ns) {
        let Some(mark) = self.idle[cpu].as_mut() else {
            return;
        };
        if let Some(at) = mark.placeholder.take() {
            let len = end.saturating_sub(mark.since);
            let state = self.idle_targets[cpu]
                .iter()
                .rposition(|&t| t <= len)
                .unwrap_or(0) as u32;
            self.buf.patch(
                at,
                Payload::Idle {
                    state,
                    cpu_id: cpu as u32,
                },
            );
        }
    }

    fn exit_idle(&mut self, s: &Sched, cpu: usize) {
        if self.idle[cpu].is_none() {
            return;
        }
        self.settle_idle(cpu, s.now);
        self.idle[cpu] = None;
        self.push(
            s,
            cpu,
            Payload::Idle {
                state: PWR_EVENT_EXIT,
                cpu_id: cpu as u32,
            },
        );
    }

    /// Hand released records to the sink. `all`: everything (end of the trace).
    fn flush(&mut self, all: bool) {
        if !all && self.buf.len() >= buffer::CAP {
            // Memory bound: settle the open idle entries early (their state is then the
            // deepest the period had justified so far).
            for cpu in 0..self.idle.len() {
                self.settle_idle(cpu, self.last_ts);
            }
        }
        let limit = if all {
            None
        } else {
            self.idle
                .iter()
                .filter_map(|m| m.and_then(|m| m.placeholder))
                .min()
        };
        let recs = self.buf.drain(limit);
        if recs.is_empty() {
            return;
        }
        let result = match self.sink.as_mut() {
            Some(Sink::Text(t)) => t.write(recs, &self.meta),
            Some(Sink::Perfetto(p)) => p.write(recs, &self.meta),
            None => Ok(()),
        };
        if let Err(e) = result {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: io::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        match self.sink.take() {
            Some(Sink::Text(t)) => t.discard(),
            Some(Sink::Perfetto(p)) => p.discard(),
            None => {}
        }
    }

    /// End of the run at `now`: settle open idle periods, write everything, and move the
    /// file into place. On error nothing is left under the target name.
    pub fn finish(mut self, now: Ns) -> io::Result<TraceStats> {
        let end = now.min(self.cfg.window.1);
        self.close(end);
        self.flush(true);
        let stats = self.stats();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.sink.take() {
            Some(Sink::Text(t)) => t.finish(&self.meta)?,
            Some(Sink::Perfetto(p)) => p.finish()?,
            None => {}
        }
        Ok(stats)
    }

    /// Drop the output without writing it (the run failed).
    pub fn discard(mut self) {
        match self.sink.take() {
            Some(Sink::Text(t)) => t.discard(),
            Some(Sink::Perfetto(p)) => p.discard(),
            None => {}
        }
    }
}

fn kind_of(p: &Payload) -> Option<EventKind> {
    Some(match p {
        Payload::Switch { .. } => EventKind::SchedSwitch,
        Payload::Waking { .. } => EventKind::SchedWaking,
        Payload::Wakeup { .. } => EventKind::SchedWakeup,
        Payload::WakeupNew { .. } => EventKind::SchedWakeupNew,
        Payload::Migrate { .. } => EventKind::SchedMigrateTask,
        Payload::Exit { .. } => EventKind::SchedProcessExit,
        Payload::Frequency { .. } => EventKind::CpuFrequency,
        Payload::Idle { .. } => EventKind::CpuIdle,
        Payload::Counter { .. } => return None,
    })
}
