//! Property tests of the EEVDF bookkeeping on random runqueues: pick_eevdf against a
//! brute-force "earliest eligible deadline" reference, Σ w·lag = 0 through every
//! operation, and lag preservation by place_entity.

use super::eevdf::{dequeue, enqueue, vt_before};
use super::weights::scale_load_down;
use crate::machine::presets::smp;
use crate::sched::features::Features;
use crate::sched::PreemptModel;
use crate::sched::{Policy, TaskAttrs};
use crate::sched::{Sched, TaskState};
use proptest::prelude::*;

fn new_sched(nr_tasks: usize, nices: &[i32]) -> Sched {
    let mut s = Sched::new(smp(1), Features::default(), 250, PreemptModel::Full);
    for i in 0..nr_tasks {
        let nice = nices[i % nices.len()];
        s.add_task(&TaskAttrs {
            policy: if nice > 19 {
                Policy::Idle
            } else {
                Policy::Normal
            },
            nice: nice.min(19),
            slice_ns: if i % 3 == 0 {
                Some(300_000 + i as u64 * 50_000)
            } else {
                None
            },
            ..TaskAttrs::new(format!("t{i}"))
        });
    }
    s
}

/// A queued entity as (id, vruntime, deadline, w).
type Queued = (u32, u64, u64, i128);

/// Queued entities: the tree in order, and curr.
fn queued(s: &Sched) -> (Vec<Queued>, Option<Queued>) {
    let w = |id: u32| scale_load_down(s.entities[id as usize].load.weight) as i128;
    let tree = s.cfs_rqs[0]
        .tasks_timeline
        .iter()
        .map(|(id, d, v, _)| (id, v, d, w(id)))
        .collect();
    let curr = s.curr_on_rq(0).map(|c| {
        let e = &s.entities[c as usize];
        (c, e.vruntime, e.deadline, w(c))
    });
    (tree, curr)
}

/// Exact eligibility: Σ w_i·(v_i − v) ≥ 0 over all queued entities.
fn eligible_exact(all: &[Queued], v: u64) -> bool {
    all.iter()
        .map(|&(_, vi, _, w)| w * (vi.wrapping_sub(v) as i64 as i128))
        .sum::<i128>()
        >= 0
}

/// Brute-force pick: earliest deadline among eligible entities; tree order breaks ties,
/// and curr wins only with a strictly earlier deadline.
fn brute_pick(s: &Sched) -> Option<u32> {
    let (tree, curr) = queued(s);
    let mut all = tree.clone();
    all.extend(curr);
    let mut best: Option<(u32, u64)> = None;
    for &(id, v, d, _) in &tree {
        if eligible_exact(&all, v) && best.is_none_or(|(_, bd)| vt_before(d, bd)) {
            best = Some((id, d));
        }
    }
    if let Some((c, v, d, _)) = curr {
        if eligible_exact(&all, v) && best.is_none_or(|(_, bd)| vt_before(d, bd)) {
            best = Some((c, d));
        }
    }
    best.map(|b| b.0)
}

/// Σ w·(V − v) over queued entities, from their actual vruntimes, and Σ w.
fn lag_sum(s: &mut Sched) -> (i128, i128) {
    let v = s.avg_vruntime(0);
    let (tree, curr) = queued(s);
    let all: Vec<_> = tree.into_iter().chain(curr).collect();
    let sum = all
        .iter()
        .map(|&(_, vi, _, w)| w * (v.wrapping_sub(vi) as i64 as i128))
        .sum();
    (sum, all.iter().map(|a| a.3).sum())
}

#[derive(Debug, Clone)]
enum Op {
    /// Wake a sleeping task with this saved lag (ns of virtual time).
    Wake(usize, i64),
    /// Put a queued, not running task to sleep.
    Sleep(usize),
    /// Let curr run this long.
    Run(u64),
    /// Pick (schedule) now.
    Pick,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..24, -3_000_000i64..3_000_000).prop_map(|(t, l)| Op::Wake(t, l)),
        (0usize..24).prop_map(Op::Sleep),
        (1u64..5_000_000).prop_map(Op::Run),
        Just(Op::Pick),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn pick_and_lag_hold_on_random_runqueues(
        nices in proptest::collection::vec(-20i32..=20, 1..6),
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let mut s = new_sched(24, &nices);
        for op in ops {
            match op {
                Op::Wake(t, lag) => {
                    if s.tasks[t].on_rq {
                        continue;
                    }
                    let se = s.tasks[t].se;
                    s.entities[se as usize].vlag = lag;
                    let had = s.cfs_rqs[0].nr_queued;
                    s.tasks[t].on_rq = true;
                    s.tasks[t].state = TaskState::Running;
                    s.enqueue_task_fair(0, t, enqueue::WAKEUP);
                    // place_entity inflates the lag so that it survives the join.
                    let v = s.avg_vruntime(0);
                    let got = v.wrapping_sub(s.entities[se as usize].vruntime) as i64;
                    if had > 0 {
                        prop_assert!((got - lag).abs() <= 2, "lag {lag} became {got}");
                    } else {
                        prop_assert_eq!(got, 0, "an empty queue drops the lag");
                    }
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
                    s.update_curr(0);
                }
                Op::Pick => {
                    let expect = brute_pick(&s);
                    let got = s.__pick_eevdf(0, false);
                    if s.cfs_rqs[0].nr_queued > 1 && s.cfs_rqs[0].next.is_none() {
                        prop_assert_eq!(got, expect);
                    }
                    let prev = s.rqs[0].curr;
                    let next = s.pick_next_task_fair(0, prev);
                    if let Some(p) = prev { s.tasks[p].on_cpu = false; }
                    if let Some(n) = next { s.tasks[n].on_cpu = true; }
                    s.rqs[0].curr = next;
                }
            }
            let (sum, weight) = lag_sum(&mut s);
            prop_assert!(sum <= 0 && sum > -weight.max(1), "Σ w·lag = {sum} (Σ w = {weight})");
            s.check_invariants();
            prop_assert_eq!(s.invariant_violations, 0, "{:?}", s.invariant_messages);
        }
    }
}
