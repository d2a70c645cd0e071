//! schedlab: a deterministic discrete-event simulator of the Linux fair scheduling class
//! (EEVDF, PELT, util_est, schedutil, EAS, sched domains, placement, load balancing,
//! cgroups) on simulated machines, driven by the workloads scheduler developers use.
//!
//! # Running a scenario
//!
//! A [`Scenario`] is what a scenario file or the command line describes: a machine,
//! scheduler features, workloads, a seed and a length. [`run_scenario`] simulates it and
//! returns the [`RunResult`] document that `schedlab run --json` writes.
//!
//! ```
//! use schedlab::{run_scenario, Scenario};
//!
//! let scenario = Scenario {
//!     machine: "smp:2".into(),
//!     workloads: vec!["hackbench -g 2 -f 4 -l 50 --threads --pipe".into()],
//!     features: "NO_DELAY_DEQUEUE".into(),
//!     seed: 7,
//!     ..Scenario::default()
//! };
//! let result = run_scenario(&scenario)?;
//! assert!(result.perf.context_switches > 0);
//! // hackbench itself, then 2 groups × (4 senders + 4 receivers).
//! assert_eq!(result.tasks.len(), 1 + 2 * (4 + 4));
//! // The same scenario and seed give the same result, to the byte.
//! let again = run_scenario(&scenario)?;
//! assert_eq!(
//!     serde_json::to_string(&result.tasks)?,
//!     serde_json::to_string(&again.tasks)?
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Building tasks by hand and stepping a simulation
//!
//! A [`Workload`] is a list of task programs ([`TaskSpec`] with [`Op`]s). [`prepare`]
//! builds a [`Simulation`] of it; `run_until` steps it, and the kernel model is open to
//! inspection by kernel names (`sim.sched.tasks`, `sim.sched.rqs`, `sim.sched.entities`).
//!
//! ```
//! use schedlab::{prepare, Op, Scenario, TaskSpec, Workload};
//!
//! let hog = |name: &str, nice| {
//!     TaskSpec::new(name, vec![Op::Run { work_ns: 10_000_000_000 }])
//!         .nice(nice)
//!         .cpus(Some(vec![0]))
//! };
//! let workload = Workload {
//!     tasks: vec![hog("a", 0), hog("b", 5)],
//!     ..Workload::default()
//! };
//! let scenario = Scenario { machine: "smp:1".into(), ..Scenario::default() };
//! let mut sim = prepare(&scenario, workload)?;
//! sim.run_until(1_000_000_000); // one simulated second
//! let ran = |p: usize| sim.sched.entities[sim.sched.tasks[p].se as usize].sum_exec_runtime;
//! // Nice 0 against nice 5: weights 1024 and 335, so about 3:1.
//! let ratio = ran(0) as f64 / ran(1) as f64;
//! assert!((2.7..3.4).contains(&ratio), "{ratio}");
//! # Ok::<(), schedlab::InputError>(())
//! ```
//!
//! # Layers
//!
//! Each module uses only modules on its own layer or below (docs/architecture.md;
//! `tests/layering.rs` checks it): `time`, `error`, `ids`, `machine`, `engine` (event queue,
//! RNG streams) at the bottom; `sched`, the kernel model (files named after
//! kernel/sched; the simulator's own physics apart in `sched/sim/`); `metrics` and `trace`,
//! observers of the model's tracepoints; `workload`, the task-program IR and the front ends
//! (rt-app, hackbench, schbench, …); `userspace`, the IR's interpreter and the objects
//! programs share (pipes, futexes, …); `simulation`, the run loop; `experiment`, scenarios,
//! runs, A/B, sweeps and studies.

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
pub use experiment::run::{prepare, run_workload};
pub use experiment::{
    load_scenario, parse_scenario, render_human, run_scenario, RunResult, Scenario,
};
pub use ids::{CpuId, TaskId};
pub use machine::presets::machine_from_name;
pub use machine::Machine;
pub use metrics::TaskResult;
pub use sched::features::Features;
pub use sched::{Policy, PreemptModel, Sched, SchedObserver, TaskAttrs};
pub use simulation::{Simulation, StopReason};
pub use time::{parse_duration, Ns};
pub use workload::{build_workload_on, Compiled, Op, TaskSpec, Workload};
