//! build_sched_domains (kernel/sched/topology.c; spec placement §1.1–§1.7): the topology
//! table, sd_init, the per-CPU chains, imb_numa_nr, cpu_attach_domain's degenerate-level
//! removal and update_top_cache_domain. Groups and their capacity are in `groups.rs`.

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
    let level_spans = b.level_spans();
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

/// The default topology table (SMT, CLS, MC, PKG) followed by sched_init_numa's NODE and
/// NUMA levels (spec placement §1.1). Returns the table and the distinct node distances.
pub fn topology_table(m: &Machine) -> (Vec<TopologyLevel>, Vec<u32>) {
    let level = |name, mask, sd_flags, overlap, numa_level| TopologyLevel {
        name,
        mask,
        sd_flags,
        overlap,
        numa_level,
    };
    let mut t = vec![
        level(
            "SMT",
            LevelMask::Smt,
            SdFlags::SHARE_CPUCAPACITY | SdFlags::SHARE_LLC,
            false,
            0,
        ),
        level(
            "CLS",
            LevelMask::Cluster,
            SdFlags::CLUSTER | SdFlags::SHARE_LLC,
            false,
            0,
        ),
        level("MC", LevelMask::CoreGroup, SdFlags::SHARE_LLC, false, 0),
    ];
    // x86_has_numa_in_package: the package level would cut across NUMA nodes (SNC, NPS>1),
    // so x86 leaves PKG out and lets the NUMA levels span the package.
    let mut node_of_pkg = BTreeMap::new();
    let numa_in_package = m
        .cpus
        .iter()
        .any(|c| *node_of_pkg.entry(c.package).or_insert(c.numa_node) != c.numa_node);
    if !numa_in_package {
        t.push(level("PKG", LevelMask::Package, SdFlags::EMPTY, false, 0));
    }
    let mut distances: Vec<u32> = m.numa_distance.iter().flatten().copied().collect();
    distances.sort_unstable();
    distances.dedup();
    if distances.is_empty() {
        distances.push(10);
    }
    t.push(level("NODE", LevelMask::Numa, SdFlags::EMPTY, false, 0));
    for j in 1..distances.len() {
        t.push(level("NUMA", LevelMask::Numa, SdFlags::NUMA, true, j));
    }
    (t, distances)
}

/// The distinct arch capacities and their CPUs (the kernel's asym_cap_list).
struct AsymCapacity {
    caps: Vec<u32>,
}

impl AsymCapacity {
    fn new(m: &Machine) -> AsymCapacity {
        let mut caps: Vec<u32> = m.cpus.iter().map(|c| c.capacity).collect();
        caps.sort_unstable();
        caps.dedup();
        AsymCapacity { caps }
    }

    /// asym_cpu_capacity_classify: ≥ 2 capacity values in the span → ASYM; and when the
    /// span sees every value present in the machine → also _FULL (spec placement §1.2).
    fn classify(&self, m: &Machine, span: &CpuMask) -> SdFlags {
        if self.caps.len() < 2 {
            return SdFlags::EMPTY;
        }
        let mut seen = vec![false; self.caps.len()];
        for c in span.iter() {
            let i = self.caps.binary_search(&m.cpus[c].capacity).unwrap();
            seen[i] = true;
        }
        let count = seen.iter().filter(|&&s| s).count();
        if count < 2 {
            SdFlags::EMPTY
        } else if count < self.caps.len() {
            SdFlags::ASYM_CPUCAPACITY
        } else {
            SdFlags::ASYM_CPUCAPACITY | SdFlags::ASYM_CPUCAPACITY_FULL
        }
    }
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

    /// tl->mask(cpu) for every level and CPU, one mask per distinct key.
    fn level_spans(&mut self) -> Vec<Vec<SpanId>> {
        let m = self.m;
        let n = m.nr_cpus();
        let levels = self.out.levels.clone();
        let dist = self.out.numa_distances.clone();
        levels
            .iter()
            .map(|l| {
                let key = |c: CpuId| {
                    let cpu = &m.cpus[c];
                    match l.mask {
                        LevelMask::Smt => cpu.core,
                        LevelMask::Cluster => cpu.cluster,
                        LevelMask::CoreGroup => cpu.llc,
                        LevelMask::Package => cpu.package,
                        LevelMask::Numa => cpu.numa_node,
                    }
                };
                let mut masks: BTreeMap<usize, CpuMask> = BTreeMap::new();
                if l.mask == LevelMask::Numa {
                    // sched_domains_numa_masks[level][node]: nodes within the distance.
                    let d = dist[l.numa_level];
                    let within = |a: usize, b: usize| {
                        m.numa_distance
                            .get(a)
                            .and_then(|r| r.get(b))
                            .map_or(a == b, |&x| x <= d)
                    };
                    for c in 0..n {
                        let node = key(c);
                        if masks.contains_key(&node) {
                            continue;
                        }
                        let mask = CpuMask::from_cpus(
                            n,
                            (0..n).filter(|&o| within(node, m.cpus[o].numa_node)),
                        );
                        masks.insert(node, mask);
                    }
                } else {
                    for c in 0..n {
                        masks
                            .entry(key(c))
                            .or_insert_with(|| CpuMask::new(n))
                            .set(c);
                    }
                }
                let ids: BTreeMap<usize, SpanId> = masks
                    .into_iter()
                    .map(|(k, mask)| (k, self.intern(mask)))
                    .collect();
                (0..n).map(|c| ids[&key(c)]).collect()
            })
            .collect()
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
        for tl in 0..self.out.levels.len() {
            let tl_span = level_spans[tl][cpu];
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

    /// sd_init (spec placement §1.3).
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
            if self.out.numa_distances[level.numa_level] > NODE_RECLAIM_DISTANCE {
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
        });
        self.out.domains.len() - 1
    }

    /// imb_numa_nr (spec placement §1.7), on the chain before degenerate removal.
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

    /// sd_degenerate: one CPU, or one group and no flag that works without groups.
    fn sd_degenerate(&self, sd: DomainId) -> bool {
        let d = &self.out.domains[sd];
        if d.span_weight == 1 {
            return true;
        }
        if d.flags.intersects(SdFlags::DEGENERATE_GROUPS_MASK) && self.out.nr_groups(sd) > 1 {
            return false;
        }
        !d.flags.intersects(SdFlags::WAKE_AFFINE)
    }

    /// sd_parent_degenerate: the parent spans the same CPUs and adds no flag that matters.
    fn sd_parent_degenerate(&self, sd: DomainId, parent: DomainId) -> bool {
        if self.sd_degenerate(parent) {
            return true;
        }
        let (c, p) = (&self.out.domains[sd], &self.out.domains[parent]);
        if c.span != p.span {
            return false;
        }
        let mut pflags = p.flags;
        if self.out.nr_groups(parent) == 1 {
            pflags = pflags & !SdFlags::DEGENERATE_GROUPS_MASK;
        }
        pflags & !c.flags == SdFlags::EMPTY
    }

    /// cpu_attach_domain's degenerate removal (spec placement §1.1).
    fn cpu_attach_domain(&mut self, cpu: CpuId) {
        let mut sd = self.first_sd[cpu];
        let mut tmp = sd;
        while let Some(t) = tmp {
            let Some(parent) = self.out.domains[t].parent else {
                break;
            };
            if !self.sd_parent_degenerate(t, parent) {
                tmp = Some(parent);
                continue;
            }
            let pd = self.out.domains[parent].clone();
            self.out.domains[t].parent = pd.parent;
            if let Some(pp) = pd.parent {
                self.out.domains[pp].child = Some(t);
                let local = self.out.groups_of(pp).next().unwrap();
                self.out.groups[local].flags = self.out.domains[t].flags;
            }
            // The spans match, so the parent's preference and shared state carry down.
            if pd.flags.contains(SdFlags::PREFER_SIBLING) {
                self.out.domains[t].flags |= SdFlags::PREFER_SIBLING;
            }
            if self.out.domains[t].shared.is_none() {
                self.out.domains[t].shared = pd.shared;
            }
            self.alive[parent] = false;
        }
        if let Some(s) = sd.filter(|&s| self.sd_degenerate(s)) {
            self.alive[s] = false;
            sd = self.out.domains[s].parent;
            if let Some(p) = sd {
                // Groups carry their child domain's flags; that child is gone.
                let gs: Vec<_> = self.out.groups_of(p).collect();
                for g in gs {
                    self.out.groups[g].flags = SdFlags::EMPTY;
                }
                self.out.domains[p].child = None;
            }
        }
        self.first_sd[cpu] = sd;
    }

    /// update_top_cache_domain for every CPU and the static keys, once the chains are final
    /// (`out.cpus[..].sd` set).
    pub fn top_cache_domains(&mut self) {
        let o = &self.out;
        let cpus: Vec<CpuTopology> = (0..o.nr_cpus)
            .map(|cpu| {
                let llc = o.highest_flag_domain(cpu, SdFlags::SHARE_LLC);
                let (llc_id, size, llc_shared) = match llc {
                    Some(d) => (
                        o.span(d).first().unwrap(),
                        o.domains[d].span_weight,
                        o.domains[d].shared,
                    ),
                    None => (cpu, 1, None),
                };
                // The cluster id where there is a cluster, else the LLC id.
                let share_id = o
                    .lowest_flag_domain(cpu, SdFlags::CLUSTER)
                    .map_or(llc_id, |d| o.span(d).first().unwrap());
                let asym = o.lowest_flag_domain(cpu, SdFlags::ASYM_CPUCAPACITY_FULL);
                CpuTopology {
                    sd: o.cpus[cpu].sd,
                    sd_llc: llc,
                    sd_llc_size: size,
                    sd_llc_id: llc_id,
                    sd_llc_shared: llc_shared,
                    sd_share_id: share_id,
                    sd_numa: o.lowest_flag_domain(cpu, SdFlags::NUMA),
                    sd_asym_packing: o.highest_flag_domain(cpu, SdFlags::ASYM_PACKING),
                    sd_asym_cpucapacity: asym,
                    sd_balance_shared: asym.and_then(|d| o.domains[d].shared).or(llc_shared),
                }
            })
            .collect();
        let cluster = (0..o.nr_cpus).any(|c| o.lowest_flag_domain(c, SdFlags::CLUSTER).is_some());
        // sched_smt_present goes on when any core brings up a second thread.
        let mut threads: BTreeMap<usize, u32> = BTreeMap::new();
        for c in &self.m.cpus {
            *threads.entry(c.core).or_default() += 1;
        }
        self.out.sched_smt_present = threads.values().any(|&t| t >= 2);
        self.out.sched_cluster_active = cluster;
        self.out.cpus = cpus;
    }
}

/// Keep the entries of `v` marked used, in order; returns the kept entries and old→new ids.
fn compact<T: Clone>(v: &[T], used: &[bool]) -> (Vec<T>, Vec<usize>) {
    let mut map = vec![usize::MAX; v.len()];
    let mut kept = Vec::new();
    for (i, x) in v.iter().enumerate() {
        if used[i] {
            map[i] = kept.len();
            kept.push(x.clone());
        }
    }
    (kept, map)
}

impl Builder<'_> {
    /// Drop what the degenerate levels left behind (destroy_sched_domain and the refcount
    /// drops), renumber, and fill the per-CPU shortcuts.
    fn finish(mut self) -> SchedDomains {
        let o = &self.out;
        let mut live = vec![false; o.domains.len()];
        for cpu in 0..o.nr_cpus {
            for d in self.chain(cpu) {
                live[d] = true;
            }
        }
        let (mut rings_used, mut shared_used) =
            (vec![false; o.rings.len()], vec![false; o.shared.len()]);
        let mut spans_used = vec![false; o.spans.len()];
        for (i, d) in o.domains.iter().enumerate().filter(|(i, _)| live[*i]) {
            debug_assert!(self.alive[i]);
            rings_used[d.groups] = true;
            spans_used[d.span] = true;
            if let Some(s) = d.shared {
                shared_used[s] = true;
            }
        }
        let mut groups_used = vec![false; o.groups.len()];
        for (r, ring) in o.rings.iter().enumerate() {
            if rings_used[r] {
                ring.iter().for_each(|&g| groups_used[g] = true);
            }
        }
        let mut sgc_used = vec![false; o.sgc.len()];
        for (g, grp) in o.groups.iter().enumerate().filter(|(g, _)| groups_used[*g]) {
            let _ = g;
            sgc_used[grp.sgc] = true;
            spans_used[grp.span] = true;
            spans_used[grp.balance_mask] = true;
        }
        let (mut domains, dmap) = compact(&o.domains, &live);
        let (mut rings, _) = compact(&o.rings, &rings_used);
        let rmap = compact(&o.rings, &rings_used).1;
        let (mut groups, gmap) = compact(&o.groups, &groups_used);
        let (sgc, smap) = compact(&o.sgc, &sgc_used);
        let (shared, shmap) = compact(&o.shared, &shared_used);
        let (spans, spmap) = compact(&o.spans, &spans_used);
        for d in &mut domains {
            d.parent = d.parent.map(|p| dmap[p]);
            d.child = d.child.map(|c| dmap[c]);
            d.groups = rmap[d.groups];
            d.span = spmap[d.span];
            d.shared = d.shared.map(|s| shmap[s]);
        }
        for r in &mut rings {
            r.iter_mut().for_each(|g| *g = gmap[*g]);
        }
        for g in &mut groups {
            g.sgc = smap[g.sgc];
            g.span = spmap[g.span];
            g.balance_mask = spmap[g.balance_mask];
        }
        let first: Vec<_> = self.first_sd.iter().map(|d| d.map(|d| dmap[d])).collect();
        let out = &mut self.out;
        (
            out.domains,
            out.rings,
            out.groups,
            out.sgc,
            out.shared,
            out.spans,
        ) = (domains, rings, groups, sgc, shared, spans);
        out.cpus = first
            .into_iter()
            .enumerate()
            .map(|(cpu, sd)| CpuTopology {
                sd,
                sd_llc: None,
                sd_llc_size: 1,
                sd_llc_id: cpu,
                sd_llc_shared: None,
                sd_share_id: cpu,
                sd_numa: None,
                sd_asym_packing: None,
                sd_asym_cpucapacity: None,
                sd_balance_shared: None,
            })
            .collect();
        self.top_cache_domains();
        self.out
    }
}
