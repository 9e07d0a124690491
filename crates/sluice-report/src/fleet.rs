//! Fleets (`sluice.fleet/1`) on the page: who gets the tail. Several
//! fleets of one trace under different policies or devices are the
//! intended use; each is drawn as the p99.9 each volume got, volumes
//! ranked from the quietest, and summed up in a table.

use std::fmt::Write;

use sluice_runtime::fleet::{FleetReport, VolumeRow};

use super::{esc, fig, plots};
use crate::error::Result;

/// What the quietest volumes of a fleet got.
#[derive(Clone, Debug, PartialEq)]
pub struct QuietTail {
    /// How many volumes that is.
    pub volumes: usize,
    /// The median of their p99.9 latencies, ms.
    pub p999_median_ms: f64,
    /// The largest of their p99.9 latencies, ms.
    pub p999_max_ms: f64,
}

/// Volumes ranked from the quietest: fewest requests first, ties in the
/// report's order (the trace's).
pub fn by_quietness(volumes: &[VolumeRow]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..volumes.len()).collect();
    order.sort_by_key(|&i| (volumes[i].requests, i));
    order
}

/// The p99.9 of the quietest `fraction` of `volumes` (at least one of
/// them; the quietest as [`by_quietness`] ranks them); None without
/// volumes. The same definition `scripts/fleet_question.py` uses.
pub fn quietest_tail(volumes: &[VolumeRow], fraction: f64) -> Option<QuietTail> {
    if volumes.is_empty() {
        return None;
    }
    let n =
        ((fraction.clamp(0.0, 1.0) * volumes.len() as f64).ceil() as usize).clamp(1, volumes.len());
    let mut tails: Vec<f64> = by_quietness(volumes)[..n]
        .iter()
        .map(|&i| volumes[i].p999_ms)
        .collect();
    tails.sort_by(f64::total_cmp);
    let m = n / 2;
    let median = if n % 2 == 1 {
        tails[m]
    } else {
        (tails[m - 1] + tails[m]) / 2.0
    };
    Some(QuietTail {
        volumes: n,
        p999_median_ms: median,
        p999_max_ms: tails[n - 1],
    })
}

/// One fleet as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fleet {
    /// "scheduler: scenario".
    pub title: String,
    pub report: FleetReport,
}

impl Fleet {
    pub(crate) fn of(report: FleetReport) -> Self {
        Fleet {
            title: format!("{}: {}", report.scheduler, report.scenario),
            report,
        }
    }
}

/// Anchor of the fleets' section.
pub(crate) const ID: &str = "fleets";

/// The fleets' plot alone (SVG): each volume's p99.9 against its rank
/// from the quietest (0..1), one line per fleet. The page draws it, and
/// `sluice report --svg` writes it as a file of its own (for docs).
pub(crate) fn plot(fleets: &[Fleet]) -> Result<String> {
    let series: Vec<(String, Vec<(f64, f64)>)> = fleets
        .iter()
        .map(|f| {
            let v = &f.report.volumes;
            let n = v.len().max(1) as f64;
            let points = by_quietness(v)
                .iter()
                .enumerate()
                .map(|(rank, &i)| ((rank as f64 + 0.5) / n, v[i].p999_ms))
                .collect();
            (f.title.clone(), points)
        })
        .collect();
    plots::quietest("p99.9 latency of each volume, the quietest first", &series)
}

/// The fleets' section: the plot and the table.
pub(crate) fn section(h: &mut String, fleets: &[Fleet]) -> Result<()> {
    if fleets.is_empty() {
        return Ok(());
    }
    let _ = writeln!(h, "<h2 id=\"{ID}\">Fleets: the tail each volume got</h2>");
    fig(
        h,
        &plot(fleets)?,
        "Each volume's p99.9 latency (log scale) against its rank among the fleet's volumes by \
         requests, the quietest at 0; the line marks the quietest 10%.",
    );
    h.push_str(
        "<div class=\"wide\"><table>\n<tr><th class=\"l\">fleet</th><th>volumes</th><th>nodes</th>\
         <th>requests</th><th>quietest 10%: p99.9 median (ms)</th><th>quietest 10%: p99.9 largest (ms)</th>\
         <th>all: p99.9 median (ms)</th><th>all: p99.9 largest (ms)</th><th>mean node utilisation</th></tr>\n",
    );
    for f in fleets {
        let r = &f.report;
        let quiet = quietest_tail(&r.volumes, 0.1);
        let all = quietest_tail(&r.volumes, 1.0);
        let cell = |q: &Option<QuietTail>, max: bool| {
            q.as_ref().map_or("-".to_string(), |q| {
                format!("{:.3}", if max { q.p999_max_ms } else { q.p999_median_ms })
            })
        };
        let requests: u64 = r.volumes.iter().map(|v| v.requests).sum();
        let util = if r.nodes.is_empty() {
            0.0
        } else {
            r.nodes.iter().map(|n| n.utilisation).sum::<f64>() / r.nodes.len() as f64
        };
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}%</td></tr>",
            esc(&f.title),
            r.volumes.len(),
            r.nodes.len(),
            requests,
            cell(&quiet, false),
            cell(&quiet, true),
            cell(&all, false),
            cell(&all, true),
            100.0 * util
        );
    }
    h.push_str("</table></div>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vol(requests: u64, p999_ms: f64) -> VolumeRow {
        VolumeRow {
            volume: format!("v{requests}"),
            node: 0,
            requests,
            bytes: 0,
            p50_ms: 0.0,
            p99_ms: 0.0,
            p999_ms,
            max_ms: p999_ms,
            mb_s: 0.0,
        }
    }

    #[test]
    fn the_quietest_tenth_is_at_least_one_volume_and_ties_go_in_order() {
        assert_eq!(quietest_tail(&[], 0.1), None);
        let one = quietest_tail(&[vol(5, 3.0), vol(9, 1.0)], 0.1).unwrap();
        assert_eq!(
            (one.volumes, one.p999_median_ms, one.p999_max_ms),
            (1, 3.0, 3.0)
        );
        // 20 volumes: the 2 quietest; a tie at 1 request goes in order.
        let mut v: Vec<VolumeRow> = (0..20).map(|i| vol(100 + i, i as f64)).collect();
        v[7] = vol(1, 70.0);
        v[3] = vol(1, 30.0);
        v[12] = vol(1, 120.0);
        let q = quietest_tail(&v, 0.1).unwrap();
        assert_eq!(q.volumes, 2);
        assert_eq!((q.p999_median_ms, q.p999_max_ms), (50.0, 70.0));
        assert_eq!(by_quietness(&v)[..3], [3, 7, 12]);
        // Fewer than ten volumes: still one, the quietest (ties: the
        // first in order); a fraction of zero, or not a number, too.
        let nine: Vec<VolumeRow> = [4, 2, 9, 2, 7, 5, 6, 8, 3]
            .iter()
            .enumerate()
            .map(|(k, &r)| vol(r, k as f64))
            .collect();
        for fraction in [0.1, 0.0, f64::NAN] {
            let q = quietest_tail(&nine, fraction).unwrap();
            assert_eq!((q.volumes, q.p999_max_ms), (1, 1.0), "{fraction}");
        }
        // Eleven: 10% is 1.1 volumes, rounded up to two.
        let mut eleven = nine.clone();
        eleven.extend([vol(1, 40.0), vol(50, 50.0)]);
        let q = quietest_tail(&eleven, 0.1).unwrap();
        assert_eq!(
            (q.volumes, q.p999_median_ms, q.p999_max_ms),
            (2, 20.5, 40.0)
        );
        let all = quietest_tail(&v, 1.0).unwrap();
        assert_eq!(all.volumes, 20);
        assert_eq!(all.p999_max_ms, 120.0);
    }
}
