//! The A/B table in the seeds' style (`| metric | tag | perc_diff |` with the means and
//! their 95% intervals), and CSV of every run.

use super::{AbReport, ALPHA};
use std::fmt::Write;

/// A number with 4 significant figures, without float noise.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return if x > 0.0 {
            "inf".into()
        } else if x < 0.0 {
            "-inf".into()
        } else {
            "nan".into()
        };
    }
    // Float noise around zero (e.g. the spread of identical samples) prints as 0.
    if x.abs() < 1e-9 {
        return "0".into();
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (3 - mag).clamp(0, 9) as usize;
    format!("{x:.decimals$}")
}

/// The markdown table: per metric, one row per arm (mean ± CI), then the difference.
pub fn render_markdown(r: &AbReport) -> String {
    let mut s = String::new();
    let n = r.base.seeds.len();
    let _ = writeln!(
        s,
        "base:  {}\npatch: {}\n{n} seeds per side; ± is the 95% CI of the mean; * marks p < {ALPHA} (Welch's t-test, Holm-corrected over {} metrics)\n",
        describe(&r.base.settings),
        describe(&r.patch.settings),
        r.rows.len()
    );
    let _ = writeln!(s, "| metric | tag | value | perc_diff |");
    let _ = writeln!(s, "|---|---|---|---|");
    for row in &r.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} ± {} | |",
            row.metric,
            r.base.tag,
            num(row.base_mean),
            num(row.base_ci95)
        );
        let mark = if row.significant { " *" } else { "" };
        let _ = writeln!(
            s,
            "| | {} | {} ± {} | {}%{mark} (p={}) |",
            r.patch.tag,
            num(row.patch_mean),
            num(row.patch_ci95),
            num(row.perc_diff),
            num(row.p_value)
        );
    }
    s
}

fn describe(settings: &[String]) -> String {
    if settings.is_empty() {
        "the scenario as given".into()
    } else {
        settings.join(" ")
    }
}

/// CSV: one line per run and metric (`tag,seed,metric,value`).
pub fn render_csv(r: &AbReport) -> String {
    let mut s = String::from("tag,seed,metric,value\n");
    for arm in [&r.base, &r.patch] {
        for (seed, run) in arm.seeds.iter().zip(&arm.runs) {
            for row in &r.rows {
                let _ = writeln!(s, "{},{seed},{},{}", arm.tag, row.metric, run[&row.metric]);
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_plainly() {
        assert_eq!(num(42.0), "42");
        assert_eq!(num(2.71234), "2.712");
        assert_eq!(num(0.012345), "0.01235");
        assert_eq!(num(-12.5), "-12.50");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(num(2.7e-17), "0");
    }
}
