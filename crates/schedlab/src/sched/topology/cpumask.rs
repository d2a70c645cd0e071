//! `struct cpumask`: a fixed-size CPU bitset (one bit per possible CPU, 64 per word), so a
//! 1920-CPU span is 30 words and set operations are word loops.

use crate::machine::CpuId;
use std::fmt;

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CpuMask {
    bits: Vec<u64>,
}

impl CpuMask {
    /// An empty mask able to hold CPUs `0..nr_cpus`.
    pub fn new(nr_cpus: usize) -> CpuMask {
        CpuMask {
            bits: vec![0; nr_cpus.div_ceil(64)],
        }
    }

    /// Mask of the CPUs yielded by `cpus` (each < `nr_cpus`).
    pub fn from_cpus(nr_cpus: usize, cpus: impl IntoIterator<Item = CpuId>) -> CpuMask {
        let mut m = CpuMask::new(nr_cpus);
        for c in cpus {
            m.set(c);
        }
        m
    }

    /// Every CPU `0..nr_cpus`.
    pub fn full(nr_cpus: usize) -> CpuMask {
        CpuMask::from_cpus(nr_cpus, 0..nr_cpus)
    }

    /// Number of CPUs the mask can hold (rounded up to whole words).
    pub fn capacity(&self) -> usize {
        self.bits.len() * 64
    }

    pub fn set(&mut self, cpu: CpuId) {
        self.bits[cpu / 64] |= 1 << (cpu % 64);
    }

    pub fn clear(&mut self, cpu: CpuId) {
        self.bits[cpu / 64] &= !(1 << (cpu % 64));
    }

    pub fn clear_all(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
    }

    /// cpumask_test_cpu.
    #[inline]
    pub fn contains(&self, cpu: CpuId) -> bool {
        self.bits
            .get(cpu / 64)
            .is_some_and(|w| w & (1 << (cpu % 64)) != 0)
    }

    /// cpumask_weight.
    pub fn weight(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    /// cpumask_first: lowest CPU, None when empty.
    pub fn first(&self) -> Option<CpuId> {
        self.next_from(0)
    }

    /// Lowest CPU ≥ `from`.
    pub fn next_from(&self, from: CpuId) -> Option<CpuId> {
        let mut wi = from / 64;
        if wi >= self.bits.len() {
            return None;
        }
        let mut w = self.bits[wi] & (!0u64 << (from % 64));
        loop {
            if w != 0 {
                return Some(wi * 64 + w.trailing_zeros() as usize);
            }
            wi += 1;
            if wi >= self.bits.len() {
                return None;
            }
            w = self.bits[wi];
        }
    }

    /// CPUs in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = CpuId> + '_ {
        self.bits.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }

    /// for_each_cpu_wrap: CPUs ≥ `start` ascending, then those below it.
    pub fn iter_wrap(&self, start: CpuId) -> impl Iterator<Item = CpuId> + '_ {
        self.iter()
            .filter(move |&c| c >= start)
            .chain(self.iter().take_while(move |&c| c < start))
    }

    pub fn or_assign(&mut self, other: &CpuMask) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= b;
        }
    }

    pub fn and_assign(&mut self, other: &CpuMask) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= b;
        }
    }

    /// cpumask_andnot into self.
    pub fn andnot_assign(&mut self, other: &CpuMask) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= !b;
        }
    }

    pub fn or(&self, other: &CpuMask) -> CpuMask {
        let mut m = self.clone();
        m.or_assign(other);
        m
    }

    pub fn and(&self, other: &CpuMask) -> CpuMask {
        let mut m = self.clone();
        m.and_assign(other);
        m
    }

    /// cpumask_subset: every CPU of self is in `other`.
    pub fn is_subset(&self, other: &CpuMask) -> bool {
        self.bits
            .iter()
            .zip(other.bits.iter().chain(std::iter::repeat(&0)))
            .all(|(a, b)| a & !b == 0)
    }

    /// cpumask_intersects.
    pub fn intersects(&self, other: &CpuMask) -> bool {
        self.bits.iter().zip(&other.bits).any(|(a, b)| a & b != 0)
    }

    /// The kernel's `%*pbl` cpulist form: `0-7,192-199`; empty mask → "".
    pub fn to_cpulist(&self) -> String {
        let mut out = String::new();
        let mut it = self.iter().peekable();
        while let Some(lo) = it.next() {
            let mut hi = lo;
            while it.peek() == Some(&(hi + 1)) {
                hi = it.next().unwrap();
            }
            if !out.is_empty() {
                out.push(',');
            }
            if hi == lo {
                out.push_str(&lo.to_string());
            } else {
                out.push_str(&format!("{lo}-{hi}"));
            }
        }
        out
    }
}

impl fmt::Debug for CpuMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuMask({})", self.to_cpulist())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_and_cpulist() {
        let a = CpuMask::from_cpus(200, (0..8).chain(192..200));
        assert_eq!(a.weight(), 16);
        assert_eq!(a.first(), Some(0));
        assert_eq!(a.to_cpulist(), "0-7,192-199");
        assert_eq!(a.next_from(8), Some(192));
        let wrap: Vec<_> = a.iter_wrap(194).take(7).collect();
        assert_eq!(wrap, vec![194, 195, 196, 197, 198, 199, 0]);
        let b = CpuMask::from_cpus(200, [3, 64, 199]);
        assert!(a.intersects(&b));
        assert!(!b.is_subset(&a));
        assert!(a.and(&b).is_subset(&a));
        assert_eq!(a.or(&b).weight(), 17);
        let mut c = a.clone();
        c.andnot_assign(&b);
        assert_eq!(c.weight(), 14);
        assert_eq!(CpuMask::from_cpus(8, [5]).to_cpulist(), "5");
        assert_eq!(CpuMask::new(8).first(), None);
    }
}
