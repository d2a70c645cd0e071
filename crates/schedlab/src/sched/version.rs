//! The kernel version the model follows (`--kernel`, `kernel = "…"`): a profile of which
//! fair-class algorithm runs (CFS up to v6.5, the EEVDF generations after), which sched
//! features exist with which defaults (features.rs) and which behaviours around the pick
//! exist (docs/model.md, Kernel versions).

use crate::error::InputError;

/// A supported kernel release. Ordered by release: `a < b` means a is older.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum KernelVersion {
    V5_18,
    V6_1,
    V6_5,
    V6_6,
    V6_8,
    V6_12,
    V6_18,
    /// Today's model (mainline v7.x); the default.
    #[default]
    Current,
}

/// The fair class's algorithm generation (the points where fair.c differs between eras).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FairGen {
    /// CFS: vruntime-ordered pick, sched_slice / check_preempt_tick, sleeper credit (≤ v6.5).
    Cfs,
    /// EEVDF as merged in v6.6: lag placement, RUN_TO_PARITY up to the deadline, no delayed
    /// dequeue (v6.6 – v6.11).
    Eevdf66,
    /// The "complete EEVDF" series (v6.12): DELAY_DEQUEUE / DELAY_ZERO, PREEMPT_SHORT,
    /// PLACE_REL_DEADLINE (v6.12 – v6.16).
    Eevdf612,
    /// v6.17/6.18: slice protection bounded by the min queued slice (set_protect_slice).
    Eevdf617,
    /// Today's model (v6.19+ zero_vruntime, v7.x lag clamp and newidle features).
    Current,
}

impl KernelVersion {
    /// The fair deadline server (dl_server, "sched/fair: Fair server interface" and the
    /// removal of default RT throttling, v6.12) protects fair tasks from RT starvation.
    #[inline]
    pub fn has_fair_server(self) -> bool {
        self >= KernelVersion::V6_12
    }

    /// Every supported version, oldest first.
    pub const ALL: [KernelVersion; 8] = [
        KernelVersion::V5_18,
        KernelVersion::V6_1,
        KernelVersion::V6_5,
        KernelVersion::V6_6,
        KernelVersion::V6_8,
        KernelVersion::V6_12,
        KernelVersion::V6_18,
        KernelVersion::Current,
    ];

    pub fn name(self) -> &'static str {
        match self {
            KernelVersion::V5_18 => "5.18",
            KernelVersion::V6_1 => "6.1",
            KernelVersion::V6_5 => "6.5",
            KernelVersion::V6_6 => "6.6",
            KernelVersion::V6_8 => "6.8",
            KernelVersion::V6_12 => "6.12",
            KernelVersion::V6_18 => "6.18",
            KernelVersion::Current => "current",
        }
    }

    /// The supported list, for error messages and help.
    pub fn supported_list() -> String {
        KernelVersion::ALL
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Parse `6.5`, `v6.5`, `6.5.5` (the patch level is ignored: the model follows the
    /// release's fair.c, not its stable backports), `current`. `origin` names the flag or
    /// key for the error.
    pub fn parse(text: &str, origin: &str) -> Result<KernelVersion, InputError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("current") {
            return Ok(KernelVersion::Current);
        }
        let t = t.strip_prefix(['v', 'V']).unwrap_or(t);
        // Drop a -suffix (6.5.0-14-generic) and the patch level.
        let t = t.split(['-', '+', '_', ' ']).next().unwrap_or("");
        let mut parts = t.split('.');
        let major = parts.next().and_then(|s| s.parse::<u32>().ok());
        let minor = parts.next().and_then(|s| s.parse::<u32>().ok());
        let found = match (major, minor) {
            (Some(maj), Some(min)) => KernelVersion::ALL
                .iter()
                .copied()
                .find(|v| v.major_minor() == Some((maj, min))),
            _ => None,
        };
        found.ok_or_else(|| {
            InputError::new(origin, format!("unsupported kernel version '{text}'")).with_fix(
                format!(
                    "use one of {} (a patch level such as 6.5.5 is accepted and ignored)",
                    KernelVersion::supported_list()
                ),
            )
        })
    }

    /// (major, minor) of a numbered release; `None` for `current`.
    pub fn major_minor(self) -> Option<(u32, u32)> {
        Some(match self {
            KernelVersion::V5_18 => (5, 18),
            KernelVersion::V6_1 => (6, 1),
            KernelVersion::V6_5 => (6, 5),
            KernelVersion::V6_6 => (6, 6),
            KernelVersion::V6_8 => (6, 8),
            KernelVersion::V6_12 => (6, 12),
            KernelVersion::V6_18 => (6, 18),
            KernelVersion::Current => return None,
        })
    }

    /// Which fair-class generation this release runs.
    pub fn fair_gen(self) -> FairGen {
        match self {
            KernelVersion::V5_18 | KernelVersion::V6_1 | KernelVersion::V6_5 => FairGen::Cfs,
            KernelVersion::V6_6 | KernelVersion::V6_8 => FairGen::Eevdf66,
            KernelVersion::V6_12 => FairGen::Eevdf612,
            KernelVersion::V6_18 => FairGen::Eevdf617,
            KernelVersion::Current => FairGen::Current,
        }
    }

    #[inline]
    pub fn is_cfs(self) -> bool {
        self.fair_gen() == FairGen::Cfs
    }

    /// normalized_sysctl_sched_base_slice: 0.75 ms until 2ae891b82695 ("Reduce the default
    /// slice to avoid tasks getting an extra tick", v6.15), 0.7 ms after. Under CFS this is
    /// normalized_sysctl_sched_min_granularity (the same 0.75 ms).
    pub fn normalized_base_slice(self) -> u64 {
        if self >= KernelVersion::V6_18 {
            700_000
        } else {
            750_000
        }
    }

    /// check_preempt_tick caps the ideal runtime at sched_latency from 79ba1e607d68
    /// "sched/fair: Limit sched slice duration" (Vincent Guittot; posted Aug 2022, merged
    /// for v6.3): 6.1 has no cap, 6.5 has it.
    pub fn caps_ideal_runtime(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// place_entity's long-sleeper reset (829c1651e9c4 "sanitize vruntime of entity being
    /// placed", v6.3, reworked into entity_is_long_sleeper by a53ce18cacb4): a sleeper away longer
    /// than 2^63 / NICE_0 ns (~104 days) is placed without comparing its old vruntime.
    pub fn has_long_sleeper_reset(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// schedutil's runnable boosting ("sched/fair, cpufreq: Introduce 'runnable boosting'",
    /// Dietmar Eggemann, May 2023, v6.5).
    pub fn has_runnable_boost(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// util_est as {enqueued, ewma} with UTIL_EST_FASTUP, before "sched/fair: Simplify
    /// util_est" and "Remove SCHED_FEAT(UTIL_EST_FASTUP)" (Vincent Guittot, Dec 2023, v6.8).
    pub fn has_two_field_util_est(self) -> bool {
        self < KernelVersion::V6_8
    }

    /// dequeue_task_fair updates the task's util_est after dequeue_entities, so the EWMA
    /// takes the util_avg the dequeue has just brought up to date, until Peter Zijlstra's
    /// Oct 2024 fix of the KCSAN race in dequeue_entities (v6.12-rc: "Must not reference @p
    /// after dequeue_entities(DEQUEUE_DELAYED)") moved it first.
    pub fn updates_util_est_after_dequeue(self) -> bool {
        self < KernelVersion::V6_12
    }

    /// schedutil and EAS put the 25% headroom on the clamped utilisation, uclamp floor and
    /// DL bandwidth included (effective_cpu_util(FREQUENCY_UTIL), then map_util_perf in
    /// get_next_freq and em_cpu_energy), until 9c0b4bb7f630 "sched/cpufreq: Rework schedutil
    /// governor performance estimation" (Vincent Guittot, v6.8; in 6.6.y stable only from
    /// mid-2025) put it on the actual utilisation, with the floor a minimum.
    pub fn has_headroom_on_clamped_util(self) -> bool {
        self < KernelVersion::V6_8
    }

    /// compute_energy sums and caps per CPU (util_running on dst = the CPU without p plus
    /// task_util_est(p)) until 3e8c6c9aac42 "sched/fair: Remove task_util from effective
    /// utilization in feec()" (Vincent Donnefort, v6.0) introduced the energy_env form.
    pub fn has_per_cpu_compute_energy(self) -> bool {
        self < KernelVersion::V6_1
    }

    /// schedutil's default rate limit is 1000 × the transition latency capped at 10 ms
    /// (cpufreq_policy_transition_delay_us) until e13aa799c2a6 (v6.9: a 2 ms cap) and
    /// 37c6dccd6837 "cpufreq: Remove LATENCY_MULTIPLIER" (1.5 × the latency, by v6.12).
    pub fn has_10ms_transition_delay_cap(self) -> bool {
        self <= KernelVersion::V6_8
    }

    /// detach_tasks looks past loop_max while every task seen so far was pinned, and
    /// load_balance stops its NEED_BREAK retries once it has looked at every task:
    /// b0defa7ae03e "sched/fair: Make sure to try to detach at least one movable task"
    /// (Vincent Guittot, v6.1, proposed in seed 002's thread), reverted by 2feab2492deb
    /// (Josh Don, v6.10).
    pub fn detaches_past_loop_max_when_all_pinned(self) -> bool {
        self >= KernelVersion::V6_1 && self < KernelVersion::V6_12
    }

    /// rq->avg_idle is updated when the idle task is put (put_prev_task_idle) from
    /// 4b603f1551a7 "sched: Update rq->avg_idle when a task is moved to an idle CPU" (tip,
    /// Jan 2026; v7.0); before, ttwu_do_activate updates it, so a fork or a pulled task
    /// ending a CPU's idle leaves rq->idle_stamp for the next wake-up there.
    pub fn updates_avg_idle_at_put_prev_idle(self) -> bool {
        self == KernelVersion::Current
    }

    /// Load balancing aware of SMT cores, v6.6 (Tim Chen's and Ricardo Neri's series, tip
    /// Jul 2023): group_smt_balance (fee1759e4f04), sibling_imbalance over the groups'
    /// cores (7ff1693236f5) and should_we_balance preferring an idle core (b1bfeab9b002).
    /// v6.5 and older spread tasks by their count and take the first idle CPU.
    pub fn has_smt_aware_balance(self) -> bool {
        self >= KernelVersion::V6_6
    }

    /// calculate_imbalance pulls nothing when the fully busy local group is at or above the
    /// domain's average load, from 91dcf1e8068e "sched/fair: Fix imbalance overflow" (v6.3;
    /// stable backports came after 6.1's release). Before, the unsigned difference wraps
    /// and the busiest group's excess is the imbalance.
    pub fn guards_imbalance_overflow(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// update_sd_pick_busiest takes the later of two fully busy groups of equal avg_load
    /// unless the busiest is SMT, from 5fd6d7f43958 "sched/fair: Keep a fully_busy SMT sched
    /// group as busiest" (v6.5); before, the first one stays.
    pub fn fully_busy_tie_takes_later_group(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// The balancer's task counts (update_sg_lb_stats, update_sg_wakeup_stats,
    /// sched_reduced_capacity, sched_balance_find_src_rq, need_active_balance,
    /// nohz_balancer_kick) leave delayed tasks out (cfs.h_nr_runnable) from 1a49104496d3
    /// "sched/fair: Use the new cfs_rq.h_nr_runnable" (v6.14); before, they read
    /// cfs.h_nr_running, which counts them (6.12, and 6.6 under the delayed-dequeue posting).
    pub fn balances_runnable_tasks_only(self) -> bool {
        self >= KernelVersion::V6_18
    }

    /// update_cfs_group leaves the weight of a group entity whose cfs_rq is empty, from
    /// "sched/fair: Fix update_cfs_group() vs DELAY_DEQUEUE" (Jan 2025, after v6.12's
    /// release; Fixes 152e11f6df29); before, it is reweighted to calc_group_shares.
    pub fn preserves_empty_group_weight(self) -> bool {
        self >= KernelVersion::V6_18
    }

    /// find_busiest_group forces a misfit pull before its EAS "not overutilized" exit, from
    /// e5ed0550c04c "sched/fair: unlink misfit task from cpu overutilized" (v6.3); before,
    /// EAS keeps misfit tasks where they are until the root domain is overutilized.
    pub fn misfit_overrides_eas(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// detach_tasks halves a task's util per balance failure (shr_bound) for migrate_util,
    /// from 3af7524b1419 "sched/fair: Use all little CPUs for CPU-bound workloads" (v6.8).
    pub fn bounds_migrate_util(self) -> bool {
        self >= KernelVersion::V6_8
    }

    /// Misfit pulls neither count as a balance failure nor double balance_interval
    /// (58eeb2d79b54, v6.10), and a task is misfit only where a bigger CPU it may use exists
    /// (22d5607400c6, v6.10). The model has no 6.10 step: 6.12 on.
    pub fn refines_misfit_balance(self) -> bool {
        self >= KernelVersion::V6_12
    }

    /// update_sg_lb_stats counts a CPU's misfit load only when the balancing CPU is bigger
    /// than the group's biggest: today's model. No release up to 6.18 does (6.1 and 6.5 count
    /// it always and update_sd_pick_busiest then rejects such a group; the commit that
    /// moved the test was not found, so only `current` has it).
    pub fn counts_misfit_only_for_bigger_dst(self) -> bool {
        self == KernelVersion::Current
    }

    /// select_idle_capacity scans from target + 1 in the 6.5 tree (v6.2's util_fits_cpu
    /// series) and from target again from 7ee7642c9141 "sched/fair: Stabilize asym cpu
    /// capacity system idle cpu selection" (Vincent Guittot, v6.6) — as 5.18 and 6.1 did.
    pub fn select_idle_capacity_from_next(self) -> bool {
        self == KernelVersion::V6_5
    }

    /// select_idle_capacity without a scan budget or idle-core preference, asym_fits_cpu
    /// without its idle-core condition (5.18 – 6.6). From 6.8 the model runs today's
    /// form; which releases brought those was not traced.
    pub fn select_idle_capacity_is_plain(self) -> bool {
        self <= KernelVersion::V6_6
    }

    /// util_fits_cpu (v6.2's uclamp series, in the 6.5 tree): find_energy_efficient_cpu
    /// ranks candidates by its classes (uclamp_min misses as −1) and evaluates a domain's max-spare CPU only when it has more spare
    /// capacity than prev_cpu (v6.2/6.3, both in the 6.5 tree); 5.18 and 6.1 (v6.1-rc7 tree)
    /// skip a CPU unless fits_capacity(uclamp_rq_util_with(util), capacity) holds and take
    /// the max-spare CPU whatever prev's spare capacity. The same series (util_fits_cpu)
    /// changed task_fits_cpu, cpu_overutilized and asym placement, which on 5.18 / 6.1 test
    /// fits_capacity(…, capacity_of) of the clamped task util (the CPU's, unclamped).
    pub fn has_util_fits_cpu(self) -> bool {
        self >= KernelVersion::V6_5
    }

    /// find_energy_efficient_cpu leaves prev_cpu only when the best CPU saves more than
    /// 1/16 of prev's energy (prev_delta + base_energy) until b812fc9768e0 "sched/fair:
    /// Remove the energy margin in feec()" (v6.0): 5.18.
    pub fn feec_energy_margin(self) -> bool {
        self < KernelVersion::V6_1
    }

    /// update_tg_load_avg pushes at most once per ms from 1528c661c24b "sched/fair:
    /// Ratelimit update to tg->load_avg" (tip Sep 2023: v6.7).
    pub fn ratelimits_tg_load_avg(self) -> bool {
        self >= KernelVersion::V6_8
    }

    /// CONFIG_PREEMPT_LAZY exists from v6.13.
    pub fn has_preempt_lazy(self) -> bool {
        self >= KernelVersion::V6_18
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders() {
        let p = |s| KernelVersion::parse(s, "--kernel").unwrap();
        assert_eq!(p("6.5"), KernelVersion::V6_5);
        assert_eq!(p("v6.5"), KernelVersion::V6_5);
        assert_eq!(p("6.5.5"), KernelVersion::V6_5);
        assert_eq!(p("6.8.0-45-generic"), KernelVersion::V6_8);
        assert_eq!(p("5.18"), KernelVersion::V5_18);
        assert_eq!(p("current"), KernelVersion::Current);
        assert_eq!(KernelVersion::default(), KernelVersion::Current);
        assert!(KernelVersion::V6_5 < KernelVersion::V6_6);
        for v in KernelVersion::ALL {
            assert_eq!(p(v.name()), v);
        }
        let e = KernelVersion::parse("6.3", "--kernel")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unsupported kernel version '6.3'"), "{e}");
        assert!(
            e.contains("5.18, 6.1, 6.5, 6.6, 6.8, 6.12, 6.18, current"),
            "{e}"
        );
        assert!(KernelVersion::parse("six", "--kernel").is_err());
    }

    #[test]
    fn generations() {
        assert!(KernelVersion::V6_5.is_cfs());
        assert!(!KernelVersion::V6_6.is_cfs());
        assert_eq!(KernelVersion::V6_12.fair_gen(), FairGen::Eevdf612);
        assert_eq!(KernelVersion::V6_18.fair_gen(), FairGen::Eevdf617);
    }
}
