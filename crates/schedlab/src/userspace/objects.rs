//! Blocking objects at run time: pipes/sockets, mutexes, barriers and wait queues. A task
//! that must wait is put to sleep and re-runs its op when woken (as a syscall retries
//! after its wait returns), so a spurious or stolen wake-up simply blocks again.

use crate::machine::CpuId;
use crate::sched::fair::class::wf;
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

/// PIPE_BUF: writes up to this size are atomic (all or wait).
pub const PIPE_BUF: u64 = 4096;

/// One object's state.
#[derive(Debug, Clone)]
pub enum ObjState {
    Pipe {
        capacity: u64,
        buffered: u64,
        readers: VecDeque<TaskId>,
        writers: VecDeque<TaskId>,
    },
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
}

impl ObjState {
    pub fn new(spec: &ObjectSpec) -> ObjState {
        match *spec {
            ObjectSpec::Pipe { capacity } => ObjState::Pipe {
                capacity,
                buffered: 0,
                readers: VecDeque::new(),
                writers: VecDeque::new(),
            },
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

/// write(2) to a pipe: as much as fits (all-or-nothing up to PIPE_BUF).
pub fn pipe_write(
    w: &mut Waker,
    obj: &mut ObjState,
    prog: &mut OpProgress,
    p: TaskId,
    bytes: u64,
) -> Outcome {
    let ObjState::Pipe {
        capacity,
        buffered,
        readers,
        writers,
    } = obj
    else {
        unreachable!("validated: a write targets a pipe");
    };
    let left = prog.bytes_left.unwrap_or(bytes);
    let room = *capacity - *buffered;
    // Atomicity is a property of the whole write(2), not of what is left of it.
    let n = if bytes <= PIPE_BUF && room < left {
        0
    } else {
        left.min(room)
    };
    *buffered += n;
    if n > 0 {
        // pipe_write → wake_up_interruptible_sync_poll: readers, WF_SYNC.
        w.wake_all(readers, wf::SYNC);
    }
    transfer_done(prog, left, n, writers, p)
}

/// Read `bytes` in full from a pipe, over as many partial reads as it takes.
pub fn pipe_read(
    w: &mut Waker,
    obj: &mut ObjState,
    prog: &mut OpProgress,
    p: TaskId,
    bytes: u64,
) -> Outcome {
    let ObjState::Pipe {
        buffered,
        readers,
        writers,
        ..
    } = obj
    else {
        unreachable!("validated: a read targets a pipe");
    };
    let left = prog.bytes_left.unwrap_or(bytes);
    let n = left.min(*buffered);
    *buffered -= n;
    if n > 0 {
        // pipe_read makes room: writers waiting for it are woken, WF_SYNC.
        w.wake_all(writers, wf::SYNC);
    }
    transfer_done(prog, left, n, readers, p)
}

/// After moving `n` of the `left` bytes: done, or remember the rest and wait in `queue`.
fn transfer_done(
    prog: &mut OpProgress,
    left: u64,
    n: u64,
    queue: &mut std::collections::VecDeque<TaskId>,
    p: TaskId,
) -> Outcome {
    if n == left {
        prog.bytes_left = None;
        return Outcome::Done;
    }
    prog.bytes_left = Some(left - n);
    queue.push_back(p);
    Outcome::Block
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

/// poll(POLLIN) on a pipe: done once it holds data; the pipe's data stays.
pub fn pipe_poll(obj: &mut ObjState, p: TaskId) -> Outcome {
    let ObjState::Pipe {
        buffered, readers, ..
    } = obj
    else {
        unreachable!("validated: poll targets a pipe");
    };
    if *buffered > 0 {
        return Outcome::Done;
    }
    // The poll wait queue is the readers' one (pipe->rd_wait): writes wake it, WF_SYNC.
    readers.push_back(p);
    Outcome::Block
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

/// Release a spinlock; spinners poll, so nobody is woken.
pub fn spin_unlock(obj: &mut ObjState, p: TaskId) {
    if let ObjState::Mutex { owner, .. } = obj {
        if *owner == Some(p) {
            *owner = None;
        }
    }
}
