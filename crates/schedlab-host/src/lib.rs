//! schedlab-host: the instrument behind `schedlab validate` and `schedlab machines
//! capture --calibrate` (docs/validate.md). It runs scenarios on this host's real kernel
//! and measures them the way a user would (procfs, perf counters, tracefs); it never
//! touches the simulator's state, so simulated results stay deterministic.

pub mod calibrate;
pub mod cgroups;
pub mod cleanup;
pub mod compare;
pub mod host_run;
pub mod machine_kernel;
pub mod perf_counters;
pub mod procfs;
pub mod rtapp_exec;
pub mod rtapp_quirks;
pub mod sched_attr;
pub mod suite;
pub mod tools;
pub mod tracefs;
pub mod validate;
