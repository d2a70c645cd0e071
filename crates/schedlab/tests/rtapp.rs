//! rt-app JSON front end (docs/rtapp.md): exact IR for accepted
//! files, an error with file, JSON path and fix for each kind of bad input, and the
//! shipped examples run end to end.

mod common;
use common::*;
use proptest::prelude::*;
use schedlab::experiment::run::{execute, prepare, run_scenario};
use schedlab::time::NSEC_PER_SEC;
use schedlab::workload::program::TimerSpec;
use schedlab::workload::rtapp::parse_rtapp;
use schedlab::workload::{build_workload, Op, Policy, SchedChange, TaskSpec, TimerMode};
use schedlab::InputError;
use std::path::PathBuf;

const FILE: &str = "t.json";

fn parse(text: &str) -> schedlab::workload::Workload {
    parse_rtapp(text, FILE).unwrap_or_else(|e| panic!("should parse: {e}"))
}

fn parse_err(text: &str) -> InputError {
    match parse_rtapp(text, FILE) {
        Ok(w) => panic!("should fail, parsed {w:?}"),
        Err(e) => e,
    }
}

/// The error points at `path` inside t.json, says `needle`, and offers a fix.
fn assert_err(text: &str, path: &str, needle: &str) {
    let e = parse_err(text);
    assert_eq!(e.origin, format!("{FILE}: {path}"), "{e}");
    assert!(e.message.contains(needle), "'{needle}' not in: {e}");
    assert!(e.fix.is_some(), "no fix hint: {e}");
}

fn spec(comm: &str, program: Vec<Op>) -> TaskSpec {
    TaskSpec::new(comm, program)
}

fn forever(body: Vec<Op>) -> Vec<Op> {
    let mut v = vec![Op::LoopBegin { count: None }];
    v.extend(body);
    v.push(Op::LoopEnd);
    v
}

fn run_us(us: u64) -> Op {
    Op::Run { work_ns: us * US }
}

fn timer(timer: usize, period_us: u64, mode: TimerMode) -> Op {
    Op::Timer {
        timer,
        period_ns: period_us * US,
        mode,
    }
}

fn timers(names: &[&str]) -> Vec<TimerSpec> {
    names
        .iter()
        .map(|n| TimerSpec {
            name: n.to_string(),
        })
        .collect()
}

// ---- accepted files: exact IR -------------------------------------------------------

#[test]
fn defaults_minimal_task() {
    // No global, no loop: one thread named <task>-0 repeating its events forever.
    let w = parse(r#"{"tasks": {"t": {"run": 1000}}}"#);
    assert_eq!(w.tasks, vec![spec("t-0", forever(vec![run_us(1000)]))]);
    assert!(w.timers.is_empty());
    assert_eq!(w.duration_ns, None);
}

#[test]
fn global_duration_policy_and_no_op_keys() {
    let w = parse(
        r#"{"global": {"duration": 3, "default_policy": "SCHED_BATCH",
             "calibration": "CPU0", "logdir": "./", "log_basename": "x", "log_size": "file",
             "ftrace": "main,task", "gnuplot": false, "lock_pages": true,
             "cumulative_slack": false, "pi_enabled": false},
            "resources": {"m": {"type": "mutex"}},
            "tasks": {"t": {"delay": 500, "priority": -3, "cpus": [2, 0, 2], "sleep": 10}}}"#,
    );
    assert_eq!(w.duration_ns, Some(3 * NSEC_PER_SEC));
    let mut want = spec("t-0", forever(vec![Op::Sleep { ns: 10 * US }]));
    want.attrs.policy = Policy::Batch;
    want.attrs.nice = -3;
    want.attrs.cpus = Some(vec![0, 2]);
    want.delay_ns = 500 * US;
    assert_eq!(w.tasks, vec![want]);
    for d in ["-1", "0"] {
        let text = format!(r#"{{"global": {{"duration": {d}}}, "tasks": {{"t": {{"run": 1}}}}}}"#);
        assert_eq!(parse(&text).duration_ns, None, "duration {d}");
    }
}

#[test]
fn instances_are_numbered_across_the_file() {
    // rt-app names every thread <task>-<index>, the index counting threads over the
    // whole file; instance 0 creates no thread and takes no index.
    let w = parse(
        r#"{"tasks": {"b": {"instance": 2, "run": 1}, "a": {"run": 2},
                      "z": {"instance": 0, "run": 3}, "c": {"instance": 1, "run": 4}}}"#,
    );
    let comms: Vec<&str> = w.tasks.iter().map(|t| t.attrs.comm.as_str()).collect();
    assert_eq!(comms, ["b-0", "b-1", "a-2", "c-3"]);
    assert_eq!(w.tasks[1].program, forever(vec![run_us(1)]));
    assert_eq!(w.tasks[3].program, forever(vec![run_us(4)]));
}

#[test]
fn loop_counts() {
    let prog = |l: &str| {
        parse(&format!(
            r#"{{"tasks": {{"t": {{"loop": {l}, "run": 5}}}}}}"#
        ))
        .tasks[0]
            .program
            .clone()
    };
    assert_eq!(
        prog("7"),
        vec![Op::LoopBegin { count: Some(7) }, run_us(5), Op::LoopEnd]
    );
    assert_eq!(prog("1"), vec![run_us(5)], "a single pass needs no loop");
    assert_eq!(prog("-1"), forever(vec![run_us(5)]));
}

#[test]
fn events_follow_file_order_and_match_by_prefix() {
    // Sorted keys would give run0, run1, runtime1, sleep3, yield_x.
    let w = parse(
        r#"{"tasks": {"t": {"loop": 1, "sleep3": 30, "run1": 10, "yield_x": "",
                             "runtime1": 20, "run0": 5}}}"#,
    );
    assert_eq!(
        w.tasks[0].program,
        vec![
            Op::Sleep { ns: 30 * US },
            run_us(10),
            Op::Yield,
            Op::RunWall { ns: 20 * US },
            run_us(5),
        ]
    );
}

#[test]
fn phases_loop_and_change_attributes() {
    let w = parse(
        r#"{"global": {"default_policy": "SCHED_BATCH"},
            "tasks": {"t": {"priority": -5, "loop": 2, "phases": {
                "p1": {"loop": 3, "priority": 5, "run": 100},
                "p2": {"policy": "SCHED_IDLE", "sleep": 200},
                "p3": {"run": 50}}}}}"#,
    );
    let mut want = spec(
        "t-0",
        vec![
            Op::LoopBegin { count: Some(2) },
            Op::SetSched(Box::new(SchedChange {
                nice: Some(5),
                ..SchedChange::default()
            })),
            Op::LoopBegin { count: Some(3) },
            run_us(100),
            Op::LoopEnd,
            // A policy without a priority takes that policy's default nice, 0.
            Op::SetSched(Box::new(SchedChange {
                policy: Some(Policy::Idle),
                nice: Some(0),
                ..SchedChange::default()
            })),
            Op::Sleep { ns: 200 * US },
            // p3 sets nothing, so it keeps what p2 set.
            run_us(50),
            Op::LoopEnd,
        ],
    );
    want.attrs.policy = Policy::Batch;
    want.attrs.nice = -5;
    assert_eq!(w.tasks, vec![want]);
}

#[test]
fn phase_cpus_return_to_the_task_cpus() {
    // rt-app re-applies affinity at each phase: its own cpus, else the task's.
    let w = parse(
        r#"{"tasks": {"t": {"cpus": [0, 1], "phases": {
                "a": {"cpus": [1], "run": 1}, "b": {"run": 2}}}}}"#,
    );
    let cpus = |c: Vec<usize>| {
        Op::SetSched(Box::new(SchedChange {
            cpus: Some(c),
            ..SchedChange::default()
        }))
    };
    let mut want = spec(
        "t-0",
        forever(vec![cpus(vec![1]), run_us(1), cpus(vec![0, 1]), run_us(2)]),
    );
    want.attrs.cpus = Some(vec![0, 1]);
    assert_eq!(w.tasks, vec![want]);
}

#[test]
fn timers_shared_by_ref_and_unique_per_thread() {
    // "tick" is one timer for both tasks; one absolute use makes it absolute for all
    // (rt-app keeps the mode on the timer). "unique*" refs get one timer per thread.
    // The default mode is relative, as in rt-app.
    let w = parse(
        r#"{"tasks": {
            "a": {"run": 1, "timer": {"ref": "tick", "period": 1000}},
            "b": {"run": 2, "timer": {"ref": "tick", "period": 1000, "mode": "absolute"},
                  "timer1": {"ref": "slow", "period": 5000}},
            "u": {"instance": 2, "run": 3, "timer": {"ref": "unique", "period": 16000}}}}"#,
    );
    assert_eq!(
        w.timers,
        timers(&["tick", "slow", "unique@u-2", "unique@u-3"])
    );
    use TimerMode::*;
    assert_eq!(
        w.tasks[0].program,
        forever(vec![run_us(1), timer(0, 1000, Absolute)])
    );
    assert_eq!(
        w.tasks[1].program,
        forever(vec![
            run_us(2),
            timer(0, 1000, Absolute),
            timer(1, 5000, Relative)
        ])
    );
    assert_eq!(
        w.tasks[2].program,
        forever(vec![run_us(3), timer(2, 16000, Relative)])
    );
    assert_eq!(
        w.tasks[3].program,
        forever(vec![run_us(3), timer(3, 16000, Relative)])
    );
}

// ---- rejected files: where, what, how to fix ----------------------------------------

#[test]
fn malformed_json_points_at_line_and_column() {
    // A missing comma: the error points at the key that follows, line 3 column 24.
    let text = "{\n  \"tasks\": {\n    \"t\": { \"run\": 1000 \"sleep\": 5 }\n  }\n}";
    let e = parse_err(text);
    assert_eq!(e.origin, "t.json:3:24", "{e}");
    assert_eq!(e.message, "unexpected '\"', expected ',' or '}'");
    assert!(e.fix.is_some());
    let e = parse_err("{\"tasks\": ");
    assert_eq!(e.origin, "t.json:1:11", "{e}");
    assert!(e.message.contains("end of file"), "{e}");
    let e = parse_err("{\"tasks\": {\"t\": {\"run\": 1}}} x");
    assert_eq!(e.origin, "t.json:1:30", "{e}");
    let e = parse_err("{\n/* open comment\n \"tasks\": {}}");
    assert_eq!(e.origin, "t.json:2:1", "{e}");
    assert!(e.message.contains("unterminated /* comment"), "{e}");
}

#[test]
fn json_c_comments_and_trailing_commas_are_accepted() {
    // rt-app's json-c tokener is not strict, and its doc/examples rely on it.
    let w = parse("{ /* use case */\n \"tasks\": { // one task\n \"t\": { \"run\": 5, },\n },\n}");
    assert_eq!(w.tasks[0].program, forever(vec![run_us(5)]));
}

#[test]
fn repeated_event_keys_are_separate_events_other_repeats_are_errors() {
    // workgen renames repeated keys (run, run1, …): each stays an event, in order.
    let w = parse("{\"tasks\": {\"t\": {\"loop\": 1, \"run\": 1,\n \"sleep\": 2, \"run\": 3}}}");
    assert_eq!(
        w.tasks[0].program,
        vec![run_us(1), Op::Sleep { ns: 2 * US }, run_us(3)]
    );
    let e = parse_err("{\"tasks\": {\"t\": {\"loop\": 1,\n \"loop\": 2, \"run\": 1}}}");
    assert_eq!(e.origin, "t.json:2:2", "{e}");
    assert!(e.message.contains("duplicate key \"loop\""), "{e}");
    // A repeat with the same value (rt-app's spreading-tasks pastes a phase twice) is
    // kept once, as json-c keeps one value per key.
    let w = parse(
        r#"{"tasks": {"t": {"loop": 1, "phases": {"a": {"run": 1}, "b": {"run": 2}, "a": {"run": 1}}}}}"#,
    );
    assert_eq!(w.tasks[0].program, vec![run_us(1), run_us(2)]);
    let e = parse_err(r#"{"tasks": {"t": {"phases": {"a": {"run": 1}, "a": {"run": 2}}}}}"#);
    assert!(e.message.contains("duplicate key \"a\""), "{e}");
}

#[test]
fn unknown_keys_name_their_path() {
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "bogus": 2}}}"#,
        "tasks.t.bogus",
        "bogus",
    );
    assert_err(
        r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "delay": 2}}}}}"#,
        "tasks.t.phases.p.delay",
        "delay",
    );
    assert_err(
        r#"{"global": {"durration": 1}, "tasks": {"t": {"run": 1}}}"#,
        "global.durration",
        "durration",
    );
    assert_err(
        r#"{"task": {"t": {"run": 1}}, "tasks": {"t": {"run": 1}}}"#,
        "task",
        "task",
    );
    assert_err(
        r#"{"tasks": {"t": {"timer": {"ref": "a", "period": 1, "phase": 0}}}}"#,
        "tasks.t.timer.phase",
        "phase",
    );
}

#[test]
fn unsupported_rtapp_features_say_so() {
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "memrun0": {"type": "read", "size": 4096, "count": 1}}}}"#,
        "tasks.t.memrun0",
        "`memrun` is not supported",
    );
    assert_err(
        r#"{"tasks": {"t": {"phases": {"p": {"run": 1, "taskgroup": "/tg1"}}}}}"#,
        "tasks.t.phases.p.taskgroup",
        "per-phase taskgroup",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "nodes_membind": [0]}}}"#,
        "tasks.t.nodes_membind",
        "not modelled",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "util_min": 2000}}}"#,
        "tasks.t.util_min",
        "out of range",
    );
    assert_err(
        r#"{"global": {"io_device": "/dev/sda"}, "tasks": {"t": {"run": 1}}}"#,
        "global.io_device",
        "only /dev/null is modelled",
    );
    assert_err(
        r#"{"global": {"pi_enabled": true}, "tasks": {"t": {"run": 1}}}"#,
        "global.pi_enabled",
        "priority-inheritance mutexes are not modelled",
    );
    // Returning to "all CPUs" needs the machine, which the parser does not know.
    assert_err(
        r#"{"tasks": {"t": {"phases": {"a": {"cpus": [1], "run": 1}, "b": {"run": 2}}}}}"#,
        "tasks.t.phases",
        "not supported yet",
    );
}

#[test]
fn negative_and_wrongly_typed_values() {
    assert_err(
        r#"{"tasks": {"thread0": {"run0": -5}}}"#,
        "tasks.thread0.run0",
        "negative duration",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "delay": -1}}}"#,
        "tasks.t.delay",
        "negative",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "timer": {"ref": "x", "period": -16}}}}"#,
        "tasks.t.timer.period",
        "negative",
    );
    assert_err(
        r#"{"global": {"duration": -2}, "tasks": {"t": {"run": 1}}}"#,
        "global.duration",
        "negative",
    );
    assert_err(
        r#"{"tasks": {"t": {"instance": -1, "run": 1}}}"#,
        "tasks.t.instance",
        "negative",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": "1000"}}}"#,
        "tasks.t.run",
        "expected an integer, found a string",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1.5}}}"#,
        "tasks.t.run",
        "found a fractional number",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "cpus": [0, -1]}}}"#,
        "tasks.t.cpus[1]",
        "negative",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "cpus": 0}}}"#,
        "tasks.t.cpus",
        "expected an array",
    );
    assert_err(
        r#"{"global": {"gnuplot": "yes"}, "tasks": {"t": {"run": 1}}}"#,
        "global.gnuplot",
        "expected true or false",
    );
    assert_err(r#"{"tasks": []}"#, "tasks", "expected an object");
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "loop": 0}}}"#,
        "tasks.t.loop",
        "loop 0",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 9223372036854775807}}}"#,
        "tasks.t.run",
        "too large",
    );
    // Beyond i64 the JSON reader itself stops, so the error has a line and column.
    let e = parse_err(r#"{"tasks": {"t": {"run": 9223372036854775808}}}"#);
    assert_eq!(e.origin, "t.json:1:25", "{e}");
    assert!(e.message.contains("too large"), "{e}");
}

#[test]
fn priorities_outside_nice_range() {
    for p in [20, -21, 99] {
        assert_err(
            &format!(r#"{{"tasks": {{"t": {{"run": 1, "priority": {p}}}}}}}"#),
            "tasks.t.priority",
            "not a nice value",
        );
    }
    assert_err(
        r#"{"tasks": {"t": {"phases": {"p": {"priority": 19, "run": 1},
                                          "q": {"priority": 20, "run": 1}}}}}"#,
        "tasks.t.phases.q.priority",
        "not a nice value",
    );
}

#[test]
fn realtime_policies_take_a_sched_priority() {
    // priority is the sched_priority of SCHED_FIFO / SCHED_RR; without it rt-app's
    // DEFAULT_THREAD_PRIORITY, 10.
    let w = parse(
        r#"{"tasks": {"f": {"policy": "SCHED_FIFO", "priority": 50, "run": 1},
                      "r": {"policy": "SCHED_RR", "run": 1}}}"#,
    );
    assert_eq!(
        w.tasks[0],
        spec("f-0", forever(vec![run_us(1)])).rt(Policy::Fifo, 50)
    );
    assert_eq!(
        w.tasks[1],
        spec("r-1", forever(vec![run_us(1)])).rt(Policy::Rr, 10)
    );
    // default_policy applies to tasks without one.
    let w = parse(
        r#"{"global": {"default_policy": "SCHED_FIFO"}, "tasks": {"t": {"priority": 99, "run": 1}}}"#,
    );
    assert_eq!(
        w.tasks[0],
        spec("t-0", forever(vec![run_us(1)])).rt(Policy::Fifo, 99)
    );
}

#[test]
fn realtime_priorities_out_of_range_are_refused() {
    for (prio, policy) in [(0, "SCHED_FIFO"), (100, "SCHED_FIFO"), (-1, "SCHED_RR")] {
        assert_err(
            &format!(
                r#"{{"tasks": {{"t": {{"policy": "{policy}", "priority": {prio}, "run": 1}}}}}}"#
            ),
            "tasks.t.priority",
            &format!("priority {prio} is not a real-time priority ({policy} takes 1 to 99"),
        );
    }
    // A nice value is checked as one on a fair policy.
    assert_err(
        r#"{"tasks": {"t": {"priority": 50, "run": 1}}}"#,
        "tasks.t.priority",
        "priority 50 is not a nice value",
    );
    assert_err(
        r#"{"tasks": {"t": {"policy": "SCHED_NORMAL", "run": 1}}}"#,
        "tasks.t.policy",
        "unknown policy",
    );
}

#[test]
fn deadline_parameters_default_as_rt_app_reads_them() {
    use schedlab::sched::DlParams;
    let dl = |runtime, deadline, period| DlParams {
        runtime: runtime * US,
        deadline: deadline * US,
        period: period * US,
    };
    let one = |json: &str| parse(json).tasks[0].attrs.dl;
    // dl-deadline defaults to dl-period, dl-period to dl-runtime.
    assert_eq!(
        one(
            r#"{"tasks": {"t": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000, "run": 1}}}"#
        ),
        Some(dl(2000, 10000, 10000))
    );
    assert_eq!(
        one(r#"{"tasks": {"t": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "run": 1}}}"#),
        Some(dl(2000, 2000, 2000))
    );
    assert_eq!(
        one(
            r#"{"tasks": {"t": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-deadline": 5000, "dl-period": 10000, "run": 1}}}"#
        ),
        Some(dl(2000, 5000, 10000))
    );
    // The legacy task-level `period` / `deadline` fill a zero.
    assert_eq!(
        one(
            r#"{"global": {"default_policy": "SCHED_DEADLINE"}, "tasks": {"t": {"dl-runtime": 1000, "dl-period": 0, "period": 8000, "run": 1}}}"#
        ),
        Some(dl(1000, 8000, 8000))
    );
    let w = parse(
        r#"{"tasks": {"t": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000, "util_min": 500, "run": 1}}}"#,
    );
    let t = &w.tasks[0];
    assert_eq!(t.attrs.policy, Policy::Deadline);
    // rt-app sets no utilization clamps on a deadline task.
    assert_eq!(t.attrs.uclamp, Default::default());
    assert_eq!(t.attrs.slice_ns, None);
}

#[test]
fn deadline_parameters_the_kernel_refuses_are_refused() {
    let dl = |keys: &str| {
        format!(r#"{{"tasks": {{"t": {{"policy": "SCHED_DEADLINE", {keys}, "run": 1}}}}}}"#)
    };
    assert_err(
        &dl(r#""dl-period": 1000"#),
        "tasks.t",
        "SCHED_DEADLINE without dl-runtime",
    );
    assert_err(
        &dl(r#""dl-runtime": 3000, "dl-deadline": 2000, "dl-period": 10000"#),
        "tasks.t",
        "runtime 3000 µs exceeds its deadline 2000 µs",
    );
    assert_err(
        &dl(r#""dl-runtime": 1000, "dl-deadline": 20000, "dl-period": 10000"#),
        "tasks.t",
        "deadline 20000 µs exceeds its period 10000 µs",
    );
    assert_err(
        &dl(r#""dl-runtime": 1, "dl-period": 1000"#),
        "tasks.t",
        "below the kernel's minimum of 1024 ns",
    );
    assert_err(
        &dl(r#""dl-runtime": 50"#),
        "tasks.t",
        "period 50 µs is outside the kernel's 100 µs to 4194304 µs",
    );
    assert_err(
        &dl(r#""dl-runtime": 1000, "dl-period": 10000, "dl-reclaim": true"#),
        "tasks.t.dl-reclaim",
        "SCHED_FLAG_RECLAIM, GRUB) is not modelled",
    );
    // dl-reclaim false is plain CBS, as without the key.
    parse(&dl(
        r#""dl-runtime": 1000, "dl-period": 10000, "dl-reclaim": false"#,
    ));
    // rt-app refuses a taskgroup for a non-fair policy.
    assert_err(
        r#"{"tasks": {"t": {"policy": "SCHED_FIFO", "taskgroup": "/tg", "run": 1}}}"#,
        "tasks.t.taskgroup",
        "taskgroup '/tg' with policy SCHED_FIFO",
    );
}

#[test]
fn phases_change_policy_as_rt_app_does() {
    use schedlab::sched::DlParams;
    let w = parse(
        r#"{"tasks": {"t": {"loop": 1, "phases": {
            "a": {"policy": "SCHED_FIFO", "priority": 20, "run": 1},
            "b": {"priority": 30, "run": 1},
            "c": {"policy": "SCHED_RR", "run": 1},
            "d": {"policy": "SCHED_OTHER", "run": 1},
            "e": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000, "run": 1}}}}}"#,
    );
    let set = |c: SchedChange| Op::SetSched(Box::new(c));
    assert_eq!(
        w.tasks[0].program,
        vec![
            set(SchedChange {
                policy: Some(Policy::Fifo),
                rt_priority: Some(20),
                ..Default::default()
            }),
            run_us(1),
            // No policy: the previous one's (FIFO), so priority is a sched_priority.
            set(SchedChange {
                rt_priority: Some(30),
                ..Default::default()
            }),
            run_us(1),
            // A named RT policy without priority: rt-app's default 10.
            set(SchedChange {
                policy: Some(Policy::Rr),
                rt_priority: Some(10),
                ..Default::default()
            }),
            run_us(1),
            // Back to a fair policy: nice 0.
            set(SchedChange {
                policy: Some(Policy::Normal),
                nice: Some(0),
                ..Default::default()
            }),
            run_us(1),
            set(SchedChange {
                policy: Some(Policy::Deadline),
                dl: Some(DlParams {
                    runtime: 1000 * US,
                    deadline: 10_000 * US,
                    period: 10_000 * US
                }),
                ..Default::default()
            }),
            run_us(1),
        ]
    );
    // A phase without policy whose priority would read differently on the loop's later
    // passes (fair on the first, FIFO after the last phase) is ambiguous.
    assert_err(
        r#"{"tasks": {"t": {"phases": {
            "a": {"priority": 5, "run": 1},
            "b": {"policy": "SCHED_FIFO", "run": 1}}}}}"#,
        "tasks.t.phases.a",
        "runs under SCHED_OTHER on the first pass but SCHED_FIFO on later ones",
    );
    // An RT priority out of range in a phase.
    assert_err(
        r#"{"tasks": {"t": {"loop": 1, "phases": {"a": {"policy": "SCHED_RR", "priority": 100, "run": 1}}}}}"#,
        "tasks.t.phases.a.priority",
        "priority 100 is not a real-time priority",
    );
}

#[test]
fn a_fifo_rt_app_task_runs_before_a_fair_hog() {
    // One CPU: a FIFO task running 2 ms every 10 ms beside a fair hog gets all its
    // runs at once, and the hog the rest.
    let w = parse(
        r#"{"global": {"duration": 1}, "tasks": {
            "hog": {"run": 100000},
            "rt": {"policy": "SCHED_FIFO", "priority": 10,
                   "run": 2000, "timer": {"ref": "unique", "period": 10000}}}}"#,
    );
    let sc = scenario("smp:1", 1);
    let r = execute(&sc, prepare(&sc, w).unwrap(), Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    let rt = r.tasks.iter().find(|t| t.comm == "rt-1").unwrap();
    assert_eq!(rt.policy, "SCHED_FIFO");
    assert_eq!(rt.rt_priority, Some(10));
    // 100 periods of 2 ms (the first one starts at the timer's first expiry).
    assert!(
        rt.cpu_time_ns >= 195 * MS && rt.cpu_time_ns <= 202 * MS,
        "{}",
        rt.cpu_time_ns
    );
    assert!(
        rt.wakeup_latency_ns.max <= 20 * US,
        "{:?}",
        rt.wakeup_latency_ns
    );
    let hog = r.tasks.iter().find(|t| t.comm == "hog-0").unwrap();
    assert_eq!(hog.rt_priority, None);
    assert!(hog.cpu_time_ns >= 780 * MS, "{}", hog.cpu_time_ns);
}

#[test]
fn structural_mistakes() {
    assert_err(r#"{"global": {}}"#, "(top level)", "no `tasks`");
    assert_err(r#"{"tasks": {}}"#, "tasks", "no tasks");
    assert_err(r#"{"tasks": {"t": {"loop": 3}}}"#, "tasks.t", "no events");
    assert_err(
        r#"{"tasks": {"t": {"phases": {"p": {"loop": 2}}}}}"#,
        "tasks.t.phases.p",
        "no events",
    );
    assert_err(
        r#"{"tasks": {"t": {"run": 1, "phases": {"p": {"run": 2}}}}}"#,
        "tasks.t.run",
        "outside `phases`",
    );
    assert_err(
        r#"{"tasks": {"t": {"timer": {"period": 1000}}}}"#,
        "tasks.t.timer",
        "without `ref`",
    );
    assert_err(
        r#"{"tasks": {"t": {"timer": {"ref": "a", "period": 1, "mode": "abs"}}}}"#,
        "tasks.t.timer.mode",
        "unknown timer mode",
    );
}

// ---- the shipped examples, end to end -----------------------------------------------

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn example_two_hogs_split_cpu0_evenly() {
    // Through the user path: -w 'rtapp examples/two-hogs.json', length from the file.
    let mut sc = scenario("smp:2", 1);
    sc.duration_ns = None;
    sc.base_dir = repo_root();
    sc.workloads = vec!["rtapp examples/two-hogs.json".into()];
    let r = run_scenario(&sc).expect("example runs");
    assert_eq!(r.sim.time_ns, 10 * NSEC_PER_SEC, "global.duration is 10 s");
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    let (a, b) = (cpu_time(&r, "thread0-0"), cpu_time(&r, "thread1-1"));
    let total = (a + b) as f64;
    assert!(total > 9.99e9, "CPU 0 never idles: {total}");
    for t in [a, b] {
        let share = t as f64 / total;
        assert!(
            (share - 0.5).abs() < 0.005,
            "share {share:.4}, want 0.5 ± 1%"
        );
    }
    // Both are pinned to CPU 0; CPU 1 stays idle.
    assert_eq!(r.cpus[1].busy_ns, 0);
}

#[test]
fn example_periodic_tasks_get_every_activation() {
    let path = repo_root().join("examples/periodic.json");
    let w = build_workload("rtapp periodic.json", path.parent().unwrap()).unwrap();
    assert_eq!(
        w.workload.timers.len(),
        4,
        "one unique timer per periodic thread"
    );
    let sc = scenario("smp:1", 5);
    let sim = prepare(&sc, w).unwrap();
    let r = execute(&sc, sim, Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    // Activations at 0, 16, …, 4992 ms: 313 of them. Demand is 4×2/16 = 50%, and each
    // periodic thread's fair share (1/5 of the CPU) covers its 2 ms per 16 ms, so every
    // activation completes (and sleeps on its timer) except possibly the last, cut by
    // the end of the run.
    // cpu_time also holds the context-switch cost of every switch-in, at most the cold
    // price (five tasks take turns).
    let cold = schedlab::machine::Costs::default().context_switch_cold_ns;
    for i in 0..4 {
        let t = r
            .tasks
            .iter()
            .find(|t| t.comm == format!("periodic-{i}"))
            .unwrap();
        let runs = t.nr_voluntary_switches;
        assert!(
            (312..=313).contains(&runs),
            "periodic-{i}: {runs} activations"
        );
        let switch_cost = (t.nr_switches + 1) * cold;
        assert!(
            t.cpu_time_ns >= runs * 2 * MS && t.cpu_time_ns <= 313 * 2 * MS + switch_cost,
            "periodic-{i}: {} ns for {runs} runs of 2 ms",
            t.cpu_time_ns
        );
    }
    let periodic: u64 = (0..4).map(|i| cpu_time(&r, &format!("periodic-{i}"))).sum();
    let hog = cpu_time(&r, "hog-4");
    assert!(
        hog + periodic > 5 * NSEC_PER_SEC - MS,
        "the hog fills the rest: {hog} + {periodic}"
    );
}

#[test]
fn phase_cpus_beyond_the_machine_are_rejected() {
    let w = parse(r#"{"tasks": {"t": {"cpus": [0], "phases": {"a": {"cpus": [5], "run": 1}}}}}"#);
    match prepare(&scenario("smp:2", 1), w) {
        Ok(_) => panic!("CPU 5 does not exist on smp:2"),
        Err(e) => {
            assert_eq!(e.origin, "task 't-0'");
            assert!(e.message.contains("CPU 5 does not exist"), "{e}");
        }
    }
}

// ---- zero-time forever loops are refused when read ------------------------------------

#[test]
fn a_forever_loop_that_takes_no_time_is_refused_when_read() {
    // A phase looping forever on a private mutex: it would spin at one instant.
    assert_err(
        r#"{"tasks": {"t": {"loop": 1, "phases": {
            "p0": {"run": 1000},
            "spin": {"loop": -1, "lock": "m", "unlock": "m"}}}}}"#,
        "tasks.t.phases.spin",
        "(lock, unlock) take no simulated time",
    );
    // The thread loop over phases that all take no time (a `run` of 0, signals).
    assert_err(
        r#"{"tasks": {"t": {"phases": {
            "a": {"run": 0, "signal": "c"},
            "b": {"loop": 3, "resume": "c", "sem_post": "s"}}}}}"#,
        "tasks.t.phases",
        "loops forever over its phases",
    );
    // A task without phases and without `loop` repeats its events forever (rt-app).
    let e = parse_err(r#"{"tasks": {"t": {"lock": "m", "broad": "c", "unlock": "m"}}}"#);
    assert_eq!(e.origin, "t.json: tasks.t", "{e}");
    assert!(e.message.contains("(lock, broad, unlock)"), "{e}");
    assert!(e.fix.unwrap().contains("`run`, `sleep` or `timer`"));
    // A phase attribute change without cpus takes no time either.
    assert_err(
        r#"{"tasks": {"t": {"phases": {"a": {"priority": 5, "unlock": "m"}}}}}"#,
        "tasks.t.phases",
        "take no simulated time",
    );
}

#[test]
fn forever_loops_that_can_block_give_way_or_take_time_are_run() {
    for ok in [
        // Work, a sleep (even of 0: timer slack), a timer.
        r#"{"tasks": {"t": {"lock": "m", "run": 10, "unlock": "m"}}}"#,
        r#"{"tasks": {"t": {"lock": "m", "unlock": "m", "sleep": 0}}}"#,
        r#"{"tasks": {"t": {"timer": {"ref": "x", "period": 0}}}}"#,
        // Blocking on another task: a condvar, a barrier, a semaphore.
        r#"{"tasks": {"t": {"suspend": "t"}, "u": {"loop": 1, "run": 10, "resume": "t"}}}"#,
        r#"{"tasks": {"t": {"wait": {"ref": "c", "mutex": "m"}},
            "u": {"loop": 1, "run": 10, "signal": "c"}}}"#,
        r#"{"tasks": {"t": {"instance": 2, "barrier": "b"}}}"#,
        r#"{"tasks": {"t": {"sem_wait": "s"}, "u": {"loop": 1, "sem_post": "s"}}}"#,
        // Giving way (yield) and forking: stopped at run time as rt-app would be.
        r#"{"tasks": {"t": {"yield": ""}}}"#,
        r#"{"tasks": {"t": {"fork": "u"}, "u": {"instance": 0, "loop": 1, "run": 10}}}"#,
        // A lock another task holds (while it runs) can block.
        r#"{"tasks": {"t": {"lock": "m", "unlock": "m"},
            "u": {"lock": "m", "run": 1000, "unlock": "m", "sleep": 100}}}"#,
        // Or another instance of the same task.
        r#"{"tasks": {"t": {"instance": 2, "lock": "m", "unlock": "m"}}}"#,
        // A phase moving the task to other CPUs.
        r#"{"tasks": {"t": {"phases": {"a": {"cpus": [0], "unlock": "m"}, "b": {"cpus": [1], "unlock": "m"}}}}}"#,
        // A finite loop of zero-time events is fine.
        r#"{"tasks": {"t": {"loop": 5, "lock": "m", "unlock": "m"}}}"#,
        r#"{"tasks": {"t": {"loop": 1, "phases": {"a": {"loop": 9, "signal": "c"}}}}}"#,
    ] {
        if let Err(e) = parse_rtapp(ok, FILE) {
            panic!("{ok}: {e}");
        }
    }
}

// ---- no input panics -----------------------------------------------------------------

const KEYS: &[&str] = &[
    "run", "runtime", "sleep", "timer", "yield", "loop", "instance", "delay", "policy", "priority",
    "cpus", "phases", "lock", "util_min", "bogus", "ref", "period", "mode",
];

fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("1000".to_string()),
        Just("-20".to_string()),
        Just("1.5".to_string()),
        Just("99999999999999999999".to_string()),
        Just("9223372036854775807".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("\"SCHED_IDLE\"".to_string()),
        Just("\"absolute\"".to_string()),
        Just("\"unique\"".to_string()),
        Just("[0, 1]".to_string()),
        Just("[]".to_string()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec((prop::sample::select(KEYS), inner), 0..4).prop_map(|kv| {
            let body: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", body.join(", "))
        })
    })
}

proptest! {
    /// Random task bodies built from rt-app keys and odd values: an error or a
    /// workload, never a panic; accepted workloads have balanced loops.
    #[test]
    fn random_task_bodies_never_panic(body in value(), inst in 0u8..3) {
        let text = format!(r#"{{"tasks": {{"t": {body}, "u": {{"instance": {inst}, "run": 1}}}}}}"#);
        if let Ok(w) = parse_rtapp(&text, FILE) {
            for t in &w.tasks {
                prop_assert!(schedlab::workload::program::match_loops(&t.program).is_ok());
                for op in &t.program {
                    if let Op::Timer { timer, .. } = op {
                        prop_assert!(*timer < w.timers.len());
                    }
                }
            }
        }
    }

    /// Byte edits of a shipped example: syntax errors carry a line and column.
    #[test]
    fn mutated_example_never_panics(pos in 0usize..1000, byte in 0u8..128) {
        let mut b = include_bytes!("../../../examples/periodic.json").to_vec();
        let p = pos % b.len();
        b[p] = byte;
        let text = String::from_utf8(b).unwrap();
        let _ = parse_rtapp(&text, FILE);
    }
}
