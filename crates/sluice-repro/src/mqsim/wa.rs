//! Write amplification of greedy garbage collection under uniform random
//! writes, from the analytic model: the `paper` column of the
//! `write_amplification` experiment.
//!
//! P. Desnoyers, "Analytic Models of SSD Write Performance", ACM
//! Transactions on Storage 10(2), 2014 (SYSTOR 2012), greedy cleaning in
//! the limit of many pages per block: with `alpha` = physical pages ÷
//! logical pages, the block greedy picks holds a share `u` of valid pages
//! with `alpha * (1 - u) = -ln u` (his closed form is `A = alpha / (alpha +
//! W0(-alpha e^-alpha))`, `W0` Lambert's function, the same root), and each
//! page the host writes costs `A = 1 / (1 - u)` flash writes. Bux and
//! Iliadis ("Performance of greedy garbage collection in flash-based
//! solid-state drives", Performance Evaluation 67(11), 2010) reach the same
//! limit.

/// Share of the physical pages held back (MQSim's
/// `Overprovisioning_Ratio`: logical pages = physical × (1 - op)) →
/// physical ÷ logical, Desnoyers' `alpha`; None outside (0, 1).
fn alpha(op: f64) -> Option<f64> {
    (op > 0.0 && op < 1.0).then(|| 1.0 / (1.0 - op))
}

/// Valid share `u` of greedy's victim block: the root in (0, 1/alpha) of
/// `alpha (1 - u) + ln u = 0`, found by bisection (the left side rises from
/// -inf at 0 to its peak at 1/alpha, where it is positive for alpha > 1;
/// its other root, u = 1, is the trivial one).
fn victim_valid_share(alpha: f64) -> f64 {
    let g = |u: f64| alpha * (1.0 - u) + u.ln();
    let (mut lo, mut hi) = (f64::MIN_POSITIVE, 1.0 / alpha);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Desnoyers' write amplification of greedy GC under uniform random writes
/// at over-provisioning `op` (MQSim's definition, a share of the physical
/// pages); None unless 0 < op < 1.
pub(crate) fn greedy_uniform(op: f64) -> Option<f64> {
    let u = victim_valid_share(alpha(op)?);
    Some(1.0 / (1.0 - u))
}
