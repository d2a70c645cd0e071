//! Event queue with a total, deterministic order: by time, then by the sequence number
//! given when the event was scheduled (first scheduled, first run).
//!
//! Per-CPU timers (work completion, tick, hrtick) live in winner trees with one slot
//! each (slot_tree.rs; the work timers of large machines in a near-term calendar first,
//! work_timers.rs): re-arming replaces the old expiry instead of leaving a stale event
//! behind, which keeps the queue small on the hot path. The trees and the one-off heap
//! share one sequence counter, so the merged order is still total.

use super::slot_tree::SlotTree;
use super::work_timers::WorkTimers;
use crate::ids::{CpuId, TaskId};
use crate::time::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A task is created (wake_up_new_task).
    TaskStart(TaskId),
    /// A sleeping task's timer expires: try_to_wake_up.
    TimerWake(TaskId),
    /// A queued remote / idle wake-up reaches its CPU: ttwu_do_activate there.
    WakeArrive { task: TaskId, cpu: CpuId },
    /// The running task on `cpu` finishes its current busy period.
    WorkDone(CpuId),
    /// The periodic scheduler tick on `cpu`.
    Tick(CpuId),
    /// The high-resolution slice timer (HRTICK) on `cpu`.
    HrTick(CpuId),
    /// A governor's frequency decision for a frequency domain takes effect.
    FreqChange(usize),
    /// The stopper on `cpu` runs active_load_balance_cpu_stop.
    Stopper(CpuId),
    /// A NOHZ idle-balance kick (IPI) reaches `cpu` (kick_ilb).
    NohzKick(CpuId),
    /// A task group's bandwidth period timer (sched_cfs_period_timer).
    CfsPeriod(usize),
    /// A reschedule IPI reaches `cpu` (a remote resched_curr).
    ReschedIpi(CpuId),
    /// The RT bandwidth period timer (sched_rt_period_timer; kernels before v6.12).
    RtPeriod,
    /// A deadline task's replenishment timer (dl_task_timer).
    DlTimer(TaskId),
    /// The fair deadline server's timer on `cpu` (dl_server_timer).
    DlServerTimer(CpuId),
    /// A vote of ADPF hint session `obj` (a workload object) lapses: the power HAL's
    /// worker re-applies the threads' uclamp.min.
    HintTimeout(usize),
}

impl Event {
    /// Names of the kinds, in `kind()` order (the result's `sim.events_by_kind`).
    pub const KIND_NAMES: [&'static str; 15] = [
        "task_start",
        "timer_wake",
        "wake_arrive",
        "work_done",
        "tick",
        "hrtick",
        "freq_change",
        "stopper",
        "nohz_kick",
        "cfs_period",
        "resched_ipi",
        "rt_period",
        "dl_timer",
        "dl_server_timer",
        "hint_timeout",
    ];

    /// Index of the event's kind in `KIND_NAMES`.
    pub fn kind(self) -> usize {
        match self {
            Event::TaskStart(_) => 0,
            Event::TimerWake(_) => 1,
            Event::WakeArrive { .. } => 2,
            Event::WorkDone(_) => 3,
            Event::Tick(_) => 4,
            Event::HrTick(_) => 5,
            Event::FreqChange(_) => 6,
            Event::Stopper(_) => 7,
            Event::NohzKick(_) => 8,
            Event::CfsPeriod(_) => 9,
            Event::ReschedIpi(_) => 10,
            Event::RtPeriod => 11,
            Event::DlTimer(_) => 12,
            Event::DlServerTimer(_) => 13,
            Event::HintTimeout(_) => 14,
        }
    }
}

/// The per-CPU timers, one slot each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuTimer {
    Work = 0,
    Tick = 1,
    HrTick = 2,
    Stopper = 3,
    NohzKick = 4,
    ReschedIpi = 5,
    /// The fair server's dl_timer (rq->fair_server.dl_timer).
    DlServer = 6,
}

const NR_CPU_TIMERS: usize = 7;

impl CpuTimer {
    fn event(slot: usize) -> Event {
        let cpu = slot / NR_CPU_TIMERS;
        match slot % NR_CPU_TIMERS {
            0 => Event::WorkDone(cpu),
            1 => Event::Tick(cpu),
            2 => Event::HrTick(cpu),
            3 => Event::Stopper(cpu),
            4 => Event::NohzKick(cpu),
            5 => Event::ReschedIpi(cpu),
            _ => Event::DlServerTimer(cpu),
        }
    }
}

/// (time, seq) key; the smallest runs first.
pub(super) type Key = (Ns, u64);

/// Bits of a timer entry's tag that hold the slot (7 timers × 149,796 CPUs); the
/// sequence number sits above them, so tags order as sequence numbers do.
const SLOT_BITS: u32 = 20;

/// A timer entry in 16 bytes: the expiry, and the arming sequence number and slot packed
/// in one word.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) at: Ns,
    pub(super) tag: u64,
}

impl Entry {
    pub(super) fn new((at, seq): Key, slot: usize) -> Entry {
        debug_assert!(slot < 1 << SLOT_BITS && seq < 1 << (64 - SLOT_BITS));
        Entry {
            at,
            tag: (seq << SLOT_BITS) | slot as u64,
        }
    }

    pub(super) fn slot(self) -> usize {
        (self.tag & ((1 << SLOT_BITS) - 1)) as usize
    }

    pub(super) fn key(self) -> Key {
        (self.at, self.tag >> SLOT_BITS)
    }

    /// Earlier in the (time, seq) order, as one 128-bit comparison (no branch on the
    /// time comparison's outcome).
    #[inline]
    pub(super) fn before(self, other: Entry) -> bool {
        let wide = |e: Entry| (u128::from(e.at) << 64) | u128::from(e.tag);
        wide(self) < wide(other)
    }
}

/// The earlier of two optional keys.
#[inline]
fn earliest(a: Option<Key>, b: Option<Key>) -> Option<Key> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(Key, EventBits)>>,
    /// The work timers (slot = CPU), dense and re-armed at nearly every event a few µs
    /// ahead, apart from the other per-CPU timers (work_timers.rs).
    work: WorkTimers,
    /// Every other per-CPU timer (slot = cpu × NR_CPU_TIMERS + timer).
    timers: SlotTree,
    seq: u64,
    /// The timer slot `pop` returned last, still armed in its tree: its handler usually
    /// re-arms it (the next busy period), which then updates the slot once instead of
    /// removing it and inserting it again. Removed at the next pop if not.
    fired: Option<u32>,
}

/// Event stored compactly in the general heap (only the non-timer kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct EventBits(u8, u32, u32);

impl EventBits {
    /// The kind as `Event::kind` numbers it, and the payload.
    fn pack(ev: Event) -> Self {
        let (a, b) = match ev {
            Event::WakeArrive { task, cpu } => (task, cpu),
            Event::RtPeriod => (0, 0),
            Event::TaskStart(x)
            | Event::TimerWake(x)
            | Event::WorkDone(x)
            | Event::Tick(x)
            | Event::HrTick(x)
            | Event::FreqChange(x)
            | Event::Stopper(x)
            | Event::NohzKick(x)
            | Event::CfsPeriod(x)
            | Event::ReschedIpi(x)
            | Event::DlTimer(x)
            | Event::DlServerTimer(x)
            | Event::HintTimeout(x) => (x, 0),
        };
        EventBits(ev.kind() as u8, a as u32, b as u32)
    }

    /// The inverse of `pack`.
    fn unpack(self) -> Event {
        let (a, b) = (self.1 as usize, self.2 as usize);
        match self.0 {
            0 => Event::TaskStart(a),
            1 => Event::TimerWake(a),
            2 => Event::WakeArrive { task: a, cpu: b },
            3 => Event::WorkDone(a),
            4 => Event::Tick(a),
            5 => Event::HrTick(a),
            6 => Event::FreqChange(a),
            7 => Event::Stopper(a),
            8 => Event::NohzKick(a),
            9 => Event::CfsPeriod(a),
            10 => Event::ReschedIpi(a),
            11 => Event::RtPeriod,
            12 => Event::DlTimer(a),
            13 => Event::DlServerTimer(a),
            _ => Event::HintTimeout(a),
        }
    }
}

impl EventQueue {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedule a one-off event.
    pub fn push(&mut self, at: Ns, ev: Event) {
        let seq = self.next_seq();
        self.heap.push(Reverse(((at, seq), EventBits::pack(ev))));
    }

    /// Arm (or re-arm) a per-CPU timer; a previous expiry of the same timer is replaced.
    pub fn arm(&mut self, cpu: CpuId, timer: CpuTimer, at: Ns) {
        let seq = self.next_seq();
        let slot = cpu * NR_CPU_TIMERS + timer as usize;
        if self.fired == Some(slot as u32) {
            self.fired = None;
        }
        if timer == CpuTimer::Work {
            self.work.set(cpu, (at, seq));
        } else {
            self.timers.set(slot, (at, seq));
        }
    }

    /// Disarm global timer slot `slot` in whichever tree holds it.
    #[inline]
    fn remove_slot(&mut self, slot: usize) {
        if slot % NR_CPU_TIMERS == CpuTimer::Work as usize {
            self.work.remove(slot / NR_CPU_TIMERS);
        } else {
            self.timers.remove(slot);
        }
    }

    pub fn cancel(&mut self, cpu: CpuId, timer: CpuTimer) {
        let slot = cpu * NR_CPU_TIMERS + timer as usize;
        if self.fired == Some(slot as u32) {
            self.fired = None;
        }
        self.remove_slot(slot);
    }

    pub fn is_armed(&self, cpu: CpuId, timer: CpuTimer) -> bool {
        let slot = cpu * NR_CPU_TIMERS + timer as usize;
        self.fired != Some(slot as u32)
            && match timer {
                CpuTimer::Work => self.work.armed(cpu),
                _ => self.timers.armed(slot),
            }
    }

    /// Drop the last fired timer if its handler did not re-arm it.
    fn retire_fired(&mut self) {
        if let Some(slot) = self.fired.take() {
            self.remove_slot(slot as usize);
        }
    }

    /// The earlier root of the two timer heaps, as (key, global slot).
    #[inline]
    fn timer_peek(&mut self) -> Option<(Key, u32)> {
        let w = self.work.peek();
        let t = self.timers.peek();
        match (w, t) {
            (Some((wk, cpu)), Some((tk, _))) if wk < tk => Some((wk, cpu * NR_CPU_TIMERS as u32)),
            (Some((wk, cpu)), None) => Some((wk, cpu * NR_CPU_TIMERS as u32)),
            (_, t) => t,
        }
    }

    /// The time of the earliest event other than `cpu`'s `timer` (which may be the one
    /// `pop` just returned: its handler is about to re-arm it).
    pub fn earliest_except(&mut self, cpu: CpuId, timer: CpuTimer) -> Option<Ns> {
        let slot = cpu * NR_CPU_TIMERS + timer as usize;
        if self.fired != Some(slot as u32) {
            self.retire_fired();
        }
        let (w, t) = if timer == CpuTimer::Work {
            (
                self.work.earliest_except(cpu),
                self.timers.peek().map(|p| p.0),
            )
        } else {
            (
                self.work.peek().map(|p| p.0),
                self.timers.earliest_except(slot),
            )
        };
        let g = self.heap.peek().map(|r| r.0 .0);
        earliest(earliest(g, w), t).map(|k| k.0)
    }

    /// Remove and return the earliest event.
    pub fn pop(&mut self) -> Option<(Ns, Event)> {
        self.pop_until(Ns::MAX)
    }

    /// Remove and return the earliest event if it is due at or before `until` (one look
    /// at both heaps instead of a peek_time and a pop).
    pub fn pop_until(&mut self, until: Ns) -> Option<(Ns, Event)> {
        self.retire_fired();
        let general = self.heap.peek().map(|r| r.0 .0);
        let timer = self.timer_peek();
        match (general, timer) {
            (Some(g), Some((t, slot))) if t < g => self.pop_timer(t, slot, until),
            (None, Some((t, slot))) => self.pop_timer(t, slot, until),
            (Some(g), _) if g.0 <= until => self.heap.pop().map(|r| (r.0 .0 .0, r.0 .1.unpack())),
            _ => None,
        }
    }

    fn pop_timer(&mut self, key: Key, slot: u32, until: Ns) -> Option<(Ns, Event)> {
        if key.0 > until {
            return None;
        }
        // Only timer pops move the calendar's start: enough to keep it near the clock.
        self.work.advance_to(key.0);
        // Left armed until its handler re-arms it or the next pop retires it.
        self.fired = Some(slot);
        Some((key.0, CpuTimer::event(slot as usize)))
    }

    pub fn peek_time(&mut self) -> Option<Ns> {
        self.retire_fired();
        let g = self.heap.peek().map(|r| r.0 .0);
        let t = self.timer_peek().map(|p| p.0);
        earliest(g, t).map(|k| k.0)
    }

    /// Pending events (one-off events plus armed timers).
    pub fn len(&self) -> usize {
        self.heap.len() + self.work.len() + self.timers.len() - usize::from(self.fired.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_name() {
        let all = [
            Event::TaskStart(0),
            Event::TimerWake(0),
            Event::WakeArrive { task: 0, cpu: 0 },
            Event::WorkDone(0),
            Event::Tick(0),
            Event::HrTick(0),
            Event::FreqChange(0),
            Event::Stopper(0),
            Event::NohzKick(0),
            Event::CfsPeriod(0),
            Event::ReschedIpi(0),
            Event::RtPeriod,
            Event::DlTimer(0),
            Event::DlServerTimer(0),
            Event::HintTimeout(0),
        ];
        let kinds: Vec<usize> = all.iter().map(|e| e.kind()).collect();
        assert_eq!(kinds, (0..Event::KIND_NAMES.len()).collect::<Vec<_>>());
        assert_eq!(Event::KIND_NAMES[Event::WorkDone(3).kind()], "work_done");
    }

    #[test]
    fn ties_break_by_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(10, Event::TimerWake(2));
        q.arm(1, CpuTimer::Tick, 5);
        q.arm(0, CpuTimer::Work, 10);
        q.push(10, Event::TimerWake(3));
        q.arm(3, CpuTimer::Tick, 10);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::Tick(1)),
                (10, Event::TimerWake(2)),
                (10, Event::WorkDone(0)),
                (10, Event::TimerWake(3)),
                (10, Event::Tick(3))
            ]
        );
    }

    #[test]
    fn a_fired_timer_rearmed_by_its_handler_runs_again() {
        let mut q = EventQueue::default();
        q.arm(0, CpuTimer::Work, 10);
        q.arm(1, CpuTimer::Work, 20);
        assert_eq!(q.pop(), Some((10, Event::WorkDone(0))));
        assert!(!q.is_armed(0, CpuTimer::Work));
        assert_eq!(q.len(), 1);
        q.arm(0, CpuTimer::Work, 30);
        q.arm(1, CpuTimer::Tick, 30);
        assert_eq!(q.pop(), Some((20, Event::WorkDone(1))));
        assert_eq!(q.pop(), Some((30, Event::WorkDone(0))));
        assert_eq!(q.peek_time(), Some(30));
        assert_eq!(q.pop(), Some((30, Event::Tick(1))));
        assert_eq!((q.pop(), q.len()), (None, 0));
    }

    #[test]
    fn earliest_except_looks_past_the_timer_in_both_heaps() {
        let mut q = EventQueue::default();
        q.arm(0, CpuTimer::Work, 10);
        q.arm(1, CpuTimer::Work, 30);
        q.arm(0, CpuTimer::Tick, 20);
        q.push(40, Event::TimerWake(7));
        assert_eq!(q.earliest_except(0, CpuTimer::Work), Some(20));
        assert_eq!(q.earliest_except(0, CpuTimer::Tick), Some(10));
        assert_eq!(q.pop(), Some((10, Event::WorkDone(0))));
        // The fired work timer is not re-armed: the next look retires it.
        assert_eq!(q.earliest_except(0, CpuTimer::Tick), Some(30));
        assert_eq!(q.peek_time(), Some(20));
        q.cancel(0, CpuTimer::Tick);
        q.cancel(1, CpuTimer::Work);
        assert_eq!(q.earliest_except(0, CpuTimer::Work), Some(40));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn rearming_replaces_and_cancel_removes() {
        let mut q = EventQueue::default();
        q.arm(0, CpuTimer::Work, 100);
        q.arm(0, CpuTimer::Work, 50);
        q.arm(1, CpuTimer::Work, 70);
        q.arm(2, CpuTimer::HrTick, 60);
        q.cancel(2, CpuTimer::HrTick);
        assert!(!q.is_armed(2, CpuTimer::HrTick));
        assert_eq!(q.len(), 2);
        assert_eq!(q.pop(), Some((50, Event::WorkDone(0))));
        assert_eq!(q.pop(), Some((70, Event::WorkDone(1))));
        assert_eq!(q.pop(), None);
    }
}
