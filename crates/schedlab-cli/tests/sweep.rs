//! `schedlab sweep`: the grid, the table, resuming from stored runs, and bad files.

mod common;

use common::{root, schedlab};

fn sweep_dir(name: &str) -> tempfile::TempDir {
    let guard = tempfile::Builder::new()
        .prefix(&format!("schedlab-sweep-{name}-"))
        .tempdir()
        .unwrap();
    let dir = guard.path().to_path_buf();
    std::fs::copy(
        root().join("examples/periodic.json"),
        dir.join("periodic.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("s.toml"),
        r#"seeds = 2
metrics = ["perf.context_switches", "perf.task_clock_ns"]
[base]
machine = "smp:2"
duration = "300ms"
workloads = ["rtapp periodic.json"]
[[axis]]
key = "features"
values = ["", "NO_DELAY_DEQUEUE"]
[[axis]]
key = "hz"
values = [250, 1000]
"#,
    )
    .unwrap();
    guard
}

#[test]
fn sweep_runs_the_grid_and_resumes() {
    let guard = sweep_dir("grid");
    let dir = guard.path().to_path_buf();
    let file = dir.join("s.toml");
    let o = schedlab(&["sweep", file.to_str().unwrap(), "-j", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "| features | hz | runs | perf.context_switches | perf.task_clock_ns |"
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("| ")).count(),
        5,
        "{out}"
    );
    assert!(lines[2].starts_with("| (none) | 250 | 2 |"), "{out}");
    assert!(
        lines[5].starts_with("| NO_DELAY_DEQUEUE | 1000 | 2 |"),
        "{out}"
    );
    assert!(out.contains("8 runs done, 0 reused"), "{out}");
    let runs = dir.join("s.out/runs");
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 8);
    // Lose one stored run (as an interrupted sweep would): only it runs again, and the
    // table is the same.
    let first = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(first).unwrap();
    let again = schedlab(&["sweep", file.to_str().unwrap()]);
    let out2 = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(out2.contains("1 runs done, 7 reused"), "{out2}");
    let table = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with('|'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(table(&out), table(&out2));
    assert!(dir.join("s.out/table.csv").exists());
}

#[test]
fn bad_sweep_files_are_input_errors() {
    let guard = sweep_dir("bad");
    let dir = guard.path().to_path_buf();
    let file = dir.join("bad.toml");
    for (text, needle) in [
        ("grid = 1\n", "unknown key 'grid'"),
        ("[[axis]]\nkey = \"hz\"\nvalues = [0]\n", "hz"),
        (
            "[[axis]]\nkey = \"features\"\nvalues = [\"NO_SUCH\"]\n",
            "NO_SUCH",
        ),
        ("seeds = 0\n", "seeds"),
        ("[[axis\n", "malformed TOML"),
    ] {
        std::fs::write(&file, text).unwrap();
        let o = schedlab(&["sweep", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(
            err.contains(needle) && err.contains("bad.toml"),
            "{text}: {err}"
        );
    }
}
