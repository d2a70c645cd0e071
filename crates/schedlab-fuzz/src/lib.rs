//! Fuzzing of schedlab's input parsers (docs/fuzzing.md): structured generation plus
//! mutation of the repository's own examples, in-process, with panics caught and every
//! rejection checked to be a one-line `InputError`. Stable Rust; no coverage
//! instrumentation (the outcome of each input is the feedback). `soak` runs random valid
//! scenarios with the invariants checked.

pub mod driver;
pub mod gen;
pub mod mutate;
pub mod rng;
pub mod seeds;
pub mod soak;
pub mod targets;
