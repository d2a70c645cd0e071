//! Human-readable report of one run, in the shape of `perf stat`: the software counters
//! first, then a per-task table, per-CPU busy time, and anything that went wrong. Big
//! runs get summary tables instead (`report_summary.rs`); `perf stat -x` CSV is in
//! `report_csv.rs`.

use super::results::RunResult;
use std::fmt::Write;

/// How much of the per-task and per-CPU detail the report prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Full tables up to [`SUMMARY_ABOVE`] CPUs or tasks, summaries beyond.
    #[default]
    Auto,
    /// One line per task and per CPU, whatever the size.
    Full,
    /// Tasks grouped by name, CPUs by package.
    Summary,
}

/// `Detail::Auto` summarises runs with more CPUs or tasks than this.
pub const SUMMARY_ABOVE: usize = 64;

impl Detail {
    /// Whether `r` gets the summary tables.
    pub fn summarises(self, r: &RunResult) -> bool {
        match self {
            Detail::Full => false,
            Detail::Summary => true,
            Detail::Auto => r.cpus.len() > SUMMARY_ABOVE || r.tasks.len() > SUMMARY_ABOVE,
        }
    }
}

/// Render `r` for a terminal. Deterministic except for the wall-clock line.
pub fn render_human(r: &RunResult) -> String {
    render_human_with(r, Detail::Auto)
}

/// As [`render_human`], with the per-task and per-CPU detail chosen.
pub fn render_human_with(r: &RunResult, detail: Detail) -> String {
    let mut out = String::new();
    counters(&mut out, r);
    intervals(&mut out, r);
    if detail.summarises(r) {
        super::report_summary::tasks(&mut out, r);
        approximate_latency_note(&mut out, r);
        super::report_summary::cpus(&mut out, r);
    } else {
        tasks(&mut out, r);
        approximate_latency_note(&mut out, r);
        cpus(&mut out, r);
    }
    footer(&mut out, r);
    out
}

/// Says which tasks' wake-up latency percentiles come from the histogram (more wake-ups
/// than the exact recorder keeps); nothing when all are exact.
fn approximate_latency_note(out: &mut String, r: &RunResult) {
    let n = r
        .tasks
        .iter()
        .filter(|t| t.wakeup_latency_ns.approximate)
        .count();
    if n > 0 {
        let _ = writeln!(
            out,
            "  wake-up latency p50/p99 of {n} task{} with more than {} wake-ups: to {} significant digits (max exact)\n",
            if n == 1 { "" } else { "s" },
            group(crate::metrics::latency::EXACT_SAMPLES_CAP as u64),
            crate::metrics::latency::SIGNIFICANT_DIGITS
        );
    }
}

fn counters(out: &mut String, r: &RunResult) {
    let sc = &r.scenario;
    let p = &r.perf;
    let what = if sc.workloads.is_empty() {
        "schedlab run".to_string()
    } else {
        sc.workloads.join(" + ")
    };
    let _ = writeln!(
        out,
        " Performance counter stats for '{what}' ({}, seed {}):\n",
        sc.machine, sc.seed
    );
    let _ = writeln!(
        out,
        "{:>18} msec task-clock                #  {:>8.3} CPUs utilized",
        group_fixed(p.task_clock_ns, 1_000_000, 2),
        p.cpus_utilized
    );
    let _ = writeln!(
        out,
        "{:>18}      context-switches",
        group(p.context_switches)
    );
    let _ = writeln!(out, "{:>18}      cpu-migrations", group(p.cpu_migrations));
    if r.energy.total_mj > 0.0 {
        let _ = writeln!(
            out,
            "{:>18} mJ   energy                  #  {:>8.1} mW average power",
            format!("{:.3}", r.energy.total_mj),
            r.energy.avg_power_mw
        );
    }
    let _ = writeln!(
        out,
        "\n{:>18} seconds time elapsed (simulated)\n",
        group_fixed(r.sim.time_ns, 1_000_000_000, 9)
    );
    let features = if sc.features.is_empty() {
        "kernel defaults".to_string()
    } else {
        sc.features.join(" ")
    };
    let _ = writeln!(
        out,
        "  features: {features}; hz {}; preempt {}; governor {}; PELT half-life {} ms\n",
        sc.hz, sc.preempt, sc.governor, sc.pelt_halflife_ms
    );
    if r.sched_profile.iter().any(|e| e.ns > 0) {
        // perf report's view of the scheduler's own time (share of all CPUs' time).
        let _ = writeln!(out, "  scheduler overhead (modelled):");
        for e in r.sched_profile.iter().filter(|e| e.ns > 0).take(6) {
            let _ = writeln!(
                out,
                "  {:>9.4}%  {:>14} ns  {}",
                e.pct,
                group(e.ns),
                e.function
            );
        }
        let _ = writeln!(out);
    }
}

/// `perf stat -I`'s view: each interval's counts, its end time first.
fn intervals(out: &mut String, r: &RunResult) {
    let Some(rows) = &r.intervals else {
        return;
    };
    let _ = writeln!(
        out,
        "  per interval:\n{:>18} {:>14} {:>12} {:>16} {:>8} {:>14}",
        "time (s)", "switches", "migrations", "task-clock msec", "CPUs", "counters"
    );
    for row in rows {
        let _ = writeln!(
            out,
            "{:>18} {:>14} {:>12} {:>16} {:>8.3} {:>14}",
            group_fixed(row.end_ns, 1_000_000_000, 9),
            group(row.context_switches),
            group(row.cpu_migrations),
            group_fixed(row.task_clock_ns, 1_000_000, 2),
            row.cpus_utilized,
            group(row.workload_counters)
        );
    }
    let _ = writeln!(out);
}

fn tasks(out: &mut String, r: &RunResult) {
    let comm_w = r
        .tasks
        .iter()
        .map(|t| t.comm.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, 24);
    let _ = writeln!(
        out,
        "{:>7} {:<comm_w$} {:<11} {:>4} {:>12} {:>12} {:>17} {:>6} {:>26} {:>13}",
        "PID",
        "COMM",
        "POLICY",
        "NICE",
        "CPU ms",
        "WAIT ms",
        "SWITCHES vol/inv",
        "MIGR",
        "WAKEUP LAT p50/p99/max µs",
        "UTIL avg/est"
    );
    for t in &r.tasks {
        let comm: String = t.comm.chars().take(comm_w).collect();
        let lat = &t.wakeup_latency_ns;
        let lat = if lat.count == 0 {
            "-".to_string()
        } else {
            format!(
                "{}/{}/{}",
                group_fixed(lat.p50, 1_000, 1),
                group_fixed(lat.p99, 1_000, 1),
                group_fixed(lat.max, 1_000, 1)
            )
        };
        let _ = writeln!(
            out,
            "{:>7} {:<comm_w$} {:<11} {:>4} {:>12} {:>12} {:>17} {:>6} {:>26} {:>13}",
            t.pid,
            comm,
            t.policy,
            t.nice,
            group_fixed(t.cpu_time_ns, 1_000_000, 2),
            group_fixed(t.wait_time_ns, 1_000_000, 2),
            format!(
                "{}/{}",
                group(t.nr_voluntary_switches),
                group(t.nr_involuntary_switches)
            ),
            group(t.nr_migrations),
            lat,
            format!("{}/{}", t.util_avg, t.util_est)
        );
    }
    out.push('\n');
}

fn cpus(out: &mut String, r: &RunResult) {
    let _ = writeln!(
        out,
        "{:>5} {:>7} {:>12} {:>12} {:>10}",
        "CPU", "BUSY %", "SWITCHES", "ENERGY mJ", "BUSY MHz"
    );
    for c in &r.cpus {
        let total = c.busy_ns + c.idle_ns;
        let pct = if total == 0 {
            0.0
        } else {
            c.busy_ns as f64 * 100.0 / total as f64
        };
        let busy: u64 = c.freq_residency.iter().map(|f| f.busy_ns).sum();
        let mhz = if busy == 0 {
            "-".to_string()
        } else {
            let weighted: u128 = c
                .freq_residency
                .iter()
                .map(|f| f.khz as u128 * f.busy_ns as u128)
                .sum();
            format!("{}", weighted / busy as u128 / 1000)
        };
        let _ = writeln!(
            out,
            "{:>5} {:>7.2} {:>12} {:>12.3} {:>10}",
            c.cpu,
            pct,
            group(c.nr_switches),
            c.energy_mj,
            mhz
        );
    }
    out.push('\n');
}

fn footer(out: &mut String, r: &RunResult) {
    let s = &r.sim;
    let _ = writeln!(
        out,
        "  stopped: {}; {} events in {:.3} s wall",
        s.stop_reason,
        group(s.events),
        s.wall_s
    );
    if s.invariant_violations > 0 {
        let _ = writeln!(
            out,
            "  INVARIANT VIOLATIONS: {} (a model bug; first messages below)",
            group(s.invariant_violations)
        );
        for m in &s.invariant_messages {
            let _ = writeln!(out, "    {m}");
        }
    }
}

/// `1234567` → `"1,234,567"`.
pub(super) fn group(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `v / unit` with `decimals` digits (rounded half up) and a grouped integer part, in
/// integer arithmetic so the text never depends on float formatting.
pub(super) fn group_fixed(v: u64, unit: u64, decimals: u32) -> String {
    let scale = 10u128.pow(decimals);
    let scaled = (v as u128 * scale + unit as u128 / 2) / unit as u128;
    let int = (scaled / scale) as u64;
    if decimals == 0 {
        return group(int);
    }
    let frac = scaled % scale;
    format!("{}.{:0width$}", group(int), frac, width = decimals as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::bench::mixed_workload;
    use crate::experiment::run::run_workload;
    use crate::experiment::Scenario;
    use crate::time::NSEC_PER_MSEC;

    #[test]
    fn number_formatting() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
        assert_eq!(group_fixed(12_345_678_901, 1_000_000, 2), "12,345.68");
        assert_eq!(
            group_fixed(10_000_000_000, 1_000_000_000, 9),
            "10.000000000"
        );
        assert_eq!(group_fixed(1_550, 1_000, 1), "1.6");
        assert_eq!(group_fixed(5, 1, 0), "5");
    }

    #[test]
    fn report_has_perf_stat_shape() {
        let sc = Scenario {
            machine: "smp:2".into(),
            duration_ns: Some(200 * NSEC_PER_MSEC),
            ..Scenario::default()
        };
        let r = run_workload(&sc, mixed_workload(2, 2, 2)).unwrap();
        let text = render_human(&r);
        assert!(
            text.starts_with(" Performance counter stats for 'schedlab run' (smp:2, seed 1):"),
            "{text}"
        );
        for needle in [
            "msec task-clock",
            "CPUs utilized",
            "context-switches",
            "cpu-migrations",
            "0.200000000 seconds time elapsed (simulated)",
            "hog-0",
            "periodic-1",
            "SCHED_OTHER",
            "BUSY %",
            "stopped: time_limit",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.contains("INVARIANT"), "{text}");
    }
}
