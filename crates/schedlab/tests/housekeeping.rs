//! `[noise] housekeeping_hz`: one kernel-thread-like task per CPU that wakes that often and
//! runs briefly, in the root group (issue 15 point 7; docs/scenario.md).

mod common;
use common::*;
use schedlab::experiment::scenario_toml::parse_scenario;

fn with_housekeeping(hz: u32, seed: u64) -> schedlab::RunResult {
    let mut sc = scenario("smp:2", 10);
    sc.seed = seed;
    sc.autogroup = true;
    sc.noise.housekeeping_hz = hz;
    run(&sc, vec![hog("hog", 0, Some(vec![0]))])
}

#[test]
fn housekeeping_wakes_each_cpu_at_its_rate_and_interrupts_a_hog() {
    let r = with_housekeeping(25, 1);
    let names: Vec<&str> = r.tasks.iter().map(|t| t.comm.as_str()).collect();
    assert_eq!(names, ["hog", "kworker/0:1", "kworker/1:1"]);
    for t in &r.tasks[1..] {
        // 25 wake-ups a second for 10 s (uniform sleeps in [0, 80 ms): mean 40 ms).
        assert!(
            (200..=300).contains(&t.nr_voluntary_switches),
            "{}: {}",
            t.comm,
            t.nr_voluntary_switches
        );
        // 20 µs each (the default run), in the root group despite autogroup.
        let per_run = t.cpu_time_ns / t.nr_voluntary_switches.max(1);
        assert!((20_000..25_000).contains(&per_run), "{per_run}");
        assert_eq!(t.cgroup.as_deref(), Some("/"));
    }
    // The hog on CPU 0 is preempted by its CPU's housekeeping, not by CPU 1's.
    let hog = &r.tasks[0];
    assert!(
        hog.nr_involuntary_switches >= 100,
        "{}",
        hog.nr_involuntary_switches
    );
    assert_eq!(hog.cgroup.as_deref(), Some("/autogroup-1"));
}

#[test]
fn housekeeping_is_off_by_default_and_seeded() {
    assert_eq!(with_housekeeping(0, 1).tasks.len(), 1);
    let (a, b) = (with_housekeeping(25, 1), with_housekeeping(25, 2));
    assert_ne!(a.tasks[1].nr_switches, b.tasks[1].nr_switches);
    let a2 = with_housekeeping(25, 1);
    assert_eq!(a.tasks[1].cpu_time_ns, a2.tasks[1].cpu_time_ns);
}

#[test]
fn housekeeping_keys_parse_and_bad_values_name_the_key() {
    let sc = parse_scenario(
        "[noise]\nhousekeeping_hz = 22\nhousekeeping_run = \"15us\"\n",
        "s.toml",
        std::path::Path::new("."),
    )
    .unwrap();
    assert_eq!(
        (sc.noise.housekeeping_hz, sc.noise.housekeeping_run_ns),
        (22, 15_000)
    );
    let e = parse_scenario(
        "[noise]\nhousekeeping_hz = -1\n",
        "s.toml",
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("noise.housekeeping_hz"), "{e}");
}
