//! The fair scheduling class (EEVDF).

pub mod tree;
pub mod weights;
