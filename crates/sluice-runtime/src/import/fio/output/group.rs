//! fio's `group_reporting`: the jobs of one group reported as one entry.
//!
//! As fio's `stat.c` does it, going through a group's jobs in order, a job
//! with `group_reporting` joins the entry before it (within its group);
//! any other job starts an entry of its own. The entry has the first
//! job's name and options; its requests, bytes and bandwidth (the 500 ms
//! samples too) are the sums of its jobs'; its latency mean and standard
//! deviation are pooled from theirs; its percentiles are those of the
//! jobs' latency distributions mixed in proportion to their requests,
//! each job's read off its own percentile points (linearly between them:
//! an approximation of fio's merged histograms); a group mixing readers
//! and writers splits the entry by the share of bytes read.

use crate::report::{FlowReport, Latency, SimReport};
use sluice::metrics::FIO_PERCENTILES;

use super::{share_within, JobInfo};

/// The report and jobs with fio's `group_reporting` applied, or `None`
/// when no job joins another.
pub(super) fn grouped(r: &SimReport, jobs: &[JobInfo]) -> Option<(SimReport, Vec<JobInfo>)> {
    // Entries as runs of consecutive flows.
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, j) in jobs.iter().enumerate().take(r.flows.len()) {
        match runs.last_mut() {
            Some(last) if j.group_reporting && jobs[last.start].group == j.group => {
                last.end = i + 1
            }
            _ => runs.push(i..i + 1),
        }
    }
    if runs.iter().all(|run| run.len() == 1) {
        return None;
    }
    let mut out = r.clone();
    out.flows = runs.iter().map(|run| flow(&r.flows[run.clone()])).collect();
    if let (Some(t), Some(mine)) = (&r.timeline, &mut out.timeline) {
        mine.flows.0 = runs
            .iter()
            .map(|run| {
                let series: Vec<&Vec<f64>> = run
                    .clone()
                    .filter_map(|i| t.flows.0.get(i).map(|(_, s)| s))
                    .collect();
                let len = series.iter().map(|s| s.len()).max().unwrap_or(0);
                let sum = (0..len)
                    .map(|k| series.iter().filter_map(|s| s.get(k)).sum())
                    .collect();
                (r.flows[run.start].name.clone(), sum)
            })
            .collect();
    }
    let infos = runs
        .iter()
        .map(|run| info(&r.flows[run.clone()], &jobs[run.clone()]))
        .collect();
    Some((out, infos))
}

/// One job standing for `jobs` (their flows `flows`).
fn info(flows: &[FlowReport], jobs: &[JobInfo]) -> JobInfo {
    let mut first = jobs[0].clone();
    if jobs.len() == 1 {
        return first;
    }
    let share = |j: &JobInfo| j.read_fraction.unwrap_or(if j.write { 0.0 } else { 1.0 });
    let bytes: f64 = flows.iter().map(|f| f.bytes as f64).sum();
    let read: f64 = flows
        .iter()
        .zip(jobs)
        .map(|(f, j)| f.bytes as f64 * share(j))
        .sum();
    let requests: u64 = flows.iter().map(|f| f.requests).sum();
    let same_kind = jobs
        .iter()
        .all(|j| j.read_fraction.is_none() && j.write == first.write);
    if !same_kind {
        first.read_fraction = Some(if bytes > 0.0 { read / bytes } else { 0.5 });
        first.write = false;
    }
    if jobs.iter().any(|j| j.bs != first.bs) && requests > 0 {
        first.bs = (bytes / requests as f64).round().max(1.0) as u64;
    }
    first.size_done_at = jobs.iter().map(|j| j.size_done_at).sum::<Option<u64>>();
    first.members = jobs.iter().map(|j| j.members).sum();
    first
}

/// One flow's figures standing for `flows`'.
fn flow(flows: &[FlowReport]) -> FlowReport {
    let mut f = flows[0].clone();
    if flows.len() == 1 {
        return f;
    }
    f.name = format!("{}+{}", flows[0].name, flows.len() - 1);
    f.requests = flows.iter().map(|x| x.requests).sum();
    f.bytes = flows.iter().map(|x| x.bytes).sum();
    f.mb_s = flows.iter().map(|x| x.mb_s).sum();
    f.disk_time_s = flows.iter().map(|x| x.disk_time_s).sum();
    f.over_1s = flows.iter().map(|x| x.over_1s).sum();
    f.oldest_pending_ms = flows
        .iter()
        .filter_map(|x| x.oldest_pending_ms)
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
    f.done_s = flows
        .iter()
        .map(|x| x.done_s)
        .collect::<Option<Vec<f64>>>()
        .map(|d| d.into_iter().fold(0.0, f64::max));
    f.disk_timeline_s = flows
        .iter()
        .map(|x| x.disk_timeline_s.clone())
        .collect::<Option<Vec<_>>>()
        .map(|all| {
            let len = all.iter().map(Vec::len).max().unwrap_or(0);
            (0..len)
                .map(|k| all.iter().filter_map(|s| s.get(k)).sum())
                .collect()
        });
    f.threads = None;
    f.lat_ms = latency(flows);
    f
}

/// The latency of `flows`' requests together.
fn latency(flows: &[FlowReport]) -> Latency {
    let with: Vec<&FlowReport> = flows.iter().filter(|f| f.requests > 0).collect();
    let n: f64 = with.iter().map(|f| f.requests as f64).sum();
    if with.is_empty() || n == 0.0 {
        return flows[0].lat_ms.clone();
    }
    let w = |f: &FlowReport| f.requests as f64 / n;
    let mean: f64 = with.iter().map(|f| w(f) * f.lat_ms.mean).sum();
    let var: f64 = with
        .iter()
        .map(|f| w(f) * (f.lat_ms.stddev.powi(2) + (f.lat_ms.mean - mean).powi(2)))
        .sum();
    let min = with
        .iter()
        .filter_map(|f| f.lat_ms.cdf.first().map(|c| c[1]))
        .fold(f64::INFINITY, f64::min);
    let max = with.iter().map(|f| f.lat_ms.max).fold(0.0, f64::max);
    // The mixture's percentile p: the latency where the requests' shares
    // below it reach p (bisection between the smallest and the largest).
    let pct = |p: f64| {
        let below = |ms: f64| -> f64 {
            with.iter()
                .map(|f| w(f) * share_within(&f.lat_ms.cdf, ms))
                .sum()
        };
        let (mut lo, mut hi) = (min, max);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if below(mid) * 100.0 >= p {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    };
    let cdf: Vec<[f64; 2]> = std::iter::once([0.0, min])
        .chain(FIO_PERCENTILES.iter().map(|&p| [p, pct(p)]))
        .chain(std::iter::once([100.0, max]))
        .collect();
    Latency {
        mean,
        p50: pct(50.0),
        p95: pct(95.0),
        p99: pct(99.0),
        max,
        stddev: var.max(0.0).sqrt(),
        cdf,
    }
}
