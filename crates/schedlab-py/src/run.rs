//! One run: its result document, its trace rows, trace files read back, the HTML report.

use crate::{spec, to_py};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use schedlab::experiment::run_scenario;
use schedlab::experiment::trace_rows::{run_trace_rows, RowSelection};
use schedlab::trace::read::table::{to_columns, Column};
use schedlab::trace::read::TraceEvent;
use schedlab::InputError;
use std::path::Path;

fn encode<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot encode: {e}")))
}

/// Run the scenario `spec` (JSON) describes; the result document as JSON text.
#[pyfunction]
pub fn run_json(py: Python<'_>, spec: &str) -> PyResult<String> {
    let sc = spec::scenario(spec).map_err(to_py)?;
    let result = py.detach(|| run_scenario(&sc)).map_err(to_py)?;
    encode(&result)
}

/// Trace rows as a dict of columns (name → list), in the table's column order.
fn columns<'py>(py: Python<'py>, events: &[TraceEvent]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in to_columns(events) {
        match col {
            Column::Int(v) => d.set_item(name, v)?,
            Column::Text(v) => d.set_item(name, v)?,
        }
    }
    Ok(d)
}

/// Run traced: (result JSON, trace columns). `events`, `window`, `counters` in the
/// `--trace-*` flags' syntax.
#[pyfunction]
#[pyo3(signature = (spec, events=None, window=None, counters=None))]
pub fn run_trace<'py>(
    py: Python<'py>,
    spec: &str,
    events: Option<String>,
    window: Option<String>,
    counters: Option<String>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let sc = spec::scenario(spec).map_err(to_py)?;
    let sel = RowSelection {
        events,
        window,
        counters,
    };
    let (result, rows) = py.detach(|| run_trace_rows(&sc, &sel)).map_err(to_py)?;
    Ok((encode(&result)?, columns(py, &rows)?))
}

/// A `.txt` or `.pftrace` file as trace columns.
#[pyfunction]
pub fn read_trace<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let rows = py
        .detach(|| schedlab::trace::read::read_trace(Path::new(path)))
        .map_err(to_py)?;
    columns(py, &rows)
}

/// The HTML report of a run (traced, for the timeline) as one self-contained page.
#[pyfunction]
pub fn report_html(py: Python<'_>, spec: &str) -> PyResult<String> {
    let sc = spec::scenario(spec).map_err(to_py)?;
    let sel = RowSelection::default();
    let (result, rows) = py.detach(|| run_trace_rows(&sc, &sel)).map_err(to_py)?;
    let doc = serde_json::to_value(&result)
        .map_err(|e| to_py(InputError::new("result", e.to_string())))?;
    Ok(schedlab_report::render_run(
        &doc,
        Some(&rows),
        "schedlab run",
    ))
}
