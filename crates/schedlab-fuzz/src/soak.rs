//! The soak (docs/fuzzing.md): random valid scenarios — machines × workloads × sched
//! features × kernel versions × cgroup trees — run with the kernel model's invariants
//! checked often, until a number of simulated events is covered.

use crate::rng::Rng;
use schedlab::experiment::run::{execute, prepare, scenario_workload};
use schedlab::experiment::{parse_scenario, Scenario};
use schedlab::sched::features::REGISTRY;
use schedlab::sched::version::KernelVersion;
use std::path::Path;

const MACHINES: &[&str] = &[
    "smp:1",
    "smp:2",
    "smp:4",
    "smp:8",
    "smt:2x2",
    "smt:4x2",
    "pixel6",
    "smp-dvfs:4",
    "vm8",
    "m.toml",
];

/// Workloads that are valid on every machine above, with the comm globs of their tasks.
const WORKLOADS: &[(&str, &str)] = &[
    ("hackbench -g 1 -f 4 -l 200", "hackbench*"),
    ("hackbench -p -T -g 2 -f 2 -l 100 -s 64", "hackbench*"),
    ("perf-bench-messaging -g 1 -l 50", "sched-messaging*"),
    ("schbench -m 1 -t 2 -r 1", "schbench*"),
    ("schbench -m 1 -t 3 -R 200 -r 1", "schbench*"),
    ("stress-ng --wait 2 -t 1", "stress-ng*"),
    (
        "spinner -n 6 --policy idle --sleep 500us --loops 200000",
        "spinner*",
    ),
    ("spinner -n 3 --nice 5 --sleep 2ms --work 1ms", "spinner*"),
    ("frames -e idle:50ms,scroll:200ms -a 2 -s 2", "*"),
    ("rtapp a.json", "periodic*"),
    ("rtapp b.json", "hog*"),
];

pub struct SoakReport {
    pub scenarios: u64,
    pub events: u64,
    pub violations: u64,
    /// Scenarios the generator made that the input checks refused (its own mistakes).
    pub refused: u64,
    /// The first violating scenarios, as TOML, with their messages.
    pub failures: Vec<(String, Vec<String>)>,
}

/// A random scenario as scenario-file TOML (so a failure is a file to rerun).
pub fn scenario_toml(r: &mut Rng) -> String {
    let kernel = r.pick(&KernelVersion::ALL);
    let mut out = format!(
        "machine = \"{}\"\nkernel = \"{}\"\nseed = {}\nduration = \"{}ms\"\nhz = {}\npreempt = \"{}\"\n",
        r.pick(MACHINES),
        kernel.name(),
        r.below(1 << 30),
        50 + r.below(950),
        r.pick(&[100, 250, 300, 1000]),
        r.pick(&["none", "voluntary", "full", "lazy"]),
    );
    // Flip a few of this kernel's features.
    let feats: Vec<String> = (0..r.below(5))
        .filter_map(|_| {
            let (f, name, _, _) = REGISTRY[r.below(REGISTRY.len())];
            f.exists_in(kernel)
                .then(|| format!("{}{name}", if r.one_in(2) { "NO_" } else { "" }))
        })
        .collect();
    out.push_str(&format!("features = \"{}\"\n", feats.join(",")));
    if r.one_in(3) {
        out.push_str(&format!(
            "pelt_halflife = \"{}\"\n",
            r.pick(&["32ms", "16ms", "8ms"])
        ));
    }
    if r.one_in(3) {
        out.push_str(&format!(
            "governor = \"{}\"\n",
            r.pick(&["schedutil", "performance", "powersave"])
        ));
    }
    let n = r.below(3) + 1;
    let chosen: Vec<(&str, &str)> = (0..n).map(|_| r.pick(WORKLOADS)).collect();
    let list: Vec<String> = chosen.iter().map(|(w, _)| format!("\"{w}\"")).collect();
    out.push_str(&format!("workloads = [{}]\n", list.join(", ")));
    if r.one_in(4) {
        out.push_str("autogroup = true\n");
    }
    if r.one_in(4) {
        out.push_str("[noise]\nstart_jitter = \"2ms\"\nwork_jitter_pct = 2\n");
    }
    if r.one_in(2) {
        // A cgroup tree: /a with a child /a/b, the first workload's tasks in one of them.
        let glob = chosen[0].1;
        out.push_str(&format!(
            "[cgroups.\"/a\"]\nweight = {}\n",
            r.pick(&[1, 50, 100, 1000, 10000])
        ));
        if r.one_in(2) {
            out.push_str(&format!(
                "max = \"{}\"\n",
                r.pick(&["max", "50000 100000", "2000 10000", "200000 100000"])
            ));
        }
        out.push_str("[cgroups.\"/a/b\"]\n");
        if r.one_in(3) {
            out.push_str("idle = true\n");
        }
        if r.one_in(3) {
            out.push_str("uclamp_min = 20\nuclamp_max = 80\n");
        }
        let leaf = if r.one_in(2) { "/a" } else { "/a/b" };
        out = out.replacen(
            &format!("[cgroups.\"{leaf}\"]\n"),
            &format!("[cgroups.\"{leaf}\"]\ntasks = [\"{glob}\"]\n"),
            1,
        );
    }
    out
}

/// Run scenarios from `seed` until `events` simulated events are covered; invariants are
/// checked every `check_every` events. `on_scenario` sees the running report.
pub fn soak(
    events: u64,
    seed: u64,
    dir: &Path,
    check_every: u64,
    on_scenario: &mut dyn FnMut(&SoakReport),
) -> SoakReport {
    let mut r = Rng::new(seed);
    let mut rep = SoakReport {
        scenarios: 0,
        events: 0,
        violations: 0,
        refused: 0,
        failures: Vec::new(),
    };
    while rep.events < events {
        let text = scenario_toml(&mut r);
        let Some(sc) = build(&text, dir) else {
            rep.refused += 1;
            continue;
        };
        let Ok(w) = scenario_workload(&sc) else {
            rep.refused += 1;
            continue;
        };
        let Ok(sim) = prepare(&sc, w) else {
            rep.refused += 1;
            continue;
        };
        let res = execute(&sc, sim, Some(check_every));
        rep.scenarios += 1;
        rep.events += res.sim.events;
        if res.sim.invariant_violations > 0 {
            rep.violations += res.sim.invariant_violations;
            if rep.failures.len() < 20 {
                rep.failures
                    .push((text, res.sim.invariant_messages.clone()));
            }
        }
        on_scenario(&rep);
    }
    rep
}

fn build(text: &str, dir: &Path) -> Option<Scenario> {
    let mut sc = parse_scenario(text, "soak.toml", dir).ok()?;
    if sc.machine.ends_with(".toml") {
        sc.machine = dir.join(&sc.machine).display().to_string();
    }
    Some(sc)
}
