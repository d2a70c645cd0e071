//! `schedlab bench`: simulation speed on the standard scenario (experiment::bench).

use crate::cli_error::CliError;
use clap::Args;
use schedlab::experiment::bench::standard;
use schedlab::InputError;
use std::io::Write;

#[derive(Args)]
pub struct BenchArgs {
    /// Simulated seconds to run (64 hogs + 64 periodic tasks on smp:8).
    #[arg(long, default_value_t = 60)]
    secs: u64,
}

pub fn bench(args: BenchArgs) -> Result<(), CliError> {
    if args.secs == 0 || args.secs > 3600 {
        return Err(InputError::new("--secs", "must be between 1 and 3600")
            .with_fix("e.g. --secs 60")
            .into());
    }
    let r = standard(args.secs);
    let wall = r.sim.wall_s.max(1e-9);
    let sim_s = r.sim.time_ns as f64 / 1e9;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "bench: smp:8, 64 hogs + 64 periodic tasks, {} s simulated",
        args.secs
    )?;
    writeln!(out, "{:>16}  events", r.sim.events)?;
    writeln!(out, "{:>16.3}  wall seconds", r.sim.wall_s)?;
    writeln!(out, "{:>16.0}  events/s", r.sim.events as f64 / wall)?;
    writeln!(out, "{:>16.2}  simulated/wall", sim_s / wall)?;
    Ok(())
}
