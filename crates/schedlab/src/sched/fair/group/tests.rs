//! Property test: random task-group hierarchies under random wake / sleep / run / pick /
//! period-timer operations keep every invariant at every level, and Σ w·lag stays in
//! (−Σw, 0] on every cfs_rq.

use super::{CgroupSpec, ROOT_TG};
use crate::machine::presets::smp;
use crate::sched::fair::weights::scale_load_down;
use crate::sched::fair::{dequeue, enqueue};
use crate::sched::features::Features;
use crate::sched::PreemptModel;
use crate::sched::{Policy, TaskAttrs};
use crate::sched::{Sched, TaskState};
use proptest::prelude::*;

const NR_TASKS: usize = 16;

#[derive(Debug, Clone)]
struct Grp {
    parent: usize,
    weight: u64,
    idle: bool,
    quota_ms: Option<u64>,
}

fn grp() -> impl Strategy<Value = Grp> {
    (
        0usize..8,
        1u64..=10_000,
        prop::bool::weighted(0.2),
        prop::option::weighted(0.3, 1u64..8),
    )
        .prop_map(|(parent, weight, idle, quota_ms)| Grp {
            parent,
            weight,
            idle,
            quota_ms,
        })
}

#[derive(Debug, Clone)]
enum Op {
    Wake(usize),
    Sleep(usize),
    Run(u64),
    Pick,
    Period(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..NR_TASKS).prop_map(Op::Wake),
        (0..NR_TASKS).prop_map(Op::Sleep),
        (1u64..6_000_000).prop_map(Op::Run),
        Just(Op::Pick),
        Just(Op::Pick),
        (0usize..8).prop_map(Op::Period),
    ]
}

fn build(groups: &[Grp], placement: &[usize], nices: &[i32]) -> Sched {
    let mut s = Sched::new(smp(1), Features::default(), 250, PreemptModel::Full);
    for (i, g) in groups.iter().enumerate() {
        let parent = if i == 0 { ROOT_TG } else { g.parent % (i + 1) };
        let spec = CgroupSpec {
            weight: g.weight,
            idle: g.idle,
            max: g.quota_ms.map(|q| (q * 1_000_000, 10_000_000)),
            ..CgroupSpec::new(&format!("/g{i}"))
        };
        s.create_group(&spec, parent, false);
    }
    for t in 0..NR_TASKS {
        let nice = nices[t % nices.len()];
        let p = s.add_task(&TaskAttrs {
            policy: if nice > 19 {
                Policy::Idle
            } else {
                Policy::Normal
            },
            nice: nice.min(19),
            slice_ns: (t % 4 == 0).then_some(300_000 + t as u64 * 70_000),
            ..TaskAttrs::new(format!("t{t}"))
        });
        s.move_new_task_to_group(p, placement[t % placement.len()] % s.groups.len());
    }
    s
}

/// Σ w·(V − v) and Σ w over the queued entities of one cfs_rq.
fn lag_sum(s: &mut Sched, cfs: usize) -> (i128, i128) {
    let v = s.avg_vruntime(cfs);
    let mut all: Vec<u32> = s.cfs_rqs[cfs].tasks_timeline.iter().map(|e| e.0).collect();
    all.extend(s.curr_on_rq(cfs));
    let w = |id: u32| scale_load_down(s.entities[id as usize].load.weight) as i128;
    let sum = all
        .iter()
        .map(|&id| w(id) * (v.wrapping_sub(s.entities[id as usize].vruntime) as i64 as i128))
        .sum();
    (sum, all.iter().map(|&id| w(id)).sum())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn invariants_and_lag_hold_at_every_level(
        groups in proptest::collection::vec(grp(), 1..6),
        placement in proptest::collection::vec(0usize..7, 1..8),
        nices in proptest::collection::vec(-20i32..=20, 1..5),
        ops in proptest::collection::vec(op(), 1..150),
    ) {
        let mut s = build(&groups, &placement, &nices);
        for op in ops {
            match op {
                Op::Wake(t) => {
                    if s.tasks[t].on_rq {
                        continue;
                    }
                    s.tasks[t].on_rq = true;
                    s.tasks[t].state = TaskState::Running;
                    s.enqueue_task_fair(0, t, enqueue::WAKEUP);
                }
                Op::Sleep(t) => {
                    if !s.tasks[t].on_rq || s.rqs[0].curr == Some(t)
                        || s.entities[s.tasks[t].se as usize].sched_delayed {
                        continue;
                    }
                    s.tasks[t].state = TaskState::Sleeping;
                    s.dequeue_task_fair(0, t, dequeue::SLEEP);
                }
                Op::Run(ns) => {
                    s.now += ns;
                    if s.rqs[0].curr.is_some() {
                        s.task_tick_fair(0, false);
                    }
                }
                Op::Pick => {
                    let prev = s.rqs[0].curr;
                    let next = s.pick_next_task_fair(0, prev);
                    if let Some(p) = prev { s.tasks[p].on_cpu = false; }
                    if let Some(n) = next { s.tasks[n].on_cpu = true; }
                    s.rqs[0].curr = next;
                }
                Op::Period(g) => {
                    let tg = 1 + g % (s.groups.len() - 1);
                    if s.groups[tg].bw.is_some() {
                        s.cfs_period_timer(tg);
                    }
                }
            }
            s.resched_now.clear();
            for cfs in 0..s.cfs_rqs.len() {
                if s.cfs_rqs[cfs].nr_queued == 0 {
                    continue;
                }
                let (sum, weight) = lag_sum(&mut s, cfs);
                prop_assert!(
                    sum <= 0 && sum > -weight.max(1),
                    "cfs_rq {cfs}: Σ w·lag = {sum} (Σ w = {weight})"
                );
            }
            s.check_invariants();
            prop_assert_eq!(s.invariant_violations, 0, "{:?}", s.invariant_messages);
        }
    }
}
