//! spinner (seed 002's idle_process.c) and stress-ng --wait front ends.

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::workload::report::WorkloadSection;
use schedlab::workload::{build_workload_on, Op, Policy};
use std::path::Path;

fn run_cmds(machine: &str, secs: u64, cmds: &[&str]) -> RunResult {
    let sc = scenario(machine, secs);
    let mut wl = schedlab::workload::Compiled::default();
    for c in cmds {
        wl.merge(build_workload_on(c, Path::new("."), 8).unwrap());
    }
    let r = execute(&sc, prepare(&sc, wl).unwrap(), Some(256));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

#[test]
fn spinner_compiles_to_sleep_then_work_under_the_policy() {
    let w = build_workload_on(
        "spinner -n 3 --policy idle --sleep 500us --work 1ms",
        Path::new("."),
        8,
    )
    .unwrap();
    assert_eq!(w.workload.tasks.len(), 3);
    for t in &w.workload.tasks {
        assert_eq!(t.attrs.policy, Policy::Idle);
        assert_eq!(
            t.program,
            vec![
                Op::LoopBegin { count: None },
                Op::Sleep { ns: 500_000 },
                Op::Run { work_ns: 1_000_000 },
                Op::Count { counter: 0 },
                Op::LoopEnd,
            ]
        );
    }
}

#[test]
fn a_lone_spinner_loops_at_its_period() {
    let r = run_cmds("smp:1", 1, &["spinner -n 1 --sleep 500us --work 1ms"]);
    let WorkloadSection::Spinner(s) = &r.workloads[0] else {
        panic!()
    };
    // 1 s / 1.5 ms ≈ 666 rounds, a little fewer for wake-up costs.
    assert!((600..=667).contains(&s.loops), "{}", s.loops);
}

#[test]
fn idle_spinners_leave_room_for_a_normal_task() {
    let r = run_cmds(
        "vm8",
        2,
        &[
            "spinner -n 200 --policy idle --sleep 500us --work 1ms",
            "spinner -n 1 --sleep 10ms --work 1ms",
        ],
    );
    let normal = r.tasks.iter().find(|t| t.policy == "SCHED_OTHER").unwrap();
    // A SCHED_OTHER task among SCHED_IDLE ones waits little (weight 1024 vs 3).
    assert!(
        normal.wakeup_latency_ns.p50 < 2_000_000,
        "{:?}",
        normal.wakeup_latency_ns
    );
    let WorkloadSection::Spinner(idle) = &r.workloads[0] else {
        panic!()
    };
    assert!(idle.cpu_time_ns > 10_000_000_000, "{}", idle.cpu_time_ns);
}

#[test]
fn stress_ng_wait_counts_bogo_ops() {
    let r = run_cmds("smp:4", 1, &["stress-ng --wait 2 --metrics-brief"]);
    assert_eq!(r.tasks.len(), 6, "runner, killer and parent per instance");
    let WorkloadSection::StressNg(s) = &r.workloads[0] else {
        panic!()
    };
    assert!(s.bogo_ops > 1000, "{}", s.bogo_ops);
    assert!(
        s.output.contains("dispatching hogs: 2 wait"),
        "{}",
        s.output
    );
    assert!(s.output.contains("stress-ng: metrc:"), "{}", s.output);
    // --wait 0: one instance per CPU.
    let w = build_workload_on("stress-ng --wait 0 -t 5s", Path::new("."), 8).unwrap();
    assert_eq!(w.workload.tasks.len(), 24);
    assert_eq!(w.workload.duration_ns, Some(5_000_000_000));
    // Each instance's semaphores and counter are its own: the eight instances' parents,
    // runners and killers run three programs, also after another workload's objects.
    let mut both = schedlab::workload::Compiled::default();
    both.merge(build_workload_on("hackbench -g 1 -f 2 -l 1", Path::new("."), 8).unwrap());
    both.merge(w);
    let sc = scenario("smp:8", 1);
    assert_eq!(prepare(&sc, both).unwrap().program_copies(), 3 + 3);
}

#[test]
fn stress_ng_taskset_keeps_every_stressor_on_its_cpus() {
    let r = run_cmds("smp:4", 1, &["stress-ng --wait 2 --taskset 2-3"]);
    assert_eq!(r.tasks.len(), 6);
    for c in &r.cpus {
        if c.cpu < 2 {
            assert_eq!(c.busy_ns, 0, "CPU {} is outside --taskset", c.cpu);
        } else {
            assert!(c.busy_ns > 0, "CPU {} is in --taskset", c.cpu);
        }
    }
}

#[test]
fn profile_shares_are_of_all_time_and_of_busy_time() {
    let r = run_cmds("smp:4", 1, &["stress-ng --wait 1"]);
    let all = 4.0 * r.sim.time_ns as f64;
    let busy: u64 = r.cpus.iter().map(|c| c.busy_ns).sum();
    assert!(
        busy > 0 && (busy as f64) < all,
        "one instance leaves CPUs idle"
    );
    let round4 = |x: f64| (x * 1e4).round() / 1e4;
    let mut seen = 0;
    for e in r.sched_profile.iter().filter(|e| e.ns > 0) {
        assert_eq!(e.pct, round4(e.ns as f64 / all * 100.0), "{}", e.function);
        assert_eq!(
            e.busy_pct,
            round4(e.ns as f64 / busy as f64 * 100.0),
            "{}",
            e.function
        );
        seen += 1;
    }
    assert!(seen > 0, "a wake-up heavy load books scheduler time");
}

#[test]
fn bad_options_are_named() {
    let err = |c: &str| {
        build_workload_on(c, Path::new("."), 8)
            .unwrap_err()
            .to_string()
    };
    let e = err("spinner --sleep 5parsecs");
    assert!(e.contains("--sleep") && e.contains("parsecs"), "{e}");
    let e = err("spinner --cpus 9");
    assert!(e.contains("--cpus") && e.contains("CPU 9"), "{e}");
    let e = err("stress-ng");
    assert!(e.contains("--wait N"), "{e}");
    let e = err("stress-ng --wait 1 --taskset 8");
    assert!(e.contains("--taskset") && e.contains("CPU 8"), "{e}");
    let e = err("stress-ng --wait 1 --wait-ops 10");
    assert!(
        e.contains("--wait-ops") && e.contains("not modelled"),
        "{e}"
    );
}

#[test]
fn spinner_takes_realtime_and_deadline_policies() {
    use schedlab::sched::DlParams;
    let build = |c: &str| build_workload_on(c, Path::new("."), 4).unwrap().workload;
    let w = build("spinner -n 2 --policy fifo --priority 30 --sleep 1ms --work 1ms");
    for t in &w.tasks {
        assert_eq!((t.attrs.policy, t.attrs.rt_priority), (Policy::Fifo, 30));
    }
    let w = build("spinner --policy SCHED_RR --priority 1 --sleep 1ms --work 1ms");
    assert_eq!(
        (w.tasks[0].attrs.policy, w.tasks[0].attrs.rt_priority),
        (Policy::Rr, 1)
    );
    let w =
        build("spinner --policy deadline --dl-runtime 2ms --dl-period 10ms --sleep 1ms --work 1ms");
    assert_eq!(w.tasks[0].attrs.policy, Policy::Deadline);
    assert_eq!(
        w.tasks[0].attrs.dl,
        Some(DlParams {
            runtime: 2_000_000,
            deadline: 10_000_000,
            period: 10_000_000
        })
    );
    let w = build("spinner --policy deadline --dl-runtime 2000 --dl-deadline 5ms --dl-period 10ms");
    assert_eq!(w.tasks[0].attrs.dl.unwrap().deadline, 5_000_000);
    // A FIFO spinner beside an idle one: the FIFO one is never kept waiting long.
    let r = run_cmds(
        "smp:1",
        1,
        &[
            "spinner --policy idle --sleep 100us --work 5ms",
            "spinner --policy fifo --priority 10 --sleep 2ms --work 500us",
        ],
    );
    let fifo = r.tasks.iter().find(|t| t.policy == "SCHED_FIFO").unwrap();
    assert_eq!(fifo.rt_priority, Some(10));
    // Never behind the idle spinner's 5 ms runs: only the switch and an idle CPU's
    // exit latency separate wake-up and run.
    let l = fifo.wakeup_latency_ns;
    assert!(l.p90 <= 20_000 && l.max <= 200_000, "{l:?}");
}

#[test]
fn bad_policy_options_are_named() {
    let err = |c: &str| {
        build_workload_on(c, Path::new("."), 8)
            .unwrap_err()
            .to_string()
    };
    for (cmd, want) in [
        ("spinner --policy fifo", "SCHED_FIFO needs --priority"),
        (
            "spinner --policy fifo --priority 0",
            "priority 0 is not a real-time priority",
        ),
        (
            "spinner --policy rr --priority 100",
            "SCHED_RR takes 1 to 99",
        ),
        ("spinner --policy rr --priority x", "'x' is not an integer"),
        ("spinner --priority 5", "not of SCHED_OTHER"),
        (
            "spinner --policy idle --dl-runtime 1ms",
            "--dl-runtime is a SCHED_DEADLINE parameter",
        ),
        (
            "spinner --policy deadline --dl-period 1ms",
            "SCHED_DEADLINE needs --dl-runtime",
        ),
        (
            "spinner --policy deadline --dl-runtime 1ms",
            "SCHED_DEADLINE needs --dl-period",
        ),
        (
            "spinner --policy deadline --dl-runtime 2ms --dl-deadline 1ms --dl-period 10ms",
            "runtime 2000 µs exceeds its deadline 1000 µs",
        ),
        (
            "spinner --policy deadline --dl-runtime 1ms --dl-period 5s",
            "outside the kernel's 100 µs to 4194304 µs",
        ),
        ("spinner --policy iso", "unknown policy 'iso'"),
    ] {
        let e = err(cmd);
        assert!(e.contains(want), "{cmd}: {e}");
    }
}

/// `after DURATION ...`: every task of the workload starts that much later and a declared
/// length ends that much later; a missing or bad duration is refused, naming the fix.
#[test]
fn after_delays_a_workloads_start_and_end() {
    let plain = build_workload_on("schbench-2021 -m 1 -t 2 -r 5 -R 10", Path::new("."), 8).unwrap();
    let later = build_workload_on(
        "after 3s schbench-2021 -m 1 -t 2 -r 5 -R 10",
        Path::new("."),
        8,
    )
    .unwrap();
    assert_eq!(plain.workload.tasks.len(), later.workload.tasks.len());
    for (a, b) in plain.workload.tasks.iter().zip(&later.workload.tasks) {
        assert_eq!(b.delay_ns, a.delay_ns + 3 * schedlab::time::NSEC_PER_SEC);
        assert_eq!(a.program, b.program);
    }
    assert_eq!(
        later.workload.duration_ns,
        Some(8 * schedlab::time::NSEC_PER_SEC)
    );
    // The message after the origin (which quotes the whole spec) names the problem.
    for (bad, says) in [
        ("after 3s", "needs a duration and a workload"),
        ("after", "needs a duration and a workload"),
        ("after soon spinner -n 1", "'after soon'"),
        ("after '3s' spinner -n 1", "a quoted duration"),
    ] {
        let e = build_workload_on(bad, Path::new("."), 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// `--launcher`: one SCHED_OTHER process forks the spinners one after another (60 µs of
/// its CPU each, smp's process_create_ns), each child starting as its parent's policy and
/// switching itself to SCHED_IDLE first; the spinners are still tasks 0..n, so the
/// workload's sums are theirs, and the launcher is task n.
#[test]
fn launched_spinners_are_forked_one_by_one_and_switch_to_their_policy() {
    let cmd = "spinner -n 4 --policy idle --sleep 500us --work 1ms --launcher";
    let w = build_workload_on(cmd, Path::new("."), 2).unwrap();
    let tasks = &w.workload.tasks;
    assert_eq!(tasks.len(), 5);
    assert_eq!(tasks[4].attrs.comm, "spinner-launch");
    assert_eq!(tasks[4].attrs.policy, Policy::Normal);
    for t in &tasks[..4] {
        assert_eq!(t.created_by, Some(4));
        assert_eq!(t.attrs.policy, Policy::Normal);
        assert!(matches!(&t.program[0], Op::SetSched(c) if c.policy == Some(Policy::Idle)));
    }
    let creates: Vec<usize> = tasks[4]
        .program
        .iter()
        .filter_map(|op| match op {
            Op::Create { task } => Some(*task),
            _ => None,
        })
        .collect();
    assert_eq!(creates, vec![0, 1, 2, 3]);
    let r = run_cmds("smp:2", 1, &[cmd]);
    assert_eq!(r.tasks.len(), 5);
    for t in &r.tasks[..4] {
        assert_eq!(t.policy, "SCHED_IDLE");
    }
    let WorkloadSection::Spinner(s) = &r.workloads[0] else {
        panic!()
    };
    let spinners: u64 = r.tasks[..4].iter().map(|t| t.cpu_time_ns).sum();
    assert_eq!(s.cpu_time_ns, spinners);
    assert!(s.loops > 0);
    let Err(err) = build_workload_on("spinner -n 2 --launcher --spread 1ms", Path::new("."), 2)
    else {
        panic!("--launcher with --spread was accepted");
    };
    assert!(err.to_string().contains("--spread/--launcher"), "{err}");
}
