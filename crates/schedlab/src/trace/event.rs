//! One trace record: an ftrace event (or a counter sample) as the tracer captured it, before
//! any output format is chosen. Records are small and `Copy`; names and pids come from the
//! tracer's task table when a sink renders them.

use crate::time::Ns;

/// Task index standing for the idle task (`swapper/N`, pid 0).
pub const IDLE: u32 = u32::MAX;

/// `prev_state` raw values as the kernel (≥ 4.14) stores them in sched_switch:
/// `1 << (index − 1)` of the reported state, or TASK_REPORT_MAX when preempted.
pub mod prev_state {
    /// TASK_RUNNING: a runnable task switched out (user-mode preemption, yield): `R`.
    pub const RUNNING: u16 = 0;
    /// TASK_INTERRUPTIBLE: `S`.
    pub const SLEEPING: u16 = 0x1;
    /// TASK_UNINTERRUPTIBLE (io_schedule): `D`.
    pub const UNINTERRUPTIBLE: u16 = 0x2;
    /// EXIT_ZOMBIE (the final switch of an exiting task whose parent has not reaped it): `Z`.
    pub const ZOMBIE: u16 = 0x20;
    /// TASK_REPORT_MAX: preempted while runnable: `R+`.
    pub const PREEMPTED: u16 = 0x100;

    /// The letters `__print_flags` prints for `prev_state`, with `+` for preempted.
    pub fn letters(raw: u16) -> &'static str {
        match raw {
            RUNNING => "R",
            SLEEPING => "S",
            UNINTERRUPTIBLE => "D",
            ZOMBIE => "Z",
            PREEMPTED => "R+",
            _ => "R",
        }
    }
}

/// `cpu_idle` state value of an idle exit (PWR_EVENT_EXIT = −1 as u32).
pub const PWR_EVENT_EXIT: u32 = u32::MAX;

/// A task as an event names it: index into the tracer's task table (or [`IDLE`]) and its
/// kernel priority at the time, p->prio: 120 + nice for fair tasks, 99 − sched_priority
/// for SCHED_FIFO / SCHED_RR, −1 for SCHED_DEADLINE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRef {
    pub id: u32,
    pub prio: i32,
}

impl TaskRef {
    pub const IDLE: TaskRef = TaskRef {
        id: IDLE,
        prio: 120,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    Switch {
        prev: TaskRef,
        prev_state: u16,
        next: TaskRef,
    },
    Waking {
        task: TaskRef,
        target_cpu: u32,
    },
    Wakeup {
        task: TaskRef,
        target_cpu: u32,
    },
    WakeupNew {
        task: TaskRef,
        target_cpu: u32,
    },
    Migrate {
        task: TaskRef,
        orig_cpu: u32,
        dest_cpu: u32,
    },
    Exit {
        task: TaskRef,
    },
    Frequency {
        khz: u32,
        cpu_id: u32,
    },
    Idle {
        state: u32,
        cpu_id: u32,
    },
    /// A counter-track sample (Perfetto only): `track` indexes the tracer's track table.
    Counter {
        track: u32,
        value: i64,
    },
}

/// One record: when, on which CPU, in the context of which task (`common_pid`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rec {
    pub ts: Ns,
    pub cpu: u32,
    /// The task running on `cpu` when the event fired (task index or [`IDLE`]).
    pub common: u32,
    pub payload: Payload,
}

/// Name and pid of a traced task as ftrace shows them.
#[derive(Debug, Clone)]
pub struct TaskInfo {
    pub pid: u32,
    /// comm as the kernel keeps it: at most 15 bytes, and here with spaces replaced by `_`
    /// so that space-separated parsers (Perfetto's systrace importer) read it.
    pub comm: String,
    /// The task's cgroup path when the run has task groups.
    pub cgroup: Option<String>,
}

/// The kernel's TASK_COMM_LEN − 1, with spaces (and other whitespace) made `_`.
pub fn trace_comm(comm: &str) -> String {
    let mut out = String::new();
    for c in comm.chars() {
        let c = if c.is_whitespace() || c == '=' {
            '_'
        } else {
            c
        };
        if out.len() + c.len_utf8() > 15 {
            break;
        }
        out.push(c);
    }
    if out.is_empty() {
        out.push('?');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comm_is_cut_and_spaceless() {
        assert_eq!(trace_comm("my worker 1"), "my_worker_1");
        assert_eq!(trace_comm("a_very_long_thread_name"), "a_very_long_thr");
        assert_eq!(trace_comm(""), "?");
        assert_eq!(prev_state::letters(prev_state::PREEMPTED), "R+");
    }
}
