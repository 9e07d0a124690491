//! Golden checks of the reproductions (quick versions): the shapes the
//! papers report and that the model reproduces today. A change to a policy
//! or the disk model that breaks one of them must be explained in the
//! README, not slipped in.

use sluice_sim::repro::{run, ReproReport};

fn quick(paper: &str) -> ReproReport {
    run(paper, true, &|_, _| {}).unwrap()
}

fn value(r: &ReproReport, exp: &str, sched: &str, workload: &str, metric: &str) -> f64 {
    let e = r
        .experiments
        .iter()
        .find(|e| e.id == exp)
        .unwrap_or_else(|| panic!("{exp} missing"));
    let rows: Vec<_> = e
        .rows
        .iter()
        .filter(|x| x.scheduler == sched && x.workload == workload && x.metric == metric)
        .collect();
    assert_eq!(rows.len(), 1, "{exp} {sched} {workload} {metric}");
    rows[0].ours
}

#[test]
fn bfq_shapes() {
    let r = quick("bfq");
    let bfqp = value(&r, "throughput", "bfq+", "10r-seq", "aggregate");
    let cfq = value(&r, "throughput", "cfq", "10r-seq", "aggregate");
    assert!(
        (75.0..=90.0).contains(&bfqp) && bfqp > 1.05 * cfq,
        "{bfqp} {cfq}"
    );
    // BFQ+ starts xterm under load far faster than CFQ.
    let x = |s| value(&r, "startup", s, "10r-seq", "xterm");
    assert!(x("cfq") > 3.0 * x("bfq+"), "{} {}", x("cfq"), x("bfq+"));
    // BFQ's later raised-queue idling and timeout: faster start-ups, paid
    // for by a video player beside repeated start-ups.
    let later = "bfq+ raised_idle_factor=3 raised_timeout=true";
    assert!(x(later) < 0.75 * x("bfq+"), "{} {}", x(later), x("bfq+"));
    let drops = |s| value(&r, "video", s, "10r-seq", "drop_rate");
    assert!(
        drops(later) > 2.0 * drops("bfq+"),
        "{} {}",
        drops(later),
        drops("bfq+")
    );
    // Under NCQ a raised start-up still idles, which noop cannot do.
    let ncq = |s| value(&r, "ncq", s, "10r-seq", "xterm");
    assert!(
        ncq("noop") > 3.0 * ncq("bfq+"),
        "{} {}",
        ncq("noop"),
        ncq("bfq+")
    );
    for (i, ideal) in [1.0 / 6.0, 2.0 / 6.0, 3.0 / 6.0].iter().enumerate() {
        let share = value(
            &r,
            "weights",
            "bfq",
            "3r-seq-w100:200:300",
            &format!("share_r{i}"),
        );
        assert!((share - ideal).abs() < 0.03, "r{i}: {share}");
    }
}

#[test]
fn yfq_shapes() {
    let r = quick("yfq");
    let t: Vec<f64> = (1..=3)
        .map(|k| {
            value(
                &r,
                "pipelining",
                "yfq-b1",
                "3tasks",
                &format!("task{k}_kb_s"),
            )
        })
        .collect();
    let (lo, hi) = (
        t.iter().cloned().fold(f64::MAX, f64::min),
        t.iter().cloned().fold(0.0, f64::max),
    );
    assert!(hi <= 1.1 * lo, "{t:?}");
    // Tables 1-2: FreeBSD's pipeline into a reordering drive starves task
    // 1; drive firmware ageing bounds its wait by the ageing limit (plus
    // the command in service and its own).
    let bsd = |s, m: &str| value(&r, "pipelining", s, "3tasks", m);
    assert!(
        bsd("bsd", "task1_kb_s") < 0.05 * bsd("bsd", "task2_kb_s"),
        "{} {}",
        bsd("bsd", "task1_kb_s"),
        bsd("bsd", "task2_kb_s")
    );
    let aged = bsd("bsd-aged", "task1_maxdelay_ms");
    assert!(
        bsd("bsd-aged", "task1_kb_s") > 0.0 && (1400.0..=1500.0).contains(&aged),
        "{aged}"
    );
    // Figs. 2-3: b = 4 beats b = 1, b = 16 beats b = 4, and overlapping
    // beats b = 4 without it (the drive starts a new batch's first request
    // at once; with overlap it chooses among the whole batch).
    for size in ["64k", "8k"] {
        let w = format!("{size}-8tasks");
        let agg = |s| value(&r, "batching", s, &w, "aggregate_kb_s");
        let (b1, b4, b16, o4) = (
            agg("yfq-b1"),
            agg("yfq-b4"),
            agg("yfq-b16"),
            agg("yfq-b4-overlap"),
        );
        assert!(b4 > b1 && b16 > b4 && o4 > b4, "{w}: {b1} {b4} {b16} {o4}");
    }
    // Figs. 4-5: breaking ties by positioning cost.
    for (w, gain) in [("64k-16tasks", 1.1), ("8k-16tasks", 1.2)] {
        let b4 = value(&r, "tiebreak", "yfq-b4", w, "aggregate_kb_s");
        let tb = value(&r, "tiebreak", "yfq-b4-tiebreak", w, "aggregate_kb_s");
        assert!(tb > gain * b4, "{w}: {b4} {tb}");
    }
}

#[test]
fn vios_and_dor_shapes() {
    let r = quick("vios");
    for exp in ["reqsize", "seek"] {
        let w = if exp == "reqsize" {
            "4k-vs-256k"
        } else {
            "1M-vs-64M"
        };
        let a = value(&r, exp, "vios", w, "disk_share_app1");
        assert!((0.45..=0.55).contains(&a), "{exp}: {a}");
    }
    let d = quick("dor");
    let m0 = value(&d, "mdmo", "dor", "io=61", "mdmo=0");
    let m20 = value(&d, "mdmo", "dor", "io=61", "mdmo=20");
    assert!(m20 > 1.05 * m0, "{m0} {m20}");
}
