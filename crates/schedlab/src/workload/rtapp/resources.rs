//! rt-app resources: the mutexes, condition variables, barriers and semaphores events
//! name, created on first use and shared by every thread of the file (rt-app's global
//! resource table, keyed by name and type), and the tasks `fork` events name.

use crate::workload::program::ObjectSpec;
use crate::workload::Op;
use std::collections::HashMap;

/// rt-app keeps one namespace per resource type: a mutex and a condvar may share a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Mutex,
    /// Condition variables: `wait`, `signal`, `broad`, `sync`, `suspend`, `resume`.
    Cond,
    Barrier,
    Semaphore,
}

#[derive(Default)]
pub struct Resources {
    pub objects: Vec<ObjectSpec>,
    by_name: HashMap<(Kind, String), usize>,
    /// Tasks named by `fork` events, in order of first use, with that use's JSON path.
    pub fork_targets: Vec<(String, String)>,
}

impl Resources {
    /// The object `name` of `kind`, created on first use.
    pub fn get(&mut self, kind: Kind, name: &str) -> usize {
        if let Some(&i) = self.by_name.get(&(kind, name.to_string())) {
            return i;
        }
        self.objects.push(match kind {
            Kind::Mutex => ObjectSpec::Mutex,
            Kind::Cond => ObjectSpec::WaitQueue,
            // Parties are counted once every task is known (`add_parties`).
            Kind::Barrier => ObjectSpec::Barrier { parties: 0 },
            // POSIX sem_init(0): posts are remembered without bound.
            Kind::Semaphore => ObjectSpec::Semaphore {
                initial: 0,
                max: u64::MAX,
            },
        });
        self.by_name
            .insert((kind, name.to_string()), self.objects.len() - 1);
        self.objects.len() - 1
    }

    /// The fork-target slot of task `name` (resolved to a template at the end).
    pub fn fork_target(&mut self, name: &str, path: &str) -> usize {
        match self.fork_targets.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.fork_targets.push((name.to_string(), path.to_string()));
                self.fork_targets.len() - 1
            }
        }
    }

    /// rt-app counts a barrier's users from the file: every thread of every task whose
    /// events name it. `threads` more threads run `program`.
    pub fn add_parties(&mut self, program: &[Op], threads: u64) {
        let mut seen = Vec::new();
        for op in program {
            if let Op::BarrierWait { obj } = op {
                if !seen.contains(obj) {
                    seen.push(*obj);
                    if let ObjectSpec::Barrier { parties } = &mut self.objects[*obj] {
                        *parties = parties.saturating_add(threads.min(u32::MAX as u64) as u32);
                    }
                }
            }
        }
    }
}
