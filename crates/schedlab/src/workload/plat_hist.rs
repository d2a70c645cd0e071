//! The fio-style log-linear histogram schbench keeps its latencies in (docs/workloads.md,
//! schbench): values below 512 have their own bucket, above that each power of two is split
//! into 256 buckets and a bucket reports the middle of its range. Percentile
//! rows count the samples *between* the previous printed percentile and this one.

/// PLAT_BITS: 256 buckets per power-of-two group.
const PLAT_BITS: u32 = 8;
const PLAT_VAL: u32 = 1 << PLAT_BITS;
const PLAT_GROUP_NR: u32 = 19;
const PLAT_NR: usize = (PLAT_GROUP_NR * PLAT_VAL) as usize;

/// The percentile list schbench walks (`plist`).
pub const PLIST: [f64; 5] = [20.0, 50.0, 90.0, 99.0, 99.9];

/// A histogram of unsigned values (µs or requests/s).
#[derive(Debug, Clone)]
pub struct PlatHist {
    plat: Vec<u64>,
    pub nr_samples: u64,
    /// 0 means "not set yet", as schbench's add_lat treats it.
    pub min: u32,
    pub max: u32,
}

impl Default for PlatHist {
    fn default() -> Self {
        PlatHist {
            plat: vec![0; PLAT_NR],
            nr_samples: 0,
            min: 0,
            max: 0,
        }
    }
}

fn val_to_idx(val: u32) -> usize {
    let msb = if val == 0 {
        0
    } else {
        31 - val.leading_zeros()
    };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = (error_bits + 1) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

fn idx_to_val(idx: usize) -> u32 {
    let idx = idx as u32;
    if idx < (PLAT_VAL << 1) {
        return idx;
    }
    let error_bits = (idx >> PLAT_BITS) - 1;
    let base = 1u32 << (error_bits + PLAT_BITS);
    let k = idx % PLAT_VAL;
    // base + (k + 0.5) × 2^error_bits, truncated as the C double → unsigned conversion.
    base + (((2 * k + 1) as u64 * (1u64 << error_bits)) / 2) as u32
}

/// One printed percentile row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PctRow {
    pub pct: f64,
    pub value: u32,
    /// Samples between the previous row's value and this one.
    pub samples: u64,
}

impl PlatHist {
    pub fn add(&mut self, v: u32) {
        if v > self.max {
            self.max = v;
        }
        if self.min == 0 || v < self.min {
            self.min = v;
        }
        self.plat[val_to_idx(v)] += 1;
        self.nr_samples += 1;
    }

    /// calc_percentiles over the whole `PLIST`.
    pub fn percentiles(&self) -> Vec<PctRow> {
        self.percentiles_of(&PLIST)
    }

    /// calc_percentiles over a percentile list (schbench's `plist` of its version).
    pub fn percentiles_of(&self, plist: &[f64]) -> Vec<PctRow> {
        let nr = self.nr_samples as f64;
        let mut rows: Vec<PctRow> = Vec::with_capacity(plist.len());
        let mut sum = 0u64;
        'outer: for (i, &n) in self.plat.iter().enumerate() {
            sum += n;
            while rows.len() < plist.len() && sum as f64 >= plist[rows.len()] / 100.0 * nr {
                rows.push(PctRow {
                    pct: plist[rows.len()],
                    value: idx_to_val(i),
                    samples: sum,
                });
                if rows.len() == plist.len() {
                    break 'outer;
                }
            }
        }
        // Cumulative counts → counts between rows.
        for i in (1..rows.len()).rev() {
            rows[i].samples -= rows[i - 1].samples;
        }
        rows
    }

    /// show_latencies: the header, the rows selected by `mask` (bit i = PLIST[i]) with
    /// a star on row `star`, and the min/max footer.
    pub fn show(&self, label: &str, units: &str, runtime: u64, mask: u32, star: usize) -> String {
        self.show_of(&PLIST, label, units, runtime, mask, star)
    }

    /// `show` over a percentile list of another schbench version.
    pub fn show_of(
        &self,
        plist: &[f64],
        label: &str,
        units: &str,
        runtime: u64,
        mask: u32,
        star: usize,
    ) -> String {
        let mut out = format!(
            "{label} percentiles ({units}) runtime {runtime} (s) ({} total samples)\n",
            self.nr_samples
        );
        for (i, r) in self.percentiles_of(plist).iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let mark = if i == star { "* " } else { "  " };
            out.push_str(&format!(
                "\t{mark}{:.1}th: {:<10} ({} samples)\n",
                r.pct, r.value, r.samples
            ));
        }
        out.push_str(&format!("\t  min={}, max={}\n", self.min, self.max));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_trip_small_values_and_midpoint_large_ones() {
        for v in 0..512 {
            assert_eq!(idx_to_val(val_to_idx(v)), v);
        }
        // 16864 (schbench README) is the middle of its 64-wide bucket.
        let v = idx_to_val(val_to_idx(16_850));
        assert_eq!(v, 16_864);
    }

    #[test]
    fn rows_count_between_percentiles() {
        let mut h = PlatHist::default();
        for v in 1..=100 {
            h.add(v);
        }
        let rows = h.percentiles();
        assert_eq!(rows[0].value, 20);
        assert_eq!(rows[1].value, 50);
        assert_eq!(rows[1].samples, 30);
        assert_eq!(rows.iter().map(|r| r.samples).sum::<u64>(), 100);
        let text = h.show("Wakeup Latencies", "usec", 30, 0b11110, 3);
        assert!(
            text.contains("\t* 99.0th: 99         (9 samples)\n"),
            "{text}"
        );
        assert!(text.ends_with("\t  min=1, max=100\n"));
    }
}
