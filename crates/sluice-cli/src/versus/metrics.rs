//! What `versus --repeat` reports per metric: the median and the range of
//! each engine's runs, and the error of each engine against the
//! simulation (ratio and difference of medians). Pure: it reads the runs'
//! JSON results and nothing else.

use serde::Serialize;
use serde_json::Value;

/// One metric of one engine (and scheduler), over its runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Metric {
    /// `sim`, `sluice` or `kernel`.
    pub engine: String,
    /// The policy (sim, sluice) or the kernel's scheduler.
    pub scheduler: String,
    /// `aggregate_mb_s`, `mb_s`, `share`, `done_s`, `lat_p50_ms`,
    /// `lat_p99_ms` or `frames_dropped`.
    pub metric: &'static str,
    /// The flow, or none for `aggregate_mb_s`.
    pub flow: Option<String>,
    /// Median of the runs (of an even number: the mean of the middle
    /// two). A start-up not done by the end of a run counts as slower
    /// than any that was; a median that falls on one is null.
    pub median: Option<f64>,
    /// Smallest value (null if no run has one).
    pub min: Option<f64>,
    /// Largest value (null if a run did not finish the start-up).
    pub max: Option<f64>,
    /// Runs that have a value (a start-up may not finish in a run).
    pub runs: usize,
    /// Runs of this engine.
    pub of: usize,
    /// `median / sim's median` (1 for the simulation; null where either
    /// is missing or sim's is zero).
    pub ratio_to_sim: Option<f64>,
    /// `median - sim's median`, in the metric's unit.
    pub diff_to_sim: Option<f64>,
}

/// The metrics of runs given as (engine, scheduler, result JSON), grouped
/// by engine and scheduler in the order they first appear; flows in the
/// order of the first run's result. The group of engine `sim` is the
/// reference for the errors.
pub(crate) fn summarize(runs: &[(&str, &str, &Value)]) -> Vec<Metric> {
    let mut groups: Vec<(&str, &str, Vec<&Value>)> = Vec::new();
    for &(e, s, r) in runs {
        match groups.iter_mut().find(|g| g.0 == e && g.1 == s) {
            Some(g) => g.2.push(r),
            None => groups.push((e, s, vec![r])),
        }
    }
    let flows: Vec<String> = runs
        .first()
        .and_then(|r| r.2["flows"].as_array())
        .map(|fs| {
            fs.iter()
                .filter_map(|f| f["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for (engine, scheduler, results) in &groups {
        for (metric, flow) in keys(&flows, results) {
            let values: Vec<Option<f64>> = results
                .iter()
                .map(|r| value(r, metric, flow.as_deref()))
                .collect();
            out.push(summary(engine, scheduler, metric, flow, &values));
        }
    }
    let sim: Vec<Metric> = out.iter().filter(|m| m.engine == "sim").cloned().collect();
    for m in &mut out {
        let reference = sim
            .iter()
            .find(|s| s.metric == m.metric && s.flow == m.flow)
            .and_then(|s| s.median);
        if let (Some(x), Some(r)) = (m.median, reference) {
            m.diff_to_sim = Some(x - r);
            m.ratio_to_sim = (r != 0.0).then(|| x / r);
        }
    }
    out
}

/// The metrics to report for `flows` over `results`: the aggregate, then
/// per flow its rate, share and latencies, its start-up time where any run
/// has one, its dropped frames where any run counts them.
fn keys(flows: &[String], results: &[&Value]) -> Vec<(&'static str, Option<String>)> {
    let mut k = vec![("aggregate_mb_s", None)];
    for f in flows {
        let any = |m: &'static str| results.iter().any(|r| value(r, m, Some(f)).is_some());
        for m in [
            "mb_s",
            "share",
            "done_s",
            "lat_p50_ms",
            "lat_p99_ms",
            "frames_dropped",
        ] {
            let always = matches!(m, "mb_s" | "share" | "lat_p50_ms" | "lat_p99_ms");
            if always || any(m) {
                k.push((m, Some(f.clone())));
            }
        }
    }
    k
}

/// Metric `metric` of `flow` (or the aggregate) in one result.
fn value(result: &Value, metric: &str, flow: Option<&str>) -> Option<f64> {
    let Some(name) = flow else {
        return result["aggregate"]["mb_s"].as_f64();
    };
    let flows = result["flows"].as_array()?;
    let f = flows.iter().find(|f| f["name"].as_str() == Some(name))?;
    match metric {
        "mb_s" => f["mb_s"].as_f64(),
        "share" => {
            let total: f64 = flows.iter().filter_map(|f| f["bytes"].as_f64()).sum();
            let mine = f["bytes"].as_f64()?;
            (total > 0.0).then(|| mine / total)
        }
        "done_s" => f["done_s"].as_f64(),
        "lat_p50_ms" => f["lat_ms"]["p50"].as_f64(),
        "lat_p99_ms" => f["lat_ms"]["p99"].as_f64(),
        "frames_dropped" => f["frames_dropped"].as_f64(),
        _ => None,
    }
}

/// Median and range of one metric's values (None: the run has none).
/// For `done_s` a missing value is a start-up that did not finish: it
/// sorts after every finished one.
fn summary(
    engine: &str,
    scheduler: &str,
    metric: &'static str,
    flow: Option<String>,
    values: &[Option<f64>],
) -> Metric {
    let unfinished_is_slowest = metric == "done_s";
    let mut v: Vec<f64> = values
        .iter()
        .filter_map(|x| match x {
            Some(x) => Some(*x),
            None if unfinished_is_slowest => Some(f64::INFINITY),
            None => None,
        })
        .filter(|x| !x.is_nan())
        .collect();
    v.sort_by(f64::total_cmp);
    let finite = |x: f64| x.is_finite().then_some(x);
    let median = match v.len() {
        0 => None,
        n if n % 2 == 1 => finite(v[n / 2]),
        n => finite((v[n / 2 - 1] + v[n / 2]) / 2.0),
    };
    Metric {
        engine: engine.to_string(),
        scheduler: scheduler.to_string(),
        metric,
        flow,
        median,
        min: v.first().copied().and_then(finite),
        max: v.last().copied().and_then(finite),
        runs: values.iter().filter(|x| x.is_some()).count(),
        of: values.len(),
        ratio_to_sim: None,
        diff_to_sim: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(agg: f64, a: (f64, f64), xterm_done: Option<f64>) -> Value {
        json!({
            "aggregate": {"mb_s": agg},
            "flows": [
                {"name": "a", "mb_s": a.0, "bytes": a.1, "done_s": null,
                 "lat_ms": {"p50": 1.0, "p99": 9.0}, "frames_dropped": null},
                {"name": "xterm", "mb_s": 0.5, "bytes": 100.0, "done_s": xterm_done,
                 "lat_ms": {"p50": 2.0, "p99": 20.0}, "frames_dropped": null},
            ]
        })
    }

    fn find<'a>(ms: &'a [Metric], e: &str, m: &str, f: Option<&str>) -> &'a Metric {
        ms.iter()
            .find(|x| x.engine == e && x.metric == m && x.flow.as_deref() == f)
            .unwrap_or_else(|| panic!("no {e} {m} {f:?}"))
    }

    #[test]
    fn medians_ranges_and_errors_against_the_simulation() {
        let sim = result(80.0, (8.0, 300.0), Some(1.0));
        let k = [
            result(30.0, (3.0, 100.0), Some(3.0)),
            result(50.0, (5.0, 300.0), Some(2.0)),
            result(40.0, (4.0, 900.0), Some(4.0)),
        ];
        let mut runs = vec![("sim", "bfq+", &sim)];
        runs.extend(k.iter().map(|r| ("kernel", "bfq", r)));
        let ms = summarize(&runs);
        let a = find(&ms, "kernel", "aggregate_mb_s", None);
        assert_eq!(
            (a.median, a.min, a.max),
            (Some(40.0), Some(30.0), Some(50.0))
        );
        assert_eq!((a.runs, a.of), (3, 3));
        assert_eq!(a.ratio_to_sim, Some(0.5));
        assert_eq!(a.diff_to_sim, Some(-40.0));
        let s = find(&ms, "sim", "aggregate_mb_s", None);
        assert_eq!((s.ratio_to_sim, s.diff_to_sim), (Some(1.0), Some(0.0)));
        // shares: 100/200, 300/400, 900/1000
        let sh = find(&ms, "kernel", "share", Some("a"));
        assert_eq!(sh.median, Some(0.75));
        assert_eq!(
            find(&ms, "kernel", "done_s", Some("xterm")).median,
            Some(3.0)
        );
        assert!(
            ms.iter()
                .all(|m| !(m.metric == "done_s" && m.flow.as_deref() == Some("a"))),
            "a flow that never finishes has no done_s entry"
        );
        assert!(ms.iter().all(|m| m.metric != "frames_dropped"));
    }

    #[test]
    fn an_unfinished_startup_counts_as_slowest() {
        let r = [
            result(1.0, (1.0, 1.0), Some(2.0)),
            result(1.0, (1.0, 1.0), None),
            result(1.0, (1.0, 1.0), Some(5.0)),
        ];
        let runs: Vec<_> = r.iter().map(|x| ("sluice", "bfq+", x)).collect();
        let d = summarize(&runs)
            .into_iter()
            .find(|m| m.metric == "done_s")
            .unwrap();
        assert_eq!(
            (d.median, d.min, d.max, d.runs),
            (Some(5.0), Some(2.0), None, 2)
        );
        let two = [r[0].clone(), r[1].clone()];
        let runs: Vec<_> = two.iter().map(|x| ("sluice", "bfq+", x)).collect();
        let d = summarize(&runs)
            .into_iter()
            .find(|m| m.metric == "done_s")
            .unwrap();
        assert_eq!(d.median, None, "half the runs did not finish");
    }

    #[test]
    fn an_even_count_takes_the_mean_of_the_middle_two() {
        let r = [
            result(10.0, (1.0, 1.0), None),
            result(20.0, (1.0, 1.0), None),
        ];
        let runs: Vec<_> = r.iter().map(|x| ("kernel", "none", x)).collect();
        let a = summarize(&runs).remove(0);
        assert_eq!((a.metric, a.median), ("aggregate_mb_s", Some(15.0)));
        assert_eq!(a.ratio_to_sim, None, "no simulation, no error");
    }
}
