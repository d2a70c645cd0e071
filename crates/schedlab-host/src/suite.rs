//! `validate --suite basic`: scenarios for a small (2-CPU) host, each a few seconds. The
//! rt-app files are generated into a temporary folder so the suite needs no data files.

use std::path::{Path, PathBuf};

/// One suite entry: a name and its `-w` workloads (paths relative to the suite folder).
pub struct Entry {
    pub name: &'static str,
    pub workloads: Vec<String>,
    /// The entry needs a tool that may be missing (skipped with a note then).
    pub optional_tool: Option<&'static str>,
}

fn hog(name: &str, cpus: Option<&str>, prio: i32) -> String {
    let cpus = cpus
        .map(|c| format!("\"cpus\": [{c}], "))
        .unwrap_or_default();
    // rt-app applies priority only with a runtime (rtapp_quirks.rs): give one equal to
    // the base slice (1.4 ms on 2 CPUs) so the nice value really is set.
    let prio = if prio != 0 {
        format!("\"priority\": {prio}, \"dl-runtime\": 1400, ")
    } else {
        String::new()
    };
    format!("\"{name}\": {{ {cpus}{prio}\"run\": 1000000 }}")
}

fn file(duration_s: u32, tasks: &[String]) -> String {
    format!(
        "{{\n  \"global\": {{ \"duration\": {duration_s}, \"default_policy\": \"SCHED_OTHER\" }},\n  \"tasks\": {{\n    {}\n  }}\n}}\n",
        tasks.join(",\n    ")
    )
}

/// The rt-app files of the suite, by file name.
pub fn files(duration_s: u32) -> Vec<(&'static str, String)> {
    let periodic = "\"periodic\": { \"cpus\": [0], \"run\": 2000, \"timer\": { \"ref\": \"unique\", \"period\": 16667, \"mode\": \"absolute\" } }".to_string();
    let mut v = vec![
        (
            "weights.json",
            file(
                duration_s,
                &[hog("heavy", Some("0"), -5), hog("light", Some("0"), 5)],
            ),
        ),
        (
            "periodic0.json",
            file(duration_s, std::slice::from_ref(&periodic)),
        ),
        (
            "periodic2.json",
            file(
                duration_s,
                &[
                    periodic.clone(),
                    hog("hog", Some("0"), 0),
                    hog("hog2", Some("0"), 0),
                ],
            ),
        ),
    ];
    v.push((
        "periodic4.json",
        file(
            duration_s,
            &[
                periodic,
                hog("hogA", Some("0"), 0),
                hog("hogB", Some("0"), 0),
                hog("hogC", Some("0"), 0),
                hog("hogD", Some("0"), 0),
            ],
        ),
    ));
    v.push((
        "mixednice.json",
        file(
            duration_s,
            &[hog("n0", None, 0), hog("n5", None, 5), hog("m5", None, -5)],
        ),
    ));
    v.push((
        "sleepers.json",
        file(
            duration_s,
            &[
                "\"sleeper\": { \"instance\": 3, \"run\": 200, \"sleep\": 800 }".to_string(),
                hog("hog", None, 0),
            ],
        ),
    ));
    v.push((
        "pingpong.json",
        file(
            duration_s,
            &[
                "\"ping\": { \"run\": 50, \"sync\": { \"ref\": \"pong_c\", \"mutex\": \"m\" } }"
                    .to_string(),
                "\"pong\": { \"run\": 50, \"sync\": { \"ref\": \"pong_c\", \"mutex\": \"m\" } }"
                    .to_string(),
            ],
        ),
    ));
    v
}

/// The suite's entries; `dir` holds `files()`.
pub fn entries(dir: &Path) -> Vec<Entry> {
    let rt = |f: &str| format!("rtapp {}", dir.join(f).display());
    vec![
        Entry {
            name: "weight pair (nice -5 / 5) on CPU 0",
            workloads: vec![rt("weights.json")],
            optional_tool: None,
        },
        Entry {
            name: "60 Hz task alone on CPU 0",
            workloads: vec![rt("periodic0.json")],
            optional_tool: None,
        },
        Entry {
            name: "60 Hz task + 2 pinned hogs",
            workloads: vec![rt("periodic2.json")],
            optional_tool: None,
        },
        Entry {
            name: "60 Hz task + 4 pinned hogs",
            workloads: vec![rt("periodic4.json")],
            optional_tool: None,
        },
        Entry {
            name: "3 unpinned hogs at nice -5/0/5",
            workloads: vec![rt("mixednice.json")],
            optional_tool: None,
        },
        Entry {
            name: "short sleepers + hog",
            workloads: vec![rt("sleepers.json")],
            optional_tool: None,
        },
        Entry {
            name: "ping-pong pair (condvar)",
            workloads: vec![rt("pingpong.json")],
            optional_tool: None,
        },
        Entry {
            name: "hackbench -g 4 -l 200",
            workloads: vec!["hackbench -g 4 -l 200".into()],
            optional_tool: Some("hackbench"),
        },
        Entry {
            name: "schbench -m 1 -t 2 -r 3",
            workloads: vec!["schbench -m 1 -t 2 -r 3".into()],
            optional_tool: Some("schbench"),
        },
    ]
}

/// Write the suite's files into a fresh folder under the system temp dir.
pub fn write_files(duration_s: u32) -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("schedlab-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    for (name, text) in files(duration_s) {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suite_file_compiles() {
        for (name, text) in files(3) {
            schedlab::workload::rtapp::parse_rtapp(&text, name)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
