//! The real executor: a task program (schedlab's IR, workload/program.rs) run by one real
//! thread per task, so any front end (rt-app JSON above all) runs on this host with the
//! same meaning it has in the simulator. It runs inside a child process that the runner
//! (host_run.rs) created, measured from outside and killed when the run ends, so threads
//! need no way to stop: at the end of its program a thread parks, keeping its procfs
//! entry (and counters) readable until the kill.
//!
//! rt-app semantics kept: `run` is a calibrated compute loop with no syscalls (rt-app's
//! waste_cpu_cycles), `runtime` spins on the clock for wall time, timers sleep with
//! clock_nanosleep(TIMER_ABSTIME) on the shared or per-thread grid, `wait` is an atomic
//! pthread_cond_wait (the mutex released and the wait begun under one lock).

use crate::sched_attr;
use schedlab::workload::program::{match_loops, ObjectSpec, TaskSpec, TimerMode};
use schedlab::workload::{Op, Workload};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Monotonic clock, ns.
pub fn now_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// The calling thread's CPU time, ns.
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes into a local timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleep until CLOCK_MONOTONIC reaches `t` (restarted after signals).
pub fn sleep_until(t: u64) {
    let ts = libc::timespec {
        tv_sec: (t / 1_000_000_000) as libc::time_t,
        tv_nsec: (t % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: plain syscall with a valid timespec.
    while unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    } == libc::EINTR
    {}
}

/// One unit of the compute loop: a chain of dependent floating-point operations with no
/// memory traffic and no syscalls (what rt-app's waste_cpu_cycles does with ldexp).
#[inline(never)]
pub fn spin_loops(n: u64) -> f64 {
    let mut x = std::hint::black_box(1.000_000_1f64);
    for _ in 0..n {
        for _ in 0..16 {
            x = x * 1.000_000_1 + 1e-9;
        }
        x = std::hint::black_box(x);
    }
    x
}

/// What one thread measured itself (the runner's own timestamps).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TaskRecord {
    pub comm: String,
    pub tid: i32,
    /// Timer wake-ups: how late the thread ran after the expiry it slept for, ns.
    pub timer_lat_ns: Vec<u64>,
    /// Calibrated work of the `run` ops done so far, ns (÷ the thread's CPU time = how
    /// fast the loop went; the parent reads the CPU time from procfs).
    pub run_work_ns: u64,
    /// Attribute changes the kernel refused.
    pub warnings: Vec<String>,
    /// The thread's own counters just after the start gate (subtracted from the totals).
    pub base: Option<crate::procfs::ThreadStat>,
}

/// This thread's procfs counters now.
fn own_counters(tid: i32) -> Option<crate::procfs::ThreadStat> {
    // SAFETY: getpid cannot fail.
    let pid = unsafe { libc::getpid() };
    crate::procfs::threads_of_one(pid, tid)
}

/// Objects shared by the threads, all under one lock: simple and race-free, and the
/// workloads run here hold it for a few hundred ns at a time.
enum Obj {
    Mutex {
        owned: bool,
    },
    /// A condition variable as tickets: a waiter takes the next ticket and returns once
    /// a signal has released it, oldest first. A signal releases only tickets taken
    /// before it, so a thread that signals and then waits (rt-app `sync`) cannot take
    /// its own wake-up, as with pthread_cond_signal.
    Wait {
        next_ticket: u64,
        released: u64,
    },
    Barrier {
        parties: u32,
        arrived: u32,
        gen: u64,
    },
    Sem {
        count: u64,
        max: u64,
    },
    Pipe,
}

pub struct Shared {
    wl: Workload,
    task_partners: Vec<Vec<usize>>,
    tpl_partners: Vec<Vec<usize>>,
    objs: Mutex<Vec<Obj>>,
    cvs: Vec<Condvar>,
    /// (read fd, write fd) per pipe object.
    pipes: Vec<Option<(i32, i32)>>,
    /// Next expiry of each timer (CLOCK_MONOTONIC ns); per-fork copies are added at fork.
    timers: Mutex<Vec<Option<u64>>>,
    counters: Vec<AtomicU64>,
    ns_per_loop: f64,
    /// Start of the run (set when the gate opens).
    t0: AtomicU64,
    fork_seq: Vec<AtomicU64>,
    pub records: Mutex<Vec<Arc<Mutex<TaskRecord>>>>,
    /// Threads whose program ended (they park), and how many were started.
    pub finished: AtomicUsize,
    pub started: AtomicUsize,
    pub done_cv: Condvar,
    pub done_lock: Mutex<()>,
    /// Per task: the cgroup folder the thread joins before the gate.
    pub cgroup_dirs: Vec<Option<std::path::PathBuf>>,
}

/// Busy-wait quantum of a contended per-CPU spinlock.
const SPIN_QUANTUM_NS: u64 = 1_000;

impl Shared {
    pub fn new(
        wl: Workload,
        ns_per_loop: f64,
        cgroup_dirs: Vec<Option<std::path::PathBuf>>,
    ) -> Result<Arc<Shared>, String> {
        let task_partners = wl
            .tasks
            .iter()
            .map(|t| match_loops(&t.program))
            .collect::<Result<Vec<_>, _>>()?;
        let tpl_partners = wl
            .templates
            .iter()
            .map(|t| match_loops(&t.spec.program))
            .collect::<Result<Vec<_>, _>>()?;
        // Only the 2021 schbench front end declares created threads; validate runs the
        // real tool.
        if let Some(t) = wl.tasks.iter().find(|t| t.created_by.is_some()) {
            return Err(format!(
                "task '{}' is created by another task's program (schbench-2021), which the \
                 real executor does not do: run the real schbench",
                t.attrs.comm
            ));
        }
        let mut objs = Vec::new();
        let mut pipes = Vec::new();
        for o in &wl.objects {
            let (obj, pipe) = match *o {
                ObjectSpec::Mutex => (Obj::Mutex { owned: false }, None),
                ObjectSpec::WaitQueue => (
                    Obj::Wait {
                        next_ticket: 0,
                        released: 0,
                    },
                    None,
                ),
                ObjectSpec::Barrier { parties } => (
                    Obj::Barrier {
                        parties,
                        arrived: 0,
                        gen: 0,
                    },
                    None,
                ),
                ObjectSpec::Semaphore { initial, max } => (
                    Obj::Sem {
                        count: initial,
                        max,
                    },
                    None,
                ),
                ObjectSpec::Pipe { slots } => (Obj::Pipe, Some(make_pipe(slots)?)),
                ObjectSpec::UnixStream { sndbuf } => (Obj::Pipe, Some(make_socketpair(sndbuf)?)),
                // Only the 2021 schbench front end makes these; validate runs the real tool.
                ObjectSpec::RequestList { .. } => return Err(
                    "request lists (schbench-2021) have no real executor: run the real schbench"
                        .into(),
                ),
                // Only the frames workload opens them; a host has no Pixel power HAL.
                ObjectSpec::HintSession { .. } => {
                    return Err("ADPF hint sessions (frames --adpf) have no real executor".into())
                }
            };
            objs.push(obj);
            pipes.push(pipe);
        }
        let n_obj = objs.len();
        Ok(Arc::new(Shared {
            task_partners,
            tpl_partners,
            objs: Mutex::new(objs),
            cvs: (0..n_obj).map(|_| Condvar::new()).collect(),
            pipes,
            timers: Mutex::new(vec![None; wl.timers.len()]),
            counters: wl.counters.iter().map(|_| AtomicU64::new(0)).collect(),
            ns_per_loop: ns_per_loop.max(0.01),
            t0: AtomicU64::new(0),
            fork_seq: wl.templates.iter().map(|_| AtomicU64::new(0)).collect(),
            records: Mutex::new(Vec::new()),
            finished: AtomicUsize::new(0),
            started: AtomicUsize::new(0),
            done_cv: Condvar::new(),
            done_lock: Mutex::new(()),
            cgroup_dirs,
            wl,
        }))
    }

    /// Threads created at start (fork children come later).
    pub fn task_count(&self) -> usize {
        self.wl.tasks.len()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Obj>> {
        self.objs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every thread's record so far.
    pub fn snapshot(&self) -> Vec<TaskRecord> {
        let recs = self.records.lock().unwrap_or_else(|e| e.into_inner());
        recs.iter()
            .map(|r| r.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .collect()
    }
}

/// A waiter's ticket on condition variable `o` (None if `o` is not one).
fn cond_ticket(o: &mut Obj) -> Option<u64> {
    match o {
        Obj::Wait { next_ticket, .. } => {
            *next_ticket += 1;
            Some(*next_ticket - 1)
        }
        _ => None,
    }
}

/// Whether a signal has released `ticket`.
fn cond_released(o: &Obj, ticket: u64) -> bool {
    matches!(o, Obj::Wait { released, .. } if ticket < *released)
}

/// pthread_cond_signal / _broadcast: release the oldest waiting ticket (all of them);
/// true if a waiter was released.
fn cond_signal(o: &mut Obj, all: bool) -> bool {
    match o {
        Obj::Wait {
            next_ticket,
            released,
        } if *released < *next_ticket => {
            *released = if all { *next_ticket } else { *released + 1 };
            true
        }
        _ => false,
    }
}

fn make_pipe(slots: u32) -> Result<(i32, i32), String> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe2: {}", std::io::Error::last_os_error()));
    }
    if slots != schedlab::workload::program::PIPE_DEF_BUFFERS {
        // Best effort: the kernel rounds up to a power of two pages, capped at
        // pipe-max-size.
        let bytes = (u64::from(slots) * 4096).min(1 << 20);
        // SAFETY: fcntl on our own fd.
        unsafe { libc::fcntl(fds[1], libc::F_SETPIPE_SZ, bytes as libc::c_int) };
    }
    Ok((fds[0], fds[1]))
}

/// A socketpair(AF_UNIX, SOCK_STREAM): the IR writes to fds[1] and reads from fds[0].
fn make_socketpair(sndbuf: u64) -> Result<(i32, i32), String> {
    let mut fds = [0i32; 2];
    // SAFETY: socketpair writes two fds into the array.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(format!("socketpair: {}", std::io::Error::last_os_error()));
    }
    if sndbuf != schedlab::workload::program::UNIX_SNDBUF_DEFAULT {
        // SO_SNDBUF doubles what it is given (sock_setsockopt).
        let half = (sndbuf / 2).min(i32::MAX as u64) as libc::c_int;
        // SAFETY: setsockopt on our own fd with a c_int option value.
        unsafe {
            libc::setsockopt(
                fds[1],
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                &half as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
    }
    Ok((fds[0], fds[1]))
}

/// Create one thread per task of the workload; each applies its attributes and waits at
/// `gate` (sized tasks + 1) so all start together when the caller waits on it too.
pub fn spawn_all(sh: &Arc<Shared>, gate: &Arc<std::sync::Barrier>) -> Result<(), String> {
    for i in 0..sh.wl.tasks.len() {
        let spec = sh.wl.tasks[i].clone();
        let partners = sh.task_partners[i].clone();
        let timer_map: Vec<usize> = (0..sh.wl.timers.len()).collect();
        let cg = sh.cgroup_dirs.get(i).cloned().flatten();
        spawn(sh, spec, partners, timer_map, Some(gate.clone()), cg)?;
    }
    Ok(())
}

/// Record the start of the run; call just before opening the gate.
pub fn mark_start(sh: &Shared) {
    sh.t0.store(now_ns(), Ordering::SeqCst);
}

fn spawn(
    sh: &Arc<Shared>,
    spec: TaskSpec,
    partners: Vec<usize>,
    timer_map: Vec<usize>,
    gate: Option<Arc<std::sync::Barrier>>,
    cgroup: Option<std::path::PathBuf>,
) -> Result<(), String> {
    let rec = Arc::new(Mutex::new(TaskRecord {
        comm: spec.attrs.comm.clone(),
        ..TaskRecord::default()
    }));
    sh.records
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(rec.clone());
    sh.started.fetch_add(1, Ordering::SeqCst);
    let sh2 = sh.clone();
    std::thread::Builder::new()
        .name(spec.attrs.comm.clone())
        .stack_size(256 << 10)
        .spawn(move || {
            let initial = schedlab::workload::SchedChange {
                policy: Some(spec.attrs.policy),
                rt_priority: Some(spec.attrs.rt_priority),
                dl: spec.attrs.dl,
                nice: Some(spec.attrs.nice),
                slice_ns: spec.attrs.slice_ns,
                uclamp: spec.attrs.uclamp,
                cpus: spec.attrs.cpus.clone(),
            };
            {
                let mut r = rec.lock().unwrap_or_else(|e| e.into_inner());
                r.tid = sched_attr::gettid();
                r.warnings = sched_attr::apply(&initial);
                if let Some(dir) = &cgroup {
                    if let Err(e) = crate::cgroups::join(dir) {
                        r.warnings
                            .push(format!("cannot join cgroup {}: {e}", dir.display()));
                    }
                }
            }
            if let Some(g) = gate {
                g.wait();
            }
            // Counters so far belong to setup (creation, the gate's wake-up), which the
            // simulated task never does: the runner subtracts them.
            let base = own_counters(rec.lock().unwrap_or_else(|e| e.into_inner()).tid);
            rec.lock().unwrap_or_else(|e| e.into_inner()).base = base;
            let t0 = sh2.t0.load(Ordering::SeqCst);
            let start = if spec.delay_ns > 0 {
                let at = t0 + spec.delay_ns;
                sleep_until(at);
                at
            } else {
                now_ns()
            };
            let mut th = Thread {
                sh: &sh2,
                rec: &rec,
                start,
                timer_map,
                spin_held: None,
            };
            th.run(&spec.program, &partners);
            // The thread's exit wakes its joiner (TaskSpec::exit_post).
            if let Some(obj) = spec.exit_post {
                sem_post(&sh2, obj);
            }
            sh2.finished.fetch_add(1, Ordering::SeqCst);
            {
                let _g = sh2.done_lock.lock().unwrap_or_else(|e| e.into_inner());
                sh2.done_cv.notify_all();
            }
            // Stay alive (and visible in procfs) until the runner kills the process.
            loop {
                std::thread::park();
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot create thread '{}': {e}", spec.attrs.comm))
}

struct Thread<'a> {
    sh: &'a Arc<Shared>,
    rec: &'a Arc<Mutex<TaskRecord>>,
    start: u64,
    /// The program's timer index → this thread's timer slot (fork children get copies).
    timer_map: Vec<usize>,
    spin_held: Option<usize>,
}

impl Thread<'_> {
    fn record(&self) -> MutexGuard<'_, TaskRecord> {
        self.rec.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&mut self, prog: &[Op], partners: &[usize]) {
        let sh = self.sh;
        let mut pc = 0;
        // Remaining passes of each open loop, innermost last (None = forever).
        let mut loops: Vec<Option<u64>> = Vec::new();
        while pc < prog.len() {
            match &prog[pc] {
                Op::Run { work_ns } => {
                    // No syscall around the loop, as in rt-app: reading the thread's CPU
                    // clock runs update_curr(), and a task past its slice would be
                    // preempted on that syscall's return — a behaviour rt-app lacks.
                    spin_loops((*work_ns as f64 / sh.ns_per_loop) as u64);
                    self.record().run_work_ns += work_ns;
                }
                Op::RunWall { ns } => {
                    let end = now_ns() + ns;
                    while now_ns() < end {
                        spin_loops(8);
                    }
                }
                Op::Sleep { ns } | Op::IoWait { ns } => sleep_until(now_ns() + ns),
                Op::Timer {
                    timer,
                    period_ns,
                    mode,
                } => self.timer(*timer, *period_ns, *mode),
                // SAFETY: no arguments.
                Op::Yield => unsafe {
                    libc::sched_yield();
                },
                Op::Write { obj, bytes } => {
                    if let Some((_, w)) = sh.pipes[*obj] {
                        io_loop(w, *bytes, true);
                    }
                }
                Op::Read { obj, bytes } => {
                    if let Some((r, _)) = sh.pipes[*obj] {
                        io_loop(r, *bytes, false);
                    }
                }
                Op::Poll { obj } => {
                    if let Some((r, _)) = sh.pipes[*obj] {
                        let mut p = libc::pollfd {
                            fd: r,
                            events: libc::POLLIN,
                            revents: 0,
                        };
                        // SAFETY: one valid pollfd.
                        while unsafe { libc::poll(&mut p, 1, -1) } < 0 {}
                    }
                }
                Op::Lock { obj } => {
                    let mut g = sh.lock();
                    g = self.take_mutex(g, *obj);
                    drop(g);
                }
                Op::Unlock { obj } => {
                    let mut g = sh.lock();
                    release_mutex(sh, &mut g, *obj);
                    // pthread_cond_wait: the unlock and the wait are one atomic step.
                    if let Some(Op::Wait { obj: c }) = prog.get(pc + 1) {
                        let g = self.wait(g, *c);
                        drop(g);
                        pc += 1;
                    }
                }
                Op::Wait { obj } => {
                    let g = sh.lock();
                    drop(self.wait(g, *obj));
                }
                Op::Signal { obj } | Op::Broadcast { obj } => {
                    let all = matches!(prog[pc], Op::Broadcast { .. });
                    let mut g = sh.lock();
                    if cond_signal(&mut g[*obj], all) {
                        sh.cvs[*obj].notify_all();
                    }
                }
                Op::BarrierWait { obj } => {
                    let mut g = sh.lock();
                    if let Obj::Barrier {
                        parties,
                        arrived,
                        gen,
                    } = &mut g[*obj]
                    {
                        *arrived += 1;
                        if *arrived >= *parties {
                            *arrived = 0;
                            *gen += 1;
                            sh.cvs[*obj].notify_all();
                        } else {
                            let mine = *gen;
                            loop {
                                g = sh.cvs[*obj].wait(g).unwrap_or_else(|e| e.into_inner());
                                if let Obj::Barrier { gen, .. } = &g[*obj] {
                                    if *gen != mine {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                }
                Op::SemPost { obj } => sem_post(sh, *obj),
                Op::ReqPost { .. } | Op::ReqTake { .. } => {
                    unreachable!("refused in Shared::new: no request lists here")
                }
                Op::Create { .. } => unreachable!("refused in Shared::new: no created threads"),
                Op::SemWait { obj } => {
                    let mut g = sh.lock();
                    while let Obj::Sem { count, .. } = &mut g[*obj] {
                        if *count > 0 {
                            *count -= 1;
                            break;
                        }
                        g = sh.cvs[*obj].wait(g).unwrap_or_else(|e| e.into_inner());
                    }
                }
                Op::SpinLockCpu { first_obj } => loop {
                    // SAFETY: no arguments.
                    let cpu = unsafe { libc::sched_getcpu() }.max(0) as usize;
                    let obj = first_obj + cpu;
                    let mut g = sh.lock();
                    if let Some(Obj::Mutex { owned }) = g.get_mut(obj) {
                        if !*owned {
                            *owned = true;
                            self.spin_held = Some(obj);
                            break;
                        }
                    } else {
                        break;
                    }
                    drop(g);
                    let end = now_ns() + SPIN_QUANTUM_NS;
                    while now_ns() < end {
                        spin_loops(4);
                    }
                },
                // Only the frames workload writes cpufreq limits and hint sessions; it does
                // not run on hosts.
                Op::SetMinFreq { .. }
                | Op::HintFrameStart { .. }
                | Op::HintReport { .. }
                | Op::HintLoadReset { .. } => {}
                Op::SpinUnlockCpu => {
                    if let Some(obj) = self.spin_held.take() {
                        let mut g = sh.lock();
                        release_mutex(sh, &mut g, obj);
                    }
                }
                Op::SetSched(c) => {
                    let w = sched_attr::apply(c);
                    if !w.is_empty() {
                        let mut r = self.record();
                        for x in w {
                            if !r.warnings.contains(&x) {
                                r.warnings.push(x);
                            }
                        }
                    }
                }
                Op::LoopBegin { count } => {
                    if *count == Some(0) {
                        pc = partners[pc] + 1;
                        continue;
                    }
                    loops.push(count.map(|c| c - 1));
                }
                Op::LoopEnd => match loops.last_mut() {
                    Some(Some(0)) | None => {
                        loops.pop();
                    }
                    Some(Some(n)) => {
                        *n -= 1;
                        pc = partners[pc] + 1;
                        continue;
                    }
                    Some(None) => {
                        pc = partners[pc] + 1;
                        continue;
                    }
                },
                Op::Count { counter } => {
                    if let Some(c) = sh.counters.get(*counter) {
                        c.fetch_add(1, Ordering::Relaxed);
                    }
                }
                // Front-end logs (hackbench's timing, schbench's latencies) are printed by
                // the real tools when run for real; the executor keeps none.
                Op::Stamp { .. } | Op::Record { .. } => {}
                Op::Fork { template } => self.fork(*template),
            }
            pc += 1;
        }
    }

    fn take_mutex<'g>(
        &self,
        mut g: MutexGuard<'g, Vec<Obj>>,
        obj: usize,
    ) -> MutexGuard<'g, Vec<Obj>> {
        loop {
            match &mut g[obj] {
                Obj::Mutex { owned } if !*owned => {
                    *owned = true;
                    return g;
                }
                Obj::Mutex { .. } => {
                    g = self.sh.cvs[obj].wait(g).unwrap_or_else(|e| e.into_inner());
                }
                _ => return g,
            }
        }
    }

    /// pthread_cond_wait body: take a ticket and wait until a later signal or broadcast
    /// releases it.
    fn wait<'g>(&self, mut g: MutexGuard<'g, Vec<Obj>>, obj: usize) -> MutexGuard<'g, Vec<Obj>> {
        let Some(ticket) = cond_ticket(&mut g[obj]) else {
            return g;
        };
        while !cond_released(&g[obj], ticket) {
            g = self.sh.cvs[obj].wait(g).unwrap_or_else(|e| e.into_inner());
        }
        g
    }

    fn timer(&mut self, timer: usize, period_ns: u64, mode: TimerMode) {
        let slot = self.timer_map.get(timer).copied().unwrap_or(timer);
        let now = now_ns();
        let target = {
            let mut timers = self.sh.timers.lock().unwrap_or_else(|e| e.into_inner());
            let t_next = timers[slot].get_or_insert(self.start);
            *t_next += period_ns;
            if *t_next > now {
                Some(*t_next)
            } else {
                match mode {
                    TimerMode::Relative => *t_next = now,
                    TimerMode::Vsync { grid_ns } if grid_ns > 0 => {
                        *t_next += (now - *t_next) / grid_ns * grid_ns;
                    }
                    _ => {}
                }
                None
            }
        };
        if let Some(t) = target {
            sleep_until(t);
            let late = now_ns().saturating_sub(t);
            let mut r = self.record();
            if r.timer_lat_ns.len() < 1_000_000 {
                r.timer_lat_ns.push(late);
            }
        }
    }

    /// rt-app `fork`: a new thread named `<comm>-<index>-<forkid>`, with fresh copies of
    /// its template's `unique*` timers.
    fn fork(&self, template: usize) {
        let sh = self.sh;
        let Some(tpl) = sh.wl.templates.get(template) else {
            return;
        };
        let seq = sh.fork_seq[template].fetch_add(1, Ordering::SeqCst);
        let index = sh
            .started
            .load(Ordering::SeqCst)
            .saturating_sub(tpl.index_base);
        let mut spec = tpl.spec.clone();
        spec.attrs.comm = format!("{}-{}-{:04}", tpl.spec.attrs.comm, index, seq);
        spec.delay_ns = 0;
        let mut timer_map: Vec<usize> = (0..sh.wl.timers.len()).collect();
        {
            let mut timers = sh.timers.lock().unwrap_or_else(|e| e.into_inner());
            for &t in &tpl.private_timers {
                timer_map[t] = timers.len();
                timers.push(None);
            }
        }
        // A forked thread starts in its parent's cgroup, as clone() does.
        let _ = spawn(
            sh,
            spec,
            sh.tpl_partners[template].clone(),
            timer_map,
            None,
            None,
        );
    }
}

/// sem_post: one more unit (up to the semaphore's max), one waiter woken.
fn sem_post(sh: &Shared, obj: usize) {
    let mut g = sh.lock();
    if let Obj::Sem { count, max } = &mut g[obj] {
        *count = (*count + 1).min(*max);
        sh.cvs[obj].notify_one();
    }
}

fn release_mutex(sh: &Shared, g: &mut MutexGuard<'_, Vec<Obj>>, obj: usize) {
    if let Obj::Mutex { owned } = &mut g[obj] {
        *owned = false;
        sh.cvs[obj].notify_one();
    }
}

/// write(2)/read(2) exactly `bytes`, looping over partial transfers as hackbench does.
fn io_loop(fd: i32, bytes: u64, write: bool) {
    let mut buf = vec![0u8; bytes.clamp(1, 1 << 16) as usize];
    let mut left = bytes as usize;
    while left > 0 {
        let n = left.min(buf.len());
        // SAFETY: buf holds at least n bytes.
        let r = unsafe {
            if write {
                libc::write(fd, buf.as_ptr() as *const libc::c_void, n)
            } else {
                libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, n)
            }
        };
        if r > 0 {
            left -= r as usize;
        } else if r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
}

/// ns per `spin_loops(1)` on this CPU now: the fastest of `trials` short timings, so a
/// `run` of N µs is N µs of work at the CPU's top observed speed (rt-app calibrates once
/// at start in the same spirit; on a host whose speed changes, see docs/validate.md).
pub fn calibrate_ns_per_loop(trials: usize) -> f64 {
    let mut best = f64::MAX;
    let n = 20_000;
    for _ in 0..trials.max(1) {
        let c0 = thread_cpu_ns();
        spin_loops(n);
        let used = thread_cpu_ns().saturating_sub(c0) as f64;
        best = best.min(used / n as f64);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond() -> Obj {
        Obj::Wait {
            next_ticket: 0,
            released: 0,
        }
    }

    #[test]
    fn a_signal_wakes_only_a_thread_already_waiting() {
        // rt-app `sync`: B signals A, then waits itself; B must not take A's wake-up.
        let mut c = cond();
        let a = cond_ticket(&mut c).unwrap();
        assert!(cond_signal(&mut c, false));
        let b = cond_ticket(&mut c).unwrap();
        assert!(cond_released(&c, a));
        assert!(
            !cond_released(&c, b),
            "the signaller waits until someone signals it"
        );
        // A's sync: signal B, then wait.
        assert!(cond_signal(&mut c, false));
        let a2 = cond_ticket(&mut c).unwrap();
        assert!(cond_released(&c, b) && !cond_released(&c, a2));
        // A signal with nobody waiting is lost, as pthread_cond_signal's.
        let mut lone = cond();
        assert!(!cond_signal(&mut lone, false));
        let late = cond_ticket(&mut lone).unwrap();
        assert!(!cond_released(&lone, late));
    }

    /// A task's exit posts its join semaphore (TaskSpec::exit_post), as in the
    /// simulator: the joiner, waiting on it, finishes too.
    #[test]
    fn a_tasks_exit_wakes_its_joiner() {
        use schedlab::workload::program::ObjectSpec;
        let mut wl = Workload::default();
        wl.objects
            .push(ObjectSpec::Semaphore { initial: 0, max: 1 });
        wl.tasks
            .push(TaskSpec::new("joiner", vec![Op::SemWait { obj: 0 }]));
        wl.tasks
            .push(TaskSpec::new("worker", vec![Op::Run { work_ns: 1_000 }]).exit_post(0));
        let sh = Shared::new(wl, 1.0, vec![None, None]).unwrap();
        let gate = Arc::new(std::sync::Barrier::new(3));
        spawn_all(&sh, &gate).unwrap();
        mark_start(&sh);
        gate.wait();
        let deadline = now_ns() + 10_000_000_000;
        let mut g = sh.done_lock.lock().unwrap();
        while sh.finished.load(Ordering::SeqCst) < 2 && now_ns() < deadline {
            g = sh
                .done_cv
                .wait_timeout(g, std::time::Duration::from_millis(100))
                .unwrap()
                .0;
        }
        assert_eq!(
            sh.finished.load(Ordering::SeqCst),
            2,
            "the joiner was not woken"
        );
    }

    #[test]
    fn a_broadcast_wakes_every_waiter_and_no_later_one() {
        let mut c = cond();
        let t: Vec<u64> = (0..3).map(|_| cond_ticket(&mut c).unwrap()).collect();
        assert!(cond_signal(&mut c, true));
        let late = cond_ticket(&mut c).unwrap();
        assert!(t.iter().all(|&x| cond_released(&c, x)));
        assert!(!cond_released(&c, late));
        // Signals release the oldest first.
        let mut c = cond();
        let (x, y) = (cond_ticket(&mut c).unwrap(), cond_ticket(&mut c).unwrap());
        cond_signal(&mut c, false);
        assert!(cond_released(&c, x) && !cond_released(&c, y));
    }
}
