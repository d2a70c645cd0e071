//! `schedlab._native`: the Rust side of the `schedlab` Python package (docs/python.md).
//! Everything crosses the boundary as JSON text or plain lists, so the Python side builds
//! its DataFrames from exactly the document `schedlab run --json` writes.
//!
//! - `spec.rs`: the run's inputs (scenario file, keyword arguments) to a `Scenario`;
//! - `run.rs`: run, trace rows, reading trace files;
//! - `campaign.rs`: ab, sweep (its grid, single runs for any executor, the summary), study.

mod campaign;
mod run;
mod spec;

use pyo3::prelude::*;
use schedlab::InputError;

pyo3::create_exception!(
    _native,
    SchedlabError,
    pyo3::exceptions::PyValueError,
    "Bad input: the message names the place (file, argument) and how to fix it, as the CLI's does."
);

/// An `InputError` as the Python exception, with the CLI's text.
pub(crate) fn to_py(e: InputError) -> PyErr {
    SchedlabError::new_err(e.to_string())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SchedlabError", m.py().get_type::<SchedlabError>())?;
    m.add_function(wrap_pyfunction!(run::run_json, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_trace, m)?)?;
    m.add_function(wrap_pyfunction!(run::read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(run::report_html, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::ab_json, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::sweep_points, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::run_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::run_metrics_many, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::sweep_summary, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::study_json, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::study_list, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
