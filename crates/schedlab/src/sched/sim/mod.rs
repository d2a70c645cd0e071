//! Not kernel code: the simulator's own physics, which the kernel model runs on.
//!
//! The kernel does not compute these; real hardware does. `hw.rs` (SMT threads sharing a
//! core, the cache penalty of a migration), `progress.rs` (a running task's work
//! progressing at its CPU's speed; the delay of an idle exit), `overhead.rs` (the CPU time
//! of the scheduler's own paths, booked to the kernel function that spent it — the one
//! cost API), `shared_line.rs` (contended cache lines), `energy_meter.rs` (time in state
//! and energy), `noise.rs` (seeded run-to-run variation). docs/model.md, Hardware costs.

pub mod energy_meter;
pub mod hw;
pub mod noise;
pub mod overhead;
pub mod progress;
pub mod shared_line;
