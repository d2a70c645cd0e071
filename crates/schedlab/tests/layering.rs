//! The layer rule of docs/architecture.md, checked from the imports: a module may use
//! `crate::X` only for modules on its own layer or below. The kernel model (`sched/`)
//! sees ids, time, the machine and the event queue, never the layers that use it.

use std::fs;
use std::path::{Path, PathBuf};

/// Layers from the bottom; modules on one line are peers.
const LAYERS: &[&[&str]] = &[
    &["time", "error", "ids", "fsutil", "machine", "engine"],
    &["sched"],
    &["metrics", "trace"],
    &["workload"],
    &["userspace"],
    &["simulation"],
    &["experiment"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every `crate::NAME` a line of code (not a comment) refers to.
fn crate_refs(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("crate::")
        .filter(|(i, _)| {
            *i == 0
                || !matches!(code.as_bytes()[i - 1], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_')
        })
        .map(|(i, _)| {
            code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

fn violations() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs").to_string();
        let Some(own) = rank(&module) else {
            assert_eq!(
                module,
                "lib",
                "{} is on no layer: add it to LAYERS",
                rel.display()
            );
            continue;
        };
        for (n, line) in fs::read_to_string(&f).unwrap().lines().enumerate() {
            for used in crate_refs(line) {
                match rank(&used) {
                    Some(r) if r > own => bad.push(format!(
                        "{}:{}: {module} uses crate::{used}, a layer above it",
                        rel.display(),
                        n + 1
                    )),
                    _ => {}
                }
            }
        }
    }
    bad
}

#[test]
fn every_import_points_down() {
    let bad = violations();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_checker_sees_an_upward_import() {
    assert_eq!(
        crate_refs("use crate::workload::Op; // crate::trace"),
        ["workload"]
    );
    assert!(crate_refs("use schedlab_crate::x;").is_empty());
    assert!(rank("experiment") > rank("sched"));
}
