//! One real run of a task-program workload: a child process (fork) executes it with
//! real threads (rtapp_exec.rs) while this process measures it from outside, the way a
//! user would: perf counters opened on the child before its threads exist (inherit),
//! /proc/stat around the run, tracefs during it, /proc/PID/task/* at the end, then the
//! whole process group is killed.
//!
//! Parent → child bytes on a pipe: 'c' create the threads, 'g' go, 'd' dump the runner's
//! own records. Child → parent lines: "R" ready, "E" every program ended, the JSON dump
//! then "END", or "X message" on failure.

use crate::cleanup::{interrupted, interrupted_error, ProcessGroup};
use crate::perf_counters::{PerfCounters, PerfTotals};
use crate::procfs::{self, ThreadStat};
use crate::rtapp_exec::{self, now_ns, Shared, TaskRecord};
use crate::tracefs::{self, TraceSession};
use schedlab::workload::Workload;
use schedlab::InputError;
use std::io::Write;
use std::sync::Arc;

/// How a host run measures.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// Measure wake-up latency with tracefs (root only).
    pub trace: bool,
    /// ns per compute-loop unit for `run` (rtapp_exec::calibrate_ns_per_loop).
    pub ns_per_loop: f64,
    /// Per task: the cgroup folder it joins (cgroups.rs).
    pub cgroup_dirs: Vec<Option<std::path::PathBuf>>,
}

/// How fast a thread's `run` loop went over the whole rep: its calibrated work ÷ its CPU
/// time (none when it ran no `run` work worth measuring).
fn run_speed(work_ns: u64, stat: &ThreadStat) -> Vec<f32> {
    if work_ns < 1_000_000 || stat.cpu_time_ns == 0 {
        return Vec::new();
    }
    vec![(work_ns as f64 / stat.cpu_time_ns as f64) as f32]
}

/// One task as measured on the host.
#[derive(Debug, Clone)]
pub struct HostTask {
    pub comm: String,
    pub stat: ThreadStat,
    /// The runner's own timer wake-up lateness (ns).
    pub timer_lat_ns: Vec<u64>,
    /// tracefs sched_waking → sched_switch (ns), when traced.
    pub wake_lat_ns: Option<Vec<u64>>,
    /// Calibrated `run` work ÷ CPU time, per thread and rep (1.0 = as calibrated).
    pub run_speed: Vec<f32>,
}

/// One repetition's measurements.
#[derive(Debug, Clone)]
pub struct HostRep {
    pub wall_ns: u64,
    pub tasks: Vec<HostTask>,
    pub perf: Option<PerfTotals>,
    /// Busy fraction per CPU over the run (whole machine, /proc/stat).
    pub cpu_busy: Vec<f64>,
    pub warnings: Vec<String>,
}

fn err(msg: impl Into<String>) -> InputError {
    InputError::new("validate (host run)", msg)
}

/// Run `wl` on this host for `limit_ns` (or until every program has ended).
pub fn run_workload(
    wl: &Workload,
    limit_ns: u64,
    opts: &HostOptions,
) -> Result<HostRep, InputError> {
    let (ctl_r, ctl_w) = pipe()?;
    let (res_r, res_w) = pipe()?;
    // SAFETY: validate is single-threaded here; the child only runs child_main and
    // leaves through _exit, never returning into the caller.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(err(format!("fork: {}", std::io::Error::last_os_error())));
    }
    if pid == 0 {
        // SAFETY: closing our copies of the parent's ends; _exit never returns.
        unsafe {
            libc::close(ctl_w);
            libc::close(res_r);
            libc::setpgid(0, 0);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
        let wl = wl.clone();
        let ns = opts.ns_per_loop;
        let dirs = opts.cgroup_dirs.clone();
        let code = match std::panic::catch_unwind(move || child_main(wl, ns, dirs, ctl_r, res_w)) {
            Ok(()) => 0,
            Err(_) => 3,
        };
        // SAFETY: leave without running the parent's destructors or atexit handlers.
        unsafe { libc::_exit(code) };
    }
    // SAFETY: closing the child's ends in the parent; setpgid repeats the child's own
    // call so the group exists before we signal it.
    unsafe {
        libc::close(ctl_r);
        libc::close(res_w);
        libc::setpgid(pid, pid);
    }
    let mut group = ProcessGroup::new(pid);
    let result = drive(pid, limit_ns, opts, ctl_w, res_r);
    group.kill();
    // SAFETY: our own fds.
    unsafe {
        libc::close(ctl_w);
        libc::close(res_r);
    }
    result
}

fn drive(
    pid: i32,
    limit_ns: u64,
    opts: &HostOptions,
    ctl: i32,
    res: i32,
) -> Result<HostRep, InputError> {
    let mut warnings = Vec::new();
    let perf = match PerfCounters::open(pid, false) {
        Ok(p) => Some(p),
        Err(e) => {
            warnings.push(format!("perf_event_open: {e}; no perf counters"));
            None
        }
    };
    // Tracing starts before the threads exist: set_event_pid follows only the threads
    // created after the child's pid was listed (options/event-fork).
    let trace = if opts.trace {
        match TraceSession::start(pid) {
            Ok(t) => Some(t),
            Err(e) => {
                warnings.push(format!(
                    "tracefs: {e}; wake-up latency from timer timestamps only"
                ));
                None
            }
        }
    } else {
        None
    };
    let mut lines = LineReader::new(res);
    send(ctl, b'c')?;
    match lines.next_line(now_ns() + 30_000_000_000)? {
        Some(l) if l == "R" => {}
        Some(l) if l.starts_with('X') => return Err(err(l[1..].trim().to_string())),
        other => return Err(err(format!("the executor did not start ({other:?})"))),
    }
    let before = procfs::cpu_times();
    let t0 = now_ns();
    send(ctl, b'g')?;
    let deadline = t0 + limit_ns;
    loop {
        match lines.next_line(deadline)? {
            Some(l) if l == "E" => break,
            Some(l) if l.starts_with('X') => return Err(err(l[1..].trim().to_string())),
            Some(_) => {}
            None => break,
        }
    }
    // Snapshot while every thread is alive (parked or running).
    let wall_ns = now_ns() - t0;
    let stats = procfs::threads_of(pid);
    let after = procfs::cpu_times();
    let perf_totals = perf.as_ref().map(|p| p.read());
    let trace_text = trace.as_ref().map(|t| t.finish());
    drop(trace);
    send(ctl, b'd')?;
    let mut dump = String::new();
    loop {
        match lines.next_line(now_ns() + 10_000_000_000)? {
            Some(l) if l == "END" => break,
            Some(l) if l == "E" => {}
            Some(l) => dump.push_str(&l),
            None => return Err(err("the executor did not report its records")),
        }
    }
    let records: Vec<TaskRecord> = serde_json::from_str(&dump)
        .map_err(|e| err(format!("cannot read the executor's records: {e}")))?;
    let wake = trace_text.as_deref().map(tracefs::wakeup_latencies);
    let mut tasks = Vec::new();
    for r in records {
        for w in &r.warnings {
            let w = format!("{}: {w}", r.comm);
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        let Some(stat) = stats.iter().find(|s| s.tid == r.tid) else {
            warnings.push(format!(
                "{}: thread {} vanished before it was read",
                r.comm, r.tid
            ));
            continue;
        };
        tasks.push(HostTask {
            comm: r.comm.clone(),
            stat: match &r.base {
                Some(b) => stat.since(b),
                None => stat.clone(),
            },
            wake_lat_ns: wake
                .as_ref()
                .map(|w| w.get(&r.tid).cloned().unwrap_or_default()),
            timer_lat_ns: r.timer_lat_ns,
            run_speed: run_speed(r.run_work_ns, stat),
        });
    }
    Ok(HostRep {
        wall_ns,
        tasks,
        perf: perf_totals,
        cpu_busy: before.busy_since(&after),
        warnings,
    })
}

fn child_main(
    wl: Workload,
    ns_per_loop: f64,
    cgroup_dirs: Vec<Option<std::path::PathBuf>>,
    ctl: i32,
    res: i32,
) {
    let out = Arc::new(std::sync::Mutex::new(FdWriter(res)));
    let say = |s: &str| {
        let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = o.write_all(format!("{s}\n").as_bytes());
    };
    if read_byte(ctl) != Some(b'c') {
        return;
    }
    let sh = match Shared::new(wl, ns_per_loop, cgroup_dirs) {
        Ok(s) => s,
        Err(e) => return say(&format!("X {e}")),
    };
    let n = sh_tasks(&sh);
    let gate = Arc::new(std::sync::Barrier::new(n + 1));
    if let Err(e) = rtapp_exec::spawn_all(&sh, &gate) {
        return say(&format!("X {e}"));
    }
    say("R");
    if read_byte(ctl) != Some(b'g') {
        return;
    }
    rtapp_exec::mark_start(&sh);
    gate.wait();
    {
        let sh = sh.clone();
        let out = out.clone();
        std::thread::spawn(move || {
            let mut g = sh.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                let fin = sh.finished.load(std::sync::atomic::Ordering::SeqCst);
                if fin >= sh.started.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                g = sh.done_cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
            drop(g);
            let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
            let _ = o.write_all(b"E\n");
        });
    }
    while let Some(b) = read_byte(ctl) {
        if b == b'd' {
            let json = serde_json::to_string(&sh.snapshot()).unwrap_or_else(|_| "[]".into());
            say(&format!("{json}\nEND"));
        }
    }
}

fn sh_tasks(sh: &Shared) -> usize {
    sh.task_count()
}

struct FdWriter(i32);

impl Write for FdWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // SAFETY: writes from a valid buffer to our fd.
        let r = unsafe { libc::write(self.0, buf.as_ptr() as *const libc::c_void, buf.len()) };
        if r < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn pipe() -> Result<(i32, i32), InputError> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(err(format!("pipe2: {}", std::io::Error::last_os_error())));
    }
    Ok((fds[0], fds[1]))
}

fn send(fd: i32, b: u8) -> Result<(), InputError> {
    // SAFETY: one byte from a local.
    let r = unsafe { libc::write(fd, &b as *const u8 as *const libc::c_void, 1) };
    if r == 1 {
        Ok(())
    } else {
        Err(err("the executor process went away"))
    }
}

fn read_byte(fd: i32) -> Option<u8> {
    let mut b = 0u8;
    loop {
        // SAFETY: one byte into a local.
        let r = unsafe { libc::read(fd, &mut b as *mut u8 as *mut libc::c_void, 1) };
        if r == 1 {
            return Some(b);
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return None;
    }
}

/// Lines from a pipe with a deadline, waking on Ctrl-C.
pub struct LineReader {
    fd: i32,
    buf: Vec<u8>,
}

impl LineReader {
    pub fn new(fd: i32) -> Self {
        LineReader {
            fd,
            buf: Vec::new(),
        }
    }

    /// The next line, or None at the deadline or end of file.
    pub fn next_line(&mut self, deadline: u64) -> Result<Option<String>, InputError> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                return Ok(Some(String::from_utf8_lossy(&line[..i]).into_owned()));
            }
            if interrupted() {
                return Err(interrupted_error());
            }
            let now = now_ns();
            if now >= deadline {
                return Ok(None);
            }
            let ms = ((deadline - now) / 1_000_000).clamp(1, 200) as i32;
            let mut p = libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let r = unsafe { libc::poll(&mut p, 1, ms) };
            if r <= 0 {
                continue;
            }
            let mut chunk = [0u8; 65536];
            // SAFETY: reads into a local buffer.
            let n = unsafe {
                libc::read(
                    self.fd,
                    chunk.as_mut_ptr() as *mut libc::c_void,
                    chunk.len(),
                )
            };
            if n == 0 {
                return Ok(None);
            }
            if n > 0 {
                self.buf.extend_from_slice(&chunk[..n as usize]);
            }
        }
    }
}
