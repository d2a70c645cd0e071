//! `schedlab-fuzz`: fuzz schedlab's input parsers (docs/fuzzing.md).
//!
//! schedlab-fuzz [-n INPUTS] [--seed S] [--target NAME]… [--run-one-in K] [--findings DIR]
//! schedlab-fuzz soak [--events N] [--seed S] [--check-every K]
//!
//! Prints a table of inputs tried, accepted, rejected, rejection shapes, panics and
//! defects per target; exits 1 if anything was found (the inputs are written to DIR,
//! default `fuzz-findings/`).

use schedlab_fuzz::driver::{fuzz, write_fixtures, Report};
use schedlab_fuzz::targets::{Target, ALL};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn usage(msg: &str) -> ExitCode {
    eprintln!("schedlab-fuzz: error: {msg} (usage: schedlab-fuzz [-n INPUTS] [--seed S] [--target NAME]… [--run-one-in K] [--findings DIR]; targets: {})",
        ALL.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "));
    ExitCode::from(2)
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("soak") {
        return soak_main();
    }
    let mut n: u64 = 1_000_000;
    let mut seed: u64 = 1;
    let mut run_one_in: u64 = 16;
    let mut targets: Vec<Target> = Vec::new();
    let mut findings_dir = PathBuf::from("fuzz-findings");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let r: Result<(), String> = (|| {
            match a.as_str() {
                "-n" => {
                    n = val("-n")?
                        .replace('_', "")
                        .parse()
                        .map_err(|_| "-n takes a count")?
                }
                "--seed" => {
                    seed = val("--seed")?
                        .parse()
                        .map_err(|_| "--seed takes an integer")?
                }
                "--run-one-in" => {
                    run_one_in = val("--run-one-in")?
                        .parse()
                        .map_err(|_| "--run-one-in takes an integer")?;
                    run_one_in = run_one_in.max(1);
                }
                "--target" => {
                    let v = val("--target")?;
                    targets.push(Target::from_name(&v).ok_or(format!("unknown target '{v}'"))?);
                }
                "--findings" => findings_dir = PathBuf::from(val("--findings")?),
                other => return Err(format!("unknown argument '{other}'")),
            }
            Ok(())
        })();
        if let Err(m) = r {
            return usage(&m);
        }
    }
    if targets.is_empty() {
        targets = ALL.to_vec();
    }
    let dir = std::env::temp_dir().join(format!("schedlab-fuzz-{}", std::process::id()));
    if let Err(e) = write_fixtures(&dir) {
        eprintln!(
            "schedlab-fuzz: error: cannot write fixtures under {}: {e}",
            dir.display()
        );
        return ExitCode::from(1);
    }
    let started = Instant::now();
    let report = fuzz(&targets, n, seed, &dir, run_one_in, &mut |done, rep| {
        let t = rep.total();
        eprint!(
            "\r{done}/{n} inputs, {} panics, {} defects, {:.0} s",
            t.panics,
            t.defects,
            started.elapsed().as_secs_f64()
        );
    });
    eprintln!();
    let _ = std::fs::remove_dir_all(&dir);
    print_report(&report, seed, started.elapsed().as_secs_f64());
    if report.findings.is_empty() {
        return ExitCode::SUCCESS;
    }
    let _ = std::fs::create_dir_all(&findings_dir);
    for (i, f) in report.findings.iter().enumerate() {
        let path = findings_dir.join(format!("{i:04}-{}.txt", f.target.name()));
        let _ = std::fs::write(&path, &f.input);
        println!(
            "finding {i}: {}: {} (input in {})",
            f.target.name(),
            f.what.lines().next().unwrap_or(""),
            path.display()
        );
    }
    ExitCode::from(1)
}

fn print_report(r: &Report, seed: u64, secs: f64) {
    println!(
        "{:<18} {:>12} {:>12} {:>12} {:>8} {:>8} {:>8}",
        "target", "tried", "accepted", "rejected", "shapes", "panics", "defects"
    );
    let row = |name: &str, c: &schedlab_fuzz::driver::Counts| {
        println!(
            "{:<18} {:>12} {:>12} {:>12} {:>8} {:>8} {:>8}",
            name, c.tried, c.accepted, c.rejected, c.shapes, c.panics, c.defects
        );
    };
    for (t, c) in &r.counts {
        row(t.name(), c);
    }
    let total = r.total();
    row("total", &total);
    println!(
        "seed {seed}; {:.0} s wall, {:.0} inputs/s",
        secs,
        total.tried as f64 / secs.max(1e-9)
    );
    if let Some((d, t, input)) = &r.slowest {
        let short: String = input.chars().take(120).collect();
        println!(
            "slowest input: {:.1} ms ({}): {short:?}",
            d.as_secs_f64() * 1e3,
            t.name()
        );
    }
}

/// `schedlab-fuzz soak [--events N] [--seed S] [--check-every K]`: random valid scenarios
/// until N simulated events; exit 1 on any invariant violation (printed with its scenario).
fn soak_main() -> ExitCode {
    let mut events: u64 = 100_000_000;
    let mut seed: u64 = 1;
    let mut every: u64 = 64;
    let args: Vec<String> = std::env::args().skip(2).collect();
    for pair in args.chunks(2) {
        let v = pair.get(1).map(|v| v.replace('_', "").parse::<u64>());
        match (pair[0].as_str(), v) {
            ("--events", Some(Ok(v))) => events = v,
            ("--seed", Some(Ok(v))) => seed = v,
            ("--check-every", Some(Ok(v))) => every = v.max(1),
            (a, _) => return usage(&format!("soak: bad argument '{a}'")),
        }
    }
    let dir = std::env::temp_dir().join(format!("schedlab-soak-{}", std::process::id()));
    if let Err(e) = write_fixtures(&dir) {
        eprintln!("schedlab-fuzz: error: cannot write fixtures: {e}");
        return ExitCode::from(1);
    }
    let started = Instant::now();
    let rep = schedlab_fuzz::soak::soak(events, seed, &dir, every, &mut |r| {
        eprint!(
            "\r{} scenarios, {} events, {} violations, {:.0} s",
            r.scenarios,
            r.events,
            r.violations,
            started.elapsed().as_secs_f64()
        );
    });
    eprintln!();
    let _ = std::fs::remove_dir_all(&dir);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "soak seed {seed}: {} scenarios, {} events, {} invariant violations, {} generated scenarios refused by the input checks; invariants checked every {every} events; {:.0} s wall, {:.2} M events/s",
        rep.scenarios, rep.events, rep.violations, rep.refused, secs, rep.events as f64 / secs / 1e6
    );
    for (text, msgs) in &rep.failures {
        println!("--- violating scenario:\n{text}--- messages:");
        for m in msgs {
            println!("  {m}");
        }
    }
    if rep.violations > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
