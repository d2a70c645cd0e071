//! `--kernel` end to end: `features --kernel V`, a run's JSON, bad versions and features.

mod common;
use common::schedlab;
use std::process::Output;

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit code 2 and one line on stderr; returns it.
fn input_error(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

/// The feature names of `features --kernel V`.
fn features(v: &str) -> Vec<String> {
    let o = schedlab(&["features", "--kernel", v]);
    assert!(o.status.success());
    out(&o)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn features_by_version() {
    let f = features("6.5");
    for name in [
        "GENTLE_FAIR_SLEEPERS",
        "START_DEBIT",
        "NEXT_BUDDY",
        "LAST_BUDDY",
        "WAKEUP_PREEMPTION",
    ] {
        assert!(f.iter().any(|n| n == name), "6.5 lists {name}");
    }
    for name in ["RUN_TO_PARITY", "PLACE_LAG", "DELAY_DEQUEUE"] {
        assert!(!f.iter().any(|n| n == name), "6.5 lacks {name}");
    }
    assert!(features("6.12").iter().any(|n| n == "DELAY_DEQUEUE"));
    let f = features("6.6");
    assert!(f.iter().any(|n| n == "PLACE_LAG"));
    assert!(!f.iter().any(|n| n == "DELAY_DEQUEUE"));
    // Without --kernel: today's list, no CFS features.
    let o = schedlab(&["features"]);
    assert!(out(&o).contains("DELAY_DEQUEUE") && !out(&o).contains("START_DEBIT"));
}

#[test]
fn run_records_the_kernel() {
    let run = |k: &str| {
        let o = schedlab(&[
            "run", "-m", "smp:1", "-t", "200ms", "-w", "spinner", "--kernel", k, "--json", "-",
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        j
    };
    assert_eq!(run("6.5")["scenario"]["kernel"], "6.5");
    assert_eq!(run("v6.12.3")["scenario"]["kernel"], "6.12");
    assert!(run("current")["scenario"].get("kernel").is_none());
}

#[test]
fn bad_versions_and_missing_features_are_input_errors() {
    let e = input_error(&schedlab(&["features", "--kernel", "6.3"]));
    assert!(e.contains("unsupported kernel version '6.3'"), "{e}");
    assert!(
        e.contains("5.18, 6.1, 6.5, 6.6, 6.8, 6.12, 6.18, current"),
        "{e}"
    );
    let e = input_error(&schedlab(&[
        "run",
        "-t",
        "10ms",
        "-w",
        "spinner",
        "--kernel",
        "6.6",
        "-f",
        "NO_DELAY_DEQUEUE",
    ]));
    assert!(e.contains("does not exist in kernel 6.6"), "{e}");
    assert!(e.contains("6.12, 6.18, current"), "{e}");
}
