//! Summary statistics and Welch's t-test for A/B comparisons (docs/ab.md).
//!
//! The t distribution's CDF comes from the regularized incomplete beta function
//! (continued fraction, modified Lentz) and ln Γ (Lanczos, g = 7, n = 9).

/// Mean, sample standard deviation and count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
}

impl Summary {
    pub fn of(xs: &[f64]) -> Summary {
        let n = xs.len();
        let mean = if n == 0 {
            0.0
        } else {
            xs.iter().sum::<f64>() / n as f64
        };
        let var = if n < 2 {
            0.0
        } else {
            xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
        };
        Summary {
            n,
            mean,
            sd: var.sqrt(),
        }
    }

    /// Half-width of the 95% confidence interval of the mean (Student t, n − 1 df).
    pub fn ci95(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        t_quantile_two_sided(0.05, (self.n - 1) as f64) * self.sd / (self.n as f64).sqrt()
    }
}

/// ln Γ(x) for x > 0 (Lanczos approximation).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta function (modified Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function I_x(a, b).
pub fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

/// Two-sided p-value of Student's t statistic `t` with `df` degrees of freedom.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    inc_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// The t with P(|T| > t) = alpha (bisection on the CDF).
pub fn t_quantile_two_sided(alpha: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1e3);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_two_sided_p(mid, df) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Welch's unequal-variance t-test: (t, df, two-sided p). Two constant samples give p = 1
/// when their means are equal and p = 0 otherwise.
pub fn welch(a: &Summary, b: &Summary) -> (f64, f64, f64) {
    if a.n < 2 || b.n < 2 {
        return (0.0, 0.0, 1.0);
    }
    let (se2, df) = welch_se2_df(a, b);
    if se2 == 0.0 {
        return if a.mean == b.mean {
            (0.0, 0.0, 1.0)
        } else {
            (f64::INFINITY, 0.0, 0.0)
        };
    }
    let t = (b.mean - a.mean) / se2.sqrt();
    (t, df, t_two_sided_p(t, df))
}

/// The squared standard error of the difference of two means and its Welch–Satterthwaite
/// degrees of freedom (NaN when both samples are constant). Both need n ≥ 2.
fn welch_se2_df(a: &Summary, b: &Summary) -> (f64, f64) {
    let (va, vb) = (a.sd * a.sd / a.n as f64, b.sd * b.sd / b.n as f64);
    let se2 = va + vb;
    let df = se2 * se2 / (va * va / (a.n as f64 - 1.0) + vb * vb / (b.n as f64 - 1.0));
    (se2, df)
}

/// The smallest |perc_diff| (percent of `base`'s mean) that samples of these sizes and
/// spreads detect with 80 % power by Welch's test at p < 0.05: (t₀.₀₂₅ + t₀.₂₀) × SE ÷ mean,
/// SE and the degrees of freedom as in `welch`. None when the base mean is 0 or a sample
/// has fewer than two values; 0 when both samples are constant (any change shows).
pub fn resolvable_pct(base: &Summary, other: &Summary) -> Option<f64> {
    if base.n < 2 || other.n < 2 || base.mean == 0.0 {
        return None;
    }
    let (se2, df) = welch_se2_df(base, other);
    if se2 == 0.0 {
        return Some(0.0);
    }
    let t = t_quantile_two_sided(0.05, df) + t_quantile_two_sided(0.40, df);
    Some(100.0 * t * se2.sqrt() / base.mean.abs())
}

/// Holm–Bonferroni: which of `ps` are significant at family-wise level `alpha`.
pub fn holm(ps: &[f64], alpha: f64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..ps.len()).collect();
    order.sort_by(|&i, &j| ps[i].total_cmp(&ps[j]).then(i.cmp(&j)));
    let m = ps.len();
    let mut out = vec![false; m];
    for (rank, &i) in order.iter().enumerate() {
        if ps[i] <= alpha / (m - rank) as f64 {
            out[i] = true;
        } else {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn resolvable_effect_is_the_power_formula() {
        // n = 5 each, sd 1, mean 10: SE = sqrt(2/5), df = 8, t(0.025) = 2.306, t(0.20) =
        // 0.889 (tables): 3.195 x 0.6325 / 10 = 20.2 %.
        let s = Summary {
            n: 5,
            mean: 10.0,
            sd: 1.0,
        };
        let got = resolvable_pct(&s, &s).unwrap();
        assert!(close(got, 20.21, 0.02), "{got}");
        // n = 20: df = 38, t(0.025) = 2.0244, t(0.20) = 0.8510: 2.8754 x sqrt(0.1) x 10.
        let s20 = Summary { n: 20, ..s };
        let got20 = resolvable_pct(&s20, &s20).unwrap();
        assert!(close(got20, 9.093, 0.01), "{got20}");
        // A constant pair resolves any change.
        let flat = Summary { sd: 0.0, ..s };
        assert_eq!(resolvable_pct(&flat, &flat), Some(0.0));
        assert_eq!(resolvable_pct(&Summary { mean: 0.0, ..s }, &s), None);
        assert_eq!(resolvable_pct(&Summary { n: 1, ..s }, &s), None);
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% critical values of Student's t.
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (5.0, 2.571),
            (10.0, 2.228),
            (30.0, 2.042),
            (1000.0, 1.962),
        ] {
            let got = t_quantile_two_sided(0.05, df);
            assert!(close(got, t, 1e-3), "df {df}: {got} vs {t}");
        }
        assert!(close(t_two_sided_p(2.228, 10.0), 0.05, 1e-4));
        assert!(close(t_two_sided_p(0.0, 7.0), 1.0, 1e-12));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-12));
        assert!(close(
            ln_gamma(0.5),
            std::f64::consts::PI.sqrt().ln(),
            1e-12
        ));
    }

    #[test]
    fn welch_on_known_samples() {
        // Reference values from scipy.stats.ttest_ind(b, a, equal_var=False):
        // t = 2.2192409158236233, p = 0.03597227102979692, df = 24.496223124201244.
        let a = Summary::of(&[19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0]);
        let b = Summary::of(&[
            28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0,
            23.9, 21.6, 24.3, 20.4, 24.0, 13.2,
        ]);
        let (t, df, p) = welch(&a, &b);
        assert!(close(t, 2.219_240_915_823_623, 1e-12), "t {t}");
        assert!(close(df, 24.496_223_124_201_244, 1e-9), "df {df}");
        assert!(close(p, 0.035_972_271_029_796_92, 1e-9), "p {p}");
        let same = Summary::of(&[3.0, 3.0, 3.0]);
        assert_eq!(welch(&same, &same).2, 1.0);
        assert_eq!(welch(&same, &Summary::of(&[4.0, 4.0])).2, 0.0);
    }

    #[test]
    fn holm_controls_the_family() {
        assert_eq!(holm(&[0.01, 0.04, 0.03], 0.05), vec![true, false, false]);
        assert_eq!(holm(&[0.001, 0.012, 0.02], 0.05), vec![true, true, true]);
        assert_eq!(holm(&[0.2, 0.001], 0.05), vec![false, true]);
    }

    #[test]
    fn ci_of_a_known_sample() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(close(s.mean, 3.0, 1e-12));
        assert!(close(s.sd, 2.5f64.sqrt(), 1e-12));
        // 2.776 · 1.5811 / √5 = 1.963.
        assert!(close(s.ci95(), 1.963, 1e-3), "{}", s.ci95());
    }
}
