//! The deadline-ordered queue of a cfs_rq (the kernel's `tasks_timeline` rbtree).
//!
//! Models the kernel's cfs_rq->tasks_timeline: entities are ordered by `deadline` (kernel u64
//! virtual time, compared by signed difference); equal deadlines keep insertion order (a newly
//! inserted entity goes after existing equal ones, like `rb_add`). The kernel augments each
//! node with its subtree's `min_vruntime` and `min_slice`, which makes __pick_eevdf's walk
//! find the earliest-deadline eligible entity in O(log n); what that walk returns depends on
//! the order alone, not on the tree's shape.
//!
//! So the queue takes whichever form is cheaper for its size, with identical answers: a flat
//! sorted array while it holds at most `SMALL_MAX` entities (nearly every runqueue), an
//! augmented AVL tree beyond that (thousands of spinners on a CPU), and back to the array
//! once it has shrunk to `SMALL_MAX / 4` (the gap keeps a queue near the limit from
//! converting back and forth).
//!
//! Ordering assumption (shared with the kernel): all deadlines in one queue lie within a
//! window of less than 2^63, otherwise signed-difference comparison is not a total order.

mod avl;
mod sorted;

use avl::AvlTree;
use sorted::SortedQueue;

/// Index of an entity in the scheduler's entity arena. Dense small integers.
pub type EntityId = u32;

/// Entities above which a queue becomes a tree.
const SMALL_MAX: usize = 32;

/// Kernel-style wrapping comparison: `a < b` iff `(s64)(a - b) < 0`.
#[inline(always)]
fn vlt(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// Signed-difference minimum (the kernel's `min_vruntime()` helper).
#[inline(always)]
fn vmin(a: u64, b: u64) -> u64 {
    if vlt(b, a) {
        b
    } else {
        a
    }
}

#[derive(Clone, Debug)]
enum Form {
    Small(SortedQueue),
    Tree(Box<AvlTree>),
}

/// Queued entities ordered by (deadline, insertion order).
#[derive(Clone, Debug)]
pub struct EntityTree {
    form: Form,
    /// SMALL_MAX but for tests, which exercise the conversions with small queues.
    small_max: usize,
    /// Whether the queue, as a tree, keeps its subtrees' min_vruntime (EEVDF's pick walks
    /// it; CFS takes the leftmost, so its trees skip that upkeep). Set with the kernel
    /// (Sched::set_kernel, create_group), before anything is queued.
    tracks_eligibility: bool,
}

impl Default for EntityTree {
    fn default() -> Self {
        Self::new()
    }
}

impl EntityTree {
    pub fn new() -> Self {
        Self::with_small_max(SMALL_MAX)
    }

    fn with_small_max(small_max: usize) -> Self {
        EntityTree {
            form: Form::Small(SortedQueue::default()),
            small_max,
            tracks_eligibility: true,
        }
    }

    /// Keep (or not) the subtree min_vruntime that `pick_eligible` walks; without it
    /// `pick_eligible` scans in order (the same answer, in O(n)). Takes effect when the
    /// queue next becomes a tree.
    pub fn set_tracks_eligibility(&mut self, on: bool) {
        self.tracks_eligibility = on;
    }

    /// Insert an entity with the given deadline, vruntime and slice. Equal deadlines: the new
    /// entity goes after existing equal ones. Panics in debug builds if `id` is already
    /// present.
    pub fn insert(&mut self, id: EntityId, deadline: u64, vruntime: u64, slice: u64) {
        if let Form::Small(q) = &self.form {
            if q.len() >= self.small_max {
                self.become_tree();
            }
        }
        match &mut self.form {
            Form::Small(q) => q.insert(id, deadline, vruntime, slice),
            Form::Tree(t) => t.insert(id, deadline, vruntime, slice),
        }
    }

    /// Remove an entity; returns false if it is not queued.
    pub fn remove(&mut self, id: EntityId) -> bool {
        match &mut self.form {
            Form::Small(q) => q.remove(id),
            Form::Tree(t) => {
                let removed = t.remove(id);
                if t.len() <= self.small_max / 4 {
                    self.become_small();
                }
                removed
            }
        }
    }

    /// The tree keeps the order: inserting in order gives equal deadlines increasing
    /// insertion numbers.
    #[cold]
    fn become_tree(&mut self) {
        let mut t = AvlTree::new(self.tracks_eligibility);
        for (id, d, v, s) in self.iter() {
            t.insert(id, d, v, s);
        }
        self.form = Form::Tree(Box::new(t));
    }

    #[cold]
    fn become_small(&mut self) {
        let mut q = SortedQueue::default();
        for (id, d, v, s) in self.iter() {
            q.insert(id, d, v, s);
        }
        self.form = Form::Small(q);
    }

    /// Change a queued entity's slice in place (the kernel's min_vruntime_cb_propagate after
    /// a group slice update). False if absent.
    pub fn set_slice(&mut self, id: EntityId, slice: u64) -> bool {
        match &mut self.form {
            Form::Small(q) => q.set_slice(id, slice),
            Form::Tree(t) => t.set_slice(id, slice),
        }
    }

    pub fn contains(&self, id: EntityId) -> bool {
        match &self.form {
            Form::Small(q) => q.contains(id),
            Form::Tree(t) => t.contains(id),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match &self.form {
            Form::Small(q) => q.len(),
            Form::Tree(t) => t.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Earliest deadline (first inserted among equals).
    #[inline]
    pub fn first(&self) -> Option<EntityId> {
        match &self.form {
            Form::Small(q) => q.first(),
            Form::Tree(t) => t.first(),
        }
    }

    /// Minimum vruntime (signed-difference) over the queue (tests: the model reads it
    /// only through `pick_eligible`).
    #[cfg(test)]
    pub fn min_vruntime(&self) -> Option<u64> {
        match &self.form {
            Form::Small(q) => q.min_vruntime(),
            Form::Tree(t) => t.min_vruntime(),
        }
    }

    /// Minimum slice over the queue.
    pub fn min_slice(&self) -> Option<u64> {
        match &self.form {
            Form::Small(q) => q.min_slice(),
            Form::Tree(t) => t.min_slice(),
        }
    }

    /// Maximum slice over the queue.
    pub fn max_slice(&self) -> Option<u64> {
        match &self.form {
            Form::Small(q) => q.max_slice(),
            Form::Tree(t) => t.max_slice(),
        }
    }

    /// __pick_eevdf's search: the earliest-deadline entity whose vruntime is eligible.
    /// `eligible` must be monotone (eligible(v) implies eligible(u) for u <= v).
    #[inline]
    pub fn pick_eligible(&self, eligible: impl Fn(u64) -> bool) -> Option<EntityId> {
        match &self.form {
            Form::Small(q) => q.pick_eligible(eligible),
            Form::Tree(t) => t.pick_eligible(eligible),
        }
    }

    /// In-order iteration (earliest deadline first): (id, deadline, vruntime, slice).
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, u64, u64, u64)> + '_ {
        let (small, tree) = match &self.form {
            Form::Small(q) => (Some(q.iter()), None),
            Form::Tree(t) => (None, Some(t.iter())),
        };
        small
            .into_iter()
            .flatten()
            .chain(tree.into_iter().flatten())
    }
}

#[cfg(test)]
mod tests;
