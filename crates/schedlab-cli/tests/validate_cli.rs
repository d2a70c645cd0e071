//! `schedlab validate` end to end on tiny scenarios (a fraction of a second). Only the
//! structure is checked — both columns filled, every task matched, the JSON shape,
//! nothing left running — never timing values: the host is noisy.

mod common;

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
}

fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("schedlab-validate-{name}-"))
        .tempdir()
        .unwrap()
}

/// A periodic task and two hogs, with names unique to this test run.
fn tiny_rtapp(dir: &std::path::Path, tag: &str) -> PathBuf {
    let f = dir.join("tiny.json");
    let text = format!(
        r#"{{ "global": {{ "duration": 1 }},
  "tasks": {{
    "p{tag}": {{ "run": 1000, "timer": {{ "ref": "unique", "period": 10000, "mode": "absolute" }} }},
    "h{tag}": {{ "instance": 2, "run": 100000 }}
  }} }}"#
    );
    std::fs::write(&f, text).unwrap();
    f
}

/// Threads anywhere on the host whose name starts with `prefix`.
fn threads_named(prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(tasks) = std::fs::read_dir(p.path().join("task")) else {
            continue;
        };
        for t in tasks.flatten() {
            if let Ok(c) = std::fs::read_to_string(t.path().join("comm")) {
                if c.starts_with(prefix) {
                    out.push(format!("{}: {}", t.path().display(), c.trim()));
                }
            }
        }
    }
    out
}

fn expect_exit_2(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    let last = err.lines().last().unwrap_or("");
    assert!(last.starts_with("schedlab: error: "), "{err}");
    last.to_string()
}

#[test]
fn rtapp_json_has_both_columns_for_every_task_and_leaves_nothing_behind() {
    let guard = temp_dir("rtapp");
    let dir = guard.path().to_path_buf();
    let tag = format!("v{}", std::process::id() % 100_000);
    let f = tiny_rtapp(&dir, &tag);
    let out = dir.join("out.json");
    let o = bin()
        .args(["validate", "-w"])
        .arg(format!("rtapp {}", f.display()))
        .args([
            "-t", "300ms", "--reps", "2", "--seeds", "2", "-m", "smp:2", "--json",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let score = doc["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
    let rows = doc["rows"].as_array().unwrap();
    for r in rows {
        for k in [
            "metric",
            "task",
            "host_median",
            "host_min",
            "host_max",
            "sim_median",
            "sim_min",
            "sim_max",
            "ratio",
            "within",
        ] {
            assert!(r.get(k).is_some(), "row without {k}: {r}");
        }
        assert!(r["within"].is_boolean());
    }
    for task in [
        format!("p{tag}-0"),
        format!("h{tag}-1"),
        format!("h{tag}-2"),
    ] {
        let share = rows
            .iter()
            .find(|r| r["task"] == task.as_str() && r["metric"] == "cpu_share")
            .unwrap_or_else(|| panic!("no cpu_share row for {task}"));
        assert!(share["host_max"].as_f64().unwrap() > 0.0, "{share}");
        assert!(share["sim_max"].as_f64().unwrap() > 0.0, "{share}");
    }
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("agreement score: "),
        "{text}"
    );
    assert!(threads_named(&format!("p{tag}")).is_empty());
    assert!(threads_named(&format!("h{tag}")).is_empty());
}

#[test]
fn ctrl_c_ends_every_task_and_restores_tracefs() {
    let guard = temp_dir("sigint");
    let dir = guard.path().to_path_buf();
    let tag = format!("c{}", std::process::id() % 100_000);
    let f = tiny_rtapp(&dir, &tag);
    // validate mounts tracefs when it is not (as root); mount it first the same way, so
    // that `before` reads the settings and not the empty mount point.
    let _ = schedlab_host::tracefs::available();
    let before = std::fs::read_to_string("/sys/kernel/tracing/set_event_pid").ok();
    let mut child = bin()
        .args(["validate", "-w"])
        .arg(format!("rtapp {}", f.display()))
        .args(["-t", "20s", "--reps", "1", "--seeds", "1", "-m", "smp:2"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the host run has started (its threads exist), then Ctrl-C.
    let t0 = Instant::now();
    while threads_named(&format!("h{tag}")).is_empty() && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !threads_named(&format!("h{tag}")).is_empty(),
        "the host run never started"
    );
    // SAFETY: signals our own child.
    unsafe { libc_kill(child.id() as i32, 2) };
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(10),
            "validate did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success());
    assert!(threads_named(&format!("p{tag}")).is_empty());
    assert!(threads_named(&format!("h{tag}")).is_empty());
    let after = std::fs::read_to_string("/sys/kernel/tracing/set_event_pid").ok();
    assert_eq!(before, after, "the global tracefs settings were touched");
    // Our tracefs instance is gone.
    let pid = child.id();
    if let Ok(rd) = std::fs::read_dir("/sys/kernel/tracing/instances") {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(
                !name.starts_with(&format!("schedlab-{pid}-")),
                "{name} left behind"
            );
        }
    }
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

#[test]
fn hackbench_rows_when_installed() {
    if common_which("hackbench").is_none() {
        return;
    }
    let o = bin()
        .args([
            "validate",
            "-w",
            "hackbench -g 1 -l 20",
            "--reps",
            "1",
            "--seeds",
            "1",
        ])
        .args(["-m", "smp:2", "--json", "-"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["metric"] == "time_s"), "{doc}");
    assert!(rows.iter().all(|r| r["task"] == "hackbench"));
}

fn common_which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let e = expect_exit_2(&common::schedlab(&[
        "validate", "-w", "nosuch 1", "-m", "smp:2",
    ]));
    assert!(e.contains("unknown workload front end"), "{e}");
    // clap's usage errors: exit 2 too (its own two-line form).
    let o = common::schedlab(&["validate", "--reps", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--reps"));
    let e = expect_exit_2(&common::schedlab(&["validate", "-m", "smp:2"]));
    assert!(e.contains("no workload"), "{e}");
    if common_which("schbench").is_none() {
        let e = expect_exit_2(&common::schedlab(&[
            "validate",
            "-w",
            "schbench -r 1",
            "-m",
            "smp:2",
        ]));
        assert!(e.contains("not installed") && e.contains("build"), "{e}");
    }
    if common_which("rt-app").is_none() {
        let e = expect_exit_2(&common::schedlab(&[
            "validate",
            "-w",
            "rtapp examples/two-hogs.json",
            "-m",
            "smp:1",
            "--runner",
            "rt-app",
        ]));
        assert!(e.contains("rt-app"), "{e}");
    }
}
