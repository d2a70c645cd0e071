//! The reorder buffer between the hooks and the output. Records arrive in simulated-time
//! order, with one exception: a `cpu_idle` entry is pushed as a placeholder when the CPU
//! goes idle and gets its state when the idle period ends (the model's cpuidle choice is
//! the deepest state the whole period justified). Records are released to the sink in
//! chunks, up to the oldest placeholder still open, so memory stays bounded.

use super::event::{Payload, Rec};
use std::collections::VecDeque;

/// Records per chunk handed to the sink.
pub const CHUNK: usize = 16 * 1024;
/// Records held at most: past this, the oldest open placeholder is settled early.
pub const CAP: usize = 256 * 1024;

#[derive(Default)]
pub struct Buffer {
    recs: VecDeque<Rec>,
    /// Absolute index of `recs[0]`.
    base: u64,
    scratch: Vec<Rec>,
}

impl Buffer {
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// Append; returns the record's absolute index.
    pub fn push(&mut self, r: Rec) -> u64 {
        self.recs.push_back(r);
        self.base + self.recs.len() as u64 - 1
    }

    /// Replace the payload of a record still held.
    pub fn patch(&mut self, at: u64, payload: Payload) {
        if let Some(i) = at.checked_sub(self.base) {
            if let Some(r) = self.recs.get_mut(i as usize) {
                r.payload = payload;
            }
        }
    }

    /// Release the records before absolute index `limit` (all if `None`).
    pub fn drain(&mut self, limit: Option<u64>) -> &[Rec] {
        let n = match limit {
            Some(l) => (l.saturating_sub(self.base) as usize).min(self.recs.len()),
            None => self.recs.len(),
        };
        self.scratch.clear();
        self.scratch.extend(self.recs.drain(..n));
        self.base += n as u64;
        &self.scratch
    }
}
