//! sched_feat registry (kernel/sched/features.h): every feature under its kernel name, with the
//! kernel default and one line of meaning. Parsed with the
//! `/sys/kernel/debug/sched/features` syntax: `NAME` turns a feature on, `NO_NAME` off.

use crate::error::InputError;

macro_rules! features {
    ($( $variant:ident = $name:literal, $default:literal, $meaning:literal; )*) => {
        /// A scheduler feature, named as in kernel/sched/features.h.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[allow(non_camel_case_types)]
        pub enum Feature { $( $variant, )* }

        /// Every feature: (feature, kernel name, kernel default, meaning).
        pub const REGISTRY: &[(Feature, &str, bool, &str)] = &[
            $( (Feature::$variant, $name, $default, $meaning), )*
        ];
    };
}

features! {
    PLACE_LAG = "PLACE_LAG", true, "preserve a waking entity's lag in place_entity";
    PLACE_DEADLINE_INITIAL = "PLACE_DEADLINE_INITIAL", true, "new tasks start with half a slice as their first request";
    PLACE_REL_DEADLINE = "PLACE_REL_DEADLINE", true, "keep the deadline relative across a non-sleep dequeue (migration, reweight)";
    RUN_TO_PARITY = "RUN_TO_PARITY", true, "protect the running task until it has run the minimum queued slice";
    PREEMPT_SHORT = "PREEMPT_SHORT", true, "a waking task with a shorter slice ignores the runner's slice protection";
    NEXT_BUDDY = "NEXT_BUDDY", false, "make the wakee the next buddy (on by default v6.19 until Jan 2026)";
    PICK_BUDDY = "PICK_BUDDY", true, "pick_eevdf honours cfs_rq->next when it is eligible";
    CACHE_HOT_BUDDY = "CACHE_HOT_BUDDY", true, "the load balancer treats buddies as cache hot";
    DELAY_DEQUEUE = "DELAY_DEQUEUE", true, "a task sleeping with negative lag stays queued until it is eligible";
    DELAY_ZERO = "DELAY_ZERO", true, "a delayed entity's positive lag is clipped to 0 when it finally leaves";
    PARANOID_AVG = "PARANOID_AVG", false, "overflow-checked avg_vruntime sums (v7.1)";
    WAKEUP_PREEMPTION = "WAKEUP_PREEMPTION", true, "a wake-up may preempt the running task";
    HRTICK = "HRTICK", false, "arm a high-resolution timer at the end of the running slice";
    HRTICK_DL = "HRTICK_DL", false, "hrtick for the deadline class";
    NONTASK_CAPACITY = "NONTASK_CAPACITY", true, "discount IRQ and steal time from CPU capacity";
    TTWU_QUEUE = "TTWU_QUEUE", true, "queue remote wake-ups on the target CPU's wake list (IPI)";
    SIS_UTIL = "SIS_UTIL", true, "limit the idle-CPU scan of select_idle_cpu by LLC utilisation";
    WARN_DOUBLE_CLOCK = "WARN_DOUBLE_CLOCK", false, "debug: warn on a double rq clock update";
    RT_PUSH_IPI = "RT_PUSH_IPI", false, "RT push via IPI (PREEMPT_RT only in the newest tree)";
    RT_RUNTIME_SHARE = "RT_RUNTIME_SHARE", false, "RT runtime borrowing between CPUs";
    LB_MIN = "LB_MIN", false, "load balancer skips tasks with tiny load";
    ATTACH_AGE_LOAD = "ATTACH_AGE_LOAD", true, "age a migrating task's PELT sums on attach";
    WA_IDLE = "WA_IDLE", true, "wake_affine prefers an idle waker/prev CPU";
    WA_WEIGHT = "WA_WEIGHT", true, "wake_affine compares the two CPUs' loads";
    WA_BIAS = "WA_BIAS", true, "wake_affine biases toward prev by imbalance_pct";
    UTIL_EST = "UTIL_EST", true, "estimated utilisation of sleeping-and-waking tasks";
    UTIL_EST_FASTER = "UTIL_EST_FASTER", false, "RFC (seed 003): boost cpu_util_cfs with the PELT ramp of curr's runtime in this activation, for every consumer";
    UTIL_EST_FASTER_FREQ = "UTIL_EST_FASTER_FREQ", false, "UTIL_EST_FASTER for frequency selection only (schedutil; seed 003's _freq)";
    UTIL_EST_FASTER_LB = "UTIL_EST_FASTER_LB", false, "UTIL_EST_FASTER for load balancing only (seed 003's _lb)";
    UTIL_EST_FASTER_OU = "UTIL_EST_FASTER_OU", false, "UTIL_EST_FASTER for the overutilized check only (seed 003's _ou)";
    UTIL_EST_FASTER_SLOWPATH = "UTIL_EST_FASTER_SLOWPATH", false, "UTIL_EST_FASTER for fork/exec placement only (seed 003's _slowpath)";
    UTIL_FITS_CAPACITY = "UTIL_FITS_CAPACITY", false, "RFC (seed 000): select_idle_sibling also takes a CPU whose runnable util_est leaves room for the task (20% margin, v2)";
    UTIL_FITS_CAPACITY_V1 = "UTIL_FITS_CAPACITY_V1", false, "with UTIL_FITS_CAPACITY: seed 000's v1 check, no margin (util ≤ capacity − thermal pressure)";
    SELECT_BIAS_PREV = "SELECT_BIAS_PREV", false, "RFC (seed 000): prefer prev when it is idle or has room, and fall back to prev when the idle scan fails";
    DELAY_DEQUEUE_RUNNABLE = "DELAY_DEQUEUE_RUNNABLE", false, "model switch: delayed entities still count as PELT-runnable, as in the Apr 2024 delayed-dequeue posting before 'sched/eevdf: Fixup PELT vs DELAYED_DEQUEUE' (seed 004)";
    PRIO_LB = "PRIO_LB", false, "RFC (seed 002): detach_tasks migrates non-SCHED_IDLE tasks before SCHED_IDLE ones";
    OVERUTIL_WITHOUT_EAS = "OVERUTIL_WITHOUT_EAS", false, "pre-v6.10 root-domain rules: read and update rd->overutilized even when EAS is off, and the top-level balance stores rd->overloaded unchanged or not (seed 001's before)";
    LATENCY_WARN = "LATENCY_WARN", false, "debug: warn on long need-resched latency";
    NI_RANDOM = "NI_RANDOM", true, "v7.1 proportional newidle balance: random skip";
    NI_RATE = "NI_RATE", true, "v7.1 proportional newidle balance: rate limit";
}

impl Feature {
    pub fn name(self) -> &'static str {
        REGISTRY[self as usize].1
    }

    pub fn kernel_default(self) -> bool {
        REGISTRY[self as usize].2
    }

    pub fn meaning(self) -> &'static str {
        REGISTRY[self as usize].3
    }

    pub fn from_name(name: &str) -> Option<Feature> {
        REGISTRY.iter().find(|r| r.1 == name).map(|r| r.0)
    }
}

/// The set of enabled features; a bit per feature so tests on the hot path are one AND.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Features {
    bits: u64,
}

impl Default for Features {
    /// The kernel defaults.
    fn default() -> Self {
        let mut f = Features { bits: 0 };
        for r in REGISTRY {
            f.set(r.0, r.2);
        }
        f
    }
}

impl Features {
    #[inline]
    pub fn on(&self, feat: Feature) -> bool {
        self.bits & (1u64 << feat as u32) != 0
    }

    pub fn set(&mut self, feat: Feature, on: bool) {
        if on {
            self.bits |= 1u64 << feat as u32;
        } else {
            self.bits &= !(1u64 << feat as u32);
        }
    }

    /// Apply a comma- or space-separated list in the debugfs syntax (`NO_DELAY_DEQUEUE,HRTICK`).
    /// `origin` names where the list came from, for the error.
    pub fn apply_list(&mut self, list: &str, origin: &str) -> Result<(), InputError> {
        for item in list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            self.apply_one(item, origin)?;
        }
        Ok(())
    }

    fn apply_one(&mut self, item: &str, origin: &str) -> Result<(), InputError> {
        let upper = item.to_ascii_uppercase();
        let (name, on) = match upper.strip_prefix("NO_") {
            Some(rest) => (rest, false),
            None => (upper.as_str(), true),
        };
        match Feature::from_name(name) {
            Some(f) => {
                self.set(f, on);
                Ok(())
            }
            None => {
                let close = closest_names(name, 3);
                Err(
                    InputError::new(origin, format!("unknown sched feature '{item}'")).with_fix(
                        format!(
                            "did you mean {}? `schedlab features` lists them all",
                            close.join(", ")
                        ),
                    ),
                )
            }
        }
    }

    /// Features whose value differs from the kernel default, in debugfs syntax, sorted by
    /// registry order (deterministic, for result documents).
    pub fn non_default(&self) -> Vec<String> {
        REGISTRY
            .iter()
            .filter(|r| self.on(r.0) != r.2)
            .map(|r| {
                if self.on(r.0) {
                    r.1.to_string()
                } else {
                    format!("NO_{}", r.1)
                }
            })
            .collect()
    }

    /// All features in the debugfs `features` file form (`NO_` prefix when off).
    pub fn debugfs_line(&self) -> String {
        REGISTRY
            .iter()
            .map(|r| {
                if self.on(r.0) {
                    r.1.to_string()
                } else {
                    format!("NO_{}", r.1)
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The `n` registry names closest to `name` by edit distance (ties in registry order).
fn closest_names(name: &str, n: usize) -> Vec<&'static str> {
    let mut scored: Vec<(usize, usize, &'static str)> = REGISTRY
        .iter()
        .enumerate()
        .map(|(i, r)| (edit_distance(name, r.1), i, r.1))
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|s| s.2).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_consistent() {
        assert!(REGISTRY.len() <= 64, "Features packs the set into a u64");
        for (i, r) in REGISTRY.iter().enumerate() {
            assert_eq!(r.0 as usize, i);
            assert_eq!(r.0.name(), r.1);
        }
    }

    #[test]
    fn defaults_match_kernel() {
        let f = Features::default();
        assert!(f.on(Feature::DELAY_DEQUEUE));
        assert!(f.on(Feature::RUN_TO_PARITY));
        assert!(!f.on(Feature::NEXT_BUDDY));
        assert!(!f.on(Feature::HRTICK));
        assert!(f.non_default().is_empty());
    }

    #[test]
    fn debugfs_syntax() {
        let mut f = Features::default();
        f.apply_list("NO_DELAY_DEQUEUE,HRTICK", "--features")
            .unwrap();
        assert!(!f.on(Feature::DELAY_DEQUEUE));
        assert!(f.on(Feature::HRTICK));
        assert_eq!(f.non_default(), vec!["NO_DELAY_DEQUEUE", "HRTICK"]);
    }

    #[test]
    fn unknown_feature_names_closest() {
        let e = Features::default()
            .apply_list("DELAY_DEQUEU", "--features")
            .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("unknown sched feature 'DELAY_DEQUEU'"), "{s}");
        assert!(s.contains("DELAY_DEQUEUE"), "{s}");
    }
}
