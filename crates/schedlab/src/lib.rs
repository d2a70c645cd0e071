//! schedlab: a deterministic discrete-event simulator of the Linux fair scheduling class.
//!
//! Layout mirrors docs/architecture.md: `engine` drives time, `machine` describes hardware,
//! `sched` is the kernel model (files named after kernel/sched), `workload` holds the task
//! program IR and its front ends, `metrics` the result document, `experiment` the scenario.

pub mod engine;
pub mod error;
pub mod experiment;
pub mod fsutil;
pub mod ids;
pub mod machine;
pub mod metrics;
pub mod sched;
pub mod simulation;
pub mod time;
pub mod trace;
pub mod userspace;
pub mod workload;

pub use error::InputError;
