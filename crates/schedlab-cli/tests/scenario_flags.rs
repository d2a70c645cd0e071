//! A scenario file and the flags over it build one `Scenario` through one setter: a flag
//! and its file key fail with the same text, and the `--trace*` flags apply over the file's
//! `[trace]` table key by key.

mod common;

use common::{root, schedlab};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("schedlab-scen-flags-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The one stderr line of an input error (exit 2), without its place.
fn what(args: &[&str], place: &str) -> String {
    let o = schedlab(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    let prefix = format!("schedlab: error: {place}: ");
    err.strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("'{err}' does not start with '{prefix}'"))
        .to_string()
}

#[test]
fn a_flag_and_its_key_fail_alike() {
    let d = temp_dir("texts");
    let wl = root().join("examples/periodic.json");
    let w = format!("rtapp {}", wl.display());
    let cases = [
        ("hz = 0", vec!["--hz", "0"], "hz", "--hz"),
        (
            "preempt = \"rt\"",
            vec!["--preempt", "rt"],
            "preempt",
            "--preempt",
        ),
        (
            "duration = \"-1s\"",
            vec!["-t", "-1s"],
            "duration",
            "-t/--time",
        ),
        (
            "pelt_halflife = \"5.5ms\"",
            vec!["--pelt-halflife", "5.5ms"],
            "pelt_halflife",
            "--pelt-halflife",
        ),
    ];
    for (line, flag, key, place) in cases {
        let file = d.join(format!("{key}.toml"));
        std::fs::write(&file, format!("{line}\nworkloads = [\"{w}\"]\n")).unwrap();
        let file = file.to_str().unwrap();
        let from_file = what(&["run", "-q", file], &format!("{file}: key '{key}'"));
        let mut args = vec!["run", "-q", "-w", &w];
        args.extend(&flag);
        assert_eq!(from_file, what(&args, place), "{key}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn trace_flags_apply_over_the_files_table() {
    let d = temp_dir("trace");
    let sc = d.join("s.toml");
    let wl = root().join("examples/periodic.json");
    std::fs::write(
        &sc,
        format!(
            "machine = \"smp:2\"\nduration = \"300ms\"\nworkloads = [\"rtapp {}\"]\n\
             [trace]\nfile = \"in-file.pftrace\"\nevents = [\"sched_switch\"]\n",
            wl.display()
        ),
    )
    .unwrap();
    let out = d.join("flag.txt");
    let o = schedlab(&[
        "run",
        "-q",
        sc.to_str().unwrap(),
        "--trace",
        out.to_str().unwrap(),
        "--trace-window",
        "100ms..200ms",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !d.join("in-file.pftrace").exists(),
        "--trace moves the trace"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let events: Vec<_> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!events.is_empty());
    // The file's events key stays; the window flag is applied.
    for l in &events {
        assert!(l.contains(": sched_switch: "), "{l}");
        let ts: f64 = l
            .split(':')
            .next()
            .unwrap()
            .split_whitespace()
            .last()
            .unwrap()
            .parse()
            .unwrap();
        assert!((0.1..0.2).contains(&ts), "{l}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
