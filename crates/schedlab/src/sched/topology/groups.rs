//! Sched groups and group capacity (kernel/sched/topology.c, fair.c):
//! build_sched_groups, build_overlap_sched_groups, init_sched_groups_capacity and
//! update_group_capacity.

use super::build::Builder;
use super::*;
use crate::machine::SCHED_CAPACITY_SCALE;

impl SchedDomains {
    /// update_group_capacity: refresh the capacity of `sd`'s local group from its child
    /// groups (or from `capacity_of` at the bottom / under a NUMA child). At the bottom
    /// `capacity_of(cpu)` is what update_cpu_capacity just stored in rq->cpu_capacity.
    pub fn update_group_capacity(
        &mut self,
        sd: DomainId,
        cpu: CpuId,
        capacity_of: &dyn Fn(CpuId) -> u64,
        next_update: u64,
    ) {
        let local = self.groups_of(sd).next().expect("a domain has groups");
        let sgc = self.groups[local].sgc;
        self.sgc[sgc].next_update = next_update;
        let (capacity, min, max) = match self.domains[sd].child {
            None => {
                let c = capacity_of(cpu);
                (c, c, c)
            }
            // NUMA children's groups need not cover this group: sum its CPUs instead.
            Some(child) if self.domains[child].flags.contains(SdFlags::NUMA) => self
                .group_span(local)
                .iter()
                .map(capacity_of)
                .fold((0, u64::MAX, 0), |(s, lo, hi), c| {
                    (s + c, lo.min(c), hi.max(c))
                }),
            Some(child) => self
                .groups_of(child)
                .map(|g| &self.sgc[self.groups[g].sgc])
                .fold((0, u64::MAX, 0), |(s, lo, hi), g| {
                    (
                        s + g.capacity,
                        lo.min(g.min_capacity),
                        hi.max(g.max_capacity),
                    )
                }),
        };
        let g = &mut self.sgc[sgc];
        g.capacity = capacity;
        g.min_capacity = min;
        g.max_capacity = max;
    }
}

impl Builder<'_> {
    /// build_sched_groups / build_overlap_sched_groups for `cpu`'s domain `sd`: walk the
    /// span from `cpu` (wrapping) and take each uncovered CPU's group, so the first group
    /// holds `cpu`.
    pub fn build_groups(&mut self, sd: DomainId, cpu: CpuId) {
        let d = &self.out.domains[sd];
        let (tl, span) = (d.tl, self.out.spans[d.span].clone());
        let overlap = d.flags.contains(SdFlags::OVERLAP);
        let mut covered = CpuMask::new(self.out.nr_cpus);
        let mut ring = Vec::new();
        for i in span.iter_wrap(cpu) {
            if covered.contains(i) {
                continue;
            }
            let g = if overlap {
                match self.overlap_group(sd, i) {
                    Some(g) => g,
                    None => continue,
                }
            } else {
                self.get_group(tl, i)
            };
            covered.or_assign(&self.out.spans[self.out.groups[g].span]);
            ring.push(g);
        }
        let (rid, first) = self.intern_ring(ring);
        let d = &mut self.out.domains[sd];
        d.groups = rid;
        d.groups_first = first;
    }

    /// Rings are stored rotated to start at their smallest group id, so CPUs walking the
    /// same circle from different groups share one copy.
    fn intern_ring(&mut self, ring: Vec<GroupId>) -> (RingId, u32) {
        let rot = ring
            .iter()
            .enumerate()
            .min_by_key(|(_, &g)| g)
            .map_or(0, |(i, _)| i);
        let mut canon = ring;
        canon.rotate_left(rot);
        let first = ((canon.len() - rot) % canon.len().max(1)) as u32;
        let next = self.out.rings.len();
        let rid = *self.ring_ids.entry(canon.clone()).or_insert(next);
        if rid == next {
            self.out.rings.push(canon);
        }
        (rid, first)
    }

    /// get_group: the group of CPU `i` at non-overlapping level `tl`, its child's span (or
    /// `i` alone at the bottom), one object per level per first CPU (sdd->sg).
    fn get_group(&mut self, tl: usize, i: CpuId) -> GroupId {
        let child = self.by_level[tl][i].and_then(|d| self.out.domains[d].child);
        let span = match child {
            Some(c) => self.out.domains[c].span,
            None => self.intern(CpuMask::from_cpus(self.out.nr_cpus, [i])),
        };
        let key = self.out.spans[span].first().unwrap();
        if let Some(&g) = self.group_ids.get(&(tl, key)) {
            return g;
        }
        let flags = child.map_or(SdFlags::EMPTY, |c| self.out.domains[c].flags);
        let sgc = self.sgc_slot(tl, key);
        let g = self.new_group(span, span, sgc, flags);
        self.group_ids.insert((tl, key), g);
        g
    }

    fn sgc_slot(&mut self, tl: usize, cpu: CpuId) -> SgcId {
        *self.sgc_ids.entry((tl, cpu)).or_insert_with(|| {
            self.out.sgc.push(SchedGroupCapacity {
                capacity: 0,
                min_capacity: 0,
                max_capacity: 0,
                next_update: 0,
                imbalance: false,
                id: cpu,
            });
            self.out.sgc.len() - 1
        })
    }

    /// A group with its weight, SMT core count and initial capacity 1024 per CPU.
    fn new_group(
        &mut self,
        span: SpanId,
        balance_mask: SpanId,
        sgc: SgcId,
        flags: SdFlags,
    ) -> GroupId {
        let mask = &self.out.spans[span];
        let mut cores: Vec<usize> = mask.iter().map(|c| self.m.cpus[c].core).collect();
        cores.sort_unstable();
        cores.dedup();
        let weight = self.span_weight[span];
        let s = &mut self.out.sgc[sgc];
        s.capacity = SCHED_CAPACITY_SCALE as u64 * weight as u64;
        s.min_capacity = SCHED_CAPACITY_SCALE as u64;
        s.max_capacity = SCHED_CAPACITY_SCALE as u64;
        self.out.groups.push(SchedGroup {
            span,
            balance_mask,
            sgc,
            flags,
            group_weight: weight,
            cores: cores.len() as u32,
            asym_prefer_cpu: mask.first().unwrap(),
        });
        self.out.groups.len() - 1
    }

    /// One group of build_overlap_sched_groups, seen from CPU `i`'s sibling domain.
    /// The kernel allocates these per CPU; identical ones are shared here.
    fn overlap_group(&mut self, sd: DomainId, i: CpuId) -> Option<GroupId> {
        let tl = self.out.domains[sd].tl;
        let span = self.out.domains[sd].span;
        let mut sibling = self.by_level[tl][i]?;
        if !self.out.spans[self.out.domains[sibling].span].contains(i) {
            return None;
        }
        let child_outside = |b: &Self, s: DomainId| {
            b.out.domains[s]
                .child
                .is_some_and(|c| !b.out.spans[b.out.domains[c].span].is_subset(&b.out.spans[span]))
        };
        if child_outside(self, sibling) {
            // find_descended_sibling: NUMA diameter ≥ 3 — go down until the child fits,
            // then past children equal to their parent (they will degenerate).
            while child_outside(self, sibling) {
                sibling = self.out.domains[sibling].child.unwrap();
            }
            while let Some(c) = self.out.domains[sibling].child {
                if self.out.domains[c].span != self.out.domains[sibling].span {
                    break;
                }
                sibling = c;
            }
        }
        let sib = &self.out.domains[sibling];
        let (sg_span, flags) = match sib.child {
            Some(c) => (self.out.domains[c].span, self.out.domains[c].flags),
            None => (sib.span, SdFlags::EMPTY),
        };
        let (balance, sgc) = self.overlap_balance(sib.tl, sg_span);
        let key = (sg_span, balance, sgc, flags);
        if let Some(&g) = self.overlap_ids.get(&key) {
            // init_overlap_sched_group resets the shared capacity every time.
            self.reset_sgc(sgc, sg_span);
            return Some(g);
        }
        let g = self.new_group(sg_span, balance, sgc, flags);
        self.overlap_ids.insert(key, g);
        Some(g)
    }

    fn reset_sgc(&mut self, sgc: SgcId, span: SpanId) {
        let s = &mut self.out.sgc[sgc];
        s.capacity = SCHED_CAPACITY_SCALE as u64 * self.span_weight[span] as u64;
        s.min_capacity = SCHED_CAPACITY_SCALE as u64;
        s.max_capacity = SCHED_CAPACITY_SCALE as u64;
    }

    /// build_balance_mask: the group's CPUs whose own domain at level `tl` has this group
    /// as its child; the sgc is that level's slot of the mask's first CPU.
    fn overlap_balance(&mut self, tl: usize, sg_span: SpanId) -> (SpanId, SgcId) {
        if let Some(&r) = self.balance_cache.get(&(tl, sg_span)) {
            return r;
        }
        let n = self.out.nr_cpus;
        let mut mask = CpuMask::new(n);
        for j in self.out.spans[sg_span].iter() {
            let child = self.by_level[tl][j].and_then(|d| self.out.domains[d].child);
            if child.is_some_and(|c| self.out.domains[c].span == sg_span) {
                mask.set(j);
            }
        }
        if mask.is_empty() {
            // The kernel warns here; fall back to the whole group.
            mask = self.out.spans[sg_span].clone();
        }
        let first = mask.first().unwrap();
        let balance = self.intern(mask);
        let sgc = self.sgc_slot(tl, first);
        self.balance_cache.insert((tl, sg_span), (balance, sgc));
        (balance, sgc)
    }

    /// init_sched_groups_capacity for every domain of `cpu`: the balance CPU of each
    /// local group computes its capacity, at boot from the arch capacities (no RT, IRQ
    /// or thermal pressure yet).
    pub fn init_sched_groups_capacity(&mut self, cpu: CpuId) {
        let chain: Vec<_> = self.chain(cpu).collect();
        let m = self.m;
        let capacity_of = |c: CpuId| m.arch_scale_cpu_capacity(c);
        for sd in chain {
            let local = self.out.groups_of(sd).next().unwrap();
            if self.out.group_balance_cpu(local) != cpu {
                continue;
            }
            self.out.update_group_capacity(sd, cpu, &capacity_of, 0);
        }
    }
}
