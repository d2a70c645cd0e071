//! The task-program interpreter: walks a task's ops when its current step finishes and
//! turns them into work, sleeps, yields and attribute changes for the kernel model.

use super::Event;
use crate::machine::CpuId;
use crate::sched::{Sched, TaskId, Work};
use crate::time::Ns;
use crate::workload::program::match_loops;
use crate::workload::{Op, TimerMode, Workload};

/// Ops a program may execute without any simulated time passing before it is declared
/// stuck (e.g. a forever loop holding only attribute changes).
const MAX_INSTANT_OPS: u32 = 100_000;

/// Where one task is in its program.
#[derive(Debug, Clone)]
pub struct ProgState {
    pc: usize,
    /// Open loops: (index of the LoopBegin, iterations left; None = forever).
    loops: Vec<(usize, Option<u64>)>,
    /// LoopBegin ↔ LoopEnd partners.
    partner: Vec<usize>,
    /// When the task started (rt-app timers count from the thread's start).
    pub start: Ns,
}

/// What the interpreter did with the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The task is busy, blocked or yielded; the kernel model has it.
    Continue,
    /// The program ended (or was stuck) and the task exited.
    Exited,
}

pub struct Interpreter {
    pub progs: Vec<ProgState>,
    /// Next expiry of each workload timer (None = not used yet).
    timers: Vec<Option<Ns>>,
    /// Programs declared stuck, for the result's invariant messages.
    pub stuck: Vec<String>,
}

impl Interpreter {
    pub fn new(workload: &Workload) -> Result<Self, String> {
        let progs = workload
            .tasks
            .iter()
            .map(|t| {
                Ok(ProgState {
                    pc: 0,
                    loops: Vec::new(),
                    partner: match_loops(&t.program)
                        .map_err(|e| format!("task '{}': {e}", t.comm))?,
                    start: 0,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Interpreter {
            progs,
            timers: vec![None; workload.timers.len()],
            stuck: Vec::new(),
        })
    }

    /// Run task `p`'s program on `cpu` from where it stopped until it needs time.
    pub fn advance(
        &mut self,
        sched: &mut Sched,
        workload: &Workload,
        p: TaskId,
        cpu: CpuId,
    ) -> Step {
        let program = &workload.tasks[p].program;
        let now = sched.now;
        for _ in 0..MAX_INSTANT_OPS {
            let st = &mut self.progs[p];
            let Some(op) = program.get(st.pc) else {
                sched.exit_current(cpu);
                return Step::Exited;
            };
            st.pc += 1;
            match op {
                Op::Run { work_ns } if *work_ns > 0 => {
                    sched.set_work(cpu, Work::Reference(*work_ns));
                    return Step::Continue;
                }
                Op::RunWall { ns } if *ns > 0 => {
                    sched.set_work(cpu, Work::Until(now + ns));
                    return Step::Continue;
                }
                Op::Run { .. } | Op::RunWall { .. } => {}
                Op::Sleep { ns } => {
                    sched.events.push(now + ns, Event::TimerWake(p));
                    sched.block_current(cpu);
                    return Step::Continue;
                }
                Op::IoWait { ns } => {
                    sched.events.push(now + ns, Event::TimerWake(p));
                    sched.block_current_iowait(cpu);
                    return Step::Continue;
                }
                Op::Timer {
                    timer,
                    period_ns,
                    mode,
                } => {
                    let start = st.start;
                    let t_next = self.timers[*timer].get_or_insert(start);
                    *t_next += period_ns;
                    if *t_next > now {
                        sched.events.push(*t_next, Event::TimerWake(p));
                        sched.block_current(cpu);
                        return Step::Continue;
                    }
                    if *mode == TimerMode::Relative {
                        *t_next = now;
                    }
                }
                Op::Yield => {
                    sched.yield_current(cpu);
                    return Step::Continue;
                }
                Op::SetSched(change) => {
                    sched.setattr_fair(p, change);
                    if let Some(cpus) = &change.cpus {
                        sched.set_affinity_current(cpu, cpus);
                        if sched.rqs[cpu].curr != Some(p) {
                            return Step::Continue;
                        }
                    }
                }
                Op::LoopBegin { count } => {
                    if *count == Some(0) {
                        st.pc = st.partner[st.pc - 1] + 1;
                    } else {
                        st.loops.push((st.pc - 1, *count));
                    }
                }
                Op::LoopEnd => {
                    let top = st.loops.last_mut().expect("balanced loops");
                    match &mut top.1 {
                        Some(n) if *n <= 1 => {
                            st.loops.pop();
                        }
                        Some(n) => {
                            *n -= 1;
                            st.pc = top.0 + 1;
                        }
                        None => st.pc = top.0 + 1,
                    }
                }
            }
        }
        self.stuck.push(format!(
            "task '{}' ran {MAX_INSTANT_OPS} steps without simulated time passing; it was stopped",
            sched.tasks[p].comm
        ));
        sched.exit_current(cpu);
        Step::Exited
    }
}
