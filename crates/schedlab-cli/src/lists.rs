//! `schedlab features` and `schedlab machines [show NAME | capture]`: what the simulator
//! knows about.

use crate::cli_error::CliError;
use clap::{Args, Subcommand};
use schedlab::machine::capture::capture;
use schedlab::machine::machine_to_toml;
use schedlab::machine::presets::{machine_from_name, preset_description, PRESET_NAMES};
use schedlab::sched::features::REGISTRY;
use schedlab::sched::topology::{build_sched_domains, render_domains};
use schedlab::sched::version::KernelVersion;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct FeaturesArgs {
    /// The kernel version whose features to list (default: current).
    #[arg(long, value_name = "VERSION")]
    kernel: Option<String>,
}

/// The sched features of one kernel version as in /sys/kernel/debug/sched/features, one a
/// line, with that version's default and the meaning.
pub fn features(args: FeaturesArgs) -> Result<(), CliError> {
    let v = match &args.kernel {
        Some(k) => KernelVersion::parse(k, "--kernel")?,
        None => KernelVersion::Current,
    };
    let mut out = std::io::stdout().lock();
    let rows: Vec<_> = REGISTRY.iter().filter(|r| r.0.exists_in(v)).collect();
    let w = rows
        .iter()
        .map(|r| r.1.len())
        .fold("FEATURE".len(), usize::max);
    writeln!(out, "{:<w$}  {:<7}  MEANING", "FEATURE", "DEFAULT")?;
    for (f, name, _, meaning) in rows {
        let d = if f.default_in(v) { "on" } else { "off" };
        writeln!(out, "{name:<w$}  {d:<7}  {meaning}")?;
    }
    Ok(())
}

#[derive(Args)]
pub struct MachinesArgs {
    #[command(subcommand)]
    action: Option<MachinesAction>,
}

#[derive(Subcommand)]
enum MachinesAction {
    /// Print a preset or machine file as an explicit machine file (TOML), followed by its
    /// sched-domain tree as comments (like /sys/kernel/debug/sched/domains).
    Show {
        /// A preset (e.g. epyc-9654-2s, smt:4x2) or a path ending in .toml.
        name: String,
    },
    /// Read this host's topology from sysfs and print it as a machine file (TOML).
    Capture {
        /// The sysfs root to read.
        #[arg(long, value_name = "DIR", default_value = "/sys")]
        sysfs: PathBuf,
        /// Also measure costs and kernel settings on this host (docs/machines.md).
        #[arg(long)]
        calibrate: bool,
        /// Write the machine file here instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// `machines`, `machines show NAME`, `machines capture [--sysfs DIR]`.
pub fn machines(args: MachinesArgs) -> Result<(), CliError> {
    let (machine, with_domains) = match args.action {
        None => return list_machines(),
        Some(MachinesAction::Show { name }) => (machine_from_name(&name)?, true),
        Some(MachinesAction::Capture {
            sysfs,
            calibrate: true,
            output,
        }) => {
            return crate::validate::capture_calibrated(&sysfs, output.as_deref());
        }
        Some(MachinesAction::Capture { sysfs, output, .. }) => {
            let text = machine_to_toml(&capture(&sysfs)?);
            return crate::validate::write_or_print(output.as_deref(), &text);
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(machine_to_toml(&machine).as_bytes())?;
    if with_domains {
        // As TOML comments, so the output still loads as a machine file.
        let sds = build_sched_domains(&machine);
        writeln!(out, "\n# Sched domains (kernel/sched/topology.c):")?;
        for line in render_domains(&sds, &machine).lines() {
            writeln!(out, "# {line}")?;
        }
    }
    Ok(())
}

/// Machine presets with a one-line description each.
fn list_machines() -> Result<(), CliError> {
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
