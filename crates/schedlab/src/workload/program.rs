//! The task-program IR. The kernel model never sees it (docs/architecture.md): the
//! engine interprets a program and only asks the scheduler to run work, block and wake.

use crate::machine::CpuId;
pub use crate::sched::{Policy, SchedChange, TaskAttrs, UclampReq};
use crate::time::Ns;

/// Index offsets of one workload merged after others: its task, object, counter and log
/// indices all move up by these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Base {
    pub task: usize,
    pub obj: usize,
    pub counter: usize,
    pub log: usize,
}

impl Base {
    pub fn add(&mut self, other: &Base) {
        self.task += other.task;
        self.obj += other.obj;
        self.counter += other.counter;
        self.log += other.log;
    }
}

impl Private {
    fn shift(&mut self, base: &Base) {
        let objs = self.objs.start + base.obj..self.objs.end + base.obj;
        let counters = self.counters.start + base.counter..self.counters.end + base.counter;
        *self = Private { objs, counters };
    }
}

/// One `Op::Record` sample: when it was taken and the measured interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub at: Ns,
    pub value: Ns,
}

/// What the programs measured about themselves (counters and sample logs), read by the
/// front ends after the run; never read by the kernel model.
#[derive(Debug, Clone, Default)]
pub struct Probes {
    pub counters: Vec<u64>,
    pub logs: Vec<Vec<Sample>>,
}

/// rt-app timer modes (docs/rtapp.md, Events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerMode {
    /// Keep the grid: the next expiry is always previous + period, even when late.
    Absolute,
    /// When already late, re-base the grid at now (skip missed activations).
    Relative,
    /// A display's vsync as Choreographer sees it: expiries lie on a grid of `grid_ns`;
    /// when already late, fire at once for the latest grid point that has passed (missed
    /// vsyncs are skipped, the phase is kept).
    Vsync { grid_ns: Ns },
}

/// One step of a task program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Do `work_ns` of work measured on the reference CPU (capacity 1024, top frequency);
    /// takes longer on a smaller or slower CPU.
    Run {
        work_ns: Ns,
    },
    /// Stay busy for `ns` of wall-clock time whatever the CPU speed (rt-app `runtime`).
    RunWall {
        ns: Ns,
    },
    /// Sleep for `ns` from the start of this op.
    Sleep {
        ns: Ns,
    },
    /// Wait `ns` for IO (io_schedule: the wake-up carries the IO-wait frequency boost).
    IoWait {
        ns: Ns,
    },
    /// Sleep until the next expiry of timer `timer` (an index into `Workload::timers`),
    /// then advance it by `period_ns`.
    Timer {
        timer: usize,
        period_ns: Ns,
        mode: TimerMode,
    },
    /// sched_yield().
    Yield,
    /// write(2) of `bytes` to pipe/socket object `obj`: blocks while it is full (a pipe
    /// write of up to PIPE_BUF bytes waits for a whole free page slot, so it is atomic);
    /// wakes blocked readers as the kernel does for that transport (docs/model.md).
    Write {
        obj: usize,
        bytes: u64,
    },
    /// Read exactly `bytes` from pipe/socket `obj`, looping over partial reads as
    /// hackbench's receivers do; blocks while it is empty and wakes blocked writers as the
    /// transport does.
    Read {
        obj: usize,
        bytes: u64,
    },
    /// Take mutex `obj`, blocking (futex wait) while another task owns it.
    Lock {
        obj: usize,
    },
    /// Release mutex `obj` and wake one waiter.
    Unlock {
        obj: usize,
    },
    /// Wait at barrier `obj` until all its parties have arrived.
    BarrierWait {
        obj: usize,
    },
    /// Block on wait queue `obj` until signalled (futex wait / condition wait).
    Wait {
        obj: usize,
    },
    /// Wake one waiter of wait queue `obj` (futex wake 1 / condition signal).
    Signal {
        obj: usize,
    },
    /// Wake every waiter of wait queue `obj` (condition broadcast).
    Broadcast {
        obj: usize,
    },
    /// Change scheduling attributes (rt-app phase-level policy/priority/cpus); boxed: it
    /// is rare and larger than every other op, and a million-task program pays per op.
    SetSched(Box<SchedChange>),
    /// Start of a loop body executed `count` times (`None` = forever). Matched by the next
    /// unmatched `LoopEnd`.
    LoopBegin {
        count: Option<u64>,
    },
    LoopEnd,
    /// poll(2) for POLLIN on pipe/socket `obj`: blocks until it holds data, consumes nothing
    /// (hackbench's start gate: one byte wakes every poller).
    Poll {
        obj: usize,
    },
    /// Post semaphore `obj` (futex post / sem_post): the count rises, saturating at the
    /// semaphore's `max`, and one waiter is woken.
    SemPost {
        obj: usize,
    },
    /// Take semaphore `obj` (futex wait / sem_wait): blocks while its count is 0.
    SemWait {
        obj: usize,
    },
    /// Hand a request, stamped now, to request list `obj` (the 2021 schbench's
    /// allocate_request + request_add + fpost): skipped while the list's owner has more
    /// than its `max_pending` requests posted since it last took them; wakes the owner
    /// if it sleeps waiting for work.
    ReqPost {
        obj: usize,
    },
    /// Take the next request of list `obj` into stamp `slot` (its post time): from the
    /// batch taken last, else take every posted request as a new batch (request_splice,
    /// oldest first; the pending count restarts), else sleep until one is posted.
    ReqTake {
        obj: usize,
        slot: usize,
    },
    /// Take the spinlock of the CPU the task runs on, out of the per-CPU array of mutexes
    /// starting at object `first_obj`; while another task holds it, spin (busy work in
    /// `SPIN_QUANTUM_NS` steps) and retry, as a trylock loop does.
    SpinLockCpu {
        first_obj: usize,
    },
    /// Release the per-CPU spinlock this task took with `SpinLockCpu`.
    SpinUnlockCpu,
    /// Remember the current time in the task's stamp `slot` (gettimeofday into a local).
    Stamp {
        slot: usize,
    },
    /// Append a sample (now, now − since) to the workload log `log`. With
    /// `Since::Woken` a sample is taken only if an object woke the task since its last
    /// such sample; the origin is when the waker issued the wake-up.
    Record {
        log: usize,
        since: Since,
    },
    /// Add one to the workload counter `counter`.
    Count {
        counter: usize,
    },
    /// Create and start a new task from `Workload::templates[template]` (rt-app `fork`):
    /// it starts on the forking task's CPU, as a forked child does.
    Fork {
        template: usize,
    },
    /// pthread_create of workload task `task`, whose `created_by` names this task: the
    /// thread starts now, its placement from this task's CPU (wake_up_new_task while the
    /// creator runs, as clone() does).
    Create {
        task: usize,
    },
    /// Write `khz` to scaling_min_freq of the cpufreq policy of CPU `cpu` (0: the policy's
    /// lowest OPP), as a power HAL's boost does (docs/workloads.md, frames).
    SetMinFreq {
        cpu: usize,
        khz: u32,
    },
    /// hwui marks a frame's start (FrameStartTime) on ADPF hint session `obj`.
    HintFrameStart {
        obj: usize,
    },
    /// hwui reports the oldest started frame's actual work duration to session `obj`
    /// (reportActualWorkDuration); the power HAL writes the threads' uclamp.min.
    HintReport {
        obj: usize,
    },
    /// hwui's CPU_LOAD_RESET hint to session `obj`: a frame after idle.
    HintLoadReset {
        obj: usize,
    },
}

/// The origin of a `Record` sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// The task's own `Stamp` slot.
    Stamp(usize),
    /// The moment another task (or an object op) woke this one.
    Woken,
    /// The latest expiry of workload timer `timer` (the vsync a frame was intended for);
    /// no sample if the timer has not expired yet.
    Timer(usize),
}

impl Op {
    /// The shared object an op refers to, if any.
    pub fn object_mut(&mut self) -> Option<&mut usize> {
        match self {
            Op::Write { obj, .. }
            | Op::Read { obj, .. }
            | Op::Lock { obj }
            | Op::Unlock { obj }
            | Op::BarrierWait { obj }
            | Op::Wait { obj }
            | Op::Signal { obj }
            | Op::Broadcast { obj }
            | Op::Poll { obj }
            | Op::SemPost { obj }
            | Op::SemWait { obj }
            | Op::ReqPost { obj }
            | Op::ReqTake { obj, .. }
            | Op::SpinLockCpu { first_obj: obj }
            | Op::HintFrameStart { obj }
            | Op::HintReport { obj }
            | Op::HintLoadReset { obj } => Some(obj),
            _ => None,
        }
    }
}

/// One task to create at `delay_ns` after the start of the simulation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSpec {
    /// Name and scheduling attributes the task is created with.
    pub attrs: TaskAttrs,
    pub delay_ns: Ns,
    /// The program; when it ends, the task exits.
    pub program: Vec<Op>,
    /// Bytes of cache a migration must refill for it, when the workload knows them
    /// (docs/model.md, Hardware costs); `None`: the machine's flat refill.
    pub working_set_bytes: Option<u64>,
    /// The workload task that creates this one (pthread_create in a tool's own thread):
    /// it has no start time of its own; it starts when the creator's program reaches its
    /// `Op::Create`, placed from the creator's CPU, as sched_fork sets the child's CPU to
    /// the parent's. `None`: started at `delay_ns` from its first allowed CPU.
    pub created_by: Option<usize>,
    /// A semaphore posted when the task exits, before the exit itself: pthread_join's
    /// wake-up (the kernel clears the thread's tid and futex-wakes it at exit,
    /// mm_release). A property of the task, not an op, so tasks whose programs differ
    /// only in whom their exit wakes share one program.
    pub exit_post: Option<usize>,
    /// The objects and counters only this task's program names (a tool instance's own
    /// pipe or counter). The interpreter numbers them from the task's own first one, so
    /// instances whose programs differ only there run one copy of the program.
    pub private: Private,
}

/// Index ranges of a task's own objects and counters (TaskSpec::private).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Private {
    pub objs: std::ops::Range<usize>,
    pub counters: std::ops::Range<usize>,
}

impl TaskSpec {
    /// A SCHED_NORMAL nice-0 task named `comm`, allowed everywhere, started at t=0.
    pub fn new(comm: impl Into<String>, program: Vec<Op>) -> Self {
        TaskSpec {
            attrs: TaskAttrs::new(comm),
            delay_ns: 0,
            program,
            working_set_bytes: None,
            created_by: None,
            exit_post: None,
            private: Private::default(),
        }
    }

    pub fn nice(mut self, nice: i32) -> Self {
        self.attrs.nice = nice;
        self
    }

    pub fn policy(mut self, policy: Policy) -> Self {
        self.attrs.policy = policy;
        self
    }

    /// A real-time policy (SCHED_FIFO / SCHED_RR) at sched_priority `prio` (1..=99).
    pub fn rt(mut self, policy: Policy, prio: u32) -> Self {
        self.attrs.policy = policy;
        self.attrs.rt_priority = prio;
        self
    }

    /// SCHED_DEADLINE with these parameters.
    pub fn deadline(mut self, dl: crate::sched::DlParams) -> Self {
        self.attrs.policy = Policy::Deadline;
        self.attrs.dl = Some(dl);
        self
    }

    /// Allowed CPUs (`None` = all).
    pub fn cpus(mut self, cpus: Option<Vec<CpuId>>) -> Self {
        self.attrs.cpus = cpus;
        self
    }

    /// A custom slice (sched_attr.sched_runtime), ns; `None` = the base slice.
    pub fn slice(mut self, ns: Option<Ns>) -> Self {
        self.attrs.slice_ns = ns;
        self
    }

    pub fn uclamp(mut self, uclamp: UclampReq) -> Self {
        self.attrs.uclamp = uclamp;
        self
    }

    /// Start `ns` after t=0.
    pub fn delay(mut self, ns: Ns) -> Self {
        self.delay_ns = ns;
        self
    }

    /// Created by workload task `parent` (an index into the same workload's tasks), whose
    /// program starts it with `Op::Create`.
    pub fn created_by(mut self, parent: usize) -> Self {
        self.created_by = Some(parent);
        self
    }

    /// Post semaphore `obj` when the task exits (pthread_join's wake).
    pub fn exit_post(mut self, obj: usize) -> Self {
        self.exit_post = Some(obj);
        self
    }

    /// Objects `objs` and counters `counters` are this task's own (TaskSpec::private).
    pub fn private(
        mut self,
        objs: std::ops::Range<usize>,
        counters: std::ops::Range<usize>,
    ) -> Self {
        self.private = Private { objs, counters };
        self
    }

    /// Its working set, for the migration refill.
    pub fn working_set(mut self, bytes: u64) -> Self {
        self.working_set_bytes = Some(bytes);
        self
    }
}

/// A task created at run time by `Op::Fork` (rt-app `fork`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskTemplate {
    /// The task to create; its `comm` is the base name, and each child is named
    /// `<comm>-<index>-<forkid>` with forkid counted per template (four digits, as
    /// rt-app prints it).
    pub spec: TaskSpec,
    /// Timers each child gets a fresh copy of (rt-app `unique*` refs), by index into
    /// `Workload::timers`; the copies start unused.
    pub private_timers: Vec<usize>,
    /// A child's `<index>` is its task id minus this: the number of tasks created before
    /// this workload's, so indices continue the workload's own thread numbering.
    pub index_base: usize,
}

/// A shared or per-task periodic timer (rt-app `timer` ref).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerSpec {
    pub name: String,
}

/// A shared blocking object the ops refer to by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectSpec {
    /// An anonymous pipe of `slots` page-sized buffers (PIPE_DEF_BUFFERS = 16 by
    /// default; F_SETPIPE_SZ gives a power of two): fs/pipe.c's accounting and wake-ups.
    Pipe {
        slots: u32,
    },
    /// One direction of an AF_UNIX SOCK_STREAM socketpair: every writer holds the sending
    /// end (whose `sndbuf` bounds the truesize of the skbs in flight, net.core.wmem_default
    /// by default), every reader the receiving end; net/unix/af_unix.c's wake-ups.
    UnixStream {
        sndbuf: u64,
    },
    Mutex,
    /// A barrier that releases once `parties` tasks wait at it.
    Barrier {
        parties: u32,
    },
    /// A futex / condition-variable wait queue.
    WaitQueue,
    /// A counting semaphore starting at `initial` whose count never exceeds `max` (a
    /// futex word used as a binary "posted" flag has `max` 1).
    Semaphore {
        initial: u64,
        max: u64,
    },
    /// One worker's request list (the 2021 schbench's per-thread `request` list and
    /// futex): posts carry their time; more than `max_pending` posts since the owner last
    /// took the list are dropped.
    RequestList {
        max_pending: u64,
    },
    /// An ADPF performance hint session of `threads` (UI thread, RenderThread) as the
    /// Pixel power HAL `hal` serves it at `refresh_hz` (its AdpfConfig profile), with
    /// hwui's target work duration; the HAL's uclamp.min writes never go under `floor`
    /// (userspace/objects/hint_session.rs).
    HintSession {
        hal: PowerHal,
        threads: [usize; 2],
        target_ns: Ns,
        refresh_hz: u32,
        floor: u32,
    },
}

/// Which Pixel power HAL serves an ADPF hint session (userspace/objects/hint_session.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowerHal {
    /// Android 12's (lineage-19.1): the PID's output is the value; no session hints.
    Android12,
    /// Android 14's (lineage-21.0): votes, the PID's steps, the load reset.
    Android14,
}

/// PIPE_DEF_BUFFERS (include/linux/pipe_fs_i.h): a new pipe's page slots.
pub const PIPE_DEF_BUFFERS: u32 = 16;
/// net.core.wmem_default, the sk_sndbuf a new AF_UNIX socket gets (212992 B on x86-64;
/// read on a 6.18 host from /proc/sys/net/core/wmem_default).
pub const UNIX_SNDBUF_DEFAULT: u64 = 212_992;

impl ObjectSpec {
    /// A new pipe as pipe(2) makes it: 16 slots of 4 KiB.
    pub fn pipe() -> Self {
        ObjectSpec::Pipe {
            slots: PIPE_DEF_BUFFERS,
        }
    }

    /// A new socketpair(AF_UNIX, SOCK_STREAM) direction with the default send buffer.
    pub fn unix_stream() -> Self {
        ObjectSpec::UnixStream {
            sndbuf: UNIX_SNDBUF_DEFAULT,
        }
    }

    /// A pipe or a stream socket: the objects `Write`, `Read` and `Poll` act on.
    pub fn is_stream(&self) -> bool {
        matches!(
            self,
            ObjectSpec::Pipe { .. } | ObjectSpec::UnixStream { .. }
        )
    }
}

/// A complete workload: tasks plus the objects they share.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workload {
    pub tasks: Vec<TaskSpec>,
    pub timers: Vec<TimerSpec>,
    /// Pipes, mutexes, barriers and wait queues, indexed by the ops' `obj`.
    pub objects: Vec<ObjectSpec>,
    /// The workload's own length (rt-app `global.duration`), if it sets one.
    pub duration_ns: Option<Ns>,
    /// Names of the counters `Op::Count` adds to (front ends read them after the run).
    pub counters: Vec<String>,
    /// Names of the sample logs `Op::Record` appends to.
    pub logs: Vec<String>,
    /// Tasks that `Op::Fork` creates at run time, indexed by the op's `template`.
    pub templates: Vec<TaskTemplate>,
    /// Task index → cgroup path, for tasks a front end puts in a group (rt-app
    /// `taskgroup`); the scenario's `[cgroups]` globs add more (docs/scenario.md).
    pub cgroups: std::collections::BTreeMap<usize, String>,
    /// First task index of each session after the first (autogroup: one session per
    /// merged `-w` workload; a workload built by one front end is one session).
    pub session_starts: Vec<usize>,
}

impl Workload {
    /// The session (0-based) task `i` belongs to.
    pub fn session_of(&self, i: usize) -> usize {
        self.session_starts.iter().filter(|&&s| s <= i).count()
    }

    /// Merge another workload into this one (several `-w` flags): tasks append, timer
    /// indices are shifted, the shorter declared duration wins; the merged tasks start a
    /// new session. Returns the offsets the other workload's indices moved by.
    pub fn merge(&mut self, other: Workload) -> Base {
        let shift = self.timers.len();
        let base = Base {
            task: self.tasks.len(),
            obj: self.objects.len(),
            counter: self.counters.len(),
            log: self.logs.len(),
        };
        let template_shift = self.templates.len();
        self.timers.extend(other.timers);
        self.objects.extend(other.objects.into_iter().map(|mut o| {
            if let ObjectSpec::HintSession { threads, .. } = &mut o {
                for t in threads {
                    *t += base.task;
                }
            }
            o
        }));
        self.counters.extend(other.counters);
        self.logs.extend(other.logs);
        if base.task > 0 || !self.session_starts.is_empty() {
            self.session_starts.push(base.task);
        }
        self.session_starts
            .extend(other.session_starts.iter().map(|s| s + base.task));
        for (i, path) in other.cgroups {
            self.cgroups.insert(i + base.task, path);
        }
        let relocate = |program: &mut Vec<Op>| {
            for op in program {
                match op {
                    Op::Timer { timer, .. } => *timer += shift,
                    Op::Count { counter } => *counter += base.counter,
                    Op::Record { log, since } => {
                        *log += base.log;
                        if let Since::Timer(t) = since {
                            *t += shift;
                        }
                    }
                    Op::Fork { template } => *template += template_shift,
                    Op::Create { task } => *task += base.task,
                    _ => {}
                }
                if let Some(obj) = op.object_mut() {
                    *obj += base.obj;
                }
            }
        };
        for mut t in other.tasks {
            relocate(&mut t.program);
            if let Some(c) = t.created_by.as_mut() {
                *c += base.task;
            }
            if let Some(o) = t.exit_post.as_mut() {
                *o += base.obj;
            }
            t.private.shift(&base);
            self.tasks.push(t);
        }
        for mut t in other.templates {
            relocate(&mut t.spec.program);
            if let Some(o) = t.spec.exit_post.as_mut() {
                *o += base.obj;
            }
            t.spec.private.shift(&base);
            for timer in &mut t.private_timers {
                *timer += shift;
            }
            t.index_base += base.task;
            self.templates.push(t);
        }
        self.duration_ns = match (self.duration_ns, other.duration_ns) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        base
    }

    /// Every program: the tasks' and the fork templates'.
    pub fn programs(&self) -> impl Iterator<Item = (&str, &[Op])> {
        let tasks = self.tasks.iter();
        let templates = self.templates.iter().map(|t| &t.spec);
        tasks
            .chain(templates)
            .map(|t| (t.attrs.comm.as_str(), t.program.as_slice()))
    }
}

/// For each `LoopBegin`, the index of its `LoopEnd`, and vice versa; `Err` names the first
/// unbalanced op. Front ends must only emit balanced programs.
pub fn match_loops(program: &[Op]) -> Result<Vec<usize>, String> {
    let mut partner = vec![usize::MAX; program.len()];
    let mut stack = Vec::new();
    for (i, op) in program.iter().enumerate() {
        match op {
            Op::LoopBegin { .. } => stack.push(i),
            Op::LoopEnd => {
                let b = stack
                    .pop()
                    .ok_or(format!("op {i}: LoopEnd without LoopBegin"))?;
                partner[b] = i;
                partner[i] = b;
            }
            _ => {}
        }
    }
    match stack.pop() {
        Some(b) => Err(format!("op {b}: LoopBegin without LoopEnd")),
        None => Ok(partner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merged_hint_session_names_its_threads_where_they_moved() {
        let mut a = Workload {
            tasks: (0..3)
                .map(|i| TaskSpec::new(format!("t{i}"), vec![]))
                .collect(),
            objects: vec![ObjectSpec::Mutex],
            ..Workload::default()
        };
        let b = Workload {
            tasks: vec![
                TaskSpec::new("ui", vec![Op::HintFrameStart { obj: 0 }]),
                TaskSpec::new("rt", vec![Op::HintReport { obj: 0 }]),
            ],
            objects: vec![ObjectSpec::HintSession {
                hal: PowerHal::Android14,
                threads: [0, 1],
                target_ns: 11_666_666,
                refresh_hz: 60,
                floor: 0,
            }],
            ..Workload::default()
        };
        a.merge(b);
        assert_eq!(
            a.objects[1],
            ObjectSpec::HintSession {
                hal: PowerHal::Android14,
                threads: [3, 4],
                target_ns: 11_666_666,
                refresh_hz: 60,
                floor: 0,
            }
        );
        assert_eq!(a.tasks[3].program, [Op::HintFrameStart { obj: 1 }]);
    }
}
