//! `interval = "100ms"` / `-I 100ms`: perf stat's counters per interval of simulated time,
//! as `perf stat -I` prints them (docs/results.md, intervals), to see when a run's rates
//! settle. Sampling only reads the model's state, so a run with intervals is the same run.

use crate::simulation::Simulation;
use crate::time::Ns;
use serde::Serialize;

/// One interval's counts, over (`end_ns` − the interval, `end_ns`]; the last row ends
/// with the run and may be shorter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntervalRow {
    pub end_ns: Ns,
    pub context_switches: u64,
    pub cpu_migrations: u64,
    pub task_clock_ns: u64,
    pub cpus_utilized: f64,
    /// The workloads' own counters summed (hackbench: messages received).
    pub workload_counters: u64,
}

/// Running totals at one instant.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    at: Ns,
    switches: u64,
    migrations: u64,
    task_clock: u64,
    counters: u64,
}

/// perf stat's context-switch and migration counts over every task so far.
pub(crate) fn perf_counts(s: &crate::sched::Sched) -> (u64, u64) {
    let switches = s.tasks.iter().map(|t| t.stats.perf_switches).sum();
    let migrations = s.tasks.iter().map(|t| t.stats.perf_migrations).sum();
    (switches, migrations)
}

/// perf's "CPUs utilized": task clock over elapsed time (0 over no time).
pub(crate) fn cpus_utilized(task_clock_ns: u64, span_ns: Ns) -> f64 {
    if span_ns == 0 {
        0.0
    } else {
        task_clock_ns as f64 / span_ns as f64
    }
}

impl Totals {
    /// The totals at `at`, no event being due before it: a running task's CPU time up to
    /// `at` is read from its entity's last charge (`exec_start`), not charged, since an
    /// extra update_curr would change the run's rounding.
    fn read(sim: &Simulation, at: Ns) -> Totals {
        let s = &sim.sched;
        let mut task_clock: u64 = s
            .tasks
            .iter()
            .map(|t| s.entities[t.se as usize].sum_exec_runtime)
            .sum();
        for rq in &s.rqs {
            if let Some(p) = rq.curr {
                let e = &s.entities[s.tasks[p].se as usize];
                task_clock += at.saturating_sub(e.exec_start);
            }
        }
        let (switches, migrations) = perf_counts(s);
        Totals {
            at,
            switches,
            migrations,
            task_clock,
            counters: sim.probes().counters.iter().sum(),
        }
    }

    fn row_since(&self, before: &Totals) -> IntervalRow {
        let span = self.at - before.at;
        let task_clock_ns = self.task_clock.saturating_sub(before.task_clock);
        IntervalRow {
            end_ns: self.at,
            context_switches: self.switches - before.switches,
            cpu_migrations: self.migrations - before.migrations,
            task_clock_ns,
            cpus_utilized: cpus_utilized(task_clock_ns, span),
            workload_counters: self.counters - before.counters,
        }
    }
}

/// Collects the rows of one run.
pub struct IntervalRecorder {
    interval: Ns,
    last: Totals,
    rows: Vec<IntervalRow>,
}

impl IntervalRecorder {
    /// Start at the simulation's present instant.
    pub fn new(sim: &Simulation, interval: Ns) -> IntervalRecorder {
        IntervalRecorder {
            interval,
            last: Totals::read(sim, sim.sched.now),
            rows: Vec::new(),
        }
    }

    /// The next interval's end.
    pub fn next_at(&self) -> Ns {
        self.last.at.saturating_add(self.interval)
    }

    /// Close the interval ending at `at`, every event up to `at` processed.
    pub fn sample(&mut self, sim: &Simulation, at: Ns) {
        let now = Totals::read(sim, at);
        self.rows.push(now.row_since(&self.last));
        self.last = now;
    }

    /// The rows, the last one closed at the end of the finished run (its accounting
    /// settled, so the rows add up to the run's perf counters).
    pub fn finish(mut self, sim: &Simulation) -> Vec<IntervalRow> {
        let end = sim.sched.now;
        if end > self.last.at || self.rows.is_empty() {
            self.sample(sim, end);
        }
        self.rows
    }
}

/// The run's middle half of work: the intervals after the one in which the workloads'
/// counters reach a quarter of their total, up to the one in which they reach three
/// quarters. It leaves out the start-up and the stragglers' tail, whose share of a run
/// shrinks as the run grows, so its rates compare runs of different lengths (a
/// hackbench of 1/15 of the messages with one of the full size; docs/results.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MiddleHalf {
    pub from_ns: Ns,
    pub to_ns: Ns,
    pub workload_counters: u64,
    pub context_switches: u64,
    pub cpu_migrations: u64,
    pub task_clock_ns: u64,
    pub cpus_utilized: f64,
    pub ns_per_counter: f64,
    pub switches_per_counter: f64,
    pub migrations_per_counter: f64,
}

impl MiddleHalf {
    /// `None` without counters, or when one interval holds the whole middle half (the
    /// interval is too long for the run).
    pub fn of(rows: &[IntervalRow]) -> Option<MiddleHalf> {
        let total: u64 = rows.iter().map(|r| r.workload_counters).sum();
        let mut done = 0u64;
        let (mut first, mut last) = (None, None);
        for (i, r) in rows.iter().enumerate() {
            done += r.workload_counters;
            if first.is_none() && 4 * done >= total {
                first = Some(i);
            }
            if 4 * done >= 3 * total {
                last = Some(i);
                break;
            }
        }
        let (first, last) = (first?, last?);
        if total == 0 || last <= first {
            return None;
        }
        let window = &rows[first + 1..=last];
        let sum = |f: fn(&IntervalRow) -> u64| -> u64 { window.iter().map(f).sum() };
        let (from_ns, to_ns) = (rows[first].end_ns, rows[last].end_ns);
        let counters = sum(|r| r.workload_counters);
        let (switches, migrations) = (sum(|r| r.context_switches), sum(|r| r.cpu_migrations));
        let task_clock_ns = sum(|r| r.task_clock_ns);
        let per = |n: u64| n as f64 / counters as f64;
        Some(MiddleHalf {
            from_ns,
            to_ns,
            workload_counters: counters,
            context_switches: switches,
            cpu_migrations: migrations,
            task_clock_ns,
            cpus_utilized: cpus_utilized(task_clock_ns, to_ns - from_ns),
            ns_per_counter: per(to_ns - from_ns),
            switches_per_counter: per(switches),
            migrations_per_counter: per(migrations),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(end_ns: Ns, counters: u64) -> IntervalRow {
        IntervalRow {
            end_ns,
            context_switches: 10 * counters,
            cpu_migrations: counters,
            task_clock_ns: 2 * 100,
            cpus_utilized: 2.0,
            workload_counters: counters,
        }
    }

    /// Counters 10, 20, 40, 20, 10 (of 100): a quarter is reached in the second
    /// interval, three quarters in the fourth, so the middle half is the third and fourth.
    #[test]
    fn the_middle_half_runs_from_a_quarter_to_three_quarters_of_the_work() {
        let rows: Vec<_> = [10, 20, 40, 20, 10]
            .iter()
            .enumerate()
            .map(|(i, &c)| row(100 * (i as u64 + 1), c))
            .collect();
        let m = MiddleHalf::of(&rows).unwrap();
        assert_eq!((m.from_ns, m.to_ns), (200, 400));
        assert_eq!(m.workload_counters, 60);
        assert_eq!((m.context_switches, m.cpu_migrations), (600, 60));
        assert_eq!(m.task_clock_ns, 400);
        assert_eq!(m.cpus_utilized, 2.0);
        assert_eq!(m.ns_per_counter, 200.0 / 60.0);
        assert_eq!(m.switches_per_counter, 10.0);
        assert_eq!(m.migrations_per_counter, 1.0);
    }

    #[test]
    fn no_middle_half_without_counters_or_when_one_interval_holds_it() {
        assert_eq!(MiddleHalf::of(&[row(100, 0), row(200, 0)]), None);
        assert_eq!(
            MiddleHalf::of(&[row(100, 1), row(200, 98), row(300, 1)]),
            None
        );
        assert_eq!(MiddleHalf::of(&[]), None);
    }
}
