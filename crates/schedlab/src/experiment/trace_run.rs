//! Running a scenario with a trace: a pilot run for the size estimate, then the real run
//! with the tracer attached, and the trace file moved into place only if all went well.

use crate::error::InputError;
use crate::experiment::run::{
    execute_in_place, execute_in_place_with_progress, prepare, scenario_workload,
};
use crate::experiment::RunResult;
use crate::experiment::Scenario;
use crate::simulation::Simulation;
use crate::time::{Ns, NSEC_PER_MSEC};
use crate::trace::{TraceConfig, TraceStats, Tracer};

/// Simulated time of the estimate's pilot run.
pub const PILOT_NS: Ns = 200 * NSEC_PER_MSEC;

/// The expected size of a trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub bytes: f64,
    pub events: f64,
    /// Simulated time the trace will cover at most.
    pub span_ns: Ns,
}

fn origin(cfg: &TraceConfig) -> String {
    format!("--trace {}", cfg.path.display())
}

/// Build the simulation the scenario describes.
fn build(scenario: &Scenario) -> Result<Simulation, InputError> {
    let workload = scenario_workload(scenario)?;
    prepare(scenario, workload)
}

/// Estimate the trace's size by tracing the first [`PILOT_NS`] (or the whole run if
/// shorter) into a byte counter and scaling to the traced span.
pub fn estimate(scenario: &Scenario, cfg: &TraceConfig) -> Result<Estimate, InputError> {
    let mut sim = build(scenario)?;
    let stop = sim.stop_at;
    let (start, end) = cfg.window;
    let span = end.min(stop).saturating_sub(start);
    let pilot = PILOT_NS.min(stop);
    let mut pilot_cfg = cfg.clone();
    pilot_cfg.window = (0, Ns::MAX);
    let counting = Tracer::counting(pilot_cfg, &sim.sched);
    sim.sched.attach_observer(Box::new(counting));
    // A run whose tasks all exit within the pilot (a short hackbench) is measured whole:
    // scaling it to the one-hour cap of runs without a duration overstated a 69 ms run's
    // 11.6 MB trace as 208 GB.
    let ended = sim.run_until(pilot) == crate::simulation::StopReason::AllExited;
    let (span, measured) = if ended {
        let now = sim.sched.now;
        (end.min(now).saturating_sub(start), now)
    } else {
        (span, pilot)
    };
    let t = sim
        .sched
        .detach_observer::<Tracer>()
        .expect("tracer attached");
    let stats = t
        .finish(pilot)
        .map_err(|e| InputError::new(origin(cfg), e.to_string()))?;
    let scale = span as f64 / measured.max(1) as f64;
    Ok(Estimate {
        bytes: stats.bytes as f64 * scale,
        events: stats.total_events() as f64 * scale,
        span_ns: span,
    })
}

/// Run the scenario with a trace to `cfg.path`. The file appears only when complete.
pub fn run_traced(
    scenario: &Scenario,
    cfg: &TraceConfig,
) -> Result<(RunResult, TraceStats), InputError> {
    let mut sim = build(scenario)?;
    run_sim_traced(scenario, &mut sim, cfg, None)
}

/// As [`run_traced`], calling `progress(now, stop_at, events)` after each thousandth of
/// the simulated span, as `execute_with_progress` does (the CLI's progress line). The
/// result and the trace are the same as without.
pub fn run_traced_with_progress(
    scenario: &Scenario,
    cfg: &TraceConfig,
    progress: &mut dyn FnMut(Ns, Ns, u64),
) -> Result<(RunResult, TraceStats), InputError> {
    let mut sim = build(scenario)?;
    run_sim_traced_with(scenario, &mut sim, cfg, None, Some(progress))
}

/// Trace an already prepared simulation (tests set invariant checks per event).
pub fn run_sim_traced(
    scenario: &Scenario,
    sim: &mut Simulation,
    cfg: &TraceConfig,
    invariant_every: Option<u64>,
) -> Result<(RunResult, TraceStats), InputError> {
    run_sim_traced_with(scenario, sim, cfg, invariant_every, None)
}

fn run_sim_traced_with(
    scenario: &Scenario,
    sim: &mut Simulation,
    cfg: &TraceConfig,
    invariant_every: Option<u64>,
    progress: Option<&mut dyn FnMut(Ns, Ns, u64)>,
) -> Result<(RunResult, TraceStats), InputError> {
    let tracer = Tracer::create(cfg.clone(), &sim.sched).map_err(|e| {
        InputError::new(origin(cfg), format!("cannot create the trace file: {e}"))
            .with_fix("check that the folder exists and is writable")
    })?;
    sim.sched.attach_observer(Box::new(tracer));
    let result = match progress {
        Some(p) => execute_in_place_with_progress(scenario, sim, invariant_every, p),
        None => execute_in_place(scenario, sim, invariant_every),
    };
    let tracer = sim
        .sched
        .detach_observer::<Tracer>()
        .expect("tracer attached");
    let stats = tracer.finish(sim.sched.now).map_err(|e| {
        InputError::new(origin(cfg), format!("cannot write the trace: {e}"))
            .with_fix("check the free space and permissions of its folder")
    })?;
    Ok((result, stats))
}
