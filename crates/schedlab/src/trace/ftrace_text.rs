//! `/sys/kernel/tracing/trace` text: the nop tracer's header, then one line per event in
//! the kernel's layout (`trace_print_context` + the events' TP_printk formats; docs/traces.md):
//!
//! ```text
//!            hog-1000    [001] d..2.     0.012345: sched_switch: prev_comm=hog prev_pid=1000 …
//! ```
//!
//! The header's entry count is only known at the end, so lines go to a body file first and
//! the header is written in front of them when the trace is complete.

use super::event::{prev_state, Payload, Rec, TaskRef, IDLE};
use super::out::Out;
use super::select::Precision;
use super::Meta;
use std::fmt::Write as _;
use std::io::{self, Write};

pub struct TextSink {
    body: Out,
    line: String,
    precision: Precision,
    pub entries: u64,
}

/// The flag legend and column header of a nop-tracer trace on a kernel with the
/// migrate-disable column (5 latency flags).
const LEGEND: &str = "#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
";

impl TextSink {
    pub fn new(body: Out, precision: Precision) -> TextSink {
        TextSink {
            body,
            line: String::with_capacity(1 << 16),
            precision,
            entries: 0,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.body.bytes()
    }

    pub fn write(&mut self, recs: &[Rec], meta: &Meta) -> io::Result<()> {
        self.line.clear();
        for r in recs {
            if format_line(&mut self.line, r, meta, self.precision) {
                self.entries += 1;
            }
            if self.line.len() > 1 << 16 {
                self.body.write_all(self.line.as_bytes())?;
                self.line.clear();
            }
        }
        self.body.write_all(self.line.as_bytes())
    }

    /// Write header + body to the target and rename it into place.
    pub fn finish(mut self, meta: &Meta) -> io::Result<()> {
        self.body.flush()?;
        let Some(body_path) = self.body.tmp_path().map(|p| p.to_path_buf()) else {
            return Ok(());
        };
        let Out::File { target, .. } = &self.body else {
            return Ok(());
        };
        let mut out = Out::create(target, ".tmp")?;
        let result = (|| {
            write!(
                out,
                "# tracer: nop\n#\n# entries-in-buffer/entries-written: {n}/{n}   #P:{p}\n{LEGEND}",
                n = self.entries,
                p = meta.nr_cpus
            )?;
            // Group paths, one comment line per task (not a kernel header line).
            for t in &meta.tasks {
                if let Some(g) = &t.cgroup {
                    writeln!(out, "# cgroup: pid={} comm={} path={g}", t.pid, t.comm)?;
                }
            }
            let mut body = std::fs::File::open(&body_path)?;
            io::copy(&mut body, &mut out)?;
            Ok(())
        })();
        self.body.discard();
        match result {
            Ok(()) => out.commit(),
            Err(e) => {
                out.discard();
                Err(e)
            }
        }
    }

    pub fn discard(self) {
        self.body.discard();
    }
}

/// Name and pid of a task as the line prefix and the event fields show them.
fn who(t: TaskRef, cpu: u32, meta: &Meta, as_field: bool) -> (std::borrow::Cow<'_, str>, u32) {
    if t.id == IDLE {
        if as_field {
            (format!("swapper/{cpu}").into(), 0)
        } else {
            ("<idle>".into(), 0)
        }
    } else {
        let info = &meta.tasks[t.id as usize];
        (info.comm.as_str().into(), info.pid)
    }
}

/// Append one event line; false for records text traces do not carry (counter samples).
pub fn format_line(s: &mut String, r: &Rec, meta: &Meta, precision: Precision) -> bool {
    let (name, flags) = match r.payload {
        Payload::Switch { .. } => ("sched_switch", "d..2."),
        Payload::Waking { .. } => ("sched_waking", "d..3."),
        Payload::Wakeup { .. } => ("sched_wakeup", "d..4."),
        Payload::WakeupNew { .. } => ("sched_wakeup_new", "d..3."),
        Payload::Migrate { .. } => ("sched_migrate_task", "d..4."),
        Payload::Exit { .. } => ("sched_process_exit", "....."),
        Payload::Frequency { .. } => ("cpu_frequency", "d..1."),
        Payload::Idle { .. } => ("cpu_idle", "d..1."),
        Payload::Counter { .. } => return false,
    };
    let common = TaskRef {
        id: r.common,
        prio: 120,
    };
    let (comm, pid) = who(common, r.cpu, meta, false);
    let secs = r.ts / 1_000_000_000;
    let frac = r.ts % 1_000_000_000;
    let _ = write!(s, "{comm:>16}-{pid:<7} [{:03}] {flags} ", r.cpu);
    let _ = match precision {
        Precision::Us => write!(s, "{secs:5}.{:06}: {name}: ", frac / 1000),
        Precision::Ns => write!(s, "{secs:5}.{frac:09}: {name}: "),
    };
    let _ = match r.payload {
        Payload::Switch {
            prev,
            prev_state: st,
            next,
        } => {
            let (pc, pp) = who(prev, r.cpu, meta, true);
            let (nc, np) = who(next, r.cpu, meta, true);
            write!(
                s,
                "prev_comm={pc} prev_pid={pp} prev_prio={} prev_state={} ==> next_comm={nc} next_pid={np} next_prio={}",
                prev.prio,
                prev_state::letters(st),
                next.prio
            )
        }
        Payload::Waking { task, target_cpu }
        | Payload::Wakeup { task, target_cpu }
        | Payload::WakeupNew { task, target_cpu } => {
            let (c, p) = who(task, r.cpu, meta, true);
            write!(
                s,
                "comm={c} pid={p} prio={} target_cpu={target_cpu:03}",
                task.prio
            )
        }
        Payload::Migrate {
            task,
            orig_cpu,
            dest_cpu,
        } => {
            let (c, p) = who(task, r.cpu, meta, true);
            write!(
                s,
                "comm={c} pid={p} prio={} orig_cpu={orig_cpu} dest_cpu={dest_cpu}",
                task.prio
            )
        }
        Payload::Exit { task } => {
            let (c, p) = who(task, r.cpu, meta, true);
            // Each task is its own thread group here (pid = tgid), so its exit ends it.
            write!(s, "comm={c} pid={p} prio={} group_dead=true", task.prio)
        }
        Payload::Frequency { khz, cpu_id } => write!(s, "state={khz} cpu_id={cpu_id}"),
        Payload::Idle { state, cpu_id } => write!(s, "state={state} cpu_id={cpu_id}"),
        Payload::Counter { .. } => Ok(()),
    };
    s.push('\n');
    true
}

#[cfg(test)]
mod tests {
    use super::super::event::TaskInfo;
    use super::*;

    #[test]
    fn line_layout_matches_the_kernel() {
        let meta = Meta {
            tasks: vec![TaskInfo {
                pid: 1085,
                comm: "bash".into(),
                cgroup: None,
            }],
            nr_cpus: 8,
            tracks: Vec::new(),
        };
        let bash = TaskRef { id: 0, prio: 120 };
        let r = Rec {
            ts: 5_041_240_198_123,
            cpu: 1,
            common: 0,
            payload: Payload::Switch {
                prev: bash,
                prev_state: prev_state::SLEEPING,
                next: TaskRef::IDLE,
            },
        };
        let mut s = String::new();
        format_line(&mut s, &r, &meta, Precision::Us);
        assert_eq!(
            s,
            "            bash-1085    [001] d..2.  5041.240198: sched_switch: prev_comm=bash \
             prev_pid=1085 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 \
             next_prio=120\n"
        );
        s.clear();
        let r = Rec {
            ts: 1_000,
            cpu: 3,
            common: IDLE,
            payload: Payload::Idle {
                state: u32::MAX,
                cpu_id: 3,
            },
        };
        format_line(&mut s, &r, &meta, Precision::Ns);
        assert_eq!(
            s,
            "          <idle>-0       [003] d..1.     0.000001000: cpu_idle: state=4294967295 cpu_id=3\n"
        );
    }
}
