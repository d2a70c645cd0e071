//! `schedlab sweep FILE`: a grid of settings × seeds, resumable (docs/sweep.md).

use crate::cli_error::CliError;
use clap::Args;
use schedlab::experiment::sweep::load_sweep;
use schedlab::experiment::sweep_run::{render_sweep, render_sweep_csv, run_sweep};
use schedlab::InputError;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep file (TOML: scenario or [base], seeds, metrics, [[axis]]).
    file: PathBuf,
    /// Folder for the stored runs and the tables (default: FILE without .toml, plus .out).
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Parallel runs (default: the host's CPUs).
    #[arg(short, long)]
    jobs: Option<usize>,
}

pub fn sweep(args: SweepArgs) -> Result<(), CliError> {
    let spec = load_sweep(&args.file)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.file.with_extension("out"));
    if out.exists() && !out.is_dir() {
        return Err(
            InputError::new(format!("--out {}", out.display()), "is not a folder")
                .with_fix("give a folder name")
                .into(),
        );
    }
    let jobs = crate::parallel_args::jobs(args.jobs);
    let progress = crate::parallel_args::progress();
    let outcome = run_sweep(&spec, &out, jobs, &progress)?;
    let table = render_sweep(&outcome);
    let write = |name: &str, text: &str| -> Result<(), CliError> {
        let path = out.join(name);
        std::fs::write(&path, text)
            .map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))
    };
    write("table.md", &table)?;
    write("table.csv", &render_sweep_csv(&outcome))?;
    let mut o = std::io::stdout().lock();
    o.write_all(table.as_bytes())?;
    writeln!(
        o,
        "\n{} runs done, {} reused from {}",
        outcome.ran,
        outcome.reused,
        out.join("runs").display()
    )?;
    Ok(())
}
