//! Text views in the spirit of /sys/kernel/debug/sched/domains and the boot-time
//! `sched_domain_debug` dump (`CPU0 attaching sched-domain(s):`).

use super::*;
use crate::machine::Machine;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Groups beyond this many are elided in a domain's `groups:` line.
const MAX_GROUPS_SHOWN: usize = 16;

/// One CPU's domains: span as a cpulist, flags, intervals, groups with capacities.
pub fn render_cpu_domains(sds: &SchedDomains, m: &Machine, cpu: CpuId) -> String {
    let mut s = String::new();
    let Some(_) = sds.cpus.get(cpu).and_then(|c| c.sd) else {
        let _ = writeln!(s, "CPU{cpu} attaching NULL sched-domain.");
        return s;
    };
    let _ = writeln!(
        s,
        "CPU{cpu} (capacity {}) attaching sched-domain(s):",
        m.arch_scale_cpu_capacity(cpu)
    );
    for (i, d) in sds.for_each_domain(cpu).enumerate() {
        let sd = &sds.domains[d];
        let _ = writeln!(
            s,
            " domain-{i}: span={} level={} (weight {})",
            sds.span(d).to_cpulist(),
            sd.name,
            sd.span_weight
        );
        let _ = writeln!(s, "  flags: {:?}", sd.flags);
        let _ = writeln!(
            s,
            "  min_interval={} max_interval={} balance_interval={} ms busy_factor={} \
             imbalance_pct={} cache_nice_tries={} imb_numa_nr={}",
            sd.min_interval,
            sd.max_interval,
            sd.balance_interval,
            sd.busy_factor,
            sd.imbalance_pct,
            sd.cache_nice_tries,
            sd.imb_numa_nr
        );
        if let Some(sh) = sd.shared {
            let sh = &sds.shared[sh];
            let _ = writeln!(
                s,
                "  shared: id={} nr_busy_cpus={} has_idle_cores={} nr_idle_scan={}",
                sh.id, sh.nr_busy_cpus, sh.has_idle_cores as u8, sh.nr_idle_scan
            );
        }
        let groups: Vec<_> = sds.groups_of(d).collect();
        let mut line = String::from("  groups:");
        for &g in groups.iter().take(MAX_GROUPS_SHOWN) {
            line.push_str(&render_group(sds, g));
        }
        if groups.len() > MAX_GROUPS_SHOWN {
            let _ = write!(line, " … ({} groups)", groups.len());
        }
        let _ = writeln!(s, "{line}");
    }
    let c = &sds.cpus[cpu];
    let name = |d: Option<DomainId>| d.map_or("-", |d| sds.domains[d].name);
    let _ = writeln!(
        s,
        " sd_llc={} sd_llc_size={} sd_llc_id={} sd_share_id={} sd_numa={} sd_asym_cpucapacity={}",
        name(c.sd_llc),
        c.sd_llc_size,
        c.sd_llc_id,
        c.sd_share_id,
        name(c.sd_numa),
        name(c.sd_asym_cpucapacity)
    );
    s
}

/// ` 0:{ span=0-7 cap=8192 }`: balance CPU, span, balance mask when narrower, capacity.
fn render_group(sds: &SchedDomains, g: GroupId) -> String {
    let grp = &sds.groups[g];
    let sgc = &sds.sgc[grp.sgc];
    let mut s = format!(
        " {}:{{ span={}",
        sds.group_balance_cpu(g),
        sds.group_span(g).to_cpulist()
    );
    if grp.balance_mask != grp.span {
        let _ = write!(s, " mask={}", sds.spans[grp.balance_mask].to_cpulist());
    }
    let _ = write!(s, " cap={}", sgc.capacity);
    if sgc.min_capacity != sgc.max_capacity {
        let _ = write!(s, " min={} max={}", sgc.min_capacity, sgc.max_capacity);
    }
    s.push_str(" }");
    s
}

/// One page about the whole machine: the levels that survived, their span sizes and
/// group counts, the static keys, and the table levels that degenerated.
pub fn render_summary(sds: &SchedDomains, m: &Machine) -> String {
    #[derive(Default)]
    struct Row {
        domains: usize,
        spans: std::collections::BTreeSet<SpanId>,
        weight: (u32, u32),
        groups: (usize, usize),
        flags: Option<SdFlags>,
    }
    let mut rows: BTreeMap<usize, Row> = BTreeMap::new();
    for (i, d) in sds.domains.iter().enumerate() {
        let r = rows.entry(d.tl).or_insert_with(|| Row {
            weight: (u32::MAX, 0),
            groups: (usize::MAX, 0),
            ..Row::default()
        });
        r.domains += 1;
        r.spans.insert(d.span);
        r.weight = (r.weight.0.min(d.span_weight), r.weight.1.max(d.span_weight));
        let g = sds.nr_groups(i);
        r.groups = (r.groups.0.min(g), r.groups.1.max(g));
        r.flags.get_or_insert(d.flags);
    }
    let range = |(a, b): (usize, usize)| {
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "machine {}: {} CPUs; NUMA distances {:?}",
        m.name, sds.nr_cpus, sds.numa_distances
    );
    let _ = writeln!(
        s,
        "static keys: sched_smt_present={} sched_cluster_active={} sched_asym_cpucapacity={}",
        sds.sched_smt_present as u8,
        sds.sched_cluster_active as u8,
        sds.sched_asym_cpucapacity as u8
    );
    let table: Vec<_> = sds.levels.iter().map(|l| l.name).collect();
    let _ = writeln!(s, "topology table: {}", table.join(" "));
    let _ = writeln!(
        s,
        "{:<6} {:>8} {:>7} {:>11} {:>9}  flags (first domain)",
        "level", "domains", "spans", "span size", "groups"
    );
    for (tl, l) in sds.levels.iter().enumerate() {
        match rows.get(&tl) {
            Some(r) => {
                let _ = writeln!(
                    s,
                    "{:<6} {:>8} {:>7} {:>11} {:>9}  {:?}",
                    l.name,
                    r.domains,
                    r.spans.len(),
                    range((r.weight.0 as usize, r.weight.1 as usize)),
                    range(r.groups),
                    r.flags.unwrap_or_default()
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "{:<6} (degenerate or above the top span: no domains)",
                    l.name
                );
            }
        }
    }
    let llcs: std::collections::BTreeSet<_> = sds.cpus.iter().map(|c| c.sd_llc_id).collect();
    let _ = writeln!(
        s,
        "LLCs: {}; shared objects: {}; groups: {}; group capacities: {}; distinct spans: {}",
        llcs.len(),
        sds.shared.len(),
        sds.groups.len(),
        sds.sgc.len(),
        sds.spans.len()
    );
    s
}

/// The machine summary, then the domains of one CPU per distinct chain shape (level
/// names, span sizes and CPU capacity), at most four.
pub fn render_domains(sds: &SchedDomains, m: &Machine) -> String {
    let mut s = render_summary(sds, m);
    let mut seen = std::collections::BTreeSet::new();
    for cpu in 0..sds.nr_cpus {
        let shape: Vec<_> = sds
            .for_each_domain(cpu)
            .map(|d| (sds.domains[d].name, sds.domains[d].span_weight))
            .collect();
        if seen.insert((shape, m.arch_scale_cpu_capacity(cpu))) {
            if seen.len() > 4 {
                break;
            }
            s.push('\n');
            s.push_str(&render_cpu_domains(sds, m, cpu));
        }
    }
    s
}
