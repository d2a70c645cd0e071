//! `schedlab`: command-line front end. Subcommands: run, features, machines, bench, ab, sweep, study, validate, report.
//! Flags and their precedence over scenario files: docs/scenario.md.
//!
//! Exit codes: 0 success, 1 an I/O failure (e.g. the --json file could not be written),
//! 2 bad input (our own checks and clap's usage errors alike). Every error is one line
//! `schedlab: error: …` on stderr.

mod ab;
mod bench;
mod bench_suite;
mod cli_error;
mod lists;
mod output;
mod parallel_args;
mod progress;
mod report;
mod run;
mod study;
mod sweep;
mod trace_args;
mod validate;

use clap::{Parser, Subcommand};
use cli_error::CliError;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "schedlab",
    version = concat!(
        env!("CARGO_PKG_VERSION"),
        " (commit ",
        env!("SCHEDLAB_COMMIT"),
        ", model ",
        env!("SCHEDLAB_MODEL_HASH"),
        ")"
    ),
    about = "Deterministic simulator of the Linux fair scheduler (EEVDF)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process; boxing the big variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Run a scenario (a TOML file and/or flags) and report perf-stat-style counters.
    Run(run::RunArgs),
    /// List the scheduler features of a kernel version: name, default, meaning.
    Features(lists::FeaturesArgs),
    /// List the machine presets; `machines show NAME` prints one as a machine file,
    /// `machines capture` prints this host's machine (docs/machines.md).
    Machines(lists::MachinesArgs),
    /// Measure simulation speed: the standard benchmark scenario, or `--suite`.
    Bench(bench::BenchArgs),
    /// Compare one scenario under two settings over N seeds: means, 95% CIs, perc_diff
    /// and Welch's t-test per metric (docs/ab.md).
    Ab(ab::AbArgs),
    /// Run a grid of settings × seeds from a sweep file, resumably, into one table
    /// (docs/sweep.md).
    Sweep(sweep::SweepArgs),
    /// The seed threads' experiments: `study list`, `study run NAME` (docs/studies.md).
    Study(study::StudyArgs),
    /// Run a scenario on this host's real kernel and in the simulator, side by side
    /// (docs/validate.md).
    Validate(validate::ValidateArgs),
    /// Write a self-contained HTML report of a `run --json` or `ab --json` result
    /// (docs/report.md).
    Report(report::ReportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Features(args) => lists::features(args),
        Command::Machines(args) => lists::machines(args),
        Command::Bench(args) => bench::bench(args),
        Command::Ab(args) => ab::ab(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Study(args) => study::study(args),
        Command::Validate(args) => validate::validate(args),
        Command::Report(args) => report::report(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("schedlab: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
