//! rt-app JSON front end (spec workloads §3). STUB: being written.

use super::Workload;
use crate::error::InputError;

/// Parse an rt-app JSON document into a workload. `origin` is the file name for errors.
pub fn parse_rtapp(_text: &str, origin: &str) -> Result<Workload, InputError> {
    Err(InputError::new(origin, "rt-app support not built yet"))
}
