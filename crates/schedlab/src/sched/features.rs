//! sched_feat registry (kernel/sched/features.h): every feature under its kernel name, with the
//! kernel default and one line of meaning. Parsed with the
//! `/sys/kernel/debug/sched/features` syntax: `NAME` turns a feature on, `NO_NAME` off.

use super::version::KernelVersion;
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
    UTIL_EST_FASTER_UNSCALED = "UTIL_EST_FASTER_UNSCALED", false, "with UTIL_EST_FASTER*: the runtime is not scaled by CPU capacity and frequency (seed 003's unscaled util_est_faster row)";
    UTIL_EST_FASTER_FREQ = "UTIL_EST_FASTER_FREQ", false, "UTIL_EST_FASTER for frequency selection only (schedutil; seed 003's _freq)";
    UTIL_EST_FASTER_LB = "UTIL_EST_FASTER_LB", false, "UTIL_EST_FASTER for load balancing only (seed 003's _lb)";
    UTIL_EST_FASTER_OU = "UTIL_EST_FASTER_OU", false, "UTIL_EST_FASTER for the overutilized check only (seed 003's _ou)";
    UTIL_EST_FASTER_SLOWPATH = "UTIL_EST_FASTER_SLOWPATH", false, "UTIL_EST_FASTER for fork/exec placement only (seed 003's _slowpath)";
    UTIL_FITS_CAPACITY = "UTIL_FITS_CAPACITY", false, "RFC (seed 000): select_idle_sibling also takes a CPU whose runnable util_est leaves room for the task (20% margin, v2)";
    UTIL_FITS_CAPACITY_V1 = "UTIL_FITS_CAPACITY_V1", false, "with UTIL_FITS_CAPACITY: seed 000's v1 check, no margin (util ≤ capacity − thermal pressure)";
    SELECT_BIAS_PREV = "SELECT_BIAS_PREV", false, "RFC (seed 000): prefer prev when it is idle or has room, and fall back to prev when the idle scan fails";
    DELAY_DEQUEUE_RUNNABLE = "DELAY_DEQUEUE_RUNNABLE", false, "model switch: delayed entities still count as PELT-runnable, as in the Apr 2024 delayed-dequeue posting before 'sched/eevdf: Fixup PELT vs DELAYED_DEQUEUE' (seed 004)";
    DELAY_DEQUEUE_AS_POSTED = "DELAY_DEQUEUE_AS_POSTED", false, "model switch: delayed tasks' bookkeeping as in the Apr 2024 delayed-dequeue posting: util_est taken off the CPU at every dequeue and not put back by a delayed wake-up (ENQUEUE_DELAYED returns first), the EWMA updated when the delayed dequeue completes; a delayed task migrates still delayed and is counted in its new CPU's util_est and uclamp, which the delayed dequeue's completion does not take back (seed 004)";
    COMPLETE_EEVDF_RFC = "COMPLETE_EEVDF_RFC", false, "RFC (seed 004): the Apr 2024 'Complete EEVDF' posting applied to v6.6: delayed dequeue with DELAY_ZERO, delayed tasks still PELT-runnable and the posting's util_est/uclamp bookkeeping of them, and PREEMPT_SHORT (v6.6 only; merged in v6.12)";
    PRIO_LB = "PRIO_LB", false, "RFC (seed 002): detach_tasks migrates non-SCHED_IDLE tasks before SCHED_IDLE ones";
    OVERUTIL_WITHOUT_EAS = "OVERUTIL_WITHOUT_EAS", false, "pre-v6.10 root-domain rules: read and update rd->overutilized even when EAS is off, and the top-level balance stores rd->overloaded unchanged or not (seed 001's before)";
    LATENCY_WARN = "LATENCY_WARN", false, "debug: warn on long need-resched latency";
    NI_RANDOM = "NI_RANDOM", true, "v7.1 proportional newidle balance: random skip";
    NI_RATE = "NI_RATE", true, "v7.1 proportional newidle balance: rate limit";
    GENTLE_FAIR_SLEEPERS = "GENTLE_FAIR_SLEEPERS", false, "CFS (<= v6.5): sleeper credit is half of sched_latency";
    START_DEBIT = "START_DEBIT", false, "CFS (<= v6.5): a new task starts one vslice after min_vruntime";
    LAST_BUDDY = "LAST_BUDDY", false, "CFS (<= v6.5): prefer the task a wake-up preempted";
    ALT_PERIOD = "ALT_PERIOD", false, "CFS (v5.13-v6.5): sched_slice's period counts the root h_nr_running";
    BASE_SLICE = "BASE_SLICE", false, "CFS (v5.13-v6.5): sched_slice is at least min_granularity";
    UTIL_EST_FASTUP = "UTIL_EST_FASTUP", false, "before v6.8: util_est's ewma rises at once to a higher dequeued util (v6.8+ always does)";
}

/// What the April 2024 "Complete EEVDF" posting (seed 004) switches on, as the model
/// names it: SCHED_FEAT(DELAY_DEQUEUE, true) and SCHED_FEAT(DELAY_ZERO, true) from its
/// features.h hunk, PREEMPT_SHORT from its patch 09, and delayed entities counted as
/// PELT-runnable (the later "Fixup PELT vs DELAYED_DEQUEUE" was not in it), and its
/// util_est and uclamp bookkeeping of delayed tasks (patches 07 and 08; v6.12's "Fix
/// util_est accounting for DELAY_DEQUEUE" and the uclamp fix for delayed tasks came later).
const COMPLETE_EEVDF_RFC_SWITCHES: [Feature; 5] = [
    Feature::DELAY_DEQUEUE,
    Feature::DELAY_ZERO,
    Feature::DELAY_DEQUEUE_RUNNABLE,
    Feature::DELAY_DEQUEUE_AS_POSTED,
    Feature::PREEMPT_SHORT,
];

/// Where each feature exists: (first version that has it, first version that no longer
/// does). Pinned to kernel/sched/features.h of each release (docs/model.md, Kernel
/// versions). Model switches (RFCs of the seed threads) exist wherever what they switch does.
fn lifetime(f: Feature) -> (KernelVersion, Option<KernelVersion>) {
    use Feature::*;
    use KernelVersion as K;
    match f {
        // The EEVDF series, v6.6 ("sched/fair: Implement an EEVDF-like scheduling policy").
        PLACE_LAG | PLACE_DEADLINE_INITIAL | RUN_TO_PARITY => (K::V6_6, None),
        // The "complete EEVDF" series, v6.12.
        PLACE_REL_DEADLINE | PREEMPT_SHORT | DELAY_DEQUEUE | DELAY_ZERO => (K::V6_12, None),
        // 2a77e4be12cb "sched/fair: Untangle NEXT_BUDDY and pick_next_task()", v6.14.
        PICK_BUDDY => (K::V6_18, None),
        // A model switch of delayed dequeue, which 6.6 has under COMPLETE_EEVDF_RFC.
        DELAY_DEQUEUE_RUNNABLE | DELAY_DEQUEUE_AS_POSTED => (K::V6_6, None),
        // Seed 004 tested the posting on Android's v6.6.
        COMPLETE_EEVDF_RFC => (K::V6_6, Some(K::V6_8)),
        // v7.1.
        PARANOID_AVG | NI_RANDOM | NI_RATE => (K::Current, None),
        // "sched/fair: Introduce SIS_UTIL to search idle CPU based on sum of util_avg", v6.0.
        SIS_UTIL => (K::V6_1, None),
        // CFS features, removed by the EEVDF series in v6.6.
        GENTLE_FAIR_SLEEPERS | START_DEBIT | LAST_BUDDY | ALT_PERIOD | BASE_SLICE => {
            (K::V5_18, Some(K::V6_6))
        }
        // "Remove SCHED_FEAT(UTIL_EST_FASTUP)", v6.8.
        UTIL_EST_FASTUP => (K::V5_18, Some(K::V6_8)),
        _ => (K::V5_18, None),
    }
}

/// Defaults that differ from the registry's (today's) default in an older release.
fn default_override(f: Feature, v: KernelVersion) -> Option<bool> {
    use Feature::*;
    match f {
        // Before the v6.10 series "Add EAS checks before updating root_domain::overutilized".
        OVERUTIL_WITHOUT_EAS if v < KernelVersion::V6_12 => Some(true),
        GENTLE_FAIR_SLEEPERS | START_DEBIT | LAST_BUDDY | ALT_PERIOD | BASE_SLICE
        | UTIL_EST_FASTUP => Some(true),
        _ => None,
    }
}

impl Feature {
    /// The feature exists in kernel `v`'s features.h (or, for a model switch, applies there).
    pub fn exists_in(self, v: KernelVersion) -> bool {
        let (since, until) = lifetime(self);
        v >= since && until.is_none_or(|u| v < u)
    }

    /// Its default in kernel `v` (false where it does not exist).
    pub fn default_in(self, v: KernelVersion) -> bool {
        self.exists_in(v) && default_override(self, v).unwrap_or(self.kernel_default())
    }

    /// The supported versions that have it, for errors.
    pub fn versions_with(self) -> Vec<&'static str> {
        KernelVersion::ALL
            .iter()
            .filter(|v| self.exists_in(**v))
            .map(|v| v.name())
            .collect()
    }

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

/// Check that every name of a debugfs-syntax list is a sched feature of some modelled
/// kernel (which kernel has it is checked by [`Features::apply_list_in`]).
pub fn check_names(list: &str, origin: &str) -> Result<(), InputError> {
    for item in list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        let upper = item.to_ascii_uppercase();
        if Feature::from_name(upper.strip_prefix("NO_").unwrap_or(&upper)).is_none() {
            // The unknown-name error, with its suggestions.
            Features::for_kernel(KernelVersion::Current).apply_one(
                item,
                origin,
                KernelVersion::Current,
            )?;
        }
    }
    Ok(())
}

impl Features {
    /// Kernel `v`'s defaults; features it lacks are off.
    pub fn for_kernel(v: KernelVersion) -> Self {
        let mut f = Features { bits: 0 };
        for r in REGISTRY {
            f.set(r.0, r.0.default_in(v));
        }
        f
    }

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
        self.apply_list_in(list, origin, KernelVersion::Current)
    }

    /// As `apply_list`, refusing features kernel `v` does not have.
    pub fn apply_list_in(
        &mut self,
        list: &str,
        origin: &str,
        v: KernelVersion,
    ) -> Result<(), InputError> {
        for item in list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
        {
            self.apply_one(item, origin, v)?;
        }
        Ok(())
    }

    fn apply_one(&mut self, item: &str, origin: &str, v: KernelVersion) -> Result<(), InputError> {
        let upper = item.to_ascii_uppercase();
        let (name, on) = match upper.strip_prefix("NO_") {
            Some(rest) => (rest, false),
            None => (upper.as_str(), true),
        };
        match Feature::from_name(name) {
            Some(f) if !f.exists_in(v) => Err(InputError::new(
                origin,
                format!(
                    "sched feature '{item}' does not exist in kernel {}",
                    v.name()
                ),
            )
            .with_fix(format!(
                "it exists in kernel {}; drop it or pick one of those with --kernel",
                f.versions_with().join(", ")
            ))),
            Some(f) => {
                self.set(f, on);
                if f == Feature::COMPLETE_EEVDF_RFC {
                    // The posting's switches, which v6.6's features.h does not name.
                    for g in COMPLETE_EEVDF_RFC_SWITCHES {
                        self.set(g, on);
                    }
                }
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
        self.non_default_in(KernelVersion::Current)
    }

    /// As `non_default`, against kernel `v`'s defaults and over the features it has.
    pub fn non_default_in(&self, v: KernelVersion) -> Vec<String> {
        REGISTRY
            .iter()
            .filter(|r| r.0.exists_in(v) && self.on(r.0) != r.0.default_in(v))
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
