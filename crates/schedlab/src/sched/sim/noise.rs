//! Run-to-run variation: the seed-driven noise a real machine adds to every measurement
//! (cache state, interrupts, frequency ramp timing). Off by default so that a run is exact;
//! `ab` and `sweep` need it on for seeds to differ (docs/scenario.md `[noise]`).

use crate::time::Ns;
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

/// Work-length noise: each busy period's reference work is scaled by a factor drawn
/// uniformly from [1 − ppm/10⁶, 1 + ppm/10⁶].
pub struct WorkNoise {
    rng: ChaCha8Rng,
    ppm: u64,
}

impl WorkNoise {
    pub fn new(seed: u64, ppm: u32) -> WorkNoise {
        WorkNoise {
            rng: crate::engine::rng::stream(seed, "work_jitter"),
            ppm: ppm as u64,
        }
    }

    /// `ns` scaled by one draw; never below 1 ns when `ns` was positive.
    pub fn jitter(&mut self, ns: Ns) -> Ns {
        if self.ppm == 0 || ns == 0 {
            return ns;
        }
        // u uniform in [0, 2·ppm]; factor = 1 + (u − ppm)/10⁶.
        let u = self.rng.next_u64() % (2 * self.ppm + 1);
        let factor = 1_000_000 - self.ppm + u;
        // The same quotient as the u128 one; u64 division by a constant is a multiply,
        // where u128's is a library call at every busy period (1 % of a hackbench run).
        let scaled = match ns.checked_mul(factor) {
            Some(p) => p / 1_000_000,
            None => (ns as u128 * factor as u128 / 1_000_000) as Ns,
        };
        scaled.max(1)
    }
}

/// Timer-interrupt latency: how much later than its expiry a sleeper's hrtimer wakes it
/// (interrupt entry, a vCPU's exit from halt), drawn uniformly from [0, max).
pub struct TimerNoise {
    rng: ChaCha8Rng,
    max_ns: Ns,
}

impl TimerNoise {
    pub fn new(seed: u64, max_ns: Ns) -> TimerNoise {
        TimerNoise {
            rng: crate::engine::rng::stream(seed, "timer_jitter"),
            max_ns,
        }
    }

    /// One draw of the extra latency.
    pub fn delay(&mut self) -> Ns {
        if self.max_ns == 0 {
            return 0;
        }
        self.rng.next_u64() % self.max_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_in_its_band_and_is_reproducible() {
        let mut a = WorkNoise::new(3, 20_000);
        let mut b = WorkNoise::new(3, 20_000);
        let xs: Vec<Ns> = (0..1000).map(|_| a.jitter(1_000_000)).collect();
        let ys: Vec<Ns> = (0..1000).map(|_| b.jitter(1_000_000)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&x| (980_000..=1_020_000).contains(&x)));
        let mean = xs.iter().sum::<Ns>() as f64 / 1000.0;
        assert!((mean - 1e6).abs() < 2_000.0, "mean {mean}");
        assert_eq!(WorkNoise::new(3, 0).jitter(777), 777);
    }

    /// The u64 quotient equals the u128 one, also where ns · factor passes u64 (lengths
    /// above about 9,000 s take the wide path).
    #[test]
    fn jitter_is_the_wide_quotient_at_every_length() {
        let ppm = 20_000u64;
        let mut noise = WorkNoise::new(9, ppm as u32);
        let mut draws = crate::engine::rng::stream(9, "work_jitter");
        for ns in [
            1,
            49,
            999_999,
            1_000_001,
            9_000_000_000_000,
            20_000_000_000_000,
            u64::MAX / 2,
        ] {
            for _ in 0..200 {
                let u = draws.next_u64() % (2 * ppm + 1);
                let wide = ns as u128 * (1_000_000 - ppm + u) as u128 / 1_000_000;
                assert_eq!(noise.jitter(ns), (wide as Ns).max(1), "ns {ns}");
            }
        }
    }
}
