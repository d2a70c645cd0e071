//! Limits every way of building a machine checks (presets, machine files, sysfs captures);
//! a module of their own so those builders need not import each other.

/// Largest machine the simulator accepts; big enough for every seed machine.
pub const MAX_CPUS: usize = 4096;
