//! PELT arithmetic (kernel/sched/pelt.c, pelt.h, sched-pelt.h): struct sched_avg and the
//! integer sums and averages, exactly as pelt.c computes them. Which clock and which inputs
//! feed it is the business of `fair::load_avg` (fair.c's update_load_avg and its helpers).

use crate::time::Ns;

/// LOAD_AVG_PERIOD: y^32 = 1/2 (sched-pelt.h).
pub const LOAD_AVG_PERIOD: u64 = 32;
/// LOAD_AVG_MAX: the fixed point of m ← ⌊m·y⌋ + 1024 (sched-pelt.h).
pub const LOAD_AVG_MAX: u32 = 47742;
/// PELT_MIN_DIVIDER = LOAD_AVG_MAX − 1024 (pelt.h).
pub const PELT_MIN_DIVIDER: u32 = LOAD_AVG_MAX - 1024;
/// SCHED_CAPACITY_SHIFT.
pub const SCHED_CAPACITY_SHIFT: u32 = 10;

/// runnable_avg_yN_inv[n] = ⌊y^n · 2³²⌋ (sched-pelt.h).
pub const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
    0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
    0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

/// struct sched_avg (include/linux/sched.h).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchedAvg {
    /// PELT clock of the last update, ns (0 = not attached to a cfs_rq yet).
    pub last_update_time: Ns,
    pub load_sum: u64,
    pub runnable_sum: u64,
    pub util_sum: u32,
    /// 1024-ns units already accumulated in the open period.
    pub period_contrib: u32,
    pub load_avg: u64,
    pub runnable_avg: u64,
    pub util_avg: u64,
    /// util_est with the UTIL_AVG_UNCHANGED flag in the MSB (before v6.8: util_est.ewma,
    /// the flag kept here too).
    pub util_est: u32,
    /// Before v6.8: util_est.enqueued, the task's util_avg at its last sleep.
    pub util_est_enqueued: u32,
}

/// decay_load(val, n) = val·yⁿ with the kernel's rounding (pelt.c).
pub fn decay_load(val: u64, n: u64) -> u64 {
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let mut val = val;
    let mut n = n;
    if n >= LOAD_AVG_PERIOD {
        val >>= n / LOAD_AVG_PERIOD;
        n %= LOAD_AVG_PERIOD;
    }
    // mul_u64_u32_shr(val, inv[n], 32)
    ((val as u128 * RUNNABLE_AVG_YN_INV[n as usize] as u128) >> 32) as u64
}

/// __accumulate_pelt_segments (pelt.c).
pub fn __accumulate_pelt_segments(periods: u64, d1: u32, d3: u32) -> u32 {
    let c1 = decay_load(d1 as u64, periods) as u32;
    let c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX as u64, periods) as u32 - 1024;
    c1 + c2 + d3
}

/// get_pelt_divider (pelt.h).
pub fn get_pelt_divider(sa: &SchedAvg) -> u32 {
    PELT_MIN_DIVIDER + sa.period_contrib
}

/// accumulate_sum (pelt.c); `delta` in 1024-ns units. Returns the periods crossed.
pub fn accumulate_sum(
    delta: u64,
    sa: &mut SchedAvg,
    load: u64,
    runnable: u64,
    running: bool,
) -> u64 {
    // Truncation as the kernel's (u32)delta: without a boundary, delta < 1024.
    let mut contrib = delta as u32;
    let delta = delta + sa.period_contrib as u64;
    let periods = delta / 1024;
    let delta = delta % 1024;
    if periods > 0 {
        sa.load_sum = decay_load(sa.load_sum, periods);
        sa.runnable_sum = decay_load(sa.runnable_sum, periods);
        sa.util_sum = decay_load(sa.util_sum as u64, periods) as u32;
        if load != 0 {
            contrib = __accumulate_pelt_segments(periods, 1024 - sa.period_contrib, delta as u32);
        }
    }
    sa.period_contrib = delta as u32;
    if load != 0 {
        sa.load_sum += load * contrib as u64;
    }
    if runnable != 0 {
        sa.runnable_sum += (runnable * contrib as u64) << SCHED_CAPACITY_SHIFT;
    }
    if running {
        sa.util_sum += contrib << SCHED_CAPACITY_SHIFT;
    }
    periods
}

/// ___update_load_sum: advance the sums to `now` (PELT clock, ns). True when a period
/// boundary was crossed, i.e. the averages must be recomputed.
pub fn ___update_load_sum(
    now: Ns,
    sa: &mut SchedAvg,
    load: u64,
    runnable: u64,
    running: bool,
) -> bool {
    if now < sa.last_update_time {
        // The clock went backwards: resync and skip.
        sa.last_update_time = now;
        return false;
    }
    let delta = (now - sa.last_update_time) >> 10;
    if delta == 0 {
        return false;
    }
    sa.last_update_time += delta << 10;
    let (runnable, running) = if load == 0 {
        (0, false)
    } else {
        (runnable, running)
    };
    accumulate_sum(delta, sa, load, runnable, running) != 0
}

/// ___update_load_avg: averages from sums with the current divider.
pub fn ___update_load_avg(sa: &mut SchedAvg, load: u64) {
    let divider = get_pelt_divider(sa);
    sa.load_avg = div_by_divider(load * sa.load_sum, divider);
    sa.runnable_avg = div_by_divider(sa.runnable_sum, divider);
    sa.util_avg = (sa.util_sum / divider) as u64;
}

/// `n / divider`, in 32 bits when `n` fits (the usual case for a task): same result, a
/// cheaper division on the simulator's hottest path.
fn div_by_divider(n: u64, divider: u32) -> u64 {
    match u32::try_from(n) {
        Ok(n) => (n / divider) as u64,
        Err(_) => n / divider as u64,
    }
}

/// faster_est_approx (util_est_faster RFC, seed 003): the util_avg a task with no history
/// reaches after running `delta` (1024-ns units) from a period boundary.
pub fn faster_est_approx(delta: u64) -> u64 {
    let periods = delta / 1024;
    let contrib = if periods > 0 {
        __accumulate_pelt_segments(periods, 1024, (delta % 1024) as u32) as u64
    } else {
        delta
    };
    (contrib << SCHED_CAPACITY_SHIFT) / PELT_MIN_DIVIDER as u64
}

/// One PELT step of a signal: sums, then averages if a period boundary was crossed.
/// Returns whether the averages changed ("decayed").
pub fn update_signal(
    now: Ns,
    sa: &mut SchedAvg,
    load: u64,
    runnable: u64,
    running: bool,
    avg_load: u64,
) -> bool {
    if ___update_load_sum(now, sa, load, runnable, running) {
        ___update_load_avg(sa, avg_load);
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERIOD_NS: Ns = 1024 * 1024;

    /// A nice-0 task entity running (or sleeping) from a period boundary.
    fn step(sa: &mut SchedAvg, to: Ns, running: bool) {
        let on = running as u64;
        update_signal(to, sa, on, on, running, 1024);
    }

    fn always_running(periods: u64) -> SchedAvg {
        let mut sa = SchedAvg {
            last_update_time: PERIOD_NS,
            ..Default::default()
        };
        for p in 1..=periods {
            step(&mut sa, PERIOD_NS * (p + 1), true);
        }
        sa
    }

    #[test]
    fn load_avg_max_is_the_fixed_point() {
        // m ← ⌊m·inv[1]/2³²⌋ + 1024 from 0 stops moving at 47742 (LOAD_AVG_MAX).
        let mut m = 0u64;
        let mut steps = 0;
        loop {
            let next = decay_load(m, 1) + 1024;
            if next == m {
                break;
            }
            m = next;
            steps += 1;
        }
        assert_eq!(m, LOAD_AVG_MAX as u64);
        // 347 changes; the 348th iteration is the one that finds the fixed point.
        assert_eq!(steps, 347);
        assert_eq!(PELT_MIN_DIVIDER, 46718);
    }

    #[test]
    fn decay_load_matches_the_table_and_halves() {
        assert_eq!(decay_load(1024, 0), 1023); // inv[0] = 2³² − 1
        assert_eq!(decay_load(1024, 1), 1002); // ⌊1024 · 0.978572⌋
        assert_eq!(decay_load(1024, 32), 511); // >>1 then inv[0]
        assert_eq!(decay_load(1 << 20, 64), (1 << 18) - 1);
        assert_eq!(decay_load(u64::MAX, 2017), 0);
        assert_eq!(decay_load(1 << 40, 2016), 0);
    }

    #[test]
    fn always_running_values_are_exact() {
        // Hand computation: after p whole periods the util_sum is
        // 1024·(decay(1024,p) + 47742 − decay(47742,p) − 1024) from the first step, then
        // each later period adds 1024·(c1+c2) with c1 = ⌊1024·y⌋ = 1002, c2 = 0
        // (LOAD_AVG_MAX − ⌊LOAD_AVG_MAX·y⌋ − 1024 = 47742 − 46718 − 1024 = 0).
        let one = always_running(1);
        assert_eq!(decay_load(47742, 1), 46718);
        assert_eq!(one.util_sum, 1002 << 10);
        assert_eq!(one.util_avg, (1002u64 << 10) / 46718); // 21
        assert_eq!(one.util_avg, 21);
        assert_eq!(one.load_sum, 1002);
        assert_eq!(one.load_avg, 1024 * 1002 / 46718);
        let mut sum: u64 = 0;
        for p in 1..=100u64 {
            sum = decay_load(sum, 1) + (1002 << 10);
            let sa = always_running(p);
            assert_eq!(sa.util_sum as u64, sum, "period {p}");
            assert_eq!(sa.util_avg, sum / 46718, "period {p}");
        }
        assert_eq!(always_running(4).util_avg, 85);
        assert_eq!(always_running(32).util_avg, 512);
        assert_eq!(always_running(100).util_avg, 907);
    }

    #[test]
    fn always_running_converges_to_the_kernel_limit() {
        // The sum's fixed point s = ⌊s·y⌋ + 1002·1024 is 47,883,609 (worked out by iterating
        // the recurrence); 47,883,609 / 46,718 = 1024 — the kernel's limit for a task that
        // never stops.
        let sa = always_running(2000);
        assert_eq!(sa.util_sum, 47_883_609);
        assert_eq!(sa.util_avg, 1024);
        assert_eq!(sa.runnable_avg, 1024);
        assert_eq!(sa.load_avg, 1024 * sa.load_sum / 46718);
    }

    #[test]
    fn sleeping_task_decays_exactly() {
        let sa = always_running(200);
        let start = sa.util_sum as u64;
        let t0 = sa.last_update_time;
        for n in [1u64, 2, 31, 32, 33, 64, 100, 345] {
            let mut s = sa;
            update_signal(t0 + n * PERIOD_NS, &mut s, 0, 0, false, 1024);
            assert_eq!(s.util_sum as u64, decay_load(start, n), "n = {n}");
            assert_eq!(s.util_avg, decay_load(start, n) / 46718);
        }
        // A sleep of 32 periods halves the sum to within the table's rounding.
        let mut s = sa;
        update_signal(t0 + 32 * PERIOD_NS, &mut s, 0, 0, false, 1024);
        assert!(s.util_sum as u64 <= start / 2 && s.util_sum as u64 + 1 >= start / 2);
    }

    #[test]
    fn faster_est_approx_is_the_ramp_from_zero() {
        // 500 units, no boundary: 500·1024/46718 = 10.
        assert_eq!(faster_est_approx(500), 10);
        // 32 periods: c1 = ⌊1024·y³²⌋ = 511, c2 = 47742 − 23870 − 1024 = 22848;
        // (511 + 22848)·1024 / 46718 = 23,919,616 / 46718 = 512 exactly.
        assert_eq!(decay_load(47742, 32), 23870);
        assert_eq!(faster_est_approx(32 * 1024), 512);
        // It grows with runtime and saturates near 1024.
        assert!(faster_est_approx(4 * 1024) < faster_est_approx(8 * 1024));
        assert!((1020..=1024).contains(&faster_est_approx(2000 * 1024)));
    }

    #[test]
    fn sub_period_updates_only_move_sums() {
        let mut sa = always_running(10);
        let avg = sa.util_avg;
        let t = sa.last_update_time;
        // 500 µs into the next period: sums grow, averages stay.
        assert!(!update_signal(t + 500 * 1024, &mut sa, 1, 1, true, 1024));
        assert_eq!(sa.util_avg, avg);
        assert_eq!(sa.period_contrib, 500);
        // Sub-1024-ns remainder is kept in the clock, not lost.
        assert!(!update_signal(
            t + 500 * 1024 + 1000,
            &mut sa,
            1,
            1,
            true,
            1024
        ));
        assert_eq!(sa.last_update_time, t + 500 * 1024);
        // Clock going backwards resyncs without accumulating.
        let before = sa;
        assert!(!update_signal(t, &mut sa, 1, 1, true, 1024));
        assert_eq!(sa.last_update_time, t);
        assert_eq!(sa.util_sum, before.util_sum);
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// Any history of runs, sleeps and waits at any weight, in steps from 1 ns to
            /// 10 s: util_avg ≤ 1024, a cfs_rq's runnable_avg within a rounding unit per
            /// task of 1024 · the most tasks it had, load_avg within 0.1% of the largest weight, and
            /// no sum overflows (tests build with overflow checks, so an overflow panics).
            #[test]
            fn signals_stay_in_range(
                steps in proptest::collection::vec(
                    (1u64..10_000_000_000, 0u8..3, 1u64..=88761, 1u64..=64),
                    1..200,
                ),
            ) {
                let mut se = SchedAvg { last_update_time: 1, ..Default::default() };
                let mut rq = SchedAvg { last_update_time: 1, ..Default::default() };
                let mut now = 1u64;
                let (mut max_nr, mut max_w) = (0, 0);
                for (dt, state, weight, nr) in steps {
                    now += dt;
                    max_nr = max_nr.max(nr);
                    // Averages are only recomputed at period boundaries, so they may
                    // still reflect an earlier, larger weight or task count.
                    max_w = max_w.max(weight);
                    // 0 = running, 1 = runnable but waiting, 2 = sleeping.
                    let (load, running) = (state != 2, state == 0);
                    update_signal(now, &mut se, load as u64, load as u64, running, weight);
                    update_signal(now, &mut rq, weight * nr, nr, running, 1);
                    prop_assert!(se.util_avg <= 1024);
                    prop_assert!(se.runnable_avg <= 1024);
                    prop_assert!(se.load_avg * 1024 <= max_w * 1025, "{} vs weight {max_w}", se.load_avg);
                    prop_assert!(rq.util_avg <= 1024);
                    // The table's truncations let a full sum exceed 1024 by a fraction of
                    // a unit per task (it floors away for one task, not for 63).
                    prop_assert!(rq.runnable_avg <= 1025 * max_nr, "{} > 1025·{max_nr}", rq.runnable_avg);
                    // c2 = LOAD_AVG_MAX − ⌊decay(LOAD_AVG_MAX)⌋ − 1024 rounds up, so a long run
                    // settles up to one contribution unit (1024 in util_sum) above the max.
                    prop_assert!(
                        se.util_sum as u64 <= (LOAD_AVG_MAX as u64 + 1) * 1024,
                        "util_sum {} = {} · 1024 + {}",
                        se.util_sum,
                        se.util_sum / 1024,
                        se.util_sum % 1024
                    );
                }
            }
        }
    }
}
