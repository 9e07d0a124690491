//! `seastar-fq`: Seastar's I/O fair queue, as `src/core/fair_queue.cc`,
//! `include/seastar/core/fair_queue.hh` and `src/core/io_queue.cc` of
//! scylladb/seastar have it (one level: every flow is a priority class of
//! the root group; Seastar's class groups are not modelled).
//!
//! - **Cost.** A request's capacity is its tokens in fixed point:
//!   `tokens = 1/iops + bytes/bandwidth` of its direction
//!   (`internal::request_tokens`, with `req_count_rate` and
//!   `blocks_count_rate` from `disk_params.cc`), `capacity = tokens x 1000
//!   x 2^24` (`io_throttler::tokens_capacity`: the token bucket's rate
//!   resolution is the millisecond, `fixed_point_factor` is 2^24). The
//!   rates are the parameters `read_iops`, `read_mb_s`, `write_iops`,
//!   `write_mb_s` (an io_properties.yaml's figures; 0 = not given, which
//!   makes that term free). Seastar needs all four; here, as on the rate
//!   device (`model = "rate"`), writes without any write figure cost as
//!   reads, and write figures without any read figure are refused (the
//!   other direction would be free: a writer beside a reader starved it).
//!   Seastar rounds the write-to-read multipliers
//!   to integers out of 128; here the write rates are used as given. With
//!   no rate at all, Seastar's capacities are all zero and every request
//!   costs one unit whatever the shares; here they are instead those of a
//!   nominal disk of 100 MB/s (bytes only, nothing throttled),
//!   so that shares still hold under `--scheduler seastar-fq` on any
//!   scenario.
//! - **Shares.** Each class (flow) has shares = its weight and an
//!   accumulated normalized cost. The class with the smallest accumulated
//!   cost is served (`class_compare`); serving a request adds
//!   `max(capacity / shares, 1)` to it (`priority_class_group_data::
//!   pop_front`) and raises the group's `_last_accumulated` to the served
//!   class's value before the charge.
//! - **The tau activation window.** A class that becomes active (it was
//!   not in the group's heap: its queue had emptied) is placed at
//!   `max(_last_accumulated - forgiving_factor / shares, its own
//!   accumulated)` (`push_from_idle`), where `forgiving_factor = 2^24 x
//!   tau in ms` (`io_queue::make_fair_queue_config`): a class that wakes
//!   up is credited at most tau's worth of the device behind the others.
//!   Parameter `tau_ms` (Seastar's `io_queue::config::tau` by default).
//! - **The capacity token bucket.** Requests leave the queue only with
//!   tokens for their capacity: the bucket refills at one token per second
//!   of time (so the device is driven at the rate the properties give) and
//!   holds at most `latency_goal_ms` worth (the reactor's
//!   `io-latency-goal-ms`, default 1.5 x the 0.5 ms task quota = 0.75 ms;
//!   `io_throttler`'s limit). A head request waits (the policy idles with a
//!   wake-up) until the bucket holds its capacity, or a full bucket when
//!   its capacity is larger (Seastar caps request lengths so that never
//!   happens; here the bucket goes below zero instead). With no rates
//!   given nothing is throttled.
//!
//! Left out: the shared bucket's cross-shard reservations (one shard, one
//! queue), the `flow_ratio` back-pressure that inflates capacities when
//! completions lag dispatches, per-class bandwidth limits and class
//! groups.

use std::collections::VecDeque;

use super::fair_ids::SlotIds;
use super::fair_tree::{i64_of_key, key_of_i64, FairTree};
use super::params::{declare_params, ParamReader, ParamTable};
use crate::error::Error;
use crate::scheduler::{Capabilities, Decision, DeviceView, FlowConfig, Scheduler};
use crate::stats::{PolicyStats, SeastarFqStats};
use crate::time::{Duration, Instant};
use crate::types::{FlowId, Request};

declare_params! {
    /// `seastar-fq`'s parameters by name.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct SeastarFqTunables {
        /// activation window: a class that wakes up is placed at most this much device time (over its shares) behind the others
        tau_ms: f64 = float(5.0, 0.0, 1e6) note "ms; Seastar's io_queue::config::tau",
        /// token bucket size: the device time the capacity bucket may hold
        latency_goal_ms: f64 = float(0.75, 0.001, 1e6) note "ms; Seastar's io-latency-goal-ms default",
        /// the disk's read IOPS (io_properties.yaml read_iops)
        read_iops: f64 = float(0.0, 0.0, 1e9) note "0 = not given",
        /// the disk's read bandwidth, MB/s of 10^6 bytes (read_bandwidth / 10^6)
        read_mb_s: f64 = float(0.0, 0.0, 1e7) note "0 = not given",
        /// the disk's write IOPS (write_iops)
        write_iops: f64 = float(0.0, 0.0, 1e9) note "0 = not given",
        /// the disk's write bandwidth, MB/s (write_bandwidth / 10^6)
        write_mb_s: f64 = float(0.0, 0.0, 1e7) note "0 = not given",
    }
}

/// The parameter table of `seastar-fq`.
pub(crate) const PARAMS: ParamTable = SeastarFqTunables::TABLE;

/// Capacity units per second of device time: Seastar's token bucket
/// counts in milliseconds (`rate_resolution = std::milli`) times
/// `fixed_point_factor` (2^24).
const UNITS_PER_S: f64 = 1000.0 * (1u64 << 24) as f64;

/// With no rate given, capacities are those of a disk of this many bytes
/// per second (and nothing is throttled): shares then divide bytes.
const NOMINAL_BYTES_S: f64 = 100e6;

/// `seastar-fq`'s parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeastarFqParams {
    /// The activation window.
    pub tau: Duration,
    /// The token bucket's size, as device time.
    pub latency_goal: Duration,
    /// Read IOPS (0: not given).
    pub read_iops: f64,
    /// Read bandwidth, bytes/s (0: not given).
    pub read_bytes_s: f64,
    /// Write IOPS (0: not given).
    pub write_iops: f64,
    /// Write bandwidth, bytes/s (0: not given).
    pub write_bytes_s: f64,
}

impl SeastarFqParams {
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let params = Self::from(SeastarFqTunables::read(p)?);
        let reads = params.read_iops > 0.0 || params.read_bytes_s > 0.0;
        if params.throttles() && !reads {
            return Err(Error::BadParam {
                policy: "seastar-fq".into(),
                param: "read_iops".into(),
                expected: "read_iops or read_mb_s beside write rates (without write rates, writes cost as reads)".into(),
                got: "neither".into(),
            });
        }
        Ok(params)
    }

    /// A request's capacity: `(1/iops + bytes/bandwidth) x UNITS_PER_S`
    /// of its direction (terms not given count zero; a direction without
    /// any figure costs as the other; no rate at all: bytes over a
    /// nominal 100 MB/s).
    pub fn capacity(&self, request: &Request) -> u64 {
        if !self.throttles() {
            return (request.bytes() as f64 / NOMINAL_BYTES_S * UNITS_PER_S) as u64;
        }
        let read = (self.read_iops, self.read_bytes_s);
        let write = (self.write_iops, self.write_bytes_s);
        let given = |(iops, bw): (f64, f64)| iops > 0.0 || bw > 0.0;
        let (iops, bw) = match (request.is_write(), given(read), given(write)) {
            (true, _, true) | (false, false, _) => write,
            _ => read,
        };
        let mut tokens = 0.0;
        if iops > 0.0 {
            tokens += 1.0 / iops;
        }
        if bw > 0.0 {
            tokens += request.bytes() as f64 / bw;
        }
        (tokens * UNITS_PER_S) as u64
    }

    /// Whether any rate is given (else nothing is throttled).
    fn throttles(&self) -> bool {
        self.read_iops > 0.0
            || self.read_bytes_s > 0.0
            || self.write_iops > 0.0
            || self.write_bytes_s > 0.0
    }
}

impl From<SeastarFqTunables> for SeastarFqParams {
    fn from(t: SeastarFqTunables) -> Self {
        SeastarFqParams {
            tau: Duration::from_millis_f64(t.tau_ms),
            latency_goal: Duration::from_millis_f64(t.latency_goal_ms),
            read_iops: t.read_iops,
            read_bytes_s: t.read_mb_s * 1e6,
            write_iops: t.write_iops,
            write_bytes_s: t.write_mb_s * 1e6,
        }
    }
}

impl Default for SeastarFqParams {
    /// The declared defaults.
    fn default() -> Self {
        Self::from(SeastarFqTunables::default())
    }
}

/// A priority class: one flow.
#[derive(Clone, Debug)]
struct Class {
    shares: u64,
    accumulated: i64,
    /// In the group's heap (`_queued`).
    queued: bool,
    queue: VecDeque<(Request, u64)>,
}

/// Seastar's fair queue (see the module documentation).
#[derive(Clone, Debug)]
pub struct SeastarFq {
    params: SeastarFqParams,
    forgiving_factor: i64,
    /// The classes by dense slot, and each flow's slot.
    classes: Vec<Class>,
    slots: SlotIds,
    /// The group's heap: queued classes by (accumulated, flow), by slot; the
    /// flow id breaks ties deterministically where Seastar's heap is
    /// arbitrary.
    heap: FairTree<u64>,
    last_accumulated: i64,
    /// Tokens in the capacity bucket, capacity units.
    tokens: f64,
    bucket_limit: f64,
    replenished: Instant,
    queued: usize,
    wake: Option<Instant>,
    throttled: u64,
    activations: u64,
}

impl Default for SeastarFq {
    fn default() -> Self {
        Self::new(SeastarFqParams::default())
    }
}

impl SeastarFq {
    /// A fair queue with `params`; the bucket starts full.
    pub fn new(params: SeastarFqParams) -> Self {
        let bucket_limit = params.latency_goal.as_nanos() as f64 * 1e-9 * UNITS_PER_S;
        SeastarFq {
            forgiving_factor: ((1u64 << 24) as f64 * params.tau.as_nanos() as f64 * 1e-6) as i64,
            params,
            classes: Vec::new(),
            slots: SlotIds::default(),
            heap: FairTree::default(),
            last_accumulated: 0,
            tokens: bucket_limit,
            bucket_limit,
            replenished: Instant::ZERO,
            queued: 0,
            wake: None,
            throttled: 0,
            activations: 0,
        }
    }

    /// Build `seastar-fq` from parameters.
    pub(crate) fn from_params(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        Ok(Self::new(SeastarFqParams::read(p)?))
    }

    /// Class `id`'s accumulated normalized cost (Seastar's
    /// `fair_queue::accumulated`).
    pub fn accumulated(&self, id: FlowId) -> Option<i64> {
        let s = self.slots.get(id)?;
        Some(self.classes[s as usize].accumulated)
    }

    fn class(&mut self, id: FlowId) -> &mut Class {
        let s = self.slot(id);
        &mut self.classes[s]
    }

    /// The slot of class `id`, made (100 shares) if it is new.
    fn slot(&mut self, id: FlowId) -> usize {
        if let Some(s) = self.slots.get(id) {
            return s as usize;
        }
        let s = self.classes.len();
        self.slots.insert(id, s as u32);
        self.classes.push(Class {
            shares: 100,
            accumulated: 0,
            queued: false,
            queue: VecDeque::new(),
        });
        s
    }

    /// `push_from_idle`: a class enters the heap no more than tau behind.
    fn push_from_idle(&mut self, slot: usize, id: FlowId) {
        let (last, ff) = (self.last_accumulated, self.forgiving_factor);
        let c = &mut self.classes[slot];
        let shares = c.shares as i64;
        c.accumulated = (last - ff / shares).max(c.accumulated);
        c.queued = true;
        let key = key_of_i64(c.accumulated);
        self.heap.set(slot, id.0, Some(key));
        self.activations += 1;
    }

    /// Refill the bucket up to `now`.
    fn replenish(&mut self, now: Instant) {
        let dt = now.saturating_duration_since(self.replenished).as_nanos() as f64;
        self.replenished = self.replenished.max(now);
        self.tokens = (self.tokens + dt * 1e-9 * UNITS_PER_S).min(self.bucket_limit);
    }
}

impl Scheduler for SeastarFq {
    fn name(&self) -> &str {
        "seastar-fq"
    }

    fn add_flow(&mut self, _now: Instant, flow: FlowId, config: &FlowConfig) {
        self.class(flow).shares = u64::from(config.qos.weight.max(1));
    }

    fn set_weight(&mut self, _now: Instant, flow: FlowId, weight: u32) {
        // Seastar's update_shares: the heap order is by accumulated cost,
        // which does not change.
        self.class(flow).shares = u64::from(weight.max(1));
    }

    fn add(&mut self, _now: Instant, request: Request) {
        let cap = self.params.capacity(&request);
        let id = request.flow;
        let slot = self.slot(id);
        if !self.classes[slot].queued {
            self.push_from_idle(slot, id);
        }
        self.classes[slot].queue.push_back((request, cap));
        self.queued += 1;
    }

    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        let cap = self.params.capacity(merged);
        if let Some(s) = self.slots.get(old.flow) {
            let c = &mut self.classes[s as usize];
            if let Some(e) = c.queue.iter_mut().rev().find(|e| e.0.id == old.id) {
                *e = (*merged, cap);
            }
        }
    }

    fn dispatch(&mut self, now: Instant, _device: &dyn DeviceView) -> Decision {
        self.wake = None;
        // top(): the class with the least accumulated cost that has a
        // request (a queued class always has one here).
        let Some((key, id, slot)) = self.heap.first() else {
            return Decision::Nothing;
        };
        let acc = i64_of_key(key);
        let cap = self.classes[slot].queue.front().map_or(0, |e| e.1);
        if self.params.throttles() {
            self.replenish(now);
            let need = (cap as f64).min(self.bucket_limit);
            if self.tokens < need {
                let ns = ((need - self.tokens) / UNITS_PER_S * 1e9).ceil().max(1.0);
                self.wake = Some(now + Duration::from_nanos(ns as u64));
                self.throttled += 1;
                return Decision::Idle;
            }
            self.tokens -= cap as f64;
        }
        // pop_front()
        self.last_accumulated = self.last_accumulated.max(acc);
        let c = &mut self.classes[slot];
        let (request, _) = c.queue.pop_front().expect("a queued class has a request");
        let cost = ((cap / c.shares) as i64).max(1);
        c.accumulated += cost;
        let next = if c.queue.is_empty() {
            c.queued = false;
            None
        } else {
            Some(key_of_i64(c.accumulated))
        };
        self.heap.set(slot, id, next);
        self.queued -= 1;
        Decision::Dispatch(request)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.wake
    }

    fn handle_timeout(&mut self, _now: Instant) {
        self.wake = None;
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(self.params.throttles())
    }

    fn stats(&self) -> PolicyStats {
        PolicyStats::SeastarFq(SeastarFqStats {
            throttled_waits: self.throttled,
            activations: self.activations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::{req, FlatDevice};
    use crate::policy::{build, BuildContext, ParamValue, Params};
    use crate::types::RequestId;

    fn at_us(us: u64) -> Instant {
        Instant::ZERO + Duration::from_micros(us)
    }

    /// A fair queue over a 1000-IOPS disk (every read costs 1 ms).
    fn fq(tau_ms: f64) -> SeastarFq {
        SeastarFq::new(SeastarFqParams {
            tau: Duration::from_millis_f64(tau_ms),
            read_iops: 1000.0,
            ..SeastarFqParams::default()
        })
    }

    fn flow(s: &mut SeastarFq, id: u32, weight: u32) {
        s.add_flow(Instant::ZERO, FlowId(id), &FlowConfig::weighted(weight));
    }

    /// Dispatch `n` requests at 1 ms apart (the disk's pace), refilling
    /// each flow in `backlog` so it always has queued requests; returns
    /// the flows served.
    fn serve(
        s: &mut SeastarFq,
        n: usize,
        backlog: &[u32],
        next_id: &mut u64,
        t: &mut u64,
    ) -> Vec<u32> {
        let dev = FlatDevice::at(0);
        let mut out = vec![];
        while out.len() < n {
            for &f in backlog {
                let queued = s
                    .slots
                    .get(FlowId(f))
                    .map_or(0, |i| s.classes[i as usize].queue.len());
                for _ in queued..4 {
                    *next_id += 1;
                    s.add(at_us(*t), req(*next_id, f, *next_id * 8));
                }
            }
            match s.dispatch(at_us(*t), &dev) {
                Decision::Dispatch(r) => out.push(r.flow.0),
                Decision::Idle => {}
                Decision::Nothing => panic!("nothing queued"),
            }
            *t += 1000;
        }
        out
    }

    #[test]
    fn builds_by_name_with_its_parameters() {
        let s = build("seastar-fq", &Params::default(), &BuildContext::default()).unwrap();
        assert_eq!(s.name(), "seastar-fq");
        assert!(
            !s.capabilities().may_idle,
            "no rates given: never throttles"
        );
        let mut p = Params::default();
        p.insert("read_iops", ParamValue::Int(218_786));
        p.insert("tau_ms", ParamValue::Float(2.0));
        assert!(
            build("seastar-fq", &p, &BuildContext::default())
                .unwrap()
                .capabilities()
                .may_idle
        );
        p.insert("tau_ms", ParamValue::Float(-1.0));
        assert!(build("seastar-fq", &p, &BuildContext::default()).is_err());
    }

    #[test]
    fn capacity_is_seastars_request_tokens_in_fixed_point() {
        let p = SeastarFqParams {
            read_iops: 218_786.0,
            read_bytes_s: 1_542_559_872.0,
            ..SeastarFqParams::default()
        };
        // A 128 KiB read on Seastar's i4i.2xlarge figures:
        // (1/218786 + 131072/1542559872) s x 1000 x 2^24.
        let r = Request {
            sectors: 256,
            ..req(1, 1, 0)
        };
        let want = (1.0 / 218_786.0 + 131_072.0 / 1_542_559_872.0) * UNITS_PER_S;
        assert_eq!(p.capacity(&r), want as u64);
    }

    /// Issue 43 defect 8: with read rates only, writes cost nothing and a
    /// reader of three times a writer's weight got no request at all.
    /// Writes without figures cost as reads (the rate device's rule);
    /// write figures without read figures are refused.
    #[test]
    fn seastar_fq_one_direction_costs_the_other_as_reads() {
        let reads_only = SeastarFqParams {
            read_iops: 1000.0,
            ..SeastarFqParams::default()
        };
        let read = req(1, 1, 0);
        let write = Request {
            dir: crate::types::Direction::Write,
            sync: false,
            ..read
        };
        let cap = reads_only.capacity(&read);
        assert_eq!(cap, (UNITS_PER_S / 1000.0) as u64);
        assert_eq!(reads_only.capacity(&write), cap);
        // Backlogged, 300:100 shares: 3:1 whatever the direction.
        let mut s = SeastarFq::new(reads_only);
        flow(&mut s, 1, 300);
        flow(&mut s, 2, 100);
        let dev = FlatDevice::at(0);
        let mut served = [0usize; 2];
        for i in 0..400u64 {
            for (f, w) in [(1u32, false), (2, true)] {
                let r = Request {
                    dir: if w {
                        crate::types::Direction::Write
                    } else {
                        crate::types::Direction::Read
                    },
                    ..req(2 * i + u64::from(f), f, i * 8)
                };
                s.add(at_us(i * 1000), r);
            }
            if let Decision::Dispatch(r) = s.dispatch(at_us(i * 1000 + 999), &dev) {
                served[r.flow.0 as usize - 1] += 1;
            }
        }
        assert!(served[0] >= 2 * served[1] && served[1] > 0, "{served:?}");
        // Write figures alone: refused in one line naming the read keys.
        let mut p = Params::default();
        p.insert("write_iops", ParamValue::Int(1000));
        let err = build("seastar-fq", &p, &BuildContext::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("read_iops or read_mb_s"), "{err}");
        p.insert("read_mb_s", ParamValue::Int(100));
        assert!(build("seastar-fq", &p, &BuildContext::default()).is_ok());
    }

    /// Backlogged classes are served in proportion to their shares (fails
    /// if shares are ignored: 1:1 then).
    #[test]
    fn backlogged_classes_get_their_shares() {
        let mut s = fq(5.0);
        flow(&mut s, 1, 100);
        flow(&mut s, 2, 300);
        let (mut id, mut t) = (0, 0);
        let got = serve(&mut s, 400, &[1, 2], &mut id, &mut t);
        let two = got.iter().filter(|&&f| f == 2).count();
        assert!(
            (295..=305).contains(&two),
            "flow 2 (shares 300 of 400) got {two} of 400"
        );
    }

    /// With no rates given, shares divide bytes (a nominal disk) and
    /// nothing is throttled.
    #[test]
    fn without_rates_shares_still_hold() {
        let mut s = SeastarFq::default();
        flow(&mut s, 1, 100);
        flow(&mut s, 2, 300);
        let (mut id, mut t) = (0, 0);
        let got = serve(&mut s, 400, &[1, 2], &mut id, &mut t);
        let two = got.iter().filter(|&&f| f == 2).count();
        assert!((295..=305).contains(&two), "flow 2 got {two} of 400");
        assert!(!s.capabilities().may_idle);
    }

    /// A class that wakes up after the others ran a long time alone is
    /// placed at most tau behind: with tau = 5 ms and 1 ms requests it
    /// catches up by about 5 requests, then alternates. Without the rule
    /// (its accumulated cost left at 0) it would take all of the next 200.
    #[test]
    fn a_waking_class_is_credited_at_most_tau() {
        let mut s = fq(5.0);
        flow(&mut s, 1, 100);
        flow(&mut s, 2, 100);
        let (mut id, mut t) = (0, 0);
        let alone = serve(&mut s, 1000, &[1], &mut id, &mut t);
        assert!(alone.iter().all(|&f| f == 1));
        let both = serve(&mut s, 200, &[1, 2], &mut id, &mut t);
        let two = both.iter().filter(|&&f| f == 2).count();
        assert!(
            (100..=106).contains(&two),
            "the woken class got {two} of 200"
        );
        // The first requests after waking are all its own: its credit.
        assert!(both[..5].iter().all(|&f| f == 2), "{:?}", &both[..10]);
        // tau = 0: no credit at all; the two alternate from the start.
        let mut s = fq(0.0);
        flow(&mut s, 1, 100);
        flow(&mut s, 2, 100);
        let (mut id, mut t) = (0, 0);
        serve(&mut s, 1000, &[1], &mut id, &mut t);
        let both = serve(&mut s, 200, &[1, 2], &mut id, &mut t);
        let two = both.iter().filter(|&&f| f == 2).count();
        assert!((99..=101).contains(&two), "tau 0: {two} of 200");
    }

    /// Requests leave only with tokens: a burst drains the 0.75 ms bucket,
    /// then the queue idles until the next request's capacity has
    /// accumulated, so the device is driven at its rate.
    #[test]
    fn the_token_bucket_paces_dispatch_at_the_capacity() {
        let mut s = SeastarFq::new(SeastarFqParams {
            read_iops: 10_000.0, // 100 us a request
            ..SeastarFqParams::default()
        });
        flow(&mut s, 1, 100);
        for i in 0..100 {
            s.add(at_us(0), req(i, 1, i * 8));
        }
        let dev = FlatDevice::at(0);
        let mut now = at_us(1_000_000);
        let mut times = vec![];
        while times.len() < 100 {
            match s.dispatch(now, &dev) {
                Decision::Dispatch(_) => times.push(now),
                Decision::Idle => now = s.poll_timeout().expect("a wake-up"),
                Decision::Nothing => unreachable!(),
            }
        }
        // 7 from the full bucket at once (0.75 ms of 100 us requests),
        // then one every 100 us.
        assert!(times[..7].iter().all(|&t| t == at_us(1_000_000)));
        let last = times[99].saturating_duration_since(at_us(1_000_000));
        let want = Duration::from_micros(93 * 100);
        assert!(
            last.as_nanos().abs_diff(want.as_nanos()) <= 200_000,
            "the 100th went at +{last:?}, want about {want:?}"
        );
        let _ = RequestId(0);
    }

    mod props {
        use super::*;
        use crate::policy::testkit::{Op, Testbed};
        use proptest::prelude::*;

        fn params(iops: u32, mb_s: u32, tau_ms: u32) -> SeastarFqParams {
            SeastarFqParams {
                tau: Duration::from_millis(u64::from(tau_ms)),
                read_iops: f64::from(iops),
                read_bytes_s: f64::from(mb_s) * 1e6,
                write_iops: f64::from(iops) / 2.0,
                write_bytes_s: f64::from(mb_s) * 0.5e6,
                ..SeastarFqParams::default()
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// Any script of arrivals, completions and waits, throttled or
            /// not, on a device of any depth, with merging on or off:
            /// every request is dispatched exactly once, an idle wait has a
            /// wake-up after now, nothing is left behind (the testbed
            /// checks).
            #[test]
            fn scripts_keep_the_scheduler_invariants(
                weights in prop::collection::vec(1u32..=1000, 1..5),
                ops in prop::collection::vec(
                    prop_oneof![
                        (0u32..5, 0u64..1000, 1u32..256, any::<bool>()).prop_map(|(flow, s, sectors, write)| {
                            Op::Add { flow, sector: s * 8, sectors, write }
                        }),
                        (0usize..8).prop_map(Op::Complete),
                        (0u64..30).prop_map(|ms| Op::Advance(Duration::from_millis(ms))),
                    ],
                    1..200,
                ),
                iops in prop_oneof![Just(0u32), 100u32..100_000],
                mb_s in prop_oneof![Just(0u32), 1u32..2000],
                tau_ms in 0u32..20,
                depth in 1usize..5,
                merge in any::<bool>(),
            ) {
                let mut tb = Testbed::new(SeastarFq::new(params(iops, mb_s, tau_ms)), depth);
                if merge {
                    tb = tb.with_merging(64);
                }
                for (i, &w) in weights.iter().enumerate() {
                    tb.flow(i as u32, w);
                }
                for op in &ops {
                    tb.step(op);
                }
                tb.drain();
            }

            /// The token bucket: by any instant t, the capacity dispatched
            /// is at most the bucket's size plus t's worth of the rate,
            /// plus one request (the last may overdraw a bucket smaller
            /// than itself).
            #[test]
            fn dispatch_never_outruns_the_capacity(
                arrivals in prop::collection::vec((0u32..4, 1u32..512, 0u64..2000), 1..300),
                iops in 100u32..100_000,
                mb_s in 1u32..2000,
            ) {
                let p = params(iops, mb_s, 5);
                let mut s = SeastarFq::new(p);
                let dev = FlatDevice::at(0);
                let mut arrivals = arrivals;
                arrivals.sort_by_key(|a| a.2);
                let mut next = 0;
                let mut now = Instant::ZERO;
                let mut spent = 0.0;
                let mut largest = 0u64;
                let limit = s.bucket_limit;
                for _ in 0..100_000 {
                    while next < arrivals.len() && Instant::ZERO + Duration::from_micros(arrivals[next].2 * 100) <= now {
                        let (f, sectors, _) = arrivals[next];
                        let r = Request { sectors, ..req(next as u64, f, next as u64 * 512) };
                        largest = largest.max(p.capacity(&r));
                        s.add(now, r);
                        next += 1;
                    }
                    match s.dispatch(now, &dev) {
                        Decision::Dispatch(r) => {
                            spent += p.capacity(&r) as f64;
                            let t = now.saturating_duration_since(Instant::ZERO).as_nanos() as f64 * 1e-9;
                            prop_assert!(
                                spent <= limit + t * UNITS_PER_S + largest as f64 + 1.0,
                                "at {t} s: {spent} units dispatched, bucket {limit}"
                            );
                        }
                        Decision::Idle => {
                            let w = s.poll_timeout().expect("an idle wait has a wake-up");
                            prop_assert!(w > now);
                            now = w;
                        }
                        Decision::Nothing => {
                            if next == arrivals.len() {
                                break;
                            }
                            now = Instant::ZERO + Duration::from_micros(arrivals[next].2 * 100);
                        }
                    }
                }
                prop_assert_eq!(s.queued(), 0);
            }
        }
    }
}
