use super::*;
use proptest::prelude::*;

#[test]
fn wrapping_comparison() {
    assert!(vlt(1, 2));
    assert!(!vlt(2, 1));
    assert!(!vlt(5, 5));
    // Across the u64 wrap: u64::MAX is "just before" 0.
    assert!(vlt(u64::MAX, 0));
    assert!(!vlt(0, u64::MAX));
    let base = 0u64.wrapping_sub(1 << 20); // the kernel's initial zero_vruntime
    assert!(vlt(base, base.wrapping_add(1 << 21)));
    assert!(vlt(base.wrapping_sub(10), base));
    // Half-range boundary: differences > 2^63 flip sign; at exactly 2^63 both
    // directions compare "less" (i64::MIN), as in the kernel.
    assert!(vlt(0, (1u64 << 63) - 1));
    assert!(!vlt(0, (1u64 << 63) + 1));
    assert!(vlt((1u64 << 63) + 1, 0));
    assert!(vlt(0, 1u64 << 63) && vlt(1u64 << 63, 0));
    assert_eq!(vmin(u64::MAX, 3), u64::MAX);
    assert_eq!(vmin(3, u64::MAX), u64::MAX);
    assert_eq!(vmin(7, 9), 7);
}

impl EntityTree {
    fn is_tree(&self) -> bool {
        matches!(self.form, Form::Tree(_))
    }

    fn check_form(&self) {
        if let Form::Tree(t) = &self.form {
            t.check_invariants();
        }
    }
}

/// Both forms agree on ties and across the wrap: the same queue built past the limit (a
/// tree, with and without the subtree min_vruntime a CFS queue skips) and below it (an
/// array) answers alike at every step of growing and shrinking.
#[test]
fn the_array_and_the_tree_give_the_same_answers() {
    let base = 0u64.wrapping_sub(1 << 20);
    let mut small = EntityTree::with_small_max(usize::MAX);
    let mut tree = EntityTree::with_small_max(0);
    let mut hybrid = EntityTree::new();
    let mut untracked = EntityTree::with_small_max(0);
    untracked.set_tracks_eligibility(false);
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let step = |t: &mut [&mut EntityTree; 4], ins: Option<(u32, u64, u64, u64)>, rm: u32| {
        for q in t.iter_mut() {
            match ins {
                Some((id, d, v, sl)) => q.insert(id, d, v, sl),
                None => assert!(q.remove(rm)),
            }
            q.check_form();
        }
        let all: Vec<Vec<_>> = t.iter().map(|q| q.iter().collect()).collect();
        assert_eq!(all[0], all[1]);
        assert_eq!(all[0], all[2]);
        assert_eq!(all[0], all[3]);
        for thr in [base, base.wrapping_add(1 << 19), base.wrapping_add(1 << 21)] {
            let picks: Vec<_> = t
                .iter()
                .map(|q| q.pick_eligible(|v| !vlt(thr, v)))
                .collect();
            assert_eq!(picks[0], picks[1]);
            assert_eq!(picks[0], picks[2]);
            assert_eq!(picks[0], picks[3]);
        }
        let aggs: Vec<_> = t
            .iter()
            .map(|q| (q.first(), q.min_slice(), q.max_slice(), q.min_vruntime()))
            .collect();
        assert_eq!(aggs[0], aggs[1]);
        assert_eq!(aggs[0], aggs[2]);
        assert_eq!(aggs[0], aggs[3]);
    };
    let mut qs = [&mut small, &mut tree, &mut hybrid, &mut untracked];
    let mut grew_past = false;
    for id in 0..100u32 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // Few distinct deadlines: many exact ties, some across the wrap.
        let d = base.wrapping_add((s % 5) << 19);
        let v = base.wrapping_add((s >> 8) % (1 << 21));
        step(&mut qs, Some((id, d, v, 1000 + (s >> 40) % 7)), 0);
        grew_past |= qs[2].is_tree();
    }
    assert!(grew_past, "the hybrid became a tree");
    for id in (0..100u32).rev() {
        step(&mut qs, None, (id * 37) % 100);
    }
    assert!(!qs[2].is_tree() && qs[2].is_empty());
    assert!(!qs[0].is_tree());
    assert!(qs[3].is_empty());
}

#[derive(Clone, Debug)]
enum Op {
    /// Insert if absent, remove if present.
    Toggle { id: u32, d: u64, v: u64, slice: u64 },
    /// Remove (possibly absent).
    Remove(u32),
    /// Check pick_eligible with this threshold.
    Pick(u64),
    /// Change a (possibly absent) entity's slice.
    Slice(u32, u64),
}

const BASE: u64 = 0u64.wrapping_sub(1 << 20);

/// Virtual times near the u64 wrap: BASE + offset, offset in [-2^21, 2^21], with a
/// strong bias to a handful of values (many exact ties).
fn vtime() -> impl Strategy<Value = u64> {
    prop_oneof![
        (0u64..6).prop_map(|k| BASE.wrapping_add(k * (1 << 19))),
        (-(1i64 << 21)..=(1i64 << 21)).prop_map(|o| BASE.wrapping_add(o as u64)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..48, vtime(), vtime(), prop_oneof![Just(700_000u64), 100_000u64..100_000_000])
            .prop_map(|(id, d, v, slice)| Op::Toggle { id, d, v, slice }),
        1 => (0u32..60).prop_map(Op::Remove),
        2 => vtime().prop_map(Op::Pick),
        1 => (0u32..60, 100_000u64..100_000_000).prop_map(|(id, s)| Op::Slice(id, s)),
    ]
}

/// Signed key relative to BASE; all test values are within +-2^22 of BASE.
fn key(x: u64) -> i64 {
    x.wrapping_sub(BASE) as i64
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    /// Against a brute-force model, with a limit of 4 (forms change often), the default
    /// and "always a tree".
    #[test]
    fn matches_brute_force(
        ops in proptest::collection::vec(op(), 1..300),
        small_max in prop_oneof![Just(4usize), Just(SMALL_MAX), Just(0)],
    ) {
        let mut t = EntityTree::with_small_max(small_max);
        // Model: (id, deadline, vruntime, slice, seq)
        let mut model: Vec<(u32, u64, u64, u64, u64)> = Vec::new();
        let mut seq = 0u64;
        for op in ops {
            match op {
                Op::Toggle { id, d, v, slice } => {
                    if let Some(p) = model.iter().position(|e| e.0 == id) {
                        model.remove(p);
                        prop_assert!(t.remove(id));
                    } else {
                        model.push((id, d, v, slice, seq));
                        seq += 1;
                        t.insert(id, d, v, slice);
                    }
                }
                Op::Remove(id) => {
                    let present = model.iter().position(|e| e.0 == id);
                    if let Some(p) = present {
                        model.remove(p);
                    }
                    prop_assert_eq!(t.remove(id), present.is_some());
                }
                Op::Pick(thr) => {
                    let mut sorted = model.clone();
                    sorted.sort_by_key(|e| (key(e.1), e.4));
                    let want = sorted.iter().find(|e| key(e.2) <= key(thr)).map(|e| e.0);
                    let got = t.pick_eligible(|v| (v.wrapping_sub(thr) as i64) <= 0);
                    prop_assert_eq!(got, want);
                }
                Op::Slice(id, s) => {
                    let present = model.iter_mut().find(|e| e.0 == id);
                    let was = present.is_some();
                    if let Some(e) = present {
                        e.3 = s;
                    }
                    prop_assert_eq!(t.set_slice(id, s), was);
                }
            }
            let mut sorted = model.clone();
            sorted.sort_by_key(|e| (key(e.1), e.4));
            let want: Vec<_> = sorted.iter().map(|e| (e.0, e.1, e.2, e.3)).collect();
            let got: Vec<_> = t.iter().collect();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(t.len(), model.len());
            prop_assert_eq!(t.is_empty(), model.is_empty());
            prop_assert_eq!(t.first(), sorted.first().map(|e| e.0));
            prop_assert_eq!(
                t.min_vruntime(),
                model.iter().map(|e| e.2).min_by_key(|&v| key(v))
            );
            prop_assert_eq!(t.min_slice(), model.iter().map(|e| e.3).min());
            prop_assert_eq!(t.max_slice(), model.iter().map(|e| e.3).max());
            for id in 0..60u32 {
                prop_assert_eq!(t.contains(id), model.iter().any(|e| e.0 == id));
            }
            t.check_form();
        }
    }
}
