//! The ranges a result's drawn numbers must lie in, checked as a file is
//! read. JSON holds any finite number: a latency or a bin length near
//! `f64::MAX` made axes no drawing could finish (the report hung), and a
//! CDF point past 100 % means nothing. Such a file is refused in one line
//! naming the run, the flow and the field; sluice's own results are far
//! inside these ranges.

use sluice_repro::Experiment;
use sluice_runtime::fleet::FleetReport;
use sluice_runtime::report::{FlowReport, SimReport};

/// Why a result is refused (the caller names the file).
type Invalid = std::result::Result<(), String>;

/// Longest time, seconds (about 30 years).
pub(crate) const MAX_S: f64 = 1e9;
/// Longest latency, ms ([`MAX_S`] in ms).
pub(crate) const MAX_MS: f64 = 1e12;
/// Highest utilisation of a node's device (busy time over the run; with
/// a deep queue, requests' busy times may add up to more than 1).
pub(crate) const MAX_UTILISATION: f64 = 1e6;
/// Highest throughput, MB/s (an exabyte a second).
pub(crate) const MAX_MB_S: f64 = 1e12;
/// Largest magnitude of an experiment's figure.
pub(crate) const MAX_FIGURE: f64 = 1e15;

/// `x` as a message shows it: short, even for 1e308.
fn show(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `x` within `0..=max`, else why not (`what` names the field).
fn within(what: &str, x: f64, max: f64) -> Invalid {
    if (0.0..=max).contains(&x) {
        Ok(())
    } else {
        Err(format!(
            "{what} = {} is out of range (0..={})",
            show(x),
            show(max)
        ))
    }
}

/// Every number of run `r` that the report draws, in range.
pub(crate) fn check_run(r: &SimReport) -> Invalid {
    let run = |why: String| {
        format!(
            "run '{}: {} on {}': {why}",
            r.scenario, r.scheduler, r.device
        )
    };
    within("measured_from_s", r.measured_from_s, MAX_S).map_err(run)?;
    for f in &r.flows {
        check_flow(f).map_err(|why| run(format!("flow '{}': {why}", f.name)))?;
    }
    if let Some(t) = &r.timeline {
        within("timeline.interval_s", t.interval_s, MAX_S).map_err(run)?;
        for (name, series) in &t.flows.0 {
            for (k, &v) in series.iter().enumerate() {
                within(&format!("timeline.flows.{name}[{k}]"), v, MAX_MB_S)
                    .map_err(|why| run(format!("flow '{name}': {why}")))?;
            }
        }
    }
    Ok(())
}

/// A flow's throughput, latencies and times, in range.
fn check_flow(f: &FlowReport) -> Invalid {
    within("mb_s", f.mb_s, MAX_MB_S)?;
    let l = &f.lat_ms;
    for (what, x) in [
        ("lat_ms.mean", l.mean),
        ("lat_ms.p50", l.p50),
        ("lat_ms.p95", l.p95),
        ("lat_ms.p99", l.p99),
        ("lat_ms.max", l.max),
    ] {
        within(what, x, MAX_MS)?;
    }
    for (k, &[p, ms]) in l.cdf.iter().enumerate() {
        if !((0.0..=100.0).contains(&p) && (0.0..=MAX_MS).contains(&ms)) {
            return Err(format!(
                "lat_ms.cdf[{k}] = [{}, {}] is out of range ([percent 0..=100, ms 0..={}])",
                show(p),
                show(ms),
                show(MAX_MS)
            ));
        }
    }
    for (what, x) in [("done_s", f.done_s), ("startup_s", f.startup_s)] {
        if let Some(x) = x {
            within(what, x, MAX_S)?;
        }
    }
    Ok(())
}

/// An experiment's figures, in range.
pub(crate) fn check_experiment(e: &Experiment) -> Invalid {
    for r in &e.rows {
        for (what, x) in [("ours", Some(r.ours)), ("paper", r.paper)] {
            if let Some(x) = x {
                if !(-MAX_FIGURE..=MAX_FIGURE).contains(&x) {
                    return Err(format!(
                        "experiment '{}': row {} / {} / {}: {what} = {} is out of range (-{}..={})",
                        e.id,
                        r.scheduler,
                        r.workload,
                        r.metric,
                        show(x),
                        show(MAX_FIGURE),
                        show(MAX_FIGURE)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A fleet's drawn numbers (each volume's p99.9, each node's
/// utilisation), in range.
pub(crate) fn check_fleet(f: &FleetReport) -> Invalid {
    let fleet = |why: String| format!("fleet '{}: {}': {why}", f.scheduler, f.scenario);
    for v in &f.volumes {
        within("p999_ms", v.p999_ms, MAX_MS)
            .map_err(|why| fleet(format!("volume '{}': {why}", v.volume)))?;
    }
    for n in &f.nodes {
        within("utilisation", n.utilisation, MAX_UTILISATION)
            .map_err(|why| fleet(format!("node {}: {why}", n.node)))?;
    }
    Ok(())
}
