//! DiskSim's seek-curve files (`.seek`): measured seek times by distance.

use crate::{Error, Result};

/// The points of a DiskSim seek-curve file: `Seek distances measured: N`,
/// then N lines `distance, ms` with ascending distances.
pub(in crate::diskspecs) fn seek_points(file_name: &str, text: &str) -> Result<Vec<(u32, f64)>> {
    let err = |line: usize, message: String| Error::new(file_name, message).at_line(line);
    let mut lines = sluice_input::lines(text)
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let (n, header) = lines
        .next()
        .ok_or_else(|| err(1, "empty seek curve file".into()))?;
    let count = header
        .split_once(':')
        .filter(|(k, _)| k.trim().eq_ignore_ascii_case("Seek distances measured"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .ok_or_else(|| {
            err(
                n,
                format!("expected `Seek distances measured: N` (N > 0), found `{header}`"),
            )
        })?;
    let mut points: Vec<(u32, f64)> = Vec::with_capacity(count.min(1 << 16));
    let mut last_line = n;
    for (n, line) in lines.take(count) {
        last_line = n;
        let mut fields = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty());
        let d = fields
            .next()
            .and_then(|f| f.parse::<u32>().ok())
            .filter(|&d| d > 0);
        let t = fields
            .next()
            .and_then(|f| f.parse::<f64>().ok())
            .filter(|t| t.is_finite() && (0.0..=super::super::bounds::MAX_MS).contains(t));
        let (Some(d), Some(t)) = (d, t) else {
            return Err(err(
                n,
                format!(
                    "expected `distance, milliseconds` (distance >= 1, milliseconds 0..={}), found `{line}`",
                    super::super::bounds::MAX_MS
                ),
            ));
        };
        if points.last().is_some_and(|&(p, _)| d <= p) {
            return Err(err(n, format!("distance {d} does not ascend")));
        }
        points.push((d, t));
    }
    if points.len() < count {
        return Err(err(
            last_line,
            format!(
                "the header announces {count} seek distances but the file has {}",
                points.len()
            ),
        ));
    }
    Ok(points)
}
