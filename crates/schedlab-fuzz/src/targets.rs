//! The fuzz targets: each hands one input to a parser in-process, as `schedlab run` would,
//! and goes on past the parser where the input is accepted (build the workload, prepare
//! the simulation, sometimes run it a few ms with the invariants checked).

use schedlab::experiment::run::{execute, prepare, prepare_on, scenario_workload};
use schedlab::experiment::scenario_toml::apply_flag_assignment;
use schedlab::experiment::sysctl::Sysctls;
use schedlab::experiment::{parse_scenario, Scenario};
use schedlab::machine::cpulist::parse_cpulist;
use schedlab::machine::{machine_to_toml, parse_machine};
use schedlab::sched::features::{check_names, Features};
use schedlab::sched::version::KernelVersion;
use schedlab::workload::build_workload_for;
use schedlab::workload::rtapp::parse_rtapp;
use schedlab::{InputError, Machine};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Rtapp,
    Scenario,
    Machine,
    Workload,
    Knob,
}

pub const ALL: [Target; 5] = [
    Target::Rtapp,
    Target::Scenario,
    Target::Machine,
    Target::Workload,
    Target::Knob,
];

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Rtapp => "rtapp-json",
            Target::Scenario => "scenario-toml",
            Target::Machine => "machine-toml",
            Target::Workload => "workload-cmdline",
            Target::Knob => "features-sysctl",
        }
    }

    pub fn from_name(s: &str) -> Option<Target> {
        ALL.into_iter().find(|t| t.name() == s)
    }
}

/// What one input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Accepted,
    /// Rejected with an InputError (exit 2); the error's shape, numbers blanked.
    Rejected(String),
    /// A finding: a rejection without a one-line message, a machine file that does not
    /// read back as itself, or an invariant violation in a short run.
    Defect(String),
}

/// Shared state: the folder relative paths start at (holds `a.json`, `b.json`, `m.toml`).
pub struct Ctx<'a> {
    pub dir: &'a Path,
    /// Run accepted workloads for a few ms one time in `run_one_in`.
    pub run_one_in: u64,
    pub counter: u64,
}

pub fn run(t: Target, input: &str, ctx: &mut Ctx) -> Outcome {
    ctx.counter += 1;
    let r = match t {
        Target::Rtapp => rtapp(input, ctx),
        Target::Scenario => scenario(input, ctx),
        Target::Machine => machine(input),
        Target::Workload => workload(input, ctx),
        Target::Knob => knob(input),
    };
    match r {
        Ok(Some(defect)) => Outcome::Defect(defect),
        Ok(None) => Outcome::Accepted,
        Err(e) => check_error(&e),
    }
}

/// Every rejection must print as one non-empty line naming a place (exit 2 in the CLI).
fn check_error(e: &InputError) -> Outcome {
    let text = e.to_string();
    if e.origin.trim().is_empty() || e.message.trim().is_empty() || text.contains('\n') {
        return Outcome::Defect(format!("bad error message: {text:?}"));
    }
    Outcome::Rejected(signature(&e.message))
}

/// The shape of a message: digits and quoted parts blanked, so "CPU 5" and "CPU 7" are one.
pub fn signature(msg: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for ch in msg.chars().take(80) {
        match ch {
            '\'' | '`' => {
                quoted = !quoted;
                out.push('Q');
            }
            _ if quoted => {}
            '0'..='9' => {
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            _ => out.push(ch),
        }
    }
    out
}

type Found = Result<Option<String>, InputError>;

/// The interpreter's message for a program stuck at one instant.
pub const ZERO_TIME_LOOP: &str = "steps without simulated time passing";
/// The interpreter's message for a task that hit rt-app's fork limit (rt-app exits then).
pub const FORK_LIMIT: &str = "rt-app's limit; it was stopped";

fn small_scenario(machine: &str) -> Scenario {
    Scenario {
        machine: machine.into(),
        duration_ns: Some(2_000_000),
        ..Scenario::default()
    }
}

/// Run a prepared simulation a few ms, now and then; a violation is a finding.
fn maybe_run(sc: &Scenario, sim: schedlab::Simulation, ctx: &Ctx) -> Option<String> {
    if !ctx.counter.is_multiple_of(ctx.run_one_in) || sim.sched.tasks.len() > 2000 {
        return None;
    }
    let mut sc = sc.clone();
    sc.duration_ns = Some(sc.duration_ns.unwrap_or(2_000_000).min(2_000_000));
    let mut sim = sim;
    sim.stop_at = sim.stop_at.min(2_000_000);
    let r = execute(&sc, sim, None);
    // A program that loops forever in zero time (rt-app `"runtime": 0` alone) or forks
    // past rt-app's limit is stopped by the interpreter and reported; that is the input's
    // doing, not the model's (docs/fuzzing.md). Any other violation is a finding.
    let model: Vec<&String> = r
        .sim
        .invariant_messages
        .iter()
        .filter(|m| !m.contains(ZERO_TIME_LOOP) && !m.contains(FORK_LIMIT))
        .collect();
    // Only the first 20 messages are kept; a run whose kept ones are all the input's
    // doing is taken as such.
    let only_input = model.is_empty() && !r.sim.invariant_messages.is_empty();
    (r.sim.invariant_violations > 0 && !only_input).then(|| {
        format!(
            "invariant violation: {}",
            r.sim.invariant_messages.join(" | ")
        )
    })
}

fn rtapp(input: &str, ctx: &Ctx) -> Found {
    let w = parse_rtapp(input, "fuzz.json")?;
    let sc = small_scenario("smp:4");
    let sim = prepare(&sc, w)?;
    Ok(maybe_run(&sc, sim, ctx))
}

fn scenario(input: &str, ctx: &Ctx) -> Found {
    let mut sc = parse_scenario(input, "fuzz.toml", ctx.dir)?;
    // Machine files are relative to the current directory; point them at the fixtures.
    if sc.machine.ends_with(".toml") {
        sc.machine = ctx.dir.join(&sc.machine).display().to_string();
    }
    let w = scenario_workload(&sc)?;
    let sim = prepare(&sc, w)?;
    if sim.sched.machine.nr_cpus() > 64 {
        return Ok(None);
    }
    Ok(maybe_run(&sc, sim, ctx))
}

fn machine(input: &str) -> Found {
    let m = parse_machine(input, "fuzz.toml")?;
    if m.nr_cpus() > 256 || m.numa_distance.len() > 16 {
        // Correct but slow to print and re-read (4096 nodes: a 16 M-entry distance
        // matrix, 10 s); the small ones exercise the same code.
        return Ok(None);
    }
    // What `machines show` prints must read back as the same machine.
    let text = machine_to_toml(&m);
    match parse_machine(&text, "shown.toml") {
        Ok(back) if back == m => {}
        Ok(_) => {
            return Ok(Some(format!(
                "machine does not read back as itself:\n{text}"
            )))
        }
        Err(e) => return Ok(Some(format!("machines show output rejected: {e}\n{text}"))),
    }
    if m.nr_cpus() <= 64 {
        // Sched domains and the whole setup are built from it.
        prepare_on(&small_scenario("fuzz"), m, schedlab::Workload::default())?;
    }
    Ok(None)
}

fn workload(input: &str, ctx: &Ctx) -> Found {
    let machine: Machine = schedlab::machine_from_name("smp:4")?;
    let w = build_workload_for(input, ctx.dir, &machine, 1)?;
    let sc = small_scenario("smp:4");
    let sim = prepare_on(&sc, machine, w)?;
    Ok(maybe_run(&sc, sim, ctx))
}

fn knob(input: &str) -> Found {
    let v61 = KernelVersion::parse("6.1", "k")?;
    let mut sc = Scenario::default();
    let results = [
        check_names(input, "-f/--features"),
        Features::for_kernel(KernelVersion::Current).apply_list_in(
            input,
            "--features",
            KernelVersion::Current,
        ),
        Features::for_kernel(v61).apply_list_in(input, "--features", v61),
        Sysctls::default().set_assignment(input),
        apply_flag_assignment(&mut sc, "sysctl", input, "--sysctl"),
        schedlab::parse_duration(input)
            .map(|_| ())
            .map_err(|m| InputError::new("-t/--time", m)),
        parse_cpulist(input)
            .map(|_| ())
            .map_err(|m| InputError::new("--cpus", m)),
    ];
    // Every error must be well formed; the first one is the input's outcome.
    for e in results.iter().filter_map(|r| r.as_ref().err()) {
        if let Outcome::Defect(d) = check_error(e) {
            return Ok(Some(d));
        }
    }
    results.into_iter().collect::<Result<Vec<()>, _>>()?;
    Ok(None)
}
