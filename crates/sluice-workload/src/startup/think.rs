//! The think time of a `replay = "think"` start-up: an estimate of the CPU
//! time the recorded program spent before each request.
//!
//! Column 2 of a trace is the gap since the previous request of the whole
//! trace. After a synchronous request (R, RM, WS) that gap also holds the
//! original disk's service of that request, which the program waited for;
//! after a read-ahead (RA) it does not, since nothing waited for it. So
//!
//! `think_i = min(MAX_THINK, max(0, gap_i - wait_i))`, with `wait_i` = 0
//! after a read-ahead and, after a synchronous request of class `c` (`Seq`
//! or `Rand`, column 5), the median of the gaps that follow the trace's
//! synchronous requests of class `c`.
//!
//! The median is the trace's own measure of its disk: the gap after a
//! blocking read is its service plus the program's CPU time, and the median
//! keeps the long tail of CPU bursts out while following the recording's
//! disk (xterm's `Rand` median, 11.2 ms, is a 7200 rpm disk's random access;
//! gnome-terminal's, 0.3 ms, says its reads mostly hit a cache). It is an
//! estimate: it takes half of the gaps after synchronous reads to hold no
//! CPU time at all, and ignores the size of the read.

use sluice::Duration;

use super::StartupRecord;

/// The longest single think time (100 ms). A longer recorded gap is a
/// pause of the recording (the X server waiting for a client, a timer),
/// not CPU time between two reads, and a replay on another disk would not
/// pause for it as long.
pub const MAX_THINK: Duration = Duration::from_millis(100);

/// The estimated think time before each record (0 before the first).
pub fn estimate(records: &[StartupRecord]) -> Vec<Duration> {
    let wait = [false, true].map(|seq| median_gap_after_sync(records, seq));
    let mut think = Vec::with_capacity(records.len());
    think.push(Duration::ZERO);
    for pair in records.windows(2) {
        let (prev, r) = (&pair[0], &pair[1]);
        let waited = if prev.blocking {
            wait[usize::from(prev.seq)]
        } else {
            Duration::ZERO
        };
        think.push(r.think.saturating_sub(waited).min(MAX_THINK));
    }
    think.truncate(records.len());
    think
}

/// The median of the gaps that follow synchronous records whose class is
/// `seq` (the mean of the two middle ones for an even count; 0 if none).
fn median_gap_after_sync(records: &[StartupRecord], seq: bool) -> Duration {
    let mut gaps: Vec<u64> = records
        .windows(2)
        .filter(|p| p[0].blocking && p[0].seq == seq)
        .map(|p| p[1].think.as_nanos())
        .collect();
    gaps.sort_unstable();
    let n = gaps.len();
    // Gaps are at most a day ([`super::MAX_THINK_S`]): two of them add without
    // overflow.
    let ns = match n {
        0 => 0,
        _ if n % 2 == 1 => gaps[n / 2],
        _ => (gaps[n / 2 - 1] + gaps[n / 2]) / 2,
    };
    Duration::from_nanos(ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::startup::StartupTrace;

    fn trace(text: &str) -> StartupTrace {
        StartupTrace::parse("t", "t", text).unwrap()
    }

    fn ms(d: Duration) -> f64 {
        d.as_millis_f64()
    }

    /// Synchronous `Rand` reads followed by gaps of 10, 12, 30 and 400 ms
    /// (median 21 ms), and a read-ahead followed by 5 ms.
    const HAND_MADE: &str = "a-1 0 8 0 Rand 0 0 R 0 START\n\
                             a-1 .010 8 0 Rand 0 0 R 0 C\n\
                             a-1 .012 8 0 Rand 0 0 R 0 C\n\
                             a-1 .030 8 0 Seq 0 0 RA 0 C\n\
                             a-1 .005 8 0 Rand 0 0 R 0 C\n\
                             b-2 .400 8 0 Seq 0 0 R 0 C\n";

    #[test]
    fn a_gap_after_a_sync_read_loses_the_median_wait_of_its_class() {
        let t = estimate(&trace(HAND_MADE).records);
        assert_eq!(t.len(), 6);
        assert_eq!(t[0], Duration::ZERO);
        // 10 ms and 12 ms after Rand reads: below the median, no think.
        assert_eq!(t[1], Duration::ZERO);
        assert_eq!(t[2], Duration::ZERO);
        // 30 ms after a Rand read: 30 - 21.
        assert!((ms(t[3]) - 9.0).abs() < 1e-9, "{:?}", t[3]);
    }

    #[test]
    fn a_gap_after_a_read_ahead_is_all_think() {
        let t = estimate(&trace(HAND_MADE).records);
        assert!((ms(t[4]) - 5.0).abs() < 1e-9, "{:?}", t[4]);
    }

    #[test]
    fn a_recording_pause_is_capped() {
        // 400 - 21 ms after a Rand read: more than the bound.
        let t = estimate(&trace(HAND_MADE).records);
        assert_eq!(t[5], MAX_THINK);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        let r = trace(
            "a-1 0 8 0 Seq 0 0 R 0 START\na-1 .002 8 0 Seq 0 0 R 0 C\n\
             a-1 .004 8 0 Rand 0 0 RA 0 C\na-1 .1 8 0 Rand 0 0 R 0 C\n",
        )
        .records;
        assert_eq!(median_gap_after_sync(&r, true), Duration::from_millis(3));
        assert_eq!(median_gap_after_sync(&r, false), Duration::ZERO);
    }
}
