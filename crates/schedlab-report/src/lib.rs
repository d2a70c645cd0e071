//! The HTML report (docs/report.md): one self-contained page per run or A/B comparison,
//! its plots drawn here as inline SVG (no scripts or styles fetched from anywhere).
//!
//! - `html.rs`: the page shell, escaping, the small inline script (table sorting, hover);
//! - `svg.rs`: the chart primitives (lines, steps, bars with intervals, lanes);
//! - `timeline.rs`: who ran where, from `sched_switch` rows;
//! - `series.rs`: counter tracks and wake-up latencies from trace rows;
//! - `run_page.rs`, `ab_page.rs`: the two pages.

mod ab_page;
mod html;
mod run_page;
mod series;
mod svg;
mod timeline;

pub use ab_page::render_ab;
pub use run_page::render_run;

/// What a result document is, by its keys: a run (`run --json`) or a comparison (`ab --json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    Run,
    Ab,
}

pub fn doc_kind(doc: &serde_json::Value) -> Option<DocKind> {
    if doc.get("tasks").is_some() && doc.get("perf").is_some() {
        Some(DocKind::Run)
    } else if doc.get("rows").is_some() && doc.get("base").is_some() {
        Some(DocKind::Ab)
    } else {
        None
    }
}
