//! Workloads: the task-program IR the engine executes, and the front ends that compile
//! community benchmark descriptions (rt-app JSON, …) into it.

pub mod cmdline;
pub mod frames;
pub mod hackbench;
pub mod plat_hist;
pub mod program;
pub mod report;
pub mod rotation;
pub mod rtapp;
pub mod schbench;
pub mod schbench_2021;
pub mod sched_params;
pub mod spinner;
pub mod stress_ng;

pub use program::{Op, Policy, Probes, Sample, SchedChange, TaskSpec, TimerMode, Workload};
pub use report::ToolReport;

use crate::error::InputError;
use crate::machine::{Costs, Machine};
use std::path::Path;

/// What a front end builds: the task programs, and what the tool prints after the run
/// (its reports read the run's per-task results and the programs' probes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compiled {
    pub workload: Workload,
    pub reports: Vec<ToolReport>,
}

impl Compiled {
    /// Merge another front end's output (several `-w` flags): see [`Workload::merge`].
    pub fn merge(&mut self, other: impl Into<Compiled>) {
        let other = other.into();
        let base = self.workload.merge(other.workload);
        for mut r in other.reports {
            r.shift(&base);
            self.reports.push(r);
        }
    }
}

/// A hand-built workload has no tool printout.
impl From<Workload> for Compiled {
    fn from(workload: Workload) -> Self {
        Compiled {
            workload,
            reports: Vec::new(),
        }
    }
}

/// Front ends accepted by `-w 'FRONTEND ARGS…'`, for error messages.
pub const FRONTENDS: &[&str] = &[
    "rtapp FILE.json",
    "hackbench OPTIONS",
    "perf-bench-messaging OPTIONS",
    "schbench OPTIONS",
    "schbench-2021 OPTIONS",
    "stress-ng --wait N",
    "spinner OPTIONS",
    "frames OPTIONS",
    "after DURATION FRONTEND ARGS…",
];

/// Build a workload from a `-w` argument such as `rtapp examples/two-hogs.json`, for
/// front ends that do not depend on the machine (schbench's default worker count and
/// stress-ng's `--wait 0` take 1 CPU here, and per-operation costs are the default
/// machine's; use [`build_workload_for`]).
pub fn build_workload(spec: &str, base_dir: &Path) -> Result<Compiled, InputError> {
    build_workload_on(spec, base_dir, 1)
}

/// Build a workload from a `-w` argument: its first word selects the front end, the rest
/// are the tool's own arguments. Relative paths are resolved against `base_dir` (the
/// scenario file's folder, or the current directory for flags); `nr_cpus` is the
/// machine's CPU count (tools that size themselves by `get_nprocs()`); per-operation costs
/// are the default machine's (`Costs::default()`).
pub fn build_workload_on(
    spec: &str,
    base_dir: &Path,
    nr_cpus: usize,
) -> Result<Compiled, InputError> {
    build_workload_seeded(spec, base_dir, nr_cpus, 0)
}

/// As [`build_workload_on`], for front ends whose programs draw from the run's `seed`
/// (frames: the per-frame work).
pub fn build_workload_seeded(
    spec: &str,
    base_dir: &Path,
    nr_cpus: usize,
    seed: u64,
) -> Result<Compiled, InputError> {
    build_workload_with(spec, base_dir, nr_cpus, &Costs::default(), seed)
}

/// Build a workload for `machine`: its CPU count and its per-operation costs (pipe and
/// socket messages, futex wakes, schbench's matrix math, the spinner's loop; the `Costs`
/// of docs/machines.md), with the run's `seed`. This is what `run` uses.
pub fn build_workload_for(
    spec: &str,
    base_dir: &Path,
    machine: &Machine,
    seed: u64,
) -> Result<Compiled, InputError> {
    build_workload_with(spec, base_dir, machine.nr_cpus(), &machine.costs, seed)
}

/// The front-end dispatch: `nr_cpus` CPUs and per-operation `costs`.
pub fn build_workload_with(
    spec: &str,
    base_dir: &Path,
    nr_cpus: usize,
    costs: &Costs,
    seed: u64,
) -> Result<Compiled, InputError> {
    let origin = format!("workload '{spec}'");
    let all = cmdline::split_words(spec)
        .map_err(|e| InputError::new(&origin, e).with_fix("balance the quotes"))?;
    let args = all.get(1..).unwrap_or(&[]);
    match all.first().map(String::as_str) {
        Some("after") => build_after(spec, &origin, args, base_dir, nr_cpus, costs, seed),
        Some("hackbench") => {
            let p = hackbench::parse_hackbench(args)?;
            hackbench::build(&p, hackbench::Flavor::Hackbench, spec, costs)
        }
        Some("perf-bench-messaging") => {
            let p = hackbench::parse_perf_messaging(args)?;
            hackbench::build(&p, hackbench::Flavor::PerfMessaging, spec, costs)
        }
        Some("schbench") => {
            let p = schbench::parse(args, nr_cpus)?;
            schbench::build(&p, spec, nr_cpus, costs)
        }
        Some("schbench-2021") => schbench_2021::build(&schbench_2021::parse(args)?, spec, costs),
        Some("spinner") => Ok(spinner::build(&spinner::parse(args, nr_cpus)?, spec, costs)),
        Some("frames") => Ok(frames::build(&frames::parse(args, nr_cpus)?, spec, seed)),
        Some("stress-ng") => Ok(stress_ng::build(&stress_ng::parse(args, nr_cpus)?, spec)),
        Some("rtapp" | "rt-app") => {
            let mut words = args.iter().map(String::as_str);
            let file = words.next().ok_or_else(|| {
                InputError::new(&origin, "rtapp needs a JSON file")
                    .with_fix("write -w 'rtapp FILE.json'")
            })?;
            if let Some(extra) = words.next() {
                return Err(
                    InputError::new(&origin, format!("unexpected argument '{extra}'"))
                        .with_fix("rtapp takes exactly one JSON file"),
                );
            }
            let path = base_dir.join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                // A `-w` flag's paths start at the current directory (base_dir "."), a
                // scenario file's at its folder: the hint names the right one.
                let start = if base_dir == Path::new(".") || base_dir.as_os_str().is_empty() {
                    "the current directory".to_string()
                } else {
                    format!("the scenario file's folder, {}", base_dir.display())
                };
                InputError::new(path.display().to_string(), format!("cannot read: {e}"))
                    .with_fix(format!("check the path; relative paths start at {start}"))
            })?;
            rtapp::parse_rtapp(&text, &path.display().to_string()).map(Compiled::from)
        }
        Some(other) => Err(InputError::new(
            &origin,
            format!("unknown workload front end '{other}'"),
        )
        .with_fix(format!("known: {}", FRONTENDS.join(", ")))),
        None => Err(InputError::new(&origin, "empty workload")
            .with_fix(format!("known: {}", FRONTENDS.join(", ")))),
    }
}

/// `after DURATION FRONTEND ARGS…`: the workload started DURATION into the run, as a shell
/// runs a second command once the first has been going a while (seed 002 starts schbench
/// among spinners that are already running). Every task starts that much later, and a
/// length the workload declares (schbench's -r, rt-app's duration) ends that much later.
fn build_after(
    spec: &str,
    origin: &str,
    args: &[String],
    base_dir: &Path,
    nr_cpus: usize,
    costs: &Costs,
    seed: u64,
) -> Result<Compiled, InputError> {
    let fix = "write -w 'after 3s TOOL ARGS…' (a duration, then the workload)";
    let (Some(dur), Some(_)) = (args.first(), args.get(1)) else {
        return Err(
            InputError::new(origin, "'after' needs a duration and a workload").with_fix(fix),
        );
    };
    let delay = crate::time::parse_duration(dur)
        .map_err(|m| InputError::new(origin, format!("'after {dur}': {m}")).with_fix(fix))?;
    // The workload's own text, as written after the duration (its quoting intact).
    let rest = spec.trim_start()["after".len()..].trim_start();
    let Some(rest) = rest.strip_prefix(dur.as_str()) else {
        return Err(InputError::new(origin, "a quoted duration after 'after'")
            .with_fix("write the duration unquoted, e.g. 'after 3s schbench …'"));
    };
    let mut c = build_workload_with(rest.trim_start(), base_dir, nr_cpus, costs, seed)?;
    for t in &mut c.workload.tasks {
        t.delay_ns += delay;
    }
    if let Some(d) = c.workload.duration_ns.as_mut() {
        *d += delay;
    }
    Ok(c)
}
