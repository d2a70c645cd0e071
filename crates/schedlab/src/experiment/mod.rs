//! Scenarios (machine, features, workloads, seed, length) and running them.

pub mod ab;
pub mod bench;
pub mod bench_suite;
pub mod cgroups_toml;
mod collect_cpus;
pub mod glob;
pub mod group_setup;
pub mod intervals;
pub mod noise;
pub mod parallel;
pub mod report;
pub mod report_csv;
mod report_summary;
pub mod results;
pub mod run;
pub mod scenario;
pub mod scenario_toml;
pub mod study;
pub mod study_run;
pub mod study_runs;
pub mod sweep;
pub mod sweep_run;
pub mod sysctl;
pub mod trace_rows;
pub mod trace_run;
pub mod trace_toml;

pub use report::{render_human, render_human_with, Detail};
pub use results::RunResult;
pub use run::run_scenario;
pub use scenario::{PreemptModel, Scenario};
pub use scenario_toml::{load_scenario, parse_scenario};
