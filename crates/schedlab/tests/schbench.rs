//! schbench front end (docs/workloads.md, schbench): where latencies are measured, how they react
//! to competition, and the exact printout.

mod common;

use common::*;
use schedlab::experiment::run::{execute, execute_in_place, prepare, prepare_on};
use schedlab::experiment::RunResult;
use schedlab::machine::presets::machine_from_name;
use schedlab::machine::Costs;
use schedlab::workload::report::WorkloadSection;
use schedlab::workload::schbench::SchbenchResult;
use schedlab::workload::{build_workload_on, Compiled, Workload};
use std::path::Path;

fn build(cmd: &str, nr_cpus: usize) -> Compiled {
    build_workload_on(cmd, Path::new("."), nr_cpus).unwrap()
}

fn section(r: &RunResult) -> &SchbenchResult {
    match &r.workloads[0] {
        WorkloadSection::Schbench(s) => s,
        other => panic!("not schbench: {other:?}"),
    }
}

fn zero_costs() -> Costs {
    Costs {
        context_switch_ns: 0,
        context_switch_cold_ns: 0,
        idle_exit_ns: 0,
        wakeup_ipi_ns: 0,
        ipi_send_ns: 0,
        pipe_bounce_ns: 0,
        socket_bounce_ns: 0,
        smt_busy_speed_pct: 100,
        migrate_llc_ns: 0,
        migrate_cross_llc_ns: 0,
        migrate_cross_numa_ns: 0,
        sched_wakeup_ns: 0,
        sched_idle_scan_per_cpu_ns: 0,
        sched_lb_per_cpu_ns: 0,
        cacheline_llc_ns: 0,
        cacheline_cross_llc_ns: 0,
        cacheline_cross_numa_ns: 0,
        // The workload is built with the default per-operation costs.
        ..Costs::default()
    }
}

/// Raw wakeup-latency samples (ns) of a run on smp:2 with zero hardware costs, plus
/// `hogs` competing CPU hogs.
fn wakeup_samples_ns(cmd: &str, hogs: usize) -> Vec<u64> {
    let sc = schedlab::experiment::Scenario::default();
    let mut machine = machine_from_name("smp:2").unwrap();
    machine.costs = zero_costs();
    let mut wl = build(cmd, 2);
    let extra = Workload {
        // Pinned with the worker: the test is about wake-up latency, not balancing.
        tasks: (0..hogs)
            .map(|i| hog(&format!("hog{i}"), 0, Some(vec![0])))
            .collect(),
        ..Workload::default()
    };
    wl.merge(extra);
    let mut sim = prepare_on(&sc, machine, wl).unwrap();
    sim.set_invariant_every(64);
    sim.run();
    assert_eq!(sim.sched.invariant_violations, 0);
    sim.probes().logs[0].iter().map(|s| s.value).collect()
}

#[test]
fn wakeup_latency_is_zero_on_an_idle_cpu_with_free_wakeups() {
    let v = wakeup_samples_ns("schbench -m 1 -t 1 -r 3 -L -M 1 -W 0", 0);
    assert!(v.len() > 100, "{} wake-ups", v.len());
    assert!(v.iter().all(|&ns| ns == 0), "max {:?}", v.iter().max());
}

#[test]
fn wakeup_latency_grows_with_competing_hogs() {
    let idle = wakeup_samples_ns("schbench -m 1 -t 1 -r 3 -L -M 1 -W 0", 0);
    let busy = wakeup_samples_ns("schbench -m 1 -t 1 -r 3 -L -M 1 -W 0", 4);
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    assert!(!busy.is_empty());
    assert!(
        mean(&busy) > 100_000.0,
        "mean {} ns with 4 hogs",
        mean(&busy)
    );
    assert!(mean(&busy) > mean(&idle) + 100_000.0);
}

fn run_cmd(machine: &str, cmd: &str) -> RunResult {
    // No time limit of our own: schbench's -r is the run length.
    let sc = schedlab::experiment::Scenario {
        machine: machine.into(),
        ..Default::default()
    };
    let n = machine_from_name(machine).unwrap().nr_cpus();
    let r = execute(&sc, prepare(&sc, build(cmd, n)).unwrap(), None);
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

#[test]
fn printout_parses_with_the_real_tools_format() {
    // No -t: one worker per CPU, announced as the tool does.
    let r = run_cmd("smp:4", "schbench -m 1 -r 5");
    let s = section(&r);
    assert_eq!(r.sim.time_ns, 5_000_000_000, "-r sets the run length");
    let header = regex::Regex::new(
        r"^(Wakeup Latencies|Request Latencies|RPS) percentiles \((usec|requests)\) runtime (\d+) \(s\) \((\d+) total samples\)$",
    )
    .unwrap();
    let row = regex::Regex::new(r"^\t(\* |  )(\d+\.\d)th: (\d+) +\((\d+) samples\)$").unwrap();
    let minmax = regex::Regex::new(r"^\t  min=(\d+), max=(\d+)$").unwrap();
    let lines: Vec<&str> = s.output.lines().collect();
    assert_eq!(lines[0], "setting worker threads to 4");
    let mut blocks = Vec::new();
    let mut i = 1;
    while i < lines.len() && header.is_match(lines[i]) {
        let c = header.captures(lines[i]).unwrap();
        assert_eq!(&c[3], "5");
        let total: u64 = c[4].parse().unwrap();
        let mut pcts = Vec::new();
        let mut sum = 0;
        i += 1;
        while let Some(rc) = row.captures(lines[i]) {
            pcts.push((rc[1].to_string(), rc[2].to_string()));
            sum += rc[4].parse::<u64>().unwrap();
            // The value column is left-aligned in 10 characters.
            assert_eq!(
                lines[i]
                    .split(" (")
                    .next()
                    .unwrap()
                    .split(": ")
                    .nth(1)
                    .unwrap()
                    .len(),
                10
            );
            i += 1;
        }
        assert!(sum <= total);
        assert!(minmax.is_match(lines[i]), "{}", lines[i]);
        i += 1;
        blocks.push((c[1].to_string(), pcts));
    }
    let names: Vec<&str> = blocks.iter().map(|b| b.0.as_str()).collect();
    assert_eq!(names, ["Wakeup Latencies", "Request Latencies", "RPS"]);
    let lat: Vec<(String, String)> = ["  50.0", "  90.0", "* 99.0", "  99.9"]
        .iter()
        .map(|x| (x[..2].to_string(), x[2..].to_string()))
        .collect();
    assert_eq!(blocks[0].1, lat);
    assert_eq!(blocks[1].1, lat);
    let rps: Vec<(String, String)> = ["  20.0", "* 50.0", "  90.0"]
        .iter()
        .map(|x| (x[..2].to_string(), x[2..].to_string()))
        .collect();
    assert_eq!(blocks[2].1, rps);
    assert!(regex::Regex::new(r"^average rps: \d+\.\d\d$")
        .unwrap()
        .is_match(lines[i]));
    assert!(
        regex::Regex::new(r"^sched delay: message \d+ \(usec\) worker \d+ \(usec\)$")
            .unwrap()
            .is_match(lines[i + 1])
    );
    assert_eq!(lines.len(), i + 2);
    // Request latency covers ≈2.59 ms of math (-F 256 -n 5: 5 × 104³ multiply-adds at
    // the default machine's 460 ps).
    assert!(
        s.request_latency_us.min >= 2_587,
        "{}",
        s.request_latency_us.min
    );
    assert!(s.requests > 0 && s.average_rps > 0.0);
}

#[test]
fn rps_mode_hands_out_the_requested_rate() {
    let r = run_cmd("smp:8", "schbench -m 1 -t 10 -r 4 -R 200");
    let s = section(&r);
    // 200 requests at t = 0, 1, 2, 3 s, each done within the second.
    assert_eq!(s.requests, 800);
    assert_eq!(s.average_rps, 200.0);
    assert_eq!(s.rps.max, 200);
    // Bursts of 20 per worker: each worker waits once per second.
    assert!(s.wakeup_latency_us.total_samples + s.wakeup_zero_us_dropped <= 40);
}

#[test]
fn bad_options_name_the_option_and_the_fix() {
    let err = |cmd: &str| {
        build_workload_on(cmd, Path::new("."), 4)
            .unwrap_err()
            .to_string()
    };
    let e = err("schbench -m 0");
    assert!(
        e.contains("-m/--message-threads") && e.contains("write e.g."),
        "{e}"
    );
    let e = err("schbench -A 50");
    assert!(
        e.contains("-A/--auto-rps") && e.contains("not modelled"),
        "{e}"
    );
    let e = err("schbench -W 0-9");
    assert!(
        e.contains("-W/--worker-cpus") && e.contains("CPU 4 does not exist"),
        "{e}"
    );
    let e = err("schbench extra");
    assert!(e.contains("unexpected argument 'extra'"), "{e}");
}

#[test]
fn same_seed_same_printout() {
    let a = run_cmd("smp:4", "schbench -m 2 -t 3 -r 2");
    let b = run_cmd("smp:4", "schbench -m 2 -t 3 -r 2");
    assert_eq!(section(&a).output, section(&b).output);
}

#[test]
fn failed_spin_retries_taken_in_one_step_change_nothing() {
    // Workers spin on per-CPU locks (retries every 2 µs) behind preempted holders; the
    // run loop takes runs of failed retries at once, which must give the same result,
    // event count included, as running every retry.
    let cmd = "schbench -m 2 -t 8 -r 1";
    let sc = scenario("vm8", 1);
    let json = |batch: bool| {
        let mut sim = prepare(&sc, build(cmd, 8)).unwrap();
        sim.batch_failed_spins = batch;
        let r = execute_in_place(&sc, &mut sim, Some(1));
        assert_eq!(sim.failed_spins_batched > 0, batch);
        let mut v = serde_json::to_value(&r).unwrap();
        v["sim"]["wall_s"] = serde_json::Value::Null;
        serde_json::to_string(&v).unwrap()
    };
    let (a, b) = (json(true), json(false));
    assert!(a.contains("\"invariant_violations\":0"));
    assert_eq!(a, b);
}
