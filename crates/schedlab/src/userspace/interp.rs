//! The task-program interpreter: walks a task's ops when its current step finishes and
//! turns them into work, sleeps, yields and attribute changes for the kernel model.

use super::objects::{self, ObjState, OpProgress, Outcome, Waker};
use super::sharing::{Own, SharedPrograms};
use crate::engine::Event;
use crate::machine::CpuId;
use crate::sched::{Sched, TaskId, Work};
use crate::time::Ns;
use crate::workload::program::{match_loops, Since};
use crate::workload::{Op, Probes, Sample, TimerMode, Workload};
use smallvec::SmallVec;
use std::rc::Rc;

/// Busy work between two attempts of a spinning `SpinLockCpu` (rep;nop loop).
pub const SPIN_QUANTUM_NS: Ns = 2_000;

/// Ops a program may execute without any simulated time passing before it is declared
/// stuck (e.g. a forever loop holding only attribute changes).
const MAX_INSTANT_OPS: u32 = 100_000;

/// Where one task is in its program. `repr(C)`: what every advance reads (the program,
/// the pc, the instant count, the open loop, where its own objects start) comes first,
/// side by side (88 of its 192 bytes), aligned: in the first two of its three lines.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct ProgState {
    /// The task's program, shared by tasks with equal programs (instances of one rt-app
    /// task, stress-ng's per-instance trio, spinners): fewer cache lines on the hot path
    /// and one copy for a million identical tasks. `None` only while `advance` runs the
    /// task: it takes the program out instead of cloning the `Rc`, so an advance does not
    /// write to the program's shared count (a cache line of its own per program).
    program: Option<Rc<[Op]>>,
    pc: usize,
    /// (time, count) of this task's advances at one instant: a program that only yields
    /// (or switches between such programs) never lets time pass, across advances.
    instant: (Ns, u32),
    /// Open loops: (index of the LoopBegin, iterations left; None = forever). The
    /// innermost is usually the only one: kept inline, a loop's end reads no other line.
    loops: SmallVec<[(usize, Option<u64>); 1]>,
    /// The task's first own object and counter: an op's index with `OWN` set counts
    /// from here (TaskSpec::private).
    own: Own,
    /// Progress inside the blocking op at `pc − 1`, across sleeps.
    io: OpProgress,
    /// LoopBegin ↔ LoopEnd partners.
    partner: Rc<[usize]>,
    /// `Op::Stamp` slots.
    stamps: Vec<Ns>,
    /// The per-CPU spinlock object held, if any.
    spin_held: Option<usize>,
    /// When the task started (rt-app timers count from the thread's start).
    pub start: Ns,
    /// `start` was fixed when the task was forked (rt-app counts a forked thread's
    /// timers from the use case's start plus its delay, not from the fork).
    pub start_fixed: bool,
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
    /// The truesize of every AF_UNIX skb queued on the machine.
    skbs_in_flight: objects::SkbsInFlight,
    /// When each task was last woken through an object, until a `Record` consumes it.
    woken_at: Vec<Option<Ns>>,
    /// The semaphore each task's exit posts (TaskSpec::exit_post; u32: a million
    /// tasks' worth is 8 MB).
    exit_posts: Vec<Option<u32>>,
    pub probes: Probes,
    /// LoopBegin ↔ LoopEnd partners of each fork template.
    template_partners: Vec<Rc<[usize]>>,
    /// Children created from each template so far (rt-app's per-target fork id).
    fork_counts: Vec<u32>,
    /// Tasks forked since the run loop last looked (it counts them as live).
    pub spawned: usize,
    /// Some program (or fork template) takes a per-CPU spinlock: without one the run
    /// loop need not look at the next op for failed spin retries on every event.
    spins: bool,
}

/// rt-app's FORKS_LIMIT: a fork target created this many times stops further forks.
pub const FORKS_LIMIT: u32 = 1024;

impl Interpreter {
    pub fn new(workload: &Workload, nr_cpus: usize) -> Result<Self, String> {
        let mut shared = SharedPrograms::default();
        let progs = workload
            .tasks
            .iter()
            .map(|t| {
                let (program, partner) = shared
                    .get(&t.program, &t.private)
                    .map_err(|e| format!("task '{}': {e}", t.attrs.comm))?;
                Ok(ProgState {
                    program: Some(program),
                    pc: 0,
                    loops: SmallVec::new(),
                    own: Own::of(&t.private),
                    partner,
                    start: 0,
                    start_fixed: false,
                    io: OpProgress::default(),
                    stamps: Vec::new(),
                    instant: (0, 0),
                    spin_held: None,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let template_partners = workload
            .templates
            .iter()
            .map(|t| {
                match_loops(&t.spec.program)
                    .map(Rc::from)
                    .map_err(|e| format!("template '{}': {e}", t.spec.attrs.comm))
            })
            .collect::<Result<Vec<_>, String>>()?;
        check_objects(workload, nr_cpus)?;
        check_creates(workload)?;
        let spins = workload
            .tasks
            .iter()
            .chain(workload.templates.iter().map(|t| &t.spec))
            .any(|t| {
                t.program
                    .iter()
                    .any(|op| matches!(op, Op::SpinLockCpu { .. }))
            });
        Ok(Interpreter {
            progs,
            timers: vec![None; workload.timers.len()],
            stuck: Vec::new(),
            objs: workload.objects.iter().map(ObjState::new).collect(),
            skbs_in_flight: objects::SkbsInFlight::default(),
            woken_at: vec![None; workload.tasks.len()],
            exit_posts: workload.tasks.iter().map(exit_post).collect(),
            probes: Probes {
                counters: vec![0; workload.counters.len()],
                logs: vec![Vec::new(); workload.logs.len()],
            },
            template_partners,
            fork_counts: vec![0; workload.templates.len()],
            spawned: 0,
            spins,
        })
    }

    /// How many distinct program copies the tasks run.
    pub fn program_copies(&self) -> usize {
        let mut seen: Vec<*const Op> = self
            .progs
            .iter()
            .filter_map(|st| st.program.as_ref().map(|p| p.as_ptr()))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// Run task `p`'s program on `cpu` from where it stopped until it needs time.
    pub fn advance(
        &mut self,
        sched: &mut Sched,
        workload: &Workload,
        p: TaskId,
        cpu: CpuId,
    ) -> Step {
        let program = self.progs[p]
            .program
            .take()
            .expect("one advance of a task at a time");
        let step = self.run_program(sched, workload, p, cpu, &program);
        self.progs[p].program = Some(program);
        step
    }

    /// `advance` with the task's program taken out of its state.
    fn run_program(
        &mut self,
        sched: &mut Sched,
        workload: &Workload,
        p: TaskId,
        cpu: CpuId,
        program: &[Op],
    ) -> Step {
        let now = sched.now;
        // Found by fuzzing: rt-app `{"yield": 0}` alone on a CPU re-ran at one instant
        // forever (each yield ends the advance, so the per-advance limit never tripped).
        let st = &mut self.progs[p];
        st.instant = match st.instant {
            (t, n) if t == now => (t, n + 1),
            _ => (now, 1),
        };
        if st.instant.1 > MAX_INSTANT_OPS {
            return self.stop_stuck(sched, p, cpu);
        }
        let own = st.own;
        for _ in 0..MAX_INSTANT_OPS {
            let st = &mut self.progs[p];
            let Some(op) = program.get(st.pc) else {
                return self.exit(sched, p, cpu);
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
                    let at = sched.hrtimer_expiry(cpu, now + ns);
                    sched.events.push(at, Event::TimerWake(p));
                    sched.block_current(cpu);
                    return Step::Continue;
                }
                Op::IoWait { ns } => {
                    let at = sched.hrtimer_expiry(cpu, now + ns);
                    sched.events.push(at, Event::TimerWake(p));
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
                        let at = sched.hrtimer_expiry(cpu, *t_next);
                        sched.events.push(at, Event::TimerWake(p));
                        sched.block_current(cpu);
                        return Step::Continue;
                    }
                    match *mode {
                        TimerMode::Relative => *t_next = now,
                        TimerMode::Vsync { grid_ns } if grid_ns > 0 => {
                            *t_next += (now - *t_next) / grid_ns * grid_ns;
                        }
                        _ => {}
                    }
                }
                Op::Yield => {
                    sched.yield_current(cpu);
                    return Step::Continue;
                }
                Op::Write { obj, bytes } => {
                    let o = &mut self.objs[own.obj(*obj)];
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    let skbs = &mut self.skbs_in_flight;
                    if objects::stream_write(&mut w, o, skbs, &mut st.io, p, *bytes)
                        == Outcome::Block
                    {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Read { obj, bytes } => {
                    let o = &mut self.objs[own.obj(*obj)];
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    let skbs = &mut self.skbs_in_flight;
                    if objects::stream_read(&mut w, o, skbs, &mut st.io, p, *bytes)
                        == Outcome::Block
                    {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Poll { obj } => {
                    if objects::stream_poll(&mut self.objs[own.obj(*obj)], p) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::SemPost { obj } => {
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    objects::sem_post(&mut w, &mut self.objs[own.obj(*obj)]);
                }
                Op::ReqPost { obj } => {
                    let ObjState::RequestList(list) = &mut self.objs[own.obj(*obj)] else {
                        unreachable!("validated: a request list");
                    };
                    list.post(&mut waker(sched, cpu, &mut self.woken_at), now);
                }
                Op::ReqTake { obj, slot } => {
                    let ObjState::RequestList(list) = &mut self.objs[own.obj(*obj)] else {
                        unreachable!("validated: a request list");
                    };
                    match list.take(p) {
                        Ok(at) => {
                            if st.stamps.len() <= *slot {
                                st.stamps.resize(slot + 1, 0);
                            }
                            st.stamps[*slot] = at;
                        }
                        Err(_) => return block_and_retry(sched, st, cpu),
                    }
                }
                Op::SemWait { obj } => {
                    if objects::sem_wait(&mut self.objs[own.obj(*obj)], p) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::SpinLockCpu { first_obj } => {
                    let obj = own.obj(*first_obj) + cpu;
                    if objects::spin_trylock(&mut self.objs[obj], p) {
                        st.spin_held = Some(obj);
                    } else {
                        // Spin a quantum of busy work, then try again.
                        st.pc -= 1;
                        sched.set_work(cpu, Work::Until(now + SPIN_QUANTUM_NS));
                        return Step::Continue;
                    }
                }
                Op::SpinUnlockCpu => {
                    if let Some(obj) = st.spin_held.take() {
                        objects::spin_unlock(&mut self.objs[obj], p);
                    }
                }
                Op::Stamp { slot } => {
                    if st.stamps.len() <= *slot {
                        st.stamps.resize(slot + 1, 0);
                    }
                    st.stamps[*slot] = now;
                }
                Op::Record { log, since } => {
                    let origin = match since {
                        Since::Stamp(slot) => Some(st.stamps.get(*slot).copied().unwrap_or(0)),
                        Since::Woken => self.woken_at[p].take(),
                        Since::Timer(t) => self.timers[*t].filter(|&at| at <= now),
                    };
                    if let Some(t0) = origin {
                        self.probes.logs[*log].push(Sample {
                            at: now,
                            value: now.saturating_sub(t0),
                        });
                    }
                }
                Op::Count { counter } => self.probes.counters[own.counter(*counter)] += 1,
                Op::SetMinFreq { cpu: c, khz } => sched.cpufreq_set_min_freq(*c, *khz),
                Op::HintFrameStart { obj } => {
                    hint_session(&mut self.objs[own.obj(*obj)]).frame_start(now)
                }
                Op::HintReport { obj } => {
                    let s = hint_session(&mut self.objs[own.obj(*obj)]);
                    s.report(now);
                    objects::hint_session::sync(sched, own.obj(*obj), s);
                }
                Op::HintLoadReset { obj } => {
                    let s = hint_session(&mut self.objs[own.obj(*obj)]);
                    s.load_reset(now);
                    objects::hint_session::sync(sched, own.obj(*obj), s);
                }
                Op::Create { task } => {
                    // clone(): the child is placed and woken while its creator runs.
                    let child = *task;
                    self.progs[child].start = sched.now;
                    sched.sched_fork_on(child, cpu);
                    sched.wake_up_new_task(child);
                    self.spawned += 1;
                }
                Op::Fork { template } => {
                    if !self.fork(sched, workload, p, cpu, *template) {
                        return self.exit(sched, p, cpu);
                    }
                }
                Op::Lock { obj } => {
                    if objects::mutex_lock(&mut self.objs[own.obj(*obj)], p) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Unlock { obj } => {
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    objects::mutex_unlock(&mut w, &mut self.objs[own.obj(*obj)], p)
                }
                Op::BarrierWait { obj } => {
                    let o = &mut self.objs[own.obj(*obj)];
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    if objects::barrier_wait(&mut w, o, &mut st.io, p) == Outcome::Block {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Wait { obj } => {
                    if objects::queue_wait(&mut self.objs[own.obj(*obj)], &mut st.io, p)
                        == Outcome::Block
                    {
                        return block_and_retry(sched, st, cpu);
                    }
                }
                Op::Signal { obj } => {
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    objects::queue_signal(&mut w, &mut self.objs[own.obj(*obj)], false)
                }
                Op::Broadcast { obj } => {
                    let mut w = waker(sched, cpu, &mut self.woken_at);
                    objects::queue_signal(&mut w, &mut self.objs[own.obj(*obj)], true)
                }
                Op::SetSched(change) => {
                    sched.sched_setattr(p, change);
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
        self.stop_stuck(sched, p, cpu)
    }

    /// A vote of hint session `obj` may have lapsed (Event::HintTimeout): re-apply its
    /// threads' uclamp.min unless a later arm superseded this timeout.
    pub fn hint_timeout(&mut self, sched: &mut Sched, obj: usize) {
        objects::hint_session::timeout(sched, obj, hint_session(&mut self.objs[obj]));
    }

    /// Whether `p`'s next step on `cpu` is a `SpinLockCpu` retry that fails: the lock is
    /// held by another task, and only a step of that task can release it.
    pub fn spin_retry_fails(&self, p: TaskId, cpu: CpuId) -> bool {
        if !self.spins {
            return false;
        }
        let st = &self.progs[p];
        match st.program.as_deref().and_then(|ops| ops.get(st.pc)) {
            Some(Op::SpinLockCpu { first_obj }) => {
                let obj = st.own.obj(*first_obj) + cpu;
                objects::spin_held_by_other(&self.objs[obj], p)
            }
            _ => false,
        }
    }

    /// Stop task `p`, whose program made no simulated time pass in MAX_INSTANT_OPS steps.
    fn stop_stuck(&mut self, sched: &mut Sched, p: TaskId, cpu: CpuId) -> Step {
        self.stuck.push(format!(
            "task '{}' ran {MAX_INSTANT_OPS} steps without simulated time passing; it was stopped",
            sched.tasks[p].comm
        ));
        self.exit(sched, p, cpu)
    }

    /// Task `p` exits on `cpu`, first waking whoever joins it.
    fn exit(&mut self, sched: &mut Sched, p: TaskId, cpu: CpuId) -> Step {
        if let Some(obj) = self.exit_posts[p] {
            let mut w = waker(sched, cpu, &mut self.woken_at);
            objects::sem_post(&mut w, &mut self.objs[obj as usize]);
        }
        sched.exit_current(cpu);
        Step::Exited
    }
}

impl Interpreter {
    /// rt-app `fork`: create a child from `template` on the parent's CPU and start it
    /// now (or at the template's delay from the start, if that is later). `false` when
    /// the template hit rt-app's fork limit: rt-app then exits, here the parent stops.
    fn fork(
        &mut self,
        sched: &mut Sched,
        workload: &Workload,
        parent: TaskId,
        cpu: CpuId,
        template: usize,
    ) -> bool {
        let t = &workload.templates[template];
        let nforks = self.fork_counts[template];
        if nforks >= FORKS_LIMIT {
            self.stuck.push(format!(
                "task '{}' forked '{}' {FORKS_LIMIT} times, rt-app's limit; it was stopped",
                sched.tasks[parent].comm, t.spec.attrs.comm
            ));
            return false;
        }
        self.fork_counts[template] += 1;
        let id = sched.tasks.len();
        let mut spec = t.spec.clone();
        spec.attrs.comm = format!(
            "{}-{}-{nforks:04}",
            t.spec.attrs.comm,
            id.saturating_sub(t.index_base)
        );
        // pthread_create inherits the parent's affinity; rt-app only changes it when
        // the task names `cpus`.
        if spec.attrs.cpus.is_none() {
            let allowed = &sched.tasks[parent].cpus_allowed;
            if allowed.iter().any(|a| !a) {
                spec.attrs.cpus = Some((0..allowed.len()).filter(|&c| allowed[c]).collect());
            }
        }
        // Each child gets fresh copies of the template's unique timers.
        let fresh: Vec<(usize, usize)> = t
            .private_timers
            .iter()
            .map(|&old| {
                self.timers.push(None);
                (old, self.timers.len() - 1)
            })
            .collect();
        let mut program = std::mem::take(&mut spec.program);
        for op in &mut program {
            if let Op::Timer { timer, .. } = op {
                if let Some(&(_, new)) = fresh.iter().find(|(old, _)| old == timer) {
                    *timer = new;
                }
            }
        }
        let child = sched.add_task(&spec.attrs);
        sched.set_working_set(child, spec.working_set_bytes);
        debug_assert_eq!(child, id);
        sched.sched_fork_on(child, cpu);
        self.progs.push(ProgState {
            program: Some(program.into()),
            pc: 0,
            loops: SmallVec::new(),
            own: Own::default(),
            partner: self.template_partners[template].clone(),
            start: spec.delay_ns,
            start_fixed: true,
            io: OpProgress::default(),
            stamps: Vec::new(),
            instant: (0, 0),
            spin_held: None,
        });
        self.woken_at.push(None);
        self.exit_posts.push(exit_post(&spec));
        self.spawned += 1;
        sched
            .events
            .push(sched.now.max(spec.delay_ns), Event::TaskStart(child));
        true
    }
}

/// The semaphore a task's exit posts, in the interpreter's u32 (check_objects keeps every
/// object index in u32).
fn exit_post(t: &crate::workload::TaskSpec) -> Option<u32> {
    t.exit_post.map(|o| o as u32)
}

fn waker<'a>(sched: &'a mut Sched, cpu: CpuId, woken_at: &'a mut [Option<Ns>]) -> Waker<'a> {
    Waker {
        sched,
        cpu,
        woken_at,
    }
}

/// The op at `pc − 1` must wait: sleep, and run it again when woken.
fn block_and_retry(sched: &mut Sched, st: &mut ProgState, cpu: CpuId) -> Step {
    st.pc -= 1;
    sched.block_current(cpu);
    Step::Continue
}

/// Each task with a creator is created exactly once, by an `Op::Create` in its creator's
/// program (a fork template creates none: its children are not declared tasks).
fn check_creates(workload: &Workload) -> Result<(), String> {
    let mut created = vec![0u32; workload.tasks.len()];
    for (i, t) in workload.tasks.iter().enumerate() {
        for op in &t.program {
            if let Op::Create { task } = *op {
                if workload.tasks.get(task).and_then(|c| c.created_by) != Some(i) {
                    return Err(format!(
                        "task '{}' creates task {task}, which does not name it as its creator",
                        t.attrs.comm
                    ));
                }
                created[task] += 1;
            }
        }
    }
    for t in &workload.templates {
        if t.spec
            .program
            .iter()
            .any(|op| matches!(op, Op::Create { .. }))
        {
            return Err(format!(
                "template '{}' creates a declared task",
                t.spec.attrs.comm
            ));
        }
    }
    for (task, t) in workload.tasks.iter().enumerate() {
        if t.created_by.is_some() && created[task] != 1 {
            return Err(format!(
                "task '{}' ({task}) is created {} times by its creator's program, not once",
                t.attrs.comm, created[task]
            ));
        }
    }
    Ok(())
}

/// Object `obj` exists, is of `kind` (check_objects' words) and has its capacity,
/// parties, max or threads.
fn is_kind(workload: &Workload, obj: usize, kind: &str) -> bool {
    use crate::workload::program::ObjectSpec as O;
    match (workload.objects.get(obj), kind) {
        (Some(O::Pipe { slots }), "a pipe or socket") => *slots > 0,
        (Some(O::UnixStream { sndbuf }), "a pipe or socket") => *sndbuf > 0,
        (Some(O::Mutex), "a mutex") => true,
        (Some(O::Barrier { parties }), "a barrier") => *parties > 0,
        (Some(O::WaitQueue), "a wait queue") => true,
        (Some(O::Semaphore { max, .. }), "a semaphore") => *max > 0,
        (Some(O::RequestList { .. }), "a request list") => true,
        (Some(O::HintSession { threads, .. }), "a hint session") => {
            threads.iter().all(|&t| t < workload.tasks.len())
        }
        _ => false,
    }
}

/// The hint session an op or timeout names (check_objects validated the kind).
fn hint_session(o: &mut ObjState) -> &mut objects::HintSession {
    match o {
        ObjState::HintSession(s) => s,
        _ => unreachable!("validated: a hint session"),
    }
}

/// Every op names an object (counter, log) that exists and has the right kind.
fn check_objects(workload: &Workload, nr_cpus: usize) -> Result<(), String> {
    // The interpreter keeps object and counter indices (own bases, exit posts) as u32.
    if workload.objects.len() > u32::MAX as usize || workload.counters.len() > u32::MAX as usize {
        return Err("more than 2^32 objects or counters".to_string());
    }
    let specs = workload
        .tasks
        .iter()
        .chain(workload.templates.iter().map(|t| &t.spec));
    for t in specs {
        if let Some(obj) = t.exit_post {
            if !is_kind(workload, obj, "a semaphore") {
                return Err(format!(
                    "task '{}': its exit posts object {obj}, which is not a semaphore",
                    t.attrs.comm
                ));
            }
        }
        let own = &t.private;
        if own.objs.end > workload.objects.len() || own.counters.end > workload.counters.len() {
            return Err(format!(
                "task '{}': its own objects {:?} or counters {:?} do not exist",
                t.attrs.comm, own.objs, own.counters
            ));
        }
    }
    for (comm, program) in workload.programs() {
        for (i, op) in program.iter().enumerate() {
            let bad = |what: String| Err(format!("task '{comm}' op {i}: {what}"));
            match op {
                Op::Timer { timer, .. } if *timer >= workload.timers.len() => {
                    return bad(format!(
                        "timer {timer} is not declared ({} timers)",
                        workload.timers.len()
                    ));
                }
                Op::Count { counter } if *counter >= workload.counters.len() => {
                    return bad(format!("counter {counter} does not exist"));
                }
                Op::Record { log, .. } if *log >= workload.logs.len() => {
                    return bad(format!("log {log} does not exist"));
                }
                Op::Fork { template } if *template >= workload.templates.len() => {
                    return bad(format!("fork template {template} does not exist"));
                }
                Op::SetMinFreq { cpu, .. } if *cpu >= nr_cpus => {
                    return bad(format!("cpufreq policy of CPU {cpu}: no such CPU"));
                }
                Op::Record {
                    since: Since::Timer(timer),
                    ..
                } if *timer >= workload.timers.len() => {
                    return bad(format!("timer {timer} is not declared"));
                }
                _ => {}
            }
            let want = match op {
                Op::Write { obj, .. } | Op::Read { obj, .. } | Op::Poll { obj } => {
                    vec![(*obj, "a pipe or socket")]
                }
                Op::Lock { obj } | Op::Unlock { obj } => vec![(*obj, "a mutex")],
                Op::SpinLockCpu { first_obj } => (*first_obj..first_obj + nr_cpus)
                    .map(|o| (o, "a mutex"))
                    .collect(),
                Op::BarrierWait { obj } => vec![(*obj, "a barrier")],
                Op::Wait { obj } | Op::Signal { obj } | Op::Broadcast { obj } => {
                    vec![(*obj, "a wait queue")]
                }
                Op::SemPost { obj } | Op::SemWait { obj } => vec![(*obj, "a semaphore")],
                Op::ReqPost { obj } | Op::ReqTake { obj, .. } => vec![(*obj, "a request list")],
                Op::HintFrameStart { obj } | Op::HintReport { obj } | Op::HintLoadReset { obj } => {
                    vec![(*obj, "a hint session")]
                }
                _ => continue,
            };
            for (obj, kind) in want {
                let ok = is_kind(workload, obj, kind);
                if !ok {
                    return bad(format!(
                        "object {obj} is not {kind} (or has no capacity/parties/max/threads)"
                    ));
                }
            }
        }
    }
    Ok(())
}
