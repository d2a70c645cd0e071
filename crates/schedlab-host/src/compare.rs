//! The comparison: per (task or group, metric) the host's median and range over reps,
//! the simulator's over seeds, their ratio (sim ÷ host) and whether they agree within
//! the metric's tolerance; the agreement score is the fraction of rows that agree.

use serde::Serialize;

/// How a metric is judged (docs/validate.md, "Tolerances").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A fraction of time (CPU share, busy share): within ±5 % relative.
    Share,
    /// An event count or rate: ratio within 0.67–1.5.
    Count,
    /// A latency percentile in µs: ratio within 0.5–2, or both under 200 µs.
    Latency,
}

impl Kind {
    pub fn within(self, host: f64, sim: f64) -> bool {
        if host == sim {
            return true;
        }
        match self {
            Kind::Share => host > 0.0 && ((sim - host) / host).abs() <= 0.05,
            Kind::Count => host > 0.0 && (0.67..=1.5).contains(&(sim / host)),
            Kind::Latency => {
                (host < 200.0 && sim < 200.0) || (host > 0.0 && (0.5..=2.0).contains(&(sim / host)))
            }
        }
    }

    pub fn rule(self) -> &'static str {
        match self {
            Kind::Share => "±5%",
            Kind::Count => "×0.67–1.5",
            Kind::Latency => "×0.5–2 or both <200µs",
        }
    }
}

/// One line of the table and of `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub metric: String,
    pub task: String,
    pub host_median: f64,
    pub host_min: f64,
    pub host_max: f64,
    pub sim_median: f64,
    pub sim_min: f64,
    pub sim_max: f64,
    /// sim ÷ host medians; null when the host median is 0 and the sim's is not.
    pub ratio: Option<f64>,
    pub within: bool,
    #[serde(skip)]
    pub kind: Option<Kind>,
}

/// Median (mean of the middle two for an even count), min, max; zeros when empty.
pub fn summary(v: &[f64]) -> (f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    let med = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    };
    (med, s[0], s[n - 1])
}

/// Nearest-rank percentile (as the simulator's LatencySummary), 0 when empty.
pub fn percentile(sorted: &[u64], p: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len() as u64;
    let idx = (p * n).div_ceil(100).max(1) - 1;
    sorted[idx as usize]
}

pub fn row(metric: &str, task: &str, kind: Kind, host: &[f64], sim: &[f64]) -> Row {
    let (hm, hl, hh) = summary(host);
    let (sm, sl, sh) = summary(sim);
    let ratio = if hm == 0.0 {
        (sm == 0.0).then_some(1.0)
    } else {
        Some(sm / hm)
    };
    Row {
        metric: metric.to_string(),
        task: task.to_string(),
        host_median: hm,
        host_min: hl,
        host_max: hh,
        sim_median: sm,
        sim_min: sl,
        sim_max: sh,
        ratio,
        within: kind.within(hm, sm),
        kind: Some(kind),
    }
}

/// Fraction of rows within tolerance (1.0 for no rows).
pub fn score(rows: &[Row]) -> f64 {
    if rows.is_empty() {
        return 1.0;
    }
    rows.iter().filter(|r| r.within).count() as f64 / rows.len() as f64
}

/// The `--json` document.
#[derive(Serialize)]
pub struct Document<'a> {
    pub score: f64,
    pub rows: &'a [Row],
}

fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// The human table: one line per row, the score last.
pub fn render(rows: &[Row]) -> String {
    let mut lines = vec![[
        "TASK".to_string(),
        "METRIC".into(),
        "HOST med [min–max]".into(),
        "SIM med [min–max]".into(),
        "SIM/HOST".into(),
        "OK".into(),
        "RULE".into(),
    ]];
    for r in rows {
        lines.push([
            r.task.clone(),
            r.metric.clone(),
            format!(
                "{} [{}–{}]",
                num(r.host_median),
                num(r.host_min),
                num(r.host_max)
            ),
            format!(
                "{} [{}–{}]",
                num(r.sim_median),
                num(r.sim_min),
                num(r.sim_max)
            ),
            r.ratio
                .map(|x| format!("{x:.2}"))
                .unwrap_or_else(|| "-".into()),
            if r.within { "yes" } else { "NO" }.into(),
            r.kind.map(|k| k.rule()).unwrap_or("").into(),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in &lines {
        let cells: Vec<String> = l
            .iter()
            .zip(&widths)
            .map(|(s, w)| format!("{s:<w$}", w = *w))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    let agree = rows.iter().filter(|r| r.within).count();
    out.push_str(&format!(
        "agreement score: {agree}/{} = {:.2}\n",
        rows.len(),
        score(rows)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerances() {
        assert!(Kind::Share.within(0.5, 0.52));
        assert!(!Kind::Share.within(0.5, 0.53));
        assert!(Kind::Count.within(100.0, 149.0));
        assert!(!Kind::Count.within(100.0, 151.0));
        assert!(!Kind::Count.within(0.0, 1.0));
        assert!(Kind::Count.within(0.0, 0.0));
        assert!(Kind::Latency.within(150.0, 10.0));
        assert!(Kind::Latency.within(1000.0, 1900.0));
        assert!(!Kind::Latency.within(1000.0, 2100.0));
    }

    #[test]
    fn summaries_and_score() {
        assert_eq!(summary(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(summary(&[4.0, 1.0]), (2.5, 1.0, 4.0));
        assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
        let rows = vec![
            row("cpu_share", "a", Kind::Share, &[0.5], &[0.5]),
            row("cpu_share", "b", Kind::Share, &[0.5], &[0.9]),
        ];
        assert_eq!(score(&rows), 0.5);
        let text = render(&rows);
        assert!(text.ends_with("agreement score: 1/2 = 0.50\n"), "{text}");
        let doc = serde_json::to_value(Document {
            score: 0.5,
            rows: &rows,
        })
        .unwrap();
        assert_eq!(doc["rows"][1]["within"], false);
        assert!(doc["rows"][0]["ratio"].is_number());
    }
}
