//! Run many scenarios on a pool of threads; results come back in input order, so the
//! output never depends on which thread finished first.

use super::run::run_scenario;
use super::Scenario;
use crate::error::InputError;
use crate::experiment::RunResult;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One finished run, as the callback of [`run_all`] sees it.
pub struct Finished<'a> {
    /// Index of the scenario in the input.
    pub index: usize,
    /// Runs finished so far, this one included, and the total.
    pub done: usize,
    pub total: usize,
    pub result: &'a RunResult,
}

/// Run `scenarios` on up to `jobs` threads. `on_done` is called after each run (from the
/// worker thread, so a sweep can store it at once). Stops handing out work after the first
/// error.
pub fn run_all(
    scenarios: &[Scenario],
    jobs: usize,
    on_done: &(dyn Fn(Finished) + Sync),
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
                match &r {
                    Ok(result) => on_done(Finished {
                        index: i,
                        done: done.fetch_add(1, Ordering::Relaxed) + 1,
                        total,
                        result,
                    }),
                    Err(_) => failed.store(true, Ordering::Relaxed),
                }
                slots.lock().expect("no worker panics")[i] = Some(r);
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
