//! The discrete-event engine: a totally ordered event queue, seeded RNG streams, and the
//! run loop that interprets task programs and drives the kernel model.

pub mod exec;
pub mod objects;
pub mod queue;
pub mod rng;
pub mod sim;

pub use queue::{Event, EventQueue};
pub use sim::Simulation;
