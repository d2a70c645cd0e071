//! The `schedlab` binary end to end: listings, input errors (exit 2, one line on stderr),
//! and full runs of examples/two-hogs.toml (these need the rt-app front end).

use serde_json::Value;
mod common;

use common::schedlab;
use std::path::Path;
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh folder under the system temp dir, unique to this test.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("schedlab-cli-{name}-"))
        .tempdir()
        .unwrap()
}

/// Exit code 2 and exactly one line `schedlab: error: …` on stderr; returns that line.
fn expect_input_error(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(err.starts_with("schedlab: error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn write_scenario(dir: &Path, text: &str) -> String {
    let file = dir.join("s.toml");
    std::fs::write(&file, text).unwrap();
    file.display().to_string()
}

// ---- listings ----

#[test]
fn features_lists_every_feature_with_default_and_meaning() {
    let o = schedlab(&["features"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing from\n{out}"))
            .to_string()
    };
    let dd = line("DELAY_DEQUEUE");
    assert!(dd.split_whitespace().nth(1) == Some("on"), "{dd}");
    assert!(dd.contains("negative lag"), "meaning column: {dd}");
    assert!(line("RUN_TO_PARITY").contains(" on "));
    assert!(line("NEXT_BUDDY").contains(" off "));
}

#[test]
fn machines_lists_presets_with_descriptions() {
    let o = schedlab(&["machines"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let smp = out.lines().find(|l| l.starts_with("smp:N")).expect(&out);
    assert!(smp.contains("identical CPUs"), "{smp}");
    for name in [
        "epyc-9654-2s",
        "power10-240c-smt8",
        "vm8",
        "smt:CORESxTHREADS",
    ] {
        assert!(out.lines().any(|l| l.starts_with(name)), "{name}: {out}");
    }
}

#[test]
fn machines_show_prints_a_parsable_machine_file() {
    let o = schedlab(&["machines", "show", "epyc-9654-2s"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = schedlab::machine::parse_machine(&stdout(&o), "stdout").unwrap();
    assert_eq!(
        m,
        schedlab::machine::presets::machine_from_name("epyc-9654-2s").unwrap()
    );
    let err = expect_input_error(&schedlab(&["machines", "show", "nope.toml"]));
    assert!(err.contains("nope.toml"), "{err}");
}

#[test]
fn machines_capture_of_a_missing_sysfs_is_an_input_error() {
    let err = expect_input_error(&schedlab(&[
        "machines",
        "capture",
        "--sysfs",
        "/nonexistent",
    ]));
    assert!(err.contains("--sysfs"), "{err}");
}

#[test]
fn run_accepts_a_machine_file() {
    let guard = temp_dir("machine-file");
    let dir = guard.path().to_path_buf();
    let o = schedlab(&["machines", "show", "smt:2x2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = dir.join("my.toml");
    std::fs::write(&file, stdout(&o)).unwrap();
    let v = run_json(&["-m", file.to_str().unwrap(), "-t", "1s"]);
    let cpus = v["cpus"].as_array().unwrap();
    assert_eq!(cpus.len(), 4);
    assert_eq!(cpus[3]["core"], 1);
    assert_eq!(cpus[3]["capacity"], 1024);
    for k in ["llc", "package", "node"] {
        assert_eq!(cpus[3][k], 0, "{k}");
    }
    std::fs::write(&file, "name = \"x\"\n").unwrap();
    let o = schedlab(&[
        "run",
        "examples/two-hogs.toml",
        "-m",
        file.to_str().unwrap(),
    ]);
    let err = expect_input_error(&o);
    assert!(err.contains("my.toml"), "{err}");
}

#[test]
fn bench_reports_speed() {
    let o = schedlab(&["bench", "--secs", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for k in ["events", "wall seconds", "events/s", "simulated/wall"] {
        assert!(out.contains(k), "{k} missing from\n{out}");
    }
    // The events by kind follow the total and add up to it.
    let count = |line: &str| line.split_whitespace().next().unwrap().parse::<u64>().ok();
    let lines: Vec<&str> = out.lines().collect();
    let total_at = lines.iter().position(|l| l.ends_with("  events")).unwrap();
    let kinds: Vec<&str> = lines[total_at + 1..]
        .iter()
        .take_while(|l| !l.ends_with("wall seconds"))
        .copied()
        .collect();
    assert!(kinds.iter().any(|l| l.ends_with("work_done")), "{out}");
    let sum: u64 = kinds.iter().map(|l| count(l).unwrap()).sum();
    assert_eq!(Some(sum), count(lines[total_at]), "{out}");
    expect_input_error(&schedlab(&["bench", "--secs", "0"]));
    let err = expect_input_error(&schedlab(&["bench", "--scenario", "nope"]));
    assert!(err.contains("epyc"), "{err}");
}

// ---- input errors: exit 2, one clear line ----

#[test]
fn unknown_feature_suggests_the_closest_name() {
    let err = expect_input_error(&schedlab(&[
        "run",
        "-f",
        "NO_DELAY_DEQUEU",
        "-w",
        "rtapp examples/two-hogs.json",
    ]));
    assert!(
        err.contains("unknown sched feature 'NO_DELAY_DEQUEU'"),
        "{err}"
    );
    assert!(err.contains("did you mean DELAY_DEQUEUE"), "{err}");
}

#[test]
fn unknown_machine_is_rejected() {
    let err = expect_input_error(&schedlab(&[
        "run",
        "-m",
        "cray-1",
        "-w",
        "rtapp examples/two-hogs.json",
    ]));
    assert!(err.contains("unknown machine"), "{err}");
    assert!(err.contains("smp:N"), "lists the presets: {err}");
}

#[test]
fn negative_or_malformed_duration_is_rejected() {
    let err = expect_input_error(&schedlab(&["run", "-t", "-5s", "-w", "rtapp x.json"]));
    assert!(err.contains("negative"), "{err}");
    let err = expect_input_error(&schedlab(&["run", "-t", "5 parsecs", "-w", "rtapp x.json"]));
    assert!(err.contains("-t/--time"), "{err}");
}

#[test]
fn bad_preempt_model_is_rejected() {
    let err = expect_input_error(&schedlab(&["run", "--preempt", "rt", "-w", "rtapp x.json"]));
    assert!(err.contains("none, voluntary, full or lazy"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let o = schedlab(&["run", "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    let o = schedlab(&["run", "--seed", "minus-one"]);
    assert_eq!(o.status.code(), Some(2));
    let o = schedlab(&[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn malformed_toml_reports_line_and_column() {
    let guard = temp_dir("malformed");
    let dir = guard.path().to_path_buf();
    let file = write_scenario(&dir, "seed = 1\nmachine = \"smp:2\nhz = 250\n");
    let err = expect_input_error(&schedlab(&["run", &file]));
    assert!(err.contains(&format!("{file}:2:")), "{err}");
    assert!(err.contains("malformed TOML"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_toml_key_names_the_key_and_the_known_keys() {
    let guard = temp_dir("unknown-key");
    let dir = guard.path().to_path_buf();
    let file = write_scenario(&dir, "mashine = \"smp:2\"\n");
    let err = expect_input_error(&schedlab(&["run", &file]));
    assert!(err.contains(&file), "{err}");
    assert!(err.contains("unknown key 'mashine'"), "{err}");
    assert!(err.contains("known keys: machine"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_toml_type_is_rejected() {
    let guard = temp_dir("wrong-type");
    let dir = guard.path().to_path_buf();
    let file = write_scenario(&dir, "seed = \"one\"\n");
    let err = expect_input_error(&schedlab(&["run", &file]));
    assert!(err.contains("key 'seed'"), "{err}");
    assert!(err.contains("expected an integer"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_scenario_file_is_rejected() {
    let err = expect_input_error(&schedlab(&["run", "no/such/scenario.toml"]));
    assert!(err.contains("cannot read the scenario file"), "{err}");
}

#[test]
fn missing_workload_is_rejected() {
    let err = expect_input_error(&schedlab(&["run"]));
    assert!(err.contains("no workload given"), "{err}");
    let guard = temp_dir("no-workload");
    let dir = guard.path().to_path_buf();
    let file = write_scenario(&dir, "machine = \"smp:2\"\nduration = \"1s\"\n");
    let err = expect_input_error(&schedlab(&["run", &file]));
    assert!(err.contains("no workload given"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_workload_file_is_rejected() {
    let err = expect_input_error(&schedlab(&["run", "-w", "rtapp no-such-file.json"]));
    assert!(err.contains("no-such-file.json"), "{err}");
    let err = expect_input_error(&schedlab(&["run", "-w", "sysbench --threads 4"]));
    assert!(err.contains("unknown workload front end"), "{err}");
}

#[test]
fn bad_rtapp_files_are_rejected_with_a_place() {
    let guard = temp_dir("bad-rtapp");
    let dir = guard.path().to_path_buf();
    let cases = [
        // (file text, what the one-line error must say)
        // A missing comma (rt-app's json-c allows a trailing one, so that loads).
        (
            "{\"tasks\": {\"a\": {\"run\": 100 \"sleep\": 1}}}",
            "bad.json:1:29",
        ),
        (
            "{\"tasks\": {\"a\": {\"run\": 100, \"bogus\": 1}}}",
            "tasks.a.bogus",
        ),
        ("{\"tasks\": {\"a\": {\"run\": -5}}}", "tasks.a.run"),
        (
            "{\"tasks\": {\"a\": {\"policy\": \"SCHED_FIFO\", \"priority\": 0, \"run\": 5}}}",
            "tasks.a.priority: priority 0 is not a real-time priority",
        ),
    ];
    for (text, needle) in cases {
        let file = dir.join("bad.json");
        std::fs::write(&file, text).unwrap();
        let spec = format!("rtapp {}", file.display());
        let err = expect_input_error(&schedlab(&["run", "-w", &spec]));
        assert!(err.contains(needle), "{text}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dvfs_run_reports_energy_and_governor() {
    let v = run_json(&[
        "-m",
        "pixel6",
        "--governor",
        "powersave",
        "--pelt-halflife",
        "8ms",
    ]);
    assert_eq!(v["scenario"]["governor"], "powersave");
    assert_eq!(v["scenario"]["pelt_halflife_ms"], 8);
    assert!(v["energy"]["total_mj"].as_f64().unwrap() > 0.0);
    let busy = v["cpus"][0]["freq_residency"][0].clone();
    assert_eq!(busy["khz"], 300_000, "powersave sits at the lowest A55 OPP");
    let err = expect_input_error(&schedlab(&[
        "run",
        "examples/two-hogs.toml",
        "--governor",
        "ondemand",
    ]));
    assert!(err.contains("unknown governor"), "{err}");
    let err = expect_input_error(&schedlab(&[
        "run",
        "examples/two-hogs.toml",
        "--pelt-halflife",
        "20ms",
    ]));
    assert!(err.contains("8ms"), "{err}");
}

#[test]
fn a_flag_overrides_the_scenario_file() {
    // The file's machine is valid; the flag's is not, so the error proves the flag won.
    let err = expect_input_error(&schedlab(&["run", "examples/two-hogs.toml", "-m", "smp:0"]));
    assert!(err.contains("machine 'smp:0'"), "{err}");
}

#[test]
fn json_into_a_missing_folder_fails_cleanly() {
    let guard = temp_dir("json-missing");
    let dir = guard.path().to_path_buf();
    let target = dir.join("no-such-folder").join("out.json");
    let t = target.display().to_string();
    let o = schedlab(&["run", "examples/two-hogs.toml", "--json", &t]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.starts_with("schedlab: error: --json"), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!target.exists());
    assert!(!dir.join("no-such-folder").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- full runs of examples/two-hogs.toml (need the rt-app front end) ----

fn run_json(extra: &[&str]) -> Value {
    let mut args = vec!["run", "examples/two-hogs.toml", "--json", "-"];
    args.extend_from_slice(extra);
    let o = schedlab(&args);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("stdout is exactly one JSON document")
}

fn has(v: &Value, path: &str) {
    let mut cur = v;
    for key in path.split('.') {
        cur = cur
            .get(key)
            .unwrap_or_else(|| panic!("missing key {path} (at '{key}') in {v}"));
    }
}

#[test]
fn two_hogs_json_has_every_documented_key() {
    let v = run_json(&[]);
    for k in [
        "scenario.machine",
        "scenario.features",
        "scenario.seed",
        "scenario.hz",
        "scenario.preempt",
        "sim.time_ns",
        "sim.events",
        "sim.wall_s",
        "perf.context_switches",
        "perf.cpu_migrations",
        "perf.task_clock_ns",
        "perf.cpus_utilized",
    ] {
        has(&v, k);
    }
    let tasks = v["tasks"].as_array().expect("tasks is an array");
    assert!(!tasks.is_empty());
    for t in tasks {
        for k in [
            "pid",
            "comm",
            "policy",
            "nice",
            "cpu_time_ns",
            "wait_time_ns",
            "nr_switches",
            "nr_voluntary_switches",
            "nr_involuntary_switches",
            "nr_migrations",
            "wakeup_latency_ns.count",
            "wakeup_latency_ns.p50",
            "wakeup_latency_ns.p90",
            "wakeup_latency_ns.p99",
            "wakeup_latency_ns.max",
        ] {
            has(t, k);
        }
    }
    let cpus = v["cpus"].as_array().expect("cpus is an array");
    assert_eq!(cpus.len(), 1);
    for c in cpus {
        for k in [
            "cpu", "core", "llc", "package", "node", "capacity", "busy_ns", "idle_ns",
        ] {
            has(c, k);
        }
    }
    assert_eq!(v["scenario"]["machine"], "smp:1");
    // The limit comes from the TOML; the run may end sooner if every task exits.
    assert_eq!(v["scenario"]["duration_ns"], 10_000_000_000u64);
    assert!(v["sim"]["time_ns"].as_u64().unwrap() <= 10_000_000_000);
}

#[test]
fn two_hogs_is_byte_identical_across_runs() {
    let strip = |mut v: Value| {
        v["sim"].as_object_mut().unwrap().remove("wall_s");
        serde_json::to_string(&v).unwrap()
    };
    let a = strip(run_json(&[]));
    let b = strip(run_json(&[]));
    assert_eq!(a, b);
}

#[test]
fn machine_flag_shows_in_the_result() {
    let v = run_json(&["-m", "smp:2", "-t", "1s"]);
    assert_eq!(v["scenario"]["machine"], "smp:2");
    assert_eq!(v["cpus"].as_array().unwrap().len(), 2);
    assert_eq!(v["scenario"]["duration_ns"], 1_000_000_000u64);
}

#[test]
fn two_hogs_human_report() {
    let o = schedlab(&["run", "examples/two-hogs.toml"]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    // The perf-stat block goes to stderr, where perf prints it; rt-app prints nothing.
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    let out = stderr(&o);
    assert!(out.contains("Performance counter stats for"), "{out}");
    assert!(
        out.contains("seconds time elapsed (simulated)") && out.contains("(smp:1, seed 1)"),
        "{out}"
    );
    let o = schedlab(&["run", "examples/two-hogs.toml", "-q"]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
}

#[test]
fn two_hogs_json_file_is_written_whole() {
    let guard = temp_dir("json-file");
    let dir = guard.path().to_path_buf();
    let target = dir.join("out.json");
    let t = target.display().to_string();
    let o = schedlab(&["run", "examples/two-hogs.toml", "-q", "--json", &t]);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["scenario"]["machine"], "smp:1");
    assert!(!dir.join("out.json.tmp").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- benchmark front ends (docs/workloads.md) ----

#[test]
fn hackbench_prints_the_tools_lines_then_the_report() {
    let o = schedlab(&[
        "run",
        "-m",
        "smp:2",
        "-w",
        "hackbench -g 4 -f 10 --threads --pipe -l 100 -s 100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Running in threaded mode with 4 groups using 20 file descriptors each (== 80 tasks)"
    );
    assert_eq!(lines[1], "Each sender will pass 100 messages of 100 bytes");
    assert!(lines[2].starts_with("Time: "), "{}", lines[2]);
    // stdout is the tool's printout alone (`2>/dev/null` keeps just it); perf's block is
    // on stderr.
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        stderr(&o).contains("Performance counter stats"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn field_separator_prints_perf_stat_csv_on_stderr() {
    let o = schedlab(&[
        "run",
        "-m",
        "smp:2",
        "-t",
        "200ms",
        "-x,",
        "-w",
        "hackbench -g 1 -f 2 -l 20",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("Running in process mode"),
        "{}",
        stdout(&o)
    );
    let csv = stderr(&o);
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    // perf's seven fields, eight with the per-thread / per-CPU prefix; no grouping commas.
    assert!(rows.iter().all(|r| r.len() == 7 || r.len() == 8), "{csv}");
    let clock = rows
        .iter()
        .find(|r| r.len() == 7 && r[2] == "task-clock")
        .expect(&csv);
    assert_eq!(clock[1], "msec");
    assert!(clock[0].parse::<f64>().unwrap() > 0.0, "{csv}");
    assert_eq!(clock[6], "CPUs utilized");
    let cs = rows
        .iter()
        .find(|r| r.len() == 7 && r[2] == "context-switches")
        .expect(&csv);
    assert!(cs[0].parse::<u64>().unwrap() > 5, "{csv}");
    assert!(
        rows.iter().any(|r| r[0] == "CPU1" && r[3] == "cpu-busy"),
        "{csv}"
    );
    assert!(
        rows.iter()
            .any(|r| r[0].starts_with("hackbench") && r[3] == "wait-time"),
        "{csv}"
    );
    // Another separator, and an empty one refused.
    let o = schedlab(&[
        "run",
        "-t",
        "10ms",
        "-x",
        ";",
        "-w",
        "rtapp examples/two-hogs.json",
    ]);
    assert!(
        stderr(&o).lines().all(|l| l.split(';').count() >= 7),
        "{}",
        stderr(&o)
    );
    let err = expect_input_error(&schedlab(&[
        "run",
        "-x",
        "",
        "-w",
        "rtapp examples/two-hogs.json",
    ]));
    assert!(err.contains("-x"), "{err}");
}

#[test]
fn big_machines_get_summary_tables() {
    let args = [
        "run",
        "-m",
        "epyc-9654-2s",
        "-t",
        "20ms",
        "-w",
        "hackbench -g 2 -l 10",
    ];
    let o = schedlab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stderr(&o);
    assert!(
        out.contains("PACKAGE") && out.contains("busiest CPUs:"),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("hackbench ")), "{out}");
    assert!(
        out.lines().count() < 60,
        "{} lines:\n{out}",
        out.lines().count()
    );
    let o = schedlab(&[&args[..], &["--per-cpu"]].concat());
    assert!(
        stderr(&o).lines().count() > 384,
        "--per-cpu prints every CPU"
    );
    let o = schedlab(&[
        "run",
        "-m",
        "smp:2",
        "-t",
        "10ms",
        "--summary",
        "-w",
        "rtapp examples/two-hogs.json",
    ]);
    assert!(stderr(&o).contains("busiest CPUs:"), "{}", stderr(&o));
}

#[test]
fn workload_sections_are_in_the_json() {
    let o = schedlab(&[
        "run",
        "-m",
        "vm8",
        "-w",
        "schbench -m 1 -t 4 -r 2 -R 100",
        "-w",
        "spinner -n 50 --policy idle --sleep 500us --work 1ms",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let w = doc["workloads"].as_array().unwrap();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0]["tool"], "schbench");
    assert!(w[0]["output"]
        .as_str()
        .unwrap()
        .starts_with("Wakeup Latencies percentiles (usec) runtime 2 (s)"));
    assert_eq!(w[0]["rps"]["rows"].as_array().unwrap().len(), 5);
    assert_eq!(w[1]["tool"], "spinner");
    assert_eq!(w[1]["tasks"], 50);
    assert_eq!(
        doc["sim"]["time_ns"], 2_000_000_000u64,
        "schbench -r 2 bounds the run"
    );
    let idle = doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["comm"] == "spinner" && t["policy"] == "SCHED_IDLE")
        .count();
    assert_eq!(idle, 50);
    // The tool's own printout goes with the human report (stderr when --json is stdout).
    assert!(stderr(&o).contains("average rps: "), "{}", stderr(&o));
}

#[test]
fn bad_front_end_options_exit_2_naming_the_option() {
    let err = expect_input_error(&schedlab(&["run", "-w", "hackbench -g zero"]));
    assert!(err.contains("-g/--groups"), "{err}");
    let err = expect_input_error(&schedlab(&["run", "-w", "schbench --bogus"]));
    assert!(err.contains("unknown option '--bogus'"), "{err}");
    let err = expect_input_error(&schedlab(&["run", "-w", "spinner --policy fifo"]));
    assert!(
        err.contains("--policy") && err.contains("SCHED_FIFO needs --priority"),
        "{err}"
    );
    let err = expect_input_error(&schedlab(&["run", "-w", "spinner --policy sched_other"]));
    assert!(
        err.contains("--policy") && err.contains("normal, batch, idle, fifo, rr or deadline"),
        "{err}"
    );
    let err = expect_input_error(&schedlab(&["run", "-w", "stress-ng --cpu 4"]));
    assert!(err.contains("unknown option '--cpu'"), "{err}");
    let err = expect_input_error(&schedlab(&["run", "-w", "fio --rw=read"]));
    assert!(
        err.contains("unknown workload front end 'fio'") && err.contains("hackbench"),
        "{err}"
    );
    let err = expect_input_error(&schedlab(&["run", "-w", "hackbench -s 'x"]));
    assert!(err.contains("quote"), "{err}");
}
