//! Load weights and weighted time (kernel/sched/core.c, sched.h, fair.c): the nice tables,
//! the fixed-point scaling macros and calc_delta_fair in the kernel's mult-shift form (v7.0).

/// sched_prio_to_weight, indexed by nice + 20 (core.c).
pub const SCHED_PRIO_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// sched_prio_to_wmult ≈ 2³²/weight, indexed by nice + 20 (core.c). The kernel's
/// values are kept as they are: 13 of them are ⌊2³²/w⌋ + 1, not the floor.
pub const SCHED_PRIO_TO_WMULT: [u32; 40] = [
    48388, 59856, 76040, 92818, 118348, 147320, 184698, 229616, 287308, 360437, 449829, 563644,
    704093, 875809, 1099582, 1376151, 1717300, 2157191, 2708050, 3363326, 4194304, 5237765,
    6557202, 8165337, 10153587, 12820798, 15790321, 19976592, 24970740, 31350126, 39045157,
    49367440, 61356676, 76695844, 95443717, 119304647, 148102320, 186737708, 238609294, 286331153,
];

/// SCHED_IDLE weight and inverse (WEIGHT_IDLEPRIO / WMULT_IDLEPRIO, sched.h).
pub const WEIGHT_IDLEPRIO: u32 = 3;
pub const WMULT_IDLEPRIO: u32 = 1431655765;

/// SCHED_FIXEDPOINT_SHIFT / NICE_0_LOAD on 64-bit (sched.h).
pub const SCHED_FIXEDPOINT_SHIFT: u32 = 10;
pub const NICE_0_LOAD: u64 = 1 << 20;
const WMULT_CONST: u64 = (1 << 32) - 1;
const WMULT_SHIFT: u32 = 32;

/// scale_load (kernel/sched/sched.h).
#[inline]
pub const fn scale_load(w: u64) -> u64 {
    w << SCHED_FIXEDPOINT_SHIFT
}

/// scale_load_down: 0 stays 0, otherwise at least 2 (kernel/sched/sched.h).
#[inline]
pub const fn scale_load_down(w: u64) -> u64 {
    if w == 0 {
        0
    } else {
        let d = w >> SCHED_FIXEDPOINT_SHIFT;
        if d < 2 {
            2
        } else {
            d
        }
    }
}

/// struct load_weight: full-resolution weight and its cached inverse (0 = not computed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadWeight {
    pub weight: u64,
    pub inv_weight: u32,
}

impl LoadWeight {
    /// set_load_weight for a task (core.c): table weight for nice, or the
    /// SCHED_IDLE weight.
    pub fn for_task(nice: i32, idle_policy: bool) -> LoadWeight {
        if idle_policy {
            LoadWeight {
                weight: scale_load(WEIGHT_IDLEPRIO as u64),
                inv_weight: WMULT_IDLEPRIO,
            }
        } else {
            let idx = (nice.clamp(-20, 19) + 20) as usize;
            LoadWeight {
                weight: scale_load(SCHED_PRIO_TO_WEIGHT[idx] as u64),
                inv_weight: SCHED_PRIO_TO_WMULT[idx],
            }
        }
    }

    /// A weight that is not a table value (group entities): inverse computed lazily.
    pub fn raw(weight: u64) -> LoadWeight {
        LoadWeight {
            weight,
            inv_weight: 0,
        }
    }

    /// __update_inv_weight (fair.c).
    #[inline]
    fn inv(&self) -> u64 {
        if self.inv_weight != 0 {
            return self.inv_weight as u64;
        }
        let w = scale_load_down(self.weight);
        if w >= WMULT_CONST {
            1
        } else {
            WMULT_CONST.checked_div(w).unwrap_or(WMULT_CONST)
        }
    }
}

/// Position of the highest set bit, 1-based (fls).
#[inline]
fn fls(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// __calc_delta(delta, weight, lw) ≈ delta · weight / lw.weight, mult-shift form
/// (fair.c, v7.0).
#[inline]
pub fn __calc_delta(delta: u64, weight: u64, lw: &LoadWeight) -> u64 {
    let mut fact = scale_load_down(weight);
    let mut shift = WMULT_SHIFT;
    let fact_hi = fact >> 32;
    if fact_hi != 0 {
        let fs = fls(fact_hi);
        shift -= fs;
        fact >>= fs;
    }
    fact = (fact & 0xffff_ffff) * lw.inv();
    let fact_hi = fact >> 32;
    if fact_hi != 0 {
        let fs = fls(fact_hi);
        shift -= fs;
        fact >>= fs;
    }
    ((delta as u128 * fact as u128) >> shift) as u64
}

/// calc_delta_fair: wall time → virtual time for this entity.
#[inline]
pub fn calc_delta_fair(delta: u64, lw: &LoadWeight) -> u64 {
    if lw.weight == NICE_0_LOAD {
        delta
    } else {
        __calc_delta(delta, NICE_0_LOAD, lw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wmult_is_the_inverse_of_weight() {
        for i in 0..40 {
            let w = SCHED_PRIO_TO_WEIGHT[i] as u64;
            let exact = (1u64 << 32) / w;
            let m = SCHED_PRIO_TO_WMULT[i] as u64;
            assert!(m == exact || m == exact + 1, "index {i}: {m} vs {exact}");
        }
        // Adjacent nice levels differ by about 1.25x (the table's 10% rule, core.c).
        for i in 1..40 {
            let r = SCHED_PRIO_TO_WEIGHT[i - 1] as f64 / SCHED_PRIO_TO_WEIGHT[i] as f64;
            assert!((1.17..1.33).contains(&r), "index {i}: ratio {r}");
        }
        assert_eq!(WMULT_IDLEPRIO as u64, (1u64 << 32) / 3);
    }

    #[test]
    fn scale_macros() {
        assert_eq!(scale_load(1024), NICE_0_LOAD);
        assert_eq!(scale_load_down(NICE_0_LOAD), 1024);
        assert_eq!(scale_load_down(0), 0);
        assert_eq!(scale_load_down(100), 2);
    }

    #[test]
    fn nice5_worked_example() {
        // Worked by hand: fact 3,282,124,288 with shift 30, i.e. delta × 3.05671…
        let lw = LoadWeight::for_task(5, false);
        let d = 1_000_000u64;
        assert_eq!(
            calc_delta_fair(d, &lw),
            ((d as u128 * 3_282_124_288u128) >> 30) as u64
        );
        assert_eq!(calc_delta_fair(d, &lw), 3_056_716);
    }

    #[test]
    fn nice0_is_identity_and_idle_is_heavy() {
        let n0 = LoadWeight::for_task(0, false);
        assert_eq!(calc_delta_fair(12345, &n0), 12345);
        let idle = LoadWeight::for_task(0, true);
        // 1024/3 = 341.33…: the mult-shift form truncates.
        assert_eq!(calc_delta_fair(3_000_000, &idle), 1_023_999_999);
    }

    #[test]
    fn lazy_inverse_for_raw_weights() {
        let lw = LoadWeight::raw(scale_load(2048));
        assert_eq!(lw.inv(), WMULT_CONST / 2048);
        // 2048 weight runs at half speed in virtual time (to the last unit of the formula).
        assert_eq!(calc_delta_fair(1_000_000, &lw), 499_999);
    }
}
