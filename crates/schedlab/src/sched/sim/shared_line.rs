//! Cache lines that several CPUs read and write (seed 001's rd->overutilized and
//! rd->overloaded): a read by a CPU without a valid copy, or a write by a CPU that does not
//! hold the line alone, pulls the line from the CPU that last wrote it. The transfer costs
//! the machine's `cacheline_*_ns` by distance and is charged as scheduler time. Transfers
//! of one line are serialised: a fetch that arrives while the line is still moving to
//! another CPU waits for it, so many CPUs missing at once (ticks on the same grid, a herd
//! of wake-ups) queue up as they do on a real interconnect.

use crate::machine::{CpuId, Machine};
use crate::sched::sim::overhead::Stall;
use crate::time::Ns;

/// One line's coherence state: who wrote it last and which CPUs hold a valid copy.
#[derive(Debug, Clone, Default)]
pub struct SharedLine {
    last_writer: Option<CpuId>,
    valid: Vec<u64>,
    pub reads: u64,
    pub writes: u64,
    /// Reads and writes that had to fetch the line.
    pub misses: u64,
    /// Time spent fetching, waiting included.
    pub transfer_ns: Ns,
    /// When the line's last transfer completes.
    busy_until: Ns,
}

/// Transfer time of a line from `from` to `to`: nothing within a core (shared L1/L2),
/// then by LLC, NUMA node, and beyond.
pub fn transfer_ns(m: &Machine, from: CpuId, to: CpuId) -> Ns {
    let (a, b) = (&m.cpus[from], &m.cpus[to]);
    let c = &m.costs;
    if a.core == b.core {
        0
    } else if a.llc == b.llc {
        c.cacheline_llc_ns
    } else if a.numa_node == b.numa_node {
        c.cacheline_cross_llc_ns
    } else {
        c.cacheline_cross_numa_ns
    }
}

impl SharedLine {
    fn holds(&self, cpu: CpuId) -> bool {
        self.valid
            .get(cpu / 64)
            .is_some_and(|w| w & (1 << (cpu % 64)) != 0)
    }

    fn set_valid(&mut self, cpu: CpuId) {
        if self.valid.len() <= cpu / 64 {
            self.valid.resize(cpu / 64 + 1, 0);
        }
        self.valid[cpu / 64] |= 1 << (cpu % 64);
    }

    /// The cost of fetching the line to `cpu` at `now`, if it must be fetched: the wait
    /// for transfers already under way plus its own.
    fn fetch(&mut self, m: &Machine, cpu: CpuId, now: Ns) -> Ns {
        match self.last_writer {
            Some(w) if !self.holds(cpu) => {
                self.misses += 1;
                let ns = transfer_ns(m, w, cpu);
                if ns == 0 {
                    return 0;
                }
                let done = self.busy_until.max(now) + ns;
                self.busy_until = done;
                self.transfer_ns += done - now;
                done - now
            }
            _ => 0,
        }
    }

    /// A load by `cpu` at `now`: returns the time it stalls (0 on a hit).
    pub fn read(&mut self, m: &Machine, cpu: CpuId, now: Ns) -> Ns {
        self.reads += 1;
        let ns = self.fetch(m, cpu, now);
        self.set_valid(cpu);
        ns
    }

    /// A store by `cpu` at `now`: it takes the line exclusively; every other copy is
    /// invalidated.
    pub fn write(&mut self, m: &Machine, cpu: CpuId, now: Ns) -> Ns {
        self.writes += 1;
        let alone = self.holds(cpu) && self.valid.iter().map(|w| w.count_ones()).sum::<u32>() == 1;
        let ns = if alone { 0 } else { self.fetch(m, cpu, now) };
        self.valid.iter_mut().for_each(|w| *w = 0);
        self.set_valid(cpu);
        self.last_writer = Some(cpu);
        ns
    }
}

impl crate::sched::Sched {
    /// A load of sched_domain_shared `sh` by `cpu` (has_idle_cores, nr_idle_scan,
    /// nr_busy_cpus share one line); the stall is charged to the running function.
    pub(crate) fn sd_shared_read(&mut self, cpu: CpuId, sh: usize) {
        if self.sd_shared_lines.len() <= sh {
            self.sd_shared_lines.resize(sh + 1, SharedLine::default());
        }
        let ns = self.sd_shared_lines[sh].read(&self.machine, cpu, self.now);
        self.charge_sched_time(cpu, ns, Stall::Deferred);
    }

    /// A store to sched_domain_shared `sh` by `cpu`.
    pub(crate) fn sd_shared_write(&mut self, cpu: CpuId, sh: usize) {
        if self.sd_shared_lines.len() <= sh {
            self.sd_shared_lines.resize(sh + 1, SharedLine::default());
        }
        let ns = self.sd_shared_lines[sh].write(&self.machine, cpu, self.now);
        self.charge_sched_time(cpu, ns, Stall::Deferred);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::presets::machine_from_name;

    #[test]
    fn reads_after_a_remote_write_miss_once() {
        let m = machine_from_name("epyc-9654-2s").unwrap();
        let c = m.costs;
        let mut line = SharedLine::default();
        // One access per microsecond: far apart, nothing queues.
        let mut t = 0;
        let mut at = || {
            t += 1_000;
            t
        };
        // Never written: no owner to fetch from.
        assert_eq!(line.read(&m, 0, at()), 0);
        assert_eq!(line.write(&m, 0, at()), 0, "CPU 0 already holds it alone");
        // CPU 1 (same LLC, other core) reads: one transfer, then hits.
        assert_eq!(line.read(&m, 1, at()), c.cacheline_llc_ns);
        assert_eq!(line.read(&m, 1, at()), 0);
        // CPU 192 is CPU 0's SMT sibling: same core, free.
        assert_eq!(line.read(&m, 192, at()), 0);
        // CPU 16 is in another LLC of node 0; CPU 100 on the other socket.
        assert_eq!(line.read(&m, 16, at()), c.cacheline_cross_llc_ns);
        assert_eq!(line.read(&m, 100, at()), c.cacheline_cross_numa_ns);
        // A write by CPU 1 (not alone) needs no fetch; then everyone else misses again.
        assert_eq!(line.write(&m, 1, at()), 0, "CPU 1 has a valid copy");
        assert_eq!(line.read(&m, 0, at()), c.cacheline_llc_ns);
        // The sibling read counts as a fetch too, at no cost.
        assert_eq!((line.reads, line.writes, line.misses), (7, 2, 5));
    }

    #[test]
    fn simultaneous_misses_queue_behind_each_other() {
        let m = machine_from_name("smp:8").unwrap();
        let llc = m.costs.cacheline_llc_ns;
        let mut line = SharedLine::default();
        line.write(&m, 0, 0);
        // Seven CPUs read at the same instant: the k-th waits for k transfers.
        let stalls: Vec<Ns> = (1..8).map(|c| line.read(&m, c, 10_000)).collect();
        assert_eq!(stalls, (1..8).map(|k| k * llc).collect::<Vec<_>>());
        assert_eq!(line.transfer_ns, llc * (1..8).sum::<u64>());
        // Later, the line is free again.
        line.write(&m, 3, 50_000);
        assert_eq!(line.read(&m, 4, 60_000), llc);
    }
}
