//! `schedlab machines capture --calibrate`: measure on this host what the simulator takes
//! as costs and kernel settings (docs/machines.md, "Calibrated values"). Each value is a
//! set of samples; its median goes into the machine file and its spread is printed. The
//! arithmetic that turns raw timings into costs is in pure functions, unit-tested on
//! numbers recorded on the development host.

use crate::rtapp_exec::{now_ns, sleep_until, spin_loops};
use crate::sched_attr::set_affinity;
use schedlab::userspace::objects::unix_socket::skb_truesize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Samples of one measured value.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    pub key: &'static str,
    pub unit: &'static str,
    pub samples: Vec<f64>,
}

impl Measure {
    pub fn median(&self) -> f64 {
        crate::compare::summary(&self.samples).0
    }
    pub fn min(&self) -> f64 {
        crate::compare::summary(&self.samples).1
    }
    pub fn max(&self) -> f64 {
        crate::compare::summary(&self.samples).2
    }
}

/// The kernel settings the simulator has knobs for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelSettings {
    pub version: String,
    pub hz: Option<u32>,
    pub preempt: Option<String>,
    pub base_slice_ns: Option<u64>,
    pub autogroup: Option<bool>,
}

#[derive(Debug, Clone, Default)]
pub struct Calibration {
    pub measures: Vec<Measure>,
    pub kernel: KernelSettings,
}

impl Calibration {
    pub fn get(&self, key: &str) -> Option<&Measure> {
        self.measures.iter().find(|m| m.key == key)
    }
}

// ---- pure arithmetic (tested) ------------------------------------------------------

/// One context switch from a same-CPU pipe ping-pong: a round trip is two switches plus
/// two 1-byte writes and two reads.
pub fn context_switch_ns(round_trip_ns: f64, write_ns: f64, read_ns: f64) -> f64 {
    ((round_trip_ns - 2.0 * (write_ns + read_ns)) / 2.0).max(0.0)
}

/// Cross-CPU wake-up (IPI) delivery: the one-way write → reader-running latency when the
/// target CPU is busy (a SCHED_IDLE spinner, so no idle exit), less the pipe costs and
/// the switch on the target.
pub fn wakeup_ipi_ns(oneway_busy_ns: f64, write_ns: f64, read_ns: f64, cs_ns: f64) -> f64 {
    (oneway_busy_ns - write_ns - read_ns - cs_ns).max(0.0)
}

/// Idle exit: the same one-way latency to an idle target minus the busy-target one.
pub fn idle_exit_ns(oneway_idle_ns: f64, oneway_busy_ns: f64) -> f64 {
    (oneway_idle_ns - oneway_busy_ns).max(0.0)
}

/// CONFIG_HZ from a kernel config text (/proc/config.gz, /boot/config-*).
pub fn hz_from_config(config: &str) -> Option<u32> {
    config
        .lines()
        .find_map(|l| l.strip_prefix("CONFIG_HZ=")?.trim().parse().ok())
}

/// The preemption model: debugfs sched/preempt ("none (voluntary) full lazy": the
/// current one in parentheses), else the boot log's "Dynamic Preempt: X", else the
/// config's CONFIG_PREEMPT_{NONE,VOLUNTARY,LAZY} / CONFIG_PREEMPT=y.
pub fn preempt_from(
    debugfs: Option<&str>,
    dmesg: Option<&str>,
    config: Option<&str>,
) -> Option<String> {
    if let Some(d) = debugfs {
        if let Some(m) = d.split_whitespace().find(|w| w.starts_with('(')) {
            return Some(m.trim_matches(|c| c == '(' || c == ')').to_string());
        }
    }
    if let Some(d) = dmesg {
        if let Some(m) = d
            .lines()
            .rev()
            .find_map(|l| l.split_once("Dynamic Preempt: "))
        {
            return Some(m.1.trim().to_string());
        }
    }
    let c = config?;
    for (key, name) in [
        ("CONFIG_PREEMPT_NONE=y", "none"),
        ("CONFIG_PREEMPT_VOLUNTARY=y", "voluntary"),
        ("CONFIG_PREEMPT_LAZY=y", "lazy"),
        ("CONFIG_PREEMPT=y", "full"),
    ] {
        if c.lines().any(|l| l.trim() == key) {
            return Some(name.into());
        }
    }
    None
}

// ---- measurements ---------------------------------------------------------------------

fn pipe_pair(socket: bool) -> (i32, i32) {
    if socket {
        return socket_pair(0).unwrap_or((0, 0));
    }
    let mut fds = [0i32; 2];
    // SAFETY: fills the array with two new fds.
    unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    (fds[0], fds[1])
}

/// An AF_UNIX stream socketpair with `flags` (e.g. SOCK_NONBLOCK) besides SOCK_CLOEXEC.
fn socket_pair(flags: i32) -> Option<(i32, i32)> {
    let mut fds = [0i32; 2];
    // SAFETY: fills the array with two new fds.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC | flags,
            0,
            fds.as_mut_ptr(),
        )
    };
    (rc == 0).then_some((fds[0], fds[1]))
}

fn close(fd: i32) {
    // SAFETY: our own fd.
    unsafe { libc::close(fd) };
}

/// write(2) of the whole buffer; whether it all went (the timing loops ignore it).
fn wr(fd: i32, buf: &[u8]) -> bool {
    // SAFETY: valid buffer.
    let n = unsafe { libc::write(fd, buf.as_ptr() as *const libc::c_void, buf.len()) };
    n == buf.len() as isize
}

/// read(2) into the whole buffer; whether it was all filled.
fn rd(fd: i32, buf: &mut [u8]) -> bool {
    // SAFETY: valid buffer.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
    n == buf.len() as isize
}

/// Per-message write and read cost (ns) of `bytes`-byte messages on one thread, batches
/// of writes then as many reads (no blocking, no switch): 200 small messages, or 12 of a
/// page or more (a pipe holds 16 pages).
fn message_costs(socket: bool, bytes: usize, rounds: usize) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = if socket {
        pipe_pair(true)
    } else {
        pipe_pair(false)
    };
    let (w_fd, r_fd) = if socket { (a, b) } else { (b, a) };
    let batch = if bytes >= 4096 { 12 } else { 200 };
    let mut buf = vec![0u8; bytes];
    let (mut ws, mut rs) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t0 = now_ns();
        for _ in 0..batch {
            wr(w_fd, &buf);
        }
        let t1 = now_ns();
        for _ in 0..batch {
            rd(r_fd, &mut buf);
        }
        let t2 = now_ns();
        ws.push((t1 - t0) as f64 / batch as f64);
        rs.push((t2 - t1) as f64 / batch as f64);
    }
    close(a);
    close(b);
    (ws, rs)
}

/// Per-message cost (ns) of 100-B writes and reads on AF_UNIX stream sockets with
/// `depth` messages queued on each of `channels` sockets, on CPU 0: a round writes
/// `depth` to every socket in turn, then reads every socket empty, so an skb is read
/// (and its slab object reused) after about channels × depth others. The first round
/// warms up; the mean write and read cost over the others. None if a write would block
/// (a send buffer smaller than `depth` skbs).
fn deep_socket_costs(channels: usize, depth: usize, rounds: usize) -> Option<(f64, f64)> {
    std::thread::spawn(move || {
        let _ = set_affinity(&[0]);
        let pairs: Vec<(i32, i32)> = (0..channels)
            .map_while(|_| socket_pair(libc::SOCK_NONBLOCK))
            .collect();
        let mut buf = [0u8; 100];
        let mut ok = pairs.len() == channels;
        let (mut ws, mut rs) = (0.0, 0.0);
        for round in 0..=rounds {
            if !ok {
                break;
            }
            let t0 = now_ns();
            for _ in 0..depth {
                for &(a, _) in &pairs {
                    ok &= wr(a, &buf);
                }
            }
            let t1 = now_ns();
            for &(_, b) in &pairs {
                for _ in 0..depth {
                    ok &= rd(b, &mut buf);
                }
            }
            let t2 = now_ns();
            if round > 0 {
                ws += (t1 - t0) as f64;
                rs += (t2 - t1) as f64;
            }
        }
        for (a, b) in pairs {
            close(a);
            close(b);
        }
        let n = (channels * depth * rounds.max(1)) as f64;
        ok.then_some((ws / n, rs / n))
    })
    .join()
    .ok()
    .flatten()
}

/// Time (ns) inside one 100-byte write + read pair on one pipe or socket. With one CPU,
/// one thread does the pairs; with two, threads pinned to them take turns (an atomic
/// hands the turn over outside the timed ops), so every pair finds the object's lock,
/// ring and buffer lines where the other CPU left them, as hackbench's writer and reader
/// do. The mean over `turns` pairs (both threads' when two).
fn handed_pair_ns(socket: bool, cpus: &[usize], turns: u64) -> f64 {
    let (a, b) = pipe_pair(socket);
    let (w_fd, r_fd) = if socket { (a, b) } else { (b, a) };
    let turn = Arc::new(Turn::default());
    let n = cpus.len() as u64;
    let threads: Vec<_> = cpus
        .iter()
        .enumerate()
        .map(|(k, &cpu)| {
            let turn = turn.clone();
            std::thread::spawn(move || {
                let _ = set_affinity(&[cpu]);
                let mut buf = [0u8; 100];
                let mut inside = 0;
                for i in 0..turns {
                    let mine = n * i + k as u64;
                    turn.wait(mine);
                    let t0 = now_ns();
                    wr(w_fd, &buf);
                    rd(r_fd, &mut buf);
                    inside += now_ns() - t0;
                    turn.pass(mine + 1);
                }
                inside as f64 / turns as f64
            })
        })
        .collect();
    let per: Vec<f64> = threads.into_iter().filter_map(|t| t.join().ok()).collect();
    close(a);
    close(b);
    per.iter().sum::<f64>() / per.len().max(1) as f64
}

/// The extra time of a write + read pair on a pipe or socket last used on another CPU
/// (one hand-over a pair: the model's one bounce) over the same pair on one CPU.
pub fn bounce_ns(handed_pair_ns: f64, one_cpu_pair_ns: f64) -> f64 {
    (handed_pair_ns - one_cpu_pair_ns).max(0.0)
}

/// Time (ns) per hop of a 1-byte token passed around a ring of `k` threads pinned to
/// `cpu` (each hop: a pipe write, a read and a switch to the next thread in the ring).
fn ring_hop_ns(cpu: usize, k: usize, hops: usize, rounds: usize) -> Vec<f64> {
    let pipes: Vec<(i32, i32)> = (0..k).map(|_| pipe_pair(false)).collect();
    let laps = hops / k;
    let total = laps * rounds;
    let threads: Vec<_> = (1..k)
        .map(|i| {
            let (r, _) = pipes[i];
            let (_, w) = pipes[(i + 1) % k];
            std::thread::spawn(move || {
                let _ = set_affinity(&[cpu]);
                let mut b = [0u8; 1];
                for _ in 0..total {
                    rd(r, &mut b);
                    wr(w, &b);
                }
            })
        })
        .collect();
    let _ = set_affinity(&[cpu]);
    let (r0, _) = pipes[0];
    let (_, w1) = pipes[1 % k];
    let mut b = [0u8; 1];
    let mut out = Vec::new();
    for _ in 0..rounds {
        let t0 = now_ns();
        for _ in 0..laps {
            wr(w1, &b);
            rd(r0, &mut b);
        }
        out.push((now_ns() - t0) as f64 / (laps * k) as f64);
    }
    for t in threads {
        let _ = t.join();
    }
    for (r, w) in pipes {
        close(r);
        close(w);
    }
    let _ = set_affinity(&(0..nr_cpus()).collect::<Vec<_>>());
    out
}

/// Round-trip time (ns) of a 1-byte ping-pong between two threads pinned to `cpu`.
fn ping_pong_same_cpu(cpu: usize, trips: usize, rounds: usize) -> Vec<f64> {
    let (r1, w1) = pipe_pair(false);
    let (r2, w2) = pipe_pair(false);
    let total = trips * rounds;
    let echo = std::thread::spawn(move || {
        let _ = set_affinity(&[cpu]);
        let mut b = [0u8; 1];
        for _ in 0..total {
            rd(r1, &mut b);
            wr(w2, &b);
        }
    });
    let _ = set_affinity(&[cpu]);
    let mut b = [0u8; 1];
    let mut out = Vec::new();
    for _ in 0..rounds {
        let t0 = now_ns();
        for _ in 0..trips {
            wr(w1, &b);
            rd(r2, &mut b);
        }
        out.push((now_ns() - t0) as f64 / trips as f64);
    }
    let _ = echo.join();
    for fd in [r1, w1, r2, w2] {
        close(fd);
    }
    let _ = set_affinity(&(0..nr_cpus()).collect::<Vec<_>>());
    out
}

/// One cache-line transfer from a bounce of the line between two cores: a round trip is
/// two (each a load that misses and fetches the line from the other core, and the store
/// that takes it back exclusive).
pub fn line_transfer_ns(round_trip_ns: f64) -> f64 {
    round_trip_ns / 2.0
}

/// A turn counter on a cache line of its own (128: adjacent-line prefetchers pair 64-byte
/// lines), handed between threads on different CPUs: each waits for its number and
/// passes the next, so every hand-over moves the line.
#[repr(align(128))]
#[derive(Default)]
struct Turn(AtomicU64);

impl Turn {
    /// Spin until the counter reaches `n` (no pause: the line probe times the wait).
    fn wait(&self, n: u64) {
        while self.0.load(Ordering::Acquire) != n {}
    }

    fn pass(&self, n: u64) {
        self.0.store(n, Ordering::Release);
    }
}

/// Round-trip times (ns) of one cache line bounced between threads pinned to `a` and
/// `b`: each waits for the other's number and stores the next, `trips` round trips a
/// sample, one sample every `gap_ms` (a hypervisor that moves vCPUs between cores shows
/// up as spread). Both threads always take every turn, so neither can be left waiting;
/// empty when either could not be pinned.
fn line_round_trips(a: usize, b: usize, trips: u64, samples: usize, gap_ms: u64) -> Vec<f64> {
    let turn = Arc::new(Turn::default());
    let total = trips * samples as u64;
    let partner = {
        let turn = turn.clone();
        std::thread::spawn(move || {
            let pinned = set_affinity(&[b]).is_ok();
            for i in 0..total {
                turn.wait(2 * i + 1);
                turn.pass(2 * i + 2);
            }
            pinned
        })
    };
    let pinned = set_affinity(&[a]).is_ok();
    let mut out = Vec::new();
    let mut i = 0;
    for _ in 0..samples {
        let t0 = now_ns();
        for _ in 0..trips {
            turn.pass(2 * i + 1);
            turn.wait(2 * i + 2);
            i += 1;
        }
        out.push((now_ns() - t0) as f64 / trips as f64);
        if pinned {
            std::thread::sleep(std::time::Duration::from_millis(gap_ms));
        }
    }
    let partner_pinned = partner.join().unwrap_or(false);
    let _ = set_affinity(&(0..nr_cpus()).collect::<Vec<_>>());
    if pinned && partner_pinned {
        out
    } else {
        Vec::new()
    }
}

/// Online CPUs (not the affinity mask: the measurements pin and unpin themselves).
pub fn nr_cpus() -> usize {
    // SAFETY: sysconf has no side effects.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1) as usize
}

/// One-way wake-up latency (ns): a writer on CPU `from` stamps the clock and writes one
/// byte; a reader blocked on CPU `to` stamps when its read returns. With `busy_target`
/// a SCHED_IDLE spinner keeps `to` busy, so the wake-up needs a reschedule IPI but no
/// idle exit. The writer sleeps 2 ms between samples so an idle target really idles.
fn oneway_latency(from: usize, to: usize, busy_target: bool, samples: usize) -> Vec<f64> {
    let (r, w) = pipe_pair(false);
    let sent = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let spinner = busy_target.then(|| {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let _ = set_affinity(&[to]);
            crate::sched_attr::apply(&schedlab::workload::SchedChange {
                policy: Some(schedlab::workload::Policy::Idle),
                ..Default::default()
            });
            while !stop.load(Ordering::Relaxed) {
                spin_loops(64);
            }
        })
    });
    let s2 = sent.clone();
    let reader = std::thread::spawn(move || {
        let _ = set_affinity(&[to]);
        let mut b = [0u8; 1];
        let mut out = Vec::new();
        for _ in 0..samples {
            rd(r, &mut b);
            let t = now_ns();
            out.push(t.saturating_sub(s2.load(Ordering::SeqCst)) as f64);
        }
        out
    });
    let _ = set_affinity(&[from]);
    for _ in 0..samples {
        sleep_until(now_ns() + 2_000_000);
        sent.store(now_ns(), Ordering::SeqCst);
        wr(w, b"x");
    }
    let out = reader.join().unwrap_or_default();
    stop.store(true, Ordering::Relaxed);
    if let Some(s) = spinner {
        let _ = s.join();
    }
    close(r);
    close(w);
    let _ = set_affinity(&(0..nr_cpus()).collect::<Vec<_>>());
    out
}

/// The waker's CPU time (ns) of a 1-byte pipe write that wakes a reader blocked on CPU
/// `to` (none: a write nobody waits for, drained by a reader that does not sleep), the
/// writer on CPU 0 after 300 µs asleep (so all three start equally cold): the syscall
/// plus try_to_wake_up, plus the IPI when `to` is another CPU. The reader runs at nice
/// 19 so that a local wake-up does not preempt the writer inside the measured write.
fn waker_cpu_ns(to: Option<usize>, samples: usize) -> Vec<f64> {
    let (r, w) = pipe_pair(false);
    let reader = std::thread::spawn(move || {
        let Some(to) = to else { return };
        let _ = set_affinity(&[to]);
        // SAFETY: plain syscalls on this thread.
        unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
        let mut b = [0u8; 1];
        for _ in 0..samples {
            rd(r, &mut b);
        }
    });
    let _ = set_affinity(&[0]);
    let mut out = Vec::with_capacity(samples);
    for _ in 0..samples {
        sleep_until(now_ns() + 300_000);
        let t0 = crate::rtapp_exec::thread_cpu_ns();
        wr(w, b"x");
        out.push((crate::rtapp_exec::thread_cpu_ns() - t0) as f64);
        if to.is_none() {
            rd(r, &mut [0u8; 1]);
        }
    }
    let _ = reader.join();
    close(r);
    close(w);
    let _ = set_affinity(&(0..nr_cpus()).collect::<Vec<_>>());
    out
}

/// sched_wakeup_ns: a write that wakes a sleeper on its own CPU less the same write
/// waking nobody.
pub fn sched_wakeup_ns(local_wake: f64, plain_write: f64) -> f64 {
    (local_wake - plain_write).max(0.0)
}

/// ipi_send_ns: the same write waking a sleeper on another CPU less the local one.
pub fn ipi_send_ns(remote_wake: f64, local_wake: f64) -> f64 {
    (remote_wake - local_wake).max(0.0)
}

/// schbench's request work: an n×n matrix multiply (n from its 256 KiB default
/// footprint), in ps per multiply-add; one sample every `gap_ms`, to see speed changes.
fn mac_ps(samples: usize, gap_ms: u64) -> Vec<f64> {
    let n = (256.0f64 * 1024.0 / 3.0 / 8.0).sqrt() as usize;
    let m1: Vec<f64> = (0..n * n).map(|i| (i % 7) as f64).collect();
    let m2: Vec<f64> = (0..n * n).map(|i| (i % 5) as f64).collect();
    let mut m3 = vec![0f64; n * n];
    let mut out = Vec::new();
    for _ in 0..samples {
        let t0 = crate::rtapp_exec::thread_cpu_ns();
        for i in 0..n {
            for j in 0..n {
                let mut s = 0.0;
                for k in 0..n {
                    s += m1[i * n + k] * m2[k * n + j];
                }
                m3[i * n + j] = s;
            }
        }
        std::hint::black_box(&m3);
        let dt = crate::rtapp_exec::thread_cpu_ns() - t0;
        out.push(dt as f64 * 1000.0 / (n * n * n) as f64);
        std::thread::sleep(std::time::Duration::from_millis(gap_ms));
    }
    out
}

/// Housekeeping runs per CPU per second on this (idle) host: context switches over
/// `ms` (/proc/stat `ctxt`), two per run (in and out), shared by the CPUs. Feeds the
/// scenario's `[noise] housekeeping_hz`.
fn housekeeping_hz(ms: u64) -> Option<f64> {
    let ctxt = || -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        parse_ctxt(&stat)
    };
    let a = ctxt()?;
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let b = ctxt()?;
    Some(housekeeping_rate(b.saturating_sub(a), ms, nr_cpus()))
}

/// The `ctxt` line of /proc/stat.
fn parse_ctxt(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|l| l.strip_prefix("ctxt "))
        .and_then(|v| v.trim().parse().ok())
}

/// Runs per CPU per second from `switches` context switches in `ms` on `cpus` CPUs.
fn housekeeping_rate(switches: u64, ms: u64, cpus: usize) -> f64 {
    switches as f64 / 2.0 / cpus.max(1) as f64 * 1000.0 / ms as f64
}

/// Multiply-adds per schbench request with its defaults (`-F 256 -n 5`): 5 × n³ with n
/// from a 256 KiB footprint of three n×n double matrices.
fn schbench_macs_per_request() -> f64 {
    let n = (256.0f64 * 1024.0 / 3.0 / 8.0).sqrt() as u64;
    (5 * n * n * n) as f64
}

/// The real schbench's cost per multiply-add: one worker (`-m 1 -t 1`) for 1 s, its
/// fastest request is the request's work alone. None when schbench is not installed.
fn schbench_mac_ps() -> Option<Vec<f64>> {
    let bin = crate::tools::which("schbench")?;
    let out = std::process::Command::new("timeout")
        .args(["10"])
        .arg(bin)
        .args(["-m", "1", "-t", "1", "-r", "1", "-F", "256", "-n", "5"])
        .output()
        .ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let min_us = schbench_min_request_us(&text)?;
    Some(vec![min_us * 1e6 / schbench_macs_per_request()])
}

/// The `min=` of schbench's "Request Latencies" block, µs.
fn schbench_min_request_us(text: &str) -> Option<f64> {
    let block = text.split("Request Latencies").nth(1)?;
    let at = block.find("min=")? + 4;
    let digits: String = block[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The executor's compute loop, ns per unit, one sample every `gap_ms`.
fn spin_ns(samples: usize, gap_ms: u64) -> Vec<f64> {
    (0..samples)
        .map(|_| {
            let v = crate::rtapp_exec::calibrate_ns_per_loop(1);
            std::thread::sleep(std::time::Duration::from_millis(gap_ms));
            v
        })
        .collect()
}

/// The seed spinner's `for (i = 0; i < 1000000; i++);` as an unoptimised C compiler
/// emits it (the counter lives in memory: load, add, store, compare), in ps per
/// iteration by thread CPU time; one sample every `gap_ms`.
fn spin_loop_ps(samples: usize, gap_ms: u64) -> Vec<f64> {
    const N: u32 = 1_000_000;
    (0..samples)
        .map(|_| {
            let mut i = 0u32;
            let p = std::hint::black_box(&mut i as *mut u32);
            let t0 = crate::rtapp_exec::thread_cpu_ns();
            // SAFETY: `p` points at the local `i`, alive for the whole loop.
            unsafe {
                std::ptr::write_volatile(p, 0);
                while std::ptr::read_volatile(p) < N {
                    std::ptr::write_volatile(p, std::ptr::read_volatile(p) + 1);
                }
            }
            let dt = crate::rtapp_exec::thread_cpu_ns() - t0;
            std::thread::sleep(std::time::Duration::from_millis(gap_ms));
            dt as f64 * 1000.0 / f64::from(N)
        })
        .collect()
}

/// The creating thread's CPU time for one pthread_create of a thread that returns at once,
/// ns. Created in batches and joined only after each batch, as a tool's main thread
/// creates all its workers before joining any: glibc then cannot reuse a cached stack.
fn thread_create_ns(batches: usize) -> Vec<f64> {
    const BATCH: usize = 20;
    extern "C" fn leave(_: *mut libc::c_void) -> *mut libc::c_void {
        std::ptr::null_mut()
    }
    let mut out = Vec::with_capacity(batches * BATCH);
    for _ in 0..batches {
        let mut created = Vec::with_capacity(BATCH);
        for _ in 0..BATCH {
            let mut th = std::mem::MaybeUninit::<libc::pthread_t>::uninit();
            let t0 = crate::rtapp_exec::thread_cpu_ns();
            // SAFETY: `th` is written by pthread_create before it is read (only on success).
            let rc = unsafe {
                libc::pthread_create(
                    th.as_mut_ptr(),
                    std::ptr::null(),
                    leave,
                    std::ptr::null_mut(),
                )
            };
            out.push((crate::rtapp_exec::thread_cpu_ns() - t0) as f64);
            if rc == 0 {
                // SAFETY: initialised by the successful pthread_create above.
                created.push(unsafe { th.assume_init() });
            }
        }
        for th in created {
            // SAFETY: a thread we created and have not joined yet.
            unsafe { libc::pthread_join(th, std::ptr::null_mut()) };
        }
    }
    out
}

/// A FUTEX_WAKE syscall that finds no waiter, ns (the wake-up itself is the model's).
fn futex_wake_ns(rounds: usize) -> Vec<f64> {
    let word = 0u32;
    let n = 10_000;
    (0..rounds)
        .map(|_| {
            let t0 = now_ns();
            for _ in 0..n {
                // SAFETY: FUTEX_WAKE on a valid, aligned u32 of ours.
                unsafe {
                    libc::syscall(
                        libc::SYS_futex,
                        &word as *const u32,
                        libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                        1,
                        0usize,
                        0usize,
                        0u32,
                    )
                };
            }
            (now_ns() - t0) as f64 / f64::from(n)
        })
        .collect()
}

/// Payload copy per KiB from a small and a page-sized message (write + read), ns.
pub fn copy_ns_per_kib(small_ns: f64, small_bytes: f64, page_ns: f64, page_bytes: f64) -> f64 {
    ((page_ns - small_ns) / 2.0 / ((page_bytes - small_bytes) / 1024.0)).max(0.0)
}

/// The per-message fixed cost: a measured message's cost less its payload copy.
pub fn fixed_msg_ns(measured_ns: f64, bytes: f64, copy_per_kib: f64) -> f64 {
    (measured_ns - bytes * copy_per_kib / 1024.0).max(0.0)
}

/// The footprints the socket cache fit measures, as (write key, read key, depth): 80
/// sockets with `depth` 100-B messages each (ci/probes/msg_depth.c's 200 × 80 the
/// deepest); each value is the extra cost a message over the same loop with 2 messages
/// a socket, measured back to back (this guest's speed drifts by ±20 % between seconds).
pub const DEEP_SOCKET_POINTS: [(&str, &str, usize); 3] = [
    ("socket_write_extra_960_ns", "socket_read_extra_960_ns", 12),
    (
        "socket_write_extra_4000_ns",
        "socket_read_extra_4000_ns",
        50,
    ),
    (
        "socket_write_extra_16000_ns",
        "socket_read_extra_16000_ns",
        200,
    ),
];
/// Sockets of the footprint measurements.
pub const DEEP_SOCKET_CHANNELS: usize = 80;

/// The model's socket footprint cost (Costs::socket_send_cold_ns) fitted to measured
/// footprints: `points` are (F bytes of skbs in flight on one core, extra write ns,
/// extra read ns a message over the hot loop). The model's extra is A × (1 − C ÷ F)
/// above C and nothing below it; C is the least-squares fit of the summed extras over
/// 400 log-spaced values from 4 KiB to the largest F, and each side's A the
/// least-squares factor at that C. Returns (C bytes, A send ns, A receive ns); a
/// footprint that costs nothing gives zeros.
pub fn fit_socket_cold(points: &[(f64, f64, f64)]) -> (f64, f64, f64) {
    let f_max = points.iter().map(|p| p.0).fold(0.0, f64::max);
    let g = |c: f64, f: f64| (1.0 - c / f).max(0.0);
    let factor = |c: f64, e: &dyn Fn(&(f64, f64, f64)) -> f64| {
        let (num, den) = points.iter().fold((0.0, 0.0), |(n, d), p| {
            (n + e(p) * g(c, p.0), d + g(c, p.0).powi(2))
        });
        if den > 0.0 {
            (num / den).max(0.0)
        } else {
            0.0
        }
    };
    let sum = |p: &(f64, f64, f64)| p.1 + p.2;
    let error = |c: f64| {
        let a = factor(c, &sum);
        points
            .iter()
            .map(|p| (sum(p) - a * g(c, p.0)).powi(2))
            .sum::<f64>()
    };
    if f_max <= 4096.0 || factor(0.0, &sum) <= 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let steps = 400;
    let cache = (0..steps)
        .map(|i| 4096.0 * (f_max / 4096.0).powf(i as f64 / steps as f64))
        .min_by(|&a, &b| error(a).total_cmp(&error(b)))
        .unwrap_or(0.0);
    (cache, factor(cache, &|p| p.1), factor(cache, &|p| p.2))
}

/// Put the measured medians into the machine's `[costs]` (the keys nothing measured keep
/// their values): the scheduler's hardware costs and the per-operation costs the front
/// ends read.
pub fn apply_costs(c: &Calibration, costs: &mut schedlab::machine::Costs) {
    let med = |k: &str| c.get(k).map(|m| m.median()).filter(|v| v.is_finite());
    let set = |slot: &mut u64, v: Option<f64>| {
        if let Some(v) = v {
            *slot = v.round().max(0.0) as u64;
        }
    };
    set(&mut costs.context_switch_ns, med("context_switch_ns"));
    set(
        &mut costs.context_switch_cold_ns,
        med("context_switch_cold_ns"),
    );
    set(&mut costs.wakeup_ipi_ns, med("wakeup_ipi_ns"));
    set(&mut costs.idle_exit_ns, med("idle_exit_ns"));
    set(&mut costs.sched_wakeup_ns, med("sched_wakeup_ns"));
    set(&mut costs.ipi_send_ns, med("ipi_send_ns"));
    let copy = med("copy_ns_per_kib");
    set(&mut costs.copy_ns_per_kib, copy);
    let copy = copy.unwrap_or(costs.copy_ns_per_kib as f64);
    // The small-message measurements carry 100 B of copy.
    let fixed = |k: &str| med(k).map(|v| fixed_msg_ns(v, 100.0, copy));
    set(&mut costs.pipe_write_ns, fixed("pipe_write_ns"));
    set(&mut costs.pipe_read_ns, fixed("pipe_read_ns"));
    set(&mut costs.socket_send_ns, fixed("socket_write_ns"));
    set(&mut costs.socket_recv_ns, fixed("socket_read_ns"));
    set(&mut costs.futex_wake_ns, med("futex_wake_ns"));
    set(&mut costs.pipe_bounce_ns, med("pipe_bounce_ns"));
    set(&mut costs.socket_bounce_ns, med("socket_bounce_ns"));
    set(&mut costs.matrix_mac_ps, med("schbench_mac_ps"));
    set(&mut costs.spin_loop_ps, med("spin_loop_ps"));
    set(&mut costs.thread_create_ns, med("thread_create_ns"));
    let points: Option<Vec<(f64, f64, f64)>> = DEEP_SOCKET_POINTS
        .iter()
        .map(|&(w, r, depth)| {
            let f = (DEEP_SOCKET_CHANNELS * depth) as f64 * skb_truesize(100) as f64;
            Some((f, med(w)?, med(r)?))
        })
        .collect();
    if let Some(points) = points {
        let (cache, send, recv) = fit_socket_cold(&points);
        set(&mut costs.socket_cache_bytes, Some(cache));
        set(&mut costs.socket_send_cold_ns, Some(send));
        set(&mut costs.socket_recv_cold_ns, Some(recv));
    }
}

/// Put the measured line transfer between CPUs 0 and 1 into the `cacheline_*` cost of
/// the level the topology says they share (another core of the LLC, another LLC of the
/// node, another node); SMT siblings share their caches, so nothing is set for them.
pub fn apply_line_cost(c: &Calibration, machine: &mut schedlab::machine::Machine) {
    let Some(ns) = c
        .get("cacheline_pair_ns")
        .map(|m| m.median())
        .filter(|v| v.is_finite())
    else {
        return;
    };
    let (Some(a), Some(b)) = (machine.cpus.first(), machine.cpus.get(1)) else {
        return;
    };
    let costs = &mut machine.costs;
    let slot = if a.core == b.core {
        return;
    } else if a.llc == b.llc {
        &mut costs.cacheline_llc_ns
    } else if a.numa_node == b.numa_node && a.package == b.package {
        &mut costs.cacheline_cross_llc_ns
    } else {
        &mut costs.cacheline_cross_numa_ns
    };
    *slot = ns.round().max(0.0) as u64;
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn kernel_config() -> Option<String> {
    let out = std::process::Command::new("zcat")
        .arg("/proc/config.gz")
        .output()
        .ok();
    if let Some(o) = out.filter(|o| o.status.success()) {
        return Some(String::from_utf8_lossy(&o.stdout).into_owned());
    }
    let rel = read("/proc/sys/kernel/osrelease")?;
    read(&format!("/boot/config-{}", rel.trim()))
}

/// The kernel's settings, from the most direct source that answers.
pub fn kernel_settings() -> KernelSettings {
    let config = kernel_config();
    let dmesg = std::process::Command::new("dmesg")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let debugfs = read("/sys/kernel/debug/sched/preempt");
    // A fresh task's se.slice is the base slice (sysctl_sched_base_slice) when debugfs
    // sched/base_slice_ns is not readable.
    let base_slice_ns = read("/sys/kernel/debug/sched/base_slice_ns")
        .and_then(|s| s.trim().parse().ok())
        .or_else(|| {
            read("/proc/self/sched").and_then(|s| crate::procfs::sched_field(&s, "se.slice"))
        });
    KernelSettings {
        version: read("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim()
            .to_string(),
        hz: config.as_deref().and_then(hz_from_config),
        preempt: preempt_from(debugfs.as_deref(), dmesg.as_deref(), config.as_deref()),
        base_slice_ns,
        autogroup: read("/proc/sys/kernel/sched_autogroup_enabled").map(|s| s.trim() == "1"),
    }
}

/// Measure everything; `quick` takes fewer samples (validate's own calibration).
pub fn calibrate(quick: bool) -> Calibration {
    let k = if quick { 1 } else { 4 };
    // First, while this process is still idle: the host's own background activity.
    let housekeeping: Vec<f64> = (0..k).filter_map(|_| housekeeping_hz(500)).collect();
    let (pw1, pr1) = message_costs(false, 1, 10 * k);
    let (pw, pr) = message_costs(false, 100, 10 * k);
    let (sw, sr) = message_costs(true, 100, 10 * k);
    let (pw4, pr4) = message_costs(false, 4096, 10 * k);
    let copy: Vec<f64> = (0..pw.len().min(pw4.len()))
        .map(|i| copy_ns_per_kib(pw[i] + pr[i], 100.0, pw4[i] + pr4[i], 4096.0))
        .collect();
    let rt = ping_pong_same_cpu(0, 2000, 5 * k);
    let w1 = crate::compare::summary(&pw1).0;
    let r1 = crate::compare::summary(&pr1).0;
    let cs: Vec<f64> = rt.iter().map(|&x| context_switch_ns(x, w1, r1)).collect();
    let cs_med = crate::compare::summary(&cs).0;
    // Eight threads in a ring: each switch goes to a task that last ran 7 switches ago.
    let cold: Vec<f64> = ring_hop_ns(0, 8, 4000, 5 * k)
        .iter()
        .map(|&hop| context_switch_ns(2.0 * hop, w1, r1))
        .collect();
    let mut measures = vec![
        Measure {
            key: "housekeeping_hz",
            unit: "1/s per CPU",
            samples: housekeeping,
        },
        Measure {
            key: "context_switch_ns",
            unit: "ns",
            samples: cs,
        },
        Measure {
            key: "context_switch_cold_ns",
            unit: "ns",
            samples: cold,
        },
        Measure {
            key: "pipe_write_ns",
            unit: "ns",
            samples: pw,
        },
        Measure {
            key: "pipe_read_ns",
            unit: "ns",
            samples: pr,
        },
        Measure {
            key: "socket_write_ns",
            unit: "ns",
            samples: sw,
        },
        Measure {
            key: "socket_read_ns",
            unit: "ns",
            samples: sr,
        },
        Measure {
            key: "copy_ns_per_kib",
            unit: "ns",
            samples: copy,
        },
        Measure {
            key: "futex_wake_ns",
            unit: "ns",
            samples: futex_wake_ns(10 * k),
        },
    ];
    let mut extras = vec![(Vec::new(), Vec::new()); DEEP_SOCKET_POINTS.len()];
    let n = DEEP_SOCKET_CHANNELS;
    for _ in 0..2 * k + 2 {
        let Some(hot) = deep_socket_costs(n, 2, 100) else {
            break;
        };
        for (i, &(_, _, depth)) in DEEP_SOCKET_POINTS.iter().enumerate() {
            // About as many messages as the hot loop's 16,000.
            if let Some(deep) = deep_socket_costs(n, depth, (200 / depth).max(3)) {
                extras[i].0.push(deep.0 - hot.0);
                extras[i].1.push(deep.1 - hot.1);
            }
        }
    }
    for ((wkey, rkey, _), (w, r)) in DEEP_SOCKET_POINTS.into_iter().zip(extras) {
        if !w.is_empty() {
            measures.push(Measure {
                key: wkey,
                unit: "ns",
                samples: w,
            });
            measures.push(Measure {
                key: rkey,
                unit: "ns",
                samples: r,
            });
        }
    }
    let plain = crate::compare::summary(&waker_cpu_ns(None, 40 * k)).0;
    let local_wake = waker_cpu_ns(Some(0), 40 * k);
    let lw = crate::compare::summary(&local_wake).0;
    measures.push(Measure {
        key: "sched_wakeup_ns",
        unit: "ns",
        samples: local_wake
            .iter()
            .map(|&x| sched_wakeup_ns(x, plain))
            .collect(),
    });
    if nr_cpus() >= 2 {
        for (socket, key) in [(false, "pipe_bounce_ns"), (true, "socket_bounce_ns")] {
            let samples = (0..5 * k)
                .map(|_| {
                    let one = handed_pair_ns(socket, &[0], 20_000);
                    bounce_ns(handed_pair_ns(socket, &[0, 1], 20_000), one)
                })
                .collect();
            measures.push(Measure {
                key,
                unit: "ns",
                samples,
            });
        }
        let remote_wake = waker_cpu_ns(Some(1), 40 * k);
        measures.push(Measure {
            key: "ipi_send_ns",
            unit: "ns",
            samples: remote_wake.iter().map(|&x| ipi_send_ns(x, lw)).collect(),
        });
        let busy = oneway_latency(0, 1, true, 100 * k);
        let idle = oneway_latency(0, 1, false, 100 * k);
        let bm = crate::compare::summary(&busy).0;
        let ipi: Vec<f64> = busy
            .iter()
            .map(|&x| wakeup_ipi_ns(x, w1, r1, cs_med))
            .collect();
        let ie: Vec<f64> = idle.iter().map(|&x| idle_exit_ns(x, bm)).collect();
        measures.push(Measure {
            key: "wakeup_ipi_ns",
            unit: "ns",
            samples: ipi,
        });
        measures.push(Measure {
            key: "idle_exit_ns",
            unit: "ns",
            samples: ie,
        });
        measures.push(Measure {
            key: "cacheline_pair_ns",
            unit: "ns",
            samples: line_round_trips(0, 1, 20_000, 20 * k, 25)
                .iter()
                .map(|&rt| line_transfer_ns(rt))
                .collect(),
        });
    }
    measures.push(Measure {
        key: "schbench_mac_ps",
        unit: "ps",
        // schbench's own loop when it is installed: compilers and loop shapes differ by
        // ~1.7x on this host (0.50 vs 0.29 ns per multiply-add).
        samples: schbench_mac_ps().unwrap_or_else(|| mac_ps(10 * k, 50)),
    });
    measures.push(Measure {
        key: "spin_loop_ps",
        unit: "ps",
        samples: spin_loop_ps(10 * k, 25),
    });
    // process_create_ns is not measured: a fork() of this process is not a small tool's.
    measures.push(Measure {
        key: "thread_create_ns",
        unit: "ns",
        samples: thread_create_ns(2 * k),
    });
    measures.push(Measure {
        key: "spin_ns_per_loop",
        unit: "ns",
        samples: spin_ns(20 * k, 25),
    });
    Calibration {
        measures,
        kernel: kernel_settings(),
    }
}

/// The machine file's extra tables for a calibration (appended after `[costs]`).
pub fn toml_tables(c: &Calibration) -> String {
    let mut t = String::from(
        "\n# Measured by `schedlab machines capture --calibrate` (docs/machines.md).\n[kernel]\n",
    );
    let k = &c.kernel;
    t.push_str(&format!(
        "version = {}\n",
        toml::Value::String(k.version.clone())
    ));
    if let Some(h) = k.hz {
        t.push_str(&format!("hz = {h}\n"));
    }
    if let Some(p) = &k.preempt {
        t.push_str(&format!("preempt = {}\n", toml::Value::String(p.clone())));
    }
    if let Some(s) = k.base_slice_ns {
        t.push_str(&format!("base_slice_ns = {s}\n"));
    }
    if let Some(a) = k.autogroup {
        t.push_str(&format!("autogroup = {a}\n"));
    }
    t.push_str("\n# Medians; the comment gives min–max over the samples.\n[calibration]\n");
    for m in &c.measures {
        t.push_str(&format!(
            "{} = {:.1}  # min {:.1}, max {:.1} {} over {} samples\n",
            m.key,
            m.median(),
            m.min(),
            m.max(),
            m.unit,
            m.samples.len()
        ));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_costs_from_recorded_timings() {
        // Recorded on the 2-vCPU development host: 1-byte pipe write 1.1 µs, read 0.9 µs,
        // same-CPU round trip 9.0 µs, one-way to a busy CPU 14 µs, to an idle one 40 µs.
        let cs = context_switch_ns(9_000.0, 1_100.0, 900.0);
        assert_eq!(cs, 2_500.0);
        assert_eq!(wakeup_ipi_ns(14_000.0, 1_100.0, 900.0, cs), 9_500.0);
        assert_eq!(idle_exit_ns(40_000.0, 14_000.0), 26_000.0);
        assert_eq!(context_switch_ns(1_000.0, 1_100.0, 900.0), 0.0);
        // Recorded: a plain write after 300 µs asleep 0.7 µs, waking a local sleeper
        // 2.3 µs, a sleeper on the other CPU 10.5 µs.
        assert_eq!(sched_wakeup_ns(2_300.0, 700.0), 1_600.0);
        assert_eq!(ipi_send_ns(10_500.0, 2_300.0), 8_200.0);
        // Recorded: a pipe write + read pair 721 ns on one CPU, 861 ns handed between
        // two cores of one CCX (the op-by-op probe in C, before it moved here).
        assert_eq!(bounce_ns(861.0, 721.0), 140.0);
        assert_eq!(bounce_ns(700.0, 721.0), 0.0);
    }

    #[test]
    fn line_transfer_goes_to_the_level_cpus_0_and_1_share() {
        let c = Calibration {
            measures: vec![Measure {
                key: "cacheline_pair_ns",
                unit: "ns",
                // Recorded on the development host (one-way, 31.3 ns within a CCX).
                samples: vec![62.6, 64.8, 63.1]
                    .into_iter()
                    .map(line_transfer_ns)
                    .collect(),
            }],
            kernel: KernelSettings::default(),
        };
        let with = |core: usize, llc: usize, node: usize| {
            let mut m = schedlab::machine::presets::smp(2);
            let cpu1 = &mut m.cpus[1];
            (cpu1.core, cpu1.llc, cpu1.numa_node) = (core, llc, node);
            apply_line_cost(&c, &mut m);
            let k = &m.costs;
            (
                k.cacheline_llc_ns,
                k.cacheline_cross_llc_ns,
                k.cacheline_cross_numa_ns,
            )
        };
        let smp = schedlab::machine::presets::smp(2);
        let (c0, c1) = (&smp.cpus[0], &smp.cpus[1]);
        assert!(
            c0.core != c1.core && c0.llc == c1.llc,
            "smp(2): two cores, one LLC"
        );
        // The median of 31.3, 32.4 and 31.55 ns.
        assert_eq!(with(c1.core, c0.llc, c0.numa_node), (32, 120, 300));
        assert_eq!(with(c1.core, c0.llc + 1, c0.numa_node), (40, 32, 300));
        assert_eq!(with(c1.core, c0.llc + 1, c0.numa_node + 1), (40, 120, 32));
        // SMT siblings share their caches: nothing measured for a transfer.
        assert_eq!(with(c0.core, c0.llc, c0.numa_node), (40, 120, 300));
    }

    #[test]
    fn the_socket_footprint_fit_recovers_the_models_parameters() {
        // Extras the model itself gives with C = 600 KB, A = 300 (send) and 700 (receive).
        let model = |f: f64| (1.0 - 600_000.0 / f).max(0.0);
        let points: Vec<(f64, f64, f64)> = [737_280.0, 3_072_000.0, 12_288_000.0]
            .iter()
            .map(|&f| (f, 300.0 * model(f), 700.0 * model(f)))
            .collect();
        let (c, send, recv) = fit_socket_cold(&points);
        // The grid's nearest value (log steps of 1.9 % from 4 KiB to 12.3 MB).
        assert!((c - 600_000.0).abs() < 0.01 * 600_000.0, "{c}");
        assert!(
            (send - 300.0).abs() < 3.0 && (recv - 700.0).abs() < 7.0,
            "{send} {recv}"
        );
        // A footprint that costs nothing (or less than the hot loop: noise) fits zeros.
        let flat = [(737_280.0, -20.0, 5.0), (12_288_000.0, 3.0, -30.0)];
        assert_eq!(fit_socket_cold(&flat), (0.0, 0.0, 0.0));
        // Saturated already at the smallest footprint: the cache lies below it.
        let (c, send, recv) = fit_socket_cold(&[
            (737_280.0, 200.0, 400.0),
            (3_072_000.0, 200.0, 400.0),
            (12_288_000.0, 200.0, 400.0),
        ]);
        // The grid's smallest value.
        assert_eq!(c, 4096.0);
        assert!((send - 200.0).abs() < 2.0 && (recv - 400.0).abs() < 2.0);
    }

    #[test]
    fn calibration_goes_into_costs() {
        let m = |key, v: f64| Measure {
            key,
            unit: "ns",
            samples: vec![v],
        };
        let c = Calibration {
            measures: vec![
                m("context_switch_ns", 2_500.0),
                m("pipe_write_ns", 206.0),
                m("pipe_read_ns", 200.0),
                m("socket_write_ns", 680.0),
                m("socket_read_ns", 690.0),
                m("copy_ns_per_kib", 61.44),
                m("futex_wake_ns", 191.0),
                m("schbench_mac_ps", 455.0),
                m("spin_loop_ps", 235.0),
                m("context_switch_cold_ns", 2_870.0),
                m("sched_wakeup_ns", 1_600.0),
                m("ipi_send_ns", 8_200.0),
                m("pipe_bounce_ns", 618.2),
                m("socket_bounce_ns", 183.5),
                // Recorded on the same host (caller CPU time, median of 80).
                m("thread_create_ns", 13_180.4),
                // This session's 2-vCPU Zen 3 guest (medians of 10 paired runs).
                m("socket_write_extra_960_ns", 169.4),
                m("socket_read_extra_960_ns", 268.4),
                m("socket_write_extra_4000_ns", 367.4),
                m("socket_read_extra_4000_ns", 641.5),
                m("socket_write_extra_16000_ns", 350.3),
                m("socket_read_extra_16000_ns", 788.8),
            ],
            kernel: KernelSettings::default(),
        };
        let mut costs = schedlab::machine::Costs::default();
        apply_costs(&c, &mut costs);
        assert_eq!(costs.context_switch_ns, 2_500);
        // 100 B of copy at 61.44 ns/KiB is 6 ns.
        assert_eq!((costs.pipe_write_ns, costs.pipe_read_ns), (200, 194));
        assert_eq!((costs.socket_send_ns, costs.socket_recv_ns), (674, 684));
        assert_eq!(costs.copy_ns_per_kib, 61);
        assert_eq!(costs.futex_wake_ns, 191);
        assert_eq!((costs.matrix_mac_ps, costs.spin_loop_ps), (455, 235));
        assert_eq!(costs.context_switch_cold_ns, 2_870);
        assert_eq!((costs.sched_wakeup_ns, costs.ipi_send_ns), (1_600, 8_200));
        assert_eq!((costs.pipe_bounce_ns, costs.socket_bounce_ns), (618, 184));
        assert_eq!(costs.thread_create_ns, 13_180);
        // The machine file that run wrote has 461170, 399, 785 (from unrounded medians).
        assert_eq!(
            (
                costs.socket_cache_bytes,
                costs.socket_send_cold_ns,
                costs.socket_recv_cold_ns
            ),
            (461_170, 398, 785)
        );
        // Not measured: kept.
        assert_eq!(costs.process_create_ns, 60_000);
        assert_eq!(costs.wakeup_ipi_ns, 5_000);
        assert_eq!(
            copy_ns_per_kib(400.0, 100.0, 890.0, 4096.0),
            62.78278278278278
        );
    }

    #[test]
    fn kernel_settings_from_recorded_text() {
        assert_eq!(
            hz_from_config("CONFIG_HZ_250=y\nCONFIG_HZ=250\n"),
            Some(250)
        );
        assert_eq!(
            preempt_from(Some("none (voluntary) full lazy\n"), None, None).as_deref(),
            Some("voluntary")
        );
        let dmesg = "[    0.297534] Dynamic Preempt: none\n";
        assert_eq!(
            preempt_from(None, Some(dmesg), None).as_deref(),
            Some("none")
        );
        assert_eq!(
            preempt_from(None, None, Some("CONFIG_PREEMPT_NONE=y\n")).as_deref(),
            Some("none")
        );
        assert_eq!(
            preempt_from(None, None, Some("CONFIG_PREEMPT=y\n")).as_deref(),
            Some("full")
        );
    }

    #[test]
    fn tables_parse_as_toml() {
        let c = Calibration {
            measures: vec![Measure {
                key: "context_switch_ns",
                unit: "ns",
                samples: vec![1.0, 2.0, 3.0],
            }],
            kernel: KernelSettings {
                version: "6.18".into(),
                hz: Some(250),
                preempt: Some("none".into()),
                base_slice_ns: Some(1_400_000),
                autogroup: Some(true),
            },
        };
        let v: toml::Table = toml::from_str(&toml_tables(&c)).unwrap();
        assert_eq!(v["kernel"]["hz"].as_integer(), Some(250));
        assert_eq!(v["calibration"]["context_switch_ns"].as_float(), Some(2.0));
    }

    #[test]
    fn schbench_request_minimum_gives_the_mac_cost() {
        let out = "Wakeup Latencies percentiles (usec) runtime 2 (s) (617 total samples)\n\
                   \t  min=1, max=786\n\
                   Request Latencies percentiles (usec) runtime 2 (s) (617 total samples)\n\
                   \t  50.0th: 2972       (380 samples)\n\
                   \t  min=2819, max=3326\n";
        assert_eq!(schbench_min_request_us(out), Some(2819.0));
        assert_eq!(schbench_min_request_us("no blocks"), None);
        // 104³ × 5 multiply-adds in 2819 µs: 0.50 ns each.
        let ps = 2819.0 * 1e6 / schbench_macs_per_request();
        assert!((ps - 501.0).abs() < 1.0, "{ps}");
    }

    #[test]
    fn housekeeping_rate_from_recorded_proc_stat() {
        let stat = "cpu  1 2 3\nintr 5\nctxt 123456\nbtime 1\n";
        assert_eq!(parse_ctxt(stat), Some(123456));
        assert_eq!(parse_ctxt("cpu 1\n"), None);
        // 89 switches a second on 2 CPUs (this host, idle): 22.25 runs per CPU.
        assert_eq!(housekeeping_rate(178, 2000, 2), 22.25);
    }
}
