//! An intrusive doubly linked list of tasks (the kernel's list_head for rq->cfs_tasks):
//! O(1) add, delete and move, with the links kept per task in one shared array, since a
//! task is on at most one such list.

use crate::sched::TaskId;

const NIL: u32 = u32::MAX;

/// A task's links: toward the tail (`prev`) and toward the head (`next`), and which list
/// holds it (0 = none).
#[derive(Debug, Clone, Copy)]
pub struct Link {
    prev: u32,
    next: u32,
    list: u32,
}

impl Default for Link {
    fn default() -> Self {
        Link {
            prev: NIL,
            next: NIL,
            list: 0,
        }
    }
}

/// The links of every task.
#[derive(Debug, Clone, Default)]
pub struct Links(Vec<Link>);

impl Links {
    fn get(&mut self, p: TaskId) -> &mut Link {
        if p >= self.0.len() {
            self.0.resize(p + 1, Link::default());
        }
        &mut self.0[p]
    }

    /// The id of the list holding `p` (0 = none).
    pub fn list_of(&self, p: TaskId) -> u32 {
        self.0.get(p).map_or(0, |l| l.list)
    }
}

/// One list: `tail` is where detach_tasks starts, `head` the most recently added.
#[derive(Debug, Clone)]
pub struct TaskList {
    /// Non-zero identity, stored in the links of the tasks on it.
    id: u32,
    tail: u32,
    head: u32,
    len: usize,
}

impl TaskList {
    pub fn new(id: u32) -> TaskList {
        assert!(id != 0, "list id 0 means 'on no list'");
        TaskList {
            id,
            tail: NIL,
            head: NIL,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tail: the least recently added task.
    pub fn front(&self) -> Option<TaskId> {
        (self.tail != NIL).then_some(self.tail as TaskId)
    }

    /// list_add: `p` becomes the head.
    pub fn push_back(&mut self, links: &mut Links, p: TaskId) {
        let head = self.head;
        *links.get(p) = Link {
            prev: head,
            next: NIL,
            list: self.id,
        };
        if head == NIL {
            self.tail = p as u32;
        } else {
            links.get(head as TaskId).next = p as u32;
        }
        self.head = p as u32;
        self.len += 1;
    }

    /// list_del: false if `p` is not on this list.
    pub fn remove(&mut self, links: &mut Links, p: TaskId) -> bool {
        if links.list_of(p) != self.id {
            return false;
        }
        let l = *links.get(p);
        match l.prev {
            NIL => self.tail = l.next,
            q => links.get(q as TaskId).next = l.next,
        }
        match l.next {
            NIL => self.head = l.prev,
            q => links.get(q as TaskId).prev = l.prev,
        }
        *links.get(p) = Link::default();
        self.len -= 1;
        true
    }

    /// Tail to head.
    pub fn iter<'a>(&self, links: &'a Links) -> impl Iterator<Item = TaskId> + 'a {
        std::iter::successors((self.tail != NIL).then_some(self.tail), move |&p| {
            let n = links.0[p as usize].next;
            (n != NIL).then_some(n)
        })
        .map(|p| p as TaskId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_delete_move_keep_order() {
        let mut links = Links::default();
        let mut a = TaskList::new(1);
        let mut b = TaskList::new(2);
        for p in [3, 1, 4] {
            a.push_back(&mut links, p);
        }
        b.push_back(&mut links, 9);
        assert_eq!(a.iter(&links).collect::<Vec<_>>(), vec![3, 1, 4]);
        assert!(!a.remove(&mut links, 9), "9 is on the other list");
        assert!(a.remove(&mut links, 1));
        assert_eq!(a.iter(&links).collect::<Vec<_>>(), vec![3, 4]);
        // Move to the head.
        a.remove(&mut links, 3);
        a.push_back(&mut links, 3);
        assert_eq!(a.iter(&links).collect::<Vec<_>>(), vec![4, 3]);
        assert_eq!((a.front(), a.len()), (Some(4), 2));
        a.remove(&mut links, 4);
        a.remove(&mut links, 3);
        assert!(a.is_empty() && a.front().is_none());
        assert_eq!(b.iter(&links).collect::<Vec<_>>(), vec![9]);
        assert_eq!(links.list_of(9), 2);
    }
}
