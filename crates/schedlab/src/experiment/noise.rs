//! The scenario's `[noise]`: start-time jitter of tasks, work-length jitter and per-CPU
//! housekeeping (kernel threads' short runs), all drawn from the run's seed
//! (docs/scenario.md).

use crate::engine::rng::stream;
use crate::sched::sim::noise::WorkNoise;
use crate::time::Ns;
use crate::workload::{Op, TaskSpec, Workload};
use rand_core::RngCore;

/// Noise settings; zero means off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Noise {
    /// Each task starts up to this much later than its own delay (uniform).
    pub start_jitter_ns: Ns,
    /// Each busy period's work varies by up to ± this many parts per million.
    pub work_jitter_ppm: u32,
    /// Housekeeping wake-ups per CPU per second (kworker, rcu, …); 0 = none.
    pub housekeeping_hz: u32,
    /// How long each housekeeping run lasts, reference ns (0 = the 20 µs default).
    pub housekeeping_run_ns: Ns,
    /// Timer-interrupt latency: each sleep's wake-up comes up to this much later
    /// (uniform); 0 = none.
    pub timer_jitter_ns: Ns,
}

/// A housekeeping run when the scenario gives no length: an assumption (kernel threads'
/// runs on an idle host are a few to tens of µs), stated in docs/scenario.md.
pub const HOUSEKEEPING_RUN_DEFAULT_NS: Ns = 20_000;

/// Distinct sleep lengths each housekeeping thread cycles through.
const HOUSEKEEPING_STEPS: usize = 64;

impl Noise {
    pub fn is_off(&self) -> bool {
        *self == Noise::default()
    }

    /// Delay every task's start by a uniform draw in [0, start_jitter).
    pub fn apply_start_jitter(&self, seed: u64, workload: &mut Workload) {
        if self.start_jitter_ns == 0 {
            return;
        }
        let mut rng = stream(seed, "start_jitter");
        for t in &mut workload.tasks {
            t.delay_ns += rng.next_u64() % self.start_jitter_ns;
        }
    }

    /// One kernel-thread-like task per CPU, pinned there, in the root group: it wakes
    /// `housekeeping_hz` times a second on average (sleeps drawn uniformly in
    /// [0, 2/hz), integer arithmetic so every machine draws the same) and runs
    /// `housekeeping_run` each time. None when off.
    pub fn housekeeping(&self, seed: u64, nr_cpus: usize) -> Option<Workload> {
        if self.housekeeping_hz == 0 {
            return None;
        }
        let run = match self.housekeeping_run_ns {
            0 => HOUSEKEEPING_RUN_DEFAULT_NS,
            ns => ns,
        };
        let span = 2 * 1_000_000_000 / self.housekeeping_hz as u64;
        let mut rng = stream(seed, "housekeeping");
        let mut w = Workload::default();
        for cpu in 0..nr_cpus {
            let mut program = vec![Op::LoopBegin { count: None }];
            for _ in 0..HOUSEKEEPING_STEPS {
                program.push(Op::Sleep {
                    ns: rng.next_u64() % span,
                });
                program.push(Op::Run { work_ns: run });
            }
            program.push(Op::LoopEnd);
            let comm = format!("kworker/{cpu}:1");
            w.cgroups.insert(w.tasks.len(), "/".into());
            w.tasks
                .push(TaskSpec::new(comm, program).cpus(Some(vec![cpu])));
        }
        Some(w)
    }

    /// The timer-latency noise source for the kernel model, if any.
    pub fn timer_noise(&self, seed: u64) -> Option<crate::sched::sim::noise::TimerNoise> {
        (self.timer_jitter_ns > 0)
            .then(|| crate::sched::sim::noise::TimerNoise::new(seed, self.timer_jitter_ns))
    }

    /// The work-length noise source for the kernel model, if any.
    pub fn work_noise(&self, seed: u64) -> Option<WorkNoise> {
        (self.work_jitter_ppm > 0).then(|| WorkNoise::new(seed, self.work_jitter_ppm))
    }
}
