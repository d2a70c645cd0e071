//! Scenarios (machine, features, workloads, seed, length) and running them.

pub mod bench;
pub mod run;
pub mod scenario;

pub use run::run_scenario;
pub use scenario::{PreemptModel, Scenario};
