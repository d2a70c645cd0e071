//! `schedlab study list | run NAME`: the seed threads' experiments (docs/studies.md).

use crate::cli_error::CliError;
use crate::output::JsonTarget;
use clap::{Args, Subcommand};
use schedlab::experiment::study::{list_studies, load_study_sized, seeds_from_count, size_flag};
use schedlab::experiment::study_run::{render_study, run_study};
use schedlab::experiment::study_runs::RunsDir;
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
        /// Also write every run's result document to DIR/TAG-seedN.json, each as its run
        /// ends (with a TAG-seedN.key naming the model and scenario that made it).
        #[arg(long, value_name = "DIR")]
        runs: Option<PathBuf>,
        /// Take the runs already in the --runs folder whose key matches (the same model code
        /// and scenario) instead of running them again: an interrupted study goes on.
        #[arg(long, requires = "runs")]
        resume: bool,
        /// Also write the table as a Markdown section stamped with this binary's commit
        /// and the command (docs/studies.md is made of these).
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Run at the thread's own size (the study's [full] table; may take hours, its
        /// scale line says how long).
        #[arg(long, conflicts_with = "size")]
        full: bool,
        /// Run at another size the study names (its [size.NAME] table; its scale line
        /// says how long).
        #[arg(long, value_name = "NAME")]
        size: Option<String>,
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
            resume,
            markdown,
            full,
            size,
        } => {
            let json = json.as_deref().map(JsonTarget::from_arg).transpose()?;
            let size = if full { Some("full".to_string()) } else { size };
            let study = load_study_sized(&dir, &name, size.as_deref())?;
            let seeds: Vec<u64> = match seeds {
                Some(n) => seeds_from_count(n, "-n/--seeds", "e.g. -n 3")?,
                None => study.seeds.clone(),
            };
            let started = std::time::Instant::now();
            let runs = runs.map(|d| RunsDir::new(&d, env!("SCHEDLAB_MODEL_HASH"), resume));
            let r = run_study(
                &study,
                &seeds,
                crate::parallel_args::jobs(jobs),
                runs.as_ref(),
                &crate::parallel_args::progress(),
            )?;
            if let Some(dir) = runs.as_ref().filter(|d| d.resume) {
                eprintln!(
                    "--resume: {} run(s) taken from {}; {} stored without a matching key (other model code or scenario, or interrupted) run again",
                    dir.reused(),
                    dir.path.display(),
                    dir.stale()
                );
            }
            let text = render_study(&study, &r);
            let mut o: Box<dyn Write> = if matches!(json, Some(JsonTarget::Stdout)) {
                Box::new(std::io::stderr().lock())
            } else {
                Box::new(std::io::stdout().lock())
            };
            o.write_all(text.as_bytes())?;
            writeln!(o, "wall time: {:.1} s", started.elapsed().as_secs_f64())?;
            if let Some(path) = markdown {
                let mut seeds_arg = seeds_flag(&study.seeds, &seeds);
                if let Some(size) = &study.size {
                    seeds_arg.push(' ');
                    seeds_arg.push_str(&size_flag(size));
                }
                let doc = format!(
                    "<!-- generated by `schedlab study run {name}{seeds_arg} --markdown`; do not edit -->\n\n{}\nGenerated by `schedlab study run {name}{seeds_arg}` at commit {}, {} seed(s) per variant.\n",
                    text.replacen("# ", "### ", 1),
                    env!("SCHEDLAB_COMMIT"),
                    seeds.len()
                );
                schedlab::fsutil::write_atomic(&path, &doc).map_err(|e| {
                    CliError::Io(format!("--markdown {}: cannot write: {e}", path.display()))
                })?;
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

/// ` -n N` when the seeds are not the study's own.
fn seeds_flag(own: &[u64], used: &[u64]) -> String {
    if own == used {
        String::new()
    } else {
        format!(" -n {}", used.len())
    }
}
