//! The discrete-event engine: a totally ordered event queue with per-CPU timer slots, and
//! seeded RNG streams. The run loop that drives the kernel model and user space sits
//! above both, in `simulation.rs`.

pub mod queue;
pub mod rng;
mod slot_tree;
mod work_timers;

pub use queue::{Event, EventQueue};
