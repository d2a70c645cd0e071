//! `ab`'s statistics end to end: identical settings show no significant difference over
//! many seeds; a planted 5% difference in work is found.

use schedlab::experiment::ab::{run_ab, Arm, ALPHA};
use schedlab::experiment::noise::Noise;
use schedlab::experiment::scenario_toml::apply_setting;
use schedlab::experiment::Scenario;
use std::path::Path;

/// A folder with two rt-app files: 4 periodic tasks doing `run` µs every 10 ms.
fn workloads(name: &str) -> tempfile::TempDir {
    let guard = tempfile::Builder::new()
        .prefix(&format!("schedlab-ab-{name}-"))
        .tempdir()
        .unwrap();
    let dir = guard.path().to_path_buf();
    for (file, run) in [("a.json", 2000), ("b.json", 2100)] {
        let json = format!(
            r#"{{"global": {{"duration": 1}},
                "tasks": {{"p": {{"instance": 6, "run": {run},
                "timer": {{"ref": "unique", "period": 10000, "mode": "absolute"}}}}}}}}"#
        );
        std::fs::write(dir.join(file), json).unwrap();
    }
    guard
}

fn scenario(dir: &Path) -> Scenario {
    Scenario {
        machine: "smp:4".into(),
        workloads: vec!["rtapp a.json".into()],
        base_dir: dir.to_path_buf(),
        noise: Noise {
            start_jitter_ns: 5_000_000,
            work_jitter_ppm: 50_000,
            ..Noise::default()
        },
        ..Scenario::default()
    }
}

fn arm(sc: &Scenario, tag: &str, settings: &[&str], seeds: std::ops::Range<u64>) -> Arm {
    let mut s = sc.clone();
    for set in settings {
        apply_setting(&mut s, set, "test").unwrap();
    }
    Arm {
        tag: tag.into(),
        settings: settings.iter().map(|s| s.to_string()).collect(),
        scenario: s,
        seeds: seeds.collect(),
    }
}

fn metrics() -> Vec<String> {
    vec!["perf.*".into(), "placement.*".into()]
}

#[test]
fn identical_settings_show_no_significant_difference() {
    let guard = workloads("same");
    let dir = guard.path().to_path_buf();
    let sc = scenario(&dir);
    // Independent seeds: the two sides differ only by chance.
    let r = run_ab(
        &arm(&sc, "base", &[], 1..21),
        &arm(&sc, "patch", &[], 21..41),
        &metrics(),
        2,
        &|_, _| {},
    )
    .unwrap();
    assert!(
        r.rows.len() >= 4,
        "{:?}",
        r.rows.iter().map(|x| &x.metric).collect::<Vec<_>>()
    );
    let task_clock = r
        .rows
        .iter()
        .find(|x| x.metric == "perf.task_clock_ns")
        .unwrap();
    assert!(task_clock.base_ci95 > 0.0, "noise makes seeds differ");
    for row in &r.rows {
        assert!(
            !row.significant,
            "false positive at family-wise {ALPHA}: {row:?}"
        );
    }
    // The same seeds on both sides: identical runs, p = 1 everywhere.
    let r = run_ab(
        &arm(&sc, "base", &[], 1..6),
        &arm(&sc, "patch", &[], 1..6),
        &metrics(),
        2,
        &|_, _| {},
    )
    .unwrap();
    assert!(r
        .rows
        .iter()
        .all(|x| x.p_value == 1.0 && x.perc_diff == 0.0));
}

#[test]
fn a_planted_five_percent_difference_is_found() {
    let guard = workloads("planted");
    let dir = guard.path().to_path_buf();
    let sc = scenario(&dir);
    let patch = arm(&sc, "patch", &[r#"workloads=["rtapp b.json"]"#], 1..11);
    let r = run_ab(
        &arm(&sc, "base", &[], 1..11),
        &patch,
        &metrics(),
        2,
        &|_, _| {},
    )
    .unwrap();
    let row = r
        .rows
        .iter()
        .find(|x| x.metric == "perf.task_clock_ns")
        .unwrap();
    assert!(row.significant, "{row:?}");
    assert!((row.perc_diff - 5.0).abs() < 1.0, "≈ +5%: {row:?}");
}
