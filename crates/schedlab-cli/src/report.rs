//! `schedlab report RESULT.json [--trace FILE] -o report.html`, and the `--html FILE` of
//! `run` and `ab`: one self-contained HTML page (docs/report.md).

use crate::cli_error::CliError;
use crate::output::check_output_path;
use clap::Args;
use schedlab::trace::read::{read_trace, TraceEvent};
use schedlab::InputError;
use schedlab_report::{doc_kind, render_ab, render_run, DocKind};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReportArgs {
    /// A result document: `run --json` or `ab --json` output.
    result: PathBuf,
    /// The run's trace (.pftrace or .txt, `run --trace`), for the timeline and time plots.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Check an `--html`/`-o` target before any work.
pub fn check_target(path: &Path, flag: &str) -> Result<(), InputError> {
    let origin = format!("{flag} {}", path.display());
    check_output_path(path, &origin, "report.html")
}

pub fn write_html(path: &Path, html: &str) -> Result<(), CliError> {
    schedlab::fsutil::write_atomic(path, html)
        .map_err(|e| CliError::Io(format!("{}: cannot write: {e}", path.display())))?;
    eprintln!("schedlab: report {}", path.display());
    Ok(())
}

fn title(path: &Path) -> String {
    format!("schedlab report: {}", path.display())
}

pub fn report(args: ReportArgs) -> Result<(), CliError> {
    check_target(&args.output, "-o/--output")?;
    let origin = args.result.display().to_string();
    let text = std::fs::read_to_string(&args.result).map_err(|e| {
        InputError::new(&origin, format!("cannot read: {e}")).with_fix(
            "give a file written by `schedlab run --json FILE` or `schedlab ab --json FILE`",
        )
    })?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        InputError::new(
            format!("{origin}:{}:{}", e.line(), e.column()),
            format!("not JSON: {e}"),
        )
        .with_fix("give a file written by `schedlab run --json FILE` or `schedlab ab --json FILE`")
    })?;
    let kind = doc_kind(&doc).ok_or_else(|| {
        InputError::new(
            &origin,
            "neither a run result (tasks, perf) nor an A/B comparison (base, rows)",
        )
        .with_fix("give a file written by `schedlab run --json FILE` or `schedlab ab --json FILE`")
    })?;
    let html = match kind {
        DocKind::Run => {
            let rows: Option<Vec<TraceEvent>> =
                args.trace.as_deref().map(read_trace).transpose()?;
            render_run(&doc, rows.as_deref(), &title(&args.result))
        }
        DocKind::Ab => {
            if let Some(t) = &args.trace {
                return Err(InputError::new(
                    format!("--trace {}", t.display()),
                    "an A/B comparison has no single trace",
                )
                .with_fix("drop --trace, or report a run's result")
                .into());
            }
            render_ab(&doc, &title(&args.result))
        }
    };
    write_html(&args.output, &html)
}
