//! Event queue with a total, deterministic order: by time, then by the sequence number
//! given at insertion (first scheduled, first run).

use crate::machine::CpuId;
use crate::sched::TaskId;
use crate::time::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A task is created (wake_up_new_task).
    TaskStart(TaskId),
    /// The running task on `cpu` finishes its current busy period, if `gen` is current.
    WorkDone { cpu: CpuId, gen: u64 },
    /// A sleeping task's timer expires: try_to_wake_up.
    TimerWake(TaskId),
    /// A queued remote / idle wake-up reaches its CPU: ttwu_do_activate there.
    WakeArrive { task: TaskId, cpu: CpuId },
    /// The periodic scheduler tick on `cpu`.
    Tick(CpuId),
    /// The high-resolution slice timer (HRTICK), if `gen` is current.
    HrTick { cpu: CpuId, gen: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    at: Ns,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, at: Ns, ev: Event) {
        self.seq += 1;
        self.heap.push(Entry {
            at,
            seq: self.seq,
            ev,
        });
    }

    pub fn pop(&mut self) -> Option<(Ns, Event)> {
        self.heap.pop().map(|e| (e.at, e.ev))
    }

    pub fn peek_time(&self) -> Option<Ns> {
        self.heap.peek().map(|e| e.at)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::default();
        q.push(10, Event::Tick(2));
        q.push(5, Event::Tick(1));
        q.push(10, Event::Tick(0));
        q.push(10, Event::Tick(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::Tick(1)),
                (10, Event::Tick(2)),
                (10, Event::Tick(0)),
                (10, Event::Tick(3))
            ]
        );
    }
}
