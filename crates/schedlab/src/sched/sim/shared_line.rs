//! Cache lines that several CPUs read and write (seed 001's rd->overutilized and
//! rd->overloaded, each LLC's sched_domain_shared): a read by a CPU without a valid copy,
//! or a write by a CPU that does not hold the line alone, pulls the line from the nearest
//! cache that has it. The transfer costs the machine's `cacheline_*_ns` by distance and is
//! charged as scheduler time.
//!
//! Where a copy comes from follows the cache hierarchy: SMT siblings share the core's
//! L1/L2, so a copy one thread fetched serves its siblings for free; a core whose LLC
//! already has the line gets it inside the LLC (a Zen CCX's L3 keeps shadow tags of its
//! cores' L2s and forwards from them without the fabric); otherwise the line crosses the
//! interconnect from the CPU that last wrote it. Transfers across the interconnect are
//! serialised per line (its home agent takes one request at a time, for
//! `cacheline_occupancy_pct` of the transfer's latency: 100 by default), and so are the
//! transfers inside one LLC, which also wait for the line to arrive there: many CPUs
//! missing at once (ticks on the same grid, a herd of wake-ups) queue up, but LLCs do not
//! queue behind each other's local copies.
//!
//! A load that misses stalls its CPU until the line arrives. A plain store (WRITE_ONCE)
//! retires into the store buffer and the CPU goes on while the line is fetched (x86
//! TSO and POWER both buffer stores), so it stalls only `cacheline_store_stall_pct` of
//! the fetch (default 0, an assumption; 100 waits as a load does); an atomic
//! read-modify-write (atomic_inc) must own the line and stalls for all of it. Either
//! way the line moves: the transfer occupies the queue and invalidates the copies.

use crate::machine::{CpuId, Machine};
use crate::sched::sim::overhead::Stall;
use crate::time::Ns;

/// A set of small indices (CPUs, cores or LLCs) as bit words, grown on demand.
#[derive(Debug, Clone, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn insert(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn clear(&mut self) {
        self.0.iter_mut().for_each(|w| *w = 0);
    }

    fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

/// One line's coherence state: who wrote it last and which CPUs (and so which cores and
/// LLCs) hold a valid copy.
#[derive(Debug, Clone, Default)]
pub struct SharedLine {
    last_writer: Option<CpuId>,
    valid: Bits,
    valid_cores: Bits,
    valid_llcs: Bits,
    pub reads: u64,
    pub writes: u64,
    /// Reads and writes that had to fetch the line.
    pub misses: u64,
    /// Time CPUs stalled on fetches, waiting included (a plain store's hidden part not).
    pub transfer_ns: Ns,
    /// When the line takes its next request across the interconnect (the last transfer's
    /// start plus its occupied share).
    busy_until: Ns,
    /// Per LLC: when a transfer inside it may start (the line has arrived there and the
    /// last local transfer has released it).
    llc_busy_until: Vec<Ns>,
}

/// How a store reaches the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// WRITE_ONCE: buffered; the CPU waits for `cacheline_store_stall_pct` of the fetch.
    Plain,
    /// atomic_inc / atomic_dec: the CPU waits until it owns the line.
    Atomic,
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
        self.valid.has(cpu)
    }

    fn set_valid(&mut self, m: &Machine, cpu: CpuId) {
        self.valid.insert(cpu);
        self.valid_cores.insert(m.cpus[cpu].core);
        self.valid_llcs.insert(m.cpus[cpu].llc);
    }

    /// The time a transfer into or inside `llc` may start: after the one under way there.
    fn llc_busy(&mut self, llc: usize) -> &mut Ns {
        if self.llc_busy_until.len() <= llc {
            self.llc_busy_until.resize(llc + 1, 0);
        }
        &mut self.llc_busy_until[llc]
    }

    /// The cost of fetching the line to `cpu` at `now`, if it must be fetched: the wait
    /// for transfers already under way on its path plus its own.
    fn fetch(&mut self, m: &Machine, cpu: CpuId, now: Ns) -> Ns {
        let Some(writer) = self.last_writer else {
            return 0;
        };
        if self.holds(cpu) {
            return 0;
        }
        self.misses += 1;
        let (core, llc) = (m.cpus[cpu].core, m.cpus[cpu].llc);
        if self.valid_cores.has(core) {
            return 0;
        }
        // The next request for the line is taken after this share of a transfer.
        let occupied = |ns: Ns| ns * Ns::from(m.costs.cacheline_occupancy_pct) / 100;
        let done = if self.valid_llcs.has(llc) {
            // From another core of the LLC, once the line has arrived there.
            let slot = self.llc_busy(llc);
            let start = (*slot).max(now);
            *slot = start + occupied(m.costs.cacheline_llc_ns);
            start + m.costs.cacheline_llc_ns
        } else {
            // Across the interconnect from the last writer; the LLC's own later fetches
            // wait for it to arrive.
            let ns = transfer_ns(m, writer, cpu);
            let start = self.busy_until.max(now);
            self.busy_until = start + occupied(ns);
            let slot = self.llc_busy(llc);
            *slot = (*slot).max(start + ns);
            start + ns
        };
        done - now
    }

    /// A load by `cpu` at `now`: returns the time it stalls (0 on a hit).
    pub fn read(&mut self, m: &Machine, cpu: CpuId, now: Ns) -> Ns {
        self.reads += 1;
        let ns = self.fetch(m, cpu, now);
        self.set_valid(m, cpu);
        self.transfer_ns += ns;
        ns
    }

    /// A store by `cpu` at `now`: it takes the line exclusively; every other copy is
    /// invalidated (the invalidations themselves cost nothing here). Returns the time the
    /// CPU stalls, which for a plain store is only the part the store buffer does not hide.
    pub fn write(&mut self, m: &Machine, cpu: CpuId, now: Ns, store: Store) -> Ns {
        self.writes += 1;
        let alone = self.holds(cpu) && self.valid.count() == 1;
        let fetch = if alone { 0 } else { self.fetch(m, cpu, now) };
        let ns = match store {
            Store::Atomic => fetch,
            Store::Plain => fetch * Ns::from(m.costs.cacheline_store_stall_pct) / 100,
        };
        self.transfer_ns += ns;
        self.valid.clear();
        self.valid_cores.clear();
        self.valid_llcs.clear();
        self.set_valid(m, cpu);
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
    pub(crate) fn sd_shared_write(&mut self, cpu: CpuId, sh: usize, store: Store) {
        if self.sd_shared_lines.len() <= sh {
            self.sd_shared_lines.resize(sh + 1, SharedLine::default());
        }
        let ns = self.sd_shared_lines[sh].write(&self.machine, cpu, self.now, store);
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
        assert_eq!(
            line.write(&m, 0, at(), Store::Atomic),
            0,
            "CPU 0 already holds it alone"
        );
        // CPU 1 (same LLC, other core) reads: one transfer, then hits.
        assert_eq!(line.read(&m, 1, at()), c.cacheline_llc_ns);
        assert_eq!(line.read(&m, 1, at()), 0);
        // CPU 192 is CPU 0's SMT sibling: same core, free.
        assert_eq!(line.read(&m, 192, at()), 0);
        // CPU 16 is in another LLC of node 0; CPU 100 on the other socket.
        assert_eq!(line.read(&m, 16, at()), c.cacheline_cross_llc_ns);
        assert_eq!(line.read(&m, 100, at()), c.cacheline_cross_numa_ns);
        // A write by CPU 1 (not alone) needs no fetch; then everyone else misses again.
        assert_eq!(
            line.write(&m, 1, at(), Store::Atomic),
            0,
            "CPU 1 has a valid copy"
        );
        assert_eq!(line.read(&m, 0, at()), c.cacheline_llc_ns);
        // The sibling read counts as a fetch too, at no cost.
        assert_eq!((line.reads, line.writes, line.misses), (7, 2, 5));
    }

    /// After a store, each LLC fetches the line across the interconnect once; its other
    /// cores get it inside the LLC (after it has arrived there), SMT siblings for free,
    /// and LLCs do not queue behind each other's local transfers.
    #[test]
    fn a_copy_in_the_core_or_the_llc_serves_the_next_reader() {
        let m = machine_from_name("epyc-9654-2s").unwrap();
        let c = m.costs;
        let mut line = SharedLine::default();
        line.write(&m, 0, 0, Store::Atomic);
        let t = 10_000;
        // CPU 16 (LLC 2 of socket 0) misses across LLCs; CPU 17 (its LLC, another core)
        // at the same instant waits for that arrival, then one LLC-local transfer.
        assert_eq!(line.read(&m, 16, t), c.cacheline_cross_llc_ns);
        assert_eq!(
            line.read(&m, 17, t),
            c.cacheline_cross_llc_ns + c.cacheline_llc_ns
        );
        // CPU 16's SMT sibling (208) shares its core's copy.
        assert_eq!(line.read(&m, 208, t), 0);
        // CPU 24 (LLC 3) crosses the interconnect behind CPU 16's transfer only.
        assert_eq!(
            line.read(&m, 24, t),
            2 * c.cacheline_cross_llc_ns,
            "one interconnect transfer ahead of it"
        );
        // Later, CPU 18 (LLC 2) and CPU 25 (LLC 3) read at once: each from its own LLC,
        // neither waits for the other.
        assert_eq!(line.read(&m, 18, 2 * t), c.cacheline_llc_ns);
        assert_eq!(line.read(&m, 25, 2 * t), c.cacheline_llc_ns);
        // A store by CPU 100 (socket 1) invalidates every copy: CPU 17 now misses across
        // the sockets from it.
        line.write(&m, 100, 3 * t, Store::Atomic);
        assert_eq!(line.read(&m, 17, 4 * t), c.cacheline_cross_numa_ns);
        assert_eq!((line.reads, line.writes, line.misses), (7, 2, 8));
    }

    #[test]
    fn simultaneous_misses_queue_behind_each_other() {
        let m = machine_from_name("smp:8").unwrap();
        let llc = m.costs.cacheline_llc_ns;
        let mut line = SharedLine::default();
        line.write(&m, 0, 0, Store::Atomic);
        // Seven CPUs read at the same instant: the k-th waits for k transfers.
        let stalls: Vec<Ns> = (1..8).map(|c| line.read(&m, c, 10_000)).collect();
        assert_eq!(stalls, (1..8).map(|k| k * llc).collect::<Vec<_>>());
        assert_eq!(line.transfer_ns, llc * (1..8).sum::<u64>());
        // Later, the line is free again.
        line.write(&m, 3, 50_000, Store::Atomic);
        assert_eq!(line.read(&m, 4, 60_000), llc);
    }

    /// A plain store does not wait for the line (the store buffer holds it) unless the
    /// machine says it does, but the line still moves: a load right behind it queues.
    #[test]
    fn a_plain_store_moves_the_line_without_stalling_its_cpu() {
        let mut m = machine_from_name("epyc-9654-2s").unwrap();
        let numa = m.costs.cacheline_cross_numa_ns;
        assert_eq!(m.costs.cacheline_store_stall_pct, 0);
        let mut line = SharedLine::default();
        line.write(&m, 0, 0, Store::Atomic);
        // CPU 100 (socket 1) stores: no stall, but the transfer occupies the line.
        assert_eq!(line.write(&m, 100, 10_000, Store::Plain), 0);
        // CPU 1 (socket 0) loads at the same instant: behind that transfer, then its own.
        assert_eq!(line.read(&m, 1, 10_000), 2 * numa);
        assert_eq!(
            line.transfer_ns,
            2 * numa,
            "the hidden store is not stall time"
        );
        // An atomic store by CPU 150 (socket 1, an LLC without a copy) waits for the
        // line as a load does.
        let cross_llc = m.costs.cacheline_cross_llc_ns;
        assert_eq!(line.write(&m, 150, 20_000, Store::Atomic), cross_llc);
        // Half the fetch exposed: half the stall.
        m.costs.cacheline_store_stall_pct = 50;
        assert_eq!(line.write(&m, 2, 30_000, Store::Plain), numa / 2);
    }

    /// With the home busy for only part of each transfer, a queued request starts that
    /// much sooner; the requester still waits the whole latency of its own transfer.
    #[test]
    fn a_partly_occupied_line_overlaps_transfers() {
        let mut m = machine_from_name("smp:8").unwrap();
        m.costs.cacheline_occupancy_pct = 25;
        let llc = m.costs.cacheline_llc_ns;
        let mut line = SharedLine::default();
        line.write(&m, 0, 0, Store::Atomic);
        let stalls: Vec<Ns> = (1..5).map(|c| line.read(&m, c, 10_000)).collect();
        assert_eq!(
            stalls,
            (0..4).map(|k| k * llc / 4 + llc).collect::<Vec<_>>()
        );
    }
}
