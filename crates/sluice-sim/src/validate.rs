//! Replay a DiskSim validation trace (requests once issued to a real drive,
//! with their measured response times) open-loop against a model, and
//! score the model with DiskSim's demerit figure.

use std::path::Path;
use std::time::Instant as WallClock;

use serde::{Deserialize, Deserializer, Serialize};
use sluice::{Duration, Instant};

use crate::device::{self, Command, InternalOrder, Model, Setup};
use sluice_runtime::report::Perf;
use sluice_runtime::Error;

/// Schema tag of [`ValidationReport`].
pub const VALIDATE_SCHEMA: &str = "sluice.validate/1";

use sluice_workload::trace::disksim::load_trace_in_chunks;
pub use sluice_workload::trace::disksim::{load_trace, parse_trace, TraceRecord, MAX_TRACE_US};

/// The `sluice.validate/1` result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ValidationReport {
    /// Schema tag: [`VALIDATE_SCHEMA`].
    #[serde(deserialize_with = "validate_schema")]
    pub schema: sluice_runtime::report::SchemaTag,
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
    /// Replay speed: `wall_s` runs from the first request checked to the
    /// score (with [`validate_file`], reading the trace overlaps it);
    /// `events` counts arrivals and completions, the drive's write-back
    /// steps included.
    pub perf: Perf,
}

/// [`ValidationReport::schema`] read back.
fn validate_schema<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    sluice_runtime::report::schema_tag(d, &[VALIDATE_SCHEMA])
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
    let mut r = Replay::new(model, trace.len());
    for rec in trace {
        r.step(rec);
    }
    (r.response, r.events)
}

/// [`replay`], one request at a time.
struct Replay {
    dev: Box<dyn device::Device>,
    capacity: u64,
    /// Response times so far, ms.
    response: Vec<f64>,
    events: u64,
    /// When the next request arrives.
    arrival: Instant,
}

impl Replay {
    fn new(model: &Model, requests: usize) -> Self {
        let dev = device::build(
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
        Replay {
            capacity: dev.capacity(),
            dev,
            response: Vec::with_capacity(requests),
            events: 0,
            arrival: Instant::ZERO,
        }
    }

    fn step(&mut self, r: &TraceRecord) {
        let (dev, arrival) = (&mut self.dev, self.arrival);
        // Background work (write-back) the drive finishes before the
        // request arrives.
        while let Some(t) = dev.next_completion().filter(|&t| t <= arrival) {
            self.events += 1;
            let none = dev.pop_completion(t);
            debug_assert!(none.is_none(), "no request is outstanding");
        }
        // Traces of a larger drive wrap onto this one.
        let lbn = r.lbn % self.capacity.saturating_sub(u64::from(r.sectors)).max(1);
        self.events += 1;
        dev.submit(
            arrival,
            Command {
                flow: 0,
                tag: self.response.len() as u64,
                write: r.write,
                lbn,
                sectors: r.sectors,
            },
        );
        let done = loop {
            let t = dev
                .next_completion()
                .expect("a drive with a request outstanding is busy");
            self.events += 1;
            if dev.pop_completion(t).is_some() {
                break t;
            }
        };
        self.response.push((done - arrival).as_millis_f64());
        self.arrival = done + Duration::from_micros_f64(r.interarrival_us);
    }
}

/// DiskSim's demerit: the RMS horizontal distance between two response-time
/// distributions, sampled at quantiles 0.0001, 0.0002, ..., 1.
pub fn demerit(a: &[f64], b: &[f64]) -> f64 {
    demerit_in_place(&mut a.to_vec(), &mut b.to_vec())
}

/// [`demerit`], sorting `a` and `b` in place rather than copies of them.
fn demerit_in_place(a: &mut [f64], b: &mut [f64]) -> f64 {
    sort_total(a);
    sort_total(b);
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
            let d = at(a, q) - at(b, q);
            d * d
        })
        .sum();
    (sum / steps as f64).sqrt()
}

/// Sort `v` as `f64::total_cmp` orders it, by sorting integer keys: the
/// same order (`total_cmp` compares exactly these keys) at a fraction of
/// the cost for the 50,000 responses of a validation. Values equal by
/// `total_cmp` are the same bits, so the unstable sort is exact.
fn sort_total(v: &mut [f64]) {
    // Flip every bit but the sign of a negative value: the bits then
    // order as signed integers.
    let key = |x: f64| {
        let b = x.to_bits() as i64;
        b ^ (((b >> 63) as u64) >> 1) as i64
    };
    let mut keys: Vec<i64> = v.iter().map(|&x| key(x)).collect();
    keys.sort_unstable();
    for (x, k) in v.iter_mut().zip(keys) {
        // The map is its own inverse.
        *x = f64::from_bits(key(f64::from_bits(k as u64)) as u64);
    }
}

/// Check that `trace` fits `model`: no request larger than the drive, and
/// arrivals that fit the clock. `disk` names the drive in the message.
pub fn check_trace(disk: &str, model: &Model, trace: &[TraceRecord]) -> Result<(), Error> {
    let mut c = Checks::new(disk, model.capacity());
    for r in trace {
        c.check(r);
    }
    c.verdict()
}

/// A year of arrivals at most (u64 nanoseconds hold 584 years), in us.
const MAX_SPAN_US: f64 = 3.2e13;

/// [`check_trace`], one request at a time: the first request larger than
/// the drive, and the arrivals' running total.
struct Checks<'a> {
    disk: &'a str,
    capacity: u64,
    seen: usize,
    too_large: Option<Error>,
    /// Arrivals so far, us.
    span_us: f64,
}

impl<'a> Checks<'a> {
    fn new(disk: &'a str, capacity: u64) -> Self {
        Checks {
            disk,
            capacity,
            seen: 0,
            too_large: None,
            span_us: 0.0,
        }
    }

    /// Take request `r`; true while the trace so far fits (a later
    /// request can only make it fail).
    fn check(&mut self, r: &TraceRecord) -> bool {
        self.seen += 1;
        if u64::from(r.sectors) > self.capacity && self.too_large.is_none() {
            self.too_large = Some(
                Error::new(
                    "",
                    format!(
                        "trace request {} (count {} sectors) is larger than the drive {} ({} sectors)",
                        self.seen, r.sectors, self.disk, self.capacity
                    ),
                )
                .key("count"),
            );
        }
        self.span_us += r.interarrival_us;
        self.too_large.is_none() && self.span_us <= MAX_SPAN_US
    }

    /// The first request too large, else arrivals past a year, else fine.
    fn verdict(self) -> Result<(), Error> {
        if let Some(e) = self.too_large {
            return Err(e);
        }
        if self.span_us > MAX_SPAN_US {
            return Err(Error::new(
                "",
                format!(
                    "the trace's arrivals span {:.3e} s, more than a year",
                    self.span_us / 1e6
                ),
            )
            .key("interarrival"));
        }
        Ok(())
    }
}

/// A validation under way: requests are checked and replayed as they come
/// (a running sum only grows, so once the trace fails it stays failed, and
/// nothing is replayed past that).
struct Validation<'a> {
    checks: Checks<'a>,
    replay: Replay,
    /// The real drive's response times, ms.
    measured: Vec<f64>,
    started: WallClock,
}

impl<'a> Validation<'a> {
    fn new(disk: &'a str, model: &Model, requests: usize) -> Self {
        Validation {
            checks: Checks::new(disk, model.capacity()),
            replay: Replay::new(model, requests),
            measured: Vec::with_capacity(requests),
            started: WallClock::now(),
        }
    }

    fn take(&mut self, trace: &[TraceRecord]) {
        for r in trace {
            if self.checks.check(r) {
                self.replay.step(r);
                self.measured.push(r.measured_us / 1e3);
            }
        }
    }

    fn finish(self) -> Result<ValidationReport, Error> {
        let disk = self.checks.disk.to_string();
        self.checks.verdict()?;
        let Replay {
            response: mut sim,
            events,
            ..
        } = self.replay;
        let mut measured = self.measured;
        let n = sim.len() as f64;
        // The means sum in trace order, before the demerit sorts in place.
        let mean_measured_ms = measured.iter().sum::<f64>() / n;
        let mean_sim_ms = sim.iter().sum::<f64>() / n;
        let demerit_ms = demerit_in_place(&mut sim, &mut measured);
        let wall_s = self.started.elapsed().as_secs_f64();
        Ok(ValidationReport {
            schema: VALIDATE_SCHEMA,
            disk,
            requests: sim.len() as u64,
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
}

/// Replay `trace` on `model` and score it; a trace that does not fit the
/// drive (see [`check_trace`]) is an error.
pub fn validate(
    disk: &str,
    model: &Model,
    trace: &[TraceRecord],
) -> Result<ValidationReport, Error> {
    let mut v = Validation::new(disk, model, trace.len());
    v.take(trace);
    v.finish()
}

/// Records handed from the reading thread to the replaying one at a time.
const CHUNK: usize = 2048;

/// [`load_trace`] then [`validate`], with the replay starting on the first
/// requests while a second thread reads the rest. Errors come as the two
/// steps would give them: the trace file's first (naming the file), else
/// the validation's. `perf.wall_s` covers reading and replaying.
pub fn validate_file(disk: &str, model: &Model, trace: &Path) -> Result<ValidationReport, Error> {
    let file = trace.display().to_string();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<TraceRecord>>(64);
    let mut v = Validation::new(disk, model, 0);
    let read = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            // A closed channel (the replay gave up) just ends the sends.
            load_trace_in_chunks(trace, CHUNK, |chunk| {
                let _ = tx.send(chunk.to_vec());
            })
        });
        for chunk in &rx {
            v.take(&chunk);
        }
        reader.join()
    });
    match read {
        Ok(parsed) => parsed?,
        Err(panic) => std::panic::resume_unwind(panic),
    }
    v.finish().map_err(|e| Error {
        file: file.clone(),
        ..e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_by_keys_orders_as_total_cmp() {
        let mut v = vec![
            3.5,
            -0.0,
            0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -2.25,
            1e-310,
            -1e-310,
            2.0,
            2.0,
        ];
        for i in 0..500 {
            v.push((i as f64 * 7.31).sin() * 1e3);
        }
        let mut want = v.clone();
        want.sort_by(f64::total_cmp);
        sort_total(&mut v);
        let bits = |s: &[f64]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&v), bits(&want));
    }

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
