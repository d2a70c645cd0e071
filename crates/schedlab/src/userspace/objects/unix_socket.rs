//! One direction of an AF_UNIX SOCK_STREAM socketpair as net/unix/af_unix.c runs it
//! (v6.18; docs/model.md, "AF_UNIX stream sockets"): each send queues skbs on the
//! receiver, each charged at its truesize to the sending socket's sk_wmem_alloc, which
//! sk_sndbuf bounds.
//!
//! - unix_stream_sendmsg cuts a write into skbs of at most min(sk_sndbuf/2 − 64,
//!   SKB_MAX_HEAD(0) + UNIX_SKB_FRAGS_SZ) bytes; sock_alloc_send_pskb lets each one
//!   through while sk_wmem_alloc < sk_sndbuf (so the last may overshoot) and otherwise
//!   waits in sock_wait_for_wmem (prepare_to_wait: non-exclusive, every blocked writer).
//! - After queueing each skb, the receiver's sk_data_ready (sock_def_readable) wakes
//!   every sleeper of the receiving socket (readers and pollers), WF_SYNC.
//! - The reader frees an skb once it has consumed all of it; sock_wfree then calls
//!   unix_write_space, which wakes every waiting writer (WF_SYNC) once the socket is
//!   writable: sk_wmem_alloc's refcount × 4 ≤ sk_sndbuf (unix_writable), the refcount
//!   being the bytes in flight + 2 at that point (the base reference and the one
//!   sock_wfree keeps across the call).
//!
//! - With many skbs in flight their lines leave the core's caches: each skb a send
//!   queues and each a receive consumes costs extra CPU time (`cold_skb_ns`), from the
//!   truesize of every skb in flight on the machine (`SkbsInFlight`).
//!
//! truesize, as sock_alloc_send_pskb → alloc_skb_with_frags builds the skb on x86-64:
//! the linear head of `h` bytes is a kmalloc of SKB_DATA_ALIGN(h) + 320 (struct
//! skb_shared_info, 64-byte aligned) rounded up to its slab size, plus 256 for struct
//! sk_buff, plus the page-rounded paged part. A 1–192-byte message is 768 B, 1000 B is
//! 2304 B, 4000 B is 4864 B, 8192 B is 8960 B — the values SIOCOUTQ reports after one
//! send on a 6.18 x86-64 host, where 278 sends of 100 B fill the default 212992-B buffer.

use super::{OpProgress, Outcome, WaitHead, Waker};
use crate::sched::fair::class::wf;
use crate::sched::TaskId;
use crate::time::Ns;
use std::collections::VecDeque;

/// The truesize of every AF_UNIX skb queued on the machine, in bytes: the footprint that
/// decides whether a send or receive finds its skb's lines in the caches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkbsInFlight(pub u64);

/// The extra CPU time of touching one skb with `in_flight` bytes of skbs queued on a
/// machine of `cores` cores whose caches hold `cache_bytes` of them a core: `cold_ns` ×
/// the share of the bytes beyond what the caches hold, (F − cache_bytes·cores) ÷ F, and
/// nothing while they fit (Costs::socket_send_cold_ns; docs/model.md).
pub fn cold_skb_ns(cold_ns: Ns, cache_bytes: u64, cores: u64, in_flight: u64) -> Ns {
    let held = u128::from(cache_bytes) * u128::from(cores);
    let f = u128::from(in_flight);
    if cold_ns == 0 || f <= held {
        return 0;
    }
    (u128::from(cold_ns) * (f - held) / f) as Ns
}

/// Charge task `p` for touching one skb with `in_flight` bytes queued (`cold_ns` being
/// the machine's send or receive figure), as extra work like a hot line's bounce.
fn charge_cold(w: &mut Waker, p: TaskId, cold_ns: Ns, in_flight: u64) {
    // Off on every preset: leave the task's state untouched on the hot path.
    if cold_ns == 0 {
        return;
    }
    let costs = &w.sched.machine.costs;
    let cores = w.sched.nr_cores();
    let ns = cold_skb_ns(cold_ns, costs.socket_cache_bytes, cores, in_flight);
    w.sched.tasks[p].sim.cache_penalty_ns += ns;
}

const PAGE_SIZE: u64 = 4096;
/// SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64 (MAX_SKB_FRAGS 17).
pub const SKB_SHINFO_SIZE: u64 = 320;
/// SKB_DATA_ALIGN(sizeof(struct sk_buff)) on x86-64.
pub const SKB_STRUCT_SIZE: u64 = 256;
/// SKB_MAX_HEAD(0): the largest linear head in one page.
pub const SKB_MAX_HEAD0: u64 = PAGE_SIZE - SKB_SHINFO_SIZE;
/// UNIX_SKB_FRAGS_SZ: the paged part of one skb, at most 32 KiB.
pub const UNIX_SKB_FRAGS_SZ: u64 = 32_768;

/// SKB_DATA_ALIGN: round up to the 64-byte cache line.
fn skb_data_align(x: u64) -> u64 {
    x.div_ceil(64) * 64
}

/// kmalloc_size_roundup: the size of the slab object a kmalloc of `x` bytes gets.
fn kmalloc_size_roundup(x: u64) -> u64 {
    const CACHES: [u64; 13] = [
        8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
    ];
    CACHES
        .iter()
        .copied()
        .find(|&c| c >= x)
        .unwrap_or_else(|| x.div_ceil(PAGE_SIZE) * PAGE_SIZE)
}

/// The truesize of the skb unix_stream_sendmsg allocates for `size` bytes (already cut
/// to at most one skb's worth).
pub fn skb_truesize(size: u64) -> u64 {
    let data_len = size.min(size.saturating_sub(SKB_MAX_HEAD0).div_ceil(PAGE_SIZE) * PAGE_SIZE);
    let header = size - data_len;
    let head = kmalloc_size_roundup(skb_data_align(header) + SKB_SHINFO_SIZE);
    head + SKB_STRUCT_SIZE + data_len.div_ceil(PAGE_SIZE) * PAGE_SIZE
}

/// The payload bytes of the next skb of a send with `left` bytes to go.
fn skb_size(left: u64, sndbuf: u64) -> u64 {
    left.min(((sndbuf >> 1).saturating_sub(64)).max(1))
        .min(SKB_MAX_HEAD0 + UNIX_SKB_FRAGS_SZ)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Skb {
    /// Payload not yet read.
    len: u64,
    truesize: u64,
}

/// The sending socket's send-buffer accounting and the receiving socket's queue.
#[derive(Debug, Clone)]
pub struct UnixStream {
    /// sk_sndbuf of the sending socket.
    sndbuf: u64,
    /// sk_wmem_alloc of the sending socket, less its base reference: truesize in flight.
    wmem_alloc: u64,
    /// The receiving socket's sk_receive_queue.
    queue: VecDeque<Skb>,
    /// The receiving socket's wait queue: readers and pollers (non-exclusive).
    rd_wait: WaitHead,
    /// The sending socket's wait queue: writers waiting for send-buffer space.
    wr_wait: WaitHead,
    /// Where the receive queue's lock, the peer's state lock and sk_wmem_alloc were last
    /// used.
    pub lines: super::HotLines,
}

impl UnixStream {
    pub fn new(sndbuf: u64) -> Self {
        UnixStream {
            sndbuf,
            wmem_alloc: 0,
            queue: VecDeque::new(),
            rd_wait: WaitHead::default(),
            wr_wait: WaitHead::default(),
            lines: super::HotLines::default(),
        }
    }

    /// sk_wmem_alloc_get of the sending socket (what SIOCOUTQ reports).
    pub fn wmem_alloc(&self) -> u64 {
        self.wmem_alloc
    }

    /// Skbs queued on the receiver.
    pub fn skbs(&self) -> usize {
        self.queue.len()
    }

    /// Tasks waiting to read or poll, and to write.
    pub fn waiters(&self) -> (usize, usize) {
        (self.rd_wait.len(), self.wr_wait.len())
    }

    /// unix_stream_sendmsg of `bytes` (the rest of them, when resumed after a wait).
    pub fn write(
        &mut self,
        w: &mut Waker,
        skbs: &mut SkbsInFlight,
        prog: &mut OpProgress,
        p: TaskId,
        bytes: u64,
    ) -> Outcome {
        let mut left = prog.bytes_left.unwrap_or(bytes);
        while left > 0 {
            // sock_alloc_send_pskb: wait while the send buffer is used up.
            if self.wmem_alloc >= self.sndbuf {
                prog.bytes_left = Some(left);
                self.wr_wait.add(p);
                return Outcome::Block;
            }
            let size = skb_size(left, self.sndbuf);
            let truesize = skb_truesize(size);
            self.wmem_alloc += truesize;
            self.queue.push_back(Skb {
                len: size,
                truesize,
            });
            skbs.0 += truesize;
            charge_cold(w, p, w.sched.machine.costs.socket_send_cold_ns, skbs.0);
            left -= size;
            // other->sk_data_ready: sock_def_readable wakes every sleeper, sync.
            self.rd_wait.wake(w, 0, wf::SYNC);
        }
        prog.bytes_left = None;
        Outcome::Done
    }

    /// unix_stream_recvmsg until `bytes` have been read (over partial reads).
    pub fn read(
        &mut self,
        w: &mut Waker,
        skbs: &mut SkbsInFlight,
        prog: &mut OpProgress,
        p: TaskId,
        bytes: u64,
    ) -> Outcome {
        let mut left = prog.bytes_left.unwrap_or(bytes);
        while left > 0 {
            let Some(skb) = self.queue.front_mut() else {
                break;
            };
            let n = skb.len.min(left);
            skb.len -= n;
            left -= n;
            if skb.len == 0 {
                // consume_skb → sock_wfree → unix_write_space.
                let truesize = skb.truesize;
                self.queue.pop_front();
                self.wmem_alloc -= truesize;
                charge_cold(w, p, w.sched.machine.costs.socket_recv_cold_ns, skbs.0);
                skbs.0 -= truesize;
                if (self.wmem_alloc + 2) << 2 <= self.sndbuf {
                    self.wr_wait.wake(w, 0, wf::SYNC);
                }
            }
        }
        if left == 0 {
            prog.bytes_left = None;
            return Outcome::Done;
        }
        // unix_stream_data_wait: prepare_to_wait, non-exclusive.
        prog.bytes_left = Some(left);
        self.rd_wait.add(p);
        Outcome::Block
    }

    /// unix_poll for POLLIN: readable while the receive queue holds an skb.
    pub fn poll(&mut self, p: TaskId) -> Outcome {
        if !self.queue.is_empty() {
            return Outcome::Done;
        }
        self.rd_wait.add(p);
        Outcome::Block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cold_skb_costs_the_share_of_the_footprint_beyond_the_caches() {
        // 1 MiB held a core on 2 cores: nothing up to 2 MiB in flight.
        let mib = 1 << 20;
        assert_eq!(cold_skb_ns(800, mib, 2, 0), 0);
        assert_eq!(cold_skb_ns(800, mib, 2, 2 * mib), 0);
        // 8 MiB in flight: three quarters of the skbs' lines are beyond the caches.
        assert_eq!(cold_skb_ns(800, mib, 2, 8 * mib), 600);
        // Rounded down: 800 × (3 MiB − 2 MiB) ÷ 3 MiB = 266.67.
        assert_eq!(cold_skb_ns(800, mib, 2, 3 * mib), 266);
        // Off (the presets' 0), and no cache at all: every skb pays the whole cost.
        assert_eq!(cold_skb_ns(0, mib, 2, 64 * mib), 0);
        assert_eq!(cold_skb_ns(800, 0, 2, 768), 800);
        // No overflow at a terabyte in flight.
        assert_eq!(cold_skb_ns(1_000, 0, 4096, 1 << 40), 1_000);
    }

    #[test]
    fn truesize_matches_siocoutq_on_a_618_host() {
        // Measured: SIOCOUTQ after one send on a fresh socketpair, Linux 6.18 x86-64.
        for (size, truesize) in [
            (1, 768),
            (100, 768),
            (1000, 2304),
            (4000, 4864),
            (4096, 4864),
            (8192, 8960),
        ] {
            assert_eq!(skb_truesize(size), truesize, "{size} B");
        }
        // A 65536-B send: skbs of 36544 and 28992 B, 67072 B in all.
        let first = skb_size(65_536, 212_992);
        assert_eq!(first, 36_544);
        let second = skb_size(65_536 - first, 212_992);
        assert_eq!(skb_truesize(first) + skb_truesize(second), 67_072);
    }
}
