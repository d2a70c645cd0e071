//! The small-runqueue form of the entity tree: a flat array sorted by (deadline, insertion
//! order). Nearly every runqueue holds a handful of entities, where a short scan over
//! adjacent memory costs less than walking and rebalancing tree nodes; the order and every
//! answer are the tree's.

use super::{vlt, EntityId};

#[derive(Clone, Copy, Debug)]
struct Entry {
    deadline: u64,
    vruntime: u64,
    slice: u64,
    id: EntityId,
}

#[derive(Clone, Debug, Default)]
pub(super) struct SortedQueue {
    /// Earliest deadline first; equal deadlines in insertion order.
    entries: Vec<Entry>,
    /// The least and greatest slice queued, each with how many entries have it: every pick
    /// and dequeue asks, and most queues hold one slice, so a removal rarely needs a scan.
    min_slice: Extreme,
    max_slice: Extreme,
}

/// One end of the slices' range and its multiplicity (count 0: empty queue).
#[derive(Clone, Copy, Debug, Default)]
struct Extreme {
    slice: u64,
    count: u32,
}

impl Extreme {
    /// Account an added slice; `beyond(a, b)`: a lies further out than b.
    #[inline]
    fn add(&mut self, slice: u64, beyond: fn(u64, u64) -> bool) {
        if self.count == 0 || beyond(slice, self.slice) {
            *self = Extreme { slice, count: 1 };
        } else if slice == self.slice {
            self.count += 1;
        }
    }

    /// Account a removed slice; false when the extreme is gone and must be found again.
    #[inline]
    fn remove(&mut self, slice: u64) -> bool {
        if slice == self.slice {
            self.count -= 1;
            return self.count > 0;
        }
        true
    }

    fn get(&self) -> Option<u64> {
        (self.count > 0).then_some(self.slice)
    }
}

fn lower(a: u64, b: u64) -> bool {
    a < b
}

fn higher(a: u64, b: u64) -> bool {
    a > b
}

impl SortedQueue {
    /// Insert after every entry whose deadline is not later (ties keep insertion order).
    pub fn insert(&mut self, id: EntityId, deadline: u64, vruntime: u64, slice: u64) {
        debug_assert!(!self.contains(id), "entity {id} already queued");
        // New entities usually carry the latest deadline: placed from the back, one step
        // of an insertion sort (a few moves, no call to memmove for them).
        let e = Entry {
            deadline,
            vruntime,
            slice,
            id,
        };
        self.entries.push(e);
        let mut at = self.entries.len() - 1;
        while at > 0 && vlt(deadline, self.entries[at - 1].deadline) {
            self.entries[at] = self.entries[at - 1];
            at -= 1;
        }
        self.entries[at] = e;
        self.min_slice.add(slice, lower);
        self.max_slice.add(slice, higher);
    }

    fn slice_removed(&mut self, slice: u64) {
        let min_kept = self.min_slice.remove(slice);
        let max_kept = self.max_slice.remove(slice);
        if !(min_kept && max_kept) {
            self.min_slice = Extreme::default();
            self.max_slice = Extreme::default();
            for e in &self.entries {
                self.min_slice.add(e.slice, lower);
                self.max_slice.add(e.slice, higher);
            }
        }
    }

    pub fn remove(&mut self, id: EntityId) -> bool {
        match self.position(id) {
            Some(i) => {
                let e = self.entries.remove(i);
                self.slice_removed(e.slice);
                true
            }
            None => false,
        }
    }

    pub fn set_slice(&mut self, id: EntityId, slice: u64) -> bool {
        match self.position(id) {
            Some(i) => {
                let old = std::mem::replace(&mut self.entries[i].slice, slice);
                self.min_slice.add(slice, lower);
                self.max_slice.add(slice, higher);
                self.slice_removed(old);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn position(&self, id: EntityId) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    pub fn contains(&self, id: EntityId) -> bool {
        self.position(id).is_some()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    pub fn first(&self) -> Option<EntityId> {
        self.entries.first().map(|e| e.id)
    }

    #[cfg(test)]
    pub fn min_vruntime(&self) -> Option<u64> {
        self.entries.iter().map(|e| e.vruntime).reduce(super::vmin)
    }

    #[inline]
    pub fn min_slice(&self) -> Option<u64> {
        self.min_slice.get()
    }

    #[inline]
    pub fn max_slice(&self) -> Option<u64> {
        self.max_slice.get()
    }

    /// The first entity, in order, whose vruntime is eligible.
    #[inline]
    pub fn pick_eligible(&self, eligible: impl Fn(u64) -> bool) -> Option<EntityId> {
        self.entries
            .iter()
            .find(|e| eligible(e.vruntime))
            .map(|e| e.id)
    }

    pub fn iter(&self) -> impl Iterator<Item = (EntityId, u64, u64, u64)> + '_ {
        self.entries
            .iter()
            .map(|e| (e.id, e.deadline, e.vruntime, e.slice))
    }
}
