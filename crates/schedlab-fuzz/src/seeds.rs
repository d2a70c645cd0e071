//! The starting corpus: the repository's own example files plus hand-written inputs of
//! each kind, and the fixture files relative paths in generated inputs point at.

use crate::targets::Target;

pub const PERIODIC_JSON: &str = include_str!("../../../examples/periodic.json");
pub const TWO_HOGS_JSON: &str = include_str!("../../../examples/two-hogs.json");
const TWO_HOGS_TOML: &str = include_str!("../../../examples/two-hogs.toml");
const STUDIES: &[&str] = &[
    include_str!("../../../studies/delayed-dequeue.toml"),
    include_str!("../../../studies/overutilized-eas-gate.toml"),
    include_str!("../../../studies/pelt-halflife.toml"),
    include_str!("../../../studies/prio-lb.toml"),
    include_str!("../../../studies/util-fits-capacity.toml"),
];

/// A small machine file (`m.toml` in the fixture folder).
pub const MACHINE_TOML: &str = "[shape]\npackages = 1\ncores_per_llc = 2\nthreads_per_core = 2\n";

const MACHINES: &[&str] = &[
    MACHINE_TOML,
    "cpu = [{ id = 0, capacity = 512 }, { id = 1 }]\n[[freq_domain]]\ncpus = \"0-1\"\nopps = [{ khz = 1000000 }, { khz = 2000000 }]\n",
    "[shape]\npackages = 2\nnodes_per_package = 1\ncores_per_llc = 2\nnumbering = \"strided\"\nthreads_per_core = 2\n[numa]\ndistance = [[10, 32], [32, 10]]\n[costs]\ncontext_switch_ns = 3000\n",
];

const WORKLOADS: &[&str] = &[
    "hackbench -g 2 -l 10",
    "hackbench -p -T -g 1 -f 2 -l 5 -s 100",
    "perf-bench-messaging -g 1 -l 5",
    "schbench -m 1 -t 2 -r 1",
    "schbench -m 1 -t 2 -R 100 -r 1",
    "stress-ng --wait 2 -t 1",
    "spinner -n 4 --policy idle --sleep 500us --loops 1000",
    "frames -e idle:10ms,scroll:20ms",
    "rtapp a.json",
];

const KNOBS: &[&str] = &[
    "NO_DELAY_DEQUEUE,HRTICK",
    "NO_PLACE_LAG RUN_TO_PARITY",
    "sched_util_clamp_max=512",
    "sched_latency_ns=6000000",
];

/// The starting inputs of target `t`.
pub fn seeds(t: Target) -> Vec<String> {
    let v: Vec<&str> = match t {
        Target::Rtapp => vec![PERIODIC_JSON, TWO_HOGS_JSON],
        Target::Scenario => {
            let mut v = vec![TWO_HOGS_TOML.replace("two-hogs.json", "b.json")];
            v.extend(STUDIES.iter().map(|s| s.to_string()));
            return v;
        }
        Target::Machine => MACHINES.to_vec(),
        Target::Workload => WORKLOADS.to_vec(),
        Target::Knob => KNOBS.to_vec(),
    };
    v.into_iter().map(String::from).collect()
}
