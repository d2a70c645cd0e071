//! `schedlab run -w 'frames …'` end to end: the printout, the JSON section, the seed, and
//! option errors (exit 2, one line naming the option).

use serde_json::Value;
mod common;

use common::schedlab;

fn json_run(args: &[&str]) -> Value {
    let mut all = vec!["run", "-m", "pixel6"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-"]);
    let o = schedlab(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn frames_prints_jankbench_and_gfxinfo_and_fills_its_section() {
    let o = schedlab(&["run", "-m", "pixel6", "-w", "frames -e fling:1s -r 90"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("Mean: "), "{out}");
    assert!(out.contains("Total frames rendered: 90"), "{out}");
    assert!(out.contains("Number Frame deadline missed: "), "{out}");

    let doc = json_run(&["-w", "frames -e fling:1s -r 90", "--seed", "3"]);
    let w = &doc["workloads"][0];
    assert_eq!(w["tool"], "frames");
    assert_eq!(w["frames"], 90);
    assert_eq!(w["refresh_hz"], 90);
    assert!(w["gfx"]["gfx-avg-frame-time-90"].is_number());
    assert!(w["jankbench"]["jank_pct"].is_number());
    assert_eq!(w["frame_duration_ms"].as_array().unwrap().len(), 90);
    let other = json_run(&["-w", "frames -e fling:1s -r 90", "--seed", "4"]);
    assert_ne!(
        w["frame_duration_ms"], other["workloads"][0]["frame_duration_ms"],
        "the seed draws the per-frame work"
    );
}

#[test]
fn frames_option_errors_exit_2_naming_the_option() {
    for (cmd, what) in [
        ("frames -r 1000", "-r/--refresh"),
        ("frames -e nap:1s", "-e/--episodes"),
        ("frames --uclamp-min 5000", "--uclamp-min"),
        ("frames --jitter 200", "--jitter"),
    ] {
        let o = schedlab(&["run", "-m", "pixel6", "-w", cmd]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.starts_with("schedlab: error: frames "), "{err}");
        assert!(err.contains(what), "{cmd}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
