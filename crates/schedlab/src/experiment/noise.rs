//! The scenario's `[noise]`: start-time jitter of tasks and work-length jitter, both drawn
//! from the run's seed (docs/scenario.md).

use crate::engine::rng::stream;
use crate::sched::sim::noise::WorkNoise;
use crate::time::Ns;
use crate::workload::Workload;
use rand_core::RngCore;

/// Noise settings; zero means off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Noise {
    /// Each task starts up to this much later than its own delay (uniform).
    pub start_jitter_ns: Ns,
    /// Each busy period's work varies by up to ± this many parts per million.
    pub work_jitter_ppm: u32,
}

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

    /// The work-length noise source for the kernel model, if any.
    pub fn work_noise(&self, seed: u64) -> Option<WorkNoise> {
        (self.work_jitter_ppm > 0).then(|| WorkNoise::new(seed, self.work_jitter_ppm))
    }
}
