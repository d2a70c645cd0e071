//! An ADPF performance hint session as a Pixel power HAL serves it (hardware/google/pixel
//! power-libperfmgr/aidl; docs/workloads.md, frames, ADPF hint session). hwui opens one for
//! a window's UI thread and RenderThread, sets a target work duration and reports each
//! frame's actual duration; the HAL turns the error into the threads' uclamp.min with a
//! PID controller, written with sched_setattr (SCHED_FLAG_UTIL_CLAMP_MIN) to every thread
//! of the session. Two generations:
//!
//! - Android 14 (lineage-21.0: PowerHintSession 2f7f40e3, Mar 2024; PowerSessionManager's
//!   votes dcf94d2c): one vote per hint type, each a uclamp.min that holds for a while; a
//!   thread gets the largest in force (0 when none is). Modelled: the PID's vote
//!   (ADPF_VOTE_DEFAULT, the PID adding its output to its last value) and the load reset's
//!   (ADPF_CPU_LOAD_RESET, a frame after idle).
//! - Android 12 (lineage-19.1: PowerHintSession 9b255f20, Oct 2021): the PID's output is
//!   the value itself (with an integral term), written when it moves by more than 5, and 0
//!   once no report has come for 20 × the reporting rate (the session is stale).
//!
//! Between hwui and the HAL sits libandroid's APerformanceHintSession, which holds reports
//! back and sends them in batches (`ReportBatcher`); the HAL's PID reads a batch through
//! its sampling windows. The HAL's own CPU time and binder latency are taken as nil.

use crate::engine::Event;
use crate::ids::TaskId;
use crate::sched::Sched;
use crate::time::Ns;
pub use crate::workload::program::PowerHal;
use std::collections::VecDeque;

/// An AdpfConfig profile of a device's powerhint.json (libperfmgr AdpfConfig): the PID
/// gains, the uclamp.min range, and the timing factors. The integral term is not kept:
/// the profiles modelled have PID_I = 0 (`getPidIHighDivI` divides by it, so the clamp
/// is unbounded and the term is zero whatever the integral).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdpfConfig {
    pub pid_po: f64,
    pub pid_pu: f64,
    pub pid_do: f64,
    pub pid_du: f64,
    pub uclamp_min_init: u32,
    pub uclamp_min_high: u32,
    pub uclamp_min_low: u32,
    /// The HAL's preferred reporting rate; twice it floors the PID vote's lifetime.
    pub reporting_rate_limit_ns: Ns,
    /// updateTargetWorkDuration scales hwui's target by this.
    pub target_time_factor: f64,
    /// A PID vote lasts target × this; the load reset's half of it.
    pub stale_time_factor: f64,
}

/// Pixel 6 (oriole) at 60 Hz: powerhint-oriole.json's REFRESH_60FPS profile
/// (device/google/raviole, as of Jan 2024): Po 2.0, Pu 1.0, I 0, Do 500, Du 0, uclamp.min
/// 162 at start, 2–480, sampling windows P 1 / I all / D 1, reporting rate 166,666,660 ns,
/// TargetTimeFactor 1.0, StaleTimeFactor 15. Its REFRESH_90FPS and REFRESH_120FPS
/// profiles differ only in the rate (111,111,110 and 83,333,330 ns) and, at 120, an
/// initial 232.
pub const PIXEL6_60FPS: AdpfConfig = AdpfConfig {
    pid_po: 2.0,
    pid_pu: 1.0,
    pid_do: 500.0,
    pid_du: 0.0,
    uclamp_min_init: 162,
    uclamp_min_high: 480,
    uclamp_min_low: 2,
    reporting_rate_limit_ns: 166_666_660,
    target_time_factor: 1.0,
    stale_time_factor: 15.0,
};

/// The profile the HAL uses at a display refresh rate: the 120, 90 or 60 FPS one, the
/// highest not above `refresh_hz` (60 below 90).
pub fn pixel6_profile(refresh_hz: u32) -> AdpfConfig {
    match refresh_hz {
        120.. => AdpfConfig {
            uclamp_min_init: 232,
            reporting_rate_limit_ns: 83_333_330,
            ..PIXEL6_60FPS
        },
        90..=119 => AdpfConfig {
            reporting_rate_limit_ns: 111_111_110,
            ..PIXEL6_60FPS
        },
        _ => PIXEL6_60FPS,
    }
}

/// A vote: `min` holds from `start` for `duration` (AdpfTypes VoteRange and its window).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Vote {
    active: bool,
    start: Ns,
    duration: Ns,
    min: u32,
}

impl Vote {
    fn in_force(&self, now: Ns) -> bool {
        self.active && self.start <= now && now < self.start + self.duration
    }

    fn end(&self) -> Ns {
        self.start + self.duration
    }
}

/// A batch's P and D outputs.
struct PidSample {
    p_out: i64,
    d_out: i64,
}

/// ns_to_100us: the PID's time unit.
fn ns_to_100us(ns: i64) -> i64 {
    ns / 100_000
}

/// The Android 12 HAL's tunables: its system properties' defaults
/// (vendor.powerhal.adpf.pid_p_over 2.0, pid_p_under 1.0, pid_i 0.001, pid_i_init 200,
/// pid_i_high 512, pid_i_low −30, pid_d_over 500, pid_d_under 0, uclamp_min high 384, low
/// 2, granularity 5, stale_timeout_factor 20) and Pixel 6's reporting rate
/// (vendor.powerhal.adpf.rate = 11,111,111 ns in device/google/raviole device-oriole.mk,
/// Android 12).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Android12Config {
    pub pid_po: f64,
    pub pid_pu: f64,
    pub pid_i: f64,
    pub pid_i_init: i64,
    pub pid_i_high: i64,
    pub pid_i_low: i64,
    pub pid_do: f64,
    pub pid_du: f64,
    pub uclamp_min_high: u32,
    pub uclamp_min_low: u32,
    pub granularity: u32,
    pub stale_time_factor: u64,
    pub rate_ns: Ns,
}

pub const PIXEL6_ANDROID12: Android12Config = Android12Config {
    pid_po: 2.0,
    pid_pu: 1.0,
    pid_i: 0.001,
    pid_i_init: 200,
    pid_i_high: 512,
    pid_i_low: -30,
    pid_do: 500.0,
    pid_du: 0.0,
    uclamp_min_high: 384,
    uclamp_min_low: 2,
    granularity: 5,
    stale_time_factor: 20,
    rate_ns: 11_111_111,
};

impl Android12Config {
    /// StaleHandler::getStaleTime's span: the rate cut to whole ms, × the factor.
    fn stale_ns(&self) -> Ns {
        self.rate_ns / 1_000_000 * 1_000_000 * self.stale_time_factor
    }

    /// The integral's limits and restart value, divided by the gain as the HAL's statics
    /// are (sPidIInit, sPidIHighLimit, sPidILowLimit).
    fn integral_limit(&self, v: i64) -> i64 {
        if self.pid_i == 0.0 {
            0
        } else {
            (v as f64 / self.pid_i) as i64
        }
    }
}

/// libandroid's APerformanceHintSession::reportActualWorkDuration: every report is kept
/// with the ones held before it, and the whole batch goes to the HAL when the rule of the
/// release lets it (frameworks/base native/android/performance_hint.cpp). `rate` is the
/// HAL's preferred rate (getHintSessionPreferredRate, read when the process creates its
/// manager).
#[derive(Debug, Clone)]
struct ReportBatcher {
    rate: Ns,
    /// mTargetDurationNanos: hwui's target, before the HAL's TargetTimeFactor.
    target: i64,
    held: Vec<i64>,
    rule: BatchRule,
}

/// The release's hold rule and the timestamps it keeps (None: 0, or long ago).
#[derive(Debug, Clone)]
enum BatchRule {
    /// Android 12L: mLastUpdateTimestamp, when the last batch went.
    Android12 { last_update: Option<Ns> },
    /// Android 13/14: mFirstTargetMetTimestamp and mLastTargetMetTimestamp.
    Android14 {
        first_target_met: Option<Ns>,
        last_target_met: Option<Ns>,
    },
}

impl ReportBatcher {
    fn new(hal: PowerHal, rate: Ns, target: Ns) -> Self {
        let rule = match hal {
            PowerHal::Android12 => BatchRule::Android12 { last_update: None },
            PowerHal::Android14 => BatchRule::Android14 {
                first_target_met: None,
                last_target_met: None,
            },
        };
        ReportBatcher {
            rate,
            target: target as i64,
            held: Vec::new(),
            rule,
        }
    }

    /// Keep `actual` and return the batch to send, or None while it is held.
    /// Android 14: a report at or over the target goes at once; under it, reports go
    /// freely for one rate after a streak of met targets starts (a streak restarts after
    /// 2 × rate without one), then at most one a rate. Android 12L: a report under the
    /// target within one rate of the last batch is held.
    fn push(&mut self, now: Ns, actual: i64) -> Option<Vec<i64>> {
        let (rate, met) = (self.rate, actual < self.target);
        self.held.push(actual);
        let hold = match &mut self.rule {
            BatchRule::Android12 { last_update } => {
                let hold = met && last_update.is_some_and(|l| now - l <= rate);
                if !hold {
                    *last_update = Some(now);
                }
                hold
            }
            BatchRule::Android14 {
                first_target_met,
                last_target_met,
            } => {
                if !met {
                    *first_target_met = None;
                    false
                } else {
                    let first = match (*first_target_met, *last_target_met) {
                        (Some(f), Some(l)) if now - l <= 2 * rate => f,
                        _ => now,
                    };
                    *first_target_met = Some(first);
                    let hold =
                        now - first > rate && last_target_met.is_some_and(|l| now - l <= rate);
                    if !hold {
                        *last_target_met = Some(now);
                    }
                    hold
                }
            }
        };
        (!hold).then(|| std::mem::take(&mut self.held))
    }
}

#[derive(Debug, Clone)]
pub struct HintSession {
    hal: PowerHal,
    /// Android 14's AdpfConfig profile (Android 12's tunables are PIXEL6_ANDROID12).
    config: AdpfConfig,
    /// The session's threads (UI thread, RenderThread).
    threads: [TaskId; 2],
    /// A floor under what the HAL writes: the top-app group's uclamp.min, which
    /// uclamp_tg_restrict applies over a task's own request (the frames stand-in).
    floor: u32,
    /// mDescriptor->targetNs (after TargetTimeFactor).
    target_ns: i64,
    previous_error: i64,
    /// pidControlVariable: the PID's uclamp.min (Android 14; Android 12's current_min).
    pid_control_variable: i32,
    /// The PID's integral (Android 12).
    integral_error: i64,
    /// The PID's value since the last report (on Android 12 it lasts until the session
    /// goes stale, so "stale" is this vote no longer in force).
    default_vote: Vote,
    reset_vote: Vote,
    /// When each frame not yet reported started (hwui's FrameStartTime): the UI thread
    /// may start the next frame while RenderThread still draws one.
    frame_starts: VecDeque<Ns>,
    /// libandroid's side of the session: the reports it holds back.
    batcher: ReportBatcher,
    /// The uclamp.min last written to the threads.
    applied: u32,
    /// The pending vote timeout (the HAL's worker thread): a vote's lapse replaces it only
    /// if earlier; the timeout that fires re-arms for the next lapse.
    timeout_at: Option<Ns>,
}

impl HintSession {
    /// A session that has run before the measured part and gone idle: its votes have
    /// lapsed and its PID stands at UclampMin_Init (setThreads' value; Android 12: stale,
    /// 0 written). [assumption]
    pub fn new(
        hal: PowerHal,
        threads: [TaskId; 2],
        target_ns: Ns,
        refresh_hz: u32,
        floor: u32,
    ) -> Self {
        let config = pixel6_profile(refresh_hz);
        HintSession {
            hal,
            config,
            integral_error: 0,
            threads,
            floor,
            // TargetTimeFactor arrived with AdpfConfig (Android 13).
            target_ns: match hal {
                PowerHal::Android14 => (target_ns as f64 * config.target_time_factor) as i64,
                PowerHal::Android12 => target_ns as i64,
            },
            previous_error: 0,
            pid_control_variable: match hal {
                PowerHal::Android14 => config.uclamp_min_init as i32,
                // Stale: 0 written.
                PowerHal::Android12 => 0,
            },
            default_vote: Vote::default(),
            reset_vote: Vote::default(),
            frame_starts: VecDeque::new(),
            batcher: ReportBatcher::new(
                hal,
                match hal {
                    PowerHal::Android14 => config.reporting_rate_limit_ns,
                    PowerHal::Android12 => PIXEL6_ANDROID12.rate_ns,
                },
                target_ns,
            ),
            // The threads start with their own request, the floor.
            applied: floor,
            timeout_at: None,
        }
    }

    /// hwui marks a frame's start (the UI thread's doFrame).
    pub fn frame_start(&mut self, now: Ns) {
        self.frame_starts.push_back(now);
    }

    /// reportActualWorkDuration of the oldest started frame, ending `now`, through
    /// libandroid's batching; a batch that goes reaches the HAL now: the load boosts end,
    /// the PID moves its variable by the error against the target, and the default vote
    /// holds it for max(target × StaleTimeFactor, 2 × the reporting rate). No frame start:
    /// nothing to report.
    pub fn report(&mut self, now: Ns) {
        let Some(start) = self.frame_starts.pop_front() else {
            return;
        };
        let actual = (now - start) as i64;
        let Some(batch) = self.batcher.push(now, actual) else {
            return;
        };
        match self.hal {
            PowerHal::Android14 => self.report14(now, &batch),
            PowerHal::Android12 => self.report12(now, &batch),
        }
    }

    /// convertWorkDurationToBoostByPid's P and D terms for a batch with sampling windows
    /// P 1 and D 1 (both generations): the last sample's error and its step from the one
    /// before (the previous error runs through the batch, as the HAL's loop, which starts
    /// at the first sample for the I window of 0, carries it); gains [P over, P under, D
    /// over, D under]. `each` sees every sample's error (Android 12's integral).
    fn pid_batch(
        &mut self,
        batch: &[i64],
        [po, pu, d_over, d_under]: [f64; 4],
        mut each: impl FnMut(i64, i64),
    ) -> PidSample {
        debug_assert!(!batch.is_empty(), "a batch holds a report");
        let dt = ns_to_100us(self.target_ns).max(1);
        let (mut error, mut derivative) = (0, 0);
        for &actual in batch {
            error = ns_to_100us(actual - self.target_ns);
            each(error, dt);
            derivative = error - self.previous_error;
            self.previous_error = error;
        }
        let p_gain = if error > 0 { po } else { pu };
        let d_gain = if derivative > 0 { d_over } else { d_under };
        PidSample {
            p_out: (p_gain * error as f64) as i64,
            d_out: (d_gain * derivative as f64 / dt as f64) as i64,
        }
    }

    /// Android 14's reportActualWorkDuration.
    fn report14(&mut self, now: Ns, batch: &[i64]) {
        let c = self.config;
        let pid = self.pid_batch(batch, [c.pid_po, c.pid_pu, c.pid_do, c.pid_du], |_, _| {});
        let next = (self.pid_control_variable as i64 + pid.p_out + pid.d_out)
            .min(c.uclamp_min_high as i64)
            .max(c.uclamp_min_low as i64);
        self.pid_control_variable = next as i32;
        // disableBoosts, then the DEFAULT vote.
        self.reset_vote.active = false;
        let lifetime = ((self.target_ns as f64 * c.stale_time_factor) as Ns)
            .max(2 * c.reporting_rate_limit_ns);
        self.default_vote = Vote {
            active: true,
            start: now,
            duration: lifetime,
            min: next as u32,
        };
    }

    /// Android 12's reportActualWorkDuration: a stale session's integral restarts at
    /// I_Init / I at least, and integrates every sample of the batch (I window 0); the
    /// PID's output, within [low, high], is written when it differs from the last written
    /// by more than the granularity, and holds until the session goes stale.
    fn report12(&mut self, now: Ns, batch: &[i64]) {
        let c = PIXEL6_ANDROID12;
        if !self.default_vote.in_force(now) {
            // Stale: setStale wrote 0.
            self.pid_control_variable = 0;
            self.integral_error = self.integral_error.max(c.integral_limit(c.pid_i_init));
        }
        let mut integral = self.integral_error;
        let (high, low) = (
            c.integral_limit(c.pid_i_high),
            c.integral_limit(c.pid_i_low),
        );
        let pid = self.pid_batch(batch, [c.pid_po, c.pid_pu, c.pid_do, c.pid_du], |e, dt| {
            integral = (integral + e * dt).min(high).max(low);
        });
        self.integral_error = integral;
        let i_out = (c.pid_i * self.integral_error as f64) as i64;
        let output = pid.p_out + i_out + pid.d_out;
        if output != 0 {
            let next = output
                .min(c.uclamp_min_high as i64)
                .max(c.uclamp_min_low as i64) as i32;
            if (self.pid_control_variable - next).unsigned_abs() > c.granularity {
                self.pid_control_variable = next;
            }
        }
        self.default_vote = Vote {
            active: true,
            start: now,
            duration: c.stale_ns(),
            min: self.pid_control_variable as u32,
        };
    }

    /// sendHint(CPU_LOAD_RESET): the PID variable rises to UclampMin_Init at least, and
    /// UclampMin_High holds for target × StaleTimeFactor / 2 or until the next report.
    pub fn load_reset(&mut self, now: Ns) {
        if self.hal == PowerHal::Android12 {
            // Session hints came with Android 13.
            return;
        }
        let c = self.config;
        self.pid_control_variable = self.pid_control_variable.max(c.uclamp_min_init as i32);
        self.reset_vote = Vote {
            active: true,
            start: now,
            duration: (self.target_ns as f64 * c.stale_time_factor / 2.0) as Ns,
            min: c.uclamp_min_high,
        };
    }

    /// getTaskVoteRange: the largest vote in force at `now`, 0 when none is.
    pub fn vote_at(&self, now: Ns) -> u32 {
        [self.default_vote, self.reset_vote]
            .iter()
            .filter(|v| v.in_force(now))
            .map(|v| v.min)
            .max()
            .unwrap_or(0)
    }

    /// The uclamp.min the threads should have at `now` if it differs from the last
    /// written (the HAL's applyUclamp), recording it as written.
    pub fn apply(&mut self, now: Ns) -> Option<u32> {
        let v = self.vote_at(now).max(self.floor);
        (v != self.applied).then(|| {
            self.applied = v;
            v
        })
    }

    /// The next moment a vote in force lapses, if any.
    pub fn next_expiry(&self, now: Ns) -> Option<Ns> {
        [self.default_vote, self.reset_vote]
            .iter()
            .filter(|v| v.in_force(now))
            .map(Vote::end)
            .min()
    }

    pub fn pid_control_variable(&self) -> i32 {
        self.pid_control_variable
    }
}

/// The HAL's applyUclamp and its worker's timeout: write session `obj`'s uclamp.min to
/// its threads if it changed, and arm a timeout at the next lapse of a vote in force.
/// The write goes straight into the tasks' requests (set_uclamp); schedutil sees it at
/// its next update, as after a sched_setattr.
pub fn sync(sched: &mut Sched, obj: usize, s: &mut HintSession) {
    let now = sched.now;
    if let Some(v) = s.apply(now) {
        for t in s.threads {
            sched.set_uclamp(t, Some(v), None);
        }
    }
    if let Some(at) = s.next_expiry(now) {
        if s.timeout_at.is_none_or(|t| at < t) {
            s.timeout_at = Some(at);
            sched.events.push(at, Event::HintTimeout(obj));
        }
    }
}

/// The HAL worker's timeout at `sched.now` (Event::HintTimeout): re-apply unless a later
/// arm superseded it.
pub fn timeout(sched: &mut Sched, obj: usize, s: &mut HintSession) {
    if s.timeout_at != Some(sched.now) {
        return;
    }
    s.timeout_at = None;
    sync(sched, obj, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Ns = 1_000_000;

    /// A frame started at `start` and reported at `end`.
    fn frame(s: &mut HintSession, start: Ns, end: Ns) {
        s.frame_start(start);
        s.report(end);
    }

    fn session() -> HintSession {
        // hwui's 60 Hz target: 70 % of the 16.67 ms frame.
        HintSession::new(PowerHal::Android14, [0, 1], 11_666_666, 60, 0)
    }

    #[test]
    fn a_late_frame_raises_the_clamp_by_the_pid_step() {
        let mut s = session();
        s.frame_start(0);
        // 20 ms against 11.67: error 83 (100-µs units), dt 116; P 2 × 83 = 166, D
        // 500 × 83 / 116 = 357 (truncated): 162 + 523, capped at 480.
        s.report(20 * MS);
        assert_eq!(s.pid_control_variable(), 480);
        assert_eq!(s.apply(20 * MS), Some(480));
        // The same error again: no derivative, P alone, still at the cap.
        frame(&mut s, 30 * MS, 50 * MS);
        assert_eq!(s.pid_control_variable(), 480);
    }

    #[test]
    fn an_early_frame_lowers_it_by_the_error() {
        let mut s = session();
        s.frame_start(0);
        // 6 ms: error −56 (truncated toward zero), Pu 1 × −56; the derivative is
        // negative and Du is 0.
        s.report(6 * MS);
        assert_eq!(s.pid_control_variable(), 162 - 56);
        // Never below UclampMin_Low.
        for i in 1..10 {
            frame(&mut s, i * 20 * MS, i * 20 * MS + MS);
        }
        assert_eq!(s.pid_control_variable(), 2);
    }

    #[test]
    fn the_pid_vote_lapses_after_twice_the_reporting_rate() {
        let mut s = session();
        frame(&mut s, 0, 10 * MS);
        let v = s.pid_control_variable() as u32;
        // target × 15 = 175 ms < 2 × 166.67 ms.
        let end = 10 * MS + 333_333_320;
        assert_eq!(s.next_expiry(10 * MS), Some(end));
        assert_eq!(s.vote_at(end - 1), v);
        assert_eq!(s.vote_at(end), 0);
    }

    #[test]
    fn a_load_reset_boosts_until_the_next_report() {
        let mut s = session();
        s.load_reset(0);
        assert_eq!(s.vote_at(0), 480);
        // target × 15 / 2 = 87.5 ms.
        assert_eq!(s.next_expiry(0), Some(87_499_995));
        frame(&mut s, 0, 5 * MS);
        // The report ends the boost; the PID's vote is what holds.
        assert_eq!(s.vote_at(5 * MS), s.pid_control_variable() as u32);
        assert!(s.vote_at(5 * MS) < 480);
    }

    #[test]
    fn android_12_writes_the_pid_output_itself_and_0_when_stale() {
        let mut s = HintSession::new(PowerHal::Android12, [0, 1], 11_666_666, 60, 0);
        s.frame_start(0);
        // Stale at the first report: the integral restarts at 200 / 0.001; 20 ms against
        // 11.67: error 83, integral 200000 + 83 × 116 = 209628 (iOut 209), P 166, D
        // 500 × 83 / 116 = 357: 732, capped at 384.
        s.report(20 * MS);
        assert_eq!(s.pid_control_variable(), 384);
        // On target: P 0, I 209 (+ 0 × 116), D 500 × (0 − 83) < 0 → Du 0: 209.
        frame(&mut s, 30 * MS, 30 * MS + 11_666_666);
        assert_eq!(s.pid_control_variable(), 209);
        // 20 × 11 ms after the last report the session is stale: 0.
        let last = 30 * MS + 11_666_666;
        assert_eq!(s.next_expiry(last), Some(last + 220 * MS));
        assert_eq!(s.vote_at(last + 220 * MS), 0);
        // No load-reset hint before Android 13.
        s.load_reset(last + 300 * MS);
        assert_eq!(s.vote_at(last + 300 * MS), 0);
    }

    #[test]
    fn android_12_keeps_a_value_within_the_granularity() {
        let mut s = HintSession::new(PowerHal::Android12, [0, 1], 11_666_666, 60, 0);
        frame(&mut s, 0, 11_666_666);
        // First report, on target: the integral's 200 alone.
        assert_eq!(s.pid_control_variable(), 200);
        // 0.3 ms over: P 6 + I (200000 + 3 × 116) × 0.001 = 200 + D 500 × 3 / 116 = 12:
        // 218, more than 5 away: written.
        frame(&mut s, 20 * MS, 20 * MS + 11_966_666);
        assert_eq!(s.pid_control_variable(), 218);
        // Back on target: 0 + 200 (integral 200348 × 0.001) + 0 = 200: written (18 away).
        frame(&mut s, 40 * MS, 40 * MS + 11_666_666);
        assert_eq!(s.pid_control_variable(), 200);
        // 0.1 ms over: 2 + 200 + 500 × 1 / 116 = 4: 206, written; again: 2 + 200 + 0 =
        // 202, within 5 of 206: kept.
        frame(&mut s, 60 * MS, 60 * MS + 11_766_666);
        assert_eq!(s.pid_control_variable(), 206);
        frame(&mut s, 80 * MS, 80 * MS + 11_766_666);
        assert_eq!(s.pid_control_variable(), 206);
    }

    /// Android 14's libandroid: under-target reports go freely for one rate (166.67 ms)
    /// after the streak starts, then one batch a rate; an over-target report goes at once
    /// with what was held, and the HAL's D term steps from the held sample before it.
    #[test]
    fn android_14_batches_reports_that_meet_the_target() {
        const T: Ns = 16_666_667;
        let mut s = session();
        // 11.5 ms against 11.67: error −1 a report, P −1, D 0.
        for k in 0..19 {
            frame(&mut s, k * T, k * T + 11_500_000);
            // Sent: k = 0..9 (k × T ≤ the rate after the streak's first report).
            let sent = k.min(9) + 1;
            assert_eq!(s.pid_control_variable(), 162 - sent as i32, "k = {k}");
        }
        // 10 T after the last batch: the ten held reports go, the last one's P.
        frame(&mut s, 19 * T, 19 * T + 11_500_000);
        assert_eq!(s.pid_control_variable(), 151);
        // 11.0 ms (error −6): held.
        frame(&mut s, 20 * T, 20 * T + 11_000_000);
        assert_eq!(s.pid_control_variable(), 151);
        // 11.8 ms (error 1): over the target, sent with the held one: P 2 × 1, D 500 ×
        // (1 − (−6)) / 116 = 30; with the held sample left out, D would be 8.
        frame(&mut s, 21 * T, 21 * T + 11_800_000);
        assert_eq!(s.pid_control_variable(), 151 + 2 + 30);
    }

    /// Android 12L's libandroid: an under-target report within one rate (11.1 ms) of the
    /// last batch is held, and goes with the next.
    #[test]
    fn android_12_holds_a_report_under_the_target_within_the_rate() {
        let mut s = HintSession::new(PowerHal::Android12, [0, 1], 11_666_666, 60, 0);
        frame(&mut s, 0, 11_500_000);
        // Stale: integral 200000 − 116, I 199, P −1, D 0.
        assert_eq!(s.pid_control_variable(), 198);
        let stale_at = 11_500_000 + 220 * MS;
        assert_eq!(s.next_expiry(11_500_000), Some(stale_at));
        // 8 ms later: held, so the session's stale time does not move.
        frame(&mut s, 8 * MS, 19_500_000);
        assert_eq!(s.next_expiry(19_500_000), Some(stale_at));
        // 16 ms after the last batch: both go.
        frame(&mut s, 16 * MS, 27_500_000);
        assert_eq!(s.next_expiry(27_500_000), Some(27_500_000 + 220 * MS));
        assert_eq!(s.pid_control_variable(), 198);
    }

    #[test]
    fn the_floor_stays_under_every_vote() {
        let mut s = HintSession::new(PowerHal::Android14, [0, 1], 11_666_666, 60, 125);
        assert_eq!(s.apply(0), None);
        for i in 1..10 {
            frame(&mut s, i * 20 * MS, i * 20 * MS + MS);
        }
        assert_eq!(s.apply(200 * MS), None, "2 is under the floor of 125");
    }
}
