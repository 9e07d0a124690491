//! Replay a DiskSim validation trace (requests once issued to a real drive,
//! with their measured response times) open-loop against a model, and
//! score the model with DiskSim's demerit figure.

use std::time::Instant as WallClock;

use serde::Serialize;
use sluice::{Duration, Instant};

use crate::device::{self, Command, InternalOrder, Model, Setup};
use sluice_runtime::report::Perf;
use sluice_runtime::Error;

/// Schema tag of [`ValidationReport`].
pub const VALIDATE_SCHEMA: &str = "sluice.validate/1";

pub use sluice_workload::trace::disksim::{load_trace, parse_trace, TraceRecord, MAX_TRACE_US};

/// The `sluice.validate/1` result.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ValidationReport {
    /// Schema tag: [`VALIDATE_SCHEMA`].
    pub schema: &'static str,
    /// The drive's name, as the caller gives it.
    pub disk: String,
    /// Requests in the trace, all replayed.
    pub requests: u64,
    /// [`demerit`] between the simulated and the measured response times, ms.
    pub demerit_ms: f64,
    /// Mean response time the real drive gave, ms.
    pub mean_measured_ms: f64,
    /// Mean response time the model gave, ms.
    pub mean_sim_ms: f64,
    /// Replay speed (wall clock); `events` counts arrivals and completions,
    /// the drive's write-back steps included.
    pub perf: Perf,
}

/// Response times (ms) the model gives for the trace, replayed as DiskSim's
/// `validate` trace format replays it (`iotrace_validate_get_ioreq_event`
/// and its caller in `disksim_iodriver.c`): one request at a time, each
/// issued when the previous one has completed, `interarrival_us` of the
/// previous line later (the first at time 0). The trace's last column is
/// thus the host's think time after a completion, not an open-loop arrival
/// gap: read as arrival gaps, the HP and DEC traces ask for more than their
/// drives can serve, and responses grow without bound. With one request
/// outstanding the response time is the drive's service time, as measured.
///
/// Also returns the events handled (arrivals and completions, including
/// the drive's background write-back steps).
pub fn replay(model: &Model, trace: &[TraceRecord]) -> (Vec<f64>, u64) {
    let mut dev = device::build(
        model,
        &Setup {
            queue_depth: 1,
            internal: InternalOrder::Fcfs,
            write_cache: None,
            read_cache: None,
            max_command_age: None,
            seed: 0,
        },
    );
    let capacity = dev.capacity();
    let mut response = Vec::with_capacity(trace.len());
    let mut events = 0u64;
    let mut arrival = Instant::ZERO;
    for (i, r) in trace.iter().enumerate() {
        // Background work (write-back) the drive finishes before the
        // request arrives.
        while let Some(t) = dev.next_completion().filter(|&t| t <= arrival) {
            events += 1;
            let none = dev.pop_completion(t);
            debug_assert!(none.is_none(), "no request is outstanding");
        }
        // Traces of a larger drive wrap onto this one.
        let lbn = r.lbn % capacity.saturating_sub(u64::from(r.sectors)).max(1);
        events += 1;
        dev.submit(
            arrival,
            Command {
                tag: i as u64,
                write: r.write,
                lbn,
                sectors: r.sectors,
            },
        );
        let done = loop {
            let t = dev
                .next_completion()
                .expect("a drive with a request outstanding is busy");
            events += 1;
            if dev.pop_completion(t).is_some() {
                break t;
            }
        };
        response.push((done - arrival).as_millis_f64());
        arrival = done + Duration::from_micros_f64(r.interarrival_us);
    }
    (response, events)
}

/// DiskSim's demerit: the RMS horizontal distance between two response-time
/// distributions, sampled at quantiles 0.0001, 0.0002, ..., 1.
pub fn demerit(a: &[f64], b: &[f64]) -> f64 {
    demerit_in_place(&mut a.to_vec(), &mut b.to_vec())
}

/// [`demerit`], sorting `a` and `b` in place rather than copies of them.
fn demerit_in_place(a: &mut [f64], b: &mut [f64]) -> f64 {
    // Values equal by `total_cmp` are the same bits: unstable is exact.
    a.sort_unstable_by(f64::total_cmp);
    b.sort_unstable_by(f64::total_cmp);
    let (a, b) = (&*a, &*b);
    if a.is_empty() || b.is_empty() {
        return f64::NAN;
    }
    let at = |s: &[f64], q: f64| {
        let i = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1;
        s[i]
    };
    let steps = 10_000;
    let sum: f64 = (1..=steps)
        .map(|k| {
            let q = k as f64 / steps as f64;
            let d = at(&a, q) - at(&b, q);
            d * d
        })
        .sum();
    (sum / steps as f64).sqrt()
}

/// Check that `trace` fits `model`: no request larger than the drive, and
/// arrivals that fit the clock. `disk` names the drive in the message.
pub fn check_trace(disk: &str, model: &Model, trace: &[TraceRecord]) -> Result<(), Error> {
    let capacity = model.capacity();
    let mut t = 0f64;
    for (i, r) in trace.iter().enumerate() {
        if u64::from(r.sectors) > capacity {
            return Err(Error::new(
                "",
                format!(
                    "trace request {} (count {} sectors) is larger than the drive {disk} ({capacity} sectors)",
                    i + 1,
                    r.sectors
                ),
            )
            .key("count"));
        }
        t += r.interarrival_us;
    }
    // A year of arrivals at most (u64 nanoseconds hold 584 years).
    if t > 3.2e13 {
        return Err(Error::new(
            "",
            format!(
                "the trace's arrivals span {:.3e} s, more than a year",
                t / 1e6
            ),
        )
        .key("interarrival"));
    }
    Ok(())
}

/// Replay `trace` on `model` and score it; a trace that does not fit the
/// drive (see [`check_trace`]) is an error.
pub fn validate(
    disk: &str,
    model: &Model,
    trace: &[TraceRecord],
) -> Result<ValidationReport, Error> {
    check_trace(disk, model, trace)?;
    let wall = WallClock::now();
    let (mut sim, events) = replay(model, trace);
    let mut measured: Vec<f64> = trace.iter().map(|r| r.measured_us / 1e3).collect();
    let n = trace.len() as f64;
    // The means sum in trace order, before the demerit sorts in place.
    let mean_measured_ms = measured.iter().sum::<f64>() / n;
    let mean_sim_ms = sim.iter().sum::<f64>() / n;
    let demerit_ms = demerit_in_place(&mut sim, &mut measured);
    let wall_s = wall.elapsed().as_secs_f64();
    Ok(ValidationReport {
        schema: VALIDATE_SCHEMA,
        disk: disk.to_string(),
        requests: trace.len() as u64,
        demerit_ms,
        mean_measured_ms,
        mean_sim_ms,
        perf: Perf {
            events,
            wall_s,
            requests_per_wall_s: if wall_s > 0.0 { n / wall_s } else { 0.0 },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demerit_is_zero_for_equal_distributions_and_the_shift_otherwise() {
        let a: Vec<f64> = (0..1000).map(|i| i as f64 / 100.0).collect();
        assert_eq!(demerit(&a, &a), 0.0);
        let shifted: Vec<f64> = a.iter().map(|x| x + 0.5).collect();
        assert!((demerit(&a, &shifted) - 0.5).abs() < 1e-12);
        // Order does not matter: it compares distributions.
        let mut rev = a.clone();
        rev.reverse();
        assert_eq!(demerit(&a, &rev), 0.0);
    }

    #[test]
    fn each_request_is_issued_a_think_time_after_the_previous_completes() {
        let model = crate::device::presets::preset("maxtor-stm332061").unwrap();
        let read = |lbn, gap| TraceRecord {
            write: false,
            lbn,
            sectors: 8,
            measured_us: 0.0,
            interarrival_us: gap,
        };
        // With no think time, the second read never waits for the first:
        // its response is its own service time, alone on the drive.
        let (r, _) = replay(&model, &[read(0, 0.0), read(400_000_000, 0.0)]);
        let (alone, _) = replay(&model, &[read(400_000_000, 0.0)]);
        assert!(r[1] < alone[0] + 20.0 && r[1] > 2.0, "{r:?} vs {alone:?}");
        // A long think time lets the platter turn: the second response
        // differs only by rotational position, never by queueing.
        let (r2, _) = replay(&model, &[read(0, 1e6), read(400_000_000, 0.0)]);
        let period_ms = 60_000.0 / 7200.0;
        assert!((r2[1] - r[1]).abs() <= period_ms, "{r:?} {r2:?}");
    }

    #[test]
    fn a_trace_that_does_not_fit_the_drive_is_refused() {
        let model = crate::device::presets::preset("maxtor-stm332061").unwrap();
        let cap = model.capacity();
        let ok = parse_trace("t", "R Hit 0 8 1 1\n").unwrap();
        assert!(validate("d", &model, &ok).is_ok());
        let big = parse_trace("t", &format!("R Hit 0 8 1 1\nR Hit 0 {} 1 1\n", u32::MAX)).unwrap();
        let small = crate::device::presets::preset("ssd-sata").unwrap();
        assert!(u64::from(u32::MAX) > small.capacity() || u64::from(u32::MAX) > cap);
        let m = if u64::from(u32::MAX) > cap {
            &model
        } else {
            &small
        };
        let e = validate("d", m, &big).unwrap_err();
        assert!(
            e.to_string().contains("request 2") && e.key.as_deref() == Some("count"),
            "{e}"
        );
        // Gaps and responses are bounded: an hour each.
        let e = parse_trace("t", "R Hit 0 8 1 1e300\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("interarrival") && e.contains("0..=3600000000"),
            "{e}"
        );
    }
}
