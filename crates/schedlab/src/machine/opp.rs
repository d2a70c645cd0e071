//! Operating points and idle states, and the DT energy-model formula that turns an OPP's
//! voltage and frequency into power.

use crate::time::Ns;
use serde::Serialize;

/// One operating performance point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Opp {
    pub khz: u32,
    /// Supply voltage, µV (opp-microvolt).
    pub uv: u32,
    /// Power of one busy CPU at this point, µW.
    pub power_uw: u64,
}

/// A cpuidle state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IdleState {
    pub name: String,
    /// exit-latency: from the wake-up to the CPU running again.
    pub exit_latency_ns: Ns,
    /// min-residency: the shortest idle period for which the state is worth entering.
    pub target_residency_ns: Ns,
    /// Power while in the state, µW (the kernel's energy model has none; see the preset).
    pub power_uw: u64,
}

/// `_get_power` of drivers/opp/of.c: P[µW] = C · mV² · MHz / 10⁶ with mV truncated from µV
/// and C the DT's dynamic-power-coefficient.
pub fn of_dynamic_power_uw(coefficient: u64, khz: u32, uv: u32) -> u64 {
    let mv = (uv / 1000) as u64;
    let mhz = (khz / 1000) as u64;
    coefficient * mv * mv * mhz / 1_000_000
}

/// Build an OPP table from (MHz, µV) pairs and a dynamic-power coefficient.
pub fn opp_table(coefficient: u64, points: &[(u32, u32)]) -> Vec<Opp> {
    points
        .iter()
        .map(|&(mhz, uv)| Opp {
            khz: mhz * 1000,
            uv,
            power_uw: of_dynamic_power_uw(coefficient, mhz * 1000, uv),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dt_power_formula_matches_the_spec_table() {
        // A55 (C = 70) at 1803 MHz, 906.25 mV → 906 mV: ⌊70·906²·1803/10⁶⌋ = 103,597 µW.
        assert_eq!(of_dynamic_power_uw(70, 1_803_000, 906_250), 103_597);
        // X1 (C = 650) at 2802 MHz, 1056.25 mV → 2,031.0 mW (worked out by hand: 2031.0).
        assert_eq!(of_dynamic_power_uw(650, 2_802_000, 1_056_250), 2_030_997);
        // A76 (C = 284) at 400 MHz, 506.25 mV → 29.1 mW.
        assert_eq!(of_dynamic_power_uw(284, 400_000, 506_250), 29_085);
    }
}
