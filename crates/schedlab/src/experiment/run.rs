//! Running a scenario end to end. STUB.

use super::Scenario;
use crate::error::InputError;
use crate::metrics::RunResult;

/// Build machine, features and workload from the scenario, simulate, and return the result
/// document. Input problems come back as `InputError`; the simulation itself never fails.
pub fn run_scenario(_scenario: &Scenario) -> Result<RunResult, InputError> {
    Err(InputError::new("run", "not built yet"))
}
