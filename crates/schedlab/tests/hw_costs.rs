//! The hardware cost model (machine `costs`): SMT throughput sharing, migration penalties
//! and scheduler-path CPU time.

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare, prepare_on};
use schedlab::experiment::RunResult;
use schedlab::machine::build::Shape;
use schedlab::machine::Machine;
use schedlab::workload::{Op, Policy, SchedChange, TaskSpec, Workload};

fn run_on(shape: &Shape, tasks: Vec<TaskSpec>) -> RunResult {
    run_with(shape, tasks, |_| {})
}

/// As `run_on`, with `tweak` applied to the machine last.
fn run_with(shape: &Shape, tasks: Vec<TaskSpec>, tweak: impl FnOnce(&mut Machine)) -> RunResult {
    let sc = scenario("smp:1", 2);
    let wl = Workload {
        tasks,
        ..Workload::default()
    };
    // These tests price SMT sharing and migration penalties exactly; the balancer's own
    // CPU time (sched_lb_per_cpu_ns) is priced in balance.rs, and shared-line transfers
    // in overutilized.rs.
    let mut machine = shape.build();
    machine.costs.sched_lb_per_cpu_ns = 0;
    machine.costs.cacheline_llc_ns = 0;
    machine.costs.cacheline_cross_llc_ns = 0;
    machine.costs.cacheline_cross_numa_ns = 0;
    // Every switch at the hot price and no IPI cost: both are priced in
    // switch_ipi_costs.rs.
    machine.costs.context_switch_cold_ns = machine.costs.context_switch_ns;
    machine.costs.ipi_send_ns = 0;
    tweak(&mut machine);
    let sim = prepare_on(&sc, machine, wl).unwrap();
    let r = execute(&sc, sim, Some(1));
    assert_eq!(
        r.sim.invariant_violations, 0,
        "{:?}",
        r.sim.invariant_messages
    );
    r
}

fn one_shot(comm: &str, cpu: usize, work_ms: u64) -> TaskSpec {
    task(
        comm,
        0,
        Policy::Normal,
        Some(vec![cpu]),
        vec![Op::Run {
            work_ns: work_ms * MS,
        }],
    )
}

#[test]
fn smt_siblings_share_the_core() {
    let core = Shape::flat("1x2", 1, 2);
    // Alone on the core: 100 ms of work takes 100 ms (+ the 2 µs switch).
    let alone = run_on(&core, vec![one_shot("a", 0, 100)]);
    assert_eq!(alone.tasks[0].cpu_time_ns, 100 * MS + 2 * US);
    // Both threads busy: each runs at (100 + 24)/2 = 62% → speed ⌊1024·62/100⌋ = 634,
    // so 100 ms of work takes ⌈100e6·1024/634⌉ ns.
    let both = run_on(&core, vec![one_shot("a", 0, 100), one_shot("b", 1, 100)]);
    let expected = (100 * MS * 1024).div_ceil(634) + 2 * US;
    assert_eq!(both.tasks[0].cpu_time_ns, expected);
    assert_eq!(both.tasks[1].cpu_time_ns, expected);
    // Two cores without SMT do not interfere.
    let two_cores = run_on(
        &Shape::flat("2x1", 2, 1),
        vec![one_shot("a", 0, 100), one_shot("b", 1, 100)],
    );
    assert_eq!(two_cores.tasks[1].cpu_time_ns, 100 * MS + 2 * US);
}

#[test]
fn smt_speed_recovers_when_the_sibling_idles() {
    // b runs 20 ms of work on the sibling, then a has the core to itself: a's 100 ms take
    // 20 ms·1024/634 of shared time (covering 634/1024 of it) and the rest alone.
    let core = Shape::flat("1x2", 1, 2);
    let r = run_on(&core, vec![one_shot("a", 0, 100), one_shot("b", 1, 20)]);
    let b_wall = (20 * MS * 1024).div_ceil(634);
    assert_eq!(r.tasks[1].cpu_time_ns, b_wall + 2 * US);
    let a_done_shared = b_wall * 634 / 1024;
    let a_expected = 2 * US + b_wall + (100 * MS - a_done_shared);
    assert!(
        r.tasks[0].cpu_time_ns.abs_diff(a_expected) <= 2,
        "{} vs {a_expected}",
        r.tasks[0].cpu_time_ns
    );
}

/// A task that runs 10 ms on CPU `from`, moves itself to CPU `to`, runs 10 ms more.
fn mover(from: usize, to: usize) -> TaskSpec {
    task(
        "m",
        0,
        Policy::Normal,
        Some(vec![from]),
        vec![
            Op::Run { work_ns: 10 * MS },
            Op::SetSched(Box::new(SchedChange {
                cpus: Some(vec![to]),
                ..SchedChange::default()
            })),
            Op::Run { work_ns: 10 * MS },
        ],
    )
}

/// Two CPUs of separate cores: in one LLC, in two LLCs of one node, on two nodes.
fn two_cpus_apart() -> [Shape; 3] {
    let mut llc = Shape::flat("2llc", 2, 1);
    llc.cores_per_llc = 1;
    llc.llcs_per_node = 2;
    let mut numa = Shape::flat("2s", 2, 1);
    numa.packages = 2;
    numa.cores_per_llc = 1;
    numa.llcs_per_node = 1;
    [Shape::flat("1llc", 2, 1), llc, numa]
}

#[test]
fn migrations_cost_more_the_farther_they_go() {
    let [one_llc, llc, shape] = two_cpus_apart();
    let same = run_on(&one_llc, vec![mover(0, 1)]).tasks[0].cpu_time_ns;
    let cross_llc = run_on(&llc, vec![mover(0, 1)]).tasks[0].cpu_time_ns;
    let cross_numa = run_on(&shape, vec![mover(0, 1)]).tasks[0].cpu_time_ns;
    // Base: 20 ms of work + two switches in; the penalty adds 10 / 50 / 150 µs.
    let base = 20 * MS + 4 * US;
    assert_eq!(same, base + 10 * US);
    assert_eq!(cross_llc, base + 50 * US);
    assert_eq!(cross_numa, base + 150 * US);
}

#[test]
fn a_known_working_set_refills_its_lines_at_the_transfer_cost() {
    // 4196 bytes are 66 lines of 64 B; each comes over at the machine's cache-line
    // transfer cost for that distance instead of the flat 10 / 50 / 150 µs.
    let [one_llc, llc, shape] = two_cpus_apart();
    let lines = |m: &mut Machine| {
        m.costs.cacheline_llc_ns = 40;
        m.costs.cacheline_cross_llc_ns = 120;
        m.costs.cacheline_cross_numa_ns = 300;
    };
    // The same run with an empty working set carries every other cost (the scheduler's
    // own shared lines are priced at these transfer costs too); the difference is the
    // refill alone.
    let refill = |shape: &Shape, tweak: &dyn Fn(&mut Machine)| {
        let cpu = |bytes| {
            run_with(shape, vec![mover(0, 1).working_set(bytes)], tweak).tasks[0].cpu_time_ns
        };
        cpu(4196) - cpu(0)
    };
    assert_eq!(refill(&one_llc, &lines), 66 * 40);
    assert_eq!(refill(&llc, &lines), 66 * 120);
    assert_eq!(refill(&shape, &lines), 66 * 300);
    // SMT siblings share the core's caches: nothing to refill.
    assert_eq!(refill(&Shape::flat("1x2", 1, 2), &lines), 0);
    // POWER's 128-byte lines halve the count.
    let power = |m: &mut Machine| {
        lines(m);
        m.costs.cache_line_bytes = 128;
    };
    assert_eq!(refill(&llc, &power), 33 * 120);
}

#[test]
fn wakeups_charge_the_waking_cpu() {
    // A hog and a sleeper share CPU 0; every timer wake-up of the sleeper is handled on
    // CPU 0 and costs its running task 1 µs.
    let sc = scenario("smp:1", 1);
    let sleeper = task(
        "s",
        0,
        Policy::Normal,
        Some(vec![0]),
        vec![
            Op::LoopBegin { count: Some(100) },
            Op::Run { work_ns: 100 * US },
            Op::Sleep { ns: 5 * MS },
            Op::LoopEnd,
        ],
    );
    let wl = Workload {
        tasks: vec![hog("h", 0, Some(vec![0])), sleeper],
        ..Workload::default()
    };
    let r = execute(&sc, prepare(&sc, wl).unwrap(), Some(1));
    assert_eq!(r.sim.invariant_violations, 0);
    assert_eq!(r.cpus[0].sched_overhead_ns, 100 * US, "100 wake-ups × 1 µs");
}
