//! The task-program interpreter: walks a task's ops when its current step finishes and
//! turns them into work, sleeps, yields and attribute changes for the kernel model.

use super::objects::{self, ObjState, OpProgress, Outcome};
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
    /// Progress inside the blocking op at `pc − 1`, across sleeps.
    io: OpProgress,
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
    /// Pipes, mutexes, barriers and wait queues.
    pub objs: Vec<ObjState>,
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
                    io: OpProgress::default(),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        check_objects(workload)?;
        Ok(Interpreter {
            progs,
            timers: vec![None; workload.timers.len()],
            stuck: Vec::new(),
            objs: workload.objects.iter().map(ObjState::new).collect(),
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
                Op::Write { obj, bytes } => {
                    let o = &mut self.objs[*obj];
                    if objects::pipe_write(sched, o, &mut st.io, p, *bytes, cpu) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Read { obj, bytes } => {
                    let o = &mut self.objs[*obj];
                    if objects::pipe_read(sched, o, &mut st.io, p, *bytes, cpu) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Lock { obj } => {
                    if objects::mutex_lock(&mut self.objs[*obj], p) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Unlock { obj } => objects::mutex_unlock(sched, &mut self.objs[*obj], p, cpu),
                Op::BarrierWait { obj } => {
                    let o = &mut self.objs[*obj];
                    if objects::barrier_wait(sched, o, &mut st.io, p, cpu) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Wait { obj } => {
                    if objects::queue_wait(&mut self.objs[*obj], &mut st.io, p) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Signal { obj } => {
                    objects::queue_signal(sched, &mut self.objs[*obj], false, cpu)
                }
                Op::Broadcast { obj } => {
                    objects::queue_signal(sched, &mut self.objs[*obj], true, cpu)
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

/// The op at `pc − 1` must wait: sleep, and run it again when woken.
fn block_and_retry(sched: &mut Sched, st: &mut ProgState, cpu: CpuId) -> Step {
    st.pc -= 1;
    sched.block_current(cpu);
    Step::Continue
}

/// Every op names an object that exists and has the right kind.
fn check_objects(workload: &Workload) -> Result<(), String> {
    use crate::workload::program::ObjectSpec as O;
    for t in &workload.tasks {
        for (i, op) in t.program.iter().enumerate() {
            if let Op::Timer { timer, .. } = op {
                if *timer >= workload.timers.len() {
                    return Err(format!(
                        "task '{}' op {i}: timer {timer} is not declared ({} timers)",
                        t.comm,
                        workload.timers.len()
                    ));
                }
            }
            let want = match op {
                Op::Write { obj, .. } | Op::Read { obj, .. } => Some((*obj, "a pipe")),
                Op::Lock { obj } | Op::Unlock { obj } => Some((*obj, "a mutex")),
                Op::BarrierWait { obj } => Some((*obj, "a barrier")),
                Op::Wait { obj } | Op::Signal { obj } | Op::Broadcast { obj } => {
                    Some((*obj, "a wait queue"))
                }
                _ => None,
            };
            let Some((obj, kind)) = want else { continue };
            let ok = match (workload.objects.get(obj), kind) {
                (Some(O::Pipe { capacity }), "a pipe") => *capacity > 0,
                (Some(O::Mutex), "a mutex") => true,
                (Some(O::Barrier { parties }), "a barrier") => *parties > 0,
                (Some(O::WaitQueue), "a wait queue") => true,
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "task '{}' op {i}: object {obj} is not {kind} (or has no capacity/parties)",
                    t.comm
                ));
            }
        }
    }
    Ok(())
}
