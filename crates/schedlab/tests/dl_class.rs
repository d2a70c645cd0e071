//! The deadline class (kernel/sched/deadline.c): CBS runtime per period, throttling and
//! replenishment, EDF, admission control, the fair deadline server (v6.12+), and
//! balancing of deadline tasks across CPUs.

mod common;
use common::*;
use schedlab::machine::presets::machine_from_name;
use schedlab::sched::dl::{checkparam_dl, dl_admit};
use schedlab::sched::version::KernelVersion;
use schedlab::sched::{DlParams, TaskAttrs};
use schedlab::workload::{Policy, TaskSpec};

fn dl(runtime: u64, deadline: u64, period: u64) -> DlParams {
    DlParams {
        runtime,
        deadline,
        period,
    }
}

fn dl_hog(comm: &str, p: DlParams) -> TaskSpec {
    hog(comm, 0, None).deadline(p)
}

/// The intervals [start, end) during which task `t` ran on any CPU.
fn run_intervals(switches: &[schedlab::sched::SwitchRecord], t: usize) -> Vec<(u64, u64)> {
    let mut open: Vec<Option<u64>> = vec![None; 64];
    let mut out = Vec::new();
    for r in switches {
        if r.prev == Some(t) {
            if let Some(s) = open[r.cpu].take() {
                out.push((s, r.at));
            }
        }
        if r.next == Some(t) {
            open[r.cpu] = Some(r.at);
        }
    }
    out.sort();
    out
}

#[test]
fn a_dl_task_gets_its_runtime_at_the_start_of_every_period() {
    // 2 ms / 10 ms beside two fair hogs on one CPU, HZ=1000: the DL hog runs at the
    // start of each period until the tick finds its runtime used (2 ms), is throttled,
    // and its replenishment timer brings it back at the next period: 20 % of the CPU.
    let mut sc = scenario("smp:1", 3);
    sc.hz = 1000;
    let mut s = sim(
        &sc,
        vec![
            hog("fair0", 0, None),
            dl_hog("dl", dl(2 * MS, 10 * MS, 10 * MS)),
            hog("fair1", 0, None),
        ],
    );
    let switches = run_logging_switches(&mut s);
    let runs = run_intervals(&switches, 1);
    assert!(runs.len() >= 298, "{}", runs.len());
    for (i, &(a, b)) in runs.iter().enumerate().take(290) {
        assert_eq!(a, i as u64 * 10 * MS, "run {i}: {runs:?}");
        assert_eq!(b - a, 2 * MS, "run {i}: {runs:?}");
    }
    let r = run(
        &sc,
        vec![
            hog("fair0", 0, None),
            dl_hog("dl", dl(2 * MS, 10 * MS, 10 * MS)),
            hog("fair1", 0, None),
        ],
    );
    let ms = cpu_time(&r, "dl") / MS;
    assert!((595..=605).contains(&ms), "dl ran {ms} ms of 3 s");
}

#[test]
fn an_overrunning_dl_task_is_throttled_until_a_later_period() {
    // At HZ=250 the overrun is only seen at the 4 ms tick: runtime 2 − 4 = −2 ms, so the
    // task is throttled until its next period (10 ms), where the replenishment adds 2 ms
    // twice (the first leaves 0) and moves the deadline two periods on (30 ms). Alone in
    // the class it runs at once, 10–12 ms (exactly its 2 ms: throttled at the 12 ms tick,
    // until 30 ms), then 30–32, 40–44 (overrun again), 50–52, 70–72, ...: 8 ms every
    // 40 ms, 20 % — the CBS keeps the bandwidth whatever the overruns.
    let mut sc = scenario("smp:1", 2);
    sc.hz = 250;
    let mut s = sim(
        &sc,
        vec![
            hog("fair", 0, None),
            dl_hog("dl", dl(2 * MS, 10 * MS, 10 * MS)),
        ],
    );
    let switches = run_logging_switches(&mut s);
    let runs = run_intervals(&switches, 1);
    let head: Vec<(u64, u64)> = [(0, 4), (10, 12), (30, 32), (40, 44), (50, 52), (70, 72)]
        .iter()
        .map(|&(a, b)| (a * MS, b * MS))
        .collect();
    assert_eq!(runs[..6], head[..], "{runs:?}");
    // Then every 40 ms the same three runs.
    for (i, w) in runs[3..].chunks(3).take(45).enumerate() {
        let base = 40 * MS * (i as u64 + 1);
        let want = [(0, 4), (10, 12), (30, 32)].map(|(a, b)| (base + a * MS, base + b * MS));
        assert_eq!(w, &want[..w.len()], "block {i}: {runs:?}");
    }
    let total: u64 = runs.iter().map(|(a, b)| b - a).sum();
    assert_eq!(total / MS, 400, "{runs:?}");
}

#[test]
fn the_earliest_deadline_runs_first() {
    // Two DL hogs on one CPU, both released at t=0: "late" (deadline 20 ms) is created
    // first, "early" (deadline 5 ms) runs first anyway; each gets its 3 ms per period.
    let mut sc = scenario("smp:1", 1);
    sc.hz = 1000;
    let mut s = sim(
        &sc,
        vec![
            dl_hog("late", dl(3 * MS, 20 * MS, 20 * MS)),
            dl_hog("early", dl(3 * MS, 5 * MS, 20 * MS)),
        ],
    );
    let switches = run_logging_switches(&mut s);
    // "late" starts first at t=0 and is preempted at once by "early"'s wake-up (a run of
    // length 0).
    let nonzero = |v: Vec<(u64, u64)>| v.into_iter().filter(|(a, b)| b > a).collect::<Vec<_>>();
    let late = nonzero(run_intervals(&switches, 0));
    let early = nonzero(run_intervals(&switches, 1));
    assert_eq!(early[0], (0, 3 * MS), "{early:?}");
    assert_eq!(late[0], (3 * MS, 6 * MS), "{late:?}");
    for w in early.windows(2).take(40) {
        assert_eq!(w[1].0 - w[0].0, 20 * MS, "{early:?}");
    }
}

#[test]
fn admission_refuses_an_over_subscribed_set() {
    // Three tasks of 7 ms / 10 ms ask 2.10 CPUs; 95 % of 2 CPUs is 1.90.
    let m = machine_from_name("smp:2").unwrap();
    let attrs = |n: usize| -> Vec<TaskAttrs> {
        (0..n)
            .map(|i| {
                let mut a = TaskAttrs::new(format!("dl{i}"));
                a.policy = Policy::Deadline;
                a.dl = Some(dl(7 * MS, 10 * MS, 10 * MS));
                a
            })
            .collect()
    };
    assert!(dl_admit(&m, KernelVersion::V6_8, &attrs(2)).is_ok());
    let err = dl_admit(&m, KernelVersion::V6_8, &attrs(3)).unwrap_err();
    assert_eq!(
        err,
        "SCHED_DEADLINE tasks ask 2.10 CPUs of bandwidth; the limit is 1.90 (95% of 2 CPUs): \
         sched_setattr of task 'dl2' fails with EBUSY"
    );
    // From v6.12 the fair servers hold 5 % of each CPU: 1.40 + 0.10 fits, 2.10 does not.
    let err = dl_admit(&m, KernelVersion::Current, &attrs(3)).unwrap_err();
    assert!(err.contains("fair deadline servers hold 0.10"), "{err}");
    // A simulation refuses the set as the syscall would.
    let sc = scenario("smp:2", 1);
    let tasks: Vec<_> = (0..3)
        .map(|i| dl_hog(&format!("dl{i}"), dl(7 * MS, 10 * MS, 10 * MS)))
        .collect();
    let e = schedlab::experiment::run::prepare(&sc, workload_of(tasks))
        .err()
        .expect("refused");
    assert!(format!("{e}").contains("EBUSY"), "{e}");
}

#[test]
fn checkparam_dl_rejects_runtime_above_deadline() {
    let e = checkparam_dl(&dl(3 * MS, 2 * MS, 10 * MS)).unwrap_err();
    assert!(
        e.contains("runtime ≤ deadline ≤ period") && e.ends_with("EINVAL"),
        "{e}"
    );
    assert!(checkparam_dl(&dl(2 * MS, 2 * MS, 10 * MS)).is_ok());
    // Below 2^DL_SCALE ns, a period under 100 µs, a zero deadline.
    assert!(checkparam_dl(&dl(1000, 2 * MS, 10 * MS)).is_err());
    assert!(checkparam_dl(&dl(20 * US, 50 * US, 50 * US)).is_err());
    assert!(checkparam_dl(&dl(MS, 0, 10 * MS)).is_err());
    // A DL task pinned to part of the root domain: EPERM.
    let mut a = TaskAttrs::new("pinned");
    a.policy = Policy::Deadline;
    a.dl = Some(dl(2 * MS, 10 * MS, 10 * MS));
    a.cpus = Some(vec![0]);
    let e = schedlab::sched::dl::dl_check_task(&a, 2).unwrap_err();
    assert!(e.ends_with("EPERM"), "{e}");
}

#[test]
fn the_fair_server_grants_a_fair_hog_50_ms_per_second_from_6_12() {
    // A FIFO hog and a fair hog pinned to CPU 0: the fair server's deferred period ends
    // at 950 ms; it runs the fair hog for its 50 ms, throttles until its next period
    // (1.95 s), and so on: [0.95, 1.0), [1.95, 2.0), ... — 250 ms in 5 s.
    for kernel in [KernelVersion::V6_12, KernelVersion::Current] {
        let mut sc = scenario("smp:2", 5);
        sc.kernel = Some(kernel);
        let mut s = sim(
            &sc,
            vec![
                hog("rt", 0, Some(vec![0])).rt(Policy::Fifo, 50),
                hog("fair", 0, Some(vec![0])),
            ],
        );
        let switches = run_logging_switches(&mut s);
        let runs = run_intervals(&switches, 1);
        let want: Vec<(u64, u64)> = (0..5)
            .map(|k| ((950 + 1000 * k) * MS, (1000 + 1000 * k) * MS))
            .collect();
        assert_eq!(runs, want, "{kernel:?}");
    }
}

#[test]
fn an_idle_cpu_takes_a_second_dl_task() {
    // Two 6 ms / 10 ms DL hogs start on CPU 0 of two: the second is pushed to the idle
    // CPU 1 when the first starts running, and both get their 60 %.
    let mut sc = scenario("smp:2", 1);
    sc.hz = 1000;
    let r = run(
        &sc,
        vec![
            dl_hog("a", dl(6 * MS, 10 * MS, 10 * MS)),
            dl_hog("b", dl(6 * MS, 10 * MS, 10 * MS)),
        ],
    );
    for comm in ["a", "b"] {
        let ms = cpu_time(&r, comm) / MS;
        assert!((595..=605).contains(&ms), "{comm}: {ms} ms");
    }
}
