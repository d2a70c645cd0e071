//! The hardware cost model the scheduler runs on (machine `Costs`): SMT threads sharing a
//! core's throughput, the cache/memory penalty of a migration, and the CPU time of the
//! scheduler's own paths, charged to the CPU that runs them.

use crate::machine::CpuId;
use crate::sched::{Sched, TaskId, Work};
use crate::time::Ns;

impl Sched {
    /// SMT siblings of every CPU (other CPUs on the same core), built once.
    pub(crate) fn build_smt_siblings(&mut self) {
        let m = &self.machine;
        let mut by_core: std::collections::BTreeMap<usize, Vec<CpuId>> = Default::default();
        for c in &m.cpus {
            by_core.entry(c.core).or_default().push(c.id);
        }
        self.smt_siblings = m
            .cpus
            .iter()
            .map(|c| {
                by_core[&c.core]
                    .iter()
                    .copied()
                    .filter(|&s| s != c.id)
                    .collect()
            })
            .collect();
        self.smt_mask = m.cpus.iter().map(|c| by_core[&c.core].clone()).collect();
        let dense: std::collections::BTreeMap<usize, u32> =
            by_core.keys().zip(0..).map(|(&k, i)| (k, i)).collect();
        self.smt_core = m
            .cpus
            .iter()
            .map(|c| match by_core[&c.core].len() {
                1 => u32::MAX,
                _ => dense[&c.core],
            })
            .collect();
        self.smt_busy = vec![0; dense.len()];
        let threads = by_core.values().map(Vec::len).max().unwrap_or(1);
        let g_pct = (2 * self.machine.costs.smt_busy_speed_pct as u64).saturating_sub(100);
        // per-thread share in percent with n busy threads: (100 + (n−1)·g) / n
        self.smt_share_pct = (1..=threads as u64)
            .map(|n| (100 + (n - 1) * g_pct) / n)
            .collect();
    }

    /// The machine's cores (SMT siblings counted once): `smt_busy` has one entry a core.
    pub fn nr_cores(&self) -> u64 {
        self.smt_busy.len() as u64
    }

    /// Cache Machine::speed of domain `d`'s CPUs (after its frequency changed).
    pub(crate) fn refresh_base_speed(&mut self, d: usize) {
        for &cpu in &self.machine.freq_domains[d].cpus {
            self.rqs[cpu].sim.base_speed = self.machine.speed(cpu);
        }
    }

    /// Cache Machine::speed of every CPU.
    pub(crate) fn refresh_base_speeds(&mut self) {
        for cpu in 0..self.rqs.len() {
            self.rqs[cpu].sim.base_speed = self.machine.speed(cpu);
        }
    }

    /// Count `cpu` in or out of its core's busy threads (the switch that sets rq->curr).
    pub(crate) fn note_smt_busy(&mut self, cpu: CpuId, busy: bool) {
        if let Some(&core) = self.smt_core.get(cpu).filter(|&&c| c != u32::MAX) {
            let n = &mut self.smt_busy[core as usize];
            *n = if busy { *n + 1 } else { *n - 1 };
        }
    }

    /// Progress rate of `cpu` in reference ns per 1024 ns: capacity × cur/max frequency,
    /// times the SMT share. With n busy threads a core delivers 1 + (n−1)·g lone-thread
    /// throughputs, g = 2·smt_busy_speed_pct/100 − 1, split evenly (SMT2 at 62%: 1.24×).
    pub fn cpu_speed(&self, cpu: CpuId) -> u64 {
        let base = self.rqs[cpu].sim.base_speed;
        debug_assert_eq!(
            base,
            self.machine.speed(cpu),
            "stale base_speed of CPU {cpu}"
        );
        let busy_siblings = match self.smt_core.get(cpu) {
            Some(&core) if core != u32::MAX => {
                let busy = self.smt_busy[core as usize] as u64;
                busy - u64::from(self.rqs[cpu].curr.is_some())
            }
            _ => 0,
        };
        if busy_siblings == 0 {
            return base;
        }
        let share_pct = self.smt_share_pct[busy_siblings as usize];
        (base * share_pct / 100).max(1)
    }

    /// Bring every busy SMT sibling of `cpu` up to date at its current speed; call before
    /// `cpu` changes between busy and idle (their speed is about to change).
    pub(crate) fn settle_siblings(&mut self, cpu: CpuId) {
        for i in 0..self.smt_siblings[cpu].len() {
            let s = self.smt_siblings[cpu][i];
            if self.rqs[s].curr.is_some() {
                self.settle_progress(s);
            }
        }
    }

    /// Re-time the work of busy siblings at their new speed (after the change).
    pub(crate) fn rearm_siblings(&mut self, cpu: CpuId) {
        for i in 0..self.smt_siblings[cpu].len() {
            let s = self.smt_siblings[cpu][i];
            if self.rqs[s].curr.is_some() {
                self.arm_work(s);
            }
        }
    }

    /// Record a task's working set (bytes, from its workload) in whole cache lines.
    pub fn set_working_set(&mut self, p: TaskId, bytes: Option<u64>) {
        let line = self.machine.costs.cache_line_bytes;
        self.tasks[p].sim.working_set_lines =
            bytes.map(|b| u32::try_from(b.div_ceil(line)).unwrap_or(u32::MAX));
    }

    /// Extra reference work a task owes after moving from `from` to `to`: refilling the
    /// caches and memory its working set needs there. A task with a known working set
    /// fetches each of its lines from the CPU it left (shared_line::transfer_ns); others
    /// pay the machine's flat refill by distance.
    pub fn migration_penalty(&self, p: TaskId, from: CpuId, to: CpuId) -> Ns {
        if let Some(lines) = self.tasks[p].sim.working_set_lines {
            return Ns::from(lines) * super::shared_line::transfer_ns(&self.machine, from, to);
        }
        let (a, b) = (&self.machine.cpus[from], &self.machine.cpus[to]);
        let c = &self.machine.costs;
        if a.numa_node != b.numa_node {
            c.migrate_cross_numa_ns
        } else if a.llc != b.llc {
            c.migrate_cross_llc_ns
        } else {
            c.migrate_llc_ns
        }
    }

    /// Fold a task's owed migration penalty into its current busy period.
    pub(crate) fn apply_cache_penalty(&mut self, p: TaskId) {
        let t = &mut self.tasks[p];
        if t.sim.cache_penalty_ns == 0 {
            return;
        }
        t.sim.work = match t.sim.work {
            Work::Reference(left) => Work::Reference(left + t.sim.cache_penalty_ns),
            Work::Until(at) => Work::Until(at + t.sim.cache_penalty_ns),
            Work::None => return,
        };
        t.sim.cache_penalty_ns = 0;
    }
}
