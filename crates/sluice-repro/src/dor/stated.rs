//! The Nam–Park paper's claims, stated by hand from its §3.2 and checked
//! against the rows of `repro dor`. A claim whose rows did not run is left
//! out; one not held carries its measured cause, with the figures of this
//! run where the rows give them.

use crate::claims::{claim, num, Claim, Figures};

/// The paper's M_dmo levels (percent of the full stroke), as in the rows.
const MDMO: [u32; 7] = [0, 5, 10, 20, 40, 60, 100];
/// The paper's "more than 98% accuracy" of the 4:1 ratio (§3.2.3).
const RATIO_FLOOR: f64 = 0.98 * 4.0;
/// Why a short run misses Fig. 9(b)'s range at |IO| 61: measured with
/// `sim` at seed 1 over windows of the same run.
const WRITE_CACHE: &str = "the drive's write cache absorbs writes until it fills, about 13 s into a run: YFQ (M_qos 0) at |IO| 61 runs 85-87 IOPS over 2-15 s and 80-81 IOPS after (seed 1; seeds 1-5 give 82.7-85.2 IOPS over 15 s runs against 80.8-82.5 over 60 s runs), so a 15 s (--quick) run's baseline is about 4% high and the gains low; the 60 s runs give +14.0% and +13.6%";
/// Why the ratio misses 2% in a short run: measured with `sim`, YFQ alone.
const RATIO_NOISE: &str = "the measured window's count of RQ2 requests does not resolve 2%: over seeds 1-8 at |IO| 11, YFQ alone measures 3.89-4.13 in 15 s runs (about 220 RQ2 requests in the window) and 3.98-4.06 in 60 s runs";

/// Every claim of the paper the rows of `f` can check.
pub(super) fn claims(f: &Figures) -> Vec<Claim> {
    [
        nothing_passes_at_zero(f),
        best_mdmo(f, 11),
        best_mdmo(f, 61),
        length_about_8(f),
        ratio_kept(
            f,
            "yfq",
            "YFQ (M_qos 0) provides the 4:1 of its weights",
            "4.00:1",
        ),
        ratio_kept(
            f,
            "dor-q0.5,dor-q1",
            "DOR with M_qos 0.5 and 1 keeps the 4:1 ratio with more than 98% accuracy",
            "3.99:1 and 3.96:1",
        ),
        gain_over_yfq(f, 11),
        gain_over_yfq(f, 61),
        fig5_throughput(f),
        fig6_rq2(f),
        fig7_dor_io(f),
        fig8_ratio(f),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn io(n: u32) -> String {
    format!("io={n}")
}

/// The |IO| levels of experiment `exp` (from its workloads), ascending.
fn levels(f: &Figures, exp: &str) -> Vec<u32> {
    let mut v: Vec<u32> = f
        .rows(exp)
        .filter_map(|r| r.workload.strip_prefix("io=")?.parse().ok())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// §3.2.1: with M_dmo = 0 no request passes DOR, so DOR is BQS alone.
fn nothing_passes_at_zero(f: &Figures) -> Option<Claim> {
    let pairs: Vec<(u32, f64, f64)> = levels(f, "mdmo")
        .into_iter()
        .filter_map(|n| {
            let d = f.get("mdmo", "dor", &io(n), "mdmo=0")?;
            let y = f.get("vs_yfq", "yfq", &io(n), "iops")?;
            Some((n, d, y))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let held = pairs.iter().all(|(_, d, y)| (d - y).abs() < 1e-9);
    let worst = pairs
        .iter()
        .max_by(|a, b| (a.1 - a.2).abs().total_cmp(&(b.1 - b.2).abs()))?;
    Some(claim(
        "mdmo",
        "§3.2.1: with M_dmo = 0 no request passes the DOR module, so the throughput is BQS's alone (M_qos 0, same |IO|); held when equal at every |IO|",
        "no I/O requests pass with M_dmo = 0",
        format!(
            "equal at {} of {} levels (largest difference at |IO| {}: {} against {} IOPS)",
            pairs.iter().filter(|(_, d, y)| (d - y).abs() < 1e-9).count(),
            pairs.len(),
            worst.0,
            num(worst.1),
            num(worst.2)
        ),
        held,
        Some(&format!(
            "DOR inserted requests with a zero margin: |S_expanded| at M_dmo 0 is {} at |IO| {} (the base alone is 4)",
            f.get("mdmo", "dor", &io(worst.0), "len@mdmo=0")
                .map_or("-".into(), num),
            worst.0
        )),
    ))
}

/// Fig. 3: the best M_dmo is 20 at |IO| 11 and 61.
fn best_mdmo(f: &Figures, n: u32) -> Option<Claim> {
    let w = io(n);
    let by = |exp: &str, sched: &str| -> Option<Vec<(u32, f64)>> {
        MDMO.iter()
            .map(|&m| Some((m, f.get(exp, sched, &w, &format!("mdmo={m}"))?)))
            .collect()
    };
    let ours = by("mdmo", "dor")?;
    let best = |v: &[(u32, f64)]| v.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
    let (bm, bv) = best(&ours)?;
    let at20 = ours.iter().find(|x| x.0 == 20)?.1;
    let len = |m: u32| f.get("mdmo", "dor", &w, &format!("len@mdmo={m}"));
    let printed = by("mdmo_paper_stroke", "dor drive_stroke=false")
        .and_then(|v| {
            let (pm, pv) = best(&v)?;
            let p20 = v.iter().find(|x| x.0 == 20)?.1;
            Some(format!(
                "; of the paper's printed 17.742 ms stroke, 20 gives {} IOPS and the best is {pm} ({} IOPS)",
                num(p20),
                num(pv)
            ))
        })
        .unwrap_or_default();
    let cause = format!(
        "throughput keeps rising past 20% of the drive's 12.742 ms full stroke (2.5 ms): a margin that narrow lets few requests into the gaps of the 4-request C-SCAN base (|S_expanded| {} at M_dmo 20, {} at 40){printed}",
        len(20).map_or("-".into(), num),
        len(40).map_or("-".into(), num),
    );
    Some(claim(
        "mdmo",
        &format!("Fig. 3, §3.2.1: at |IO| = {n} the throughput is highest at M_dmo = 20 (M_qos 0.5); held when no other M_dmo gives more"),
        "maximum at M_dmo = 20",
        format!(
            "M_dmo 20: {} IOPS; best {bm}: {} IOPS",
            num(at20),
            num(bv)
        ),
        bm == 20,
        Some(&cause),
    ))
}

/// Fig. 4: |S_expanded| saturates at about 8 from M_dmo = 20 (|IO| 61).
fn length_about_8(f: &Figures) -> Option<Claim> {
    let w = io(61);
    let lens: Vec<(u32, f64)> = [20, 40, 60, 100]
        .into_iter()
        .map(|m| Some((m, f.get("mdmo", "dor", &w, &format!("len@mdmo={m}"))?)))
        .collect::<Option<_>>()?;
    // "About 8", read off a figure: within 20%.
    let held = lens.iter().all(|(_, l)| (l / 8.0 - 1.0).abs() <= 0.2);
    let bounded: Vec<String> = [20, 40, 60, 100]
        .into_iter()
        .filter_map(|m| {
            f.get(
                "bounded_walk",
                "dor bounded_walk=true",
                &w,
                &format!("len@mdmo={m}"),
            )
        })
        .map(num)
        .collect();
    let cause = format!(
        "read literally, Algorithm 2 walks to the base's last request however many it inserted, so only Properties 1 and 2 bound the length, and a wide margin lets the walk drain both queues{}",
        if bounded.is_empty() {
            String::new()
        } else {
            format!(
                "; read as ending at the base's 4th position (bounded_walk) it saturates: {} at M_dmo 20/40/60/100",
                bounded.join("/")
            )
        }
    );
    Some(claim(
        "mdmo",
        "Fig. 4, §3.2.1: at |IO| = 61 the expanded sequence's length saturates at about 8 from M_dmo = 20 up; held when within 20% of 8 at M_dmo 20, 40, 60 and 100",
        "about 8 from M_dmo = 20",
        format!(
            "{} at M_dmo 20/40/60/100",
            lens.iter().map(|x| num(x.1)).collect::<Vec<_>>().join("/")
        ),
        held,
        Some(&cause),
    ))
}

/// Fig. 9(a): the ratio of `scheds` (comma-separated) at every |IO| from 2
/// up within 2% of 4:1.
fn ratio_kept(f: &Figures, scheds: &str, says: &str, paper: &str) -> Option<Claim> {
    let mut vals = Vec::new();
    for n in levels(f, "vs_yfq").into_iter().filter(|&n| n >= 2) {
        for s in scheds.split(',') {
            vals.push((n, s, f.get("vs_yfq", s, &io(n), "ratio")?));
        }
    }
    let lo = vals.iter().min_by(|a, b| a.2.total_cmp(&b.2))?;
    let hi = vals.iter().max_by(|a, b| a.2.total_cmp(&b.2))?;
    let held = vals.iter().all(|v| (v.2 - 4.0).abs() <= 4.0 - RATIO_FLOOR);
    let yfq: Vec<f64> = vals
        .iter()
        .filter_map(|(n, ..)| f.get("vs_yfq", "yfq", &io(*n), "ratio"))
        .collect();
    let ylo = yfq.iter().copied().fold(f64::INFINITY, f64::min);
    let yhi = yfq.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let cause = format!(
        "YFQ, whose tags hold 4:1 by construction, itself measures {}-{} over the same levels in this run: {RATIO_NOISE}",
        num(ylo),
        num(yhi)
    );
    Some(claim(
        "vs_yfq",
        &format!("Fig. 9(a), §3.2.3: {says} (80:20) at every |IO|; held when within 2% of 4:1 (the paper's 98% accuracy) from |IO| = 2 up (one request per queue can make no 4:1)"),
        paper,
        format!(
            "{}-{} (lowest {} at |IO| {}, highest {} at {})",
            num(lo.2),
            num(hi.2),
            lo.1,
            lo.0,
            hi.1,
            hi.0
        ),
        held,
        Some(&cause),
    ))
}

/// Fig. 9(b): DOR (M_qos 0.5 and 1) gains 11-19% over YFQ (M_qos 0).
fn gain_over_yfq(f: &Figures, n: u32) -> Option<Claim> {
    let w = io(n);
    let g05 = f.get("vs_yfq", "dor-q0.5", &w, "gain_vs_yfq")?;
    let g1 = f.get("vs_yfq", "dor-q1", &w, "gain_vs_yfq")?;
    let within = |g: f64| (11.0..=19.0).contains(&g);
    let held = within(g05) && within(g1);
    let cause = if n == 61 {
        WRITE_CACHE.to_string()
    } else {
        stroke_cause(f, n)
    };
    let at = if n == 61 {
        "at the maximum throughput, the heaviest level |IO| = 61"
    } else {
        "read at |IO| = 11, the lighter of the two levels the paper's Figs. 3, 6 and 7 single out"
    };
    Some(claim(
        "vs_yfq",
        &format!("Fig. 9(b), §3.2.3: DOR with M_dmo 20 and M_qos 0.5 and 1 gives 11-19% more throughput than YFQ (M_qos 0), {at}; held when both gains lie in 11-19%"),
        "+11-19%",
        format!("M_qos 0.5: {:+.1}%, M_qos 1: {:+.1}%", g05, g1),
        held,
        Some(&cause),
    ))
}

/// Why the gain at a light level is small: the margin M_dmo makes of the
/// full stroke, with the gain under the paper's printed stroke.
pub(super) fn stroke_cause(f: &Figures, n: u32) -> String {
    let w = io(n);
    let y = f.get("vs_yfq", "yfq", &w, "iops");
    let pct = |x: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => format!("{:+.1}%", 100.0 * (x / y - 1.0)),
        _ => "-".into(),
    };
    let own = pct(f.get("mdmo", "dor", &w, "mdmo=20"));
    let printed = pct(f.get("mdmo_paper_stroke", "dor drive_stroke=false", &w, "mdmo=20"));
    let best = MDMO
        .iter()
        .filter_map(|&m| Some((m, f.get("mdmo", "dor", &w, &format!("mdmo={m}"))?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let best = best.map_or(String::new(), |(m, v)| {
        format!(", and the best margin ({m}%) {}", pct(Some(v)))
    });
    format!(
        "at |IO| {n} the gain depends on the full stroke M_dmo is a share of: M_dmo 20 (M_qos 0.5) of the drive's 12.742 ms stroke (2.5 ms) gives {own}, of the paper's printed 17.742 ms (3.5 ms) {printed}{best}; with {n} requests per queue the 4-request C-SCAN base leaves few requests near enough to fill its gaps"
    )
}

/// Why M_qos does not move throughput or the ratio (Figs. 5-8), with this
/// run's figures at |IO| 61.
fn dqe_cause(f: &Figures) -> String {
    let g = |m: &str| f.get("mqos", "dor", "io=61", m);
    let refusals = match (g("dqe_refusals@mqos=0.5"), g("dqe_refusals@mqos=5")) {
        (Some(a), Some(b)) => format!(
            " (at |IO| 61 it leaves {} gaps a second empty at M_qos 0.5 and {} at 5)",
            num(a),
            num(b)
        ),
        _ => String::new(),
    };
    let free = match (g("iops@mqos=0.5"), g("iops@mqos=1000"), g("ratio@mqos=1000")) {
        (Some(a), Some(b), Some(r)) => format!(
            "; only with no bound reached (M_qos 1000) does DOR gain more, {:+.1}%, while the ratio falls to {}",
            100.0 * (b / a - 1.0),
            num(r)
        ),
        _ => String::new(),
    };
    format!(
        "not reproduced: DQE bounds how far the queues' additional finish tags drift apart, so with both queues backlogged each queue's DOR requests keep its weight whatever M_qos is, and M_qos cannot raise throughput or RQ2's share the way the figure shows{refusals}{free}; the paper's Figs. 8 and 9 disagree with each other at M_qos 1 (2% deterioration, 3.92:1, against 3.96:1)"
    )
}

/// The (M_qos 0.5, M_qos `k`) values of `metric` at every |IO| of the mqos
/// rows from 6 up.
fn mqos_pairs(f: &Figures, metric: &str, k: &str) -> Option<Vec<(u32, f64, f64)>> {
    let v: Vec<_> = levels(f, "mqos")
        .into_iter()
        .filter(|&n| n >= 6)
        .map(|n| {
            let a = f.get("mqos", "dor", &io(n), &format!("{metric}@mqos=0.5"))?;
            let b = f.get("mqos", "dor", &io(n), &format!("{metric}@mqos={k}"))?;
            Some((n, a, b))
        })
        .collect::<Option<_>>()?;
    (!v.is_empty()).then_some(v)
}

/// The largest `b / a - 1` of the pairs, in percent, with its level.
fn top_change(v: &[(u32, f64, f64)]) -> (u32, f64) {
    v.iter()
        .map(|(n, a, b)| (*n, 100.0 * (b / a - 1.0)))
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((0, f64::NAN))
}

/// Fig. 5: M_qos >= 5 gives over 10% more than M_qos 0.5.
fn fig5_throughput(f: &Figures) -> Option<Claim> {
    let v5 = mqos_pairs(f, "iops", "5")?;
    let v10 = mqos_pairs(f, "iops", "10")?;
    let held = v5.iter().chain(&v10).all(|(_, a, b)| *b > 1.1 * a);
    let (n5, t5) = top_change(&v5);
    let (n10, t10) = top_change(&v10);
    Some(claim(
        "mqos",
        "Fig. 5, §3.2.2: with M_dmo 20, M_qos >= 5 gives over 10% more aggregate throughput than M_qos 0.5; held when M_qos 5 and 10 each give over 10% more at every |IO| from 6 up",
        "over +10% at M_qos >= 5",
        format!("largest gain over M_qos 0.5: {t5:+.1}% at M_qos 5 (|IO| {n5}), {t10:+.1}% at 10 (|IO| {n10})"),
        held,
        Some(&dqe_cause(f)),
    ))
}

/// Fig. 6: RQ1 falls and RQ2 rises as M_qos grows.
fn fig6_rq2(f: &Figures) -> Option<Claim> {
    let mut parts = Vec::new();
    let mut held = true;
    for n in [11, 61] {
        let g = |m: &str| f.get("mqos", "dor", &io(n), m);
        let (r1a, r1b) = (g("rq1_iops@mqos=0.5")?, g("rq1_iops@mqos=5")?);
        let (r2a, r2b) = (g("rq2_iops@mqos=0.5")?, g("rq2_iops@mqos=5")?);
        // Fig. 8's 5% deterioration at M_qos 5 alone moves RQ2's share
        // from 1/5 to 1/4.8 of the total: +4%.
        held = held && r2b >= 1.04 * r2a && r1b < r1a;
        parts.push(format!(
            "|IO| {n}: RQ1 {} -> {}, RQ2 {} -> {} IOPS",
            num(r1a),
            num(r1b),
            num(r2a),
            num(r2b)
        ));
    }
    Some(claim(
        "mqos",
        "Fig. 6, §3.2.2: as M_qos grows RQ1's throughput decreases and RQ2's improves (|IO| 11 and 61, M_dmo 20); held when from M_qos 0.5 to 5 RQ1 falls and RQ2 rises by at least 4%, the least Fig. 8's 5% deterioration at M_qos 5 implies",
        "RQ1 decreases, RQ2 improves",
        parts.join("; "),
        held,
        Some(&dqe_cause(f)),
    ))
}

/// Fig. 7: DOR_IO grows with M_qos and comes to dominate BQS_IO.
fn fig7_dor_io(f: &Figures) -> Option<Claim> {
    let mut parts = Vec::new();
    let mut held = true;
    for n in [11, 61] {
        let g = |m: &str| f.get("mqos", "dor", &io(n), m);
        let (da, db) = (g("dor_iops@mqos=0.5")?, g("dor_iops@mqos=5")?);
        let (ba, bb) = (g("bqs_iops@mqos=0.5")?, g("bqs_iops@mqos=5")?);
        let total = g("iops@mqos=0.5")?;
        // Fig. 5's over-10% gain at M_qos 5, as BQS_IO diminishes, is
        // DOR_IO's.
        held = held && db - da >= 0.1 * total && bb < ba && db > bb;
        parts.push(format!(
            "|IO| {n}: DOR_IO {} -> {}, BQS_IO {} -> {} IOPS",
            num(da),
            num(db),
            num(ba),
            num(bb)
        ));
    }
    Some(claim(
        "mqos",
        "Fig. 7, §3.2.2: as M_qos grows DOR_IO comes to dominate each queue's throughput while BQS_IO diminishes (|IO| 11 and 61, M_dmo 20); held when from M_qos 0.5 to 5 DOR_IO grows by at least a tenth of the total (Fig. 5's gain), BQS_IO falls and DOR_IO ends above it",
        "DOR_IO grows and dominates",
        parts.join("; "),
        held,
        Some(&dqe_cause(f)),
    ))
}

/// Fig. 8: the 4:1 ratio deteriorates by 5% at M_qos 5.
fn fig8_ratio(f: &Figures) -> Option<Claim> {
    let mut parts = Vec::new();
    let mut held = true;
    for n in [11, 61] {
        let r = f.get("mqos", "dor", &io(n), "ratio@mqos=5")?;
        held = held && (r / 3.8 - 1.0).abs() <= 0.02;
        parts.push(format!("|IO| {n}: {}", num(r)));
    }
    Some(claim(
        "mqos",
        "Fig. 8, §3.2.2: the 4:1 ratio deteriorates as M_qos grows, by 5% at M_qos 5 (M_dmo 20); held when the ratio at M_qos 5 is within 2% (the paper's accuracy unit) of 3.80 at |IO| 11 and 61",
        "3.80:1 at M_qos 5 (1% at 0.5, 2% at 1)",
        format!("at M_qos 5: {}", parts.join(", ")),
        held,
        Some(&dqe_cause(f)),
    ))
}
