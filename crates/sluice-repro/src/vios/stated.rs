//! The VIOS paper's claims, stated by hand from its §5 and §7 and checked
//! against the rows of `repro vios`. A claim whose rows did not run is
//! left out; one not held carries its measured cause.

use crate::claims::{claim, num, Claim, Figures};

/// The §7 workload with the 32 threads in one class.
const TCQ: &str = "32x1000-rand4k";

/// Every claim of the paper the rows of `f` can check.
pub(super) fn claims(f: &Figures) -> Vec<Claim> {
    [
        half_shares(
            f,
            "reqsize",
            "4k-vs-256k",
            "Fig. 2, §5.2",
            "4 KB and 256 KB requests",
        ),
        small_first(f),
        half_shares(
            f,
            "seek",
            "1M-vs-64M",
            "Fig. 3, §5.3",
            "seeks of 1M and 64M sectors",
        ),
        program2_lag(f),
        crr_fairer(f, "reqsize", "4k-vs-256k"),
        crr_fairer(f, "seek", "1M-vs-64M"),
        isolated(
            f,
            "isolation_size",
            &["4k", "16k", "32k", "64k", "128k", "256k", "512k"],
            "Fig. 4",
            "request size (4-512 KB)",
        ),
        isolated(
            f,
            "isolation_seek",
            &["1M", "16M", "32M", "64M"],
            "Fig. 5",
            "seek distance (1M-64M sectors)",
        ),
        no_second_wait(f),
        ssf_starves(f),
        fairness_order(f),
        max_latency_order(f),
        execution_order(f),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// About 50% of the disk time each under VIOS.
fn half_shares(f: &Figures, exp: &str, w: &str, fig: &str, what: &str) -> Option<Claim> {
    let a = f.get(exp, "vios", w, "disk_share_app1")?;
    let b = f.get(exp, "vios", w, "disk_share_app2")?;
    // "Approximately 50%": within 10%.
    let near = |x: f64| (x / 0.5 - 1.0).abs() <= 0.1;
    Some(claim(
        exp,
        &format!("{fig}: VIOS (CFQ-CRR) gives two classes of {what} approximately 50% of the disk time each; held when each share is within 10% of 50%"),
        "about 50% each",
        format!("{:.1}% / {:.1}%", 100.0 * a, 100.0 * b),
        near(a) && near(b),
        None,
    ))
}

/// §5.2: the 4 KB application finishes first.
fn small_first(f: &Figures) -> Option<Claim> {
    let w = "4k-vs-256k";
    let a = f.get("reqsize", "vios", w, "app1_done_s")?;
    let b = f.get("reqsize", "vios", w, "app2_done_s")?;
    Some(claim(
        "reqsize",
        "§5.2: with equal disk time, Application 1 (4 KB requests) finishes before Application 2 (as many 256 KB requests); held when app1 is done first",
        "Application 1 first",
        format!("app1 {} s, app2 {} s", num(a), num(b)),
        a < b,
        None,
    ))
}

/// §5.3: Program 2 about 30 s after Program 1's about 170 s.
fn program2_lag(f: &Figures) -> Option<Claim> {
    let w = "1M-vs-64M";
    let lag = f.get("seek", "vios", w, "app2_lag_pct")?;
    let done = f.get("seek", "vios", w, "app1_done_s")?;
    let place = |m: &str| f.get("seek_placement", "vios", "10-placements", m);
    let spread = match (
        place("app2_lag_min_pct"),
        place("app2_lag_mean_pct"),
        place("app2_lag_max_pct"),
    ) {
        (Some(lo), Some(mean), Some(hi)) => format!(
            ": moving each file on by 0-1023 sectors (less than a track; the paper does not place them within a track) gives {}-{}% over 10 placements (mean {})",
            num(lo),
            num(hi),
            num(mean)
        ),
        _ => String::new(),
    };
    let per_req = match (
        f.get("seek", "vios", w, "app1_ms_per_req"),
        f.get("seek", "vios", w, "app2_ms_per_req"),
    ) {
        (Some(a), Some(b)) => format!(" (here {} against {} ms per request)", num(a), num(b)),
        _ => String::new(),
    };
    let cause = format!(
        "under equal disk time the lag is how much more time Program 2's requests take than Program 1's{per_req}, and Program 1's three threads advance in lockstep between files exactly 1M sectors apart, so each short seek waits the same long part of a revolution; the lag is set by where in a track the files start{spread}"
    );
    Some(claim(
        "seek",
        "§5.3: Program 1 finishes at about 170 s and Program 2 about 30 s later (17.6%), having spent more of its equal disk time seeking; held when Program 2's lag is within 20% of 17.6%",
        "about 30 s after 170 s (17.6%)",
        format!("{}% (Program 1 done at {} s)", num(lag), num(done)),
        (lag / (30.0 / 170.0 * 100.0) - 1.0).abs() <= 0.2,
        Some(&cause),
    ))
}

/// §3.5-3.6: CFQ-CRR compensates what FQ-RR leaves unfair.
fn crr_fairer(f: &Figures, exp: &str, w: &str) -> Option<Claim> {
    let gap = |s: &str| -> Option<f64> {
        let a = f.get(exp, s, w, "disk_share_app1")?;
        let b = f.get(exp, s, w, "disk_share_app2")?;
        Some((a - b).abs())
    };
    let (v, r) = (gap("vios")?, gap("fq-rr")?);
    Some(claim(
        exp,
        &format!("§3.5-3.6: a plain fair-queuing round robin (FQ-RR) lets a class overrun its quantum and is unfair in disk time, which CFQ-CRR compensates in the next round ({w}); held when the two classes' shares differ less under vios than under fq-rr"),
        "FQ-RR unfair, CFQ-CRR fair",
        format!(
            "share difference vios {:.1} points, fq-rr {:.1}",
            100.0 * v,
            100.0 * r
        ),
        v < r,
        None,
    ))
}

/// Figs. 4-5: app1's time does not change with app2's; only app2's grows.
fn isolated(f: &Figures, exp: &str, sizes: &[&str], fig: &str, what: &str) -> Option<Claim> {
    let get = |m: &str| -> Option<Vec<f64>> {
        sizes
            .iter()
            .map(|s| f.get(exp, "vios", &format!("app2-{s}"), m))
            .collect()
    };
    let (a1, a2) = (get("app1_done_s")?, get("app2_done_s")?);
    let hi = a1.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lo = a1.iter().copied().fold(f64::INFINITY, f64::min);
    let (first, last) = (*a2.first()?, *a2.last()?);
    Some(claim(
        exp,
        &format!("{fig}, §5.4: under VIOS, as application 2's {what} grows only its own execution time increases, with no impact on application 1's; held when app1's time stays within 5% and app2's is longer at the last setting than at the first"),
        "app1 unchanged, app2 longer",
        format!(
            "app1 {}-{} s; app2 {} -> {} s",
            num(lo),
            num(hi),
            num(first),
            num(last)
        ),
        hi / lo - 1.0 <= 0.05 && last > first,
        None,
    ))
}

fn tcq(f: &Figures, s: &str, m: &str) -> Option<f64> {
    f.get("tcq", s, TCQ, m)
}

/// §7.1: VIOS(P) has no request over one second.
fn no_second_wait(f: &Figures) -> Option<Claim> {
    let p = tcq(f, "vios-p", "pct_over_1s")?;
    let m = tcq(f, "vios-p", "max_lat_ms")?;
    Some(claim(
        "tcq",
        "Fig. 6, §7.1: VIOS(P) leaves no request with a latency of one second on a queueing drive (32 threads); held when none is over 1 s",
        "no request over 1 s",
        format!("{}% over 1 s, longest {} ms", num(p), num(m)),
        p == 0.0,
        None,
    ))
}

/// §7.1, 7.3: Deadline and Noop leave over 5% of requests over 1 s.
fn ssf_starves(f: &Figures) -> Option<Claim> {
    let mut parts = Vec::new();
    let mut held = true;
    let mut worst = (0.0_f64, 0.0_f64);
    for s in ["deadline", "noop"] {
        let p = tcq(f, s, "pct_over_1s")?;
        let m = tcq(f, s, "max_lat_ms")?;
        held = held && p >= 5.0 && m > 4000.0;
        worst = (worst.0.max(p), worst.1.max(m));
        parts.push(format!("{s} {}% over 1 s, longest {} ms", num(p), num(m)));
    }
    let cause = format!(
        "the modelled drive reorders its 32 queued commands by SATF and nothing else starves a request: at most {}% of the requests wait over 1 s, the longest {} ms; the paper does not describe its drive's firmware, whose pseudo-SSF starved far more",
        num(worst.0),
        num(worst.1)
    );
    Some(claim(
        "tcq",
        "§7.1, §7.3: Deadline and Noop fill the drive's queue and become pseudo-SSF, leaving over 5% of requests over one second and a maximum latency over four seconds; held when both exceed both bounds",
        "over 5% over 1 s, maximum over 4 s",
        parts.join("; "),
        held,
        Some(&cause),
    ))
}

/// (last - first) / last of the threads' completion times.
fn unfairness(f: &Figures, s: &str) -> Option<f64> {
    let first = tcq(f, s, "first_done_s")?;
    let last = tcq(f, s, "last_done_s")?;
    Some((last - first) / last)
}

/// §7.1: VIOS fairest, VIOS(P) close behind, Deadline and Noop less fair.
fn fairness_order(f: &Figures) -> Option<Claim> {
    let v = unfairness(f, "vios")?;
    let p = unfairness(f, "vios-p")?;
    let d = unfairness(f, "deadline")?;
    let n = unfairness(f, "noop")?;
    Some(claim(
        "tcq",
        "Fig. 6, §7.1-7.2: VIOS gives the best fairness among the 32 threads, followed closely by VIOS(P), while Deadline and Noop are less fair; held when the spread of completion times, (last - first) / last, orders vios < vios-p < deadline and noop",
        "VIOS, then VIOS(P), then the others",
        format!(
            "spread vios {:.1}%, vios-p {:.1}%, deadline {:.1}%, noop {:.1}%",
            100.0 * v,
            100.0 * p,
            100.0 * d,
            100.0 * n
        ),
        v < p && p < d.min(n),
        None,
    ))
}

/// §7.1: VIOS and VIOS(P) have the best maximum latency, in that order.
fn max_latency_order(f: &Figures) -> Option<Claim> {
    let v = tcq(f, "vios", "max_lat_ms")?;
    let p = tcq(f, "vios-p", "max_lat_ms")?;
    let others: Vec<f64> = ["noop", "deadline", "cfq"]
        .into_iter()
        .filter_map(|s| tcq(f, s, "max_lat_ms"))
        .collect();
    let best_other = others.iter().copied().fold(f64::INFINITY, f64::min);
    Some(claim(
        "tcq",
        "Fig. 6, §7.1: VIOS and VIOS(P) give the best maximum latency, in that order; held when vios < vios-p < every other scheduler's",
        "VIOS, then VIOS(P)",
        format!(
            "vios {} ms, vios-p {} ms, others from {} ms",
            num(v),
            num(p),
            num(best_other)
        ),
        v < p && p < best_other,
        None,
    ))
}

/// §7.2: VIOS the worst execution time; VIOS(P) improves on it.
fn execution_order(f: &Figures) -> Option<Claim> {
    let v = tcq(f, "vios", "last_done_s")?;
    let p = tcq(f, "vios-p", "last_done_s")?;
    let others: Vec<f64> = ["noop", "deadline", "cfq"]
        .into_iter()
        .filter_map(|s| tcq(f, s, "last_done_s"))
        .collect();
    let worst_other = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(claim(
        "tcq",
        "§7.2: sending one request at a time, VIOS has the worst execution time, and VIOS(P), dispatching several, improves on it; held when vios's last thread finishes after every other scheduler's and vios-p's before vios's",
        "VIOS worst, VIOS(P) better",
        format!(
            "last done: vios {} s, vios-p {} s, others up to {} s",
            num(v),
            num(p),
            num(worst_other)
        ),
        v > p && v > worst_other,
        None,
    ))
}
