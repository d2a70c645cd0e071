//! hwui's side of the ADPF hint session (`frames --adpf 12|14`; docs/workloads.md, frames):
//! the target it asks the power HAL for and when it sends the load-reset hint. The HAL's
//! side is userspace/objects/hint_session.rs.

use crate::time::Ns;
use crate::workload::program::PowerHal;

/// `--adpf ANDROID`: which Pixel power HAL serves the session.
pub fn parse_hal(v: &str) -> Result<PowerHal, String> {
    match v.trim() {
        "14" => Ok(PowerHal::Android14),
        "12" => Ok(PowerHal::Android12),
        other => Err(format!(
            "'{other}' is not an Android release whose power HAL is modelled"
        )),
    }
}

/// Whether hwui sends session hints (the load reset) to this HAL: from Android 13 (the
/// SessionHint API); Android 12's hwui only sets the target and reports.
pub fn sends_hints(hal: Option<PowerHal>) -> bool {
    hal == Some(PowerHal::Android14)
}

/// debug.hwui.target_cpu_time_percent's default: hwui asks for this share of the frame
/// (Properties::targetCpuTimePercentage).
pub const TARGET_CPU_TIME_PERCENT: Ns = 70;

/// HintSessionWrapper's kResetHintTimeout: a frame this long after the last one is sent
/// with CPU_LOAD_RESET.
pub const RESET_HINT_TIMEOUT_NS: Ns = 100_000_000;

/// updateTargetWorkDuration's argument: (frameDeadline − intendedVsync) × the target
/// percentage, the deadline one vsync period after the intended vsync.
pub fn target_work_ns(interval: Ns) -> Ns {
    interval * TARGET_CPU_TIME_PERCENT / 100
}

/// Whether the frame at vsync `slot` follows the previous frame's (`prev`) by more than
/// the reset timeout, so hwui sends the load-reset hint with it (the first frame too).
pub fn resets_load(prev: Option<u64>, slot: u64, interval: Ns) -> bool {
    prev.is_none_or(|p| (slot - p) * interval > RESET_HINT_TIMEOUT_NS)
}

/// When the touch that starts the frame at vsync `slot` reaches the UI thread: half a
/// period before that vsync [assumption: input arrives at a uniform phase, and the frame
/// it asks for is drawn at the next vsync].
pub fn input_at(slot: u64, interval: Ns) -> Ns {
    (slot * interval).saturating_sub(interval / 2)
}
