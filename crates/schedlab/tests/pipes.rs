//! Pipes and AF_UNIX stream sockets as the kernel runs them (docs/model.md, "Pipes" and
//! "AF_UNIX stream sockets"): capacity in page slots with merging, exclusive writer
//! wake-ups passed on, readers woken only from empty; the socket send buffer counted in
//! skb truesize against sk_sndbuf. The capacities are the counts a 6.18 x86-64 host gives
//! for non-blocking writes into a fresh pipe / socketpair.

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::RunResult;
use schedlab::time::Ns;
use schedlab::workload::program::ObjectSpec;
use schedlab::workload::{Op, Policy, TaskSpec, Workload};

fn workload(objects: Vec<ObjectSpec>, tasks: Vec<TaskSpec>) -> Workload {
    Workload {
        tasks,
        objects,
        counters: vec!["writes".into()],
        ..Workload::default()
    }
}

fn run_for(ms: u64, objects: Vec<ObjectSpec>, tasks: Vec<TaskSpec>) -> RunResult {
    let mut sc = scenario("smp:6", 1);
    sc.duration_ns = Some(ms * MS);
    let r = execute(
        &sc,
        prepare(&sc, workload(objects, tasks)).unwrap(),
        Some(1),
    );
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

fn t(comm: &str, cpu: usize, delay: Ns, program: Vec<Op>) -> TaskSpec {
    task(comm, 0, Policy::Normal, Some(vec![cpu]), program).delay(delay)
}

fn forever(body: Vec<Op>) -> Vec<Op> {
    [vec![Op::LoopBegin { count: None }], body, vec![Op::LoopEnd]].concat()
}

fn repeat(n: u64, body: Vec<Op>) -> Vec<Op> {
    [
        vec![Op::LoopBegin { count: Some(n) }],
        body,
        vec![Op::LoopEnd],
    ]
    .concat()
}

/// Writes of `bytes` that complete into `obj` with nobody reading (1 µs of work
/// between writes, so time passes).
fn writes_until_full(obj: ObjectSpec, bytes: u64) -> u64 {
    let writer = t(
        "w",
        0,
        0,
        forever(vec![
            Op::Run { work_ns: US },
            Op::Write { obj: 0, bytes },
            Op::Count { counter: 0 },
        ]),
    );
    let mut sc = scenario("smp:1", 1);
    sc.duration_ns = Some(200 * MS);
    let mut sim = prepare(&sc, workload(vec![obj], vec![writer])).unwrap();
    sim.run();
    sim.probes().counters[0]
}

#[test]
fn a_pipe_holds_sixteen_pages_and_merges_small_writes() {
    // 16 slots of 4 KiB; a write's sub-page remainder merges into the last page when it
    // fits after that page's data.
    for (bytes, writes) in [
        (1, 65_536),
        (100, 640), // 40 merged writes per page (4000 B; the 41st would cross the page)
        (1000, 64),
        (4000, 16), // no room to merge: one slot each
        (4096, 16),
        (4097, 10), // 1 B merges into the last page where it fits; the 11th blocks part-way
        (8192, 8),
    ] {
        assert_eq!(
            writes_until_full(ObjectSpec::pipe(), bytes),
            writes,
            "{bytes}-byte writes"
        );
    }
    // F_SETPIPE_SZ-sized pipes: 4 slots.
    assert_eq!(writes_until_full(ObjectSpec::Pipe { slots: 4 }, 100), 160);
}

#[test]
fn a_socket_send_buffer_counts_skb_truesize() {
    // sk_sndbuf 212992 (wmem_default); a send goes through while sk_wmem_alloc < sndbuf.
    // truesize: 768 B up to 192 B of payload, 2304 B for 1000 B, 4864 B for a page,
    // 8960 B for two pages.
    for (bytes, writes) in [(1, 278), (100, 278), (1000, 93), (4096, 44), (8192, 24)] {
        assert_eq!(
            writes_until_full(ObjectSpec::unix_stream(), bytes),
            writes,
            "{bytes}-byte sends"
        );
    }
}

/// A filler puts 16 pages into the pipe; four writers (starting 1 ms in, in order) each
/// then wait to write one page and count it; `reader` starts at 2 ms.
fn full_pipe_with_four_waiting_writers(reader: Vec<Op>, ms: u64) -> RunResult {
    let filler = t(
        "filler",
        0,
        0,
        repeat(
            16,
            vec![Op::Write {
                obj: 0,
                bytes: 4096,
            }],
        ),
    );
    let mut tasks = vec![filler];
    for i in 0..4u64 {
        tasks.push(t(
            &format!("w{i}"),
            1 + i as usize,
            MS + i * US,
            vec![
                Op::Write {
                    obj: 0,
                    bytes: 4096,
                },
                Op::Count { counter: 0 },
            ],
        ));
    }
    tasks.push(t("r", 5, 2 * MS, reader));
    run_for(ms, vec![ObjectSpec::pipe()], tasks)
}

/// Wake-ups of task `i` after its start (which counts as its first wake-up).
fn wakeups(r: &RunResult, i: usize) -> u64 {
    r.tasks[i].wakeup_latency_ns.count - 1
}

fn writer_wakeups(r: &RunResult) -> Vec<u64> {
    (1..=4).map(|i| wakeups(r, i)).collect()
}

fn writers_done(r: &RunResult) -> Vec<bool> {
    (1..=4).map(|i| r.tasks[i].exited).collect()
}

#[test]
fn each_freed_slot_wakes_one_writer_exclusively() {
    // Three one-page reads, 1 ms apart, each starting on a full pipe (was_full): each
    // wakes exactly one writer, first come first served; the woken writer fills the
    // ring again, so it passes nothing on. (A byte counter waking every writer on any
    // read would wake all four at the first read.)
    let reader = repeat(
        3,
        vec![
            Op::Read {
                obj: 0,
                bytes: 4096,
            },
            Op::Sleep { ns: MS },
        ],
    );
    let r = full_pipe_with_four_waiting_writers(reader, 10);
    assert_eq!(writers_done(&r), [true, true, true, false]);
    assert_eq!(writer_wakeups(&r), [1, 1, 1, 0]);
}

#[test]
fn a_woken_writer_that_leaves_room_wakes_the_next() {
    // One read of three pages frees three slots but wakes one writer (one wake-up per
    // wr_wait wake); each woken writer that leaves a free slot wakes the next
    // (wake_next_writer), until the ring is full again.
    let reader = vec![Op::Read {
        obj: 0,
        bytes: 3 * 4096,
    }];
    let r = full_pipe_with_four_waiting_writers(reader, 10);
    assert_eq!(writers_done(&r), [true, true, true, false]);
    assert_eq!(writer_wakeups(&r), [1, 1, 1, 0]);
    // Two pages: two writers.
    let r = full_pipe_with_four_waiting_writers(
        vec![Op::Read {
            obj: 0,
            bytes: 8192,
        }],
        10,
    );
    assert_eq!(writers_done(&r), [true, true, false, false]);
}

#[test]
fn a_read_from_a_pipe_that_was_not_full_wakes_no_writer() {
    // The reader takes a page at 2 ms (was_full: w0 is woken) and, before w0 has run,
    // another page (the ring was no longer full: no wake-up). w0 then writes, leaves a
    // free slot and passes the wake-up to w1, which fills the ring.
    let reader = vec![
        Op::Read {
            obj: 0,
            bytes: 4096,
        },
        Op::Read {
            obj: 0,
            bytes: 4096,
        },
    ];
    let r = full_pipe_with_four_waiting_writers(reader, 10);
    assert_eq!(writers_done(&r), [true, true, false, false]);
    assert_eq!(writer_wakeups(&r), [1, 1, 0, 0]);
}

#[test]
fn pipe_readers_are_woken_only_when_the_pipe_was_empty() {
    // Two readers wait on the empty pipe (exclusively). Two 100-byte writes at once:
    // the first (pipe empty) wakes r1 alone, the second (not empty) wakes nobody. r1 reads
    // both messages and leaves the pipe empty, so it passes nothing on: r2 stays asleep.
    let reader = |c: &str, cpu, bytes| t(c, cpu, 0, vec![Op::Read { obj: 0, bytes }]);
    let writer = t(
        "w",
        0,
        MS,
        vec![
            Op::Write { obj: 0, bytes: 100 },
            Op::Write { obj: 0, bytes: 100 },
        ],
    );
    let r = run_for(
        10,
        vec![ObjectSpec::pipe()],
        vec![writer, reader("r1", 1, 200), reader("r2", 2, 100)],
    );
    assert!(r.tasks[1].exited);
    assert_eq!(wakeups(&r, 1), 1);
    assert!(!r.tasks[2].exited);
    assert_eq!(wakeups(&r, 2), 0);
    // Had r1 read one message, it would have woken r2 for the second (wake_next_reader).
    let writer = t(
        "w",
        0,
        MS,
        vec![
            Op::Write { obj: 0, bytes: 100 },
            Op::Write { obj: 0, bytes: 100 },
        ],
    );
    let r = run_for(
        10,
        vec![ObjectSpec::pipe()],
        vec![writer, reader("r1", 1, 100), reader("r2", 2, 100)],
    );
    assert!(r.tasks[1].exited && r.tasks[2].exited);
    assert_eq!(wakeups(&r, 2), 1);
}

#[test]
fn a_socket_writer_sleeps_until_the_send_buffer_drains_to_a_quarter() {
    // The writer fills the send buffer (278 skbs of 768 B) and waits. The reader takes one
    // message a millisecond from 5 ms on; unix_write_space wakes the writer only once
    // sk_wmem_alloc's refcount × 4 ≤ sk_sndbuf: (in flight + 2) × 4 ≤ 212992, i.e. 69
    // skbs left, after 209 reads (≈ 213 ms). The writer then refills to 278.
    let writer = t(
        "w",
        0,
        0,
        forever(vec![
            Op::Write { obj: 0, bytes: 100 },
            Op::Count { counter: 0 },
        ]),
    );
    let reader = t(
        "r",
        1,
        5 * MS,
        forever(vec![Op::Read { obj: 0, bytes: 100 }, Op::Sleep { ns: MS }]),
    );
    let run = |ms: u64| {
        let mut sc = scenario("smp:2", 1);
        sc.duration_ns = Some(ms * MS);
        let wl = workload(
            vec![ObjectSpec::unix_stream()],
            vec![writer.clone(), reader.clone()],
        );
        let mut sim = prepare(&sc, wl).unwrap();
        sim.set_invariant_every(1);
        sim.run();
        sim.probes().counters[0]
    };
    assert_eq!(run(200), 278, "208 reads in: still asleep");
    assert_eq!(
        run(300),
        278 + 209,
        "woken once at the 209th read, refilled"
    );
    let r = run_for(
        300,
        vec![ObjectSpec::unix_stream()],
        vec![writer.clone(), reader.clone()],
    );
    assert_eq!(wakeups(&r, 0), 1);
}

#[test]
fn every_send_wakes_every_socket_reader_but_a_pipe_write_wakes_one() {
    // Two readers wait for one 100-byte message each; the writer sends one at 1 ms and
    // one at 2 ms. sock_def_readable wakes both readers at the first send (one of them
    // finds the queue empty again and re-waits), then the other at the second: 3
    // wake-ups. A pipe wakes one exclusive reader per write: 2.
    let reader = |c: &str, cpu| t(c, cpu, 0, vec![Op::Read { obj: 0, bytes: 100 }]);
    let writer = || {
        t(
            "w",
            0,
            MS,
            vec![
                Op::Write { obj: 0, bytes: 100 },
                Op::Sleep { ns: MS },
                Op::Write { obj: 0, bytes: 100 },
            ],
        )
    };
    let wakeups = |obj| {
        let r = run_for(
            10,
            vec![obj],
            vec![writer(), reader("r1", 1), reader("r2", 2)],
        );
        assert!(r.tasks.iter().all(|t| t.exited));
        wakeups(&r, 1) + wakeups(&r, 2)
    };
    assert_eq!(wakeups(ObjectSpec::unix_stream()), 3);
    assert_eq!(wakeups(ObjectSpec::pipe()), 2);
}
