//! The fair scheduling class (EEVDF), spec fair §1–§2.
//!
//! - `weights`: nice tables and calc_delta_fair (§1)
//! - `tree`: the augmented deadline-ordered tree (§2.4)
//! - `eevdf`: one cfs_rq level: V, eligibility, deadlines, protection, pick, lag, placement
//! - `entity`: enqueue/dequeue/set_next/put_prev of one entity, update_curr, delayed dequeue
//! - `class`: the task-level hooks the core calls (enqueue_task_fair, pick, preemption, …)
//! - `placement`: wake-up, fork and exec CPU selection (placement §2, fair §6.6)
//! - `reweight`: nice and policy changes (§2.16)
//! - `balance`: load balancing (spec placement §3)
//! - `group`: task groups, shares, hierarchical PELT, h_load, bandwidth, autogroup

pub mod balance;
pub mod class;
pub mod eevdf;
pub mod entity;
pub mod group;
pub mod load_avg;
pub mod placement;
pub mod reweight;
pub mod tree;
pub mod util_est;
pub mod wake_affine;
pub mod weights;

pub use eevdf::{dequeue, enqueue};

#[cfg(test)]
mod tests;
