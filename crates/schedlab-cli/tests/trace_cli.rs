//! `schedlab run --trace…` end to end: traces appear complete or not at all, bad trace
//! flags are one-line input errors (exit 2), a scenario's [trace] table works.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the schedlab binary runs")
}

/// A fresh folder, removed when the returned guard drops.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("schedlab-trace-cli-{name}-"))
        .tempdir()
        .unwrap()
}

const W: &str = "rtapp examples/periodic.json";

fn input_error(args: &[&str]) -> String {
    let o = schedlab(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("schedlab: error: "));
    err
}

#[test]
fn bad_trace_flags_are_input_errors() {
    let guard = temp_dir("bad");
    let d = guard.path();
    let pf = d.join("x.pftrace");
    let pf = pf.to_str().unwrap();
    let base = ["run", "-q", "-m", "smp:2", "-t", "100ms", "-w", W];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    let e = input_error(&with(
        &base,
        &["--trace", pf, "--trace-events", "sched_swich"],
    ));
    assert!(e.contains("sched_swich") && e.contains("sched_switch, sched_waking"));
    let e = input_error(&with(&base, &["--trace", "out.json"]));
    assert!(e.contains(".pftrace"));
    let e = input_error(&with(&base, &["--trace", "/no/such/dir/t.txt"]));
    assert!(e.contains("/no/such/dir"));
    let e = input_error(&with(&base, &["--trace", pf, "--trace-window", "2s"]));
    assert!(e.contains("--trace-window"));
    let e = input_error(&with(&base, &["--trace-events", "cpu_idle"]));
    assert!(e.contains("without --trace"));
    let e = input_error(&with(
        &base,
        &["--trace", "t.txt", "--trace-counters", "util"],
    ));
    assert!(e.contains("Perfetto"));
    assert!(
        std::fs::read_dir(d).unwrap().next().is_none(),
        "no file left"
    );
}

#[test]
fn trace_files_appear_complete() {
    let guard = temp_dir("ok");
    let d = guard.path();
    let txt = d.join("t.txt");
    let pf = d.join("t.pftrace");
    for (path, extra) in [(&txt, vec![]), (&pf, vec!["--trace-counters", "all"])] {
        let mut args = vec!["run", "-q", "-m", "smp:4", "-t", "200ms", "-w", W];
        args.extend(["--trace", path.to_str().unwrap()]);
        args.extend(extra);
        let o = schedlab(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let text = std::fs::read_to_string(&txt).unwrap();
    assert!(text.starts_with("# tracer: nop\n"));
    assert!(text.contains(": sched_switch: prev_comm="));
    let bytes = std::fs::read(&pf).unwrap();
    assert_eq!(bytes[0], 0x0a, "a Trace starts with a packet field");
    let names: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
}

#[test]
fn scenario_trace_table() {
    let guard = temp_dir("toml");
    let d = guard.path();
    let sc = d.join("s.toml");
    let wl = root().join("examples/periodic.json");
    std::fs::write(
        &sc,
        format!(
            "machine = \"smp:2\"\nduration = \"300ms\"\nworkloads = [\"rtapp {}\"]\n\
             [trace]\nfile = \"out.txt\"\nevents = [\"sched_switch\"]\nwindow = \"100ms..200ms\"\n",
            wl.display()
        ),
    )
    .unwrap();
    let o = schedlab(&["run", "-q", sc.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(d.join("out.txt")).unwrap();
    let events: Vec<_> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!events.is_empty());
    assert!(events.iter().all(|l| l.contains(": sched_switch: ")));
    std::fs::write(&sc, "[trace]\nfile = \"x.txt\"\nevents = \"bogus\"\n").unwrap();
    let e = input_error(&["run", "-q", sc.to_str().unwrap()]);
    assert!(e.contains("trace.events") && e.contains("bogus"));
}

#[test]
fn tasks_forked_during_the_run_are_traced() {
    // Regression: a child forked at run time is not in the tracer's first task table.
    let guard = temp_dir("fork");
    let d = guard.path();
    let json = d.join("fork.json");
    std::fs::write(
        &json,
        r#"{"global": {"duration": 1},
            "tasks": {"parent": {"loop": 3, "run": 1000, "fork": "child", "sleep": 5000},
                      "child": {"instance": 0, "loop": 1, "run": 2000}}}"#,
    )
    .unwrap();
    let w = format!("rtapp {}", json.display());
    for (file, counters) in [("t.txt", None), ("t.pftrace", Some("util"))] {
        let out = d.join(file);
        let mut args = vec!["run", "-m", "smp:2", "-w", &w, "-q", "--trace"];
        let out_s = out.to_string_lossy().into_owned();
        args.push(&out_s);
        if let Some(c) = counters {
            args.extend(["--trace-counters", c]);
        }
        let o = schedlab(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(std::fs::metadata(&out).unwrap().len() > 0);
    }
    let text = std::fs::read_to_string(d.join("t.txt")).unwrap();
    assert!(
        text.contains("sched_process_exit: comm=child-1-0000 pid=1001 prio=120 group_dead=true")
    );
    assert!(!text.contains("prev_state=R+"));
}
