//! A winner (tournament) tree over a dense set of timer slots: every internal node holds
//! the earlier of its two children, so the root is the earliest armed slot.
//!
//! The work timers are one slot per CPU and nearly all armed while CPUs are busy, and each
//! event re-arms one of them. A re-arm here is one walk from the leaf to the root, one
//! comparison per level (stopping where a node does not change), with no data-dependent
//! choice of which child to follow; an indexed heap's sift walks as far but picks a child
//! among four at every step. Keys are unique (the sequence number), so the order is the
//! same as the heap's.

use super::queue::{Entry, Key};

/// The tree's stand-in for an unarmed slot: after every armed entry (its tag is above any
/// sequence number a run reaches).
const UNARMED: Entry = Entry {
    at: u64::MAX,
    tag: u64::MAX,
};

#[derive(Debug, Default)]
pub(super) struct SlotTree {
    /// Node i's children are 2i and 2i + 1; leaves start at `leaves` (slot s at
    /// `leaves + s`); node 0 is unused.
    nodes: Vec<Entry>,
    leaves: usize,
}

impl SlotTree {
    /// Room for `slot`: the leaf count doubles, and the tree is rebuilt from its leaves.
    fn grow(&mut self, slot: usize) {
        let mut leaves = self.leaves.max(1);
        while leaves <= slot {
            leaves *= 2;
        }
        let mut nodes = vec![UNARMED; 2 * leaves];
        if self.leaves > 0 {
            nodes[leaves..leaves + self.leaves]
                .copy_from_slice(&self.nodes[self.leaves..2 * self.leaves]);
        }
        for i in (1..leaves).rev() {
            nodes[i] = earlier(nodes[2 * i], nodes[2 * i + 1]);
        }
        self.nodes = nodes;
        self.leaves = leaves;
    }

    /// Recompute the ancestors of leaf `i` until one keeps its winner. The winner coming
    /// up is carried, so each level loads only the sibling. Which side a child is on does
    /// not matter: tags are unique (the sequence number), so only two unarmed entries,
    /// equal in every bit, ever tie.
    #[inline]
    fn replay(&mut self, mut i: usize) {
        let nodes = &mut self.nodes[..];
        let mut w = nodes[i];
        while i > 1 {
            w = earlier(w, nodes[i ^ 1]);
            i /= 2;
            // The same tag is the same entry: the path above already holds it.
            if w.tag == nodes[i].tag {
                return;
            }
            nodes[i] = w;
        }
    }

    pub(super) fn set(&mut self, slot: usize, key: Key) {
        if slot >= self.leaves {
            self.grow(slot);
        }
        let i = self.leaves + slot;
        self.nodes[i] = Entry::new(key, slot);
        self.replay(i);
    }

    pub(super) fn remove(&mut self, slot: usize) {
        if !self.armed(slot) {
            return;
        }
        let i = self.leaves + slot;
        self.nodes[i] = UNARMED;
        self.replay(i);
    }

    pub(super) fn armed(&self, slot: usize) -> bool {
        slot < self.leaves && self.nodes[self.leaves + slot].tag != UNARMED.tag
    }

    /// Armed slots, counted from the leaves (EventQueue::len: inspection, not the run loop).
    pub(super) fn len(&self) -> usize {
        let leaves = self.nodes.get(self.leaves..).unwrap_or_default();
        leaves.iter().filter(|e| e.tag != UNARMED.tag).count()
    }

    /// The earliest expiry of any slot but `slot`: the root, or, when `slot` is the root,
    /// the earliest of the siblings along its path.
    pub(super) fn earliest_except(&self, slot: usize) -> Option<Key> {
        let root = *self.nodes.get(1)?;
        if root.tag == UNARMED.tag {
            return None;
        }
        if root.slot() != slot {
            return Some(root.key());
        }
        let mut best = UNARMED;
        let mut i = self.leaves + slot;
        while i > 1 {
            best = earlier(best, self.nodes[i ^ 1]);
            i /= 2;
        }
        (best.tag != UNARMED.tag).then(|| best.key())
    }

    pub(super) fn peek(&self) -> Option<(Key, u32)> {
        let root = *self.nodes.get(1)?;
        (root.tag != UNARMED.tag).then(|| (root.key(), root.slot() as u32))
    }
}

/// The earlier of two entries; `a` on a tie (only two unarmed entries tie, equal in every
/// bit). `select_unpredictable` asks for a conditional move, but on this 16-byte pair
/// LLVM still emits a branch (checked with objdump; a mask forced through `black_box`
/// cost 3.8 % more instructions, docs/performance.md, eighth round).
#[inline]
fn earlier(a: Entry, b: Entry) -> Entry {
    std::hint::select_unpredictable(b.before(a), b, a)
}

/// The earliest armed slot of `keys` by a plain scan, and the earliest key but `slot`'s:
/// what a timer structure's peek and earliest_except must give (tests).
#[cfg(test)]
pub(super) fn scan_earliest(
    keys: &[Option<Key>],
    slot: usize,
) -> (Option<(Key, u32)>, Option<Key>) {
    let armed = || {
        keys.iter()
            .enumerate()
            .filter_map(|(s, k)| k.map(|k| (k, s)))
    };
    let earliest = armed().map(|(k, s)| (k, s as u32)).min();
    let except = armed().filter(|&(_, s)| s != slot).map(|(k, _)| k).min();
    (earliest, except)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree against a plain scan over random arms, re-arms and removals.
    #[test]
    fn the_root_is_the_earliest_armed_slot() {
        let mut t = SlotTree::default();
        let mut keys: Vec<Option<Key>> = vec![None; 37];
        let mut x: u64 = 88172645463325252;
        let mut seq = 0;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let slot = (x % 37) as usize;
            if x.is_multiple_of(5) {
                t.remove(slot);
                keys[slot] = None;
            } else {
                seq += 1;
                let key = ((x >> 8) % 50, seq);
                t.set(slot, key);
                keys[slot] = Some(key);
            }
            let (expect, except) = scan_earliest(&keys, slot);
            assert_eq!(t.peek(), expect);
            assert_eq!(t.len(), keys.iter().flatten().count());
            assert_eq!(t.earliest_except(slot), except);
            assert_eq!(t.armed(slot), keys[slot].is_some());
        }
    }
}
