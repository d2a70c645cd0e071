//! The report's summary tables for big runs (a 384-CPU machine would print 800 lines of
//! per-CPU and per-task rows): tasks grouped by name, CPUs by package.

use super::report::{group, group_fixed};
use super::results::RunResult;
use crate::metrics::TaskResult;
use std::collections::BTreeMap;
use std::fmt::Write;

/// A task's name with its instance number dropped: `hackbench-sender-12` and `hog-3`
/// become `hackbench-sender-*` and `hog-*`; `kworker/3:1` becomes `kworker/*:*`.
pub fn name_group(comm: &str) -> String {
    let mut out = String::with_capacity(comm.len());
    let mut in_digits = false;
    for ch in comm.chars() {
        if ch.is_ascii_digit() {
            if !in_digits {
                out.push('*');
            }
            in_digits = true;
        } else {
            out.push(ch);
            in_digits = false;
        }
    }
    out
}

pub(super) fn tasks(out: &mut String, r: &RunResult) {
    let mut groups: BTreeMap<String, Vec<&TaskResult>> = BTreeMap::new();
    for t in &r.tasks {
        groups.entry(name_group(&t.comm)).or_default().push(t);
    }
    let name_w = groups.keys().map(|k| k.chars().count()).max().unwrap_or(0);
    let name_w = name_w.clamp(5, 28);
    let _ = writeln!(
        out,
        "{:<name_w$} {:>6} {:>14} {:>14} {:>21} {:>8} {:>22}",
        "TASKS", "COUNT", "CPU ms", "WAIT ms", "SWITCHES vol/inv", "MIGR", "WAKEUP LAT p99/max µs"
    );
    for (name, ts) in &groups {
        let sum = |f: fn(&TaskResult) -> u64| ts.iter().map(|t| f(t)).sum::<u64>();
        let worst_p99 = ts
            .iter()
            .map(|t| t.wakeup_latency_ns.p99)
            .max()
            .unwrap_or(0);
        let worst = ts
            .iter()
            .map(|t| t.wakeup_latency_ns.max)
            .max()
            .unwrap_or(0);
        let woken = ts.iter().any(|t| t.wakeup_latency_ns.count > 0);
        let lat = if woken {
            format!(
                "{}/{}",
                group_fixed(worst_p99, 1_000, 1),
                group_fixed(worst, 1_000, 1)
            )
        } else {
            "-".to_string()
        };
        let name: String = name.chars().take(name_w).collect();
        let _ = writeln!(
            out,
            "{:<name_w$} {:>6} {:>14} {:>14} {:>21} {:>8} {:>22}",
            name,
            ts.len(),
            group_fixed(sum(|t| t.cpu_time_ns), 1_000_000, 2),
            group_fixed(sum(|t| t.wait_time_ns), 1_000_000, 2),
            format!(
                "{}/{}",
                group(sum(|t| t.nr_voluntary_switches)),
                group(sum(|t| t.nr_involuntary_switches))
            ),
            group(sum(|t| t.nr_migrations)),
            lat
        );
    }
    let _ = writeln!(
        out,
        "  ({} tasks in {} groups by name; --per-cpu prints every task and CPU)\n",
        r.tasks.len(),
        groups.len()
    );
}

pub(super) fn cpus(out: &mut String, r: &RunResult) {
    let _ = writeln!(
        out,
        "{:>7} {:>6} {:>22} {:>14} {:>12}",
        "PACKAGE", "CPUS", "BUSY % mean/min/max", "SWITCHES", "ENERGY mJ"
    );
    let mut packages: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, c) in r.cpus.iter().enumerate() {
        packages.entry(c.package).or_default().push(i);
    }
    let busy_pct = |i: usize| {
        let c = &r.cpus[i];
        let total = c.busy_ns + c.idle_ns;
        if total == 0 {
            0.0
        } else {
            c.busy_ns as f64 * 100.0 / total as f64
        }
    };
    for (pkg, ids) in &packages {
        let pcts: Vec<f64> = ids.iter().map(|&i| busy_pct(i)).collect();
        let mean = pcts.iter().sum::<f64>() / pcts.len() as f64;
        let min = pcts.iter().copied().fold(f64::INFINITY, f64::min);
        let max = pcts.iter().copied().fold(0.0, f64::max);
        let switches: u64 = ids.iter().map(|&i| r.cpus[i].nr_switches).sum();
        let energy: f64 = ids.iter().map(|&i| r.cpus[i].energy_mj).sum();
        let _ = writeln!(
            out,
            "{:>7} {:>6} {:>22} {:>14} {:>12.3}",
            pkg,
            ids.len(),
            format!("{mean:.2}/{min:.2}/{max:.2}"),
            group(switches),
            energy
        );
    }
    let mut order: Vec<usize> = (0..r.cpus.len()).collect();
    order.sort_by(|&a, &b| busy_pct(b).total_cmp(&busy_pct(a)).then(a.cmp(&b)));
    let show = |ids: &[usize]| -> String {
        ids.iter()
            .map(|&i| format!("{} ({:.1}%)", r.cpus[i].cpu, busy_pct(i)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let k = order.len().min(4);
    let _ = writeln!(out, "  busiest CPUs: {}", show(&order[..k]));
    let idlest: Vec<usize> = order.iter().rev().take(k).copied().collect();
    let _ = writeln!(out, "  idlest CPUs:  {}\n", show(&idlest));
}

#[cfg(test)]
mod tests {
    use super::name_group;

    #[test]
    fn instance_numbers_are_dropped() {
        assert_eq!(name_group("hog-12"), "hog-*");
        assert_eq!(name_group("hackbench-sender-3"), "hackbench-sender-*");
        assert_eq!(name_group("kworker/3:1"), "kworker/*:*");
        assert_eq!(name_group("main"), "main");
    }
}
