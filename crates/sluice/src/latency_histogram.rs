//! A latency histogram that answers exactly as an auto-resizing HDR
//! histogram of three significant digits (`hdrhistogram::Histogram::new(3)`)
//! but stores only the bins it was given.
//!
//! The HDR histogram keeps one counter per bin from zero up to the largest
//! value seen: 115 KB for a flow whose requests once waited six seconds,
//! which made 65,536 flows cost 10 GB. A flow of a few requests hits a few
//! bins, so bins start as a short sorted list (8 bytes a bin) and become a
//! dense array only past [`SPARSE_BINS`] distinct bins. Every answer (values
//! at quantiles, mean, standard deviation, counts above a value) is computed
//! from the same bins with the same arithmetic, in the same order, as the
//! HDR crate computes it, so reports are byte-identical; a property test
//! holds the two side by side.

/// Distinct bins kept as a sorted list before the dense array (4 KiB).
const SPARSE_BINS: usize = 512;

/// log2 of half the sub-buckets of a bucket: three significant digits need
/// unit resolution up to 2,000, so 2,048 sub-buckets, 1,024 in each half.
const SUB_HALF_MAGNITUDE: u32 = 10;
const SUB_HALF: u32 = 1 << SUB_HALF_MAGNITUDE;
const SUB_COUNT: u64 = 2 * SUB_HALF as u64;
/// Leading zeros of the largest value of bucket 0 (2,047): 64 - 11.
const LEADING_ZERO_BASE: u32 = 64 - (SUB_HALF_MAGNITUDE + 1);

/// One bin that was hit: its index in the HDR counts array and its count.
#[derive(Clone, Copy, Debug)]
struct Bin {
    index: u32,
    count: u32,
}

#[derive(Clone, Debug)]
enum Bins {
    /// Sorted by index; counts under `u32::MAX`.
    Sparse(Vec<Bin>),
    /// Indexed by bin; as long as the highest bin hit.
    Dense(Vec<u64>),
}

/// Latencies (any unit; sluice records microseconds) in HDR bins.
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    total: u64,
    /// The length of the HDR counts array after the values recorded so far:
    /// queries past it clamp to its last bin, as the HDR crate's do.
    hdr_len: u32,
    bins: Bins,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            total: 0,
            // `Histogram::new(3)` starts with bounds 1..=2: one bucket.
            hdr_len: hdr_len_for(2),
            bins: Bins::Sparse(Vec::new()),
        }
    }
}

fn bucket_of(value: u64) -> u32 {
    LEADING_ZERO_BASE - (value | (SUB_COUNT - 1)).leading_zeros()
}

fn index_of(value: u64) -> u32 {
    let bucket = bucket_of(value);
    let sub = (value >> bucket) as u32;
    ((bucket + 1) << SUB_HALF_MAGNITUDE) + sub - SUB_HALF
}

/// The lowest value of bin `index`.
fn value_of(index: u32) -> u64 {
    let bucket = (index >> SUB_HALF_MAGNITUDE) as i64 - 1;
    let sub = (index & (SUB_HALF - 1)) + SUB_HALF;
    if bucket < 0 {
        u64::from(sub - SUB_HALF)
    } else {
        u64::from(sub) << bucket
    }
}

fn lowest_equivalent(value: u64) -> u64 {
    let bucket = bucket_of(value);
    (value >> bucket) << bucket
}

fn equivalent_range(value: u64) -> u64 {
    1 << bucket_of(value)
}

fn next_non_equivalent(value: u64) -> u64 {
    lowest_equivalent(value).saturating_add(equivalent_range(value))
}

fn highest_equivalent(value: u64) -> u64 {
    if value == u64::MAX {
        u64::MAX
    } else {
        next_non_equivalent(value) - 1
    }
}

fn median_equivalent(value: u64) -> u64 {
    lowest_equivalent(value) + (equivalent_range(value) >> 1)
}

/// The HDR counts array's length once it covers `value`.
fn hdr_len_for(value: u64) -> u32 {
    let mut untrackable = SUB_COUNT;
    let mut buckets = 1u32;
    while untrackable <= value {
        if untrackable > u64::MAX / 2 {
            buckets += 1;
            break;
        }
        untrackable <<= 1;
        buckets += 1;
    }
    (buckets + 1) * SUB_HALF
}

impl LatencyHistogram {
    /// Count one value.
    pub fn record(&mut self, value: u64) {
        let index = index_of(value);
        if index >= self.hdr_len {
            self.hdr_len = hdr_len_for(value);
        }
        self.total = self.total.saturating_add(1);
        match &mut self.bins {
            Bins::Dense(counts) => {
                let i = index as usize;
                if i >= counts.len() {
                    counts.resize(i + 1, 0);
                }
                counts[i] = counts[i].saturating_add(1);
            }
            Bins::Sparse(bins) => match bins.binary_search_by_key(&index, |b| b.index) {
                Ok(at) if bins[at].count < u32::MAX => bins[at].count += 1,
                Ok(_) => {
                    self.densify();
                    self.record_dense_again(index);
                }
                Err(at) if bins.len() < SPARSE_BINS => bins.insert(at, Bin { index, count: 1 }),
                Err(_) => {
                    self.densify();
                    self.record_dense_again(index);
                }
            },
        }
    }

    /// Adds the count `record` took for `index` once the bins went dense.
    fn record_dense_again(&mut self, index: u32) {
        if let Bins::Dense(counts) = &mut self.bins {
            let i = index as usize;
            if i >= counts.len() {
                counts.resize(i + 1, 0);
            }
            counts[i] = counts[i].saturating_add(1);
        }
    }

    fn densify(&mut self) {
        if let Bins::Sparse(bins) = &self.bins {
            let len = bins.last().map_or(0, |b| b.index as usize + 1);
            let mut counts = vec![0u64; len];
            for b in bins {
                counts[b.index as usize] = u64::from(b.count);
            }
            self.bins = Bins::Dense(counts);
        }
    }

    /// Values counted.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Heap bytes held by the bins (for memory budgets and tests).
    pub fn heap_bytes(&self) -> usize {
        match &self.bins {
            Bins::Sparse(b) => b.capacity() * std::mem::size_of::<Bin>(),
            Bins::Dense(c) => c.capacity() * std::mem::size_of::<u64>(),
        }
    }

    /// The bins hit, lowest first, with their counts.
    fn recorded(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        let (sparse, dense) = match &self.bins {
            Bins::Sparse(b) => (Some(b.iter().map(|b| (b.index, u64::from(b.count)))), None),
            Bins::Dense(c) => (
                None,
                Some(
                    c.iter()
                        .enumerate()
                        .filter(|(_, &n)| n != 0)
                        .map(|(i, &n)| (i as u32, n)),
                ),
            ),
        };
        sparse
            .into_iter()
            .flatten()
            .chain(dense.into_iter().flatten())
    }

    /// The lowest value counted (its bin's lowest); 0 when empty.
    pub fn min(&self) -> u64 {
        self.recorded().next().map_or(0, |(i, _)| value_of(i))
    }

    /// The highest value counted (its bin's highest); 0 when empty.
    pub fn max(&self) -> u64 {
        let last = match &self.bins {
            Bins::Sparse(b) => b.last().map(|b| b.index),
            Bins::Dense(c) => c.iter().rposition(|&n| n != 0).map(|i| i as u32),
        };
        match last.map(value_of) {
            Some(v) if v > 0 => highest_equivalent(v),
            _ => 0,
        }
    }

    /// The value at `quantile` (0 to 1): the highest value of the bin where
    /// the counts reach that share (the lowest for quantile 0).
    pub fn value_at_quantile(&self, quantile: f64) -> u64 {
        let quantile = if quantile > 1.0 { 1.0 } else { quantile };
        let fractional = quantile * self.total as f64;
        let target = (fractional.ceil() as u64).max(1);
        let mut seen = 0u64;
        for (index, count) in self.recorded() {
            seen = seen.saturating_add(count);
            if seen >= target {
                let value = value_of(index);
                return if quantile == 0.0 {
                    lowest_equivalent(value)
                } else {
                    highest_equivalent(value)
                };
            }
        }
        0
    }

    /// The mean, each bin counted at its middle value.
    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let total = self.total as f64;
        self.recorded().fold(0.0, |sum, (index, count)| {
            let middle = median_equivalent(highest_equivalent(value_of(index)));
            sum + middle as f64 * count as f64 / total
        })
    }

    /// The standard deviation, each bin counted at its middle value.
    pub fn stdev(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let mean = self.mean();
        let squares = self.recorded().fold(0.0, |sum, (index, count)| {
            let dev = median_equivalent(highest_equivalent(value_of(index))) as f64 - mean;
            sum + (dev * dev) * count as f64
        });
        (squares / self.total as f64).sqrt()
    }

    /// The first value above `value`'s bin.
    pub fn next_non_equivalent(&self, value: u64) -> u64 {
        next_non_equivalent(value)
    }

    /// Values counted in the bins from `low`'s to `high`'s (both clamped to
    /// the last bin the HDR histogram would have).
    pub fn count_between(&self, low: u64, high: u64) -> u64 {
        let last = self.hdr_len - 1;
        let from = index_of(low).min(last);
        let to = index_of(high).min(last);
        self.recorded()
            .skip_while(|&(i, _)| i < from)
            .take_while(|&(i, _)| i <= to)
            .fold(0u64, |sum, (_, n)| sum.saturating_add(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;
    use proptest::prelude::*;

    /// Values spread like latencies: mostly small, some up to minutes.
    fn values() -> impl Strategy<Value = Vec<u64>> {
        prop::collection::vec(
            prop_oneof![
                1u64..3_000,
                1u64..200_000,
                1u64..100_000_000,
                Just(0u64),
                Just(u64::MAX / 4),
            ],
            0..1_500,
        )
    }

    fn both(values: &[u64]) -> (LatencyHistogram, Histogram<u64>) {
        let mut ours = LatencyHistogram::default();
        let mut hdr = Histogram::<u64>::new(3).unwrap();
        for &v in values {
            ours.record(v);
            hdr.record(v).unwrap();
        }
        (ours, hdr)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn answers_as_the_hdr_histogram(values in values(), probes in prop::collection::vec(0u64..200_000_000, 1..8)) {
            let (ours, hdr) = both(&values);
            prop_assert_eq!(ours.len(), hdr.len());
            prop_assert_eq!(ours.is_empty(), hdr.is_empty());
            prop_assert_eq!(ours.min(), hdr.min());
            prop_assert_eq!(ours.max(), hdr.max());
            prop_assert_eq!(ours.mean().to_bits(), hdr.mean().to_bits());
            prop_assert_eq!(ours.stdev().to_bits(), hdr.stdev().to_bits());
            for q in [0.0, 0.01, 0.3, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0, 2.0] {
                prop_assert_eq!(ours.value_at_quantile(q), hdr.value_at_quantile(q), "quantile {}", q);
            }
            for &p in &probes {
                prop_assert_eq!(ours.next_non_equivalent(p), hdr.next_non_equivalent(p));
                let from = hdr.next_non_equivalent(p);
                let to = hdr.max().max(from);
                prop_assert_eq!(ours.count_between(from, to), hdr.count_between(from, to), "probe {}", p);
                prop_assert_eq!(ours.count_between(p / 2, p), hdr.count_between(p / 2, p));
            }
        }
    }

    #[test]
    fn many_bins_go_dense_and_still_answer_as_hdr() {
        let values: Vec<u64> = (1..=20_000u64).map(|i| i * 37 % 50_000 + 1).collect();
        let (ours, hdr) = both(&values);
        assert!(matches!(ours.bins, Bins::Dense(_)), "{} bins", SPARSE_BINS);
        assert_eq!(ours.value_at_quantile(0.99), hdr.value_at_quantile(0.99));
        assert_eq!(ours.mean().to_bits(), hdr.mean().to_bits());
        assert_eq!(ours.max(), hdr.max());
    }

    #[test]
    fn a_few_values_cost_a_few_bins_however_large() {
        let mut h = LatencyHistogram::default();
        for v in [6_000_000u64, 6_100_000, 12, 6_000_000] {
            h.record(v);
        }
        // Three bins in a list; the HDR array for six seconds is 115 KB.
        assert!(h.heap_bytes() <= 64, "{} bytes", h.heap_bytes());
        assert_eq!(h.len(), 4);
    }

    #[test]
    fn count_between_clamps_to_the_last_hdr_bin_as_hdr_does() {
        // 2,047 is the top bin of the initial array: a query above it
        // clamps there and still counts it, as the HDR crate does.
        let (ours, hdr) = both(&[2_047, 5]);
        assert_eq!(hdr.count_between(5_000, 9_000), 1);
        assert_eq!(ours.count_between(5_000, 9_000), 1);
    }
}
