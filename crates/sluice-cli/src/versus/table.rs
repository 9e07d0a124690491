//! `sluice versus`'s table: one column per engine and scheduler, one row
//! per metric; each cell the median, the range of the runs and the ratio
//! to the simulation.

use std::fmt::Write as _;

use super::{Metric, VersusReport};

/// The metrics side by side.
pub(crate) fn table(v: &VersusReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} on {} (simulated once; each real engine {} time{} on the emulated drive)",
        v.scenario,
        v.device,
        v.repeat,
        if v.repeat == 1 { "" } else { "s" }
    );
    if !v.tunables.is_empty() {
        let _ = writeln!(o, "kernel bfq tunables: {}", v.tunables.join(", "));
    }
    let mut columns: Vec<(&str, &str)> = Vec::new();
    for m in &v.metrics {
        if !columns.contains(&(m.engine.as_str(), m.scheduler.as_str())) {
            columns.push((&m.engine, &m.scheduler));
        }
    }
    let mut rows: Vec<(&str, Option<&str>)> = Vec::new();
    for m in &v.metrics {
        if !rows.contains(&(m.metric, m.flow.as_deref())) {
            rows.push((m.metric, m.flow.as_deref()));
        }
    }
    // The rows a reader looks for first: the aggregate, each flow's rate,
    // the start-ups; latencies and shares of finite flows after.
    let order = |m: &str| match m {
        "aggregate_mb_s" => 0,
        "mb_s" => 1,
        "done_s" => 2,
        "frames_dropped" => 3,
        "lat_p99_ms" => 4,
        _ => 5,
    };
    rows.sort_by_key(|r| order(r.0));
    let finite: Vec<&str> = v
        .metrics
        .iter()
        .filter(|m| m.metric == "done_s" || m.metric == "frames_dropped")
        .filter_map(|m| m.flow.as_deref())
        .collect();
    rows.retain(|r| order(r.0) < 4 || r.1.is_some_and(|f| finite.contains(&f)));
    let width = 24;
    let _ = write!(o, "\n{:<22}", "");
    for (e, s) in &columns {
        let _ = write!(o, " {:>width$}", format!("{e} {s}"));
    }
    let _ = writeln!(o);
    for (metric, flow) in rows {
        let label = match (metric, flow) {
            ("aggregate_mb_s", _) => "aggregate MB/s".to_string(),
            (m, Some(f)) => format!("{f} {}", unit(m)),
            (m, None) => m.to_string(),
        };
        let _ = write!(o, "{:<22}", clip(&label, 22));
        for (e, s) in &columns {
            let m = v.metrics.iter().find(|m| {
                m.engine == *e
                    && m.scheduler == *s
                    && m.metric == metric
                    && m.flow.as_deref() == flow
            });
            let _ = write!(o, " {:>width$}", m.map_or("-".to_string(), cell));
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(
        o,
        "\n(median [min-max] xRATIO to the simulation's median; latencies and start-ups \
         in the JSON for every flow: --json)"
    );
    o
}

/// How a metric is labelled after its flow's name.
fn unit(metric: &str) -> &str {
    match metric {
        "mb_s" => "MB/s",
        "done_s" => "start-up s",
        "frames_dropped" => "frames dropped",
        "lat_p99_ms" => "p99 ms",
        "lat_p50_ms" => "p50 ms",
        "share" => "share",
        m => m,
    }
}

/// A label cut to `n` characters (on a character boundary).
fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// `median [min-max] xratio`, or `median xratio` for a single run.
fn cell(m: &Metric) -> String {
    let num = |x: Option<f64>| match x {
        None => "n/a".to_string(),
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.2}"),
    };
    let mut c = num(m.median);
    if m.of > 1 && m.min != m.max {
        let _ = write!(c, " [{}-{}]", num(m.min), num(m.max));
    }
    if m.engine != "sim" {
        if let Some(r) = m.ratio_to_sim {
            let _ = write!(c, " x{r:.2}");
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::versus::stack::DriveView;

    fn m(
        engine: &str,
        scheduler: &str,
        metric: &'static str,
        flow: Option<&str>,
        v: [f64; 3],
    ) -> Metric {
        Metric {
            engine: engine.into(),
            scheduler: scheduler.into(),
            metric,
            flow: flow.map(String::from),
            median: Some(v[0]),
            min: Some(v[1]),
            max: Some(v[2]),
            runs: 3,
            of: 3,
            ratio_to_sim: Some(v[0] / 80.0),
            diff_to_sim: None,
        }
    }

    #[test]
    fn each_engine_is_a_column_with_median_range_and_ratio() {
        let v = VersusReport {
            schema: "sluice.versus/1",
            scenario: "s".into(),
            device: "d".into(),
            repeat: 3,
            tunables: vec!["low_latency=0".into()],
            drive_view: DriveView {
                queue: Vec::new(),
                emulator_queue_depth: 1,
            },
            runs: Vec::new(),
            metrics: vec![
                m("sim", "bfq+", "aggregate_mb_s", None, [80.0; 3]),
                m("kernel", "bfq", "aggregate_mb_s", None, [40.0, 30.0, 50.0]),
                m("kernel", "bfq", "lat_p99_ms", Some("reader"), [9.0; 3]),
            ],
        };
        let t = table(&v);
        assert!(t.contains("sim bfq+") && t.contains("kernel bfq"), "{t}");
        assert!(t.contains("40.0 [30.0-50.0] x0.50"), "{t}");
        assert!(t.contains("low_latency=0"), "{t}");
        assert!(
            !t.contains("reader p99"),
            "latencies of flows without a start-up stay in the JSON: {t}"
        );
    }
}
