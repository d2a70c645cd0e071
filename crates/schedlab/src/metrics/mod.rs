//! Observation: counters and histograms collected from probes, and the result document.

pub mod latency;
pub mod report;
pub mod results;

pub use report::render_human;
pub use results::*;
