//! `schedlab study list | run NAME`: the seed threads' experiments (docs/studies.md).

use crate::cli_error::CliError;
use crate::output::JsonTarget;
use clap::{Args, Subcommand};
use schedlab::experiment::study::{list_studies, load_study};
use schedlab::experiment::study_run::{render_study, run_study};
use schedlab::InputError;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct StudyArgs {
    /// The studies folder (default: ./studies, else the one shipped with this build).
    #[arg(long, global = true)]
    dir: Option<PathBuf>,
    #[command(subcommand)]
    command: StudyCommand,
}

#[derive(Subcommand)]
enum StudyCommand {
    /// List the studies with their titles.
    List,
    /// Run one study and print ours beside the thread's numbers.
    Run {
        name: String,
        /// Seeds per variant (default: the study's own).
        #[arg(short = 'n', long)]
        seeds: Option<u64>,
        /// Parallel runs (default: the host's CPUs).
        #[arg(short, long)]
        jobs: Option<usize>,
        /// Write the full result (every variant, metric and direction) as JSON.
        #[arg(long, value_name = "FILE|-", allow_hyphen_values = true)]
        json: Option<String>,
        /// Also write every run's result document to DIR/TAG-seedN.json.
        #[arg(long, value_name = "DIR")]
        runs: Option<PathBuf>,
    },
}

fn studies_dir(arg: &Option<PathBuf>) -> PathBuf {
    if let Some(d) = arg {
        return d.clone();
    }
    let here = PathBuf::from("studies");
    if here.is_dir() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../studies")
}

pub fn study(args: StudyArgs) -> Result<(), CliError> {
    let dir = studies_dir(&args.dir);
    match args.command {
        StudyCommand::List => {
            let mut o = std::io::stdout().lock();
            for (name, title) in list_studies(&dir)? {
                writeln!(o, "{name:<24} {title}")?;
            }
        }
        StudyCommand::Run {
            name,
            seeds,
            jobs,
            json,
            runs,
        } => {
            let json = json.as_deref().map(JsonTarget::from_arg).transpose()?;
            let study = load_study(&dir, &name)?;
            let seeds: Vec<u64> = match seeds {
                Some(0) | Some(1001..) => {
                    return Err(InputError::new("-n/--seeds", "needs 1..=1000 seeds")
                        .with_fix("e.g. -n 3")
                        .into())
                }
                Some(n) => (1..=n).collect(),
                None => study.seeds.clone(),
            };
            let started = std::time::Instant::now();
            let r = run_study(
                &study,
                &seeds,
                crate::parallel_args::jobs(jobs),
                &crate::parallel_args::progress(),
            )?;
            let text = render_study(&study, &r);
            let mut o: Box<dyn Write> = if matches!(json, Some(JsonTarget::Stdout)) {
                Box::new(std::io::stderr().lock())
            } else {
                Box::new(std::io::stdout().lock())
            };
            o.write_all(text.as_bytes())?;
            writeln!(o, "wall time: {:.1} s", started.elapsed().as_secs_f64())?;
            if let Some(dir) = runs {
                write_runs(&dir, &r)?;
            }
            if let Some(t) = json {
                let mut doc = serde_json::to_string_pretty(&r)
                    .map_err(|e| CliError::Io(format!("cannot encode the study result: {e}")))?;
                doc.push('\n');
                t.write(&doc)?;
            }
        }
    }
    Ok(())
}

/// Every run's result document as DIR/TAG-seedN.json (tags made file-safe).
fn write_runs(
    dir: &std::path::Path,
    r: &schedlab::experiment::study_run::StudyResult,
) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Io(format!("--runs {}: cannot create: {e}", dir.display())))?;
    for (tag, seed, doc) in &r.runs {
        let safe: String = tag
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!("{safe}-seed{seed}.json"));
        let mut text = serde_json::to_string_pretty(doc)
            .map_err(|e| CliError::Io(format!("cannot encode a run: {e}")))?;
        text.push('\n');
        schedlab::fsutil::write_atomic(&path, &text)
            .map_err(|e| CliError::Io(format!("--runs {}: cannot write: {e}", path.display())))?;
    }
    Ok(())
}
