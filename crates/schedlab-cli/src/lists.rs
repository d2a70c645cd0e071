//! `schedlab features` and `schedlab machines`: what the simulator knows about.

use crate::cli_error::CliError;
use schedlab::machine::presets::{preset_description, PRESET_NAMES};
use schedlab::sched::features::REGISTRY;
use std::io::Write;

/// Every sched feature as in /sys/kernel/debug/sched/features, one a line, with the kernel
/// default and its meaning; the last line is the default set in debugfs form.
pub fn features() -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let w = REGISTRY
        .iter()
        .map(|r| r.1.len())
        .fold("FEATURE".len(), usize::max);
    writeln!(out, "{:<w$}  {:<7}  MEANING", "FEATURE", "DEFAULT")?;
    for (_, name, default, meaning) in REGISTRY {
        let d = if *default { "on" } else { "off" };
        writeln!(out, "{name:<w$}  {d:<7}  {meaning}")?;
    }
    Ok(())
}

/// Machine presets with a one-line description each.
pub fn machines() -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let w = PRESET_NAMES
        .iter()
        .map(|n| n.len())
        .fold("PRESET".len(), usize::max);
    writeln!(out, "{:<w$}  DESCRIPTION", "PRESET")?;
    for name in PRESET_NAMES {
        let d = preset_description(name).unwrap_or("");
        writeln!(out, "{name:<w$}  {d}")?;
    }
    Ok(())
}
