//! Wake-up latency from tracefs: sched_waking (the wake-up is issued) to the sched_switch
//! that puts the task on a CPU, per thread, for the threads of one process and its
//! children (set_event_pid + options/event-fork). Each session traces into its own
//! tracefs instance (instances/schedlab-PID-N), so the global trace settings are never
//! touched and concurrent runs cannot clobber each other; the instance is removed when
//! the session is dropped (end, error or Ctrl-C).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const TRACEFS: &str = "/sys/kernel/tracing";

pub struct TraceSession {
    /// The instance folder.
    root: PathBuf,
}

static NEXT_INSTANCE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// tracefs is usable: mounted (or mountable) and writable by us.
pub fn available() -> Result<PathBuf, String> {
    let root = Path::new(TRACEFS);
    if !root.join("trace").exists() {
        // SAFETY: geteuid has no failure mode.
        if unsafe { libc::geteuid() } != 0 {
            return Err("tracefs is not mounted and mounting it needs root".into());
        }
        let _ = std::process::Command::new("mount")
            .args(["-t", "tracefs", "nodev", TRACEFS])
            .status();
    }
    if !root.join("events/sched/sched_waking/enable").exists() {
        return Err(format!("{TRACEFS}/events/sched/sched_waking is missing"));
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("tracing_on"))
    {
        Ok(_) => Ok(root.to_path_buf()),
        Err(e) => Err(format!("{TRACEFS}/tracing_on: {e} (run as root)")),
    }
}

impl TraceSession {
    /// Start tracing `pid` and every thread or process it creates from now on.
    pub fn start(pid: i32) -> Result<TraceSession, String> {
        let top = available()?;
        let n = NEXT_INSTANCE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // SAFETY: getpid cannot fail.
        let me = unsafe { libc::getpid() };
        let root = top.join(format!("instances/schedlab-{me}-{n}"));
        std::fs::create_dir(&root)
            .map_err(|e| format!("cannot create the tracefs instance {}: {e}", root.display()))?;
        let s = TraceSession { root };
        s.write("tracing_on", "0")?;
        s.write("buffer_size_kb", "16384")?;
        s.write("options/event-fork", "1")?;
        s.write("set_event_pid", &pid.to_string())?;
        s.write("events/sched/sched_waking/enable", "1")?;
        s.write("events/sched/sched_switch/enable", "1")?;
        s.write("tracing_on", "1")?;
        Ok(s)
    }

    fn write(&self, f: &str, v: &str) -> Result<(), String> {
        std::fs::write(self.root.join(f), v).map_err(|e| format!("{TRACEFS}/{f}: {e}"))
    }

    /// Stop and return the trace text.
    pub fn finish(&self) -> String {
        let _ = self.write("tracing_on", "0");
        std::fs::read_to_string(self.root.join("trace")).unwrap_or_default()
    }
}

impl Drop for TraceSession {
    fn drop(&mut self) {
        let _ = self.write("tracing_on", "0");
        let _ = self.write("events/sched/sched_waking/enable", "0");
        let _ = self.write("events/sched/sched_switch/enable", "0");
        // An instance is removed with rmdir (its files go with it).
        let _ = std::fs::remove_dir(&self.root);
    }
}

/// Leftover instances of `schedlab` processes that no longer run (killed with SIGKILL
/// before their Drop): removed at the next start.
pub fn remove_stale_instances() {
    let Ok(rd) = std::fs::read_dir(Path::new(TRACEFS).join("instances")) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("schedlab-")
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// Per-pid wake-up latencies (ns) from trace text; also the number of lines lost if the
/// buffer overflowed is not known here, so callers treat counts as lower bounds.
pub fn wakeup_latencies(trace: &str) -> HashMap<i32, Vec<u64>> {
    let mut pending: HashMap<i32, u64> = HashMap::new();
    let mut out: HashMap<i32, Vec<u64>> = HashMap::new();
    for line in trace.lines() {
        if line.starts_with('#') {
            continue;
        }
        let Some((head, rest)) = line.split_once(": sched_") else {
            continue;
        };
        let Some(ts) = head
            .split_whitespace()
            .last()
            .and_then(|t| t.parse::<f64>().ok())
        else {
            continue;
        };
        let ts = (ts * 1e9).round() as u64;
        if let Some(args) = rest.strip_prefix("waking: ") {
            if let Some(pid) = field(args, "pid=") {
                pending.entry(pid).or_insert(ts);
            }
        } else if let Some(args) = rest.strip_prefix("switch: ") {
            let next = args.split_once("==>").map(|x| x.1).unwrap_or("");
            if let Some(pid) = field(next, "next_pid=") {
                if let Some(w) = pending.remove(&pid) {
                    out.entry(pid).or_default().push(ts.saturating_sub(w));
                }
            }
        }
    }
    out
}

fn field(args: &str, key: &str) -> Option<i32> {
    args.split_whitespace()
        .find_map(|w| w.strip_prefix(key))
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Recorded on the development host (Linux 6.18), trimmed.
    const TRACE: &str = "# tracer: nop
#
          <idle>-0       [001] d.h2.  1000.000100: sched_waking: comm=periodic-0 pid=4242 prio=120 target_cpu=001
          <idle>-0       [001] dNh3.  1000.000105: sched_waking: comm=periodic-0 pid=4242 prio=120 target_cpu=001
          <idle>-0       [001] d..2.  1000.000160: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=periodic-0 next_pid=4242 next_prio=120
      periodic-0-4242    [001] d..2.  1000.002200: sched_switch: prev_comm=periodic-0 prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
           hog-1-4243    [000] d.h2.  1000.016100: sched_waking: comm=periodic-0 pid=4242 prio=120 target_cpu=000
           hog-1-4243    [000] d..2.  1000.017100: sched_switch: prev_comm=hog-1 prev_pid=4243 prev_prio=120 prev_state=R ==> next_comm=periodic-0 next_pid=4242 next_prio=120
";

    #[test]
    fn waking_to_switch_in() {
        let l = wakeup_latencies(TRACE);
        assert_eq!(l[&4242], vec![60_000, 1_000_000]);
        assert!(!l.contains_key(&4243));
    }
}
