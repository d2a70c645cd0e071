//! schedutil's IO-wait boost (sugov_iowait_boost / _apply / _reset): a task waking from IO
//! wait asks for a frequency boost that doubles with each back-to-back IO wake-up and
//! halves away.

use super::Sched;
use crate::machine::CpuId;
use crate::time::Ns;

/// IOWAIT_BOOST_MIN = SCHED_CAPACITY_SCALE / 8.
pub const IOWAIT_BOOST_MIN: u64 = 1024 / 8;

/// cpufreq_update_util flags.
pub const SCHED_CPUFREQ_IOWAIT: u32 = 1;

impl Sched {
    /// sugov_iowait_reset: drop a boost that has not been renewed for over a tick.
    fn sugov_iowait_reset(&mut self, cpu: CpuId, time: Ns, set_iowait_boost: bool) -> bool {
        let tick = self.cfg.tick_nsec();
        let c = &mut self.cpufreq.cpus[cpu];
        if time.saturating_sub(c.last_update) <= tick {
            return false;
        }
        c.iowait_boost = if set_iowait_boost {
            IOWAIT_BOOST_MIN
        } else {
            0
        };
        c.iowait_boost_pending = set_iowait_boost;
        true
    }

    /// sugov_iowait_boost: book an IO wake-up (flag SCHED_CPUFREQ_IOWAIT).
    pub(crate) fn sugov_iowait_boost(&mut self, cpu: CpuId, time: Ns, flags: u32) {
        let set = flags & SCHED_CPUFREQ_IOWAIT != 0;
        if self.cpufreq.cpus[cpu].iowait_boost != 0 && self.sugov_iowait_reset(cpu, time, set) {
            return;
        }
        if !set {
            return;
        }
        let c = &mut self.cpufreq.cpus[cpu];
        if c.iowait_boost_pending {
            return;
        }
        c.iowait_boost_pending = true;
        c.iowait_boost = if c.iowait_boost != 0 {
            (c.iowait_boost << 1).min(1024)
        } else {
            IOWAIT_BOOST_MIN
        };
    }

    /// sugov_iowait_apply: the boost to use now, in capacity units; decays it by half when
    /// no new IO wake-up came.
    pub(crate) fn sugov_iowait_apply(&mut self, cpu: CpuId, time: Ns, max_cap: u64) -> u64 {
        if self.cpufreq.cpus[cpu].iowait_boost == 0 || self.sugov_iowait_reset(cpu, time, false) {
            return 0;
        }
        let c = &mut self.cpufreq.cpus[cpu];
        if !c.iowait_boost_pending {
            c.iowait_boost >>= 1;
            if c.iowait_boost < IOWAIT_BOOST_MIN {
                c.iowait_boost = 0;
                return 0;
            }
        }
        c.iowait_boost_pending = false;
        (c.iowait_boost * max_cap) >> 10
    }
}
