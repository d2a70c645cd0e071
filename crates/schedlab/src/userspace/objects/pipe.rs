//! Anonymous pipes as fs/pipe.c keeps them (v6.18): a ring of `max_usage` page-sized
//! buffers, small writes merged into the last page, and the wake-up rules of
//! pipe_write / pipe_read (docs/model.md, "Pipes").
//!
//! - A write first merges its sub-page remainder (`len % PAGE_SIZE`) into the last
//!   buffer when the pipe is not empty and the page has room after that buffer's data
//!   (PIPE_BUF_FLAG_CAN_MERGE, set on every anonymous-pipe buffer); the rest goes into new
//!   slots, a page at a time. A write of up to PIPE_BUF bytes that does not merge takes one
//!   whole slot, so it is atomic; a full ring makes the writer wait.
//! - Readers (rd_wait) are woken only when the pipe was empty before the write
//!   (`was_empty`), or on every write once the pipe has been polled (`poll_usage`).
//! - Writers wait exclusively on wr_wait; a read wakes one of them only when the ring was
//!   full when the read began (`was_full`). A writer or reader that waited and leaves room
//!   (data) behind wakes the next one (`wake_next_writer` / `wake_next_reader`).
//! - Every wake-up is wake_up_interruptible_sync_poll: WF_SYNC.

use super::{OpProgress, Outcome, WaitHead, Waker};
use crate::sched::fair::class::wf;
use crate::sched::TaskId;
use std::collections::VecDeque;

/// A pipe buffer's page.
pub const PAGE_SIZE: u64 = 4096;
/// PIPE_BUF: writes up to this size are atomic (one page, include/uapi/linux/limits.h).
pub const PIPE_BUF: u64 = 4096;

/// One struct pipe_buffer: `len` bytes of data starting `offset` bytes into its page
/// (both at most PAGE_SIZE).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct PipeBuf {
    offset: u32,
    len: u32,
}

/// One pipe_inode_info. `repr(C)`: what a read or write of one slot uses (the hot
/// lines' owner, the ring's size, the oldest slot, rd_wait) comes first, inside the
/// object's first cache line (docs/performance.md, Thirteenth round).
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Pipe {
    /// Where pipe->mutex and the ring's head/tail were last used.
    pub lines: super::HotLines,
    /// pipe->max_usage: slots the ring may hold (16 for a new pipe).
    max_usage: u32,
    /// pipe->poll_usage: set once anybody polled the pipe; from then on every write
    /// wakes rd_wait (pipe_write: "Epoll nonsensically wants a wakeup").
    poll_usage: bool,
    /// Occupied slots (pipe_occupancy).
    used: u32,
    /// The oldest occupied slot, inline: a pipe holding one slot (small messages merged
    /// into one page, the usual case) touches no line outside the pipe.
    first: PipeBuf,
    /// pipe->rd_wait: readers (exclusive) and pollers (non-exclusive).
    rd_wait: WaitHead,
    /// The occupied slots after `first`, oldest first.
    rest: VecDeque<PipeBuf>,
    /// pipe->wr_wait: writers waiting for a free slot (exclusive).
    wr_wait: WaitHead,
}

impl Pipe {
    pub fn new(slots: u32) -> Self {
        Pipe {
            lines: super::HotLines::default(),
            max_usage: slots,
            poll_usage: false,
            used: 0,
            first: PipeBuf::default(),
            rd_wait: WaitHead::default(),
            rest: VecDeque::new(),
            wr_wait: WaitHead::default(),
        }
    }

    /// The occupied slots, oldest first.
    fn slots(&self) -> impl Iterator<Item = &PipeBuf> {
        std::iter::once(&self.first)
            .take(self.used.min(1) as usize)
            .chain(&self.rest)
    }

    /// A new slot at the head.
    fn push_slot(&mut self, buf: PipeBuf) {
        if self.used == 0 {
            self.first = buf;
        } else {
            self.rest.push_back(buf);
        }
        self.used += 1;
    }

    /// The newest slot (a write merges into it).
    fn newest_slot(&mut self) -> Option<&mut PipeBuf> {
        match self.used {
            0 => None,
            1 => Some(&mut self.first),
            _ => self.rest.back_mut(),
        }
    }

    /// pipe_buf_release of the oldest slot.
    fn release_oldest(&mut self) {
        if self.used > 0 {
            self.first = self.rest.pop_front().unwrap_or_default();
            self.used -= 1;
        }
    }

    /// Bytes buffered.
    pub fn bytes(&self) -> u64 {
        self.slots().map(|b| u64::from(b.len)).sum()
    }

    /// Occupied slots (pipe_occupancy).
    pub fn slots_used(&self) -> usize {
        self.used as usize
    }

    /// Tasks waiting to read or poll, and to write.
    pub fn waiters(&self) -> (usize, usize) {
        (self.rd_wait.len(), self.wr_wait.len())
    }

    fn full(&self) -> bool {
        self.used >= self.max_usage
    }

    /// pipe_write. `prog.bytes_left` is set only while the task waits inside this
    /// write, so a retry with it set is the same syscall resuming after
    /// wait_event_interruptible_exclusive(wr_wait).
    pub fn write(
        &mut self,
        w: &mut Waker,
        prog: &mut OpProgress,
        p: TaskId,
        bytes: u64,
    ) -> Outcome {
        let resumed = prog.bytes_left.is_some();
        let mut left = prog.bytes_left.unwrap_or(bytes);
        let was_empty = self.used == 0;
        // pipe_write's merge path, tried once at the start of the syscall.
        let chars = left % PAGE_SIZE;
        if !resumed && chars > 0 && !was_empty {
            let last = self.newest_slot().expect("not empty");
            if u64::from(last.offset + last.len) + chars <= PAGE_SIZE {
                last.len += chars as u32;
                left -= chars;
            }
        }
        while left > 0 && !self.full() {
            // A fresh page takes up to PAGE_SIZE of what is left (copy_page_from_iter).
            let n = left.min(PAGE_SIZE);
            self.push_slot(PipeBuf {
                offset: 0,
                len: n as u32,
            });
            left -= n;
        }
        if left > 0 {
            // Full: wake readers if the pipe was empty, then wait exclusively for a slot.
            if was_empty {
                self.rd_wait.wake(w, 1, wf::SYNC);
            }
            prog.bytes_left = Some(left);
            self.wr_wait.add_exclusive(p);
            return Outcome::Block;
        }
        prog.bytes_left = None;
        // A writer that waited passes the wake-up on while room is left.
        let wake_next_writer = resumed && !self.full();
        if was_empty || self.poll_usage {
            self.rd_wait.wake(w, 1, wf::SYNC);
        }
        if wake_next_writer {
            self.wr_wait.wake(w, 1, wf::SYNC);
        }
        Outcome::Done
    }

    /// One or more read(2)s taking `bytes` in all. Every block here is a read that found
    /// the pipe empty and waited (wait_event_interruptible_exclusive on rd_wait); a read
    /// that got part of the bytes returns, and the next read(2) starts afresh.
    pub fn read(&mut self, w: &mut Waker, prog: &mut OpProgress, p: TaskId, bytes: u64) -> Outcome {
        let resumed = prog.bytes_left.is_some();
        let mut left = prog.bytes_left.unwrap_or(bytes);
        let was_full = self.full();
        let mut got = 0;
        while left > 0 {
            if self.used == 0 {
                break;
            }
            let buf = &mut self.first;
            let n = u64::from(buf.len).min(left);
            buf.offset += n as u32;
            buf.len -= n as u32;
            left -= n;
            got += n;
            if buf.len == 0 {
                // pipe_buf_release: the slot is free again.
                self.release_oldest();
            }
        }
        if got > 0 {
            // End of a read that returned data: writers only if the ring was full when
            // it began; the next reader if this one waited and data is left.
            let wake_next_reader = resumed && self.used > 0;
            if was_full {
                self.wr_wait.wake(w, 1, wf::SYNC);
            }
            if wake_next_reader {
                self.rd_wait.wake(w, 1, wf::SYNC);
            }
        }
        if left == 0 {
            prog.bytes_left = None;
            return Outcome::Done;
        }
        // Empty: this read (or the next read(2) of the loop) waits. A read that waits
        // with nothing read wakes writers only in the was_full corner case, which needs
        // zero-length buffers and cannot arise here.
        prog.bytes_left = Some(left);
        self.rd_wait.add_exclusive(p);
        Outcome::Block
    }

    /// pipe_poll for POLLIN: sets poll_usage and, while empty, waits non-exclusively on
    /// rd_wait.
    pub fn poll(&mut self, p: TaskId) -> Outcome {
        self.poll_usage = true;
        if self.used > 0 {
            return Outcome::Done;
        }
        self.rd_wait.add(p);
        Outcome::Block
    }
}
