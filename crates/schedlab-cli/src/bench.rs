//! `schedlab bench`: simulation speed on the standard scenario (experiment::bench).

use crate::cli_error::CliError;
use clap::Args;
use schedlab::experiment::bench::on_machine;
use schedlab::sched::cpufreq_schedutil::Governor;
use schedlab::InputError;
use std::io::Write;

#[derive(Args)]
pub struct BenchArgs {
    /// Simulated seconds to run (8 hogs + 8 periodic tasks per CPU).
    #[arg(long, default_value_t = 60)]
    secs: u64,
    /// Machine preset; `smp-dvfs:8` exercises schedutil and the energy meter.
    #[arg(short, long, default_value = "smp:8")]
    machine: String,
    /// Governor: schedutil, performance, powersave or fixed:MHZ.
    #[arg(long, default_value = "schedutil")]
    governor: String,
}

pub fn bench(args: BenchArgs) -> Result<(), CliError> {
    if args.secs == 0 || args.secs > 3600 {
        return Err(InputError::new("--secs", "must be between 1 and 3600")
            .with_fix("e.g. --secs 60")
            .into());
    }
    let governor = Governor::from_name(&args.governor).map_err(|m| {
        InputError::new("--governor", m)
            .with_fix("use schedutil, performance, powersave or fixed:MHZ")
    })?;
    let r = on_machine(args.secs, &args.machine, governor)?;
    let wall = r.sim.wall_s.max(1e-9);
    let sim_s = r.sim.time_ns as f64 / 1e9;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "bench: {}, {} hogs + {} periodic tasks, governor {}, {} s simulated",
        args.machine,
        r.tasks.len() / 2,
        r.tasks.len() / 2,
        args.governor,
        args.secs
    )?;
    writeln!(out, "{:>16}  events", r.sim.events)?;
    writeln!(out, "{:>16.3}  wall seconds", r.sim.wall_s)?;
    writeln!(out, "{:>16.0}  events/s", r.sim.events as f64 / wall)?;
    writeln!(out, "{:>16.2}  simulated/wall", sim_s / wall)?;
    Ok(())
}
