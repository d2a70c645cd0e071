//! `schedlab bench`: simulation speed on the standard scenario (experiment::bench).

use crate::cli_error::CliError;
use clap::Args;
use schedlab::experiment::bench::{on_machine_grouped, preset, run_preset};
use schedlab::sched::cpufreq_schedutil::Governor;
use schedlab::InputError;
use std::io::Write;

#[derive(Args)]
pub struct BenchArgs {
    /// Simulated seconds to run (default: the scenario's, 60 for standard).
    #[arg(long)]
    secs: Option<u64>,
    /// standard (8 pinned hogs + 8 pinned periodic tasks per CPU of --machine), cgroup3
    /// (the same, every task three cgroup levels deep), epyc
    /// (1,000 hogs + 1,000 periodic tasks on epyc-9654-2s, 10 s) or power10 (10,000
    /// periodic tasks on power10-240c-smt8, 1 s); epyc and power10 leave placement and
    /// spreading to the scheduler.
    #[arg(long, default_value = "standard")]
    scenario: String,
    /// Machine preset; `smp-dvfs:8` exercises schedutil and the energy meter.
    #[arg(short, long, default_value = "smp:8")]
    machine: String,
    /// Governor: schedutil, performance, powersave or fixed:MHZ.
    #[arg(long, default_value = "schedutil")]
    governor: String,
    /// Run the speed suite (docs/performance.md): every row in its own process, with
    /// sim-s/wall-s, events/s, context switches/s and peak RSS.
    #[arg(long)]
    suite: bool,
    /// With --suite: only these rows (comma-separated names).
    #[arg(long, default_value = "")]
    rows: String,
    /// With --suite: print each row as schedlab arguments instead of running it.
    #[arg(long)]
    commands: bool,
    /// Run one suite row in this process (what --suite runs in each child).
    #[arg(long, hide = true)]
    row: Option<String>,
}

pub fn bench(args: BenchArgs) -> Result<(), CliError> {
    if let Some(name) = &args.row {
        return crate::bench_suite::run_row(name);
    }
    if args.suite && args.commands {
        return crate::bench_suite::print_commands(&args.rows);
    }
    if args.suite {
        return crate::bench_suite::suite(&args.rows);
    }
    let p = preset(&args.scenario)?;
    let secs = args.secs.unwrap_or(p.secs);
    if secs == 0 || secs > 3600 {
        return Err(InputError::new("--secs", "must be between 1 and 3600")
            .with_fix("e.g. --secs 60")
            .into());
    }
    let governor = Governor::from_name(&args.governor).map_err(|m| {
        InputError::new("--governor", m)
            .with_fix("use schedutil, performance, powersave or fixed:MHZ")
    })?;
    let (r, machine) = if p.name == "standard" || p.name == "cgroup3" {
        (
            on_machine_grouped(secs, &args.machine, governor, p.cgroup_levels)?,
            args.machine.clone(),
        )
    } else {
        (run_preset(&p, secs, governor)?, p.machine.to_string())
    };
    let wall = r.sim.wall_s.max(1e-9);
    let sim_s = r.sim.time_ns as f64 / 1e9;
    let hogs = r
        .tasks
        .iter()
        .filter(|t| t.comm.starts_with("hog-"))
        .count();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "bench {}: {}, {} hogs + {} periodic tasks, governor {}, {} s simulated",
        p.name,
        machine,
        hogs,
        r.tasks.len() - hogs,
        args.governor,
        secs
    )?;
    writeln!(out, "{:>16}  events", r.sim.events)?;
    // Largest kinds first: where the events go (docs/performance.md).
    let mut kinds: Vec<_> = r.sim.events_by_kind.iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (kind, n) in kinds {
        writeln!(out, "{n:>16}    {kind}")?;
    }
    writeln!(out, "{:>16.3}  wall seconds", r.sim.wall_s)?;
    writeln!(out, "{:>16.0}  events/s", r.sim.events as f64 / wall)?;
    writeln!(out, "{:>16.2}  simulated/wall", sim_s / wall)?;
    writeln!(out, "{:>16}  cpu-migrations", r.perf.cpu_migrations)?;
    Ok(())
}
