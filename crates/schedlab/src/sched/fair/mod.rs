//! The fair scheduling class (EEVDF), kernel/sched/fair.c.
//!
//! - `weights`: nice tables and calc_delta_fair
//! - `tree`: the augmented deadline-ordered tree (tasks_timeline)
//! - `cfs`: the CFS-era steps (≤ v6.5) and the per-release EEVDF choices (v6.6 – v6.18)
//! - `eevdf`: one cfs_rq level: V, eligibility, deadlines, protection, pick, lag, placement
//! - `entity`: enqueue/dequeue/set_next/put_prev of one entity, update_curr, delayed dequeue
//! - `class`: the task-level hooks the core calls (enqueue_task_fair, pick, preemption, …)
//! - `placement`: wake-up, fork and exec CPU selection (select_task_rq_fair)
//! - `reweight`: nice and policy changes (reweight_entity)
//! - `balance`: load balancing (sched_balance_rq and its callers)
//! - `group`: task groups, shares, hierarchical PELT, h_load, bandwidth, autogroup

pub mod balance;
pub mod cfs;
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
