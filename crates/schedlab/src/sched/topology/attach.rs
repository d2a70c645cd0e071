//! cpu_attach_domain's degenerate-level removal, the final renumbering and
//! update_top_cache_domain (kernel/sched/topology.c).

use super::build::Builder;
use super::*;
use std::collections::BTreeMap;

impl Builder<'_> {
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

    /// cpu_attach_domain's degenerate removal.
    pub(super) fn cpu_attach_domain(&mut self, cpu: CpuId) {
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
    pub(super) fn finish(mut self) -> SchedDomains {
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
        for (_, grp) in o.groups.iter().enumerate().filter(|(g, _)| groups_used[*g]) {
            sgc_used[grp.sgc] = true;
            spans_used[grp.span] = true;
            spans_used[grp.balance_mask] = true;
        }
        let (mut domains, dmap) = compact(&o.domains, &live);
        let (mut rings, rmap) = compact(&o.rings, &rings_used);
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
