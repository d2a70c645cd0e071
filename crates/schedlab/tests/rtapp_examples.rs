//! rt-app's own doc/examples, when a checkout is available: set RTAPP_EXAMPLES to its
//! `doc/examples` folder. Every file must either load and run, or fail only with one of
//! the "not modelled / not supported" errors docs/rtapp.md lists. rt-app is GPL, so its
//! examples are not copied into this repository; without the variable the test only
//! says it was skipped.

mod common;
use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::workload::rtapp::parse_rtapp;
use std::path::{Path, PathBuf};

/// Message fragments of the documented unsupported features (docs/rtapp.md, "Not
/// supported"); any other error is a bug in the front end.
const UNSUPPORTED: &[&str] = &[
    "bandwidth reclaiming (SCHED_FLAG_RECLAIM, GRUB) is not modelled",
    "per-phase taskgroup (moving a task between groups) is not modelled",
    "NUMA memory binding is not modelled",
    "`memrun` is not supported",
    "only /dev/null is modelled",
    "priority-inheritance mutexes are not modelled",
    "`external_workload` is not supported",
    "the pre-2015 rt-app grammar",
    // Fragments under merge/ are pieces of a use case, not use cases.
    "no `tasks` object",
];

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

#[test]
fn rtapp_doc_examples_load_or_fail_as_documented() {
    let Some(dir) = std::env::var_os("RTAPP_EXAMPLES") else {
        eprintln!("skipped: set RTAPP_EXAMPLES to an rt-app checkout's doc/examples folder");
        return;
    };
    let dir = PathBuf::from(dir);
    let mut files = Vec::new();
    json_files(&dir, &mut files);
    assert!(!files.is_empty(), "no .json under {}", dir.display());
    let mut bad = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
        let text = std::fs::read_to_string(f).expect("readable");
        match parse_rtapp(&text, &name) {
            Ok(w) => {
                // Simulate half a second on a machine with enough CPUs for every
                // example's `cpus` lists; invariants are checked after every event.
                let sim = prepare(&scenario("smp:8", 1), w).expect("prepares");
                let mut sc = scenario("smp:8", 1);
                sc.duration_ns = Some(500 * MS);
                let r = execute(&sc, sim, Some(1));
                let ok = r.sim.invariant_violations == 0;
                eprintln!("loads  {name}: {} tasks ran", r.tasks.len());
                if !ok {
                    bad.push(format!("{name}: {:?}", r.sim.invariant_messages));
                }
            }
            Err(e) if UNSUPPORTED.iter().any(|u| e.message.contains(u)) => {
                eprintln!("unsupported  {name}: {e}");
            }
            Err(e) => {
                eprintln!("FAILS  {name}: {e}");
                bad.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(bad.is_empty(), "unexpected failures:\n{}", bad.join("\n"));
}
