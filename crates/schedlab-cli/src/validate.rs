//! `schedlab validate` and `machines capture --calibrate`: the CLI side of schedlab-host
//! (docs/validate.md). Validate takes exactly the scenario arguments `run` takes.

use crate::cli_error::CliError;
use crate::output::JsonTarget;
use crate::run::{build_scenario, ScenarioArgs};
use clap::{Args, ValueEnum};
use schedlab::machine::capture::capture;
use schedlab::machine::machine_to_toml;
use schedlab::InputError;
use schedlab_host::calibrate::{self, Calibration};
use schedlab_host::compare::{self, Row};
use schedlab_host::validate::{validate as run_validate, Config, Runner};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, ValueEnum)]
pub enum RunnerArg {
    /// schedlab's executor of the task program in real threads.
    Builtin,
    /// The `rt-app` binary on PATH.
    RtApp,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SuiteArg {
    /// Weight pairs, a 60 Hz task with 0/2/4 pinned hogs, mixed-nice hogs, sleepers,
    /// a ping-pong pair, hackbench, schbench (when installed).
    Basic,
}

#[derive(Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub common: ScenarioArgs,
    /// Real runs on this host.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Simulated seeds (from the scenario's seed up).
    #[arg(long, default_value_t = 3)]
    seeds: usize,
    /// Write {"score", "rows": [...]} to FILE, or stdout with `-`.
    #[arg(long, value_name = "FILE|-", allow_hyphen_values = true)]
    json: Option<String>,
    /// Who runs rt-app files for real.
    #[arg(long, value_enum, default_value = "builtin")]
    runner: RunnerArg,
    /// A built-in set of scenarios instead of -w (each a few seconds).
    #[arg(long, value_enum)]
    suite: Option<SuiteArg>,
    /// Do not use tracefs (wake-up latency then comes from the runner's timer stamps).
    #[arg(long)]
    no_trace: bool,
}

use schedlab_host::cleanup::is_root;

/// Capture this host's topology, calibrate, and write the machine file to `path`.
fn calibrated_machine(
    sysfs: &Path,
    path: &Path,
    quick: bool,
    verbose: bool,
) -> Result<Calibration, CliError> {
    let mut machine = capture(sysfs)?;
    let cal = calibrate::calibrate(quick);
    calibrate::apply_costs(&cal, &mut machine.costs);
    calibrate::apply_line_cost(&cal, &mut machine);
    machine.name = "host (calibrated)".into();
    let mut text = machine_to_toml(&machine);
    text.push_str(&calibrate::toml_tables(&cal));
    schedlab::fsutil::write_atomic(path, &text)
        .map_err(|e| CliError::Io(format!("{}: cannot write: {e}", path.display())))?;
    if verbose {
        let mut err = std::io::stderr().lock();
        // The longest key sets the first column (the socket footprint's are 27 wide).
        let w = cal
            .measures
            .iter()
            .map(|m| m.key.len())
            .max()
            .unwrap_or(0)
            .max(20);
        writeln!(
            err,
            "{:<w$} {:>12} {:>12} {:>12}  unit",
            "value", "median", "min", "max"
        )?;
        for m in &cal.measures {
            writeln!(
                err,
                "{:<w$} {:>12.1} {:>12.1} {:>12.1}  {}",
                m.key,
                m.median(),
                m.min(),
                m.max(),
                m.unit
            )?;
        }
        let k = &cal.kernel;
        writeln!(
            err,
            "kernel {}: hz {:?}, preempt {:?}, base slice {:?} ns, autogroup {:?}",
            k.version, k.hz, k.preempt, k.base_slice_ns, k.autogroup
        )?;
        if let (Some(a), Some(b)) = (cal.get("spin_ns_per_loop"), cal.get("schbench_mac_ps")) {
            writeln!(
                err,
                "CPU speed spread (max/min): compute loop {:.2}x, matrix multiply-add {:.2}x",
                a.max() / a.min().max(1e-9),
                b.max() / b.min().max(1e-9)
            )?;
        }
    }
    Ok(cal)
}

/// `machines capture --calibrate [-o FILE]`.
pub fn capture_calibrated(sysfs: &Path, output: Option<&Path>) -> Result<(), CliError> {
    let tmp;
    let path = match output {
        Some(p) => {
            crate::output::check_output_path(p, "-o", "host.toml")?;
            p
        }
        None => {
            tmp =
                std::env::temp_dir().join(format!("schedlab-capture-{}.toml", std::process::id()));
            &tmp
        }
    };
    calibrated_machine(sysfs, path, false, true)?;
    if output.is_none() {
        let text = std::fs::read_to_string(path)?;
        let _ = std::fs::remove_file(path);
        std::io::stdout().lock().write_all(text.as_bytes())?;
    }
    Ok(())
}

pub fn validate(args: ValidateArgs) -> Result<(), CliError> {
    let json = args.json.as_deref().map(JsonTarget::from_arg).transpose()?;
    let (given, _) = args.common.given();
    let mut sc = build_scenario(&args.common)?;
    let cfg = Config {
        reps: args.reps,
        seeds: args.seeds,
        runner: match args.runner {
            RunnerArg::Builtin => Runner::Builtin,
            RunnerArg::RtApp => Runner::RtApp,
        },
        trace: !args.no_trace && is_root(),
        default_duration_ns: 5_000_000_000,
    };
    if !is_root() {
        eprintln!(
            "schedlab: note: not root: no tracefs; wake-up latency from the runner's timer stamps"
        );
    }
    if args.suite.is_none() && sc.workloads.is_empty() {
        return Err(InputError::new("validate", "no workload given")
            .with_fix("add -w 'rtapp FILE.json' (or hackbench …, schbench …), or --suite basic")
            .into());
    }
    let machine_file;
    if !given[0] {
        // The simulated machine is this host, calibrated now (quick).
        machine_file =
            std::env::temp_dir().join(format!("schedlab-validate-{}.toml", std::process::id()));
        eprintln!("schedlab: calibrating this host (give -m to skip) …");
        calibrated_machine(Path::new("/sys"), &machine_file, true, false)?;
        sc.machine = machine_file.display().to_string();
        let notes = schedlab_host::machine_kernel::apply(
            &mut sc,
            None,
            schedlab_host::machine_kernel::Given {
                hz: given[1],
                preempt: given[2],
                autogroup: given[3],
            },
        )?;
        for n in notes {
            eprintln!("schedlab: note: {n}");
        }
    }
    let mut progress = |s: &str| eprintln!("schedlab: {s}");
    let mut rows: Vec<Row> = Vec::new();
    let mut text = String::new();
    match args.suite {
        None => {
            let out = run_validate(&sc, &cfg, &mut progress)?;
            for n in &out.notes {
                text.push_str(&format!("note: {n}\n"));
            }
            text.push_str(&compare::render(&out.rows));
            rows = out.rows;
        }
        Some(SuiteArg::Basic) => {
            let secs = sc
                .duration_ns
                .map(|d| d.div_ceil(1_000_000_000) as u32)
                .unwrap_or(3);
            let dir = schedlab_host::suite::write_files(secs)
                .map_err(|e| CliError::Io(format!("cannot write the suite's files: {e}")))?;
            for e in schedlab_host::suite::entries(&dir) {
                if let Some(tool) = e.optional_tool {
                    if schedlab_host::tools::which(tool).is_none() {
                        text.push_str(&format!(
                            "\n== {} ==\nskipped: `{tool}` is not installed\n",
                            e.name
                        ));
                        continue;
                    }
                }
                let mut s = sc.clone();
                s.workloads = e.workloads.clone();
                s.duration_ns = Some(secs as u64 * 1_000_000_000);
                progress(&format!("suite: {}", e.name));
                let out = run_validate(&s, &cfg, &mut progress)?;
                text.push_str(&format!("\n== {} ==\n", e.name));
                for n in &out.notes {
                    text.push_str(&format!("note: {n}\n"));
                }
                text.push_str(&compare::render(&out.rows));
                rows.extend(out.rows.into_iter().map(|mut r| {
                    r.task = format!("{}: {}", e.name, r.task);
                    r
                }));
            }
            let _ = std::fs::remove_dir_all(&dir);
            let agree = rows.iter().filter(|r| r.within).count();
            text.push_str(&format!(
                "\nsuite agreement score: {agree}/{} = {:.2}\n",
                rows.len(),
                compare::score(&rows)
            ));
        }
    }
    if let Some(m) = (!given[0]).then(|| PathBuf::from(&sc.machine)) {
        let _ = std::fs::remove_file(m);
    }
    match json {
        Some(JsonTarget::Stdout) => std::io::stderr().lock().write_all(text.as_bytes())?,
        _ => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    if let Some(target) = json {
        let doc = compare::Document {
            score: compare::score(&rows),
            rows: &rows,
        };
        let mut s = serde_json::to_string_pretty(&doc)
            .map_err(|e| CliError::Io(format!("cannot encode the JSON: {e}")))?;
        s.push('\n');
        target.write(&s)?;
    }
    Ok(())
}

/// A machine file to `path` (atomically), or to stdout.
pub fn write_or_print(path: Option<&Path>, text: &str) -> Result<(), CliError> {
    match path {
        Some(p) => {
            crate::output::check_output_path(p, "-o", "host.toml")?;
            schedlab::fsutil::write_atomic(p, text)
                .map_err(|e| CliError::Io(format!("{}: cannot write: {e}", p.display())))
        }
        None => Ok(std::io::stdout().lock().write_all(text.as_bytes())?),
    }
}
