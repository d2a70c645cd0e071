//! The progress line of a single `schedlab run`: once the run has taken
//! [`SHOW_AFTER`] of wall time, and only when stderr is a terminal, one line redrawn in
//! place with the simulated time reached and a wall-clock ETA; erased when the run ends.

use schedlab::time::{Ns, NSEC_PER_SEC};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// A run shorter than this prints no progress.
pub const SHOW_AFTER: Duration = Duration::from_secs(2);
/// The line is redrawn at most this often.
const REDRAW: Duration = Duration::from_millis(250);

pub struct Progress {
    started: Instant,
    last: Option<Instant>,
    shown: bool,
}

impl Progress {
    /// A progress line if stderr is a terminal.
    pub fn for_stderr() -> Option<Progress> {
        std::io::stderr().is_terminal().then(|| Progress {
            started: Instant::now(),
            last: None,
            shown: false,
        })
    }

    /// Simulated time `now` of `stop` reached after `events` events.
    pub fn update(&mut self, now: Ns, stop: Ns, events: u64) {
        let t = Instant::now();
        let elapsed = t - self.started;
        if elapsed < SHOW_AFTER || self.last.is_some_and(|l| t - l < REDRAW) {
            return;
        }
        self.last = Some(t);
        self.shown = true;
        let line = line(now, stop, events, elapsed);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K{line}");
        let _ = err.flush();
    }

    /// Erase the line (the report follows on stderr).
    pub fn finish(&self) {
        if self.shown {
            eprint!("\r\x1b[K");
        }
    }
}

/// `simulated 12.000 s of 60.000 s (20%), 1.2 M events, ETA 35 s`.
pub fn line(now: Ns, stop: Ns, events: u64, elapsed: Duration) -> String {
    let frac = if stop == 0 {
        1.0
    } else {
        now as f64 / stop as f64
    };
    let eta = if frac > 0.0 {
        format!("ETA {:.0} s", elapsed.as_secs_f64() * (1.0 - frac) / frac)
    } else {
        "ETA ?".to_string()
    };
    format!(
        "schedlab: simulated {:.3} s of {:.3} s ({:.0}%), {:.1} M events, {eta}",
        now as f64 / NSEC_PER_SEC as f64,
        stop as f64 / NSEC_PER_SEC as f64,
        frac * 100.0,
        events as f64 / 1e6
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_simulated_time_and_an_eta() {
        let l = line(
            12 * NSEC_PER_SEC,
            60 * NSEC_PER_SEC,
            1_234_567,
            Duration::from_secs(10),
        );
        assert_eq!(
            l,
            "schedlab: simulated 12.000 s of 60.000 s (20%), 1.2 M events, ETA 40 s"
        );
    }
}
