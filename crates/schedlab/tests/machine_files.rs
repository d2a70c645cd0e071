//! Machine files: every preset round-trips through TOML, every validation rule rejects
//! with the key and a fix, the shape form builds, and capture reads a fake sysfs tree.

use schedlab::machine::capture::{capture, capture_with, cpuinfo_khz, node_reclaim_distance};
use schedlab::machine::presets::{machine_from_name, PRESET_EXAMPLES};
use schedlab::machine::{machine_to_toml, parse_machine};
use std::path::Path;

#[test]
fn every_preset_round_trips() {
    for name in PRESET_EXAMPLES {
        let m = machine_from_name(name).unwrap();
        let text = machine_to_toml(&m);
        let back = parse_machine(&text, "x.toml").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, m, "{name}");
    }
}

/// A valid 4-CPU file (2 cores × SMT2, two nodes) that the error cases below break.
const BASE: &str = r#"
name = "tiny"
cpu = [
  { id = 0, capacity = 1024, core = 0, llc = 0, package = 0, node = 0 },
  { id = 1, capacity = 1024, core = 0, llc = 0, package = 0, node = 0 },
  { id = 2, capacity = 512, core = 1, llc = 1, package = 1, node = 1 },
  { id = 3, capacity = 512, core = 1, llc = 1, package = 1, node = 1 },
]
[[freq_domain]]
cpus = "0-1"
opps = [{ khz = 1000000 }, { mhz = 1803, mv = 906.25, coefficient = 70 }]
transition_latency_us = 500
idle_states = [{ name = "c1", exit_latency_ns = 1000, target_residency_ns = 2000 }]
[[freq_domain]]
cpus = [2, 3]
opps = [{ khz = 2000000, uv = 0, power_uw = 0 }]
[numa]
distance = [[10, 20], [20, 10]]
[costs]
context_switch_ns = 3000
"#;

#[test]
fn the_base_file_parses() {
    let m = parse_machine(BASE, "b.toml").unwrap();
    assert_eq!(m.nr_cpus(), 4);
    assert_eq!(m.cpus[3].freq_domain, 1);
    assert_eq!(m.cpus[2].cluster, 1);
    assert_eq!(m.freq_domains[0].max_khz, 1_803_000);
    assert_eq!(m.freq_domains[0].opps[1].power_uw, 103_597);
    assert_eq!(m.freq_domains[0].transition_latency_ns, 500_000);
    assert_eq!(m.freq_domains[0].idle_states[0].name, "c1");
    assert_eq!(m.costs.context_switch_ns, 3000);
    assert_eq!(m.costs.idle_exit_ns, 50_000);
    assert_eq!(parse_machine(&machine_to_toml(&m), "b.toml").unwrap(), m);
}

/// The error for BASE with `from` replaced by `to`; it must name `key`.
fn broken(from: &str, to: &str, key: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    let e = parse_machine(&BASE.replacen(from, to, 1), "b.toml").unwrap_err();
    let s = e.to_string();
    assert!(s.starts_with("b.toml"), "{s}");
    assert!(s.contains(key), "{key} not in: {s}");
    assert!(e.fix.is_some(), "no fix: {s}");
    s
}

#[test]
fn each_rule_is_enforced_with_key_and_fix() {
    broken("name =", "nmae =", "unknown field `nmae`");
    broken("{ id = 3,", "{ id = 5,", "cpu[3].id");
    broken("{ id = 3,", "{ id = 2,", "cpu[3].id");
    broken(
        "capacity = 512, core = 1, llc = 1, package = 1, node = 1 },\n  { id = 3",
        "capacity = 0, core = 1, llc = 1, package = 1, node = 1 },\n  { id = 3",
        "capacity",
    );
    let s = broken(
        "capacity = 1024, core = 0, llc = 0, package = 0, node = 0 },\n  { id = 1, capacity = 1024",
        "capacity = 1000, core = 0, llc = 0, package = 0, node = 0 },\n  { id = 1, capacity = 1000",
        "capacity",
    );
    assert!(s.contains("1024"), "{s}");
    broken(
        "capacity = 512, core = 1",
        "capacity = 2000, core = 1",
        "capacity",
    );
    broken("cpus = [2, 3]", "cpus = [1, 2, 3]", "freq_domain[1].cpus");
    broken("cpus = [2, 3]", "cpus = [2]", "freq_domain");
    broken("cpus = [2, 3]", "cpus = [2, 3, 9]", "freq_domain[1].cpus");
    broken(
        "[{ khz = 1000000 }, {",
        "[{ khz = 2000000 }, {",
        "freq_domain[0].opps[1].khz",
    );
    broken(
        "opps = [{ khz = 2000000, uv = 0, power_uw = 0 }]",
        "opps = []",
        "freq_domain[1].opps",
    );
    broken(
        "{ khz = 1000000 }",
        "{ khz = 1000000, mhz = 1000 }",
        "freq_domain[0].opps[0]",
    );
    broken(
        "[[10, 20], [20, 10]]",
        "[[10, 20], [30, 10]]",
        "numa.distance[0][1]",
    );
    broken(
        "[[10, 20], [20, 10]]",
        "[[10, 20], [20, 11]]",
        "numa.distance[1][1]",
    );
    broken("[[10, 20], [20, 10]]", "[[10, 20]]", "numa.distance");
    broken(
        "[[10, 20], [20, 10]]",
        "[[10, 20], [20]]",
        "numa.distance[1]",
    );
    broken(
        "[numa]\ndistance = [[10, 20], [20, 10]]\n",
        "",
        "numa.distance",
    );
    broken(
        "[numa]\ndistance = [[10, 20], [20, 10]]\n",
        "[numa]\nnode_reclaim_distance = 32\n",
        "numa.distance",
    );
    broken(
        "distance = [[10, 20], [20, 10]]\n",
        "distance = [[10, 20], [20, 10]]\nnode_reclaim_distance = 5\n",
        "numa.node_reclaim_distance",
    );
    broken(
        "core = 1, llc = 1, package = 1, node = 1 },\n]",
        "core = 1, llc = 0, package = 1, node = 1 },\n]",
        "llc",
    );
    broken(
        "context_switch_ns",
        "context_switch_us",
        "unknown field `context_switch_us`",
    );
    broken(
        "[costs]",
        "[costs]\ncache_line_bytes = 100",
        "cache_line_bytes = 100: a cache line is a power of two",
    );
    broken(
        "[costs]",
        "[costs]\ncacheline_occupancy_pct = 150",
        "cacheline_occupancy_pct = 150: give 0 to 100",
    );
    broken(
        "[costs]",
        "[costs]\ncacheline_store_stall_pct = 101",
        "cacheline_store_stall_pct = 101: give 0 to 100",
    );
    broken(
        "[costs]",
        "[shape]\ncores_per_llc = 2\n[costs]",
        "[shape] cannot be combined",
    );
}

#[test]
fn shape_form_builds_the_same_numbering_as_the_preset() {
    let text = r#"
name = "epyc-9654-2s"
[shape]
packages = 2
llcs_per_node = 12
cores_per_llc = 8
threads_per_core = 2
numbering = "strided"
khz = 2400000
distance_remote = 32
[numa]  # AMD Zen: init_amd_zn sets node_reclaim_distance = 32
node_reclaim_distance = 32
[costs]  # the Genoa line measured on this repository's host
cacheline_llc_ns = 29
pipe_bounce_ns = 116
socket_bounce_ns = 116
"#;
    let m = parse_machine(text, "s.toml").unwrap();
    // The shape form has no idle states; the preset adds acpi_idle's C1/C2.
    let mut preset = machine_from_name("epyc-9654-2s").unwrap();
    for d in &mut preset.freq_domains {
        assert_eq!(d.idle_states.len(), 2);
        d.idle_states.clear();
    }
    assert_eq!(m, preset);
    let e = parse_machine(&text.replace("strided", "zigzag"), "s.toml").unwrap_err();
    assert!(e.to_string().contains("shape.numbering"), "{e}");
    let e = parse_machine(&text.replace("packages = 2", "packages = 0"), "s.toml").unwrap_err();
    assert!(e.to_string().contains("shape.packages"), "{e}");
}

#[test]
fn malformed_toml_names_line_and_column() {
    let e = parse_machine("name = \"x\"\ncpu = [\n", "m.toml").unwrap_err();
    assert!(e.origin.starts_with("m.toml:"), "{e}");
    assert!(parse_machine("name = \"x\"\n", "m.toml").is_err());
}

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// 2 packages × 2 cores × SMT2, x86 numbering (siblings n, n+4), one node per package,
/// an L3 per package, cpufreq with three frequencies.
fn fake_sysfs(root: &Path) {
    for cpu in 0..8usize {
        let core = cpu % 4;
        let pkg = core / 2;
        let d = format!("devices/system/cpu/cpu{cpu}");
        put(
            root,
            &format!("{d}/topology/core_id"),
            &format!("{}\n", core % 2),
        );
        put(
            root,
            &format!("{d}/topology/physical_package_id"),
            &format!("{pkg}\n"),
        );
        put(
            root,
            &format!("{d}/topology/cluster_id"),
            &format!("{core}\n"),
        );
        put(
            root,
            &format!("{d}/topology/core_cpus_list"),
            &format!("{core},{}\n", core + 4),
        );
        for (k, level, ty, shared) in [
            (0, 1, "Data", format!("{core},{}", core + 4)),
            (1, 1, "Instruction", format!("{core},{}", core + 4)),
            (
                2,
                3,
                "Unified",
                format!(
                    "{}-{},{}-{}",
                    2 * pkg,
                    2 * pkg + 1,
                    2 * pkg + 4,
                    2 * pkg + 5
                ),
            ),
        ] {
            put(
                root,
                &format!("{d}/cache/index{k}/level"),
                &format!("{level}\n"),
            );
            put(
                root,
                &format!("{d}/cache/index{k}/type"),
                &format!("{ty}\n"),
            );
            put(
                root,
                &format!("{d}/cache/index{k}/shared_cpu_list"),
                &format!("{shared}\n"),
            );
        }
        put(
            root,
            &format!("{d}/cpufreq/scaling_available_frequencies"),
            "2400000 1800000 1200000 \n",
        );
    }
    for node in 0..2 {
        let d = format!("devices/system/node/node{node}");
        put(
            root,
            &format!("{d}/cpulist"),
            &format!(
                "{}-{},{}-{}\n",
                2 * node,
                2 * node + 1,
                2 * node + 4,
                2 * node + 5
            ),
        );
        put(
            root,
            &format!("{d}/distance"),
            if node == 0 { "10 21\n" } else { "21 10\n" },
        );
    }
}

#[test]
fn capture_reads_a_fake_sysfs_tree() {
    let root = std::env::temp_dir().join(format!("schedlab-sysfs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    fake_sysfs(&root);
    let m = capture(&root).unwrap();
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(m.nr_cpus(), 8);
    assert_eq!(m.cpus[1].core, m.cpus[5].core);
    assert_ne!(m.cpus[0].core, m.cpus[1].core);
    assert_eq!(m.cpus.iter().map(|c| c.core).max(), Some(3));
    assert_eq!(m.cpus[4].llc, 0);
    assert_eq!(m.cpus[6].llc, 1);
    assert_eq!((m.cpus[6].package, m.cpus[6].numa_node), (1, 1));
    assert_eq!(m.numa_distance, vec![vec![10, 21], vec![21, 10]]);
    // No related_cpus: one frequency domain per package, frequencies ascending.
    assert_eq!(m.freq_domains.len(), 2);
    assert_eq!(m.freq_domains[1].cpus, [2, 3, 6, 7]);
    let khz: Vec<u32> = m.freq_domains[0].opps.iter().map(|o| o.khz).collect();
    assert_eq!(khz, [1_200_000, 1_800_000, 2_400_000]);
    assert!(m.cpus.iter().all(|c| c.capacity == 1024));
    // What capture prints parses back.
    assert_eq!(parse_machine(&machine_to_toml(&m), "c.toml").unwrap(), m);
}

#[test]
fn capture_of_a_missing_tree_is_a_clear_error() {
    let e = capture(Path::new("/nonexistent/sysfs")).unwrap_err();
    assert!(e.to_string().contains("--sysfs"), "{e}");
}

#[test]
fn the_documented_example_parses() {
    let doc = include_str!("../../../docs/machines.md");
    let start = doc.find("```toml\n").expect("an example") + 8;
    let len = doc[start..].find("```").unwrap();
    let m = parse_machine(&doc[start..start + len], "docs/machines.md").unwrap();
    assert_eq!(m.nr_cpus(), 3);
    assert_eq!(m.freq_domains[0].cpus, [0, 1]);
    assert_eq!(m.freq_domains[0].transition_latency_ns, 500_000);
}

#[test]
fn capture_without_cpufreq_takes_the_cpuinfo_mhz() {
    let root = std::env::temp_dir().join(format!("schedlab-sysfs-ci-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    fake_sysfs(&root);
    for cpu in 0..8 {
        let f = root.join(format!(
            "devices/system/cpu/cpu{cpu}/cpufreq/scaling_available_frequencies"
        ));
        std::fs::remove_file(f).unwrap();
    }
    // A VM's cpuinfo: the MHz wobbles between CPUs and reads; package 1 runs faster.
    let cpuinfo: String = (0..8)
        .map(|c| {
            let mhz = if [2, 3, 6, 7].contains(&c) {
                "3100.47"
            } else {
                "2596.122"
            };
            format!("processor\t: {c}\nmodel name\t: AMD EPYC\ncpu MHz\t\t: {mhz}\n\n")
        })
        .collect();
    let m = capture_with(&root, Some(&cpuinfo)).unwrap();
    let without = capture_with(&root, None).unwrap();
    let _ = std::fs::remove_dir_all(&root);
    let khz = |m: &schedlab::Machine, d: usize| -> Vec<u32> {
        m.freq_domains[d].opps.iter().map(|o| o.khz).collect()
    };
    assert_eq!(khz(&m, 0), [2_596_000]);
    assert_eq!(khz(&m, 1), [3_100_000]);
    // Neither cpufreq nor cpuinfo: the documented 2 GHz.
    assert_eq!(khz(&without, 0), [2_000_000]);
    assert_eq!(cpuinfo_khz("processor : 0\ncpu MHz : 0.000\n").len(), 0);
}

#[test]
fn a_scenarios_costs_table_sets_machine_costs_over_the_preset() {
    use schedlab::experiment::run::{run_workload, scenario_machine, scenario_workload};
    use schedlab::experiment::scenario_toml::parse_scenario;
    let text = r#"
machine = "smp:2"
duration = "20ms"
workloads = ["spinner -n 2 --sleep 1ms --work 1ms"]
[costs]
cacheline_cross_numa_ns = 600
context_switch_ns = 7000
"#;
    let sc = parse_scenario(text, "s.toml", Path::new(".")).unwrap();
    let preset = machine_from_name("smp:2").unwrap().costs;
    let m = scenario_machine(&sc).unwrap();
    assert_eq!(m.costs.cacheline_cross_numa_ns, 600);
    assert_eq!(m.costs.context_switch_ns, 7000);
    assert_eq!(
        m.costs.pipe_write_ns, preset.pipe_write_ns,
        "the others stay"
    );
    let r = run_workload(&sc, scenario_workload(&sc).unwrap()).unwrap();
    let echo = serde_json::to_value(&r.scenario).unwrap();
    assert_eq!(echo["costs"]["context_switch_ns"], 7000);
    // Without a [costs] table the result document has no costs key (documents unchanged).
    let plain = parse_scenario(
        &text.replace("[costs]", "[ignored]").replace(
            "[ignored]\ncacheline_cross_numa_ns = 600\ncontext_switch_ns = 7000\n",
            "",
        ),
        "s.toml",
        Path::new("."),
    )
    .unwrap();
    assert!(plain.costs.is_empty());
    let r = run_workload(&plain, scenario_workload(&plain).unwrap()).unwrap();
    assert!(serde_json::to_value(&r.scenario)
        .unwrap()
        .get("costs")
        .is_none());
    for (bad, want) in [
        ("[costs]\nnope_ns = 1\n", "unknown cost 'nope_ns'"),
        (
            "[costs]\nsmt_busy_speed_pct = 99999999999\n",
            "smt_busy_speed_pct",
        ),
        (
            "[costs]\ncontext_switch_ns = \"2us\"\n",
            "context_switch_ns",
        ),
    ] {
        let e = parse_scenario(
            &format!("machine = \"smp:2\"\n{bad}"),
            "s.toml",
            Path::new("."),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("s.toml") && e.contains(want), "{e}");
    }
}

#[test]
fn capture_takes_amd_zens_node_reclaim_distance_from_cpuinfo() {
    let cpu = |vendor: &str, family: u32| {
        format!("processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: 17\n\n")
    };
    assert_eq!(node_reclaim_distance(&cpu("AuthenticAMD", 25)), 32);
    assert_eq!(node_reclaim_distance(&cpu("AuthenticAMD", 23)), 32);
    // Pre-Zen AMD (family 15h) and Intel keep RECLAIM_DISTANCE.
    assert_eq!(node_reclaim_distance(&cpu("AuthenticAMD", 21)), 30);
    assert_eq!(node_reclaim_distance(&cpu("GenuineIntel", 6)), 30);
    assert_eq!(node_reclaim_distance("processor\t: 0\n"), 30);
    // powerpc's RECLAIM_DISTANCE.
    let power = "processor\t: 0\ncpu\t\t: POWER10 (architected), altivec supported\n";
    assert_eq!(node_reclaim_distance(power), 10);
}
