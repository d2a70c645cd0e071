//! Validation of machine files: every rule the simulator relies on, each error naming the
//! file, the key (with its index) and the fix.

use super::limits::MAX_CPUS;
use super::machine_toml_schema::CpuToml;
use super::{Cpu, FreqDomain, Machine, SCHED_CAPACITY_SCALE};
use crate::error::InputError;

/// The `cpu` entries as Cpus indexed by id, after checking that the ids are 0..N with no
/// gap or repeat. Each CPU's frequency domain comes from `cpu.freq_domain`, from the
/// domain listing it in `cpus`, or both when they agree; domains that list no CPUs get
/// theirs from the `cpu` entries.
pub(super) fn cpus_in_id_order(
    entries: &[CpuToml],
    domains: &mut [FreqDomain],
    origin: &str,
) -> Result<Vec<Cpu>, InputError> {
    let n = entries.len();
    if n == 0 || n > MAX_CPUS {
        return Err(InputError::new(
            format!("{origin}: cpu"),
            format!("{n} CPUs; a machine has 1..={MAX_CPUS}"),
        )
        .with_fix("list one entry per CPU"));
    }
    let mut slot: Vec<Option<usize>> = vec![None; n];
    for (i, c) in entries.iter().enumerate() {
        let at = format!("{origin}: cpu[{i}].id");
        if c.id >= n {
            return Err(
                InputError::new(at, format!("id {} with only {n} CPUs listed", c.id))
                    .with_fix(format!("number the CPUs 0..={} without gaps", n - 1)),
            );
        }
        if let Some(j) = slot[c.id] {
            return Err(
                InputError::new(at, format!("id {} is also cpu[{j}]'s", c.id))
                    .with_fix("give every CPU its own id"),
            );
        }
        slot[c.id] = Some(i);
    }
    // Membership as listed by the domains.
    let mut listed: Vec<Option<usize>> = vec![None; n];
    for (d, dom) in domains.iter().enumerate() {
        for &cpu in &dom.cpus {
            let at = format!("{origin}: freq_domain[{d}].cpus");
            if cpu >= n {
                return Err(InputError::new(at, format!("CPU {cpu} does not exist"))
                    .with_fix(format!("list CPUs 0..={} only", n - 1)));
            }
            if let Some(e) = listed[cpu] {
                return Err(
                    InputError::new(at, format!("CPU {cpu} is also in freq_domain[{e}]"))
                        .with_fix("put every CPU in exactly one frequency domain"),
                );
            }
            listed[cpu] = Some(d);
        }
    }
    let mut cpus = Vec::with_capacity(n);
    for (id, i) in slot.iter().enumerate() {
        let i = i.expect("n distinct ids below n cover 0..n");
        let c = &entries[i];
        let at = |key: &str| format!("{origin}: cpu[{i}].{key}");
        let freq_domain = match (c.freq_domain, listed[id]) {
            (Some(a), Some(b)) if a != b => {
                return Err(InputError::new(
                    at("freq_domain"),
                    format!("{a}, but freq_domain[{b}].cpus lists CPU {id}"),
                )
                .with_fix("make the two agree, or drop one of them"))
            }
            (Some(a), _) | (None, Some(a)) => a,
            (None, None) => {
                return Err(InputError::new(
                    at("freq_domain"),
                    format!("CPU {id} is in no frequency domain"),
                )
                .with_fix("add freq_domain = K to the CPU or list it in a domain's cpus"))
            }
        };
        if freq_domain >= domains.len() {
            return Err(InputError::new(
                at("freq_domain"),
                format!(
                    "{freq_domain}, but there are {} freq_domain entries",
                    domains.len()
                ),
            )
            .with_fix("refer to a [[freq_domain]] by its 0-based position"));
        }
        let core = c.core.unwrap_or(id);
        cpus.push(Cpu {
            id,
            capacity: c.capacity.unwrap_or(SCHED_CAPACITY_SCALE),
            core,
            cluster: c.cluster.unwrap_or(core),
            llc: c.llc.unwrap_or(0),
            package: c.package.unwrap_or(0),
            numa_node: c.node.unwrap_or(0),
            freq_domain,
        });
    }
    for (d, dom) in domains.iter_mut().enumerate() {
        dom.cpus = cpus
            .iter()
            .filter(|c| c.freq_domain == d)
            .map(|c| c.id)
            .collect();
    }
    Ok(cpus)
}

/// Every rule a built machine must satisfy.
pub(super) fn check(m: &Machine, origin: &str) -> Result<(), InputError> {
    let cpu_at = |id: usize, key: &str| format!("{origin}: cpu with id {id}: {key}");
    for c in &m.cpus {
        if !(1..=SCHED_CAPACITY_SCALE).contains(&c.capacity) {
            return Err(InputError::new(
                cpu_at(c.id, "capacity"),
                format!("{} is outside 1..=1024", c.capacity),
            )
            .with_fix("capacities are normalised so the biggest CPU has 1024"));
        }
    }
    if !m.cpus.iter().any(|c| c.capacity == SCHED_CAPACITY_SCALE) {
        return Err(InputError::new(
            format!("{origin}: cpu.capacity"),
            "no CPU has capacity 1024",
        )
        .with_fix("scale the capacities so the biggest CPU has 1024"));
    }
    check_domains(m, origin)?;
    check_siblings(m, origin)?;
    check_distances(m, origin)
}

fn check_domains(m: &Machine, origin: &str) -> Result<(), InputError> {
    for (d, dom) in m.freq_domains.iter().enumerate() {
        let at = |key: &str| format!("{origin}: freq_domain[{d}].{key}");
        if dom.cpus.is_empty() {
            return Err(InputError::new(at("cpus"), "the domain has no CPUs")
                .with_fix("remove the domain or give it CPUs"));
        }
        if dom.opps.is_empty() {
            return Err(InputError::new(at("opps"), "no operating points")
                .with_fix("give at least one, e.g. opps = [{ khz = 2000000 }]"));
        }
        for (k, w) in dom.opps.windows(2).enumerate() {
            if w[0].khz >= w[1].khz {
                return Err(InputError::new(
                    format!("{}[{}].khz", at("opps"), k + 1),
                    format!("{} kHz does not follow {} kHz upwards", w[1].khz, w[0].khz),
                )
                .with_fix("list the OPPs by strictly ascending frequency"));
            }
        }
        if dom.opps[0].khz == 0 {
            return Err(
                InputError::new(format!("{}[0].khz", at("opps")), "a frequency of 0 kHz")
                    .with_fix("frequencies are in kHz, e.g. khz = 2000000"),
            );
        }
        if !dom.opps.iter().any(|o| o.khz == dom.cur_khz) {
            return Err(InputError::new(
                at("cur_khz"),
                format!("{} kHz is not one of the domain's OPPs", dom.cur_khz),
            )
            .with_fix("use one of the listed frequencies, or leave cur_khz out (= the highest)"));
        }
    }
    Ok(())
}

/// SMT siblings are one core: they share everything above the core.
fn check_siblings(m: &Machine, origin: &str) -> Result<(), InputError> {
    let mut first: std::collections::BTreeMap<usize, &Cpu> = Default::default();
    for c in &m.cpus {
        let f = *first.entry(c.core).or_insert(c);
        let fields = [
            ("cluster", f.cluster, c.cluster),
            ("llc", f.llc, c.llc),
            ("package", f.package, c.package),
            ("node", f.numa_node, c.numa_node),
            ("freq_domain", f.freq_domain, c.freq_domain),
        ];
        if let Some((key, a, b)) = fields.into_iter().find(|(_, a, b)| a != b) {
            return Err(InputError::new(
                format!("{origin}: cpu with id {}: {key}", c.id),
                format!("{b}, but its core sibling CPU {} has {key} {a}", f.id),
            )
            .with_fix(
                "SMT siblings (same core) share cluster, llc, package, node and freq_domain",
            ));
        }
    }
    Ok(())
}

/// LOCAL_DISTANCE (include/linux/topology.h): a node's SLIT distance to itself.
const LOCAL_DISTANCE: u32 = 10;

fn check_distances(m: &Machine, origin: &str) -> Result<(), InputError> {
    if m.node_reclaim_distance < LOCAL_DISTANCE {
        return Err(InputError::new(
            format!("{origin}: numa.node_reclaim_distance"),
            format!(
                "{} is below a node's distance to itself ({LOCAL_DISTANCE})",
                m.node_reclaim_distance
            ),
        )
        .with_fix(
            "give the kernel's node_reclaim_distance: 30 (RECLAIM_DISTANCE), 32 on AMD Zen, 10 on POWER",
        ));
    }
    let at = format!("{origin}: numa.distance");
    let d = &m.numa_distance;
    let nodes = m.cpus.iter().map(|c| c.numa_node).max().unwrap_or(0) + 1;
    if d.len() != nodes {
        return Err(InputError::new(
            &at,
            format!("{} rows, but the CPUs use nodes 0..={}", d.len(), nodes - 1),
        )
        .with_fix("give one row per node, nodes numbered from 0"));
    }
    for (a, row) in d.iter().enumerate() {
        if row.len() != nodes {
            return Err(InputError::new(
                format!("{at}[{a}]"),
                format!("{} entries in a {nodes}-node table", row.len()),
            )
            .with_fix("the table is square: one column per node"));
        }
    }
    for (a, row) in d.iter().enumerate() {
        for (b, &v) in row.iter().enumerate() {
            let here = format!("{at}[{a}][{b}]");
            if a == b && v != LOCAL_DISTANCE {
                return Err(InputError::new(here, format!("{v} on the diagonal"))
                    .with_fix("a node's distance to itself is 10 (SLIT)"));
            }
            if a != b && v <= LOCAL_DISTANCE {
                return Err(
                    InputError::new(here, format!("{v} between different nodes"))
                        .with_fix("remote distances are above 10 (SLIT), e.g. 20"),
                );
            }
            if v != d[b][a] {
                return Err(
                    InputError::new(here, format!("{v}, but [{b}][{a}] is {}", d[b][a]))
                        .with_fix("the table is symmetric"),
                );
            }
        }
    }
    Ok(())
}
