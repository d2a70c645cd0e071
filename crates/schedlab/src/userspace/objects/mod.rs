//! Blocking objects at run time: pipes (`pipe.rs`), AF_UNIX stream sockets
//! (`unix_socket.rs`), mutexes, barriers and wait queues. A task that must wait is put to
//! sleep and re-runs its op when woken (as a syscall retries after its wait returns), so a
//! spurious or stolen wake-up simply blocks again.

pub mod hint_session;
pub mod pipe;
pub mod request_list;
pub mod unix_socket;

pub use hint_session::HintSession;
pub use pipe::{Pipe, PAGE_SIZE, PIPE_BUF};
pub use request_list::RequestList;
pub use unix_socket::{SkbsInFlight, UnixStream};

use crate::machine::CpuId;
use crate::sched::{Sched, TaskId, TaskState};
use crate::time::Ns;
use crate::workload::program::ObjectSpec;
use std::collections::VecDeque;

/// The context of an op that may wake other tasks: the kernel model, the CPU the waker
/// runs on, and when each task was last woken through an object (for `Since::Woken`).
pub struct Waker<'a> {
    pub sched: &'a mut Sched,
    pub cpu: CpuId,
    pub woken_at: &'a mut [Option<Ns>],
}

impl Waker<'_> {
    /// try_to_wake_up from the waker's CPU, noting when a sleeping task was woken.
    pub fn wake(&mut self, t: TaskId, flags: u32) {
        if self.sched.tasks[t].state == TaskState::Sleeping {
            self.woken_at[t] = Some(self.sched.now);
        }
        self.sched.try_to_wake_up(t, flags, self.cpu);
    }

    /// Wake every task in `q` (they re-run their ops).
    fn wake_all(&mut self, q: &mut VecDeque<TaskId>, flags: u32) {
        while let Some(t) = q.pop_front() {
            self.wake(t, flags);
        }
    }
}

/// Which CPU's cache holds an object's hot lines (its lock, queue head, counters,
/// wait-queue head). An op from another CPU pulls them over first: `ns` (the machine's
/// `pipe_bounce_ns` / `socket_bounce_ns`, measured between two cores of one LLC) scaled
/// by how far the lines travel (shared_line::transfer_ns ÷ cacheline_llc_ns), added to
/// the task's work like a migration's cache refill.
#[derive(Debug, Clone, Copy)]
pub struct HotLines(u32);

impl Default for HotLines {
    fn default() -> Self {
        HotLines(Self::NOWHERE)
    }
}

impl HotLines {
    /// Not used yet. A u32, not an Option<CpuId>: a quarter of the bytes, so a pipe's
    /// hot fields fit its first cache line.
    const NOWHERE: u32 = u32::MAX;

    fn touch(&mut self, w: &mut Waker, p: TaskId, ns: Ns) {
        let from = std::mem::replace(&mut self.0, w.cpu as u32);
        if from == Self::NOWHERE || from as CpuId == w.cpu {
            return;
        }
        let from = from as CpuId;
        let m = &w.sched.machine;
        let llc = m.costs.cacheline_llc_ns;
        if ns == 0 || llc == 0 {
            return;
        }
        let far = crate::sched::sim::shared_line::transfer_ns(m, from, w.cpu);
        w.sched.tasks[p].sim.cache_penalty_ns += ns * far / llc;
    }
}

/// A read or write of a pipe or socket uses its hot lines on the waker's CPU.
fn touch_lines(w: &mut Waker, obj: &mut ObjState, p: TaskId) {
    let costs = &w.sched.machine.costs;
    let (lines, ns) = match obj {
        ObjState::Pipe(pipe) => (&mut pipe.lines, costs.pipe_bounce_ns),
        ObjState::UnixStream(sock) => (&mut sock.lines, costs.socket_bounce_ns),
        _ => return,
    };
    lines.touch(w, p, ns);
}

/// A kernel wait_queue_head: non-exclusive entries (poll, prepare_to_wait) sit at the
/// head, exclusive ones (wait_event_*_exclusive) at the tail, and a wake-up takes every
/// non-exclusive waiter plus at most `nr_exclusive` exclusive ones, in queue order
/// (__wake_up_common). A woken entry leaves the queue (autoremove_wake_function); a task
/// that must wait again re-queues when it retries.
#[derive(Debug, Clone, Default)]
pub struct WaitHead {
    entries: VecDeque<(TaskId, bool)>,
}

impl WaitHead {
    /// add_wait_queue / prepare_to_wait: a non-exclusive waiter, at the head.
    pub fn add(&mut self, t: TaskId) {
        self.entries.push_front((t, false));
    }

    /// prepare_to_wait_exclusive: an exclusive waiter, at the tail.
    pub fn add_exclusive(&mut self, t: TaskId) {
        self.entries.push_back((t, true));
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// __wake_up_common: wake waiters from the head until `nr_exclusive` exclusive ones
    /// have been woken (0 = no limit). Returns how many were woken.
    pub fn wake(&mut self, w: &mut Waker, nr_exclusive: usize, flags: u32) -> usize {
        let mut woken = 0;
        let mut exclusive = 0;
        while let Some((t, excl)) = self.entries.pop_front() {
            w.wake(t, flags);
            woken += 1;
            if excl {
                exclusive += 1;
                if nr_exclusive > 0 && exclusive == nr_exclusive {
                    break;
                }
            }
        }
        woken
    }
}

/// One object's state. Two cache lines, aligned (`repr(C)`: the tag first, then the
/// variant): a pipe's or socket's hot fields in the first.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub enum ObjState {
    Pipe(Pipe),
    UnixStream(UnixStream),
    Mutex {
        owner: Option<TaskId>,
        waiters: VecDeque<TaskId>,
    },
    Barrier {
        parties: u32,
        arrived: Vec<TaskId>,
        /// Completed rounds; a waiter passes once this moves past its round.
        generation: u64,
    },
    WaitQueue {
        waiters: VecDeque<TaskId>,
    },
    Semaphore {
        count: u64,
        max: u64,
        waiters: VecDeque<TaskId>,
    },
    RequestList(RequestList),
    HintSession(Box<HintSession>),
}

impl ObjState {
    pub fn new(spec: &ObjectSpec) -> ObjState {
        match *spec {
            ObjectSpec::Pipe { slots } => ObjState::Pipe(Pipe::new(slots)),
            ObjectSpec::UnixStream { sndbuf } => ObjState::UnixStream(UnixStream::new(sndbuf)),
            ObjectSpec::Mutex => ObjState::Mutex {
                owner: None,
                waiters: VecDeque::new(),
            },
            ObjectSpec::Barrier { parties } => ObjState::Barrier {
                parties,
                arrived: Vec::new(),
                generation: 0,
            },
            ObjectSpec::WaitQueue => ObjState::WaitQueue {
                waiters: VecDeque::new(),
            },
            ObjectSpec::Semaphore { initial, max } => ObjState::Semaphore {
                count: initial.min(max),
                max,
                waiters: VecDeque::new(),
            },
            ObjectSpec::RequestList { max_pending } => {
                ObjState::RequestList(RequestList::new(max_pending))
            }
            ObjectSpec::HintSession {
                hal,
                threads,
                target_ns,
                refresh_hz,
                floor,
            } => ObjState::HintSession(Box::new(HintSession::new(
                hal, threads, target_ns, refresh_hz, floor,
            ))),
        }
    }
}

/// What an op on an object did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Finished; go on to the next op.
    Done,
    /// Made partial progress or none: the task sleeps and re-runs the op when woken.
    Block,
}

/// A task's progress inside a blocking op, kept across its sleeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpProgress {
    /// Bytes still to read or write.
    pub bytes_left: Option<u64>,
    /// The barrier round or wait-queue ticket the task is waiting for.
    pub waiting_for: Option<u64>,
}

/// write(2) of `bytes` to a pipe or stream socket (the rest of it, when resumed).
pub fn stream_write(
    w: &mut Waker,
    obj: &mut ObjState,
    skbs: &mut SkbsInFlight,
    prog: &mut OpProgress,
    p: TaskId,
    bytes: u64,
) -> Outcome {
    touch_lines(w, obj, p);
    match obj {
        ObjState::Pipe(pipe) => pipe.write(w, prog, p, bytes),
        ObjState::UnixStream(sock) => sock.write(w, skbs, prog, p, bytes),
        _ => unreachable!("validated: a write targets a pipe or socket"),
    }
}

/// Read `bytes` in full from a pipe or stream socket, over as many read(2)s as it takes.
pub fn stream_read(
    w: &mut Waker,
    obj: &mut ObjState,
    skbs: &mut SkbsInFlight,
    prog: &mut OpProgress,
    p: TaskId,
    bytes: u64,
) -> Outcome {
    touch_lines(w, obj, p);
    match obj {
        ObjState::Pipe(pipe) => pipe.read(w, prog, p, bytes),
        ObjState::UnixStream(sock) => sock.read(w, skbs, prog, p, bytes),
        _ => unreachable!("validated: a read targets a pipe or socket"),
    }
}

/// poll(POLLIN) on a pipe or stream socket: done once it holds data, which stays.
pub fn stream_poll(obj: &mut ObjState, p: TaskId) -> Outcome {
    match obj {
        ObjState::Pipe(pipe) => pipe.poll(p),
        ObjState::UnixStream(sock) => sock.poll(p),
        _ => unreachable!("validated: poll targets a pipe or socket"),
    }
}

pub fn mutex_lock(obj: &mut ObjState, p: TaskId) -> Outcome {
    let ObjState::Mutex { owner, waiters } = obj else {
        unreachable!("validated: lock targets a mutex");
    };
    match owner {
        None => {
            *owner = Some(p);
            Outcome::Done
        }
        Some(o) if *o == p => Outcome::Done,
        Some(_) => {
            waiters.push_back(p);
            Outcome::Block
        }
    }
}

pub fn mutex_unlock(w: &mut Waker, obj: &mut ObjState, p: TaskId) {
    let ObjState::Mutex { owner, waiters } = obj else {
        unreachable!("validated: unlock targets a mutex");
    };
    if *owner == Some(p) {
        *owner = None;
        // futex wake of one waiter; it retries the lock when it runs.
        if let Some(t) = waiters.pop_front() {
            w.wake(t, 0);
        }
    }
}

pub fn barrier_wait(
    w: &mut Waker,
    obj: &mut ObjState,
    prog: &mut OpProgress,
    p: TaskId,
) -> Outcome {
    let ObjState::Barrier {
        parties,
        arrived,
        generation,
    } = obj
    else {
        unreachable!("validated: barrier op targets a barrier");
    };
    if let Some(round) = prog.waiting_for {
        if *generation > round {
            prog.waiting_for = None;
            return Outcome::Done;
        }
        return Outcome::Block;
    }
    arrived.push(p);
    if arrived.len() as u32 >= *parties {
        *generation += 1;
        for t in std::mem::take(arrived) {
            if t != p {
                w.wake(t, 0);
            }
        }
        return Outcome::Done;
    }
    prog.waiting_for = Some(*generation);
    Outcome::Block
}

/// Wait on a queue until a signal names this task.
pub fn queue_wait(obj: &mut ObjState, prog: &mut OpProgress, p: TaskId) -> Outcome {
    let ObjState::WaitQueue { waiters } = obj else {
        unreachable!("validated: wait targets a wait queue");
    };
    match prog.waiting_for {
        // Signalled: a waker removed us from the queue.
        Some(_) if !waiters.contains(&p) => {
            prog.waiting_for = None;
            Outcome::Done
        }
        Some(_) => Outcome::Block,
        None => {
            waiters.push_back(p);
            prog.waiting_for = Some(0);
            Outcome::Block
        }
    }
}

/// Wake one (`all` = false) or every waiter of a queue.
pub fn queue_signal(w: &mut Waker, obj: &mut ObjState, all: bool) {
    let ObjState::WaitQueue { waiters } = obj else {
        unreachable!("validated: signal targets a wait queue");
    };
    if all {
        w.wake_all(waiters, 0);
    } else if let Some(t) = waiters.pop_front() {
        w.wake(t, 0);
    }
}

/// Post a semaphore: the count rises (up to `max`) and one waiter wakes to retry.
pub fn sem_post(w: &mut Waker, obj: &mut ObjState) {
    let ObjState::Semaphore {
        count,
        max,
        waiters,
    } = obj
    else {
        unreachable!("validated: post targets a semaphore");
    };
    *count = (*count + 1).min(*max);
    // futex wake of one waiter (not a sync wake-up).
    if let Some(t) = waiters.pop_front() {
        w.wake(t, 0);
    }
}

/// Take a semaphore, or queue up and sleep while its count is 0.
pub fn sem_wait(obj: &mut ObjState, p: TaskId) -> Outcome {
    let ObjState::Semaphore { count, waiters, .. } = obj else {
        unreachable!("validated: wait targets a semaphore");
    };
    if *count > 0 {
        *count -= 1;
        return Outcome::Done;
    }
    if !waiters.contains(&p) {
        waiters.push_back(p);
    }
    Outcome::Block
}

/// Try to take a spinlock (a mutex object spun on, never slept on).
pub fn spin_trylock(obj: &mut ObjState, p: TaskId) -> bool {
    let ObjState::Mutex { owner, .. } = obj else {
        unreachable!("validated: spinlock targets a mutex");
    };
    match owner {
        None => {
            *owner = Some(p);
            true
        }
        Some(o) => *o == p,
    }
}

/// Whether a spinlock is held by a task other than `p` (its trylock would fail).
pub fn spin_held_by_other(obj: &ObjState, p: TaskId) -> bool {
    matches!(obj, ObjState::Mutex { owner: Some(o), .. } if *o != p)
}

/// Release a spinlock; spinners poll, so nobody is woken.
pub fn spin_unlock(obj: &mut ObjState, p: TaskId) {
    if let ObjState::Mutex { owner, .. } = obj {
        if *owner == Some(p) {
            *owner = None;
        }
    }
}
