//! `schedlab bench --suite`: every suite row (experiment::bench_suite) in its own child
//! process, so each row's peak RSS is its own, then one table.

use crate::cli_error::CliError;
use schedlab::experiment::bench_suite::{peak_rss_kib, row, Row, SUITE};
use std::io::Write;
use std::process::Command;

/// One row's figures, as the child prints them on its last stdout line.
struct Figures {
    sim_s: f64,
    wall_s: f64,
    events: u64,
    switches: u64,
    rss_kib: u64,
}

const TAG: &str = "bench-row";

/// Child side (`bench --row NAME`): run the row, print one `bench-row` line.
pub fn run_row(name: &str) -> Result<(), CliError> {
    let r = row(name)?.run()?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{TAG} {} {} {} {} {} {}",
        name,
        r.sim.time_ns,
        r.sim.wall_s,
        r.sim.events,
        r.perf.context_switches,
        peak_rss_kib().unwrap_or(0)
    )?;
    Ok(())
}

fn parse(line: &str) -> Option<Figures> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() != 7 || f[0] != TAG {
        return None;
    }
    Some(Figures {
        sim_s: f[2].parse::<u64>().ok()? as f64 / 1e9,
        wall_s: f[3].parse().ok()?,
        events: f[4].parse().ok()?,
        switches: f[5].parse().ok()?,
        rss_kib: f[6].parse().ok()?,
    })
}

/// The rows `--rows a,b` selects (all when empty).
fn selected(filter: &str) -> Result<Vec<&'static Row>, CliError> {
    if filter.is_empty() {
        return Ok(SUITE.iter().collect());
    }
    Ok(filter.split(',').map(row).collect::<Result<Vec<_>, _>>()?)
}

/// `--commands`: each row as the arguments to any schedlab binary (ci/bench_compare.sh).
pub fn print_commands(filter: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    for r in selected(filter)? {
        let args: Vec<String> = r.command().iter().map(|a| shell_quote(a)).collect();
        writeln!(out, "{}\t{}", r.name, args.join(" "))?;
    }
    Ok(())
}

fn shell_quote(a: &str) -> String {
    if a.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.:/".contains(c))
    {
        a.to_string()
    } else {
        format!("'{a}'")
    }
}

/// Parent side: each selected row in a child, one table line as it finishes.
pub fn suite(filter: &str) -> Result<(), CliError> {
    let rows = selected(filter)?;
    let exe = std::env::current_exe()?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<12} {:<18} {:>9} {:>9} {:>10} {:>12} {:>12} {:>9}",
        "row", "machine", "sim s", "wall s", "sim/wall", "events/s", "switches/s", "peak MiB"
    )?;
    for r in rows {
        let child = Command::new(&exe)
            .args(["bench", "--row", r.name])
            .output()?;
        let stdout = String::from_utf8_lossy(&child.stdout);
        let Some(f) = stdout.lines().last().and_then(parse) else {
            let err = String::from_utf8_lossy(&child.stderr);
            writeln!(out, "{:<12} failed: {}", r.name, err.trim())?;
            continue;
        };
        let wall = f.wall_s.max(1e-9);
        writeln!(
            out,
            "{:<12} {:<18} {:>9.3} {:>9.3} {:>10.3} {:>12.0} {:>12.0} {:>9.1}",
            r.name,
            r.machine,
            f.sim_s,
            f.wall_s,
            f.sim_s / wall,
            f.events as f64 / wall,
            f.switches as f64 / wall,
            f.rss_kib as f64 / 1024.0
        )?;
        out.flush()?;
    }
    Ok(())
}
