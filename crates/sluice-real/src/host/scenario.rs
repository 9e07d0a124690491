//! A scenario made ready for a real target: recorded start-ups sized to
//! their traces, the run's length, refusals of writes to a device, and the
//! flows' regions on a device.

use std::path::Path;

use anyhow::{bail, Result};
use sluice::Duration;
use sluice_runtime::Scenario;
use sluice_workload::{FlowKind, Replay};

/// Region boundary of flows on a device, in bytes (1 MiB).
const REGION: u64 = 1 << 20;

/// Size each recorded start-up replay's data to its trace: it keeps the
/// trace's sectors, so its data spans from 0 to the trace's last sector
/// (the simulator wraps them onto its whole disk instead). Returns, per
/// flow, the byte extents the trace touches (None for other flows); block
/// trace flows' too, their files already sized to the trace.
pub(crate) fn recorded_extents(s: &mut Scenario) -> Vec<Option<Vec<(u64, u64)>>> {
    let mut extents = vec![None; s.flows.len()];
    for (f, ext) in s.flows.iter_mut().zip(&mut extents) {
        match &f.kind {
            FlowKind::Startup(st) if st.replay == Replay::Recorded => {
                let t = &st.trace;
                let end = t
                    .records
                    .iter()
                    .map(|r| r.sector + u64::from(r.sectors))
                    .max()
                    .unwrap_or(1);
                f.file_sectors = end.div_ceil(2048) * 2048;
                *ext = Some(
                    t.records
                        .iter()
                        .map(|r| (r.sector * 512, u64::from(r.sectors) * 512))
                        .collect(),
                );
            }
            // A block trace: its file spans what it reaches (the scenario
            // sized it so); only the extents it touches hold data.
            FlowKind::Trace(tr) => {
                *ext = Some(
                    tr.requests
                        .iter()
                        .map(|r| ((r.sector - f.file_start) * 512, u64::from(r.sectors) * 512))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    extents
}

/// Why a scenario with writer `flow` is refused on block device `dev`.
pub(crate) fn device_write_refusal(dev: &Path, flow: &str) -> String {
    format!(
        "{}: flow '{flow}' writes, and writing to a block device destroys what it holds; \
         nothing was written. Add `allow_writes` if that is what you want",
        dev.display()
    )
}

/// `duration_s`: run this many seconds instead of the scenario's.
pub(crate) fn set_duration(s: &mut Scenario, d: f64) -> Result<()> {
    if !d.is_finite() || d <= 0.0 || d > 1e7 {
        bail!(
            "`duration_s` must be a positive number of seconds (got {})",
            sluice::short_number(d)
        );
    }
    s.duration = Duration::from_secs_f64(d);
    if s.warmup >= s.duration {
        bail!(
            "`duration_s` {d}: must be longer than the scenario's warmup_s ({})",
            s.warmup.as_secs_f64()
        );
    }
    Ok(())
}

/// Bytes as GiB, for messages.
pub(crate) fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Byte offsets of flows of these sizes laid end to end on a device, each
/// on a 1 MiB boundary; an error when they do not fit in `device_bytes`.
pub(crate) fn device_regions(sizes: &[u64], device: &Path, device_bytes: u64) -> Result<Vec<u64>> {
    let mut bases = Vec::with_capacity(sizes.len());
    let mut at = 0u64;
    for &s in sizes {
        bases.push(at);
        at = at.saturating_add(s.div_ceil(REGION).max(1) * REGION);
    }
    let need = sizes.last().map_or(0, |&s| bases[sizes.len() - 1] + s);
    if need > device_bytes {
        bail!(
            "the flows need {:.3} GiB laid end to end, {} holds {:.3} GiB: lower file_gib or count",
            gib(need),
            device.display(),
            gib(device_bytes)
        );
    }
    Ok(bases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_aligned_and_must_fit() {
        let dev = Path::new("/dev/x");
        let b = device_regions(&[1000, 3 << 20, 512], dev, 8 << 20).unwrap();
        assert_eq!(b, vec![0, 1 << 20, 4 << 20]);
        let e = device_regions(&[8 << 20, 1], dev, 8 << 20).unwrap_err();
        assert!(e.to_string().contains("/dev/x"), "{e}");
    }
}
