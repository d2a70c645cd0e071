//! hackbench and perf bench sched messaging front ends (docs/workloads.md).

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::workload::hackbench::HackbenchResult;
use schedlab::workload::report::WorkloadSection;
use schedlab::workload::{build_workload_on, Compiled, Op};
use std::path::Path;

fn build(cmd: &str) -> Compiled {
    build_workload_on(cmd, Path::new("."), 2).unwrap()
}

fn run_cmd(machine: &str, cmd: &str) -> RunResult {
    let sc = scenario(machine, 60);
    let r = execute(&sc, prepare(&sc, build(cmd)).unwrap(), Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

fn section(r: &RunResult) -> &HackbenchResult {
    match &r.workloads[0] {
        WorkloadSection::Hackbench(h) | WorkloadSection::PerfBenchMessaging(h) => h,
        other => panic!("not hackbench: {other:?}"),
    }
}

/// The events by kind add up to the total, and a message is two work completions (the
/// sender's write and the receiver's read each end a busy period) plus the switch-ins
/// that wait for a switch's cost: the floor issue 17's speed work stands on.
#[test]
fn events_by_kind_add_up_and_a_message_costs_two_work_completions() {
    let r = run_cmd("smp:2", "hackbench -g 2 -f 4 --threads --pipe -l 30 -s 100");
    let kinds = &r.sim.events_by_kind;
    assert_eq!(kinds.values().sum::<u64>(), r.sim.events, "{kinds:?}");
    assert!(kinds.values().all(|&n| n > 0), "only kinds that occurred");
    let messages = section(&r).messages_received;
    let work_done = kinds["work_done"];
    let switches = r.perf.context_switches;
    assert!(work_done >= 2 * messages, "{work_done} < 2 x {messages}");
    // Beyond the messages: at most one per switch-in, and each task's start and exit.
    let tasks = r.tasks.len() as u64;
    assert!(
        work_done <= 2 * messages + switches + 4 * tasks,
        "{work_done} > 2 x {messages} + {switches} + 4 x {tasks}"
    );
    assert_eq!(kinds.get("task_start"), Some(&tasks), "{kinds:?}");
}

#[test]
fn every_receiver_gets_loops_times_fds_messages() {
    for cmd in [
        "hackbench -g 3 -f 5 --threads --pipe -l 40 -s 100",
        "hackbench -g 2 -f 4 -l 30",
        "hackbench -g 2 -f 3 --process --pipe -l 25 -s 5000",
    ] {
        let r = run_cmd("smp:2", cmd);
        let h = section(&r);
        assert!(h.finished, "{cmd}: main reaped every worker");
        assert_eq!(r.sim.stop_reason, "all_exited", "{cmd}");
        let per_receiver = u64::from(h.fds) * h.loops;
        assert_eq!(h.receiver_messages_min, per_receiver, "{cmd}");
        assert_eq!(h.receiver_messages_max, per_receiver, "{cmd}");
        let total = u64::from(h.groups) * u64::from(h.fds).pow(2) * h.loops;
        assert_eq!(h.messages_expected, total);
        assert_eq!(h.messages_received, total, "{cmd}");
        assert_eq!(r.tasks.len() as u64, h.tasks + 1, "workers plus main");
        assert!(r.tasks.iter().all(|t| t.exited));
    }
}

#[test]
fn header_matches_the_real_tool_on_smp2() {
    let r = run_cmd(
        "smp:2",
        "hackbench -g 4 -f 10 --threads --pipe -l 100 -s 100",
    );
    let out = &section(&r).output;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Running in threaded mode with 4 groups using 20 file descriptors each (== 80 tasks)"
    );
    assert_eq!(lines[1], "Each sender will pass 100 messages of 100 bytes");
    let re = regex::Regex::new(r"^Time: \d+\.\d{3}$").unwrap();
    assert!(re.is_match(lines[2]), "{}", lines[2]);
    assert_eq!(lines.len(), 3);
    // The printed time is GO → reaped, truncated to ms.
    let h = section(&r);
    let ns = h.time_ns.unwrap();
    assert_eq!(
        lines[2],
        format!("Time: {}.{:03}", ns / 1_000_000_000, ns / 1_000_000 % 1000)
    );
    // Defaults: process mode, 10 groups, 20 fds, 100 loops, 100 bytes.
    let w = build("hackbench");
    assert_eq!(w.workload.tasks.len(), 401);
}

#[test]
fn thread_and_process_modes_differ_only_where_the_tool_does() {
    let t = build("hackbench -g 2 -f 3 -T -p -l 10");
    let p = build("hackbench -g 2 -f 3 -P -p -l 10");
    assert_eq!(t.workload.tasks.len(), p.workload.tasks.len());
    // Workers run the same traffic; only the exit notification differs: a thread's exit
    // posts its join futex (pthread_join), a process writes a byte its parent's wait()
    // reads.
    for (a, b) in t.workload.tasks.iter().zip(&p.workload.tasks).skip(1) {
        let n = a.program.len();
        assert_eq!(b.program.len(), n + 1);
        // Same op sequence (object numbers differ: thread mode adds join futexes).
        for (x, y) in a.program.iter().zip(&b.program) {
            assert_eq!(std::mem::discriminant(x), std::mem::discriminant(y));
        }
        assert!(matches!(b.program[n], Op::Write { obj: 2, bytes: 1 }));
        assert!(a.exit_post.is_some() && b.exit_post.is_none());
        assert_eq!(a.attrs.comm, b.attrs.comm);
        assert!(
            a.delay_ns < b.delay_ns,
            "fork costs more than pthread_create"
        );
    }
    let rt = run_cmd("smp:2", "hackbench -g 2 -f 3 -T -p -l 10");
    let rp = run_cmd("smp:2", "hackbench -g 2 -f 3 -P -p -l 10");
    let (ht, hp) = (section(&rt), section(&rp));
    assert_eq!(ht.mode, "threaded");
    assert_eq!(hp.mode, "process");
    assert_eq!(ht.messages_received, hp.messages_received);
    assert_eq!(
        ht.output.lines().nth(1),
        hp.output.lines().nth(1),
        "same second line"
    );
    assert_eq!(
        ht.output
            .lines()
            .next()
            .unwrap()
            .replace("threaded", "process"),
        hp.output.lines().next().unwrap()
    );
    // A group's senders run one program (they write to the same receivers in the same
    // order), so the interpreter keeps one copy of it; each names its own join futex.
    let senders = &t.workload.tasks[4..7];
    assert!(senders.iter().all(|s| s.program == senders[0].program));
    let joins: Vec<_> = senders.iter().map(|s| s.exit_post).collect();
    assert_eq!(joins, [Some(6), Some(7), Some(8)]);
    // With their own channels and counters numbered from their first, every receiver
    // runs one program and every sender another: main's, a receiver's and a sender's.
    for cmd in [
        "hackbench -g 4 -f 5 -T -p -l 10",
        "hackbench -g 4 -f 5 -P -l 10",
    ] {
        let sc = scenario("smp:2", 1);
        let sim = prepare(&sc, build(cmd)).unwrap();
        assert_eq!(sim.program_copies(), 3, "{cmd}");
    }
    // The last of -T / -P wins, as getopt order makes it.
    let last = build("hackbench -T -P -g 1 -f 1 -l 1");
    assert!(
        matches!(&last.reports[0], schedlab::workload::report::ToolReport::Hackbench(r) if !r.params.threads)
    );
}

#[test]
fn perf_bench_messaging_prints_its_own_format() {
    let r = run_cmd("smp:2", "perf-bench-messaging -g 2 -l 10 -t -p");
    let h = section(&r);
    assert_eq!((h.fds, h.datasize), (20, 100), "fixed in perf's source");
    assert_eq!(h.messages_received, 2 * 400 * 10);
    let lines: Vec<&str> = h.output.lines().collect();
    assert_eq!(lines[0], "# Running 'sched/messaging' benchmark:");
    assert_eq!(lines[1], "# 20 sender and receiver threads per group");
    assert_eq!(lines[2], "# 2 groups == 80 threads run");
    assert_eq!(lines[3], "");
    let re = regex::Regex::new(r"^     Total time: \d+\.\d{3} \[sec\]$").unwrap();
    assert!(re.is_match(lines[4]), "{:?}", lines[4]);
    let p = build("perf-bench-messaging");
    assert_eq!(p.workload.tasks.len(), 401);
}

#[test]
fn bad_options_name_the_option_and_the_fix() {
    let err = |cmd: &str| {
        build_workload_on(cmd, Path::new("."), 2)
            .unwrap_err()
            .to_string()
    };
    let e = err("hackbench -g 0");
    assert!(e.contains("-g/--groups") && e.contains("write e.g."), "{e}");
    let e = err("hackbench --loops=abc");
    assert!(e.contains("-l/--loops") && e.contains("'abc'"), "{e}");
    let e = err("hackbench -x");
    assert!(
        e.contains("unknown option '-x'") && e.contains("-f/--fds"),
        "{e}"
    );
    let e = err("hackbench -s");
    assert!(e.contains("needs a value"), "{e}");
    let e = err("perf-bench-messaging -f 10");
    assert!(e.contains("unknown option '-f'"), "{e}");
}

#[test]
fn same_seed_same_result() {
    let cmd = "hackbench -g 2 -f 4 -l 20";
    let a = run_cmd("smp:4", cmd);
    let b = run_cmd("smp:4", cmd);
    let strip = |r: &RunResult| {
        let mut v = serde_json::to_value(r).unwrap();
        v["sim"]["wall_s"] = serde_json::Value::Null;
        v.to_string()
    };
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn fifo_makes_main_sched_fifo_at_priority_1_and_leaves_the_workers_fair() {
    use schedlab::workload::{Op, Policy, SchedChange};
    let c = build("hackbench -F -g 1 -f 2 -l 10 --pipe");
    let tasks = &c.workload.tasks;
    // rt-tests: main turns SCHED_FIFO (sched_priority 1) after creating the workers and
    // before it reads their ready bytes.
    let main = &tasks[0].program;
    assert!(matches!(main[0], Op::Run { .. }));
    assert_eq!(
        main[1],
        Op::SetSched(Box::new(SchedChange {
            policy: Some(Policy::Fifo),
            rt_priority: Some(1),
            ..SchedChange::default()
        }))
    );
    assert!(matches!(main[2], Op::LoopBegin { .. }));
    for t in &tasks[1..] {
        assert_eq!(t.attrs.policy, Policy::Normal);
        assert!(!t.program.iter().any(|op| matches!(op, Op::SetSched(_))));
    }
    // Without -F nothing changes.
    let plain = build("hackbench -g 1 -f 2 -l 10 --pipe");
    assert!(!plain.workload.tasks[0]
        .program
        .iter()
        .any(|op| matches!(op, Op::SetSched(_))));
    // It runs to the end, every message delivered, with main SCHED_FIFO at the end.
    let r = run_cmd("smp:2", "hackbench -F -g 2 -f 4 -l 20");
    assert_eq!(r.tasks[0].policy, "SCHED_FIFO");
    assert_eq!(r.tasks[0].rt_priority, Some(1));
    assert!(r.tasks[1..].iter().all(|t| t.policy == "SCHED_OTHER"));
    let h = section(&r);
    assert!(h.finished, "{h:?}");
    assert_eq!(h.receiver_messages_min, 4 * 20);
    assert_eq!(h.messages_received, h.messages_expected);
}

#[test]
fn creation_costs_are_the_machines() {
    // Worker i starts after i + 1 creations by main, each the machine's cost.
    let mut m = schedlab::machine_from_name("smp:2").unwrap();
    m.costs.thread_create_ns = 40_000;
    m.costs.process_create_ns = 90_000;
    for (cmd, each) in [
        ("hackbench -g 1 -f 2 -T -p -l 5", 40_000),
        ("hackbench -g 1 -f 2 -P -p -l 5", 90_000),
    ] {
        let w = schedlab::workload::build_workload_for(cmd, Path::new("."), &m, 0).unwrap();
        let delays: Vec<u64> = w.workload.tasks[1..].iter().map(|t| t.delay_ns).collect();
        let want: Vec<u64> = (1..=4).map(|i| i * each).collect();
        assert_eq!(delays, want, "{cmd}");
    }
    let w =
        schedlab::workload::build_workload_for("schbench -m 1 -t 3 -r 1", Path::new("."), &m, 0)
            .unwrap();
    let workers: Vec<u64> = w
        .workload
        .tasks
        .iter()
        .filter(|t| t.attrs.comm == "schbench-worker")
        .map(|t| t.delay_ns)
        .collect();
    assert_eq!(workers, [40_000, 80_000, 120_000]);
}
