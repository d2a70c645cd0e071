//! What procfs says about threads and CPUs: /proc/PID/task/TID/{schedstat,sched,status}
//! per thread, /proc/stat per CPU. Parsers take text so tests run on recorded files.

use std::path::Path;

/// One thread's counters, as the kernel keeps them (all start at 0 for a new thread).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ThreadStat {
    pub tid: i32,
    pub comm: String,
    /// se.sum_exec_runtime (schedstat field 1), ns.
    pub cpu_time_ns: u64,
    /// run_delay (schedstat field 2): time runnable but waiting, ns.
    pub wait_time_ns: u64,
    pub nvcsw: u64,
    pub nivcsw: u64,
    /// se.nr_migrations from /proc/PID/task/TID/sched.
    pub migrations: u64,
}

/// /proc/PID/task/TID/schedstat: "sum_exec_runtime run_delay pcount".
pub fn parse_schedstat(text: &str) -> Option<(u64, u64)> {
    let mut it = text.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some((it.next()??, it.next()??))
}

/// A `key : value` line of /proc/PID/sched (proc_sched_show_task), as an integer; values
/// printed as "ms.ns" are returned in ns.
pub fn sched_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        if k.trim() != key {
            return None;
        }
        let v = v.trim();
        match v.split_once('.') {
            Some((ms, frac)) => {
                let ns: u64 = format!("{frac:0<6}")[..6].parse().ok()?;
                Some(ms.parse::<u64>().ok()? * 1_000_000 + ns)
            }
            None => v.parse().ok(),
        }
    })
}

/// A `Key:\tvalue` line of /proc/PID/status.
pub fn status_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

/// Every thread of process `pid`, read now. Threads that exit while being read are
/// skipped (their files vanish).
pub fn threads_of(pid: i32) -> Vec<ThreadStat> {
    let dir = format!("/proc/{pid}/task");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<ThreadStat> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|tid| read_thread(&Path::new(&dir).join(tid.to_string()), tid))
        .collect();
    out.sort_by_key(|t| t.tid);
    out
}

/// One thread of process `pid`, read now.
pub fn threads_of_one(pid: i32, tid: i32) -> Option<ThreadStat> {
    read_thread(Path::new(&format!("/proc/{pid}/task/{tid}")), tid)
}

impl ThreadStat {
    /// Counters accumulated since `base` (an earlier read of the same thread).
    pub fn since(&self, base: &ThreadStat) -> ThreadStat {
        ThreadStat {
            tid: self.tid,
            comm: self.comm.clone(),
            cpu_time_ns: self.cpu_time_ns.saturating_sub(base.cpu_time_ns),
            wait_time_ns: self.wait_time_ns.saturating_sub(base.wait_time_ns),
            nvcsw: self.nvcsw.saturating_sub(base.nvcsw),
            nivcsw: self.nivcsw.saturating_sub(base.nivcsw),
            migrations: self.migrations.saturating_sub(base.migrations),
        }
    }
}

fn read_thread(dir: &Path, tid: i32) -> Option<ThreadStat> {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    let (cpu, wait) = parse_schedstat(&read("schedstat")?)?;
    let status = read("status")?;
    let sched = read("sched").unwrap_or_default();
    Some(ThreadStat {
        tid,
        comm: read("comm").unwrap_or_default().trim().to_string(),
        cpu_time_ns: cpu,
        wait_time_ns: wait,
        nvcsw: status_field(&status, "voluntary_ctxt_switches")?,
        nivcsw: status_field(&status, "nonvoluntary_ctxt_switches")?,
        migrations: sched_field(&sched, "se.nr_migrations").unwrap_or(0),
    })
}

/// Per-CPU busy and total time from /proc/stat, in USER_HZ ticks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// (busy, total) per CPU: busy = user+nice+system+irq+softirq+steal, total adds
    /// idle+iowait.
    pub cpus: Vec<(u64, u64)>,
}

pub fn parse_proc_stat(text: &str) -> CpuTimes {
    let mut cpus = Vec::new();
    for l in text.lines() {
        let mut w = l.split_whitespace();
        let Some(name) = w.next() else { continue };
        if name == "cpu" || !name.starts_with("cpu") {
            continue;
        }
        let v: Vec<u64> = w.filter_map(|x| x.parse().ok()).collect();
        if v.len() < 8 {
            continue;
        }
        let idle = v[3] + v[4];
        let busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        cpus.push((busy, busy + idle));
    }
    CpuTimes { cpus }
}

pub fn cpu_times() -> CpuTimes {
    parse_proc_stat(&std::fs::read_to_string("/proc/stat").unwrap_or_default())
}

impl CpuTimes {
    /// Busy fraction of each CPU between `self` (earlier) and `later`.
    pub fn busy_since(&self, later: &CpuTimes) -> Vec<f64> {
        self.cpus
            .iter()
            .zip(&later.cpus)
            .map(|(a, b)| {
                let total = b.1.saturating_sub(a.1);
                if total == 0 {
                    0.0
                } else {
                    b.0.saturating_sub(a.0) as f64 / total as f64
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHED: &str = "cat (14849, #threads: 1)
-------------------------------------------------------------------
se.exec_start                                :        688945.214098
se.sum_exec_runtime                          :             3.500120
se.nr_migrations                             :                    7
nr_switches                                  :                   12
";

    #[test]
    fn parses_recorded_files() {
        assert_eq!(
            parse_schedstat("144055 6984530 2\n"),
            Some((144055, 6984530))
        );
        assert_eq!(sched_field(SCHED, "se.nr_migrations"), Some(7));
        assert_eq!(sched_field(SCHED, "se.sum_exec_runtime"), Some(3_500_120));
        assert_eq!(sched_field(SCHED, "nr_switches"), Some(12));
        let status = "Name:\tcat\nvoluntary_ctxt_switches:\t4\nnonvoluntary_ctxt_switches:\t1\n";
        assert_eq!(status_field(status, "voluntary_ctxt_switches"), Some(4));
        assert_eq!(status_field(status, "nonvoluntary_ctxt_switches"), Some(1));
    }

    #[test]
    fn proc_stat_busy_fraction() {
        let a = parse_proc_stat(
            "cpu  1 1 1 1 1 0 0 0\ncpu0 10 0 0 90 0 0 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0 0 0\n",
        );
        let b = parse_proc_stat("cpu0 60 0 0 140 0 0 0 0 0 0\ncpu1 0 0 25 175 0 0 0 0 0 0\n");
        assert_eq!(a.cpus.len(), 2);
        assert_eq!(a.busy_since(&b), vec![0.5, 0.25]);
    }
}
