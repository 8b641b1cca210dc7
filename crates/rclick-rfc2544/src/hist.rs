//! An HDR-style latency histogram: log-linear buckets, so every recorded
//! value is kept to within 1/128 (0.8 %) of itself at any magnitude, in a
//! fixed 60 KB table, and recording is a few instructions (no allocation,
//! no search). Values below 256 are kept exactly. Minimum and maximum are
//! exact.
//!
//! A value `v` of 256 or more with highest bit `b` falls in group
//! `b − 7`, whose 128 buckets are `2^(b−7)` wide.

use serde::{Deserialize, Serialize};

/// Bits of sub-bucket precision: values below `2^SUB_BITS` are exact,
/// larger ones are kept to `2^-(SUB_BITS-1)` of themselves.
const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;
const HALF: u64 = SUB / 2;
/// Buckets: the exact ones, then 128 per power of two up to 2^64.
const BUCKETS: usize = (SUB + (64 - SUB_BITS as u64) * HALF) as usize;

/// A histogram of `u64` values (nanoseconds, here).
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    min: u64,
    max: u64,
    sum: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            total: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
        }
    }
}

#[inline]
fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let b = 63 - v.leading_zeros() as u64; // >= SUB_BITS
    let shift = b - (SUB_BITS as u64 - 1); // >= 1
    let top = v >> shift; // in [HALF, SUB)
    (SUB + (shift - 1) * HALF + (top - HALF)) as usize
}

/// The lowest and highest value of bucket `i`.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, i);
    }
    let shift = (i - SUB) / HALF + 1;
    let top = (i - SUB) % HALF + HALF;
    let lo = top << shift;
    (lo, lo + ((1u64 << shift) - 1))
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram::default()
    }

    /// Records one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.total += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += u128::from(v);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The smallest value, if any.
    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    /// The largest value, if any.
    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// The mean, if any.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    /// The value at quantile `q` (0.0 to 1.0): the smallest value that
    /// at least `q` of the values do not exceed, to the histogram's
    /// precision (the highest value of its bucket, never above the
    /// maximum and never below the minimum).
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let want = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= want {
                return Some(bounds(i).1.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
    }

    /// The summary the report keeps.
    pub fn summary(&self) -> Option<LatencySummary> {
        Some(LatencySummary {
            count: self.total,
            min_ns: self.min()?,
            mean_ns: self.mean()?,
            p50_ns: self.quantile(0.5)?,
            p90_ns: self.quantile(0.9)?,
            p99_ns: self.quantile(0.99)?,
            p999_ns: self.quantile(0.999)?,
            max_ns: self.max()?,
        })
    }
}

/// Percentiles of a latency histogram, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Values recorded.
    pub count: u64,
    /// Smallest.
    pub min_ns: u64,
    /// Mean.
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest.
    pub max_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order() {
        let mut last = 0;
        for i in 0..BUCKETS {
            let (lo, hi) = bounds(i);
            assert!(lo <= hi);
            if i > 0 {
                assert_eq!(lo, last + 1, "bucket {i} starts after the previous");
            }
            assert_eq!(index(lo), i);
            assert_eq!(index(hi), i);
            last = hi;
        }
        assert_eq!(last, u64::MAX);
    }

    #[test]
    fn precision_is_within_one_128th() {
        for v in [
            255u64,
            256,
            257,
            1000,
            12_345,
            999_999,
            1 << 40,
            u64::MAX - 1,
        ] {
            let (lo, hi) = bounds(index(v));
            assert!(lo <= v && v <= hi);
            assert!(
                (hi - lo) as f64 <= v as f64 / 128.0 + 1.0,
                "{v}: {lo}..{hi}"
            );
        }
        for v in 0..256 {
            assert_eq!(bounds(index(v)), (v, v), "exact below 256");
        }
    }

    #[test]
    fn percentiles_of_a_uniform_spread() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 10); // 10 ns .. 1 ms
        }
        assert_eq!(h.count(), 100_000);
        assert_eq!(h.min(), Some(10));
        assert_eq!(h.max(), Some(1_000_000));
        let near = |got: u64, want: f64| (got as f64 - want).abs() <= want / 100.0;
        assert!(near(h.quantile(0.5).unwrap(), 500_000.0));
        assert!(near(h.quantile(0.99).unwrap(), 990_000.0));
        assert!(near(h.quantile(0.999).unwrap(), 999_000.0));
        assert_eq!(h.quantile(1.0), Some(1_000_000));
        assert_eq!(h.quantile(0.0), Some(10));
        assert!((h.mean().unwrap() - 500_005.0).abs() < 1.0);
        let s = h.summary().unwrap();
        assert!(s.p50_ns <= s.p90_ns && s.p90_ns <= s.p99_ns && s.p99_ns <= s.p999_ns);
        assert!(s.p999_ns <= s.max_ns);
    }

    #[test]
    fn a_tail_shows_in_the_high_percentiles_only() {
        let mut h = Histogram::new();
        for _ in 0..9_990 {
            h.record(20_000);
        }
        for _ in 0..10 {
            h.record(5_000_000);
        }
        let s = h.summary().unwrap();
        assert!(s.p50_ns.abs_diff(20_000) < 200);
        assert!(s.p99_ns.abs_diff(20_000) < 200);
        assert!(
            s.p999_ns.abs_diff(20_000) < 200,
            "10 in 10,000 is the 99.9th"
        );
        assert_eq!(s.max_ns, 5_000_000);
        h.record(5_000_000);
        assert!(h.quantile(0.999).unwrap() > 4_900_000);
    }

    #[test]
    fn empty_and_merge() {
        let mut a = Histogram::new();
        assert_eq!(a.quantile(0.5), None);
        assert!(a.summary().is_none());
        let mut b = Histogram::new();
        b.record(7);
        b.record(9);
        a.record(1000);
        a.merge(&b);
        assert_eq!((a.count(), a.min(), a.max()), (3, Some(7), Some(1000)));
        assert_eq!(a.quantile(0.5), Some(9));
    }
}
