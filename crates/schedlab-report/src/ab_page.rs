//! The page of an A/B comparison (`ab --json`): the two sides' settings, the metric table
//! with 95% intervals, perc_diff and Holm-corrected significance, and a bar chart per metric.

use crate::html::{esc, note, num, page, section, table};
use crate::svg::{bars, Bar};
use serde_json::Value;

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

fn side(doc: &Value, k: &str) -> (String, String) {
    let s = doc.get(k);
    let tag = s
        .and_then(|s| s.get("tag"))
        .and_then(Value::as_str)
        .unwrap_or(k)
        .to_string();
    let settings: Vec<String> = s
        .and_then(|s| s.get("settings"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let seeds = s
        .and_then(|s| s.get("seeds"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    (
        tag,
        format!(
            "{} ({seeds} seeds)",
            if settings.is_empty() {
                "(scenario as is)".into()
            } else {
                settings.join(" ")
            }
        ),
    )
}

pub fn render_ab(doc: &Value, title: &str) -> String {
    let (bt, bs) = side(doc, "base");
    let (pt, ps) = side(doc, "patch");
    let mut body = section(
        "Sides",
        &format!(
            "<p><b>{}</b>: {}<br><b>{}</b>: {}</p>",
            esc(&bt),
            esc(&bs),
            esc(&pt),
            esc(&ps)
        ),
    );
    let rows = doc
        .get("rows")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let head: Vec<String> = [
        "metric".to_string(),
        format!("{bt} mean"),
        "± 95% CI".into(),
        format!("{pt} mean"),
        "± 95% CI".into(),
        "perc_diff %".into(),
        "p".into(),
        "significant".into(),
    ]
    .into();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.get("metric")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                num(f(r, "base_mean")),
                num(f(r, "base_ci95")),
                num(f(r, "patch_mean")),
                num(f(r, "patch_ci95")),
                num(f(r, "perc_diff")),
                format!("{:.3}", f(r, "p_value")),
                if r.get("significant").and_then(Value::as_bool) == Some(true) {
                    "yes".into()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    body.push_str(&section(
        "Metrics",
        &(table(&head, &cells)
            + &note(
                "Significance: Welch's t-test, Holm-corrected at 0.05 across the metrics shown.",
            )),
    ));
    let mut charts = String::new();
    for r in &rows {
        let name = r.get("metric").and_then(Value::as_str).unwrap_or("");
        let sig = r.get("significant").and_then(Value::as_bool) == Some(true);
        charts.push_str(&bars(
            name,
            &[
                Bar {
                    label: bt.clone(),
                    value: f(r, "base_mean"),
                    ci: f(r, "base_ci95"),
                },
                Bar {
                    label: pt.clone(),
                    value: f(r, "patch_mean"),
                    ci: f(r, "patch_ci95"),
                },
            ],
            sig,
        ));
    }
    body.push_str(&section(
        "Bars (mean ± 95% CI; bold title: significant)",
        &format!("<div>{charts}</div>"),
    ));
    page(title, &body)
}
