//! Blocking objects in the workload IR: pipes, sockets, mutexes, barriers, wait queues.

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::workload::program::ObjectSpec;
use schedlab::workload::{Op, Policy, TaskSpec, Workload};

fn run_objs(machine: &str, objects: Vec<ObjectSpec>, tasks: Vec<TaskSpec>) -> RunResult {
    let sc = scenario(machine, 5);
    let wl = Workload {
        tasks,
        objects,
        ..Workload::default()
    };
    let r = execute(&sc, prepare(&sc, wl).unwrap(), Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

fn t(comm: &str, cpu: usize, program: Vec<Op>) -> TaskSpec {
    task(comm, 0, Policy::Normal, Some(vec![cpu]), program)
}

fn repeat(n: u64, body: Vec<Op>) -> Vec<Op> {
    [
        vec![Op::LoopBegin { count: Some(n) }],
        body,
        vec![Op::LoopEnd],
    ]
    .concat()
}

#[test]
fn pipe_messages_all_arrive_and_readers_block_when_empty() {
    // 1000 messages of 100 bytes; the writer works 50 µs per message, the reader 10 µs:
    // the reader drains faster than the writer fills, so it blocks on an empty pipe.
    let writer = t(
        "w",
        0,
        repeat(
            1000,
            vec![
                Op::Run { work_ns: 50 * US },
                Op::Write { obj: 0, bytes: 100 },
            ],
        ),
    );
    let reader = t(
        "r",
        1,
        repeat(
            1000,
            vec![
                Op::Read { obj: 0, bytes: 100 },
                Op::Run { work_ns: 10 * US },
            ],
        ),
    );
    let r = run_objs("smp:2", vec![ObjectSpec::pipe()], vec![writer, reader]);
    assert!(
        r.tasks.iter().all(|t| t.exited),
        "both finish: every byte arrived"
    );
    assert_eq!(r.sim.stop_reason, "all_exited");
    // The reader slept on the empty pipe for (nearly) every message.
    // (About half the time two messages are waiting by then: the wake-up pays the
    // 50 µs idle exit.)
    assert!(
        r.tasks[1].nr_voluntary_switches >= 400,
        "{}",
        r.tasks[1].nr_voluntary_switches
    );
    assert_eq!(
        r.tasks[0].nr_voluntary_switches, 1,
        "the writer never waits: its one voluntary switch is its exit"
    );
}

#[test]
fn a_full_pipe_blocks_the_writer() {
    // A one-slot pipe (F_SETPIPE_SZ 4096), page-sized messages (≤ PIPE_BUF: a whole slot
    // or nothing); the reader is slow (1 ms per message), so the writer waits every time.
    let writer = t(
        "w",
        0,
        repeat(
            20,
            vec![Op::Write {
                obj: 0,
                bytes: 4096,
            }],
        ),
    );
    let reader = t(
        "r",
        1,
        repeat(
            20,
            vec![
                Op::Run { work_ns: MS },
                Op::Read {
                    obj: 0,
                    bytes: 4096,
                },
            ],
        ),
    );
    let r = run_objs(
        "smp:2",
        vec![ObjectSpec::Pipe { slots: 1 }],
        vec![writer, reader],
    );
    assert!(r.tasks.iter().all(|t| t.exited));
    assert!(
        r.tasks[0].nr_voluntary_switches >= 18,
        "{}",
        r.tasks[0].nr_voluntary_switches
    );
    // Large writes go through in pieces: five pages into a one-page pipe.
    let big_w = t(
        "w",
        0,
        vec![Op::Write {
            obj: 0,
            bytes: 5 * 4096,
        }],
    );
    let big_r = t(
        "r",
        1,
        repeat(
            5,
            vec![
                Op::Run { work_ns: MS },
                Op::Read {
                    obj: 0,
                    bytes: 4096,
                },
            ],
        ),
    );
    let r = run_objs(
        "smp:2",
        vec![ObjectSpec::Pipe { slots: 1 }],
        vec![big_w, big_r],
    );
    assert!(r.tasks.iter().all(|t| t.exited));
    assert_eq!(
        r.tasks[0].nr_voluntary_switches, 5,
        "written in five pieces: four waits, then the exit"
    );
}

#[test]
fn a_mutex_serialises_its_critical_sections() {
    // Two tasks on two CPUs each hold the mutex 10 × 1 ms: 20 ms of critical sections
    // cannot overlap, so the run lasts at least 20 ms.
    let cs = |c: &str, cpu| {
        t(
            c,
            cpu,
            repeat(
                10,
                vec![
                    Op::Lock { obj: 0 },
                    Op::Run { work_ns: MS },
                    Op::Unlock { obj: 0 },
                ],
            ),
        )
    };
    let r = run_objs(
        "smp:2",
        vec![ObjectSpec::Mutex],
        vec![cs("a", 0), cs("b", 1)],
    );
    assert!(r.tasks.iter().all(|t| t.exited));
    assert!(r.sim.time_ns >= 20 * MS, "{}", r.sim.time_ns);
    assert!(
        r.sim.time_ns < 21 * MS,
        "handoffs cost µs, not ms: {}",
        r.sim.time_ns
    );
    // Without the lock the two run side by side.
    let free = |c: &str, cpu| t(c, cpu, repeat(10, vec![Op::Run { work_ns: MS }]));
    let r = run_objs("smp:2", vec![], vec![free("a", 0), free("b", 1)]);
    assert!(r.sim.time_ns < 11 * MS);
}

#[test]
fn a_barrier_releases_everyone_after_the_slowest() {
    // Three tasks work 1, 2 and 5 ms, meet at the barrier, then work 1 ms more: all end
    // just after 6 ms.
    let party = |c: &str, cpu, ms| {
        t(
            c,
            cpu,
            vec![
                Op::Run { work_ns: ms * MS },
                Op::BarrierWait { obj: 0 },
                Op::Run { work_ns: MS },
            ],
        )
    };
    let r = run_objs(
        "smp:3",
        vec![ObjectSpec::Barrier { parties: 3 }],
        vec![party("a", 0, 1), party("b", 1, 2), party("c", 2, 5)],
    );
    assert!(r.tasks.iter().all(|t| t.exited));
    assert!(
        r.sim.time_ns >= 6 * MS && r.sim.time_ns < 6 * MS + 200 * US,
        "{}",
        r.sim.time_ns
    );
    // Switches out: a at the barrier and at exit; c, the last to arrive, only at exit.
    assert_eq!(r.tasks[0].nr_voluntary_switches, 2);
    assert_eq!(r.tasks[2].nr_voluntary_switches, 1);
}

#[test]
fn a_signal_wakes_one_waiter_and_broadcast_wakes_all() {
    // Two waiters; the signaller works 3 ms, signals once, works 3 ms, broadcasts.
    let waiter = |c: &str, cpu| {
        t(
            c,
            cpu,
            vec![Op::Wait { obj: 0 }, Op::Run { work_ns: 100 * US }],
        )
    };
    let signaller = t(
        "s",
        2,
        vec![
            Op::Run { work_ns: 3 * MS },
            Op::Signal { obj: 0 },
            Op::Run { work_ns: 3 * MS },
            Op::Broadcast { obj: 0 },
        ],
    );
    let r = run_objs(
        "smp:3",
        vec![ObjectSpec::WaitQueue],
        vec![waiter("a", 0), waiter("b", 1), signaller],
    );
    assert!(r.tasks.iter().all(|t| t.exited));
    // a waited first, so the signal woke a at ~3 ms; b waited until the broadcast at ~6 ms.
    let lat_a = r.tasks[0].wakeup_latency_ns.max;
    assert!(lat_a < 100 * US, "{lat_a}");
    assert!(r.sim.time_ns >= 6 * MS);
}

#[test]
fn ops_on_the_wrong_kind_of_object_are_rejected() {
    let sc = scenario("smp:1", 1);
    let wl = Workload {
        tasks: vec![t("x", 0, vec![Op::Lock { obj: 0 }])],
        objects: vec![ObjectSpec::WaitQueue],
        ..Workload::default()
    };
    let Err(e) = prepare(&sc, wl) else {
        panic!("accepted a lock on a wait queue");
    };
    assert!(e.to_string().contains("is not a mutex"), "{e}");
}

#[test]
fn skbs_beyond_the_caches_cost_their_share_of_the_cold_cost() {
    // One task on one core queues 200 messages of 100 B on a socket (768 B of truesize
    // each) and reads them back, then works 1 µs, which takes every cold charge.
    let program = [
        repeat(200, vec![Op::Write { obj: 0, bytes: 100 }]),
        repeat(200, vec![Op::Read { obj: 0, bytes: 100 }]),
        vec![Op::Run { work_ns: US }],
    ]
    .concat();
    let cpu_time = |send: u64, recv: u64, cache: u64| {
        let sc = scenario("smp:1", 1);
        let wl = Workload {
            tasks: vec![t("w", 0, program.clone())],
            objects: vec![ObjectSpec::unix_stream()],
            ..Workload::default()
        };
        let mut machine = schedlab::machine::build::Shape::flat("1x1", 1, 1).build();
        machine.costs.socket_send_cold_ns = send;
        machine.costs.socket_recv_cold_ns = recv;
        machine.costs.socket_cache_bytes = cache;
        let sim = schedlab::experiment::run::prepare_on(&sc, machine, wl).unwrap();
        let r = execute(&sc, sim, Some(1));
        assert_eq!(r.sim.invariant_violations, 0);
        r.tasks[0].cpu_time_ns
    };
    let base = cpu_time(0, 0, 0);
    // The caches hold 50 skbs: the k-th send has k skbs in flight and so has the read
    // that leaves k − 1, each charging ⌊cold × (768 k − 38,400) ÷ 768 k⌋ once k > 50.
    let share = |cold: u64, k: u64| cold * (768 * k - 38_400) / (768 * k);
    let expected: u64 = (51..=200).map(|k| share(300, k) + share(700, k)).sum();
    assert_eq!(cpu_time(300, 700, 38_400) - base, expected);
    // Caches that hold all 200: nothing.
    assert_eq!(cpu_time(300, 700, 200 * 768), base);
}

#[test]
fn a_tasks_exit_posts_its_join_semaphore_as_a_last_op_would() {
    // pthread_join: the worker's exit wakes main, waiting on the worker's join futex.
    // As a task attribute it does exactly what a SemPost as the program's last op does.
    let sem = ObjectSpec::Semaphore { initial: 0, max: 1 };
    let main = t(
        "main",
        0,
        vec![Op::SemWait { obj: 0 }, Op::Run { work_ns: MS }],
    );
    let worker = |program| t("worker", 1, program);
    let as_op = run_objs(
        "smp:2",
        vec![sem],
        vec![
            main.clone(),
            worker(vec![Op::Run { work_ns: 2 * MS }, Op::SemPost { obj: 0 }]),
        ],
    );
    let at_exit = run_objs(
        "smp:2",
        vec![sem],
        vec![main, worker(vec![Op::Run { work_ns: 2 * MS }]).exit_post(0)],
    );
    let doc = |r: &RunResult| {
        let mut v = serde_json::to_value(r).unwrap();
        v["sim"]["wall_s"] = serde_json::Value::Null;
        v
    };
    assert_eq!(doc(&as_op), doc(&at_exit));
    // Main slept until the worker's exit and ran its 1 ms after it.
    assert!(at_exit.tasks[0].cpu_time_ns >= MS);
    assert!(at_exit.sim.time_ns >= 3 * MS, "{}", at_exit.sim.time_ns);
    // Without the post main never wakes.
    let never = run_objs(
        "smp:2",
        vec![sem],
        vec![
            t(
                "main",
                0,
                vec![Op::SemWait { obj: 0 }, Op::Run { work_ns: MS }],
            ),
            worker(vec![Op::Run { work_ns: 2 * MS }]),
        ],
    );
    assert!(never.tasks[0].cpu_time_ns < MS);
}

#[test]
fn an_exit_post_names_a_semaphore() {
    let sc = scenario("smp:1", 1);
    let wl = Workload {
        tasks: vec![t("x", 0, vec![Op::Run { work_ns: MS }]).exit_post(0)],
        objects: vec![ObjectSpec::pipe()],
        ..Workload::default()
    };
    let Err(e) = prepare(&sc, wl) else {
        panic!("accepted an exit post to a pipe");
    };
    assert!(e.to_string().contains("is not a semaphore"), "{e}");
}

#[test]
fn a_tasks_own_objects_must_exist() {
    let sc = scenario("smp:1", 1);
    let wl = Workload {
        tasks: vec![t("x", 0, vec![Op::Run { work_ns: MS }]).private(0..2, 0..0)],
        objects: vec![ObjectSpec::pipe()],
        ..Workload::default()
    };
    let Err(e) = prepare(&sc, wl) else {
        panic!("accepted own objects beyond the workload's");
    };
    assert!(e.to_string().contains("do not exist"), "{e}");
}
