//! Run many scenarios on a pool of threads; results come back in input order, so the
//! output never depends on which thread finished first.

use super::run::run_scenario;
use super::Scenario;
use crate::error::InputError;
use crate::metrics::RunResult;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Run `scenarios` on up to `jobs` threads. `progress(done, total)` is called after each
/// run (from worker threads). Stops handing out work after the first error.
pub fn run_all(
    scenarios: &[Scenario],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<RunResult>, InputError> {
    let total = scenarios.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<RunResult, InputError>>>> =
        Mutex::new((0..total).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, total.max(1)) {
            s.spawn(|| loop {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return;
                }
                let r = run_scenario(&scenarios[i]);
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                slots.lock().expect("no worker panics")[i] = Some(r);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            });
        }
    });
    let slots = slots.into_inner().expect("no worker panics");
    let mut out = Vec::with_capacity(total);
    for r in slots {
        match r {
            Some(Ok(r)) => out.push(r),
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    if out.len() != total {
        // Only possible after an error, which returned above in input order.
        return Err(InputError::new("runs", "a run did not complete"));
    }
    Ok(out)
}
