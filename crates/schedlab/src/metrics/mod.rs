//! Observation: counters and histograms collected from probes, and the result document.

pub mod latency;
pub mod results;

pub use results::*;
