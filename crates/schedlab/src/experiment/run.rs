//! Running a scenario end to end: build machine, features and workload, simulate, and
//! turn the final state into the result document.

use super::RunResult;
use super::Scenario;
use crate::error::InputError;
use crate::machine::presets::machine_from_name;
use crate::machine::Machine;
use crate::metrics::latency::WakeupLatencies;
use crate::metrics::{PerfStat, RootDomainResult, ScenarioEcho, SimStats, TaskResult};
use crate::sched::features::{Feature, Features};
use crate::sched::version::KernelVersion;
use crate::sched::PreemptModel;
use crate::simulation::Simulation;
use crate::time::Ns;
use crate::workload::report::RunView;
use crate::workload::{build_workload_for, Compiled};
use rand_core::RngCore;
use std::time::Instant;

/// Build the workload from the scenario's `-w` arguments and run it.
pub fn run_scenario(scenario: &Scenario) -> Result<RunResult, InputError> {
    let workload = scenario_workload(scenario)?;
    run_workload(scenario, workload)
}

/// The scenario's machine: its preset or file, with the scenario's `[costs]` set over it.
pub fn scenario_machine(scenario: &Scenario) -> Result<Machine, InputError> {
    let mut machine = machine_from_name(&scenario.machine)?;
    if !scenario.costs.is_empty() {
        machine.costs = machine
            .costs
            .with_overrides(&scenario.costs)
            .map_err(|e| InputError::new("scenario: costs", e).with_fix("use a smaller value"))?;
        machine.costs.check().map_err(|e| {
            InputError::new("scenario: costs", e)
                .with_fix("give a valid value or leave the key out")
        })?;
    }
    Ok(machine)
}

/// Check the scenario's settings and build its workload from the `-w` arguments.
pub fn scenario_workload(scenario: &Scenario) -> Result<Compiled, InputError> {
    // Settings first: a typo in a feature name is reported before any workload file is read.
    check_settings(scenario)?;
    if scenario.workloads.is_empty() {
        return Err(InputError::new("scenario", "no workload given")
            .with_fix("add -w 'rtapp FILE.json' or a `workloads` list in the scenario file"));
    }
    // Front ends size themselves by the machine and read its per-operation costs.
    let machine = scenario_machine(scenario)?;
    let mut workload = Compiled::default();
    for w in &scenario.workloads {
        workload.merge(build_workload_for(
            w,
            &scenario.base_dir,
            &machine,
            scenario.seed,
        )?);
    }
    Ok(workload)
}

/// Run an already-built workload under the scenario's machine, features and knobs.
pub fn run_workload(
    scenario: &Scenario,
    workload: impl Into<Compiled>,
) -> Result<RunResult, InputError> {
    let sim = prepare(scenario, workload)?;
    Ok(execute(scenario, sim, None))
}

/// Validate the scenario and set up the simulation without running it.
pub fn prepare(
    scenario: &Scenario,
    workload: impl Into<Compiled>,
) -> Result<Simulation, InputError> {
    prepare_on(scenario, scenario_machine(scenario)?, workload)
}

/// As `prepare`, on a machine built by the caller (tests, generated topologies); the
/// scenario's machine name is ignored.
pub fn prepare_on(
    scenario: &Scenario,
    machine: Machine,
    workload: impl Into<Compiled>,
) -> Result<Simulation, InputError> {
    let Compiled { workload, reports } = workload.into();
    let kernel = kernel_of(scenario, &machine)?;
    let features = check_knobs_for(scenario, kernel)?;
    let n = machine.nr_cpus();
    for t in workload
        .tasks
        .iter()
        .chain(workload.templates.iter().map(|t| &t.spec))
    {
        // Affinity changes inside the program (rt-app phase `cpus`) are checked too:
        // the kernel model would otherwise drop CPUs it does not have.
        let in_program = t.program.iter().filter_map(|op| match op {
            crate::workload::Op::SetSched(c) => c.cpus.as_ref(),
            _ => None,
        });
        for cpus in t.attrs.cpus.iter().chain(in_program) {
            if let Some(bad) = cpus.iter().find(|&&c| c >= n) {
                return Err(InputError::new(
                    format!("task '{}'", t.attrs.comm),
                    format!(
                        "CPU {bad} does not exist on {} ({n} CPUs)",
                        scenario.machine
                    ),
                )
                .with_fix(format!("use CPU ids 0..{}", n - 1)));
            }
            if cpus.is_empty() {
                return Err(InputError::new(
                    format!("task '{}'", t.attrs.comm),
                    "the CPU list is empty",
                )
                .with_fix("list at least one CPU, or leave `cpus` out for all"));
            }
        }
    }
    // The initial sched_setattr of SCHED_DEADLINE tasks, refused as the syscall would be
    // (EINVAL, EPERM, EBUSY) under the scenario's RT sysctls; a refusal fails the run.
    // (Run-time changes to SCHED_DEADLINE are admitted when made: sched/setattr.rs.)
    let rt_runtime = match scenario.sysctl.rt_runtime_us {
        Some(super::sysctl::RT_RUNTIME_INF) => None,
        Some(us) => Some(us as u64 * 1000),
        None => Some(crate::sched::rt::bandwidth::DEF_RT_RUNTIME_NS),
    };
    let rt_period = scenario
        .sysctl
        .rt_period_us
        .map_or(crate::sched::rt::bandwidth::DEF_RT_PERIOD_NS, |us| {
            us * 1000
        });
    crate::sched::dl::admission::dl_admit_with(
        &machine,
        kernel,
        rt_runtime,
        rt_period,
        workload.tasks.iter().map(|t| &t.attrs),
    )
    .map_err(|e| {
        InputError::new("workload", e).with_fix(
            "give the SCHED_DEADLINE tasks less runtime per period, fewer tasks or more CPUs (or raise sched_rt_runtime_us)",
        )
    })?;
    let lshift = pelt_lshift(scenario.pelt_halflife_ms)?;
    let duration = scenario.duration_ns.or(workload.duration_ns);
    let mut workload = workload;
    scenario
        .noise
        .apply_start_jitter(scenario.seed, &mut workload);
    if let Some(hk) = scenario.noise.housekeeping(scenario.seed, n) {
        workload.merge(hk);
    }
    let mut sim = Simulation::with_kernel(
        machine,
        features,
        kernel,
        scenario.hz,
        scenario.preempt,
        workload,
        duration,
    )
    .map_err(|e| InputError::new("workload", e))?;
    sim.reports = reports;
    sim.sched.cfg.pelt_lshift = lshift;
    sim.sched.work_noise = scenario.noise.work_noise(scenario.seed);
    sim.sched.timer_noise = scenario.noise.timer_noise(scenario.seed);
    sim.sched.lb.seed(scenario.seed);
    sim.sched.cfg.timer_slack_ns = scenario.timer_slack_ns;
    if scenario.boot_start {
        sim.sched.cfg.uptime_at_start_s = 0;
    }
    if !scenario.tick_aligned {
        sim.sched.cfg.tick_offset = tick_phases(scenario.seed, n, sim.sched.cfg.tick_nsec());
    }
    sim.sched.cpufreq_init(scenario.governor);
    if let Some(ns) = scenario.schedutil_rate_limit_ns {
        sim.sched.sugov_set_rate_limit(ns);
    }
    scenario.sysctl.apply(&mut sim.sched);
    super::group_setup::setup_groups(scenario, &mut sim)?;
    if let Some(min) = scenario.uclamp_leaked_min {
        if !sim.sched.features.on(Feature::DELAY_DEQUEUE_AS_POSTED) {
            return Err(InputError::new(
                "uclamp_leaked_min",
                "a leaked uclamp entry comes from the delayed-dequeue posting's bookkeeping, which this run does not have",
            )
            .with_fix("add features=COMPLETE_EEVDF_RFC (kernel 6.6), or leave uclamp_leaked_min out"));
        }
        sim.sched.uclamp_leak_on_every_cpu(min);
    }
    Ok(sim)
}

/// sched_pelt_lshift for a half-life: the PELT clock runs 2^lshift times faster, so the
/// 32-period half-life becomes 32 / 2^lshift ms (docs/model.md, PELT and util_est).
/// Each CPU's tick phase for a seed: CPUs' timer interrupts are not aligned with each
/// other nor with the moment a workload starts (docs/model.md, Time, work and events).
fn tick_phases(seed: u64, nr_cpus: usize, tick: Ns) -> Vec<Ns> {
    let mut rng = crate::engine::rng::stream(seed, "tick_phase");
    (0..nr_cpus).map(|_| rng.next_u64() % tick).collect()
}

pub fn pelt_lshift(halflife_ms: u32) -> Result<u32, InputError> {
    match halflife_ms {
        32 => Ok(0),
        16 => Ok(1),
        8 => Ok(2),
        other => Err(InputError::new(
            "pelt-halflife",
            format!("{other} ms is not a PELT half-life the kernel offers"),
        )
        .with_fix("use 32ms (mainline), 16ms or 8ms (Android sched_pelt_multiplier 2 or 4)")),
    }
}

/// Check the scenario's machine, features and tick rate; build the first two.
pub fn check_settings(scenario: &Scenario) -> Result<(Machine, Features), InputError> {
    let machine = scenario_machine(scenario)?;
    let kernel = kernel_of(scenario, &machine)?;
    let features = check_knobs_for(scenario, kernel)?;
    Ok((machine, features))
}

/// The kernel version a scenario runs: its own `kernel`, else the machine file's, else
/// the current model.
pub fn kernel_of(scenario: &Scenario, machine: &Machine) -> Result<KernelVersion, InputError> {
    match (scenario.kernel, &machine.kernel) {
        (Some(v), _) => Ok(v),
        (None, Some(text)) => {
            // The machine file as the user named it (-m FILE.toml), else the machine.
            let origin = if scenario.machine.ends_with(".toml") {
                format!("{}: kernel.version", scenario.machine)
            } else {
                format!("machine '{}': kernel.version", machine.name)
            };
            KernelVersion::parse(text, &origin)
        }
        (None, None) => Ok(KernelVersion::Current),
    }
}

/// Validate everything but the machine: features, tick rate, PELT half-life (under the
/// scenario's own kernel version, or the current one).
pub fn check_knobs(scenario: &Scenario) -> Result<Features, InputError> {
    check_knobs_for(scenario, scenario.kernel.unwrap_or_default())
}

/// As `check_knobs` for kernel `kernel`: its features, its sysctls, its preemption models.
pub fn check_knobs_for(scenario: &Scenario, kernel: KernelVersion) -> Result<Features, InputError> {
    let mut features = Features::for_kernel(kernel);
    features.apply_list_in(&scenario.features, "features", kernel)?;
    scenario.sysctl.check_kernel(kernel)?;
    if scenario.preempt == PreemptModel::Lazy && !kernel.has_preempt_lazy() {
        return Err(InputError::new(
            "preempt",
            format!("kernel {} has no lazy preemption", kernel.name()),
        )
        .with_fix(
            "CONFIG_PREEMPT_LAZY came with v6.13: use --kernel 6.18 or current, or another model",
        ));
    }
    if scenario.hz == 0 {
        return Err(InputError::new("hz", "the tick rate must be positive")
            .with_fix("use a kernel HZ value such as 100, 250 or 1000"));
    }
    pelt_lshift(scenario.pelt_halflife_ms)?;
    Ok(features)
}

/// Run a prepared simulation. `invariant_every` overrides how often invariants are
/// checked (tests use 1).
pub fn execute(
    scenario: &Scenario,
    mut sim: Simulation,
    invariant_every: Option<u64>,
) -> RunResult {
    execute_in_place(scenario, &mut sim, invariant_every)
}

/// As `execute`, leaving the simulation with the caller (to take a probe out of it after).
pub fn execute_in_place(
    scenario: &Scenario,
    sim: &mut Simulation,
    invariant_every: Option<u64>,
) -> RunResult {
    let every = invariant_every.unwrap_or_else(|| default_invariant_every(sim));
    sim.set_invariant_every(every);
    let started = Instant::now();
    let (reason, intervals) = run_stepped(scenario, sim, None);
    let wall_s = started.elapsed().as_secs_f64();
    with_intervals(collect(scenario, sim, reason.name(), wall_s), intervals)
}

/// As `execute`, calling `progress(now, stop_at, events)` after each thousandth of the
/// simulated time span (for a progress line). The run and its result are the same as
/// `execute`'s: stepping `run_until` in chunks processes the same events in the same order.
pub fn execute_with_progress(
    scenario: &Scenario,
    mut sim: Simulation,
    progress: &mut dyn FnMut(Ns, Ns, u64),
) -> RunResult {
    execute_in_place_with_progress(scenario, &mut sim, None, progress)
}

/// As `execute_in_place`, calling `progress` as `execute_with_progress` does (traced runs:
/// the tracer stays attached to the caller's simulation).
pub fn execute_in_place_with_progress(
    scenario: &Scenario,
    sim: &mut Simulation,
    invariant_every: Option<u64>,
    progress: &mut dyn FnMut(Ns, Ns, u64),
) -> RunResult {
    let every = invariant_every.unwrap_or_else(|| default_invariant_every(sim));
    sim.set_invariant_every(every);
    let started = Instant::now();
    let (reason, intervals) = run_stepped(scenario, sim, Some(progress));
    let wall_s = started.elapsed().as_secs_f64();
    with_intervals(collect(scenario, sim, reason.name(), wall_s), intervals)
}

fn with_intervals(
    mut result: RunResult,
    intervals: Option<Vec<super::intervals::IntervalRow>>,
) -> RunResult {
    result.middle_half = intervals
        .as_deref()
        .and_then(super::intervals::MiddleHalf::of);
    result.intervals = intervals;
    result
}

/// Run to the end, stopping at each thousandth of the time span for `progress` and at each
/// interval's end for the scenario's `interval` rows. Stepping `run_until` processes the
/// same events in the same order as one call, so the run is the same either way.
fn run_stepped(
    scenario: &Scenario,
    sim: &mut Simulation,
    mut progress: Option<&mut dyn FnMut(Ns, Ns, u64)>,
) -> (
    crate::simulation::StopReason,
    Option<Vec<super::intervals::IntervalRow>>,
) {
    let mut recorder = scenario
        .interval_ns
        .map(|ns| super::intervals::IntervalRecorder::new(sim, ns));
    if progress.is_none() && recorder.is_none() {
        return (sim.run(), None);
    }
    let stop = sim.stop_at;
    let step = (stop.saturating_sub(sim.sched.now) / 1000).max(1);
    let mut next_progress = match progress {
        Some(_) => sim.sched.now.saturating_add(step),
        None => Ns::MAX,
    };
    loop {
        let next_row = recorder.as_ref().map_or(Ns::MAX, |r| r.next_at());
        let t = next_progress.min(next_row).min(stop);
        if sim.run_until(t) == crate::simulation::StopReason::AllExited {
            break;
        }
        if t == next_row && t < stop {
            if let Some(r) = recorder.as_mut() {
                r.sample(sim, t);
            }
        }
        if let Some(p) = progress.as_mut() {
            if t == next_progress || t == stop {
                p(t, stop, sim.events_processed);
                next_progress = t.saturating_add(step);
            }
        }
        if t >= stop {
            break;
        }
    }
    let reason = sim.run();
    (reason, recorder.map(|r| r.finish(sim)))
}

/// Invariants are checked every this many events in normal runs.
pub const DEFAULT_INVARIANT_EVERY: u64 = 1024;

/// A full invariant check walks every task and CPU, so on big scenarios it runs less often:
/// every max(1024, 64 × (tasks + CPUs)) events keeps its share of the run time bounded
/// whatever the machine size. A walked task misses the caches where an event mostly
/// hits them: at 16 × the checks took 15 % of prio-lb's samples (docs/performance.md,
/// "Twelfth round"). Tests check after every event.
pub fn default_invariant_every(sim: &Simulation) -> u64 {
    let size = (sim.sched.tasks.len() + sim.sched.machine.nr_cpus()) as u64;
    DEFAULT_INVARIANT_EVERY.max(64 * size)
}

fn collect(scenario: &Scenario, sim: &Simulation, stop: &str, wall_s: f64) -> RunResult {
    let s = &sim.sched;
    let time_ns = s.now;
    let latencies = s.observer::<WakeupLatencies>();
    let tasks: Vec<TaskResult> = s
        .tasks
        .iter()
        .enumerate()
        .map(|(id, t)| {
            let e = &s.entities[t.se as usize];
            TaskResult {
                pid: t.pid,
                comm: t.comm.clone(),
                cgroup: s.has_groups().then(|| s.task_group_path(id).to_string()),
                policy: t.policy.kernel_name().to_string(),
                rt_priority: (t.policy.class() == crate::sched::SchedClass::Rt)
                    .then_some(t.rt_priority()),
                dl: t
                    .dl
                    .as_ref()
                    .filter(|_| t.policy == crate::sched::Policy::Deadline)
                    .map(|d| crate::metrics::results::DlResult {
                        runtime_ns: d.dl_runtime,
                        deadline_ns: d.dl_deadline,
                        period_ns: d.dl_period,
                    }),
                nice: t.nice,
                cpu_time_ns: e.sum_exec_runtime,
                wait_time_ns: t.stats.wait_sum,
                nr_switches: t.nvcsw + t.nivcsw,
                nr_voluntary_switches: t.nvcsw,
                nr_involuntary_switches: t.nivcsw,
                nr_migrations: t.nr_migrations,
                wakeup_latency_ns: latencies.map(|l| l.summary(id)).unwrap_or_default(),
                exited: t.state == crate::sched::TaskState::Dead,
                util_avg: e.avg.util_avg,
                runnable_avg: e.avg.runnable_avg,
                load_avg: e.avg.load_avg,
                util_est: s._task_util_est(id),
                util_avg_mean: round3(t.stats.util_mean.mean(e.avg.util_avg, s.now)),
            }
        })
        .collect();
    let task_clock_ns: u64 = tasks.iter().map(|t| t.cpu_time_ns).sum();
    let (context_switches, cpu_migrations) = super::intervals::perf_counts(s);
    let (cpus, energy) = super::collect_cpus::cpu_results(s);
    let view = RunView {
        tasks: &tasks,
        probes: sim.probes(),
        end_ns: time_ns,
    };
    let workloads = sim.reports.iter().map(|r| r.render(&view)).collect();
    RunResult {
        scenario: ScenarioEcho {
            machine: s.machine.name.clone(),
            nr_cpus: s.machine.nr_cpus(),
            features: s.features.non_default_in(s.cfg.kernel),
            kernel: (s.cfg.kernel != KernelVersion::Current)
                .then(|| s.cfg.kernel.name().to_string()),
            costs: scenario.costs.clone(),
            seed: scenario.seed,
            hz: s.cfg.hz,
            preempt: s.cfg.preempt.name().to_string(),
            pelt_halflife_ms: 32 >> s.cfg.pelt_lshift,
            governor: s.cpufreq.governor.name(),
            schedutil_rate_limit_us: scenario.schedutil_rate_limit_ns.map(|ns| ns / 1000),
            uclamp_leaked_min: scenario.uclamp_leaked_min,
            sysctl: [
                (
                    "sched_util_clamp_min".to_string(),
                    s.cfg.sysctl_uclamp[0] as u64,
                ),
                (
                    "sched_util_clamp_max".to_string(),
                    s.cfg.sysctl_uclamp[1] as u64,
                ),
            ]
            .into_iter()
            .chain(super::sysctl::cfs_echo(s))
            .chain(scenario.sysctl.rt_echo())
            .collect(),
            duration_ns: sim.stop_at,
            workloads: scenario.workloads.clone(),
        },
        sim: SimStats {
            time_ns,
            events: sim.events_processed,
            events_by_kind: crate::engine::Event::KIND_NAMES
                .iter()
                .zip(sim.events_by_kind)
                .filter(|&(_, n)| n > 0)
                .map(|(name, n)| (name.to_string(), n))
                .collect(),
            wall_s,
            stop_reason: stop.to_string(),
            invariant_violations: s.invariant_violations,
            invariant_messages: s.invariant_messages.clone(),
        },
        perf: PerfStat {
            context_switches,
            cpu_migrations,
            task_clock_ns,
            cpus_utilized: super::intervals::cpus_utilized(task_clock_ns, time_ns),
        },
        tasks,
        cpus,
        energy,
        root_domain: RootDomainResult {
            eas: s.sched_energy_enabled(),
            overutilized: s.rd.overutilized,
            overutilized_reads: s.rd.overutilized_reads,
            overutilized_writes: s.rd.overutilized_writes,
            overutilized_line_misses: s.rd.overutilized_line_misses,
            line_accesses: s.rd.line.reads + s.rd.line.writes,
            line_misses: s.rd.line.misses,
            line_transfer_ns: s.rd.line.transfer_ns,
        },
        sd_shared: crate::metrics::results::SharedLinesResult {
            accesses: s.sd_shared_lines.iter().map(|l| l.reads + l.writes).sum(),
            misses: s.sd_shared_lines.iter().map(|l| l.misses).sum(),
            transfer_ns: s.sd_shared_lines.iter().map(|l| l.transfer_ns).sum(),
        },
        sched_profile: sched_profile(s, time_ns),
        placement: s.placement,
        workloads,
        groups: group_results(s),
        intervals: None,
        middle_half: None,
    }
}

/// The profile, largest first (ties by function name).
fn sched_profile(
    s: &crate::sched::Sched,
    time_ns: u64,
) -> Vec<crate::metrics::results::ProfileEntry> {
    use crate::sched::sim::overhead::SchedFn;
    let total = (time_ns as f64) * s.machine.nr_cpus() as f64;
    let busy: u64 = s
        .rqs
        .iter()
        .map(|rq| super::collect_cpus::busy_ns(rq, time_ns))
        .sum();
    let share = |ns: u64, of: f64| {
        if of > 0.0 {
            (ns as f64 / of * 100.0 * 1e4).round() / 1e4
        } else {
            0.0
        }
    };
    let mut v: Vec<_> = SchedFn::ALL
        .iter()
        .map(|f| {
            let ns = s.overhead.ns[*f as usize];
            crate::metrics::results::ProfileEntry {
                function: f.name().to_string(),
                ns,
                pct: share(ns, total),
                busy_pct: share(ns, busy as f64),
            }
        })
        .collect();
    v.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.function.cmp(&b.function)));
    v
}

/// Per-group results (cpu.stat), for every group but the root.
fn group_results(s: &crate::sched::Sched) -> Vec<crate::metrics::GroupResult> {
    (1..s.groups.len())
        .map(|tg| {
            let g = &s.groups[tg];
            let bw = g.bw.clone().unwrap_or_default();
            crate::metrics::GroupResult {
                path: g.path.clone(),
                weight: g.weight,
                idle: g.idle,
                autogroup: g.autogroup,
                max: match &g.bw {
                    Some(b) => format!("{} {}", b.quota / 1000, b.period / 1000),
                    None => "max".into(),
                },
                nr_tasks: s.tasks.iter().filter(|t| t.tg == tg).count(),
                cpu_time_ns: s.group_cpu_time(tg),
                nr_periods: bw.nr_periods,
                nr_throttled: bw.nr_throttled,
                throttled_time_ns: bw.throttled_time,
                nr_throttle_events: bw.nr_throttle_events,
            }
        })
        .collect()
}

/// Round to 3 decimals so the JSON carries no float noise.
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
