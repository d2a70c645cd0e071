//! build_sched_domains (kernel/sched/topology.c): sd_init, the per-CPU chains and
//! imb_numa_nr. The level table and its masks are in `table.rs`, groups and their capacity
//! in `groups.rs`, degenerate removal and the shortcuts in `attach.rs`.

use super::table::{level_spans, AsymCapacity};
use super::*;
use crate::machine::Machine;
use std::collections::BTreeMap;

/// Scratch state of one build: the kernel's `struct sd_data` per-level per-CPU slots
/// (sdd->sd, sdd->sg, sdd->sgc, sdd->sds) as maps keyed by (level, cpu).
pub(super) struct Builder<'m> {
    pub m: &'m Machine,
    pub out: SchedDomains,
    pub span_ids: BTreeMap<CpuMask, SpanId>,
    pub span_weight: Vec<u32>,
    /// sdd->sd: each CPU's domain at each topology level, before degenerate removal.
    pub by_level: Vec<Vec<Option<DomainId>>>,
    pub group_ids: BTreeMap<(usize, CpuId), GroupId>,
    pub overlap_ids: BTreeMap<(SpanId, SpanId, SgcId, SdFlags), GroupId>,
    pub balance_cache: BTreeMap<(usize, SpanId), (SpanId, SgcId)>,
    pub sgc_ids: BTreeMap<(usize, CpuId), SgcId>,
    pub shared_ids: BTreeMap<(usize, CpuId), SharedId>,
    pub ring_ids: BTreeMap<Vec<GroupId>, RingId>,
    /// Each CPU's lowest domain (rq->sd once attached).
    pub first_sd: Vec<Option<DomainId>>,
    pub alive: Vec<bool>,
}

/// Build every CPU's sched-domain chain for `machine` (all CPUs in one root domain).
pub fn build_sched_domains(machine: &Machine) -> SchedDomains {
    let n = machine.nr_cpus();
    let (levels, numa_distances) = topology_table(machine);
    let mut b = Builder {
        m: machine,
        out: SchedDomains {
            nr_cpus: n,
            levels,
            numa_distances,
            spans: Vec::new(),
            domains: Vec::new(),
            groups: Vec::new(),
            rings: Vec::new(),
            sgc: Vec::new(),
            shared: Vec::new(),
            cpus: Vec::new(),
            sched_asym_cpucapacity: false,
            sched_smt_present: false,
            sched_cluster_active: false,
        },
        span_ids: BTreeMap::new(),
        span_weight: Vec::new(),
        by_level: Vec::new(),
        group_ids: BTreeMap::new(),
        overlap_ids: BTreeMap::new(),
        balance_cache: BTreeMap::new(),
        sgc_ids: BTreeMap::new(),
        shared_ids: BTreeMap::new(),
        ring_ids: BTreeMap::new(),
        first_sd: vec![None; n],
        alive: Vec::new(),
    };
    if n == 0 {
        return b.out;
    }
    let levels = b.out.levels.clone();
    let dist = b.out.numa_distances.clone();
    let level_spans = level_spans(machine, &levels, &dist, |mask| b.intern(mask));
    b.by_level = vec![vec![None; n]; b.out.levels.len()];
    let full = b.intern(CpuMask::full(n));
    let asym = AsymCapacity::new(machine);
    for cpu in 0..n {
        b.build_chain(cpu, &level_spans, full, &asym);
    }
    for cpu in 0..n {
        let chain: Vec<_> = b.chain(cpu).collect();
        for sd in chain {
            b.build_groups(sd, cpu);
        }
    }
    for cpu in 0..n {
        b.set_imb_numa_nr(cpu);
    }
    // init_sched_groups_capacity, last CPU first as the kernel walks them.
    for cpu in (0..n).rev() {
        b.init_sched_groups_capacity(cpu);
    }
    b.alive = vec![true; b.out.domains.len()];
    for cpu in 0..n {
        b.cpu_attach_domain(cpu);
    }
    b.finish()
}

impl Builder<'_> {
    pub fn intern(&mut self, mask: CpuMask) -> SpanId {
        if let Some(&id) = self.span_ids.get(&mask) {
            return id;
        }
        let id = self.out.spans.len();
        self.span_weight.push(mask.weight() as u32);
        self.out.spans.push(mask.clone());
        self.span_ids.insert(mask, id);
        id
    }

    pub fn chain(&self, cpu: CpuId) -> impl Iterator<Item = DomainId> + '_ {
        std::iter::successors(self.first_sd[cpu], move |&d| self.out.domains[d].parent)
    }

    /// The per-CPU loop of build_sched_domains: one domain per level until a span covers
    /// the whole machine.
    fn build_chain(
        &mut self,
        cpu: CpuId,
        level_spans: &[Vec<SpanId>],
        full: SpanId,
        asym: &AsymCapacity,
    ) {
        let mut child: Option<DomainId> = None;
        for (tl, spans) in level_spans.iter().enumerate() {
            let tl_span = spans[cpu];
            let sd = self.sd_init(tl, tl_span, child, cpu, asym);
            // build_sched_domain: the span always contains the child's.
            let mut span = tl_span;
            if let Some(c) = child {
                let cs = self.out.domains[c].span;
                if !self.out.spans[cs].is_subset(&self.out.spans[span]) {
                    span = self.intern(self.out.spans[span].or(&self.out.spans[cs]));
                }
                self.out.domains[sd].level = self.out.domains[c].level + 1;
                self.out.domains[c].parent = Some(sd);
            } else {
                self.first_sd[cpu] = Some(sd);
            }
            let d = &mut self.out.domains[sd];
            d.span = span;
            d.span_weight = self.span_weight[span];
            if self.out.levels[tl].overlap {
                d.flags |= SdFlags::OVERLAP;
            }
            if d.flags.contains(SdFlags::ASYM_CPUCAPACITY) {
                self.out.sched_asym_cpucapacity = true;
            }
            self.by_level[tl][cpu] = Some(sd);
            child = Some(sd);
            if span == full {
                break;
            }
        }
    }

    /// sd_init.
    fn sd_init(
        &mut self,
        tl: usize,
        sd_span: SpanId,
        child: Option<DomainId>,
        cpu: CpuId,
        asym: &AsymCapacity,
    ) -> DomainId {
        let level = self.out.levels[tl].clone();
        let w = self.span_weight[sd_span];
        let sd_id = self.out.spans[sd_span].first().unwrap_or(cpu);
        let mut flags = SdFlags::BALANCE_NEWIDLE
            | SdFlags::BALANCE_EXEC
            | SdFlags::BALANCE_FORK
            | SdFlags::WAKE_AFFINE
            | SdFlags::PREFER_SIBLING
            | level.sd_flags;
        flags |= asym.classify(self.m, &self.out.spans[sd_span]);
        // Spreading between the children of an asymmetric domain would fight misfit
        // migration, so the child stops preferring siblings.
        if flags.contains(SdFlags::ASYM_CPUCAPACITY) {
            if let Some(c) = child {
                self.out.domains[c].flags = self.out.domains[c].flags & !SdFlags::PREFER_SIBLING;
            }
        }
        let (imbalance_pct, cache_nice_tries) = if flags.contains(SdFlags::SHARE_CPUCAPACITY) {
            (110, 0)
        } else if flags.contains(SdFlags::SHARE_LLC) {
            (117, 1)
        } else if flags.contains(SdFlags::NUMA) {
            flags = (flags & !SdFlags::PREFER_SIBLING) | SdFlags::SERIALIZE;
            // sd_init: beyond node_reclaim_distance a level is too far for fork/exec
            // balancing and wake-affine.
            if self.out.numa_distances[level.numa_level] > self.m.node_reclaim_distance {
                flags =
                    flags & !(SdFlags::BALANCE_EXEC | SdFlags::BALANCE_FORK | SdFlags::WAKE_AFFINE);
            }
            (117, 2)
        } else {
            (117, 1)
        };
        // The LLC domain, and (newest kernels) a non-NUMA domain seeing every capacity,
        // get a sched_domain_shared: one per level per first CPU (sdd->sds).
        let wants_shared = flags.contains(SdFlags::SHARE_LLC)
            || (flags.contains(SdFlags::ASYM_CPUCAPACITY_FULL) && !flags.contains(SdFlags::NUMA));
        let shared = wants_shared.then(|| {
            let id = *self.shared_ids.entry((tl, sd_id)).or_insert_with(|| {
                self.out.shared.push(SchedDomainShared {
                    id: sd_id,
                    nr_busy_cpus: 0,
                    has_idle_cores: false,
                    nr_idle_scan: 0,
                });
                self.out.shared.len() - 1
            });
            self.out.shared[id].nr_busy_cpus = w;
            id
        });
        self.out.domains.push(SchedDomain {
            cpu,
            level: 0,
            tl,
            name: level.name,
            span: sd_span,
            span_weight: w,
            flags,
            parent: None,
            child,
            groups: 0,
            groups_first: 0,
            min_interval: w as u64,
            max_interval: 2 * w as u64,
            balance_interval: w as u64,
            busy_factor: BUSY_FACTOR,
            imbalance_pct,
            cache_nice_tries,
            last_balance: 0,
            last_decay_max_lb_cost: 0,
            max_newidle_lb_cost: 0,
            newidle_call: 512,
            newidle_success: 256,
            newidle_ratio: 512,
            nohz_idle: false,
            imb_numa_nr: 0,
            shared,
            nr_balance_failed: 0,
            newidle_stamp: 0,
        });
        self.out.domains.len() - 1
    }

    /// imb_numa_nr (build_sched_domains), on the chain before degenerate removal.
    fn set_imb_numa_nr(&mut self, cpu: CpuId) {
        let mut imb = 0u32;
        let mut imb_span = 1u32;
        let chain: Vec<_> = self.chain(cpu).collect();
        for sd in chain {
            let d = &self.out.domains[sd];
            let child_llc = d
                .child
                .filter(|&c| self.out.domains[c].flags.contains(SdFlags::SHARE_LLC));
            match child_llc {
                Some(c) if !d.flags.contains(SdFlags::SHARE_LLC) => {
                    let nr_llcs = d.span_weight / self.out.domains[c].span_weight;
                    imb = if nr_llcs == 1 {
                        d.span_weight >> 3
                    } else {
                        nr_llcs
                    }
                    .max(1);
                    let top_numa = std::iter::successors(d.parent, |&p| self.out.domains[p].parent)
                        .find(|&p| self.out.domains[p].flags.contains(SdFlags::NUMA));
                    imb_span = top_numa.map_or(d.span_weight, |p| self.out.domains[p].span_weight);
                    self.out.domains[sd].imb_numa_nr = imb;
                }
                _ => {
                    let factor = (d.span_weight / imb_span).max(1);
                    self.out.domains[sd].imb_numa_nr = imb * factor;
                }
            }
        }
    }
}
