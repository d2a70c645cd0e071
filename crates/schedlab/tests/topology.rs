//! Sched-domain construction against kernel/sched/topology.c (levels, flags, sd_init defaults,
//! groups, degenerate removal, shortcuts, imb_numa_nr).

use schedlab::machine::build::{Shape, SmtNumbering};
use schedlab::machine::{pixel6::pixel6, presets::machine_from_name, presets::smp};
use schedlab::sched::topology::*;

fn names(sds: &SchedDomains, cpu: usize) -> Vec<&'static str> {
    sds.level_names(cpu)
}

fn dom<'a>(sds: &'a SchedDomains, cpu: usize, name: &str) -> &'a SchedDomain {
    &sds.domains[sds
        .domain_named(cpu, name)
        .unwrap_or_else(|| panic!("no {name}"))]
}

fn group_spans(sds: &SchedDomains, sd: DomainId) -> Vec<String> {
    sds.groups_of(sd)
        .map(|g| sds.group_span(g).to_cpulist())
        .collect()
}

const DEFAULT: SdFlags = SdFlags(
    SdFlags::BALANCE_NEWIDLE.0
        | SdFlags::BALANCE_EXEC.0
        | SdFlags::BALANCE_FORK.0
        | SdFlags::WAKE_AFFINE.0
        | SdFlags::PREFER_SIBLING.0,
);

/// EPYC-like: 2 sockets × 96 cores × SMT2, 8-core CCX LLCs, x86 strided numbering.
fn epyc(nodes_per_package: usize) -> Shape {
    let mut s = Shape::flat("epyc-2s", 8, 2);
    s.packages = 2;
    s.nodes_per_package = nodes_per_package;
    s.llcs_per_node = 12 / nodes_per_package;
    s.numbering = SmtNumbering::Strided;
    s.distance_same_package = 12;
    s.distance_remote = 32;
    s
}

#[test]
fn smp8_is_one_mc_level() {
    let m = smp(8);
    let sds = build_sched_domains(&m);
    for cpu in 0..8 {
        assert_eq!(names(&sds, cpu), vec!["MC"], "cpu {cpu}");
    }
    let mc = sds.domain_named(3, "MC").unwrap();
    let d = &sds.domains[mc];
    assert_eq!(sds.span(mc).to_cpulist(), "0-7");
    assert_eq!(d.flags, DEFAULT | SdFlags::SHARE_LLC);
    assert_eq!(
        (d.min_interval, d.max_interval, d.balance_interval),
        (8, 16, 8)
    );
    assert_eq!(
        (d.busy_factor, d.imbalance_pct, d.cache_nice_tries),
        (16, 117, 1)
    );
    assert_eq!(
        (d.newidle_call, d.newidle_success, d.newidle_ratio),
        (512, 256, 512)
    );
    assert_eq!(d.max_newidle_lb_cost, 0);
    assert_eq!(d.child, None);
    assert_eq!(d.parent, None);
    // Single-CPU groups whose child (SMT, one CPU) degenerated: flags cleared.
    assert_eq!(sds.nr_groups(mc), 8);
    assert_eq!(
        sds.groups_of(mc)
            .next()
            .map(|g| sds.group_span(g).to_cpulist()),
        Some("3".into())
    );
    assert!(sds
        .groups_of(mc)
        .all(|g| sds.groups[g].flags == SdFlags::EMPTY));
    let c = &sds.cpus[3];
    assert_eq!(c.sd_llc, Some(mc));
    assert_eq!((c.sd_llc_size, c.sd_llc_id, c.sd_share_id), (8, 0, 0));
    assert_eq!(c.sd_numa, None);
    assert_eq!(c.sd_asym_cpucapacity, None);
    let sh = &sds.shared[c.sd_llc_shared.unwrap()];
    assert_eq!(
        (sh.nr_busy_cpus, sh.has_idle_cores, sh.nr_idle_scan),
        (8, false, 0)
    );
    assert_eq!(c.sd_balance_shared, c.sd_llc_shared);
    assert_eq!(sds.shared.len(), 1);
    assert!(!sds.sched_smt_present && !sds.sched_cluster_active && !sds.sched_asym_cpucapacity);
}

#[test]
fn four_cores_smt2_adjacent() {
    let m = Shape::flat("4x2", 4, 2).build();
    let sds = build_sched_domains(&m);
    assert_eq!(names(&sds, 5), vec!["SMT", "MC"]);
    let smt = dom(&sds, 5, "SMT");
    assert_eq!(sds.spans[smt.span].to_cpulist(), "4-5");
    assert_eq!(
        (smt.imbalance_pct, smt.cache_nice_tries, smt.min_interval),
        (110, 0, 2)
    );
    assert_eq!(
        smt.flags,
        DEFAULT | SdFlags::SHARE_CPUCAPACITY | SdFlags::SHARE_LLC
    );
    let mc = sds.domain_named(5, "MC").unwrap();
    assert_eq!(group_spans(&sds, mc), vec!["4-5", "6-7", "0-1", "2-3"]);
    for g in sds.groups_of(mc) {
        let grp = &sds.groups[g];
        let sgc = &sds.sgc[grp.sgc];
        assert_eq!(
            (sgc.capacity, sgc.min_capacity, sgc.max_capacity),
            (2048, 1024, 1024)
        );
        assert_eq!((grp.group_weight, grp.cores), (2, 1));
        assert_eq!(grp.flags, sds.domains[sds.domains[mc].child.unwrap()].flags);
    }
    // sd_llc is the highest SHARE_LLC domain; both CPUs of a core share one sched group.
    assert_eq!(sds.cpus[5].sd_llc, Some(mc));
    assert_eq!(sds.cpus[5].sd_llc_size, 8);
    assert!(sds.sched_smt_present);
    assert!(!sds.sched_cluster_active, "CLS equal to SMT degenerates");
    let g4 = sds.groups_of(sds.domain_named(4, "MC").unwrap()).next();
    assert_eq!(
        g4,
        sds.groups_of(mc).next(),
        "CPUs 4 and 5 share the group object"
    );
}

#[test]
fn epyc_2s_nps1() {
    let m = epyc(1).build();
    assert_eq!(m.nr_cpus(), 384);
    let sds = build_sched_domains(&m);
    assert_eq!(names(&sds, 0), vec!["SMT", "MC", "PKG", "NUMA"]);
    assert_eq!(dom(&sds, 0, "SMT").span_weight, 2);
    assert_eq!(sds.spans[dom(&sds, 0, "SMT").span].to_cpulist(), "0,192");
    let mc = dom(&sds, 0, "MC");
    assert_eq!(sds.spans[mc.span].to_cpulist(), "0-7,192-199");
    assert_eq!(dom(&sds, 0, "PKG").span_weight, 192);
    let numa = dom(&sds, 0, "NUMA");
    assert_eq!(numa.span_weight, 384);
    assert!(numa
        .flags
        .contains(SdFlags::NUMA | SdFlags::SERIALIZE | SdFlags::OVERLAP));
    assert!(!numa.flags.intersects(SdFlags::PREFER_SIBLING));
    // Distance 32 > node_reclaim_distance 30.
    assert!(!numa
        .flags
        .intersects(SdFlags::BALANCE_EXEC | SdFlags::BALANCE_FORK | SdFlags::WAKE_AFFINE));
    assert!(numa.flags.contains(SdFlags::BALANCE_NEWIDLE));
    assert_eq!(
        (numa.cache_nice_tries, numa.imbalance_pct, numa.min_interval),
        (2, 117, 384)
    );
    // imb_numa_nr: PKG has 192/16 = 12 LLCs; imb_span = 384 → NUMA factor 1.
    let imb: Vec<_> = sds
        .for_each_domain(0)
        .map(|d| sds.domains[d].imb_numa_nr)
        .collect();
    assert_eq!(imb, vec![0, 0, 12, 12]);
    // NUMA groups: the two packages, from CPU 300 (core 108, package 1) its own package first.
    let n200 = sds.domain_named(300, "NUMA").unwrap();
    assert_eq!(
        group_spans(&sds, n200),
        vec!["96-191,288-383", "0-95,192-287"]
    );
    let g = sds.groups_of(n200).nth(1).unwrap();
    assert_eq!(sds.groups[g].balance_mask, sds.groups[g].span);
    assert_eq!(sds.sgc[sds.groups[g].sgc].capacity, 192 * 1024);
    let c = &sds.cpus[192];
    assert_eq!(c.sd_llc, sds.domain_named(192, "MC"));
    assert_eq!((c.sd_llc_size, c.sd_llc_id), (16, 0));
    assert_eq!(c.sd_numa, sds.domain_named(192, "NUMA"));
    // sd_init gives every SHARE_LLC level its own shared object (SMT pairs too); the
    // LLC's is the one the shortcuts use.
    let llc_shared: std::collections::BTreeSet<_> =
        sds.cpus.iter().map(|c| c.sd_llc_shared.unwrap()).collect();
    assert_eq!(llc_shared.len(), 24, "one per LLC");
    assert_eq!(sds.shared.len(), 24 + 192);
    assert_eq!(sds.shared[c.sd_llc_shared.unwrap()].nr_busy_cpus, 16);
    let pkg = dom(&sds, 0, "PKG");
    assert_eq!((pkg.cache_nice_tries, pkg.flags), (1, DEFAULT));
}

#[test]
fn amd_zen_keeps_fork_balance_and_wake_affine_across_its_sockets() {
    // init_amd_zn sets node_reclaim_distance = 32 on families 17h/19h, so the EPYC 9654's
    // remote socket (SLIT 32) is not "too far" for sd_init; at RECLAIM_DISTANCE (30) it is.
    let far = SdFlags::BALANCE_EXEC | SdFlags::BALANCE_FORK | SdFlags::WAKE_AFFINE;
    let mut m = machine_from_name("epyc-9654-2s").unwrap();
    assert_eq!(m.node_reclaim_distance, 32);
    assert!(dom(&build_sched_domains(&m), 0, "NUMA").flags.contains(far));
    m.node_reclaim_distance = 30;
    assert!(!dom(&build_sched_domains(&m), 0, "NUMA")
        .flags
        .intersects(far));
}

#[test]
fn power10_balances_forks_and_wake_ups_on_no_numa_level() {
    // powerpc's RECLAIM_DISTANCE is 10, so even the chips of one drawer (20) are "far".
    let far = SdFlags::BALANCE_EXEC | SdFlags::BALANCE_FORK | SdFlags::WAKE_AFFINE;
    let m = machine_from_name("power10-240c-smt8").unwrap();
    assert_eq!(m.node_reclaim_distance, 10);
    let sds = build_sched_domains(&m);
    let numa: Vec<_> = sds
        .for_each_domain(0)
        .map(|d| &sds.domains[d])
        .filter(|d| d.flags.contains(SdFlags::NUMA))
        .collect();
    assert_eq!(numa.len(), 2, "the drawer (20) and the machine (40)");
    assert!(numa.iter().all(|d| !d.flags.intersects(far)));
    // Below the NUMA levels (the chip) forks still spread.
    assert!(sds.domains[sds.for_each_domain(0).nth(1).unwrap()]
        .flags
        .contains(SdFlags::BALANCE_FORK));
}

#[test]
fn epyc_2s_nps4_has_no_pkg_level() {
    let m = epyc(4).build();
    let sds = build_sched_domains(&m);
    assert!(!sds.levels.iter().any(|l| l.name == "PKG"));
    assert_eq!(sds.numa_distances, vec![10, 12, 32]);
    assert_eq!(names(&sds, 0), vec!["SMT", "MC", "NODE", "NUMA", "NUMA"]);
    let w: Vec<_> = sds
        .for_each_domain(0)
        .map(|d| sds.domains[d].span_weight)
        .collect();
    assert_eq!(w, vec![2, 16, 48, 192, 384]);
    let d: Vec<_> = sds.for_each_domain(0).map(|d| &sds.domains[d]).collect();
    // Distance 12 keeps wake-affine; 32 drops it.
    assert!(d[3].flags.contains(SdFlags::WAKE_AFFINE | SdFlags::NUMA));
    assert!(!d[4].flags.intersects(SdFlags::WAKE_AFFINE));
    assert!(d[2].flags.contains(SdFlags::PREFER_SIBLING) && !d[2].flags.intersects(SdFlags::NUMA));
    // NODE: 3 LLCs → imb 3, imb_span = first NUMA (192) → ×1, ×2.
    let imb: Vec<_> = d.iter().map(|d| d.imb_numa_nr).collect();
    assert_eq!(imb, vec![0, 0, 3, 3, 6]);
    assert_eq!(sds.nr_groups(sds.domain_named(0, "NODE").unwrap()), 3);
}

#[test]
fn pixel6_asym_capacity() {
    let m = pixel6();
    let sds = build_sched_domains(&m);
    assert!(sds.sched_asym_cpucapacity && sds.sched_cluster_active && !sds.sched_smt_present);
    for cpu in 0..8 {
        assert_eq!(names(&sds, cpu), vec!["CLS", "MC"], "cpu {cpu}");
        let mc = sds.domain_named(cpu, "MC").unwrap();
        let d = &sds.domains[mc];
        assert!(d
            .flags
            .contains(SdFlags::ASYM_CPUCAPACITY | SdFlags::ASYM_CPUCAPACITY_FULL));
        assert!(
            d.flags.contains(SdFlags::PREFER_SIBLING),
            "MC itself keeps it"
        );
        let cls = dom(&sds, cpu, "CLS");
        assert!(
            !cls.flags.intersects(SdFlags::PREFER_SIBLING),
            "child of the asym domain"
        );
        assert!(!cls.flags.intersects(SdFlags::ASYM_CPUCAPACITY));
        assert!(cls.flags.contains(SdFlags::CLUSTER | SdFlags::SHARE_LLC));
        assert_eq!(sds.cpus[cpu].sd_asym_cpucapacity, Some(mc));
        assert_eq!(sds.cpus[cpu].sd_llc, Some(mc));
        assert_eq!(sds.cpus[cpu].sd_balance_shared, d.shared);
        assert_eq!(
            sds.cpus[cpu].sd_share_id,
            sds.spans[cls.span].first().unwrap()
        );
    }
    assert_eq!(dom(&sds, 0, "CLS").span_weight, 4);
    assert_eq!(dom(&sds, 4, "CLS").span_weight, 2);
    // Group capacities come from the arch capacities at build (update_group_capacity).
    let mc = sds.domain_named(0, "MC").unwrap();
    let caps: Vec<_> = sds
        .groups_of(mc)
        .map(|g| {
            let s = &sds.sgc[sds.groups[g].sgc];
            (s.capacity, s.min_capacity, s.max_capacity)
        })
        .collect();
    assert_eq!(
        caps,
        vec![(4 * 124, 124, 124), (2 * 427, 427, 427), (2048, 1024, 1024)]
    );
    let out = render_domains(&sds, &m);
    assert!(out.contains("SD_ASYM_CPUCAPACITY_FULL"), "{out}");
}

#[test]
fn power_smt8_numa_1920_cpus() {
    // POWER-like: 4 packages × 2 nodes × 1 LLC × 30 cores × SMT8 (adjacent) = 1920 CPUs,
    // cluster of 2 cores (SMT4 pairs share L2 on POWER9/10).
    let mut s = Shape::flat("power-1920", 30, 8);
    s.packages = 4;
    s.nodes_per_package = 2;
    s.cores_per_cluster = 2;
    s.distance_same_package = 20;
    s.distance_remote = 40;
    let m = s.build();
    assert_eq!(m.nr_cpus(), 1920);
    let t = std::time::Instant::now();
    let sds = build_sched_domains(&m);
    let took = t.elapsed();
    println!("1920-CPU build: {took:?}; {}", render_summary(&sds, &m));
    assert_eq!(names(&sds, 0), vec!["SMT", "CLS", "MC", "NUMA", "NUMA"]);
    let w: Vec<_> = sds
        .for_each_domain(1919)
        .map(|d| sds.domains[d].span_weight)
        .collect();
    assert_eq!(w, vec![8, 16, 240, 480, 1920]);
    let smt = dom(&sds, 9, "SMT");
    assert_eq!(sds.spans[smt.span].to_cpulist(), "8-15");
    assert_eq!(smt.imbalance_pct, 110);
    assert_eq!(sds.cpus[9].sd_share_id, 0);
    assert_eq!(sds.cpus[9].sd_llc_size, 240);
    // MC is the node (NODE degenerated into it), so NUMA levels start above it.
    let top = dom(&sds, 0, "MC");
    assert_eq!(top.imb_numa_nr, 0);
    assert!(sds.domains.len() <= 1920 * 5);
    assert!(
        sds.groups.len() < 1920 * 2,
        "groups are shared: {}",
        sds.groups.len()
    );
    // One single-CPU span per CPU (bottom groups) plus a few hundred level spans.
    assert!(sds.spans.len() < 2 * 1920);
}

#[test]
fn degenerate_cases() {
    // One CPU: every level spans one CPU → no domains at all.
    let m = smp(1);
    let sds = build_sched_domains(&m);
    assert_eq!(sds.cpus[0].sd, None);
    assert_eq!(sds.domains.len(), 0);
    assert_eq!(
        (
            sds.cpus[0].sd_llc,
            sds.cpus[0].sd_llc_size,
            sds.cpus[0].sd_llc_id
        ),
        (None, 1, 0)
    );
    assert!(render_domains(&sds, &m).contains("NULL sched-domain"));
    // Clusters as big as the LLC: CLS equals MC; MC adds no flag (SHARE_LLC is in CLS
    // too and the one-group parent's group flags don't count) → MC goes, CLS stays.
    let mut s = Shape::flat("cls", 4, 1);
    s.cores_per_cluster = 4;
    s.packages = 2;
    let m = s.build();
    let sds = build_sched_domains(&m);
    assert_eq!(names(&sds, 0), vec!["CLS", "NUMA"]);
    assert_eq!(sds.domains[sds.cpus[0].sd.unwrap()].span_weight, 4);
    // One CPU per LLC on two packages: no LLC domain, the LLC id is the CPU itself.
    let mut s = Shape::flat("solo", 1, 1);
    s.llcs_per_node = 2;
    let m = s.build();
    let sds = build_sched_domains(&m);
    assert_eq!(names(&sds, 1), vec!["PKG"]);
    assert_eq!(
        (
            sds.cpus[1].sd_llc,
            sds.cpus[1].sd_llc_id,
            sds.cpus[1].sd_llc_size
        ),
        (None, 1, 1)
    );
}

#[test]
fn render_epyc_and_pixel6() {
    let m = epyc(1).build();
    let sds = build_sched_domains(&m);
    let out = render_domains(&sds, &m);
    println!("{out}");
    assert!(
        out.contains(" domain-1: span=0-7,192-199 level=MC"),
        "{out}"
    );
    assert!(out.contains("NODE   (degenerate"), "{out}");
    let m = pixel6();
    println!("{}", render_domains(&build_sched_domains(&m), &m));
}

/// Structural invariants every build must satisfy.
fn check_invariants(sds: &SchedDomains) {
    let n = sds.nr_cpus;
    for cpu in 0..n {
        let chain: Vec<_> = sds.for_each_domain(cpu).collect();
        if let Some(&top) = chain.last() {
            assert_eq!(
                sds.span(top).weight(),
                n,
                "cpu {cpu}: top spans the machine"
            );
        }
        for (k, &d) in chain.iter().enumerate() {
            let sd = &sds.domains[d];
            assert_eq!(sd.cpu, cpu);
            assert!(sds.span(d).contains(cpu));
            assert!(sd.span_weight > 1, "single-CPU domains are dropped");
            if k > 0 {
                assert!(sds.span(chain[k - 1]).is_subset(sds.span(d)));
                assert_ne!(sds.span(chain[k - 1]), sds.span(d), "equal parent kept?");
                assert_eq!(sd.child, Some(chain[k - 1]));
            }
            let groups: Vec<_> = sds.groups_of(d).collect();
            assert!(
                sds.group_span(groups[0]).contains(cpu),
                "first group holds the CPU"
            );
            let mut cover = CpuMask::new(n);
            for &g in &groups {
                let grp = &sds.groups[g];
                assert!(sds.spans[grp.balance_mask].is_subset(sds.group_span(g)));
                assert!(!sds.spans[grp.balance_mask].is_empty());
                assert_eq!(grp.group_weight as usize, sds.group_span(g).weight());
                cover.or_assign(sds.group_span(g));
            }
            assert_eq!(&cover, sds.span(d), "groups cover the span");
        }
    }
}

#[test]
fn invariants_hold_including_numa_diameter_4() {
    let mut machines = vec![smp(1), smp(8), pixel6(), epyc(1).build(), epyc(4).build()];
    machines.push(Shape::flat("4x2", 4, 2).build());
    // Four nodes in a line (distances 10/20/30/40): groups of the widest NUMA levels
    // need find_descended_sibling.
    let mut s = Shape::flat("line4", 4, 2);
    s.packages = 4;
    let mut m = s.build();
    m.numa_distance = (0..4)
        .map(|a: i32| {
            (0..4)
                .map(|b: i32| 10 + 10 * (a - b).unsigned_abs())
                .collect()
        })
        .collect();
    machines.push(m);
    for m in &machines {
        let sds = build_sched_domains(m);
        check_invariants(&sds);
    }
    let line = build_sched_domains(machines.last().unwrap());
    assert_eq!(line.numa_distances, vec![10, 20, 30, 40]);
    // Node 0's view: {0,1}, then {0,1,2}, then everything.
    let w: Vec<_> = line
        .for_each_domain(0)
        .map(|d| line.domains[d].span_weight)
        .collect();
    assert_eq!(w, vec![2, 8, 16, 24, 32]);
    let top = line.for_each_domain(0).last().unwrap();
    println!("{}", render_cpu_domains(&line, machines.last().unwrap(), 0));
    assert!(line.nr_groups(top) >= 2);
}
