//! The touch boost of Pixel phones (`frames --input-boost`; docs/workloads.md, frames): each
//! touch event reaches PowerManagerService's native userActivity, which, at most once per
//! 100 ms per event type, calls the power HAL's setBoost(INTERACTION, 0); the Pixel power
//! HAL (hardware/google/pixel power-libperfmgr, InteractionHandler) raises the CPU
//! policies' scaling_min_freq to the device's INTERACTION values and drops them when the
//! display goes idle or when its wait times out.

use super::model::{EpisodeKind, EpisodeSlots};
use crate::time::Ns;

const MS: Ns = 1_000_000;

/// MIN_TIME_BETWEEN_USERACTIVITIES (com_android_server_power_PowerManagerService.cpp).
pub const USER_ACTIVITY_THROTTLE_NS: Ns = 100 * MS;
/// InteractionHandler's defaults (vendor.powerhal.interaction.min / .max / .offset and
/// vendor.powerhal.disp.idle_wait): a boost lasts clamp(duration + 650, 1400, 5650) ms;
/// the framework's duration is 0, so 1400 ms.
const INTERACTION_MIN_MS: Ns = 1400;
const INTERACTION_MAX_MS: Ns = 5650;
const INTERACTION_OFFSET_MS: Ns = 650;
const DISP_IDLE_WAIT_NS: Ns = 100 * MS;
/// How long a fling's finger is down: UiAutomator's fling swipe (0.1 s, as the
/// delayed-dequeue study's notes lay it out). [assumption for other drivers of a fling]
pub const FLING_TOUCH_NS: Ns = 100 * MS;

/// InteractionHandler::Acquire's duration for the framework's setBoost(INTERACTION, 0).
fn interaction_ns() -> Ns {
    INTERACTION_OFFSET_MS.clamp(INTERACTION_MIN_MS, INTERACTION_MAX_MS) * MS
}

/// When userActivity calls setBoost: a fling touches for FLING_TOUCH_NS at its start, a
/// scroll for its whole length; within a touch, the first event and then every event
/// 100 ms or more after the last call passes the throttle (the finger-up included).
pub fn acquires(layout: &[EpisodeSlots], interval: Ns) -> Vec<Ns> {
    let mut out = Vec::new();
    let mut last: Option<Ns> = None;
    for e in layout {
        let start = e.first_slot * interval;
        let touch = match e.kind {
            EpisodeKind::Idle => continue,
            EpisodeKind::Fling => FLING_TOUCH_NS.min(e.slots * interval),
            EpisodeKind::Scroll => e.slots * interval,
        };
        let end = start + touch;
        let mut t = match last {
            Some(l) if l + USER_ACTIVITY_THROTTLE_NS > start => l + USER_ACTIVITY_THROTTLE_NS,
            _ => start,
        };
        while t <= end {
            out.push(t);
            last = Some(t);
            t += USER_ACTIVITY_THROTTLE_NS;
        }
    }
    out
}

/// Whether the display has nothing to show at `t`: no frame is rendered outside fling
/// and scroll episodes. [assumption: the panel reports idle as rendering stops]
fn display_idle_at(layout: &[EpisodeSlots], interval: Ns, t: Ns) -> bool {
    !layout.iter().any(|e| {
        e.kind != EpisodeKind::Idle
            && (e.first_slot * interval..(e.first_slot + e.slots) * interval).contains(&t)
    })
}

/// The first moment at or after `t` when the display is idle.
fn next_idle(layout: &[EpisodeSlots], interval: Ns, t: Ns) -> Ns {
    let mut at = t;
    for e in layout {
        let (s, end) = (e.first_slot * interval, (e.first_slot + e.slots) * interval);
        if e.kind != EpisodeKind::Idle && s <= at && at < end {
            at = end;
        }
    }
    at
}

/// The boost windows [on, off): InteractionHandler takes the hint at an acquire when
/// idle; its routine waits 100 ms (a new acquire restarts the wait), releases at once if
/// the display is then idle, else when it goes idle or `interaction_ns` after that wait.
pub fn windows(layout: &[EpisodeSlots], interval: Ns) -> Vec<(Ns, Ns)> {
    let acq = acquires(layout, interval);
    let mut out = Vec::new();
    let mut i = 0;
    while i < acq.len() {
        let on = acq[i];
        let off = loop {
            let waited = acq[i] + DISP_IDLE_WAIT_NS;
            let release = if display_idle_at(layout, interval, waited) {
                waited
            } else {
                next_idle(layout, interval, waited).min(waited + interaction_ns())
            };
            match acq.get(i + 1) {
                Some(&next) if next <= release => i += 1,
                _ => break release,
            }
        };
        out.push((on, off));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::frames::model::{lay_out, parse_episodes};

    const INTERVAL: Ns = 16_666_667;

    fn windows_of(spec: &str) -> Vec<(Ns, Ns)> {
        windows(&lay_out(&parse_episodes(spec).unwrap(), INTERVAL), INTERVAL)
    }

    #[test]
    fn a_long_fling_is_boosted_for_its_first_1_6_s() {
        // Finger down at 2 s and up 0.1 s later: two acquires; the second wait ends at
        // 2.2 s with the fling still drawing, so the 1.4 s timeout ends it at 3.6 s.
        let start = 120 * INTERVAL; // 2 s of idle is 120 slots at 60 Hz
        assert_eq!(
            windows_of("idle:2s,fling:2.55s,idle:2s"),
            vec![(start, start + 1_600 * MS)]
        );
    }

    #[test]
    fn a_short_fling_is_released_as_the_display_goes_idle() {
        // 0.5 s of fling (30 slots): idle at 2.5 s, within the timeout.
        let start = 120 * INTERVAL;
        assert_eq!(
            windows_of("idle:2s,fling:0.5s,idle:2s"),
            vec![(start, start + 30 * INTERVAL)]
        );
    }

    #[test]
    fn a_scroll_keeps_the_boost_until_100_ms_after_the_finger_lifts() {
        // Touching from 1 s to 2 s: acquires every 100 ms, the last at the end; idle
        // when the wait after it ends, so released then.
        let (start, end) = (60 * INTERVAL, 120 * INTERVAL);
        let w = windows_of("idle:1s,scroll:1s,idle:1s");
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, start);
        let last = start + (end - start) / USER_ACTIVITY_THROTTLE_NS * USER_ACTIVITY_THROTTLE_NS;
        assert_eq!(w[0].1, last + DISP_IDLE_WAIT_NS);
    }

    #[test]
    fn no_touch_no_boost() {
        let idle = EpisodeSlots {
            kind: EpisodeKind::Idle,
            first_slot: 0,
            slots: 180,
        };
        assert!(windows(&[idle], INTERVAL).is_empty());
    }
}
