//! The real benchmark tools (hackbench from rt-tests, `perf bench sched messaging` from
//! linux-perf, schbench, stress-ng) and the real rt-app: started behind a gate so perf
//! counters (enable_on_exec, inherit) and tracefs are ready before the tool's first
//! instruction, run in their own session (own process group and autogroup), bounded by
//! a hard cap, and killed with their whole group at the end or on Ctrl-C.

use crate::cleanup::{interrupted, interrupted_error, ProcessGroup};
use crate::compare::{row, Kind, Row};
use crate::host_run::{HostRep, HostTask};
use crate::perf_counters::{PerfCounters, PerfTotals};
use crate::procfs;
use crate::rtapp_exec::now_ns;
use crate::tracefs::{self, TraceSession};
use schedlab::experiment::RunResult;
use schedlab::experiment::Scenario;
use schedlab::workload::cmdline::split_words;
use schedlab::InputError;
use std::io::Read;

/// `PATH` lookup.
pub fn which(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind2 {
    Hackbench,
    PerfMessaging,
    Schbench,
    StressNg,
}

/// One real tool invocation built from a `-w` string.
#[derive(Debug, Clone)]
pub struct Tool {
    pub kind: Kind2,
    /// The `-w` string, for messages and as the row label.
    pub label: String,
    pub args: Vec<String>,
}

/// One run of a tool, summed over all of its processes and threads.
#[derive(Debug, Clone, Default)]
pub struct ToolRep {
    pub wall_ns: u64,
    /// rusage of the tool and every child it reaped: user + system time.
    pub cpu_time_ns: u64,
    pub nvcsw: u64,
    pub nivcsw: u64,
    pub perf: Option<PerfTotals>,
    pub cpu_busy: Vec<f64>,
    pub output: String,
    /// Figures the tool printed (time_s, average_rps, bogo_ops_per_s, …).
    pub values: Vec<(String, f64)>,
    pub warnings: Vec<String>,
}

impl Tool {
    pub fn from_spec(spec: &str) -> Result<Tool, InputError> {
        let origin = format!("workload '{spec}'");
        let words = split_words(spec).map_err(|e| InputError::new(&origin, e))?;
        let kind = match words.first().map(String::as_str) {
            Some("hackbench") => Kind2::Hackbench,
            Some("perf-bench-messaging") => Kind2::PerfMessaging,
            Some("schbench") => Kind2::Schbench,
            Some("stress-ng") => Kind2::StressNg,
            _ => return Err(InputError::new(origin, "not a real tool")),
        };
        Ok(Tool {
            kind,
            label: words[0].clone(),
            args: words[1..].to_vec(),
        })
    }

    fn binary(&self) -> &'static str {
        match self.kind {
            Kind2::Hackbench => "hackbench",
            Kind2::PerfMessaging => "perf",
            Kind2::Schbench => "schbench",
            Kind2::StressNg => "stress-ng",
        }
    }

    /// Exit-2 error naming the package or build step when the tool is missing.
    pub fn check_installed(&self) -> Result<(), InputError> {
        if which(self.binary()).is_some() {
            return Ok(());
        }
        let fix = match self.kind {
            Kind2::Hackbench => "install it: apt-get install rt-tests",
            Kind2::PerfMessaging => "install it: apt-get install linux-perf",
            Kind2::StressNg => "install it: apt-get install stress-ng",
            Kind2::Schbench => {
                "schbench is not packaged: build it from its upstream git source (Chris Mason's schbench repository: make, then copy ./schbench onto PATH, e.g. /usr/local/bin)"
            }
        };
        Err(InputError::new(
            format!("workload '{}'", self.label),
            format!("`{}` is not installed", self.binary()),
        )
        .with_fix(fix))
    }

    fn command_line(&self, duration_ns: Option<u64>) -> Vec<String> {
        let mut v = vec![self.binary().to_string()];
        if self.kind == Kind2::PerfMessaging {
            v.extend(["bench", "sched", "messaging"].map(String::from));
        }
        v.extend(self.args.iter().cloned());
        if self.kind == Kind2::StressNg {
            let has_timeout = self
                .args
                .iter()
                .any(|a| a == "-t" || a.starts_with("--timeout"));
            if !has_timeout {
                let s = duration_ns.unwrap_or(5_000_000_000).div_ceil(1_000_000_000);
                v.push(format!("--timeout={s}s"));
            }
            if !self.args.iter().any(|a| a.starts_with("--metrics")) {
                v.push("--metrics-brief".into());
            }
        }
        v
    }

    /// Run once. `duration_ns`: the scenario's length (the tool's own when None).
    pub fn run(&self, duration_ns: Option<u64>, trace: bool) -> Result<ToolRep, InputError> {
        let argv = self.command_line(duration_ns);
        let cap = duration_ns
            .map(|d| d + (d / 2).max(10_000_000_000))
            .unwrap_or(120_000_000_000);
        let g = spawn_gated(&argv, &self.label)?;
        let mut rep = ToolRep::default();
        let mut group = ProcessGroup::new(g.pid);
        let perf = PerfCounters::open(g.pid, true)
            .map_err(|e| {
                rep.warnings
                    .push(format!("perf_event_open: {e}; no perf counters"))
            })
            .ok();
        let _trace = trace.then(|| TraceSession::start(g.pid).ok()).flatten();
        let before = procfs::cpu_times();
        let t0 = now_ns();
        g.open_gate();
        let (out_t, err_t) = (g.stdout, g.stderr);
        let status = loop {
            if interrupted() {
                group.kill();
                return Err(interrupted_error());
            }
            if let Some((status, ru)) = group.try_wait() {
                rep.cpu_time_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
                rep.nvcsw = ru.ru_nvcsw as u64;
                rep.nivcsw = ru.ru_nivcsw as u64;
                break Some(status);
            }
            if now_ns() - t0 > cap {
                rep.warnings.push(format!(
                    "{}: still running after the hard cap of {:.0} s; killed",
                    self.label,
                    cap as f64 / 1e9
                ));
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        rep.wall_ns = now_ns() - t0;
        rep.perf = perf.as_ref().map(|p| p.read());
        rep.cpu_busy = before.busy_since(&procfs::cpu_times());
        group.kill();
        drop(group);
        let out = out_t.join().unwrap_or_default();
        let err = err_t.join().unwrap_or_default();
        rep.output = format!("{out}{err}");
        if let Some(s) = status {
            if !(libc::WIFEXITED(s) && libc::WEXITSTATUS(s) == 0) {
                let last = rep
                    .output
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string();
                return Err(InputError::new(
                    format!("workload '{}'", self.label),
                    format!("`{}` failed: {last}", argv.join(" ")),
                )
                .with_fix(
                    "check the tool's arguments (they are passed to the real tool as written)",
                ));
            }
        }
        rep.values = parse_output(self.kind, &rep.output);
        Ok(rep)
    }

    /// Rows for the tool as one group: its tasks summed on both sides.
    pub fn rows(&self, reps: &[ToolRep], sims: &[RunResult]) -> Vec<Row> {
        let task = self.label.as_str();
        let per_s = |c: u64, ns: u64| {
            if ns == 0 {
                0.0
            } else {
                c as f64 * 1e9 / ns as f64
            }
        };
        let hv = |f: &dyn Fn(&ToolRep) -> f64| reps.iter().map(f).collect::<Vec<f64>>();
        let sv = |f: &dyn Fn(&RunResult) -> f64| sims.iter().map(f).collect::<Vec<f64>>();
        let sum = |s: &RunResult, f: &dyn Fn(&schedlab::metrics::TaskResult) -> u64| -> u64 {
            s.tasks.iter().map(f).sum()
        };
        let mut rows = vec![
            row(
                "cpus_utilized",
                task,
                Kind::Share,
                &hv(&|r| r.cpu_time_ns as f64 / r.wall_ns.max(1) as f64),
                &sv(&|s| sum(s, &|t| t.cpu_time_ns) as f64 / s.sim.time_ns.max(1) as f64),
            ),
            row(
                "voluntary_switches_per_s",
                task,
                Kind::Count,
                &hv(&|r| per_s(r.nvcsw, r.wall_ns)),
                &sv(&|s| per_s(sum(s, &|t| t.nr_voluntary_switches), s.sim.time_ns)),
            ),
            row(
                "involuntary_switches_per_s",
                task,
                Kind::Count,
                &hv(&|r| per_s(r.nivcsw, r.wall_ns)),
                &sv(&|s| per_s(sum(s, &|t| t.nr_involuntary_switches), s.sim.time_ns)),
            ),
        ];
        if reps.iter().all(|r| r.perf.is_some()) {
            let p = |r: &ToolRep| r.perf.unwrap_or_default();
            rows.push(row(
                "perf_context_switches_per_s",
                task,
                Kind::Count,
                &hv(&|r| per_s(p(r).context_switches, r.wall_ns)),
                &sv(&|s| per_s(s.perf.context_switches, s.sim.time_ns)),
            ));
            rows.push(row(
                "perf_cpu_migrations_per_s",
                task,
                Kind::Count,
                &hv(&|r| per_s(p(r).cpu_migrations, r.wall_ns)),
                &sv(&|s| per_s(s.perf.cpu_migrations, s.sim.time_ns)),
            ));
        }
        for (name, kind, path) in tool_figures(self.kind) {
            let host: Vec<f64> = reps
                .iter()
                .filter_map(|r| r.values.iter().find(|(n, _)| n == name).map(|x| x.1))
                .collect();
            let sim: Vec<f64> = sims.iter().filter_map(|s| sim_figure(s, path)).collect();
            if !host.is_empty() || !sim.is_empty() {
                rows.push(row(name, task, kind, &host, &sim));
            }
        }
        rows
    }
}

/// Printed figures compared per tool: (name, tolerance, where the simulator has it).
fn tool_figures(k: Kind2) -> Vec<(&'static str, Kind, &'static str)> {
    match k {
        Kind2::Hackbench | Kind2::PerfMessaging => vec![("time_s", Kind::Count, "time_s")],
        Kind2::StressNg => vec![("bogo_ops_per_s", Kind::Count, "bogo_ops_per_s")],
        Kind2::Schbench => vec![
            ("wakeup_p50_us", Kind::Latency, "wakeup_latency_us.50"),
            ("wakeup_p99_us", Kind::Latency, "wakeup_latency_us.99"),
            ("request_p50_us", Kind::Latency, "request_latency_us.50"),
            ("request_p99_us", Kind::Latency, "request_latency_us.99"),
            ("average_rps", Kind::Count, "average_rps"),
        ],
    }
}

/// A figure from the simulator's workload section (as in its --json document).
fn sim_figure(s: &RunResult, path: &str) -> Option<f64> {
    let w = serde_json::to_value(s.workloads.first()?).ok()?;
    match path.split_once('.') {
        None => w.get(path)?.as_f64(),
        Some((table, pct)) => {
            let pct: f64 = pct.parse().ok()?;
            w.get(table)?
                .get("rows")?
                .as_array()?
                .iter()
                .find(|r| r.get("pct").and_then(|p| p.as_f64()) == Some(pct))?
                .get("value")?
                .as_f64()
        }
    }
}

/// Figures from a tool's printout (recorded samples in the tests below).
pub fn parse_output(k: Kind2, text: &str) -> Vec<(String, f64)> {
    let mut v = Vec::new();
    let num_after = |line: &str, key: &str| -> Option<f64> {
        line.split_once(key)?
            .1
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    match k {
        Kind2::Hackbench => {
            if let Some(x) = text.lines().find_map(|l| num_after(l, "Time:")) {
                v.push(("time_s".into(), x));
            }
        }
        Kind2::PerfMessaging => {
            if let Some(x) = text.lines().find_map(|l| num_after(l, "Total time:")) {
                v.push(("time_s".into(), x));
            }
        }
        Kind2::StressNg => {
            // "stress-ng: metrc: [123] wait  4821  5.00  0.05  0.90  963.94  5085.65"
            for l in text.lines() {
                let Some((_, rest)) = l.split_once("] ") else {
                    continue;
                };
                let w: Vec<&str> = rest.split_whitespace().collect();
                if w.len() >= 6 && w[0] == "wait" {
                    if let Ok(x) = w[5].parse::<f64>() {
                        v.push(("bogo_ops_per_s".into(), x));
                    }
                }
            }
        }
        Kind2::Schbench => {
            // The last block of each table is the final one.
            let mut section = "";
            let mut found: Vec<(String, f64)> = Vec::new();
            for l in text.lines() {
                if l.contains("Wakeup Latencies") {
                    section = "wakeup";
                } else if l.contains("Request Latencies") {
                    section = "request";
                } else if l.contains("RPS percentiles") {
                    section = "rps";
                }
                let t = l.trim().trim_start_matches('*').trim();
                for (pct, tag) in [("50.0th:", "p50"), ("99.0th:", "p99")] {
                    if let (Some(x), "wakeup" | "request") = (num_after(t, pct), section) {
                        if t.starts_with(pct) {
                            let name = format!("{section}_{tag}_us");
                            found.retain(|(n, _)| n != &name);
                            found.push((name, x));
                        }
                    }
                }
                if let Some(x) = num_after(l, "average rps:") {
                    found.retain(|(n, _)| n != "average_rps");
                    found.push(("average_rps".into(), x));
                }
            }
            v = found;
        }
    }
    v
}

fn tv_ns(t: libc::timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000
}

/// A started tool waiting at its gate (before execve).
pub struct Gated {
    pub pid: i32,
    gate_w: i32,
    pub stdout: std::thread::JoinHandle<String>,
    pub stderr: std::thread::JoinHandle<String>,
}

impl Gated {
    pub fn open_gate(&self) {
        // SAFETY: one byte to our pipe; then close it.
        unsafe {
            libc::write(self.gate_w, b"g".as_ptr() as *const libc::c_void, 1);
            libc::close(self.gate_w);
        }
    }
}

/// Spawn `argv` in a new session, stopped before execve until `open_gate`. fork+execvp
/// by hand: std's Command::spawn waits for the exec, which the gate holds back.
pub fn spawn_gated(argv: &[String], label: &str) -> Result<Gated, InputError> {
    let origin = format!("workload '{label}'");
    let cargs: Vec<std::ffi::CString> = argv
        .iter()
        .map(|a| std::ffi::CString::new(a.as_str()))
        .collect::<Result<_, _>>()
        .map_err(|_| InputError::new(&origin, "an argument contains a NUL byte"))?;
    let mut ptrs: Vec<*const libc::c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    let mk = || -> Result<(i32, i32), InputError> {
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 fills the array.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(InputError::new("validate", "cannot create a pipe"));
        }
        Ok((fds[0], fds[1]))
    };
    let (gate_r, gate_w) = mk()?;
    let (out_r, out_w) = mk()?;
    let (err_r, err_w) = mk()?;
    // SAFETY: the child only makes async-signal-safe calls before execvp or _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(InputError::new(&origin, "fork failed"));
    }
    if pid == 0 {
        // SAFETY: child side, see above.
        unsafe {
            libc::setsid();
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            libc::dup2(null, 0);
            libc::dup2(out_w, 1);
            libc::dup2(err_w, 2);
            libc::close(gate_w);
            let mut b = 0u8;
            if libc::read(gate_r, &mut b as *mut u8 as *mut libc::c_void, 1) == 1 {
                libc::execvp(ptrs[0], ptrs.as_ptr());
            }
            libc::_exit(127);
        }
    }
    // SAFETY: the parent's copies of the child's ends.
    unsafe {
        libc::close(gate_r);
        libc::close(out_w);
        libc::close(err_w);
    }
    let drain = |fd: i32| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            // SAFETY: we own fd from here on.
            let mut f = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
            let _ = f.read_to_end(&mut b);
            String::from_utf8_lossy(&b).into_owned()
        })
    };
    Ok(Gated {
        pid,
        gate_w,
        stdout: drain(out_r),
        stderr: drain(err_r),
    })
}

/// The real rt-app on the scenario's rt-app file(s): threads sampled from procfs every
/// 20 ms (rt-app's threads exit at the end, taking their counters with them), so each
/// thread's last sample stands for its totals.
pub fn run_rtapp_binary(sc: &Scenario, limit_ns: u64, trace: bool) -> Result<HostRep, InputError> {
    if sc.workloads.len() != 1 {
        return Err(
            InputError::new("--runner rt-app", "one rt-app file at a time")
                .with_fix("give a single -w 'rtapp FILE.json'"),
        );
    }
    let words = split_words(&sc.workloads[0]).unwrap_or_default();
    let file = sc.base_dir.join(words.get(1).cloned().unwrap_or_default());
    let argv = vec!["rt-app".to_string(), file.display().to_string()];
    let g = spawn_gated(&argv, "rt-app")?;
    let mut group = ProcessGroup::new(g.pid);
    let mut warnings = Vec::new();
    let perf = PerfCounters::open(g.pid, true)
        .map_err(|e| warnings.push(format!("perf_event_open: {e}")))
        .ok();
    let trace = trace.then(|| TraceSession::start(g.pid).ok()).flatten();
    let before = procfs::cpu_times();
    let t0 = now_ns();
    g.open_gate();
    let mut last: Vec<procfs::ThreadStat> = Vec::new();
    let mut busy = Vec::new();
    while now_ns() - t0 < limit_ns + 2_000_000_000 {
        if interrupted() {
            return Err(interrupted_error());
        }
        if group.try_wait().is_some() {
            break;
        }
        for t in procfs::threads_of(g.pid) {
            match last.iter_mut().find(|x| x.tid == t.tid) {
                Some(x) => *x = t,
                None => last.push(t),
            }
        }
        busy = before.busy_since(&procfs::cpu_times());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let wall_ns = (now_ns() - t0).min(limit_ns);
    let perf_totals = perf.as_ref().map(|p| p.read());
    let wake = trace
        .as_ref()
        .map(|t| tracefs::wakeup_latencies(&t.finish()));
    group.kill();
    let tasks = last
        .into_iter()
        .filter(|t| t.tid != g.pid)
        .map(|t| HostTask {
            comm: t.comm.clone(),
            wake_lat_ns: wake
                .as_ref()
                .map(|w| w.get(&t.tid).cloned().unwrap_or_default()),
            stat: t,
            timer_lat_ns: Vec::new(),
            run_speed: Vec::new(),
        })
        .collect();
    Ok(HostRep {
        wall_ns,
        tasks,
        perf: perf_totals,
        cpu_busy: busy,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tool_printouts() {
        let hb = "Running in process mode with 10 groups using 40 file descriptors each (== 400 tasks)\nEach sender will pass 100 messages of 100 bytes\nTime: 0.153\n";
        assert_eq!(
            parse_output(Kind2::Hackbench, hb),
            vec![("time_s".to_string(), 0.153)]
        );
        let pb = "# 20 sender and receiver processes per group\n# 10 groups == 400 processes run\n\n     Total time: 0.211 [sec]\n";
        assert_eq!(
            parse_output(Kind2::PerfMessaging, pb),
            vec![("time_s".to_string(), 0.211)]
        );
        let sn = "stress-ng: info:  [991] dispatching hogs: 2 wait\nstress-ng: metrc: [991] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\nstress-ng: metrc: [991]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: metrc: [991] wait              48210      5.00      0.05      0.90      9641.94       50747.37\n";
        assert_eq!(
            parse_output(Kind2::StressNg, sn),
            vec![("bogo_ops_per_s".to_string(), 9641.94)]
        );
        let sb = "Wakeup Latencies percentiles (usec) runtime 5 (s) (1234 total samples)\n\t  50.0th: 7          (340 samples)\n\t  90.0th: 12         (400 samples)\n\t* 99.0th: 30         (100 samples)\n\t  99.9th: 90         (10 samples)\nRequest Latencies percentiles (usec) runtime 5 (s) (1230 total samples)\n\t  50.0th: 2700       (500 samples)\n\t* 99.0th: 5400       (12 samples)\naverage rps: 245.80\n";
        let v = parse_output(Kind2::Schbench, sb);
        assert!(v.contains(&("wakeup_p50_us".to_string(), 7.0)), "{v:?}");
        assert!(v.contains(&("wakeup_p99_us".to_string(), 30.0)), "{v:?}");
        assert!(v.contains(&("request_p99_us".to_string(), 5400.0)), "{v:?}");
        assert!(v.contains(&("average_rps".to_string(), 245.8)), "{v:?}");
    }
}
