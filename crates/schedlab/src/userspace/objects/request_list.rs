//! One worker's request list in the 2021 schbench's `-R` mode (masoncl/schbench at
//! 2eef447, run_rps_thread / msg_and_wait): the message thread pushes timestamped
//! requests with a CAS (request_add) and posts the worker's futex; the worker, when it
//! has finished its batch, resets its pending count, swaps the whole list out
//! (request_splice, then reversed so the oldest comes first) and works through it, and
//! sleeps on its futex when the list was empty.

use super::{Outcome, Waker};
use crate::sched::TaskId;
use crate::time::Ns;
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct RequestList {
    /// Posts skipped while `pending` exceeds this (`worker->pending > 8`).
    max_pending: u64,
    /// Posts since the owner last took the list (`td->pending`).
    pending: u64,
    /// Posted, not yet taken: post times, oldest first.
    posted: VecDeque<Ns>,
    /// Taken, not yet worked through.
    batch: VecDeque<Ns>,
    /// The owner, asleep in fwait.
    sleeper: Option<TaskId>,
}

impl RequestList {
    pub fn new(max_pending: u64) -> Self {
        RequestList {
            max_pending,
            pending: 0,
            posted: VecDeque::new(),
            batch: VecDeque::new(),
            sleeper: None,
        }
    }

    /// allocate_request + request_add + fpost, at `now`.
    pub fn post(&mut self, w: &mut Waker, now: Ns) {
        if self.pending > self.max_pending {
            return;
        }
        self.pending += 1;
        self.posted.push_back(now);
        // fpost: the futex goes BLOCKED → RUNNING and the sleeper is woken (no WF_SYNC).
        if let Some(t) = self.sleeper.take() {
            w.wake(t, 0);
        }
    }

    /// The next request's post time, or sleep until one is posted.
    pub fn take(&mut self, p: TaskId) -> Result<Ns, Outcome> {
        if self.batch.is_empty() {
            // msg_and_wait: pending = 0, then request_splice.
            self.pending = 0;
            std::mem::swap(&mut self.batch, &mut self.posted);
        }
        match self.batch.pop_front() {
            Some(at) => Ok(at),
            None => {
                self.sleeper = Some(p);
                Err(Outcome::Block)
            }
        }
    }
}
