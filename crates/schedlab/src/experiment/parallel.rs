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
    run_each(scenarios, jobs, on_done, &|_, r| Ok(r))
}

/// As [`run_all`], but each result is handed to `keep` on its worker thread as soon as
/// `on_done` has seen it, and only what `keep` returns is held until the end: a campaign
/// of thousands of runs (or of runs with thousands of tasks) keeps its metrics, not every
/// result document at once. An error from `keep` stops the campaign as a failed run does.
pub fn run_each<T: Send>(
    scenarios: &[Scenario],
    jobs: usize,
    on_done: &(dyn Fn(Finished) + Sync),
    keep: &(dyn Fn(usize, RunResult) -> Result<T, InputError> + Sync),
) -> Result<Vec<T>, InputError> {
    let total = scenarios.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<T, InputError>>>> =
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
                let kept = run_scenario(&scenarios[i]).and_then(|result| {
                    on_done(Finished {
                        index: i,
                        done: done.fetch_add(1, Ordering::Relaxed) + 1,
                        total,
                        result: &result,
                    });
                    keep(i, result)
                });
                if kept.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                slots.lock().expect("no worker panics")[i] = Some(kept);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(seed: u64) -> Scenario {
        Scenario {
            seed,
            machine: "smp:2".into(),
            duration_ns: Some(5_000_000),
            workloads: vec!["spinner -n 3 --sleep 1ms --work 1ms".into()],
            ..Scenario::default()
        }
    }

    #[test]
    fn kept_values_come_back_in_input_order() {
        let scenarios: Vec<Scenario> = (1..=6).map(scenario).collect();
        let kept = run_each(&scenarios, 3, &|_| {}, &|i, r| {
            Ok((i, r.perf.context_switches))
        })
        .unwrap();
        let all = run_all(&scenarios, 1, &|_| {}).unwrap();
        let want: Vec<(usize, u64)> = all
            .iter()
            .enumerate()
            .map(|(i, r)| (i, r.perf.context_switches))
            .collect();
        assert_eq!(kept, want);
    }

    #[test]
    fn an_error_from_keep_ends_the_campaign_with_it() {
        let scenarios: Vec<Scenario> = (1..=4).map(scenario).collect();
        let e = run_each(&scenarios, 2, &|_| {}, &|i, _| {
            if i == 2 {
                Err(InputError::new("runs", "cannot store run 2"))
            } else {
                Ok(i)
            }
        })
        .unwrap_err();
        assert!(e.to_string().contains("cannot store run 2"), "{e}");
    }
}
