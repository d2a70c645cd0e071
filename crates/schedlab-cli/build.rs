//! The commit this binary was built from (`schedlab --version`, study write-ups): numbers
//! in docs are stamped with it. And a hash of the model's source: `study run --resume`
//! keys each stored run with it, so a commit that changes only docs keeps the runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// FNV-1a 64, fed `bytes` and a 0 separator.
fn feed(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes.iter().chain(&[0]) {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

/// Every file under `path` (sorted), as its path relative to `root` and its contents.
fn feed_tree(hash: &mut u64, path: &Path, root: &Path) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            feed_tree(hash, &e, root);
        }
    } else if let Ok(bytes) = std::fs::read(path) {
        let rel = path.strip_prefix(root).unwrap_or(path);
        feed(hash, rel.to_string_lossy().as_bytes());
        feed(hash, &bytes);
    }
}

fn main() {
    // The model: the library's sources and manifest and the locked dependency versions
    // (the same on any machine: relative paths, sorted).
    let root = Path::new("../..");
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for part in [
        "crates/schedlab/src",
        "crates/schedlab/Cargo.toml",
        "Cargo.lock",
    ] {
        feed_tree(&mut hash, &root.join(part), root);
        println!("cargo:rerun-if-changed={}", root.join(part).display());
    }
    println!("cargo:rustc-env=SCHEDLAB_MODEL_HASH={hash:016x}");

    let commit = git(&["rev-parse", "--short=7", "HEAD"]).unwrap_or_else(|| "unknown".into());
    // Tracked files changed since that commit: the binary is not exactly the commit.
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let stamp = if dirty {
        format!("{commit}+changes")
    } else {
        commit
    };
    println!("cargo:rustc-env=SCHEDLAB_COMMIT={stamp}");
    // Rebuild the stamp when HEAD moves or the index changes.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
}
