//! `schedlab validate`: the scenario's workloads run for real on this host N times and
//! simulated M seeds, then one row per (task or group, metric).

use crate::compare::{self, row, Kind, Row};
use crate::host_run::{self, HostOptions, HostRep};
use crate::{cleanup, rtapp_exec, rtapp_quirks, tools};
use schedlab::experiment::run::{run_workload, scenario_machine};
use schedlab::experiment::RunResult;
use schedlab::experiment::Scenario;
use schedlab::workload::{build_workload_for, cmdline::split_words, Compiled};
use schedlab::InputError;

/// Which real runner executes rt-app files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// schedlab's executor of the task-program IR (rtapp_exec.rs).
    Builtin,
    /// The `rt-app` binary on PATH.
    RtApp,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub reps: usize,
    pub seeds: usize,
    pub runner: Runner,
    /// Wake-up latency from tracefs when root (else the runner's timer timestamps).
    pub trace: bool,
    /// Run length when neither the scenario nor the workload gives one, ns.
    pub default_duration_ns: u64,
}

/// The table rows plus what the user should know about how they were measured.
pub struct Outcome {
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
}

/// Kinds of `-w` workload by how they run on the host.
enum Plan {
    /// Task-program workloads (rtapp, spinner, frames) on the built-in executor.
    Executor,
    /// One real benchmark tool.
    Tool(tools::Tool),
    /// rt-app files on the real rt-app.
    RtAppBinary,
}

const TOOLS: &[&str] = &["hackbench", "perf-bench-messaging", "schbench", "stress-ng"];

fn plan(sc: &Scenario, cfg: &Config) -> Result<Plan, InputError> {
    if sc.workloads.is_empty() {
        return Err(InputError::new("validate", "no workload given")
            .with_fix("add -w 'rtapp FILE.json' (or hackbench, schbench, …), or --suite basic"));
    }
    let firsts: Vec<String> = sc
        .workloads
        .iter()
        .map(|w| {
            split_words(w)
                .ok()
                .and_then(|v| v.first().cloned())
                .unwrap_or_default()
        })
        .collect();
    let n_tools = firsts
        .iter()
        .filter(|f| TOOLS.contains(&f.as_str()))
        .count();
    if n_tools > 0 {
        if sc.workloads.len() > 1 {
            return Err(InputError::new(
                "validate",
                "a real benchmark tool runs alone here, not together with other -w workloads",
            )
            .with_fix("validate the tool and the other workloads in separate commands"));
        }
        return Ok(Plan::Tool(tools::Tool::from_spec(&sc.workloads[0])?));
    }
    if cfg.runner == Runner::RtApp {
        if firsts.iter().any(|f| f != "rtapp" && f != "rt-app") {
            return Err(
                InputError::new("--runner rt-app", "only rt-app files can run on rt-app")
                    .with_fix("use --runner builtin for spinner and frames workloads"),
            );
        }
        tools::which("rt-app").ok_or_else(|| {
            InputError::new("--runner rt-app", "no `rt-app` binary on PATH").with_fix(
                "build rt-app from its upstream source (./autogen.sh && ./configure && make install) or use --runner builtin",
            )
        })?;
        return Ok(Plan::RtAppBinary);
    }
    Ok(Plan::Executor)
}

/// The scenario's workload built as the simulator builds it, with rt-app files read the
/// way rt-app runs them (rtapp_quirks.rs); the warnings go to `notes`.
pub fn build_workload(sc: &Scenario, notes: &mut Vec<String>) -> Result<Compiled, InputError> {
    let machine = scenario_machine(sc)?;
    let mut wl = Compiled::default();
    for w in &sc.workloads {
        let mut one = build_workload_for(w, &sc.base_dir, &machine, sc.seed)?;
        let words = split_words(w).unwrap_or_default();
        if matches!(words.first().map(String::as_str), Some("rtapp" | "rt-app")) {
            if let Some(file) = words.get(1) {
                let path = sc.base_dir.join(file);
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let q = rtapp_quirks::find_quirks(&text);
                for n in rtapp_quirks::apply(&mut one.workload, &q, &path.display().to_string()) {
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
        }
        wl.merge(one);
    }
    Ok(wl)
}

/// Run the simulator on `seeds` seeds from the scenario's.
fn simulate(
    sc: &Scenario,
    seeds: usize,
    notes: &mut Vec<String>,
) -> Result<Vec<RunResult>, InputError> {
    let mut out = Vec::new();
    for i in 0..seeds {
        if cleanup::interrupted() {
            return Err(cleanup::interrupted_error());
        }
        let mut s = sc.clone();
        s.seed = sc.seed + i as u64;
        let wl = build_workload(&s, notes)?;
        out.push(run_workload(&s, wl)?);
    }
    Ok(out)
}

/// Run the whole comparison. `progress` gets one line per finished run.
pub fn validate(
    sc: &Scenario,
    cfg: &Config,
    progress: &mut dyn FnMut(&str),
) -> Result<Outcome, InputError> {
    cleanup::install_handlers();
    if cfg.trace {
        crate::tracefs::remove_stale_instances();
    }
    if cfg.reps == 0 || cfg.seeds == 0 {
        return Err(InputError::new("--reps/--seeds", "must be at least 1"));
    }
    let plan = plan(sc, cfg)?;
    let mut notes = Vec::new();
    let mut sc = sc.clone();
    // Machine and settings problems surface before any real run.
    let probe = build_workload(&sc, &mut notes)?;
    let duration = match (sc.duration_ns, probe.workload.duration_ns, &plan) {
        (Some(d), _, _) => Some(d),
        (None, Some(d), _) => Some(d),
        (None, None, Plan::Tool(_)) => None,
        (None, None, _) => {
            notes.push(format!(
                "no duration in the scenario or the workload: {} s (give -t to change)",
                cfg.default_duration_ns as f64 / 1e9
            ));
            Some(cfg.default_duration_ns)
        }
    };
    sc.duration_ns = duration;
    match plan {
        Plan::Executor | Plan::RtAppBinary => {
            let sims = simulate(&sc, cfg.seeds, &mut notes)?;
            progress(&format!("simulated {} seed(s)", sims.len()));
            let limit = duration.unwrap_or(cfg.default_duration_ns);
            let ns_per_loop = rtapp_exec::calibrate_ns_per_loop(30);
            let groups = crate::cgroups::HostCgroups::create(&sc, &probe.workload)?;
            let cgroup_dirs = groups
                .as_ref()
                .map(|g| g.task_dirs.clone())
                .unwrap_or_default();
            if groups.is_some() && matches!(plan, Plan::RtAppBinary) {
                notes.push("task groups: rt-app makes its own (taskgroup); the scenario's [cgroups] globs are not applied to the real rt-app".into());
            }
            let mut reps = Vec::new();
            for i in 0..cfg.reps {
                let rep = match plan {
                    Plan::RtAppBinary => tools::run_rtapp_binary(&sc, limit, cfg.trace)?,
                    _ => host_run::run_workload(
                        &probe.workload,
                        limit,
                        &HostOptions {
                            trace: cfg.trace,
                            ns_per_loop,
                            cgroup_dirs: cgroup_dirs.clone(),
                        },
                    )?,
                };
                for w in &rep.warnings {
                    if !notes.contains(w) {
                        notes.push(w.clone());
                    }
                }
                progress(&format!(
                    "host run {}/{} ({:.2} s)",
                    i + 1,
                    cfg.reps,
                    rep.wall_ns as f64 / 1e9
                ));
                reps.push(rep);
            }
            drop(groups);
            notes.extend(speed_note(&reps, ns_per_loop));
            let rows = task_rows(&reps, &sims, &mut notes);
            Ok(Outcome { rows, notes })
        }
        Plan::Tool(tool) => {
            tool.check_installed()?;
            let sims = simulate(&sc, cfg.seeds, &mut notes)?;
            progress(&format!("simulated {} seed(s)", sims.len()));
            let mut reps = Vec::new();
            for i in 0..cfg.reps {
                let rep = tool.run(duration, cfg.trace)?;
                progress(&format!(
                    "host run {}/{} ({:.2} s)",
                    i + 1,
                    cfg.reps,
                    rep.wall_ns as f64 / 1e9
                ));
                for w in &rep.warnings {
                    if !notes.contains(w) {
                        notes.push(w.clone());
                    }
                }
                reps.push(rep);
            }
            let rows = tool.rows(&reps, &sims);
            Ok(Outcome { rows, notes })
        }
    }
}

fn per_s(count: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        count as f64 * 1e9 / ns as f64
    }
}

/// A simulated housekeeping thread (`[noise] housekeeping_hz`), not part of the workload.
fn is_housekeeping(comm: &str) -> bool {
    comm.starts_with("kworker/")
}

/// The simulated perf totals without the housekeeping threads (`kworker/N:1`, pinned, so
/// they add no migrations).
fn workload_perf(r: &RunResult) -> schedlab::metrics::PerfStat {
    let mut p = r.perf.clone();
    for t in r.tasks.iter().filter(|t| is_housekeeping(&t.comm)) {
        p.context_switches -= t.nr_switches;
        p.task_clock_ns -= t.cpu_time_ns;
    }
    p
}

/// How fast the calibrated `run` loop actually went, over every `run` op of every rep.
fn speed_note(reps: &[HostRep], ns_per_loop: f64) -> Option<String> {
    let mut v: Vec<f64> = reps
        .iter()
        .flat_map(|r| {
            r.tasks
                .iter()
                .flat_map(|t| t.run_speed.iter().map(|&x| x as f64))
        })
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    Some(format!(
        "compute loop (`run`): calibrated {:.2} ns/loop at the fastest speed seen; work done per CPU-ns over {} thread-runs (a thread's calibrated run work ÷ its CPU time): min {:.2}, p5 {:.2}, median {:.2}, p95 {:.2}, max {:.2} (1.00 = as calibrated; below 1 the vCPU ran slower, so `run` took more CPU time than its µs)",
        ns_per_loop,
        v.len(),
        q(0.0),
        q(0.05),
        q(0.5),
        q(0.95),
        q(1.0)
    ))
}

/// Per task: CPU share, switches, migrations, wake-up latency; per CPU: busy share;
/// perf-stat totals.
fn task_rows(reps: &[HostRep], sims: &[RunResult], notes: &mut Vec<String>) -> Vec<Row> {
    let mut rows = Vec::new();
    let names: Vec<String> = sims[0]
        .tasks
        .iter()
        .filter(|t| !is_housekeeping(&t.comm))
        .map(|t| t.comm.clone())
        .collect();
    let traced = reps
        .iter()
        .all(|r| r.tasks.iter().all(|t| t.wake_lat_ns.is_some()));
    notes.push(if traced {
        "wake-up latency: host from tracefs (sched_waking → sched_switch), sim wake-up → first run".into()
    } else {
        "wake-up latency: host from the runner's timer timestamps (expiry → thread running, includes timer slack), sim wake-up → first run".into()
    });
    let mut unmatched = Vec::new();
    for name in &names {
        let host: Vec<&host_run::HostTask> = reps
            .iter()
            .filter_map(|r| r.tasks.iter().find(|t| &t.comm == name))
            .collect();
        if host.len() < reps.len() {
            unmatched.push(name.clone());
        }
        let sim: Vec<&schedlab::metrics::TaskResult> = sims
            .iter()
            .filter_map(|s| s.tasks.iter().find(|t| &t.comm == name))
            .collect();
        let hw: Vec<u64> = reps.iter().map(|r| r.wall_ns).collect();
        let st: Vec<u64> = sims.iter().map(|s| s.sim.time_ns).collect();
        let h = |f: &dyn Fn(&host_run::HostTask) -> u64| -> Vec<f64> {
            host.iter().zip(&hw).map(|(t, &w)| per_s(f(t), w)).collect()
        };
        let s = |f: &dyn Fn(&schedlab::metrics::TaskResult) -> u64| -> Vec<f64> {
            sim.iter().zip(&st).map(|(t, &w)| per_s(f(t), w)).collect()
        };
        let share = |v: Vec<f64>| v.into_iter().map(|x| x / 1e9).collect::<Vec<_>>();
        rows.push(row(
            "cpu_share",
            name,
            Kind::Share,
            &share(h(&|t| t.stat.cpu_time_ns)),
            &share(s(&|t| t.cpu_time_ns)),
        ));
        rows.push(row(
            "voluntary_switches_per_s",
            name,
            Kind::Count,
            &h(&|t| t.stat.nvcsw),
            &s(&|t| t.nr_voluntary_switches),
        ));
        rows.push(row(
            "involuntary_switches_per_s",
            name,
            Kind::Count,
            &h(&|t| t.stat.nivcsw),
            &s(&|t| t.nr_involuntary_switches),
        ));
        rows.push(row(
            "migrations_per_s",
            name,
            Kind::Count,
            &h(&|t| t.stat.migrations),
            &s(&|t| t.nr_migrations),
        ));
        let lat = |t: &host_run::HostTask| {
            let mut v = t
                .wake_lat_ns
                .clone()
                .unwrap_or_else(|| t.timer_lat_ns.clone());
            v.sort_unstable();
            v
        };
        // Reps or seeds without a single wake-up have no percentile: left out.
        let host_lat: Vec<Vec<u64>> = host
            .iter()
            .map(|t| lat(t))
            .filter(|v| !v.is_empty())
            .collect();
        let sim: Vec<_> = sim
            .iter()
            .filter(|t| t.wakeup_latency_ns.count > 0)
            .collect();
        if !host_lat.is_empty() && !sim.is_empty() {
            for (p, label) in [
                (50u64, "wakeup_latency_p50_us"),
                (99, "wakeup_latency_p99_us"),
            ] {
                let hv: Vec<f64> = host_lat
                    .iter()
                    .map(|v| compare::percentile(v, p) as f64 / 1e3)
                    .collect();
                let sv: Vec<f64> = sim
                    .iter()
                    .map(|t| if p == 50 { t.wakeup_latency_ns.p50 } else { t.wakeup_latency_ns.p99 } as f64 / 1e3)
                    .collect();
                rows.push(row(label, name, Kind::Latency, &hv, &sv));
            }
        }
    }
    if !unmatched.is_empty() {
        notes.push(format!(
            "tasks missing on the host in some reps: {}",
            unmatched.join(", ")
        ));
    }
    let n_cpu = sims[0].cpus.len();
    for cpu in 0..n_cpu {
        let hv: Vec<f64> = reps
            .iter()
            .filter_map(|r| r.cpu_busy.get(cpu).copied())
            .collect();
        let sv: Vec<f64> = sims
            .iter()
            .map(|s| s.cpus[cpu].busy_ns as f64 / s.sim.time_ns.max(1) as f64)
            .collect();
        rows.push(row(
            "busy_share",
            &format!("cpu{cpu}"),
            Kind::Share,
            &hv,
            &sv,
        ));
    }
    if reps.iter().all(|r| r.perf.is_some()) {
        // The host is shared: CPU time nobody in the workload used shows in /proc/stat.
        let other: Vec<f64> = reps
            .iter()
            .map(|r| {
                let busy: f64 = r.cpu_busy.iter().sum();
                let ours =
                    r.perf.map(|p| p.task_clock_ns).unwrap_or(0) as f64 / r.wall_ns.max(1) as f64;
                (busy - ours).max(0.0)
            })
            .collect();
        let (m, lo, hi) = compare::summary(&other);
        notes.push(format!(
            "other processes on the host used {m:.2} CPUs (min {lo:.2}, max {hi:.2}) during the host runs; the simulator sees only the workload"
        ));
        let hp = |f: &dyn Fn(&crate::perf_counters::PerfTotals) -> u64| -> Vec<f64> {
            reps.iter()
                .map(|r| per_s(f(r.perf.as_ref().unwrap_or(&Default::default())), r.wall_ns))
                .collect()
        };
        // The simulated housekeeping threads (`[noise] housekeeping_hz`) are not part of
        // the workload the host's per-process counters see: leave them out.
        let sp = |f: &dyn Fn(&schedlab::metrics::PerfStat) -> u64| -> Vec<f64> {
            sims.iter()
                .map(|s| per_s(f(&workload_perf(s)), s.sim.time_ns))
                .collect()
        };
        rows.push(row(
            "perf_context_switches_per_s",
            "(all)",
            Kind::Count,
            &hp(&|p| p.context_switches),
            &sp(&|p| p.context_switches),
        ));
        rows.push(row(
            "perf_cpu_migrations_per_s",
            "(all)",
            Kind::Count,
            &hp(&|p| p.cpu_migrations),
            &sp(&|p| p.cpu_migrations),
        ));
        let cu = |v: Vec<f64>| v.into_iter().map(|x| x / 1e9).collect::<Vec<_>>();
        rows.push(row(
            "perf_cpus_utilized",
            "(all)",
            Kind::Share,
            &cu(hp(&|p| p.task_clock_ns)),
            &cu(sp(&|p| p.task_clock_ns)),
        ));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab::workload::{Op, TaskSpec, Workload};

    #[test]
    fn simulated_housekeeping_is_left_out_of_the_workload_totals() {
        let mut sc = Scenario {
            machine: "smp:1".into(),
            duration_ns: Some(1_000_000_000),
            ..Scenario::default()
        };
        sc.noise.housekeeping_hz = 50;
        let hog = TaskSpec::new(
            "hog",
            vec![Op::Run {
                work_ns: 10_000_000_000,
            }],
        );
        let wl = Workload {
            tasks: vec![hog],
            ..Workload::default()
        };
        let r = run_workload(&sc, wl).unwrap();
        assert!(is_housekeeping(&r.tasks[1].comm) && !is_housekeeping(&r.tasks[0].comm));
        let p = workload_perf(&r);
        assert!(r.tasks[1].nr_switches > 0);
        assert_eq!(p.context_switches, r.tasks[0].nr_switches);
        assert_eq!(p.task_clock_ns, r.tasks[0].cpu_time_ns);
    }
}
