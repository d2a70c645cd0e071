//! The work timers: one slot per CPU, each re-armed at nearly every event a few
//! microseconds ahead (the next busy period's end). A calendar of 4-ns buckets over the
//! next 33 µs holds those: arming, disarming and finding the earliest are a few
//! instructions each (a bucket is a list of slots; two levels of occupancy bits find the
//! first bucket in use), where the winner tree walks every level of a 384-CPU machine at
//! each re-arm. Expiries beyond the calendar, or before its start, go to a winner tree.
//! The earliest of both is taken in the same (time, sequence) order, so events come out
//! in the order the tree alone gave.

use super::queue::{Entry, Key};
use super::slot_tree::SlotTree;

/// log2 of a bucket's width in ns.
const SHIFT: u32 = 2;
/// Buckets in the calendar (a power of two): 128 words of occupancy bits.
const BUCKETS: usize = 8192;
const WORDS: usize = BUCKETS / 64;
/// Machines with more CPUs than this use the calendar; on smaller ones the tree's walk
/// is at most 7 levels and cheaper than the calendar's bookkeeping (cachegrind: +14 %
/// instructions on the 8-CPU prio-lb row, +2 % on 64-CPU mix; docs/performance.md).
const CALENDAR_MIN_SLOTS: usize = 128;
/// No slot / not in the calendar.
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node {
    e: Entry,
    next: u32,
    prev: u32,
    /// The calendar bucket holding the slot, NONE when it is not in the calendar.
    bucket: u32,
}

const FREE: Node = Node {
    e: Entry { at: 0, tag: 0 },
    next: NONE,
    prev: NONE,
    bucket: NONE,
};

#[derive(Debug)]
pub(super) struct WorkTimers {
    nodes: Vec<Node>,
    heads: Vec<u32>,
    words: [u64; WORDS],
    /// Bit w set when `words[w]` is not zero.
    summary: u128,
    /// Every calendar entry's absolute bucket (`at >> SHIFT`) is in [base, base + BUCKETS):
    /// the bucket order from `base` around the ring is the time order.
    base: u64,
    near: usize,
    /// The calendar's earliest slot, NONE when it must be looked up again.
    min: u32,
    far: SlotTree,
}

impl Default for WorkTimers {
    fn default() -> Self {
        WorkTimers {
            nodes: Vec::new(),
            heads: vec![NONE; BUCKETS],
            words: [0; WORDS],
            summary: 0,
            base: 0,
            near: 0,
            min: NONE,
            far: SlotTree::default(),
        }
    }
}

/// The first bucket in use at or after `b0` around the ring; `summary` is not zero.
#[inline]
fn first_in_use(words: &[u64; WORDS], summary: u128, b0: usize) -> usize {
    let w0 = b0 / 64;
    let bits = words[w0] & (!0u64 << (b0 % 64));
    if bits != 0 {
        return w0 * 64 + bits.trailing_zeros() as usize;
    }
    let above = if w0 + 1 < WORDS {
        summary & (!0u128 << (w0 + 1))
    } else {
        0
    };
    // Past the ring's end, wrap to the lowest word in use (w0's low bits included).
    let w = if above != 0 { above } else { summary }.trailing_zeros() as usize;
    w * 64 + words[w].trailing_zeros() as usize
}

impl WorkTimers {
    /// A slot past CALENDAR_MIN_SLOTS has been armed (which sized `nodes`): near expiries
    /// go to the calendar from then on.
    #[inline]
    fn calendar(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Time has reached `at` (the queue popped an event there): nothing is armed before it.
    #[inline]
    pub(super) fn advance_to(&mut self, at: u64) {
        self.base = self.base.max(at >> SHIFT);
    }

    #[inline]
    pub(super) fn set(&mut self, slot: usize, key: Key) {
        if self.calendar() || slot >= CALENDAR_MIN_SLOTS {
            self.set_calendar(slot, key);
        } else {
            self.far.set(slot, key);
        }
    }

    #[inline(never)]
    fn set_calendar(&mut self, slot: usize, key: Key) {
        if slot >= self.nodes.len() {
            self.nodes.resize(slot + 1, FREE);
        }
        let abs = key.0 >> SHIFT;
        if abs < self.base || abs - self.base >= BUCKETS as u64 {
            // The tree replaces a slot it holds in one walk.
            if self.nodes[slot].bucket != NONE {
                self.remove_calendar(slot);
            }
            self.far.set(slot, key);
            return;
        }
        self.remove_calendar(slot);
        let b = abs as usize & (BUCKETS - 1);
        let e = Entry::new(key, slot);
        let head = self.heads[b];
        self.nodes[slot] = Node {
            e,
            next: head,
            prev: NONE,
            bucket: b as u32,
        };
        if head != NONE {
            self.nodes[head as usize].prev = slot as u32;
        }
        self.heads[b] = slot as u32;
        self.words[b / 64] |= 1 << (b % 64);
        self.summary |= 1u128 << (b / 64);
        self.near += 1;
        if self.near == 1 || (self.min != NONE && e.before(self.nodes[self.min as usize].e)) {
            self.min = slot as u32;
        }
    }

    #[inline]
    pub(super) fn remove(&mut self, slot: usize) {
        if self.calendar() {
            self.remove_calendar(slot);
        } else {
            self.far.remove(slot);
        }
    }

    fn remove_calendar(&mut self, slot: usize) {
        let Some(&Node {
            next, prev, bucket, ..
        }) = self.nodes.get(slot)
        else {
            return;
        };
        if bucket == NONE {
            self.far.remove(slot);
            return;
        }
        if prev == NONE {
            self.heads[bucket as usize] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        }
        if next == NONE && prev == NONE {
            let (w, bit) = (bucket as usize / 64, bucket as usize % 64);
            self.words[w] &= !(1 << bit);
            if self.words[w] == 0 {
                self.summary &= !(1u128 << w);
            }
        }
        self.nodes[slot].bucket = NONE;
        self.near -= 1;
        if self.min == slot as u32 {
            self.min = NONE;
        }
    }

    #[inline]
    pub(super) fn armed(&self, slot: usize) -> bool {
        if !self.calendar() {
            return self.far.armed(slot);
        }
        self.nodes.get(slot).is_some_and(|n| n.bucket != NONE) || self.far.armed(slot)
    }

    /// Armed slots (EventQueue::len: inspection, not the run loop).
    pub(super) fn len(&self) -> usize {
        self.near + self.far.len()
    }

    /// The earliest entry of bucket `b`'s list, leaving `skip` out.
    fn bucket_min(&self, b: usize, skip: u32) -> Option<Entry> {
        let mut best: Option<Entry> = None;
        let mut s = self.heads[b];
        while s != NONE {
            let n = &self.nodes[s as usize];
            if s != skip && best.is_none_or(|m| n.e.before(m)) {
                best = Some(n.e);
            }
            s = n.next;
        }
        best
    }

    /// The earliest entry of a bucket in use.
    fn bucket_first(&self, b: usize) -> Entry {
        self.bucket_min(b, NONE)
            .expect("a bucket in use holds a slot")
    }

    /// The calendar's earliest entry; the calendar is not empty.
    #[inline]
    fn near_min(&mut self) -> Entry {
        if self.min == NONE {
            let b0 = self.base as usize & (BUCKETS - 1);
            let b = first_in_use(&self.words, self.summary, b0);
            self.min = self.bucket_first(b).slot() as u32;
        }
        self.nodes[self.min as usize].e
    }

    #[inline]
    pub(super) fn peek(&mut self) -> Option<(Key, u32)> {
        if self.near == 0 {
            return self.far.peek();
        }
        self.peek_both()
    }

    fn peek_both(&mut self) -> Option<(Key, u32)> {
        let n = self.near_min();
        // Keys are unique (the sequence number): no tie between the two.
        match self.far.peek() {
            Some((fk, fs)) if fk < n.key() => Some((fk, fs)),
            _ => Some((n.key(), n.slot() as u32)),
        }
    }

    /// The earliest expiry of any slot but `slot`.
    #[inline]
    pub(super) fn earliest_except(&mut self, slot: usize) -> Option<Key> {
        let far = self.far.earliest_except(slot);
        if self.near == 0 {
            return far;
        }
        self.earliest_except_both(slot, far)
    }

    fn earliest_except_both(&mut self, slot: usize, far: Option<Key>) -> Option<Key> {
        let m = self.near_min();
        let near = if m.slot() != slot {
            Some(m)
        } else {
            let b = self.nodes[slot].bucket as usize;
            // The rest of its bucket comes before every later bucket; the buckets from
            // the calendar's start to it are empty, so the next in use after it around
            // the ring is the next in time.
            self.bucket_min(b, slot as u32).or_else(|| {
                (self.near > 1).then(|| {
                    self.bucket_first(first_in_use(&self.words, self.summary, (b + 1) % BUCKETS))
                })
            })
        };
        match (near.map(|e| e.key()), far) {
            (Some(n), Some(f)) => Some(n.min(f)),
            (n, f) => n.or(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::slot_tree::scan_earliest;
    use super::*;

    /// Timers of a machine past the tree-only size: the calendar in use from the start.
    fn with_calendar() -> WorkTimers {
        let mut t = WorkTimers::default();
        t.set(CALENDAR_MIN_SLOTS, (0, 0));
        t.remove(CALENDAR_MIN_SLOTS);
        assert!(t.calendar());
        t
    }

    /// The calendar and tree together against a plain scan: arms at times from now to
    /// beyond the calendar, re-arms, removals, and time moving to the earliest expiry,
    /// around the ring several times.
    #[test]
    fn the_earliest_is_the_earliest_armed_slot() {
        let mut t = with_calendar();
        let n = CALENDAR_MIN_SLOTS + 41;
        let mut keys: Vec<Option<Key>> = vec![None; n];
        let mut x: u64 = 88172645463325252;
        let (mut seq, mut now, mut most_near) = (0, 0u64, 0);
        for round in 0..60_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let slot = CALENDAR_MIN_SLOTS + (x % 41) as usize;
            match x % 7 {
                0 => {
                    t.remove(slot);
                    keys[slot] = None;
                }
                1 => {
                    // Time moves to the earliest expiry, which fires and is re-armed.
                    if let Some((k, s)) = t.peek() {
                        now = k.0;
                        t.advance_to(now);
                        seq += 1;
                        let key = (now + (x >> 20) % 3000, seq);
                        t.set(s as usize, key);
                        keys[s as usize] = Some(key);
                    }
                }
                _ => {
                    seq += 1;
                    // Mostly within the calendar, ties included; now and then far out.
                    let ahead = match (x >> 8) % 10 {
                        0 => (x >> 12) % 200_000,
                        1 => 0,
                        _ => (x >> 12) % 4000,
                    };
                    let key = (now + ahead, seq);
                    t.set(slot, key);
                    keys[slot] = Some(key);
                }
            }
            let (expect, except) = scan_earliest(&keys, slot);
            assert_eq!(t.peek(), expect, "round {round}");
            assert_eq!(t.len(), keys.iter().flatten().count());
            assert_eq!(t.earliest_except(slot), except, "round {round}");
            assert_eq!(t.armed(slot), keys[slot].is_some());
            most_near = most_near.max(t.near);
        }
        assert!(most_near > 20, "the calendar held {most_near} at most");
        assert!(
            now > 3 * ((BUCKETS as u64) << SHIFT),
            "the ring wrapped: {now}"
        );
    }

    /// An expiry armed before the calendar's start (time already past it) still fires
    /// first, from the tree.
    #[test]
    fn an_expiry_before_the_calendar_goes_to_the_tree() {
        let mut t = with_calendar();
        t.advance_to(1_000_000);
        t.set(0, (1_000_100, 1));
        t.set(1, (999_000, 2));
        assert_eq!(t.peek(), Some(((999_000, 2), 1)));
        assert_eq!(t.earliest_except(1), Some((1_000_100, 1)));
        t.remove(1);
        assert_eq!(t.peek(), Some(((1_000_100, 1), 0)));
    }
}
