//! User space: the interpreter of task programs (the workload IR) and the kernel objects
//! programs share — pipes, sockets, futex-style mutexes, wait queues, barriers,
//! semaphores. It turns ops into work, sleeps and wake-ups for the kernel model, and
//! never reaches into the model's internals beyond the calls a task makes.

pub mod interp;
pub mod objects;
mod sharing;

pub use crate::workload::{Probes, Sample};
pub use interp::{Interpreter, Step};
