//! Tests of `output.rs` that need no run (runs through the simulator are
//! in `tests/fio.rs`).

use super::*;

#[test]
fn fios_time_format() {
    assert_eq!(ctime(1_795_516_539), "Tue Nov 24 10:35:39 2026");
    assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
}

#[test]
fn latency_buckets_read_the_cdf_and_sum_to_a_hundred() {
    let cdf = [[0.0, 0.0005], [50.0, 0.003], [90.0, 3.0], [100.0, 3000.0]];
    // Half the requests within 3 us, 90% within 3 ms, all within 3 s.
    assert!((share_within(&cdf, 0.003) - 0.5).abs() < 1e-9);
    assert!((share_within(&cdf, 3.0) - 0.9).abs() < 1e-9);
    assert_eq!(share_within(&cdf, 1e9), 1.0);
    assert_eq!(share_within(&cdf, 0.0001), 0.0);
    // Linear between points: 1.5015 ms is halfway from 3 us to 3 ms.
    assert!((share_within(&cdf, 1.5015) - 0.7).abs() < 1e-6);
}
