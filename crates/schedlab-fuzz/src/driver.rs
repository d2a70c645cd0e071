//! The fuzz loop: each round picks a target, generates a fresh structured input or
//! mutates one from that target's corpus, runs it with panics caught, and keeps inputs
//! that show a new behaviour (a new rejection shape, or a first acceptance) in the corpus
//! — feedback by outcome, the stand-in for coverage on stable Rust.

use crate::rng::Rng;
use crate::targets::{run, Ctx, Outcome, Target};
use crate::{gen, mutate, seeds};
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

/// Per target: inputs tried, accepted, rejected, distinct rejection shapes, findings.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub tried: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub shapes: usize,
    pub panics: u64,
    pub defects: u64,
}

/// A panic or a defect, with the input that caused it.
#[derive(Debug, Clone)]
pub struct Finding {
    pub target: Target,
    pub what: String,
    pub input: String,
}

#[derive(Debug, Default)]
pub struct Report {
    pub counts: BTreeMap<Target, Counts>,
    pub findings: Vec<Finding>,
    pub slowest: Option<(Duration, Target, String)>,
}

impl Report {
    pub fn total(&self) -> Counts {
        let mut t = Counts::default();
        for c in self.counts.values() {
            t.tried += c.tried;
            t.accepted += c.accepted;
            t.rejected += c.rejected;
            t.shapes += c.shapes;
            t.panics += c.panics;
            t.defects += c.defects;
        }
        t
    }
}

const CORPUS_CAP: usize = 4096;

struct Pool {
    corpus: Vec<String>,
    seen: BTreeSet<String>,
}

/// Write the fixture files relative paths in inputs refer to.
pub fn write_fixtures(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("a.json"), seeds::PERIODIC_JSON)?;
    std::fs::write(dir.join("b.json"), seeds::TWO_HOGS_JSON)?;
    std::fs::write(dir.join("m.toml"), seeds::MACHINE_TOML)
}

fn generate(t: Target, r: &mut Rng) -> String {
    match t {
        Target::Rtapp => gen::rtapp(r),
        Target::Scenario => gen::scenario(r),
        Target::Machine => gen::machine(r),
        Target::Workload => gen::workload(r),
        Target::Knob => gen::knob(r),
    }
}

/// Try `n` inputs over `targets` from seed `seed`, with fixtures in `dir`.
/// `on_progress(done)` is called every 65536 inputs.
pub fn fuzz(
    targets: &[Target],
    n: u64,
    seed: u64,
    dir: &Path,
    run_one_in: u64,
    on_progress: &mut dyn FnMut(u64, &Report),
) -> Report {
    let mut r = Rng::new(seed);
    let mut ctx = Ctx {
        dir,
        run_one_in,
        counter: 0,
    };
    let mut pools: BTreeMap<Target, Pool> = targets
        .iter()
        .map(|&t| {
            let corpus = seeds::seeds(t);
            (
                t,
                Pool {
                    corpus,
                    seen: BTreeSet::new(),
                },
            )
        })
        .collect();
    let mut report = Report::default();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..n {
        let t = targets[(i % targets.len() as u64) as usize];
        let pool = pools.get_mut(&t).expect("a pool per target");
        let input = if r.one_in(3) {
            generate(t, &mut r)
        } else {
            let base = &pool.corpus[r.below(pool.corpus.len())];
            let other = &pool.corpus[r.below(pool.corpus.len())];
            mutate::mutate(&mut r, base, other)
        };
        if let Ok(path) = std::env::var("SCHEDLAB_FUZZ_LAST") {
            // Debugging a crash that kills the process (out of memory): the input at hand.
            let _ = std::fs::write(path, format!("{}\n{input}", t.name()));
        }
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| run(t, &input, &mut ctx)));
        let took = started.elapsed();
        if report.slowest.as_ref().is_none_or(|s| took > s.0) {
            report.slowest = Some((took, t, input.clone()));
        }
        let c = report.counts.entry(t).or_default();
        c.tried += 1;
        let key = match outcome {
            Ok(Outcome::Accepted) => {
                c.accepted += 1;
                "accepted".to_string()
            }
            Ok(Outcome::Rejected(shape)) => {
                c.rejected += 1;
                shape
            }
            Ok(Outcome::Defect(what)) => {
                c.defects += 1;
                log_finding(t, &what, &input);
                report.findings.push(Finding {
                    target: t,
                    what,
                    input: input.clone(),
                });
                continue;
            }
            Err(payload) => {
                c.panics += 1;
                let what = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".into());
                log_finding(t, &what, &input);
                report.findings.push(Finding {
                    target: t,
                    what: format!("panic: {what}"),
                    input: input.clone(),
                });
                continue;
            }
        };
        if pool.seen.insert(key) {
            c.shapes = pool.seen.len();
            if pool.corpus.len() < CORPUS_CAP {
                pool.corpus.push(input);
            }
        } else if r.one_in(64) && pool.corpus.len() < CORPUS_CAP {
            pool.corpus.push(input);
        }
        if (i + 1) % 65536 == 0 {
            on_progress(i + 1, &report);
        }
    }
    std::panic::set_hook(previous);
    report
}

/// With SCHEDLAB_FUZZ_LOG set, append each finding to that file as it happens.
fn log_finding(t: Target, what: &str, input: &str) {
    if let Ok(path) = std::env::var("SCHEDLAB_FUZZ_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "== {}: {what}\n{input:?}", t.name());
        }
    }
}
