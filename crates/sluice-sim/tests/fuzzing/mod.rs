//! What the fuzz test files share: awkward numbers, the mutation of a
//! shipped file's numbers, proptest's bounded configuration, and running
//! an accepted scenario for a moment.
#![allow(dead_code)] // each test file uses some of these

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use sluice::Duration;
use sluice_runtime::Scenario;

/// The repository's root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Awkward values for a number.
pub(crate) const BAD: &[&str] = &[
    "0",
    "-1",
    "1",
    "0.5",
    "-0.0",
    "1e300",
    "-1e300",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "18446744073709551616",
    "9223372036854775807",
    "4294967296",
    "99999999999",
    "1.3e11",
    "4000000000",
    "",
    "x",
    // Past u64 and i64, and near them: sums and products of these wrap.
    "18446744073709551615",
    "9223372036854775808",
    "18446744073709543424",
    "-9223372036854775808",
    "-18446744073709551616",
    "36028797018963968",
    "340282366920938463463374607431768211456",
];

/// Byte ranges of the numbers in `text` (not parts of words).
pub(crate) fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0
            && (b[i - 1].is_ascii_alphabetic() || b[i - 1] == b'_' || b[i - 1].is_ascii_digit());
        if starts && !after_word {
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// `text` with its `which`th number replaced by `by`.
pub(crate) fn mutate(text: &str, which: Index, by: &str) -> String {
    let spans = numbers(text);
    if spans.is_empty() {
        return text.to_string();
    }
    let (a, b) = spans[which.index(spans.len())];
    format!("{}{by}{}", &text[..a], &text[b..])
}

/// A value to put in place of a number: an awkward one or any number.
pub(crate) fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(BAD).prop_map(str::to_string),
        1 => any::<f64>().prop_map(|x| x.to_string()),
        1 => any::<i64>().prop_map(|x| x.to_string()),
    ]
}

pub(crate) fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Run an accepted scenario for a moment of simulated time.
pub(crate) fn run_briefly(mut s: Scenario) {
    let in_flight: u64 = s.flows.iter().map(|f| u64::from(f.outstanding)).sum();
    if s.flows.len() > 64 || in_flight > 4096 {
        // Accepted and bounded in memory (see check_memory); too slow for a
        // debug build's fuzz loop.
        return;
    }
    s.duration = s.duration.min(Duration::from_millis(100));
    s.warmup = Duration::from_nanos(0);
    let _ = sluice_sim::simulate(&s);
}

/// A number a reader must survive: an awkward one, a small one, or one
/// that wraps a sum or a product.
pub(crate) fn num() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => value(),
        3 => (0u64..100_000).prop_map(|x| x.to_string()),
        1 => prop::sample::select(&[u64::MAX, 1 << 63, 18446744073709543424, (1 << 55) + 1, 1 << 32][..])
            .prop_map(|x| x.to_string()),
    ]
}

/// Longest a single case may take in a debug build: every reader is
/// bounded, so more is a hang in the making.
pub(crate) const CASE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);
