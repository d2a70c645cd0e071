//! `schedlab report` and `--html`: the pages are written, self-contained, and bad input
//! exits 2 naming the file and the fix. (ci/check_report.py opens them in Chromium.)

mod common;

use common::schedlab;
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedlab-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const RUN: [&str; 7] = [
    "run",
    "-m",
    "smp:2",
    "-w",
    "hackbench -g 1 -l 20",
    "-s",
    "1",
];

fn check_page(path: &PathBuf, wants: &[&str]) {
    let html = std::fs::read_to_string(path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // The only URL is the SVG namespace, which names and fetches nothing.
    for fetch in ["src=\"http", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(fetch), "nothing fetched: {fetch}");
    }
    for w in wants {
        assert!(html.contains(w), "{w}");
    }
}

#[test]
fn run_html_and_report_of_its_json_and_trace() {
    let d = temp_dir("run");
    let (json, trace, html, rep) = (
        d.join("r.json"),
        d.join("r.pftrace"),
        d.join("r.html"),
        d.join("rep.html"),
    );
    let mut args: Vec<&str> = RUN.to_vec();
    let (j, t, h) = (
        json.to_str().unwrap(),
        trace.to_str().unwrap(),
        html.to_str().unwrap(),
    );
    args.extend([
        "-q",
        "--json",
        j,
        "--trace",
        t,
        "--trace-counters",
        "all",
        "--html",
        h,
    ]);
    let o = schedlab(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_page(
        &html,
        &[
            "Per-CPU timeline",
            "CPU util_avg",
            "Wake-up latency CDF",
            "<svg",
        ],
    );
    let o = schedlab(&["report", j, "--trace", t, "-o", rep.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_page(&rep, &["Per-CPU timeline", "Tasks"]);
    // Without a trace: the page says how to get the time plots.
    let o = schedlab(&["report", j, "-o", rep.to_str().unwrap()]);
    assert!(o.status.success());
    check_page(&rep, &["no trace given"]);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn ab_html() {
    let d = temp_dir("ab");
    let html = d.join("ab.html");
    let o = schedlab(&[
        "ab",
        "-m",
        "smp:2",
        "-w",
        "hackbench -g 1 -l 20",
        "--base",
        "noise.work_jitter_pct=2",
        "--patch",
        "noise.work_jitter_pct=2",
        "--patch",
        "features=NO_DELAY_DEQUEUE",
        "-n",
        "2",
        "--metric",
        "perf.*",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_page(
        &html,
        &["perf.context_switches", "features=NO_DELAY_DEQUEUE", "<svg"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_input_exits_2_naming_the_file() {
    let d = temp_dir("bad");
    let out = d.join("x.html");
    let o = schedlab(&["report", "no/such.json", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no/such.json"));
    let notjson = d.join("n.json");
    std::fs::write(&notjson, "{\"a\": 1}").unwrap();
    let o = schedlab(&[
        "report",
        notjson.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("neither a run result"));
    let o = schedlab(&[
        "report",
        notjson.to_str().unwrap(),
        "-o",
        "no/such/dir/x.html",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not exist"));
    let mut args: Vec<&str> = RUN.to_vec();
    args.extend(["-q", "--html", "no/such/dir/r.html"]);
    let o = schedlab(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--html no/such/dir/r.html"));
    std::fs::remove_dir_all(&d).unwrap();
}
