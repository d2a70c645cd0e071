//! Observation: statistics observers of the model's tracepoints (wake-up latency) and
//! the per-task, per-CPU and per-group parts of the result document.

pub mod latency;
pub mod results;

pub use results::*;
