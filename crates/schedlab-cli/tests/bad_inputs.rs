//! The bad-input corpus: realistic mistakes a new user makes in scenario files, machine
//! files, rt-app JSON, workload command lines and flags (bad_inputs/cases.rs). Each must
//! exit 2 with one line `schedlab: error: …` that names the file (or flag), the place
//! (line:column, key or JSON path) and the fix (the parenthesised tail).

#[path = "bad_inputs/cases.rs"]
mod cases;

use cases::{Case, CASES};
use std::path::PathBuf;
use std::process::Command;

fn run_case(case: &Case) -> Result<(), String> {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("schedlab-bad-{}-{}", std::process::id(), case.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in case.files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(case.args)
        .current_dir(&dir)
        .output()
        .expect("the schedlab binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let fail = |why: &str| Err(format!("{}: {why}\n  stderr: {err}", case.name));
    if o.status.code() != Some(2) {
        return fail(&format!("exit {:?}, want 2", o.status.code()));
    }
    if !o.stdout.is_empty() {
        return fail("stdout is not empty");
    }
    let line = err.trim_end();
    if line.lines().count() != 1 || !line.starts_with("schedlab: error: ") {
        return fail("want exactly one line `schedlab: error: …`");
    }
    if line.contains("panicked") {
        return fail("a panic");
    }
    // The fix: InputError prints it last, in parentheses.
    if !line.ends_with(')') || !line.contains(" (") {
        return fail("no fix in parentheses at the end");
    }
    for want in case.expect {
        if !line.contains(want) {
            return fail(&format!("missing {want:?}"));
        }
    }
    Ok(())
}

#[test]
fn every_bad_input_exits_2_naming_file_place_and_fix() {
    assert!(CASES.len() >= 50, "the corpus has {} cases", CASES.len());
    let mut names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CASES.len(), "case names are unique");
    let failures: Vec<String> = CASES.iter().filter_map(|c| run_case(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn the_checker_rejects_a_good_input() {
    // A case that succeeds must fail the check: the harness can tell good from bad.
    let good = Case {
        name: "good-input",
        files: &[(
            "w.json",
            r#"{"tasks": {"t": {"run": 1000, "sleep": 1000}}}"#,
        )],
        args: &["run", "-q", "-t", "10ms", "-w", "rtapp w.json"],
        expect: &[],
    };
    let e = run_case(&good).unwrap_err();
    assert!(e.contains("exit Some(0), want 2"), "{e}");
}
