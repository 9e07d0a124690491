//! Tools for testing policies: a flat device and a [`Testbed`], which is the
//! [`Driver`] with a scripted device and a manual clock. Public so that
//! embedders can check their own policies the same way.
//!
//! A test moves the clock, adds requests, asks for dispatches and completes
//! requests by hand ([`Testbed::add`], [`Testbed::fill`],
//! [`Testbed::complete_all`], [`Testbed::advance_to`]), or runs closed-loop
//! flows on a serial device for a while ([`Testbed::closed_flow`],
//! [`Testbed::run`]). Either way the testbed checks the [`Scheduler`]
//! invariants as it goes and panics with a message on a violation.

use std::collections::{BTreeSet, HashSet};

use crate::driver::{Driver, LastAnswer};
use crate::scheduler::{CostModel, DeviceView, FlowConfig, Scheduler};
use crate::time::{earliest, Duration, Instant};
use crate::types::{Direction, FlowId, Request, RequestId};

/// A device whose seek time grows with the sector distance (1 µs plus 1 ns
/// per sector) and which has no rotation. Its fields also make it a
/// hand-set [`DeviceView`] for unit tests that call a policy directly.
#[derive(Clone, Debug)]
pub struct FlatDevice {
    /// The sector [`DeviceView::head`] reports.
    pub head: u64,
    /// The count [`DeviceView::in_flight`] reports.
    pub in_flight: usize,
    /// The count [`DeviceView::queue_depth`] reports.
    pub depth: usize,
    /// Size in sectors.
    pub capacity: u64,
}

impl FlatDevice {
    /// A depth-1 device with its head at `head`.
    pub fn at(head: u64) -> Self {
        FlatDevice {
            head,
            in_flight: 0,
            depth: 1,
            capacity: 1 << 40,
        }
    }
}

impl CostModel for FlatDevice {
    fn capacity(&self) -> u64 {
        self.capacity
    }
    fn seek_time(&self, from: u64, to: u64) -> Duration {
        if from == to {
            Duration::ZERO
        } else {
            Duration::from_nanos(1000 + from.abs_diff(to))
        }
    }
    fn positioning_time(&self, _now: Instant, from: u64, to: u64) -> Duration {
        self.seek_time(from, to)
    }
    fn full_stroke_seek(&self) -> Duration {
        self.seek_time(0, self.capacity)
    }
}

impl DeviceView for FlatDevice {
    fn in_flight(&self) -> usize {
        self.in_flight
    }
    fn queue_depth(&self) -> usize {
        self.depth
    }
    fn head(&self) -> u64 {
        self.head
    }
}

/// The 64-bit FNV-1a hash of `words` (each as 8 little-endian bytes): a
/// stable fingerprint for golden tests.
pub fn fnv1a(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in words.into_iter().flat_map(u64::to_le_bytes) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The instant `ms` milliseconds after the origin (tests speak in ms).
pub fn at_ms(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

/// A read request of 8 sectors from `flow` at `sector`, arriving at 0.
pub fn req(id: u64, flow: u32, sector: u64) -> Request {
    Request {
        id: RequestId(id),
        origin: RequestId(id),
        flow: FlowId(flow),
        dir: Direction::Read,
        sync: true,
        sector,
        sectors: 8,
        arrival: Instant::ZERO,
    }
}

/// One step of a scripted run ([`Testbed::step`], for property tests).
#[derive(Clone, Debug)]
pub enum Op {
    /// A request arrives from `flow`.
    Add {
        /// The issuing flow's number.
        flow: u32,
        /// First sector.
        sector: u64,
        /// Length in sectors (0 counts as 1).
        sectors: u32,
        /// A write (asynchronous) rather than a read (synchronous).
        write: bool,
    },
    /// The device finishes the in-flight request at this index (modulo the
    /// number in flight); nothing happens if none is in flight.
    Complete(usize),
    /// Time passes.
    Advance(Duration),
}

/// Where a closed-loop flow's requests go.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// 8-sector requests one after another from this sector.
    Seq {
        /// The next request's first sector.
        next: u64,
    },
    /// 8-sector requests at pseudo-random sectors (a fixed LCG) over a
    /// 2^30-sector span.
    Rand {
        /// The generator's state (the seed, at first).
        state: u64,
    },
}

/// A closed-loop flow: keeps `outstanding` requests queued or in flight,
/// issuing the next one `think` after each completion.
#[derive(Clone, Debug)]
pub struct ClosedFlow {
    /// The flow's number.
    pub flow: u32,
    /// Where its requests go.
    pub pattern: Pattern,
    /// True: synchronous reads; false: asynchronous writes.
    pub sync: bool,
    /// Requests it keeps queued or in flight.
    pub outstanding: usize,
    /// The wait between a completion and the next issue.
    pub think: Duration,
    live: usize,
}

impl ClosedFlow {
    /// A closed-loop flow with the given settings and nothing issued yet.
    pub fn new(
        flow: u32,
        pattern: Pattern,
        sync: bool,
        outstanding: usize,
        think: Duration,
    ) -> Self {
        ClosedFlow {
            flow,
            pattern,
            sync,
            outstanding,
            think,
            live: 0,
        }
    }

    fn next_sector(&mut self) -> u64 {
        match &mut self.pattern {
            Pattern::Seq { next } => {
                *next += 8;
                *next - 8
            }
            Pattern::Rand { state } => {
                *state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (*state >> 34) << 3
            }
        }
    }
}

/// How long the scripted device takes to serve a request in [`Testbed::run`].
type ServiceFn = Box<dyn Fn(&Request) -> Duration>;

/// The driver with a scripted device and a manual clock; checks the
/// scheduler invariants on every step.
pub struct Testbed<P: Scheduler> {
    driver: Driver<P>,
    /// The cost model the policy sees (its `head`/`in_flight` fields are
    /// not used: the driver keeps those).
    pub dev: FlatDevice,
    now: Instant,
    next_id: u64,
    flows: BTreeSet<u32>,
    added: HashSet<RequestId>,
    dispatched: HashSet<RequestId>,
    /// Added requests reported finished (each original of a merged one).
    finished: HashSet<RequestId>,
    /// Every dispatch, in order, with its time.
    pub log: Vec<(Instant, Request)>,
    /// Every completion, in order, with how many dispatches preceded it.
    pub completions: Vec<(usize, Request)>,
    /// Completion time of each request in flight, in [`Testbed::run`].
    due: Vec<(RequestId, Instant)>,
    closed: Vec<ClosedFlow>,
    issues: Vec<(Instant, usize)>,
    service: ServiceFn,
    /// Start and end of every idle wait the policy asked for.
    pub idles: Vec<(Instant, Instant)>,
}

impl<P: Scheduler> Testbed<P> {
    /// A testbed for `policy` on a device of `depth` (at least 1), at time 0.
    pub fn new(policy: P, depth: usize) -> Self {
        let driver = Driver::new(policy, depth);
        let mut dev = FlatDevice::at(0);
        dev.depth = driver.queue_depth();
        Testbed {
            driver,
            dev,
            now: Instant::ZERO,
            next_id: 0,
            flows: BTreeSet::new(),
            added: HashSet::new(),
            dispatched: HashSet::new(),
            finished: HashSet::new(),
            log: Vec::new(),
            completions: Vec::new(),
            due: Vec::new(),
            closed: Vec::new(),
            issues: Vec::new(),
            service: Box::new(|_| Duration::from_millis(1)),
            idles: Vec::new(),
        }
    }

    /// Merge contiguous arrivals as the block layer does, up to
    /// `max_sectors` per request (see [`Driver::with_merging`]). The testbed
    /// then also checks that each dispatched request is made of added ones
    /// and that every added request finishes exactly once.
    pub fn with_merging(mut self, max_sectors: u32) -> Self {
        self.driver = self.driver.with_merging(max_sectors);
        self
    }

    /// The policy under test.
    pub fn policy(&self) -> &P {
        self.driver.policy()
    }

    /// The policy, to change it between steps.
    pub fn policy_mut(&mut self) -> &mut P {
        self.driver.policy_mut()
    }

    /// The driver.
    pub fn driver(&self) -> &Driver<P> {
        &self.driver
    }

    /// The current time.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Requests in the device.
    pub fn in_flight(&self) -> usize {
        self.driver.in_flight()
    }

    /// Requests dispatched, in order.
    pub fn order(&self) -> Vec<Request> {
        self.log.iter().map(|&(_, r)| r).collect()
    }

    /// The run so far in two numbers: the dispatch count and [`fnv1a`] over
    /// each dispatch (time, request id, flow) and the policy's stats.
    /// Golden tests pin it, so that any change in a decision shows.
    pub fn fingerprint(&self) -> (usize, u64) {
        let dispatches = self
            .log
            .iter()
            .flat_map(|(t, r)| [t.as_nanos(), r.id.0, u64::from(r.flow.0)]);
        let stats = self.policy().stats().entries();
        let stats = stats.iter().map(|(_, v)| v.to_bits());
        (self.log.len(), fnv1a(dispatches.chain(stats)))
    }

    /// What the policy answered when last asked.
    pub fn answer(&self) -> LastAnswer {
        self.driver.last_answer()
    }

    /// The end of the idle wait the policy is in, if it is idling.
    pub fn idle_until(&self) -> Option<Instant> {
        (self.driver.last_answer() == LastAnswer::Idle)
            .then(|| self.driver.poll_timeout())
            .flatten()
    }

    /// Register a flow with a weight (done implicitly with weight 100 on a
    /// flow's first request otherwise).
    pub fn flow(&mut self, flow: u32, weight: u32) {
        self.flow_in(flow, weight, None);
    }

    /// Register a flow with a weight and a class.
    pub fn flow_in(&mut self, flow: u32, weight: u32, class: Option<u32>) {
        if self.flows.insert(flow) {
            let cfg = FlowConfig {
                class,
                ..FlowConfig::weighted(weight)
            };
            self.driver.add_flow(self.now, FlowId(flow), &cfg);
        }
    }

    /// Register a flow with a whole configuration (reservation, limit).
    pub fn flow_config(&mut self, flow: u32, config: &FlowConfig) {
        if self.flows.insert(flow) {
            self.driver.add_flow(self.now, FlowId(flow), config);
        }
    }

    /// A request arrives now; returns it. Does not dispatch.
    pub fn add_request(&mut self, flow: u32, sector: u64, sectors: u32, write: bool) -> Request {
        self.flow(flow, 100);
        let r = Request {
            id: RequestId(self.next_id),
            origin: RequestId(self.next_id),
            flow: FlowId(flow),
            dir: if write {
                Direction::Write
            } else {
                Direction::Read
            },
            sync: !write,
            sector,
            sectors: sectors.max(1),
            arrival: self.now,
        };
        self.add_given(r);
        r
    }

    /// A read of `sectors` at `sector` arrives now from `flow`.
    pub fn add(&mut self, flow: u32, sector: u64, sectors: u32) -> Request {
        self.add_request(flow, sector, sectors, false)
    }

    /// A request the test built arrives now (its id must be fresh; ids the
    /// testbed gives continue after it).
    pub fn add_given(&mut self, r: Request) {
        assert!(self.added.insert(r.id), "request {:?} added twice", r.id);
        self.next_id = self.next_id.max(r.id.0 + 1);
        self.driver.add(self.now, r);
    }

    /// Ask the policy for one request (the device must have room).
    #[must_use = "the test should check what the policy dispatched (or `fill` the device)"]
    pub fn poll(&mut self) -> Option<Request> {
        let r = self.driver.poll_dispatch(self.now, &self.dev);
        self.check_answer(r);
        r
    }

    /// Ask for one request, expecting one.
    pub fn expect_dispatch(&mut self) -> Request {
        match self.poll() {
            Some(r) => r,
            None => panic!(
                "{}: expected a dispatch at {:?}, got {:?}",
                self.driver.policy().name(),
                self.now,
                self.driver.last_answer()
            ),
        }
    }

    /// Fill the device as the policy decides; returns what was dispatched.
    pub fn fill(&mut self) -> Vec<Request> {
        let mut out = Vec::new();
        while let Some(r) = self.poll() {
            out.push(r);
        }
        out
    }

    /// Complete request `id` now; returns how many added requests it
    /// finished (more than one when it was merged).
    pub fn complete(&mut self, id: RequestId) -> usize {
        let done = self
            .driver
            .complete(self.now, id)
            .expect("the testbed completes only what is in flight");
        self.check_parts(&done);
        let finished = done.originals().len();
        self.completions.push((self.log.len(), done.request));
        self.due.retain(|&(d, _)| d != id);
        finished
    }

    /// `dt` passes (without firing wake-ups); everything in flight completes.
    pub fn complete_all(&mut self, dt: Duration) {
        self.now += dt;
        let ids: Vec<RequestId> = self
            .driver
            .in_flight_requests()
            .map(|(r, _)| r.id)
            .collect();
        for id in ids {
            self.complete(id);
        }
    }

    /// Dispatch one request and complete it after `dt`.
    pub fn serve(&mut self, dt: Duration) -> Request {
        let r = self.expect_dispatch();
        self.complete_all(dt);
        r
    }

    /// Let time pass to `t`, firing the policy's wake-ups on the way and
    /// refilling the device after each, so that a wait ends exactly when the
    /// policy said.
    pub fn advance_to(&mut self, t: Instant) {
        while let Some(w) = self.driver.poll_timeout().filter(|&w| w <= t) {
            self.now = self.now.max(w);
            self.driver.handle_timeout(self.now);
            let name = self.driver.policy().name().to_string();
            assert!(
                self.driver.poll_timeout().is_none_or(|w| w > self.now),
                "{name}: wake-up not moved past now={:?}",
                self.now
            );
            self.fill();
        }
        self.now = self.now.max(t);
    }

    /// Let `dt` pass (see [`Testbed::advance_to`]).
    pub fn advance(&mut self, dt: Duration) {
        self.advance_to(self.now + dt);
    }

    /// The policy must be idling: let the wait lapse (firing the wake-up).
    pub fn lapse_idle(&mut self) {
        if self.poll().is_some() || self.driver.last_answer() != LastAnswer::Idle {
            panic!(
                "{}: expected an idle wait at {:?}",
                self.driver.policy().name(),
                self.now
            );
        }
        let t = self
            .driver
            .poll_timeout()
            .expect("an idling policy has a wake-up");
        self.advance_to(t);
    }

    /// Run one scripted step, then let the policy fill the device; returns
    /// the request the step added, if it added one.
    pub fn step(&mut self, op: &Op) -> Option<Request> {
        let mut added = None;
        match *op {
            Op::Add {
                flow,
                sector,
                sectors,
                write,
            } => {
                added = Some(self.add_request(flow, sector, sectors, write));
            }
            Op::Complete(i) => {
                let ids: Vec<RequestId> = self
                    .driver
                    .in_flight_requests()
                    .map(|(r, _)| r.id)
                    .collect();
                if !ids.is_empty() {
                    self.complete(ids[i % ids.len()]);
                }
            }
            Op::Advance(dt) => self.advance(dt),
        }
        self.fill();
        added
    }

    /// Complete everything and let time pass until the policy has given up
    /// every request; then check exactly-once dispatch.
    pub fn drain(&mut self) {
        for _ in 0..1_000_000 {
            let first = self.driver.in_flight_requests().next().map(|(r, _)| r.id);
            if let Some(id) = first {
                self.complete(id);
                self.fill();
            } else if self.driver.queued() > 0 {
                self.advance(Duration::from_millis(1));
                self.fill();
            } else {
                break;
            }
        }
        let name = self.driver.policy().name().to_string();
        assert_eq!(
            self.driver.queued(),
            0,
            "{name}: requests stuck in the policy"
        );
        assert_eq!(
            self.finished.len(),
            self.added.len(),
            "{name}: finished count differs"
        );
        if self.driver.max_merge_sectors().is_none() {
            assert_eq!(
                self.dispatched.len(),
                self.added.len(),
                "{name}: dispatched count differs"
            );
        }
    }

    /// A completed request is its originals laid end to end: same flow,
    /// direction and sync class, within the merge limit, each finished once.
    fn check_parts(&mut self, done: &crate::driver::Completion) {
        let name = self.driver.policy().name().to_string();
        let r = &done.request;
        let mut at = r.sector;
        for p in done.originals() {
            assert!(
                self.added.contains(&p.id),
                "{name}: part {:?} never added",
                p.id
            );
            assert!(
                self.finished.insert(p.id),
                "{name}: {:?} finished twice",
                p.id
            );
            assert_eq!(p.sector, at, "{name}: parts of {:?} not contiguous", r.id);
            assert_eq!(
                (p.flow, p.dir, p.sync),
                (r.flow, r.dir, r.sync),
                "{name}: mixed parts"
            );
            at = p.end();
        }
        assert_eq!(at, r.end(), "{name}: parts do not cover {:?}", r.id);
        if let (Some(max), false) = (self.driver.max_merge_sectors(), done.parts.is_empty()) {
            assert!(r.sectors <= max, "{name}: merged {:?} over the limit", r.id);
        }
    }

    // ----- closed-loop runs ------------------------------------------------

    /// How long the device takes per request in [`Testbed::run`] (1 ms
    /// unless set). The device serves one request after the other.
    pub fn service_time(&mut self, f: impl Fn(&Request) -> Duration + 'static) {
        self.service = Box::new(f);
    }

    /// Add a closed-loop flow; it issues its first requests now.
    pub fn closed_flow(&mut self, flow: ClosedFlow) {
        let i = self.closed.len();
        for _ in 0..flow.outstanding {
            self.issues.push((self.now, i));
        }
        self.closed.push(flow);
    }

    /// Run the closed-loop flows and the device until `end`: at each
    /// instant, completions first, then issues, then the policy's wake-up;
    /// then the device is refilled.
    pub fn run(&mut self, end: Instant) {
        loop {
            self.issues.sort();
            let next_issue = self.issues.first().map(|x| x.0);
            let next_done = self.due.iter().map(|x| x.1).min();
            let t = earliest([next_issue, next_done, self.driver.poll_timeout()]);
            let Some(t) = t.filter(|&t| t <= end) else {
                break;
            };
            self.now = self.now.max(t);
            if let Some(&(id, _)) = self.due.iter().find(|x| x.1 <= self.now) {
                let flow = self
                    .driver
                    .in_flight_requests()
                    .find(|(r, _)| r.id == id)
                    .map(|(r, _)| r.flow.0);
                // A merged request finishes each of its originals: the
                // flow gets every one of their slots back.
                let finished = self.complete(id);
                if let Some(i) = self.closed.iter().position(|c| Some(c.flow) == flow) {
                    self.closed[i].live -= finished;
                    let think = self.closed[i].think;
                    for _ in 0..finished {
                        self.issues.push((self.now + think, i));
                    }
                }
            } else if next_issue.is_some_and(|i| i <= self.now) {
                let (_, i) = self.issues.remove(0);
                let c = &mut self.closed[i];
                if c.live < c.outstanding {
                    c.live += 1;
                    let sector = c.next_sector();
                    let (flow, write) = (c.flow, !c.sync);
                    self.add_request(flow, sector, 8, write);
                }
            } else {
                self.driver.handle_timeout(self.now);
            }
            // The device is offered once everything due now is in (as the
            // simulator does): a flow without think time reissues first.
            let now = self.now;
            if !self.issues.iter().any(|x| x.0 <= now) && !self.due.iter().any(|x| x.1 <= now) {
                self.fill();
            }
        }
        self.now = self.now.max(end);
    }

    /// Dispatches of `flow` so far.
    pub fn count(&self, flow: u32) -> usize {
        self.log.iter().filter(|x| x.1.flow.0 == flow).count()
    }

    /// Maximal runs of consecutive dispatches of one flow: (flow, count,
    /// first time, last time).
    pub fn runs(&self) -> Vec<(u32, usize, Instant, Instant)> {
        let mut out: Vec<(u32, usize, Instant, Instant)> = Vec::new();
        for &(t, r) in &self.log {
            match out.last_mut() {
                Some(x) if x.0 == r.flow.0 => {
                    x.1 += 1;
                    x.3 = t;
                }
                _ => out.push((r.flow.0, 1, t, t)),
            }
        }
        out
    }

    /// Check what the policy answered; record a dispatch.
    fn check_answer(&mut self, r: Option<Request>) {
        let name = self.driver.policy().name().to_string();
        let name = name.as_str();
        if let Some(r) = r {
            assert!(
                self.added.contains(&r.id),
                "{name}: dispatched {:?}, never added",
                r.id
            );
            assert!(
                self.dispatched.insert(r.id),
                "{name}: dispatched {:?} twice",
                r.id
            );
            self.log.push((self.now, r));
            let done = self
                .due
                .iter()
                .map(|x| x.1)
                .max()
                .map_or(self.now, |d| d.max(self.now))
                + (self.service)(&r);
            self.due.push((r.id, done));
            return;
        }
        match self.driver.last_answer() {
            LastAnswer::Idle => {
                assert!(
                    self.driver.policy().capabilities().may_idle,
                    "{name}: idles but says it never does"
                );
                let until = self.driver.poll_timeout();
                assert!(
                    until.is_some_and(|t| t > self.now),
                    "{name}: idles until {until:?}, not after now={:?}",
                    self.now
                );
                self.idles.push((self.now, until.unwrap_or(self.now)));
            }
            LastAnswer::Nothing => {
                // Work conservation: with nothing in flight, a policy that
                // holds requests must dispatch or say why it idles.
                assert!(
                    self.driver.queued() == 0 || self.driver.in_flight() > 0,
                    "{name}: holds {} requests, device empty, dispatches nothing",
                    self.driver.queued()
                );
            }
            LastAnswer::Full => {}
        }
    }
}
