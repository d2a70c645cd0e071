//! p->cpus_mask, stored compactly: most tasks may run anywhere, and a per-task byte per
//! CPU cost 1,920 bytes a task on power10 (1 M tasks: 2 GB). Every-CPU masks share no
//! storage at all; others are a cpumask bitset. Reads look like the old `Vec<bool>`.

use crate::machine::CpuId;
use crate::sched::topology::cpumask::CpuMask;
use std::ops::Index;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpusAllowed {
    nr_cpus: u32,
    /// `None`: every CPU `0..nr_cpus` (cpu_possible_mask).
    mask: Option<Box<CpuMask>>,
}

impl CpusAllowed {
    /// Every CPU of an `nr_cpus`-CPU machine.
    pub fn all(nr_cpus: usize) -> CpusAllowed {
        CpusAllowed {
            nr_cpus: nr_cpus as u32,
            mask: None,
        }
    }

    /// The CPUs of `cpus` below `nr_cpus` (an empty result stays empty).
    pub fn from_cpus(nr_cpus: usize, cpus: &[CpuId]) -> CpusAllowed {
        let mut m = CpuMask::new(nr_cpus);
        for &c in cpus.iter().filter(|&&c| c < nr_cpus) {
            m.set(c);
        }
        CpusAllowed::from_mask(nr_cpus, m)
    }

    fn from_mask(nr_cpus: usize, m: CpuMask) -> CpusAllowed {
        let full = m.weight() == nr_cpus;
        CpusAllowed {
            nr_cpus: nr_cpus as u32,
            mask: (!full).then(|| Box::new(m)),
        }
    }

    /// cpumask_test_cpu; panics past the machine's CPUs, as indexing the old vector did.
    #[inline]
    pub fn contains(&self, cpu: CpuId) -> bool {
        assert!(cpu < self.len(), "CPU {cpu} out of range");
        self.mask.as_ref().is_none_or(|m| m.contains(cpu))
    }

    /// The mask when it leaves some CPU out (`None`: every CPU), for cpumask_and.
    pub fn mask(&self) -> Option<&CpuMask> {
        self.mask.as_deref()
    }

    /// Number of CPUs of the machine (not of the mask).
    pub fn len(&self) -> usize {
        self.nr_cpus as usize
    }

    pub fn is_empty(&self) -> bool {
        self.nr_cpus == 0
    }

    /// cpumask_weight.
    pub fn weight(&self) -> usize {
        self.mask.as_ref().map_or(self.len(), |m| m.weight())
    }

    /// cpumask_first: the lowest allowed CPU.
    pub fn first(&self) -> Option<CpuId> {
        match &self.mask {
            None => (self.nr_cpus > 0).then_some(0),
            Some(m) => m.first(),
        }
    }

    /// One flag per CPU of the machine, as the old `Vec<bool>` iterated.
    pub fn iter(&self) -> impl Iterator<Item = &bool> + '_ {
        (0..self.len()).map(|c| if self.contains(c) { &true } else { &false })
    }

    /// Allow or forbid one CPU.
    pub fn set(&mut self, cpu: CpuId, allowed: bool) {
        let n = self.len();
        let mut m = match self.mask.take() {
            Some(m) => *m,
            None => CpuMask::full(n),
        };
        if allowed {
            m.set(cpu);
        } else {
            m.clear(cpu);
        }
        *self = CpusAllowed::from_mask(n, m);
    }
}

impl Index<CpuId> for CpusAllowed {
    type Output = bool;

    fn index(&self, cpu: CpuId) -> &bool {
        if self.contains(cpu) {
            &true
        } else {
            &false
        }
    }
}

impl From<Vec<bool>> for CpusAllowed {
    fn from(v: Vec<bool>) -> Self {
        let cpus: Vec<CpuId> = (0..v.len()).filter(|&c| v[c]).collect();
        CpusAllowed::from_cpus(v.len(), &cpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_a_flag_vector() {
        let all = CpusAllowed::all(3);
        assert_eq!(all.iter().copied().collect::<Vec<_>>(), vec![true; 3]);
        let mut some = CpusAllowed::from_cpus(3, &[1, 7]);
        assert_eq!(
            some.iter().copied().collect::<Vec<_>>(),
            vec![false, true, false]
        );
        assert!(some[1] && !some[0]);
        some.set(0, true);
        some.set(2, true);
        assert_eq!(some, all);
        assert_eq!(
            CpusAllowed::from(vec![false, true])
                .iter()
                .filter(|&&a| a)
                .count(),
            1
        );
    }
}
