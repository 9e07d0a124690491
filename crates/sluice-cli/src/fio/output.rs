//! A run's results as fio prints them: `--output-format json` in fio's JSON
//! layout (`jobs[]` with `jobname`, `read`/`write` with `io_bytes`,
//! `bw_bytes`, `iops`, `clat_ns` with its `percentile` map), and a text
//! summary in fio's style. One entry per flow; copies of a job share its
//! name, as fio's do.

use std::fmt::Write;

use serde_json::{json, Map, Value};
use sluice::metrics::FIO_PERCENTILES;
use sluice_sim::report::FlowReport;
use sluice_sim::SimReport;

/// fio's percentile key: "99.000000".
fn key(p: f64) -> String {
    format!("{p:.6}")
}

/// The latency (ns) at percentile `p` of the flow's CDF.
fn at(f: &FlowReport, p: f64) -> f64 {
    f.lat_ms
        .cdf
        .iter()
        .find(|c| (c[0] - p).abs() < 1e-9)
        .map_or(0.0, |c| c[1] * 1e6)
}

/// Seconds the results were measured over.
fn window(r: &SimReport) -> f64 {
    (r.sim_time_s - r.measured_from_s).max(0.0)
}

/// One direction's numbers; all zero for the direction a flow does not do.
fn direction(f: &FlowReport, secs: f64, active: bool) -> Value {
    let (bytes, ios) = if active {
        (f.bytes, f.requests)
    } else {
        (0, 0)
    };
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let ms_to_ns = |x: f64| if active { x * 1e6 } else { 0.0 };
    let stats = |with_pct: bool| {
        let mut m = Map::new();
        m.insert("min".into(), json!(if active { at(f, 0.0) } else { 0.0 }));
        m.insert("max".into(), json!(ms_to_ns(f.lat_ms.max)));
        m.insert("mean".into(), json!(ms_to_ns(f.lat_ms.mean)));
        m.insert("stddev".into(), json!(ms_to_ns(f.lat_ms.stddev)));
        m.insert("N".into(), json!(ios));
        if with_pct && active && ios > 0 {
            let pct: Map<String, Value> = FIO_PERCENTILES
                .iter()
                .map(|&p| (key(p), json!(at(f, p))))
                .collect();
            m.insert("percentile".into(), Value::Object(pct));
        }
        Value::Object(m)
    };
    json!({
        "io_bytes": bytes,
        "io_kbytes": bytes / 1024,
        "bw_bytes": per_s(bytes as f64).round() as u64,
        "bw": (per_s(bytes as f64) / 1024.0).round() as u64,
        "iops": per_s(ios as f64),
        "runtime": (secs * 1000.0).round() as u64,
        "total_ios": ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "clat_ns": stats(true),
        "lat_ns": stats(false),
    })
}

/// The JSON document. `names[i]` and `writes[i]` are flow `i`'s job name
/// and direction.
pub fn json(r: &SimReport, names: &[String], writes: &[bool]) -> Value {
    let secs = window(r);
    let jobs: Vec<Value> = r
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let write = writes.get(i).copied().unwrap_or(false);
            json!({
                "jobname": names.get(i).cloned().unwrap_or_else(|| f.name.clone()),
                "groupid": 0,
                "error": 0,
                "sluice_flow": f.name,
                "read": direction(f, secs, !write),
                "write": direction(f, secs, write),
                "job_runtime": (secs * 1000.0).round() as u64,
            })
        })
        .collect();
    json!({
        "fio version": format!("sluice-{}", env!("CARGO_PKG_VERSION")),
        "sluice": {"scheduler": r.scheduler, "device": r.device, "schema": r.schema},
        "jobs": jobs,
    })
}

/// Bytes per second in fio's units: "377KiB/s (386kB/s)".
fn bw(bytes_s: f64) -> String {
    let (v, unit) = if bytes_s >= (1 << 20) as f64 {
        (bytes_s / (1 << 20) as f64, "MiB/s")
    } else {
        (bytes_s / 1024.0, "KiB/s")
    };
    let (d, dunit) = if bytes_s >= 1e6 {
        (bytes_s / 1e6, "MB/s")
    } else {
        (bytes_s / 1e3, "kB/s")
    };
    format!("{v:.1}{unit} ({d:.1}{dunit})")
}

/// A text summary in fio's style.
pub fn normal(r: &SimReport, names: &[String], writes: &[bool], how: &str) -> String {
    let secs = window(r);
    let mut o = String::new();
    let _ = writeln!(o, "{how}");
    for (i, f) in r.flows.iter().enumerate() {
        let name = names.get(i).map_or(f.name.as_str(), String::as_str);
        let dir = if writes.get(i).copied().unwrap_or(false) {
            "write"
        } else {
            "read"
        };
        let iops = if secs > 0.0 {
            f.requests as f64 / secs
        } else {
            0.0
        };
        let bytes_s = if secs > 0.0 {
            f.bytes as f64 / secs
        } else {
            0.0
        };
        let _ = writeln!(o, "{name}: (groupid=0, jobs=1): err= 0: flow {}", f.name);
        let _ = writeln!(
            o,
            "  {dir}: IOPS={iops:.0}, BW={} ({:.1}MiB/{:.0}msec)",
            bw(bytes_s),
            f.bytes as f64 / (1 << 20) as f64,
            secs * 1000.0
        );
        let _ = writeln!(
            o,
            "    clat (usec): min={:.0}, max={:.0}, avg={:.2}, stdev={:.2}",
            at(f, 0.0) / 1e3,
            f.lat_ms.max * 1e3,
            f.lat_ms.mean * 1e3,
            f.lat_ms.stddev * 1e3
        );
        let _ = writeln!(o, "    clat percentiles (usec):");
        for row in FIO_PERCENTILES.chunks(4) {
            let cells: Vec<String> = row
                .iter()
                .map(|&p| format!("{p:5.2}th=[{:>7.0}]", at(f, p) / 1e3))
                .collect();
            let _ = writeln!(o, "     | {}", cells.join(", "));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_has_fios_layout_and_percentile_keys() {
        let r =
            super::super::simulate("[rand]\nrw=randread\nbs=4k\nsize=1g\nruntime=3\ntime_based\n")
                .unwrap();
        let v = json(&r, &["rand".into()], &[false]);
        let job = &v["jobs"][0];
        assert_eq!(job["jobname"], "rand");
        let read = &job["read"];
        assert!(read["iops"].as_f64().unwrap() > 10.0);
        assert_eq!(
            read["io_bytes"].as_u64().unwrap(),
            read["total_ios"].as_u64().unwrap() * 4096
        );
        let pct = read["clat_ns"]["percentile"].as_object().unwrap();
        assert_eq!(pct.len(), 17);
        let p99 = pct["99.000000"].as_f64().unwrap();
        let p50 = pct["50.000000"].as_f64().unwrap();
        assert!(p99 >= p50 && p50 > 1e6, "{p50} {p99}");
        assert_eq!(job["write"]["total_ios"], 0);
        assert!(job["write"]["clat_ns"].get("percentile").is_none());
        // Deterministic: the same job gives the same bytes.
        let again =
            super::super::simulate("[rand]\nrw=randread\nbs=4k\nsize=1g\nruntime=3\ntime_based\n")
                .unwrap();
        assert_eq!(json(&again, &["rand".into()], &[false]), v);
    }

    #[test]
    fn the_text_names_each_job_and_its_direction() {
        let r = super::super::simulate("[w]\nrw=write\nbs=128k\nsize=64m\nruntime=1\ntime_based\n")
            .unwrap();
        let t = normal(&r, &["w".into()], &[true], "sim");
        assert!(
            t.contains("w: (groupid=0") && t.contains("  write: IOPS=") && t.contains("99.00th=["),
            "{t}"
        );
    }
}
