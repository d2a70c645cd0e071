//! rt-app events, one test per event type, checked by running them: mutex exclusion,
//! barrier release, signal wakes one and broadcast all, a resume before the suspend is
//! lost, semaphore posts are remembered, fork creates a running child named as rt-app
//! names it, mem / iorun cost scales with bytes (docs/rtapp.md).

mod common;
use common::*;
use schedlab::experiment::run::prepare;
use schedlab::sched::TaskState;
use schedlab::simulation::{Simulation, StopReason};
use schedlab::workload::program::ObjectSpec;
use schedlab::workload::rtapp::{parse_rtapp, IO_WRITE_SYSCALL_NS, MEM_WRITE_BYTES_PER_US};
use schedlab::workload::{Op, Workload};

fn parse(text: &str) -> Workload {
    parse_rtapp(text, "t.json").unwrap_or_else(|e| panic!("should parse: {e}"))
}

fn sim(text: &str, machine: &str) -> Simulation {
    let mut s = prepare(&scenario(machine, 10), parse(text)).expect("prepares");
    s.set_invariant_every(1);
    s
}

fn id(s: &Simulation, comm: &str) -> usize {
    s.sched
        .tasks
        .iter()
        .position(|t| t.comm == comm)
        .unwrap_or_else(|| panic!("no task {comm}"))
}

fn state(s: &Simulation, comm: &str) -> TaskState {
    s.sched.tasks[id(s, comm)].state
}

fn cpu_ns(s: &Simulation, comm: &str) -> u64 {
    let se = s.sched.tasks[id(s, comm)].se as usize;
    s.sched.entities[se].sum_exec_runtime
}

/// Run to the end; every task must have exited and no invariant may break.
fn finish(s: &mut Simulation) {
    assert_eq!(s.run(), StopReason::AllExited);
    assert_eq!(
        s.sched.invariant_violations, 0,
        "{:?}",
        s.sched.invariant_messages
    );
}

#[test]
fn lock_and_unlock_exclude_each_other() {
    // Two CPUs, two threads each holding the mutex for 10 ms: they take turns.
    let mut s = sim(
        r#"{"tasks": {"t": {"instance": 2, "loop": 1,
            "lock": "m", "run": 10000, "unlock": "m"}}}"#,
        "smp:2",
    );
    s.run_until(5 * MS);
    let states = [state(&s, "t-0"), state(&s, "t-1")];
    assert!(
        states.contains(&TaskState::Sleeping),
        "{states:?}: one waits for the mutex"
    );
    finish(&mut s);
    assert!(
        s.sched.now >= 20 * MS,
        "serialised: ended at {}",
        s.sched.now
    );
    // Same names are one mutex; a condvar may share a mutex's name.
    let w = parse(r#"{"tasks": {"t": {"loop": 1, "lock": "m", "unlock0": "m", "signal": "m"}}}"#);
    assert_eq!(w.objects, vec![ObjectSpec::Mutex, ObjectSpec::WaitQueue]);
}

#[test]
fn barrier_releases_when_every_thread_arrived() {
    let text = r#"{"tasks": {
        "a": {"loop": 1, "run": 1000, "barrier": "B", "run1": 1000},
        "b": {"loop": 1, "instance": 2, "run": 5000, "barrier": "B", "run1": 1000}}}"#;
    // Parties come from the file: a's thread and b's two.
    assert_eq!(
        parse(text).objects,
        vec![ObjectSpec::Barrier { parties: 3 }]
    );
    let mut s = sim(text, "smp:4");
    s.run_until(3 * MS);
    assert_eq!(
        state(&s, "a-0"),
        TaskState::Sleeping,
        "a waits at the barrier"
    );
    s.run_until(5 * MS + 500 * US);
    assert_eq!(
        state(&s, "a-0"),
        TaskState::Running,
        "released once b arrived"
    );
    finish(&mut s);
    assert!(
        s.sched.now < 7 * MS,
        "a's second run overlapped b's: {}",
        s.sched.now
    );
}

/// Three waiters on condvar `c`, and a waker that signals (or broadcasts) at 1 ms.
fn cond_case(wake: &str) -> Simulation {
    let text = format!(
        r#"{{"tasks": {{
        "w": {{"instance": 3, "loop": 1, "lock": "m", "wait": {{"ref": "c", "mutex": "m"}},
               "unlock": "m", "run": 1000}},
        "k": {{"loop": 1, "sleep": 1000, "lock": "m", "{wake}": "c", "unlock": "m"}}}}}}"#
    );
    let mut s = sim(&text, "smp:4");
    s.run_until(3 * MS);
    s
}

#[test]
fn signal_wakes_one_waiter() {
    let s = cond_case("signal");
    let woken = (0..3)
        .filter(|i| cpu_ns(&s, &format!("w-{i}")) >= MS)
        .count();
    assert_eq!(woken, 1);
    let asleep = (0..3)
        .filter(|i| state(&s, &format!("w-{i}")) == TaskState::Sleeping)
        .count();
    assert_eq!(asleep, 2, "the others still wait");
}

#[test]
fn broad_wakes_every_waiter() {
    let mut s = cond_case("broad");
    for i in 0..3 {
        assert!(
            cpu_ns(&s, &format!("w-{i}")) >= MS,
            "w-{i} ran after the broadcast"
        );
    }
    finish(&mut s);
}

#[test]
fn wait_releases_the_mutex_in_the_same_instant() {
    // pthread_cond_wait: the held mutex is released, the task sleeps, then retakes it.
    let w = parse(
        r#"{"tasks": {"t": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}}}"#,
    );
    let (m, c) = (0, 1);
    assert_eq!(
        w.tasks[0].program[1..6],
        [
            Op::Lock { obj: m },
            Op::Unlock { obj: m },
            Op::Wait { obj: c },
            Op::Lock { obj: m },
            Op::Unlock { obj: m },
        ]
    );
}

#[test]
fn sync_signals_then_waits_as_a_ping_pong() {
    // sync inside lock/unlock = signal + cond_wait (rt-app's code); two threads
    // alternate, each waking the other and sleeping until woken back.
    let w = parse(
        r#"{"tasks": {"t": {"lock": "m", "sync": {"ref": "c", "mutex": "m"}, "unlock": "m"}}}"#,
    );
    assert_eq!(
        w.tasks[0].program[2..6],
        [
            Op::Signal { obj: 1 },
            Op::Unlock { obj: 0 },
            Op::Wait { obj: 1 },
            Op::Lock { obj: 0 }
        ]
    );
    // Without a lock around it, sync takes and releases the mutex itself (tutorial).
    let w = parse(r#"{"tasks": {"t": {"sync": {"ref": "c", "mutex": "m"}}}}"#);
    assert_eq!(w.tasks[0].program[1], Op::Lock { obj: 1 });
    let mut s = sim(
        r#"{"global": {"duration": 1}, "tasks": {
          "a": {"lock": "m", "sync": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 1000},
          "b": {"delay": 100, "lock": "m", "sync": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 1000}}}"#,
        "smp:2",
    );
    s.run_until(100 * MS);
    let (a, b) = (cpu_ns(&s, "a-0"), cpu_ns(&s, "b-1"));
    assert!(a > 10 * MS && b > 10 * MS, "both keep running: a {a} b {b}");
    assert!(a.abs_diff(b) <= 2 * MS, "in turn: a {a} b {b}");
}

#[test]
fn resume_before_suspend_is_lost() {
    // The resume at 0 comes before x suspends at 1 ms: x sleeps forever.
    let text = r#"{"global": {"duration": 1}, "tasks": {
        "x": {"loop": 1, "run": 1000, "suspend", "run1": 1000},
        "k": {"loop": 1, "resume": "x"}}}"#;
    let mut s = sim(text, "smp:2");
    s.run_until(50 * MS);
    assert_eq!(state(&s, "x-0"), TaskState::Sleeping);
    // A resume after the suspend wakes it (bare "suspend" waits on the task's name).
    let text = text.replace(r#""resume": "x""#, r#""sleep": 2000, "resume": "x""#);
    let mut s = sim(&text, "smp:2");
    finish(&mut s);
    assert!(cpu_ns(&s, "x-0") >= 2 * MS);
}

#[test]
fn suspend_names_a_condvar_shared_by_its_resumers() {
    // doc/examples style: two threads suspend on "ev", one resume wakes both.
    let mut s = sim(
        r#"{"tasks": {
        "e1": {"loop": 1, "suspend": "ev", "run": 1000},
        "e2": {"loop": 1, "suspend": "ev", "run": 1000},
        "k": {"loop": 1, "sleep": 500, "resume": "ev"}}}"#,
        "smp:4",
    );
    finish(&mut s);
    assert!(cpu_ns(&s, "e1-0") >= MS && cpu_ns(&s, "e2-1") >= MS);
}

#[test]
fn semaphore_remembers_posts() {
    // Two posts before the waiter arrives: both of its waits pass without sleeping.
    let text = r#"{"tasks": {
        "p": {"loop": 1, "sem_post": "s", "sem_post1": "s"},
        "w": {"loop": 1, "run": 1000, "sem_wait": "s", "sem_wait1": "s", "run1": 1000}}}"#;
    let w = parse(text);
    assert_eq!(
        w.objects,
        vec![ObjectSpec::Semaphore {
            initial: 0,
            max: u64::MAX
        }]
    );
    let mut s = sim(text, "smp:2");
    finish(&mut s);
    assert!(
        s.sched.now < 2 * MS + 500 * US,
        "no wait: ended at {}",
        s.sched.now
    );
    // The one voluntary switch is the exit: the waits never slept.
    assert_eq!(s.sched.tasks[id(&s, "w-1")].nvcsw, 1);
}

#[test]
fn fork_creates_a_running_child_named_as_rt_app_names_it() {
    // The parent is pinned to CPU 1; the child (a template: instance 0) inherits the
    // affinity, starts from the parent's CPU and gets rt-app's name.
    let text = r#"{"tasks": {
        "parent": {"loop": 2, "cpus": [1], "run": 1000, "fork": "child"},
        "child": {"instance": 0, "loop": 1, "run": 5000,
                  "timer": {"ref": "unique", "period": 1000}}}}"#;
    let w = parse(text);
    assert_eq!(w.tasks.len(), 1, "instance 0: nothing at start");
    assert_eq!(w.templates.len(), 1);
    assert_eq!(w.templates[0].spec.attrs.comm, "child");
    assert_eq!(w.templates[0].private_timers.len(), 1);
    let mut s = sim(text, "smp:2");
    s.run_until(1500 * US);
    assert_eq!(s.sched.tasks.len(), 2);
    assert_eq!(s.sched.tasks[1].comm, "child-1-0000");
    finish(&mut s);
    assert_eq!(s.sched.tasks[2].comm, "child-2-0001");
    for c in ["child-1-0000", "child-2-0001"] {
        let t = &s.sched.tasks[id(&s, c)];
        assert_eq!(t.cpu, 1, "{c} ran where its parent was allowed");
        assert_eq!(t.state, TaskState::Dead);
        assert!(cpu_ns(&s, c) >= 5 * MS, "{c} did its work");
    }
}

#[test]
fn fork_errors_name_the_problem() {
    let e = parse_rtapp(r#"{"tasks": {"p": {"fork": "nobody"}}}"#, "t.json").unwrap_err();
    assert_eq!(e.origin, "t.json: tasks.p.fork");
    assert!(e.message.contains("unknown task 'nobody'"), "{e}");
    let e = parse_rtapp(
        r#"{"tasks": {"p": {"fork": "c"}, "c": {"instance": 0, "barrier": "b"}}}"#,
        "t.json",
    )
    .unwrap_err();
    assert_eq!(e.origin, "t.json: tasks.c");
    assert!(e.message.contains("barrier"), "{e}");
}

#[test]
fn mem_and_iorun_cost_scales_with_bytes() {
    let w = parse(
        r#"{"global": {"mem_buffer_size": 1000, "io_device": "/dev/null"},
            "tasks": {"t": {"loop": 1, "mem": 16000, "mem1": 32000, "iorun": 2500, "iorun1": 0}}}"#,
    );
    let mem_ns = |bytes: u64| bytes * 1000 / MEM_WRITE_BYTES_PER_US;
    assert_eq!(
        w.tasks[0].program,
        vec![
            Op::Run {
                work_ns: mem_ns(16000)
            },
            Op::Run {
                work_ns: mem_ns(32000)
            },
            // 2500 bytes in 1000-byte writes: three write(2) calls to /dev/null.
            Op::Run {
                work_ns: 3 * IO_WRITE_SYSCALL_NS
            },
            Op::Run { work_ns: 0 },
        ]
    );
    assert_eq!(mem_ns(16000), 1000, "16 GB/s: 16 kB per µs");
}

#[test]
fn run_runtime_sleep_timer_and_yield_compile_in_order() {
    let w = parse(
        r#"{"tasks": {"t": {"loop": 1, "run": 1, "runtime": 2, "sleep": 3,
            "timer": {"ref": "x", "period": 4}, "yield": ""}}}"#,
    );
    assert_eq!(
        w.tasks[0].program,
        vec![
            Op::Run { work_ns: US },
            Op::RunWall { ns: 2 * US },
            Op::Sleep { ns: 3 * US },
            Op::Timer {
                timer: 0,
                period_ns: 4 * US,
                mode: schedlab::workload::TimerMode::Relative
            },
            Op::Yield,
        ]
    );
}

#[test]
fn dl_runtime_sets_the_fair_custom_slice() {
    let w = parse(
        r#"{"tasks": {"t": {"dl-runtime": 3000, "dl-period": 10000,
            "phases": {"p": {"dl-runtime": 500, "run": 1}}}}}"#,
    );
    assert_eq!(w.tasks[0].attrs.slice_ns, Some(3 * MS));
    match &w.tasks[0].program[1] {
        Op::SetSched(c) => assert_eq!(c.slice_ns, Some(500 * US)),
        other => panic!("expected SetSched, got {other:?}"),
    }
}

#[test]
fn taskgroup_puts_the_threads_in_their_group() {
    // Two hogs in /a, six in /b, all on CPU 0: each group gets half the CPU whatever its
    // thread count (groups are created on first use, weight 100, as rt-app creates them).
    let text = r#"{"global": {"duration": 2},
        "tasks": {
          "a": {"instance": 2, "cpus": [0], "taskgroup": "/a", "run": 1000000},
          "b": {"instance": 6, "cpus": [0], "taskgroup": "/b/", "run": 1000000}}}"#;
    let mut s = sim(text, "smp:2");
    s.run();
    let group_ns = |prefix: &str| -> u64 {
        s.sched
            .tasks
            .iter()
            .filter(|t| t.comm.starts_with(prefix))
            .map(|t| s.sched.entities[t.se as usize].sum_exec_runtime)
            .sum()
    };
    let (a, b) = (group_ns("a-"), group_ns("b-"));
    let share = a as f64 / (a + b) as f64;
    assert!(
        (share - 0.5).abs() < 0.01,
        "/a share {share} ({a} vs {b} ns)"
    );
    assert_eq!(
        s.sched.invariant_violations, 0,
        "{:?}",
        s.sched.invariant_messages
    );
    let w = parse(text);
    assert_eq!(w.cgroups.values().filter(|g| *g == "/a").count(), 2);
    assert_eq!(w.cgroups.values().filter(|g| *g == "/b").count(), 6);
}
