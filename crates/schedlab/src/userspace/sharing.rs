//! Program copies shared between tasks: equal programs run one copy (fewer cache lines
//! on the hot path, one copy for a million identical tasks), and a task's own objects
//! and counters (TaskSpec::private) are numbered from its first, so a tool's instances,
//! which differ only there, are equal.

use crate::workload::program::{match_loops, Private};
use crate::workload::Op;
use std::rc::Rc;

/// Where a task's own objects and counters start (TaskSpec::private).
#[derive(Debug, Clone, Copy, Default)]
pub struct Own {
    // u32: with them a task's ProgState stays at three cache lines.
    obj: u32,
    counter: u32,
}

/// The bit that marks an index in a shared program as the running task's own.
const OWN: usize = 1 << (usize::BITS - 1);

/// Index `i` of a shared program: the task's own (`OWN` set, counted from `first`) or
/// the workload's.
fn resolve(first: u32, i: usize) -> usize {
    if i & OWN != 0 {
        first as usize + (i ^ OWN)
    } else {
        i
    }
}

impl Own {
    /// `private`'s first object and counter (check_objects keeps every index in u32).
    pub fn of(private: &Private) -> Self {
        Own {
            obj: private.objs.start as u32,
            counter: private.counters.start as u32,
        }
    }

    /// The object an op's index names.
    pub fn obj(self, i: usize) -> usize {
        resolve(self.obj, i)
    }

    /// The counter an op's index names.
    pub fn counter(self, i: usize) -> usize {
        resolve(self.counter, i)
    }
}

/// `program` with the task's own objects and counters numbered from its first (`OWN`
/// set), so instances that differ only in them have equal programs.
fn own_numbering<'a>(program: &'a [Op], own: &Private) -> std::borrow::Cow<'a, [Op]> {
    if own.objs.is_empty() && own.counters.is_empty() {
        return program.into();
    }
    let mut program = program.to_vec();
    for op in &mut program {
        if let Some(obj) = op.object_mut().filter(|o| own.objs.contains(o)) {
            *obj = OWN | (*obj - own.objs.start);
        }
        if let Op::Count { counter } = op {
            if own.counters.contains(counter) {
                *counter = OWN | (*counter - own.counters.start);
            }
        }
    }
    program.into()
}

/// Programs seen recently, to share equal ones: equal programs are usually neighbours
/// (instances in file order), so a short window finds them without hashing ops.
#[derive(Default)]
pub struct SharedPrograms {
    recent: Vec<Shared>,
}

/// A program and its LoopBegin ↔ LoopEnd partners.
pub type Shared = (Rc<[Op]>, Rc<[usize]>);

impl SharedPrograms {
    const WINDOW: usize = 8;

    /// The copy of `program`, with the task's `own` objects and counters numbered from
    /// their first, that this task runs.
    pub fn get(&mut self, program: &[Op], own: &Private) -> Result<Shared, String> {
        let program = own_numbering(program, own);
        let program = &*program;
        if let Some((p, l)) = self.recent.iter().find(|(p, _)| **p == *program) {
            return Ok((Rc::clone(p), Rc::clone(l)));
        }
        let entry: Shared = (program.into(), match_loops(program)?.into());
        if self.recent.len() == Self::WINDOW {
            self.recent.remove(0);
        }
        self.recent.push(entry.clone());
        Ok(entry)
    }
}
