//! The context-switch cost by how recently the incoming task ran on the CPU, the CPU time
//! of raising an IPI, and the cache-line cost of a pipe used from two CPUs
//! (docs/model.md, Hardware costs).

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare_on};
use schedlab::experiment::RunResult;
use schedlab::machine::build::Shape;
use schedlab::machine::{Costs, Machine};
use schedlab::simulation::Simulation;
use schedlab::workload::program::ObjectSpec;
use schedlab::workload::{Op, Policy, TaskSpec, Workload};

/// `tasks` and `objects` on `machine`, ready to run (one simulated second at most).
fn sim_on(machine: Machine, tasks: Vec<TaskSpec>, objects: Vec<ObjectSpec>) -> Simulation {
    let sc = scenario("smp:1", 1);
    let wl = Workload {
        tasks,
        objects,
        ..Workload::default()
    };
    prepare_on(&sc, machine, wl).unwrap()
}

fn run_on(machine: Machine, tasks: Vec<TaskSpec>, objects: Vec<ObjectSpec>) -> RunResult {
    let r = execute(
        &scenario("smp:1", 1),
        sim_on(machine, tasks, objects),
        Some(1),
    );
    assert_eq!(r.sim.invariant_violations, 0);
    r
}

fn one_cpu() -> Machine {
    let mut m = Shape::flat("1", 1, 1).build();
    m.costs.sched_wakeup_ns = 0;
    m
}

/// `n` hogs of 20 ms each pinned to one CPU: they take turns, so each switches in after
/// the other n − 1 ran.
fn switch_in_overhead(n: usize) -> Vec<u64> {
    let tasks = (0..n)
        .map(|i| {
            task(
                &format!("h{i}"),
                0,
                Policy::Normal,
                None,
                vec![Op::Run { work_ns: 20 * MS }],
            )
        })
        .collect();
    let r = run_on(one_cpu(), tasks, vec![]);
    r.tasks
        .iter()
        .map(|t| {
            let ins = t.nr_voluntary_switches + t.nr_involuntary_switches;
            assert!(ins > 3, "{ins} switches");
            (t.cpu_time_ns - 20 * MS - Costs::default().context_switch_cold_ns) / (ins - 1)
        })
        .collect()
}

#[test]
fn a_task_back_after_one_switch_is_hot_and_after_four_cold() {
    let c = Costs::default();
    let (hot, cold) = (c.context_switch_ns, c.context_switch_cold_ns);
    // The first switch-in is cold (the task never ran here), the rest depend on the ring.
    assert_eq!(switch_in_overhead(2), vec![hot, hot]);
    assert_eq!(switch_in_overhead(3), vec![hot + (cold - hot) / 3; 3]);
    assert_eq!(switch_in_overhead(5), vec![cold; 5]);
}

/// A writer on CPU 0 wakes a reader asleep on CPU 1 through a pipe, each then runs 1 ms.
fn pipe_pair(costs: impl Fn(&mut Costs), shape: Shape) -> (u64, u64) {
    let mut m = shape.build();
    m.costs.sched_wakeup_ns = 0;
    costs(&mut m.costs);
    let writer = task(
        "w",
        0,
        Policy::Normal,
        Some(vec![0]),
        vec![
            Op::Sleep { ns: MS },
            Op::Write { obj: 0, bytes: 1 },
            Op::Run { work_ns: MS },
        ],
    );
    let reader = task(
        "r",
        0,
        Policy::Normal,
        Some(vec![1]),
        vec![Op::Read { obj: 0, bytes: 1 }, Op::Run { work_ns: MS }],
    );
    let r = run_on(m, vec![writer, reader], vec![ObjectSpec::pipe()]);
    (r.tasks[0].cpu_time_ns, r.tasks[1].cpu_time_ns)
}

#[test]
fn the_waker_pays_for_the_ipi_to_an_idle_cpu() {
    let two = || Shape::flat("2", 2, 1);
    let (w0, r0) = pipe_pair(|c| c.ipi_send_ns = 0, two());
    let (w1, r1) = pipe_pair(|c| c.ipi_send_ns = 5_000, two());
    assert_eq!(w1 - w0, 5_000);
    assert_eq!(r1, r0);
}

#[test]
fn a_pipe_used_from_another_cpu_costs_its_lines() {
    let same_llc = || Shape::flat("2", 2, 1);
    let (w0, r0) = pipe_pair(|c| c.pipe_bounce_ns = 0, same_llc());
    // The write pulls the lines from CPU 1 (where the reader blocked), the reader's
    // retried read pulls them back.
    let (w1, r1) = pipe_pair(|c| c.pipe_bounce_ns = 1_000, same_llc());
    assert_eq!((w1 - w0, r1 - r0), (1_000, 1_000));
    // Across LLCs the lines cost cacheline_cross_llc_ns ÷ cacheline_llc_ns (120/40) more.
    let mut two_llcs = Shape::flat("2llc", 2, 1);
    two_llcs.cores_per_llc = 1;
    two_llcs.llcs_per_node = 2;
    let (w2, r2) = pipe_pair(|c| c.pipe_bounce_ns = 1_000, two_llcs);
    assert_eq!((w2 - w0, r2 - r0), (3_000, 3_000));
}

/// When each task woken by one write to a polled pipe was enqueued.
#[derive(Default)]
struct Enqueued(Vec<(usize, u64)>);

impl schedlab::sched::tracepoints::SchedObserver for Enqueued {
    fn sched_wakeup(&mut self, s: &schedlab::sched::Sched, p: usize, _cpu: usize, new: bool) {
        if !new {
            self.0.push((p, s.now));
        }
    }
}

/// __wake_up_common wakes a queue's tasks one after another on the waker's CPU: the
/// pollers of one write are enqueued sched_wakeup_ns apart, in queue order (the last to
/// poll first), not all at the write's instant.
#[test]
fn one_write_wakes_its_pollers_one_wake_up_path_apart() {
    let mut m = Shape::flat("1", 1, 1).build();
    m.costs.sched_wakeup_ns = 3_000;
    let pollers = (0..4).map(|i| {
        task(
            &format!("p{i}"),
            0,
            Policy::Normal,
            None,
            vec![Op::Poll { obj: 0 }, Op::Run { work_ns: 10_000 }],
        )
    });
    let writer = task(
        "w",
        0,
        Policy::Normal,
        None,
        vec![
            Op::Sleep { ns: MS },
            Op::Write { obj: 0, bytes: 1 },
            Op::Run { work_ns: MS },
        ],
    );
    let mut s = sim_on(
        m,
        pollers.chain([writer]).collect(),
        vec![ObjectSpec::pipe()],
    );
    s.sched.attach_observer(Box::new(Enqueued::default()));
    s.run();
    assert_eq!(s.sched.invariant_violations, 0);
    // Task 4, the writer, is woken by its timer.
    let all = &s.sched.observer::<Enqueued>().unwrap().0;
    let woken: Vec<_> = all.iter().copied().filter(|&(p, _)| p != 4).collect();
    let first = woken[0].1;
    let got: Vec<_> = woken.iter().map(|&(p, t)| (p, t - first)).collect();
    assert_eq!(got, [(3, 0), (2, 3_000), (1, 6_000), (0, 9_000)]);
}
