//! The large-runqueue form of the entity tree: an augmented AVL tree.
//!
//! An AVL tree stored in an arena (`Vec<Node>`) with an intrusive free list, indexed by
//! `u32`, plus a dense `EntityId -> node` map. All operations are iterative and use
//! fixed-size on-stack path arrays; no allocation happens per operation (only amortised growth
//! of the arena / id map). Insertion and removal search by the key `(deadline, seq)` where
//! `seq` is a per-tree insertion counter, so ties are resolved exactly and deterministically.
//! Every node carries the subtree aggregates `min_vruntime` (signed-difference minimum),
//! `min_slice` and `max_slice`, which makes the EEVDF heap walk of __pick_eevdf O(log n).
//! The leftmost node is cached (like `rb_root_cached`), so `first()` is O(1).
//!
//! If the deadlines ever span 2^63 or more (see the module above), `remove` still works (it
//! falls back to an O(n) structural search) and the tree stays structurally valid.

use super::{vlt, vmin, EntityId};

/// "No node" marker for arena links and the id map.
const NIL: u32 = u32::MAX;

/// Upper bound on the height of the tree. An AVL tree of height h has at least
/// fib(h + 2) - 1 nodes; fib(66) > 2^44 > u32::MAX, so heights never exceed 64.
const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug)]
struct Node {
    left: u32,
    right: u32,
    /// Subtree height (leaf = 1). Free nodes reuse `left` as the free-list link.
    height: u32,
    id: EntityId,
    deadline: u64,
    vruntime: u64,
    slice: u64,
    /// Insertion sequence number: tie-break among equal deadlines.
    seq: u64,
    // Subtree aggregates.
    min_vruntime: u64,
    min_slice: u64,
    max_slice: u64,
}

/// Augmented AVL tree of queued entities ordered by (deadline, insertion order).
#[derive(Clone, Debug)]
pub(super) struct AvlTree {
    nodes: Vec<Node>,
    free_head: u32,
    /// EntityId -> node index (NIL when absent).
    slot_of: Vec<u32>,
    root: u32,
    leftmost: u32,
    len: usize,
    next_seq: u64,
    /// Nodes keep their subtree's min_vruntime (for `pick_eligible`); when false the field
    /// is not maintained (nothing reads it) and `pick_eligible` scans in order.
    tracks_eligibility: bool,
}

impl Default for AvlTree {
    fn default() -> Self {
        Self::new(true)
    }
}

impl AvlTree {
    pub fn new(tracks_eligibility: bool) -> Self {
        AvlTree {
            tracks_eligibility,
            nodes: Vec::new(),
            free_head: NIL,
            slot_of: Vec::new(),
            root: NIL,
            leftmost: NIL,
            len: 0,
            next_seq: 0,
        }
    }

    /// Insert an entity with the given deadline, vruntime and slice. Equal deadlines: the new
    /// entity goes after existing equal ones. Panics in debug builds if `id` is already
    /// present (in release builds the old entry is replaced, keeping the tree consistent).
    pub fn insert(&mut self, id: EntityId, deadline: u64, vruntime: u64, slice: u64) {
        let uid = id as usize;
        if uid >= self.slot_of.len() {
            self.slot_of.resize(uid + 1, NIL);
        } else if self.slot_of[uid] != NIL {
            debug_assert!(false, "AvlTree::insert: entity {id} already in the tree");
            self.remove(id);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let n = self.alloc(Node {
            left: NIL,
            right: NIL,
            height: 1,
            id,
            deadline,
            vruntime,
            slice,
            seq,
            min_vruntime: vruntime,
            min_slice: slice,
            max_slice: slice,
        });
        self.slot_of[uid] = n;
        self.len += 1;

        if self.root == NIL {
            self.root = n;
            self.leftmost = n;
            return;
        }

        let mut path = [NIL; MAX_DEPTH];
        let mut depth = 0usize;
        let mut cur = self.root;
        let mut all_left = true;
        loop {
            path[depth] = cur;
            depth += 1;
            let node = &mut self.nodes[cur as usize];
            // New key has the largest seq: it goes left only if strictly earlier.
            if vlt(deadline, node.deadline) {
                if node.left == NIL {
                    node.left = n;
                    break;
                }
                cur = node.left;
            } else {
                all_left = false;
                if node.right == NIL {
                    node.right = n;
                    break;
                }
                cur = node.right;
            }
        }
        if all_left {
            self.leftmost = n;
        }
        self.fixup(&path[..depth], usize::MAX);
    }

    /// Remove an entity; returns false if it is not in the tree.
    pub fn remove(&mut self, id: EntityId) -> bool {
        let idx = match self.slot_of.get(id as usize) {
            Some(&i) if i != NIL => i,
            _ => return false,
        };
        let mut path = [NIL; MAX_DEPTH];
        let mut depth = self.path_to(idx, &mut path);
        debug_assert!(depth > 0 && path[depth - 1] == idx);
        // Level of `idx` in `path`; if `idx` receives its successor's payload, the bottom-up
        // fixup must reach it even if the levels below look unchanged.
        let idx_level = depth - 1;

        let (l, r) = {
            let node = &self.nodes[idx as usize];
            (node.left, node.right)
        };
        // The node that is physically unlinked (it has at most one child).
        let target = if l != NIL && r != NIL {
            // Move the in-order successor's payload into `idx`, then unlink the successor.
            let mut s = r;
            path[depth] = s;
            depth += 1;
            while self.nodes[s as usize].left != NIL {
                s = self.nodes[s as usize].left;
                path[depth] = s;
                depth += 1;
            }
            let succ = &self.nodes[s as usize];
            let (sid, sd, sv, ss, sq) =
                (succ.id, succ.deadline, succ.vruntime, succ.slice, succ.seq);
            let node = &mut self.nodes[idx as usize];
            node.id = sid;
            node.deadline = sd;
            node.vruntime = sv;
            node.slice = ss;
            node.seq = sq;
            self.slot_of[sid as usize] = idx;
            s
        } else {
            idx
        };

        let child = {
            let t = &self.nodes[target as usize];
            if t.left != NIL {
                t.left
            } else {
                t.right
            }
        };
        depth -= 1; // pop target
        let parent = if depth > 0 { path[depth - 1] } else { NIL };
        if parent == NIL {
            self.root = child;
        } else {
            let p = &mut self.nodes[parent as usize];
            if p.left == target {
                p.left = child;
            } else {
                p.right = child;
            }
        }

        // Leftmost maintenance (node identities are unaffected by the rotations below).
        // A node with two children is never the leftmost, so here target == idx.
        if self.leftmost == idx {
            self.leftmost = if child != NIL {
                self.leftmost_of(child)
            } else {
                parent
            };
        }

        self.slot_of[id as usize] = NIL;
        self.dealloc(target);
        self.len -= 1;
        let stop_ok_from = if target == idx { usize::MAX } else { idx_level };
        self.fixup(&path[..depth], stop_ok_from);
        true
    }

    /// Change a queued entity's slice in place and refresh the aggregates above it (the
    /// kernel's min_vruntime_cb_propagate after a group slice update). False if absent.
    pub fn set_slice(&mut self, id: EntityId, slice: u64) -> bool {
        let idx = match self.slot_of.get(id as usize) {
            Some(&i) if i != NIL => i,
            _ => return false,
        };
        if self.nodes[idx as usize].slice == slice {
            return true;
        }
        self.nodes[idx as usize].slice = slice;
        let mut path = [NIL; MAX_DEPTH];
        let depth = self.path_to(idx, &mut path);
        self.fixup(&path[..depth], usize::MAX);
        true
    }

    #[inline]
    pub fn contains(&self, id: EntityId) -> bool {
        matches!(self.slot_of.get(id as usize), Some(&i) if i != NIL)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Leftmost = earliest deadline (first inserted among equals).
    #[inline]
    pub fn first(&self) -> Option<EntityId> {
        if self.leftmost == NIL {
            None
        } else {
            Some(self.nodes[self.leftmost as usize].id)
        }
    }

    /// Minimum vruntime (signed-difference) over the whole tree.
    #[cfg(test)]
    pub fn min_vruntime(&self) -> Option<u64> {
        if !self.tracks_eligibility {
            return self.iter().map(|e| e.2).reduce(vmin);
        }
        self.root_node().map(|n| n.min_vruntime)
    }

    /// Minimum slice over the whole tree.
    #[inline]
    pub fn min_slice(&self) -> Option<u64> {
        self.root_node().map(|n| n.min_slice)
    }

    /// Maximum slice over the whole tree.
    #[inline]
    pub fn max_slice(&self) -> Option<u64> {
        self.root_node().map(|n| n.max_slice)
    }

    /// The EEVDF heap walk (__pick_eevdf): the earliest-deadline entity whose vruntime is
    /// eligible. `eligible` must be monotone (eligible(v) implies eligible(u) for u <= v).
    /// At most two calls of `eligible` per tree level.
    pub fn pick_eligible(&self, eligible: impl Fn(u64) -> bool) -> Option<EntityId> {
        if !self.tracks_eligibility {
            // The walk below returns the first eligible entity in order.
            return self.iter().find(|e| eligible(e.2)).map(|e| e.0);
        }
        let mut cur = self.root;
        while cur != NIL {
            let node = &self.nodes[cur as usize];
            let left = node.left;
            if left != NIL && eligible(self.nodes[left as usize].min_vruntime) {
                cur = left;
                continue;
            }
            if eligible(node.vruntime) {
                return Some(node.id);
            }
            cur = node.right;
        }
        None
    }

    /// In-order iteration (earliest deadline first): (id, deadline, vruntime, slice).
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, u64, u64, u64)> + '_ {
        let mut it = Iter {
            tree: self,
            stack: [NIL; MAX_DEPTH],
            sp: 0,
        };
        it.push_left_spine(self.root);
        it
    }

    // ----- internals -----

    #[inline]
    fn root_node(&self) -> Option<&Node> {
        if self.root == NIL {
            None
        } else {
            Some(&self.nodes[self.root as usize])
        }
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if self.free_head != NIL {
            let i = self.free_head;
            self.free_head = self.nodes[i as usize].left;
            self.nodes[i as usize] = node;
            i
        } else {
            let i = self.nodes.len();
            assert!(i < NIL as usize, "AvlTree: arena exhausted");
            self.nodes.push(node);
            i as u32
        }
    }

    #[inline]
    fn dealloc(&mut self, i: u32) {
        let n = &mut self.nodes[i as usize];
        n.left = self.free_head;
        n.right = NIL;
        n.height = 0;
        self.free_head = i;
    }

    #[inline]
    fn leftmost_of(&self, mut i: u32) -> u32 {
        while self.nodes[i as usize].left != NIL {
            i = self.nodes[i as usize].left;
        }
        i
    }

    #[inline(always)]
    fn h(&self, i: u32) -> u32 {
        if i == NIL {
            0
        } else {
            self.nodes[i as usize].height
        }
    }

    /// Recompute height and aggregates of `i` from its own payload and its children.
    #[inline]
    fn update(&mut self, i: u32) {
        let (l, r) = {
            let n = &self.nodes[i as usize];
            (n.left, n.right)
        };
        let n = &self.nodes[i as usize];
        let mut height = 0;
        let mut mins = n.slice;
        let mut maxs = n.slice;
        let mut minv = n.vruntime;
        for c in [l, r] {
            if c != NIL {
                let c = &self.nodes[c as usize];
                height = height.max(c.height);
                mins = mins.min(c.min_slice);
                maxs = maxs.max(c.max_slice);
                if self.tracks_eligibility {
                    minv = vmin(minv, c.min_vruntime);
                }
            }
        }
        let track = self.tracks_eligibility;
        let n = &mut self.nodes[i as usize];
        n.height = height + 1;
        n.min_slice = mins;
        n.max_slice = maxs;
        if track {
            n.min_vruntime = minv;
        }
    }

    fn rotate_right(&mut self, x: u32) -> u32 {
        let l = self.nodes[x as usize].left;
        let lr = self.nodes[l as usize].right;
        self.nodes[x as usize].left = lr;
        self.nodes[l as usize].right = x;
        self.update(x);
        self.update(l);
        l
    }

    fn rotate_left(&mut self, x: u32) -> u32 {
        let r = self.nodes[x as usize].right;
        let rl = self.nodes[r as usize].left;
        self.nodes[x as usize].right = rl;
        self.nodes[r as usize].left = x;
        self.update(x);
        self.update(r);
        r
    }

    /// Restore the AVL invariant at `x` (whose children are valid) and refresh its fields.
    /// Returns the new root of the subtree.
    fn rebalance(&mut self, x: u32) -> u32 {
        let (l, r) = {
            let n = &self.nodes[x as usize];
            (n.left, n.right)
        };
        let (hl, hr) = (self.h(l), self.h(r));
        if hl > hr + 1 {
            let (ll, lr) = {
                let n = &self.nodes[l as usize];
                (n.left, n.right)
            };
            if self.h(ll) < self.h(lr) {
                let nl = self.rotate_left(l);
                self.nodes[x as usize].left = nl;
            }
            self.rotate_right(x)
        } else if hr > hl + 1 {
            let (rl, rr) = {
                let n = &self.nodes[r as usize];
                (n.left, n.right)
            };
            if self.h(rr) < self.h(rl) {
                let nr = self.rotate_right(r);
                self.nodes[x as usize].right = nr;
            }
            self.rotate_left(x)
        } else {
            self.update(x);
            x
        }
    }

    /// Walk `path` (root first) bottom-up, rebalancing and refreshing aggregates. Stops
    /// early once a subtree's height and aggregates are unchanged (ancestors are then
    /// unaffected, since a subtree's aggregates depend only on its set of entities), but only
    /// at levels `i <= stop_ok_from` (levels deeper than that must all be visited).
    fn fixup(&mut self, path: &[u32], stop_ok_from: usize) {
        for i in (0..path.len()).rev() {
            let x = path[i];
            let before = {
                let n = &self.nodes[x as usize];
                (n.height, n.min_vruntime, n.min_slice, n.max_slice)
            };
            let y = self.rebalance(x);
            if y != x {
                if i == 0 {
                    self.root = y;
                } else {
                    let p = &mut self.nodes[path[i - 1] as usize];
                    if p.left == x {
                        p.left = y;
                    } else {
                        p.right = y;
                    }
                }
            }
            let after = {
                let n = &self.nodes[y as usize];
                (n.height, n.min_vruntime, n.min_slice, n.max_slice)
            };
            if before == after && i <= stop_ok_from {
                break;
            }
        }
    }

    /// Fill `path` with the root-to-`idx` path (inclusive); returns its length.
    fn path_to(&self, idx: u32, path: &mut [u32; MAX_DEPTH]) -> usize {
        let (d, s) = {
            let n = &self.nodes[idx as usize];
            (n.deadline, n.seq)
        };
        let mut depth = 0;
        let mut cur = self.root;
        while cur != NIL {
            path[depth] = cur;
            depth += 1;
            if cur == idx {
                return depth;
            }
            let n = &self.nodes[cur as usize];
            let go_left = if d == n.deadline {
                s < n.seq
            } else {
                vlt(d, n.deadline)
            };
            cur = if go_left { n.left } else { n.right };
        }
        // Only reachable if the deadlines span >= 2^63 (inconsistent order): find the
        // path structurally instead.
        self.path_to_slow(idx, path)
    }

    #[cold]
    fn path_to_slow(&self, idx: u32, path: &mut [u32; MAX_DEPTH]) -> usize {
        let mut parent = vec![NIL; self.nodes.len()];
        let mut stack = vec![self.root];
        while let Some(x) = stack.pop() {
            let n = &self.nodes[x as usize];
            for c in [n.left, n.right] {
                if c != NIL {
                    parent[c as usize] = x;
                    stack.push(c);
                }
            }
        }
        let mut rev = Vec::with_capacity(MAX_DEPTH);
        let mut x = idx;
        while x != NIL {
            rev.push(x);
            x = parent[x as usize];
        }
        assert_eq!(
            *rev.last().unwrap(),
            self.root,
            "AvlTree: node not reachable"
        );
        for (k, &x) in rev.iter().rev().enumerate() {
            path[k] = x;
        }
        rev.len()
    }
}

struct Iter<'a> {
    tree: &'a AvlTree,
    stack: [u32; MAX_DEPTH],
    sp: usize,
}

impl Iter<'_> {
    #[inline]
    fn push_left_spine(&mut self, mut i: u32) {
        while i != NIL {
            self.stack[self.sp] = i;
            self.sp += 1;
            i = self.tree.nodes[i as usize].left;
        }
    }
}

impl Iterator for Iter<'_> {
    type Item = (EntityId, u64, u64, u64);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.sp == 0 {
            return None;
        }
        self.sp -= 1;
        let i = self.stack[self.sp];
        let n = &self.tree.nodes[i as usize];
        self.push_left_spine(n.right);
        Some((n.id, n.deadline, n.vruntime, n.slice))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    impl AvlTree {
        /// Height of the tree (0 when empty).
        fn height(&self) -> u32 {
            self.h(self.root)
        }

        /// Full structural check: AVL balance, heights, aggregates, order, caches, maps.
        pub(crate) fn check_invariants(&self) {
            fn walk(t: &AvlTree, i: u32, count: &mut usize) -> (u32, u64, u64, u64) {
                let n = &t.nodes[i as usize];
                let mut h = 0;
                let (mut minv, mut mins, mut maxs) = (n.vruntime, n.slice, n.slice);
                for c in [n.left, n.right] {
                    if c != NIL {
                        let (ch, cv, cs, cm) = walk(t, c, count);
                        h = h.max(ch);
                        minv = vmin(minv, cv);
                        mins = mins.min(cs);
                        maxs = maxs.max(cm);
                    }
                }
                let (hl, hr) = (t.h(n.left), t.h(n.right));
                assert!(hl.abs_diff(hr) <= 1, "AVL balance violated");
                assert_eq!(n.height, h + 1, "height");
                if t.tracks_eligibility {
                    assert_eq!(n.min_vruntime, minv, "min_vruntime aggregate");
                }
                assert_eq!(n.min_slice, mins, "min_slice aggregate");
                assert_eq!(n.max_slice, maxs, "max_slice aggregate");
                assert_eq!(t.slot_of[n.id as usize], i, "id map");
                *count += 1;
                (n.height, minv, mins, maxs)
            }
            let mut count = 0;
            if self.root != NIL {
                walk(self, self.root, &mut count);
                assert_eq!(self.leftmost, self.leftmost_of(self.root), "leftmost cache");
            } else {
                assert_eq!(self.leftmost, NIL);
            }
            assert_eq!(count, self.len);
            assert_eq!(self.slot_of.iter().filter(|&&s| s != NIL).count(), self.len);
            // Free list + live nodes account for the whole arena.
            let mut free = 0;
            let mut f = self.free_head;
            while f != NIL {
                free += 1;
                f = self.nodes[f as usize].left;
            }
            assert_eq!(free + self.len, self.nodes.len());
            // In-order sequence is sorted by (deadline signed, seq).
            let mut prev: Option<(u64, u64)> = None;
            let mut stack = Vec::new();
            let mut cur = self.root;
            while cur != NIL || !stack.is_empty() {
                while cur != NIL {
                    stack.push(cur);
                    cur = self.nodes[cur as usize].left;
                }
                let i = stack.pop().unwrap();
                let n = &self.nodes[i as usize];
                if let Some((pd, ps)) = prev {
                    assert!(
                        vlt(pd, n.deadline) || (pd == n.deadline && ps < n.seq),
                        "order"
                    );
                }
                prev = Some((n.deadline, n.seq));
                cur = n.right;
            }
        }
    }

    #[test]
    fn tree_order_across_wrap() {
        let base = 0u64.wrapping_sub(1 << 20);
        let mut t = AvlTree::new(true);
        // Deadlines straddle zero: base+2^20+5 == 5 is later than base.
        t.insert(0, 5, 5, 10);
        t.insert(1, base, base.wrapping_add(7), 20);
        t.insert(2, u64::MAX, 3, 30);
        t.insert(3, base, u64::MAX - 2, 5);
        t.check_invariants();
        let ids: Vec<_> = t.iter().map(|e| e.0).collect();
        assert_eq!(ids, vec![1, 3, 2, 0]);
        assert_eq!(t.first(), Some(1));
        assert_eq!(t.min_vruntime(), Some(base.wrapping_add(7)));
        assert_eq!(t.min_slice(), Some(5));
        assert_eq!(t.max_slice(), Some(30));
        // Eligible up to u64::MAX - 2 (i.e. -3): ids 1 and 3 qualify; 1 is first.
        let thr = u64::MAX - 2;
        assert_eq!(t.pick_eligible(|v| !vlt(thr, v)), Some(1));
        // Eligible up to 3 (past the wrap): everyone but id 0.
        assert_eq!(t.pick_eligible(|v| !vlt(3, v)), Some(1));
        assert_eq!(t.pick_eligible(|v| !vlt(base, v)), None);
        assert!(t.remove(1));
        assert_eq!(t.pick_eligible(|v| !vlt(base, v)), None);
        assert_eq!(t.pick_eligible(|v| !vlt(thr, v)), Some(3));
        assert_eq!(t.min_vruntime(), Some(u64::MAX - 2));
        t.check_invariants();
    }

    #[test]
    fn basics_and_ties() {
        let mut t = AvlTree::default();
        assert!(t.is_empty());
        assert_eq!(t.first(), None);
        assert_eq!(t.min_vruntime(), None);
        assert_eq!(t.min_slice(), None);
        assert_eq!(t.max_slice(), None);
        assert_eq!(t.pick_eligible(|_| true), None);
        assert!(!t.remove(3));
        for id in [4, 2, 9, 0] {
            t.insert(id, 100, 50 + id as u64, 1000);
        }
        let ids: Vec<_> = t.iter().map(|e| e.0).collect();
        assert_eq!(ids, vec![4, 2, 9, 0]);
        assert_eq!(t.first(), Some(4));
        assert!(t.remove(4));
        assert!(!t.contains(4));
        assert_eq!(t.first(), Some(2));
        t.insert(4, 100, 1, 1000); // re-insert goes after the equal ones
        let ids: Vec<_> = t.iter().map(|e| e.0).collect();
        assert_eq!(ids, vec![2, 9, 0, 4]);
        assert_eq!(t.pick_eligible(|v| v <= 1), Some(4));
        assert_eq!(t.len(), 4);
        t.check_invariants();
    }

    #[test]
    #[should_panic]
    #[cfg(debug_assertions)]
    fn duplicate_insert_panics_in_debug() {
        let mut t = AvlTree::new(true);
        t.insert(1, 1, 1, 1);
        t.insert(1, 2, 2, 2);
    }

    /// Deterministic xorshift for the large tests.
    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    fn step_bound(n: usize) -> usize {
        // 2 * ceil(log2 n) + few.
        2 * (usize::BITS - (n - 1).leading_zeros()) as usize + 6
    }

    #[test]
    fn pick_eligible_is_logarithmic() {
        let n = 10_000usize;
        let base = 0u64.wrapping_sub(1 << 20);
        for pattern in 0..3 {
            let mut t = AvlTree::new(true);
            let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ pattern;
            for id in 0..n as u32 {
                let r = xorshift(&mut s);
                let (d, v) = match pattern {
                    // random deadlines and vruntimes
                    0 => (
                        base.wrapping_add(r % 1_000_000),
                        base.wrapping_add((r >> 20) % 1_000_000),
                    ),
                    // monotone deadlines (typical), random vruntimes
                    1 => (
                        base.wrapping_add(id as u64 * 10),
                        base.wrapping_add(r % 1_000_000),
                    ),
                    // all-equal deadlines, decreasing vruntimes (eligible one at the far right)
                    _ => (base, base.wrapping_add((n as u64 - id as u64) * 10)),
                };
                t.insert(id, d, v, 1000 + r % 1000);
            }
            // Churn a bit so the tree is not just the insertion shape.
            for id in (0..n as u32).step_by(3) {
                let (_, d, v, sl) = t.iter().find(|e| e.0 == id).unwrap();
                t.remove(id);
                t.insert(id, d, v, sl);
            }
            t.check_invariants();
            let h = t.height() as usize;
            // AVL height bound: < 1.4405 log2(n + 2).
            assert!((h as f64) < 1.4405 * ((n + 2) as f64).log2(), "height {h}");
            let entries: Vec<_> = t.iter().collect();
            let mut worst = 0;
            for k in 0..200u64 {
                let thr = base.wrapping_add(k * 5_000 + (xorshift(&mut s) % 5_000));
                let calls = Cell::new(0usize);
                let got = t.pick_eligible(|v| {
                    calls.set(calls.get() + 1);
                    !vlt(thr, v)
                });
                let want = entries.iter().find(|e| !vlt(thr, e.2)).map(|e| e.0);
                assert_eq!(got, want);
                assert!(calls.get() <= 2 * h);
                worst = worst.max(calls.get());
            }
            eprintln!("pattern {pattern}: height {h}, worst {worst} eligible() calls");
            assert!(
                worst <= step_bound(n),
                "pattern {pattern}: {worst} calls of eligible (height {h}, bound {})",
                step_bound(n)
            );
        }
    }
}
