//! The engine on temporary files: small, seconds, no timing assertions that
//! a loaded machine could break (only lower bounds time itself guarantees).

use std::collections::{HashMap, VecDeque};
use std::io::Write;

use sluice::policy::{self, ParamValue, Params};
use sluice::{
    Capabilities, Decision, DeviceView, Direction, Duration, FlowConfig, FlowId, Instant, Request,
    RequestId, Scheduler, Service,
};
use sluice_uring::{
    AlignedBuf, Completion, Engine, EngineConfig, Error, Submission, TargetId, TargetOptions, Wait,
};
use tempfile::NamedTempFile;

const ENOSPC: i32 = 28; // Linux

/// An engine, or a one-line skip reason where the kernel has no io_uring.
fn engine<P: Scheduler>(policy: P, depth: usize) -> Option<Engine<P>> {
    engine_with(policy, EngineConfig::with_queue_depth(depth))
}

/// [`engine`] with a whole configuration.
fn engine_with<P: Scheduler>(policy: P, config: EngineConfig) -> Option<Engine<P>> {
    match Engine::new(policy, config) {
        Ok(e) => Some(e),
        Err(Error::Unavailable(e)) => {
            eprintln!("skipped: io_uring unavailable here ({e})");
            None
        }
        Err(e) => panic!("engine setup: {e}"),
    }
}

/// A data file of `len` bytes opened by `engine` with `opts`, and flow 0
/// of weight 100 (`None` where `engine` is: io_uring is missing).
fn reader<P: Scheduler>(
    engine: Option<Engine<P>>,
    len: u64,
    opts: &TargetOptions,
) -> Option<(NamedTempFile, Engine<P>, TargetId, FlowId)> {
    let mut e = engine?;
    let file = data_file(len);
    let t = e.open_target(file.path(), opts).unwrap();
    let f = flow(&mut e, 0, 100);
    Some((file, e, t, f))
}

/// [`reader`], or return from the test where io_uring is missing.
macro_rules! reader_or_skip {
    ($engine:expr, $len:expr, $opts:expr) => {
        match reader($engine, $len, $opts) {
            Some(r) => r,
            None => return,
        }
    };
}

macro_rules! engine_or_skip {
    ($policy:expr, $depth:expr) => {
        match engine($policy, $depth) {
            Some(e) => e,
            None => return,
        }
    };
}

/// The policy of that name with its default parameters.
fn named(name: &str) -> Box<dyn Scheduler> {
    policy::build(name, &Params::default(), &policy::BuildContext::default()).unwrap()
}

fn byte_at(pos: u64) -> u8 {
    (pos.wrapping_mul(31) ^ (pos >> 9)) as u8
}

/// A temporary file of `len` bytes of a known pattern.
fn data_file(len: u64) -> NamedTempFile {
    let mut f = NamedTempFile::new().unwrap();
    let data: Vec<u8> = (0..len).map(byte_at).collect();
    f.write_all(&data).unwrap();
    f.flush().unwrap();
    f
}

fn flow(engine: &mut Engine<impl Scheduler>, id: u32, weight: u32) -> FlowId {
    engine
        .add_flow(FlowId(id), &FlowConfig::weighted(weight))
        .unwrap();
    FlowId(id)
}

fn check_data(c: &Completion) {
    let n = c.bytes();
    for (i, &b) in c.buf[..n].iter().enumerate() {
        assert_eq!(b, byte_at(c.offset + i as u64), "{:?} byte {i}", c.id);
    }
}

/// Wraps a policy and records what it was asked to do.
struct Recorder<P> {
    inner: P,
    added: Vec<RequestId>,
    dispatched: Vec<(RequestId, FlowId)>,
    completed: Vec<RequestId>,
    max_in_flight_seen: usize,
}

impl<P> Recorder<P> {
    fn new(inner: P) -> Self {
        Recorder {
            inner,
            added: Vec::new(),
            dispatched: Vec::new(),
            completed: Vec::new(),
            max_in_flight_seen: 0,
        }
    }
}

impl<P: Scheduler> Scheduler for Recorder<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn add_flow(&mut self, now: Instant, flow: FlowId, config: &FlowConfig) {
        self.inner.add_flow(now, flow, config)
    }
    fn add(&mut self, now: Instant, request: Request) {
        self.added.push(request.id);
        self.inner.add(now, request)
    }
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        self.inner.merge(now, old, merged)
    }
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        self.max_in_flight_seen = self.max_in_flight_seen.max(device.in_flight());
        let d = self.inner.dispatch(now, device);
        if let Decision::Dispatch(r) = d {
            self.dispatched.push((r.id, r.flow));
        }
        d
    }
    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        self.completed.push(request.id);
        self.inner.complete(now, request, service)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.inner.poll_timeout()
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.inner.handle_timeout(now)
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
}

fn noop() -> Box<dyn Scheduler> {
    named("noop")
}

#[test]
fn every_request_completes_exactly_once_within_the_queue_depth() {
    const DEPTH: usize = 4;
    let file = data_file(1 << 20);
    let mut e = engine_or_skip!(Recorder::new(noop()), DEPTH);
    let t = e
        .open_target(file.path(), &TargetOptions::read_only())
        .unwrap();
    let flows: Vec<FlowId> = (0..4).map(|i| flow(&mut e, i, 100 * (i + 1))).collect();
    let mut submitted = Vec::new();
    let mut done: HashMap<RequestId, Completion> = HashMap::new();
    let mut x: u64 = 12345;
    for round in 0..50 {
        for _ in 0..10 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let offset = (x >> 33) % 256 * 4096;
            let f = flows[(x >> 20) as usize % flows.len()];
            let id = e
                .submit(Submission::read(f, t, offset, AlignedBuf::zeroed(4096)))
                .unwrap();
            submitted.push(id);
        }
        e.poll(if round % 2 == 0 { Wait::No } else { Wait::Any })
            .unwrap();
        assert!(e.in_flight() <= DEPTH);
        for c in e.completions() {
            assert!(done.insert(c.id, c).is_none(), "completed twice");
        }
    }
    for c in e.run_until_idle().unwrap() {
        assert!(done.insert(c.id, c).is_none(), "completed twice");
    }
    assert_eq!(e.poll(Wait::Any).unwrap(), 0, "nothing left");
    assert_eq!(done.len(), submitted.len());
    for id in &submitted {
        let c = &done[id];
        assert_eq!(c.result.as_ref().unwrap(), &4096);
        assert!(c.arrival <= c.dispatched && c.dispatched <= c.completed);
        check_data(c);
    }
    let rec = e.policy();
    assert_eq!(rec.added, submitted);
    let mut dispatched: Vec<RequestId> = rec.dispatched.iter().map(|d| d.0).collect();
    dispatched.sort();
    assert_eq!(dispatched, submitted, "each dispatched exactly once");
    assert_eq!(rec.completed.len(), submitted.len());
    assert!(rec.max_in_flight_seen < DEPTH);
    let s = e.stats();
    assert_eq!((s.submitted, s.completed, s.errors), (500, 500, 0));
    assert_eq!(e.pending(), 0);
}

#[test]
fn bfq_weights_one_to_three_give_shares_near_one_to_three() {
    // Two greedy sequential readers of private files, weights 100 and 300,
    // depth 1, every request queued before the first poll. Counted in
    // dispatch order until the heavy flow runs out: BFQ serves budgets of
    // 1024 sectors (8 requests) in B-WF2Q+ order, so the light flow should
    // get about a third of the heavy flow's service by then. Only the
    // order the policy chose is asserted, never a time.
    const REQS: usize = 192;
    const KIB: usize = 64;
    let mut params = Params::default();
    params.insert("max_budget", ParamValue::Int(1024));
    let bfq = policy::build("bfq", &params, &policy::BuildContext::default()).unwrap();
    let mut e = engine_or_skip!(Recorder::new(bfq), 1);
    let size = (REQS * KIB * 1024) as u64;
    let files = [data_file(size), data_file(size)];
    let targets: Vec<TargetId> = files
        .iter()
        .map(|f| {
            e.open_target(f.path(), &TargetOptions::read_only())
                .unwrap()
        })
        .collect();
    let light = flow(&mut e, 1, 100);
    let heavy = flow(&mut e, 2, 300);
    for i in 0..REQS {
        for (f, t) in [(light, targets[0]), (heavy, targets[1])] {
            let off = (i * KIB * 1024) as u64;
            e.submit(Submission::read(f, t, off, AlignedBuf::zeroed(KIB * 1024)))
                .unwrap();
        }
    }
    let all = e.run_until_idle().unwrap();
    assert_eq!(all.len(), 2 * REQS);
    assert!(all.iter().all(|c| c.bytes() == KIB * 1024));
    let order = &e.policy().dispatched;
    let last_heavy = order.iter().rposition(|d| d.1 == heavy).unwrap();
    let light_by_then = order[..=last_heavy].iter().filter(|d| d.1 == light).count();
    let ratio = REQS as f64 / light_by_then as f64;
    eprintln!(
        "heavy {REQS} requests while light got {light_by_then}: ratio {ratio:.2} (weights 3)"
    );
    assert!(
        (2.0..=4.5).contains(&ratio),
        "service ratio {ratio:.2}, weights 1:3"
    );
}

/// A FIFO that holds every request until 20 ms after its arrival, idling
/// the device with a wake-up meanwhile.
#[derive(Default)]
struct Holder {
    queue: VecDeque<Request>,
    wake: Option<Instant>,
    fired: u32,
}

const HOLD: Duration = Duration::from_millis(20);

impl Scheduler for Holder {
    fn name(&self) -> &str {
        "holder"
    }
    fn add(&mut self, _now: Instant, request: Request) {
        self.queue.push_back(request);
    }
    fn merge(&mut self, _now: Instant, _old: &Request, merged: &Request) {
        sluice::policy::merge_queued(&mut self.queue, merged);
    }
    fn dispatch(&mut self, now: Instant, _device: &dyn DeviceView) -> Decision {
        let Some(front) = self.queue.front() else {
            return Decision::Nothing;
        };
        let due = front.arrival + HOLD;
        if now >= due {
            return Decision::Dispatch(self.queue.pop_front().unwrap());
        }
        self.wake = Some(due);
        Decision::Idle
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.wake
    }
    fn handle_timeout(&mut self, _now: Instant) {
        self.wake = None;
        self.fired += 1;
    }
    fn queued(&self) -> usize {
        self.queue.len()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(true)
    }
}

#[test]
fn an_idling_policy_is_woken_by_its_timeout_and_the_engine_proceeds() {
    let (_file, mut e, t, f) = reader_or_skip!(
        engine(Holder::default(), 2),
        64 * 1024,
        &TargetOptions::read_only()
    );
    for i in 0..3 {
        e.submit(Submission::read(f, t, i * 4096, AlignedBuf::zeroed(4096)))
            .unwrap();
    }
    // Nothing can complete in the first 20 ms: a short wait returns empty.
    assert_eq!(
        e.poll(Wait::For(std::time::Duration::from_millis(1)))
            .unwrap(),
        0
    );
    assert!(e.next_wakeup().is_some(), "the policy's wake-up is pending");
    let done = e.run_until_idle().unwrap();
    assert_eq!(done.len(), 3);
    for c in &done {
        assert_eq!(c.bytes(), 4096);
        assert!(c.queueing() >= HOLD, "dispatched after {}", c.queueing());
        check_data(c);
    }
    assert!(e.policy().fired >= 1, "handle_timeout was called");
    let s = e.stats();
    assert!(s.timer_fires >= 1);
    // Blocking in the kernel, not spinning: a handful of enters for three
    // 20 ms waits (generous for signals and early returns).
    assert!(s.enters < 200, "{} io_uring_enter calls", s.enters);
}

fn short_reads(direct: bool) {
    let (_file, mut e, t, f) = reader_or_skip!(
        engine(noop(), 4),
        10_000,
        &TargetOptions::read_only().direct(direct)
    );
    let a = e
        .submit(Submission::read(f, t, 8192, AlignedBuf::zeroed(4096)))
        .unwrap();
    let b = e
        .submit(Submission::read(f, t, 12288, AlignedBuf::zeroed(4096)))
        .unwrap();
    let c = e
        .submit(Submission::read(f, t, 0, AlignedBuf::zeroed(16384)))
        .unwrap();
    let done: HashMap<RequestId, Completion> = e
        .run_until_idle()
        .unwrap()
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    assert_eq!(done.len(), 3);
    assert_eq!(done[&a].result.as_ref().unwrap(), &(10_000 - 8192));
    assert_eq!(done[&b].result.as_ref().unwrap(), &0);
    assert_eq!(done[&c].result.as_ref().unwrap(), &10_000);
    for c in done.values() {
        check_data(c);
    }
}

#[test]
fn short_reads_at_end_of_file_buffered() {
    short_reads(false);
}

#[test]
fn short_reads_at_end_of_file_direct() {
    short_reads(true);
}

#[test]
fn unaligned_buffered_read_at_end_of_file() {
    let (_file, mut e, t, f) = reader_or_skip!(
        engine(noop(), 1),
        10_000,
        &TargetOptions::read_only().direct(false)
    );
    e.submit(Submission::read(f, t, 9000, AlignedBuf::zeroed(2000)))
        .unwrap();
    let done = e.run_until_idle().unwrap();
    assert_eq!(done[0].result.as_ref().unwrap(), &1000);
    check_data(&done[0]);
}

#[test]
fn write_then_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("target.img");
    let mut e = engine_or_skip!(noop(), 8);
    let t = e
        .open_target(&path, &TargetOptions::read_write().size(1 << 20))
        .unwrap();
    let info = e.target(t).unwrap();
    assert!(info.writable && info.size == 1 << 20);
    if let Some(why) = &info.direct_fallback {
        eprintln!("note: {why}");
    }
    let flows = [flow(&mut e, 0, 100), flow(&mut e, 1, 200)];
    let pattern = |k: u64, i: usize| (k as usize * 131 + i * 7) as u8;
    let offsets = [0u64, 65536, 512 * 1024, (1 << 20) - 65536];
    for (k, &off) in offsets.iter().enumerate() {
        let data: Vec<u8> = (0..65536).map(|i| pattern(k as u64, i)).collect();
        e.submit(Submission::write(
            flows[k % 2],
            t,
            off,
            AlignedBuf::from_slice(&data),
        ))
        .unwrap();
    }
    for c in e.run_until_idle().unwrap() {
        assert_eq!(c.dir, Direction::Write);
        assert_eq!(c.result.unwrap(), 65536);
    }
    for (k, &off) in offsets.iter().enumerate() {
        e.submit(Submission::read(
            flows[k % 2],
            t,
            off,
            AlignedBuf::zeroed(65536),
        ))
        .unwrap();
    }
    let reads = e.run_until_idle().unwrap();
    assert_eq!(reads.len(), offsets.len());
    for c in reads {
        let k = offsets.iter().position(|&o| o == c.offset).unwrap() as u64;
        assert_eq!(c.bytes(), 65536);
        assert!(c.buf.iter().enumerate().all(|(i, &b)| b == pattern(k, i)));
    }
    // The data is in the file, not only in the engine.
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(on_disk[65536 + 5], pattern(1, 5));
}

#[test]
fn an_io_error_completes_the_request_and_nothing_panics() {
    // Writing to /dev/full fails with ENOSPC: a real kernel error.
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full here");
        return;
    }
    let mut e = engine_or_skip!(noop(), 2);
    let t = e
        .open_target(
            "/dev/full",
            &TargetOptions {
                direct: false,
                write: true,
                ..TargetOptions::default()
            },
        )
        .unwrap();
    let f = flow(&mut e, 0, 100);
    for i in 0..3 {
        e.submit(Submission::write(f, t, i * 512, AlignedBuf::zeroed(512)))
            .unwrap();
    }
    let done = e.run_until_idle().unwrap();
    assert_eq!(done.len(), 3);
    for c in &done {
        let err = c.result.as_ref().unwrap_err();
        assert_eq!(err.raw_os_error(), Some(ENOSPC), "{err}");
    }
    assert_eq!(e.stats().errors, 3);
}

#[test]
fn bad_requests_are_refused_at_submission() {
    let (_file, mut e, ro, f) =
        reader_or_skip!(engine(noop(), 2), 1 << 16, &TargetOptions::read_only());
    let read = |off, len| Submission::read(f, ro, off, AlignedBuf::zeroed(len));
    assert!(matches!(
        e.submit(Submission::read(FlowId(9), ro, 0, AlignedBuf::zeroed(512))),
        Err(Error::UnknownFlow(_))
    ));
    assert!(matches!(
        e.submit(Submission::read(f, TargetId(7), 0, AlignedBuf::zeroed(512))),
        Err(Error::UnknownTarget(_))
    ));
    assert!(matches!(
        e.submit(read(0, 0)),
        Err(Error::InvalidRequest(_))
    ));
    assert!(matches!(
        e.submit(Submission::write(f, ro, 0, AlignedBuf::zeroed(512))),
        Err(Error::InvalidRequest(_))
    ));
    if e.target(ro).unwrap().direct {
        assert!(matches!(
            e.submit(read(100, 512)),
            Err(Error::InvalidRequest(_))
        ));
        assert!(matches!(
            e.submit(read(0, 100)),
            Err(Error::InvalidRequest(_))
        ));
    }
    assert!(matches!(
        e.add_flow(f, &FlowConfig::default()),
        Err(Error::FlowExists(_))
    ));
    // The engine still works, and a busy flow cannot be removed.
    e.submit(read(0, 4096)).unwrap();
    assert!(matches!(e.remove_flow(f), Err(Error::FlowBusy { .. })));
    assert_eq!(e.run_until_idle().unwrap().len(), 1);
    e.remove_flow(f).unwrap();
    assert_eq!(e.stats().submitted, 1);
}

/// Holds everything, dispatches nothing, asks for no wake-up.
#[derive(Default)]
struct BlackHole(usize);

impl Scheduler for BlackHole {
    fn name(&self) -> &str {
        "black-hole"
    }
    fn add(&mut self, _now: Instant, _request: Request) {
        self.0 += 1;
    }
    fn merge(&mut self, _now: Instant, _old: &Request, _merged: &Request) {}
    fn dispatch(&mut self, _now: Instant, _device: &dyn DeviceView) -> Decision {
        Decision::Nothing
    }
    fn queued(&self) -> usize {
        self.0
    }
}

#[test]
fn a_stalled_policy_is_an_error_not_a_hang() {
    let (_file, mut e, t, f) = reader_or_skip!(
        engine(BlackHole::default(), 1),
        4096,
        &TargetOptions::read_only()
    );
    e.submit(Submission::read(f, t, 0, AlignedBuf::zeroed(4096)))
        .unwrap();
    match e.poll(Wait::Any) {
        Err(Error::Stalled { queued: 1, .. }) => {}
        r => panic!("{r:?}"),
    }
}

/// Dispatches the first request it gets, then holds the rest forever.
#[derive(Default)]
struct FirstOnly {
    queue: VecDeque<Request>,
    dispatched: bool,
}

impl Scheduler for FirstOnly {
    fn name(&self) -> &str {
        "first-only"
    }
    fn add(&mut self, _now: Instant, request: Request) {
        self.queue.push_back(request);
    }
    fn merge(&mut self, _now: Instant, _old: &Request, _merged: &Request) {}
    fn dispatch(&mut self, _now: Instant, _device: &dyn DeviceView) -> Decision {
        if self.dispatched {
            return Decision::Nothing;
        }
        match self.queue.pop_front() {
            Some(r) => {
                self.dispatched = true;
                Decision::Dispatch(r)
            }
            None => Decision::Nothing,
        }
    }
    fn queued(&self) -> usize {
        self.queue.len()
    }
}

/// Regression: `run_until_idle` gathered completions in a vector of its own
/// and dropped it on an error, so a request that had completed was never
/// reported (nor its buffer returned).
#[test]
fn completions_before_a_stall_are_still_reported() {
    let (_file, mut e, t, f) = reader_or_skip!(
        engine(FirstOnly::default(), 1),
        8192,
        &TargetOptions::read_only()
    );
    let first = e
        .submit(Submission::read(f, t, 0, AlignedBuf::zeroed(4096)))
        .unwrap();
    e.submit(Submission::read(f, t, 4096, AlignedBuf::zeroed(4096)))
        .unwrap();
    match e.run_until_idle() {
        Err(Error::Stalled { queued: 1, .. }) => {}
        r => panic!("{r:?}"),
    }
    let c = e.next_completion().expect("the first read completed");
    assert_eq!((c.id, c.bytes()), (first, 4096));
    check_data(&c);
    assert!(e.next_completion().is_none());
}

#[test]
fn dropping_the_engine_with_requests_in_the_kernel_is_safe() {
    let (_file, mut e, t, f) =
        reader_or_skip!(engine(noop(), 16), 1 << 20, &TargetOptions::read_only());
    for i in 0..64 {
        e.submit(Submission::read(f, t, i * 16384, AlignedBuf::zeroed(16384)))
            .unwrap();
    }
    e.poll(Wait::No).unwrap();
    drop(e); // waits for what the kernel holds before freeing buffers
}

#[test]
fn every_policy_runs_on_the_engine() {
    let file = data_file(1 << 20);
    for info in policy::POLICIES {
        let mut e = engine_or_skip!(named(info.name), 4);
        let t = e
            .open_target(file.path(), &TargetOptions::read_only())
            .unwrap();
        let flows = [flow(&mut e, 0, 100), flow(&mut e, 1, 300)];
        for i in 0..64u64 {
            let off = (i * 7919 % 256) * 4096;
            let f = flows[i as usize % 2];
            e.submit(Submission::read(f, t, off, AlignedBuf::zeroed(4096)))
                .unwrap();
        }
        let done = e.run_until_idle().unwrap();
        assert_eq!(done.len(), 64, "{}", info.name);
        assert!(done.iter().all(|c| c.bytes() == 4096), "{}", info.name);
    }
}

/// mclock's limit holds on the engine: the policy idles with a wake-up
/// (`poll_timeout`) and the engine wakes it when the next L tag is due.
#[test]
fn mclock_limit_paces_a_flow_on_the_engine() {
    let file = data_file(1 << 20);
    let mut e = engine_or_skip!(named("mclock"), 4);
    let t = e
        .open_target(file.path(), &TargetOptions::read_only())
        .unwrap();
    let f = FlowId(0);
    let config = FlowConfig {
        qos: sluice::Qos {
            limit_iops: Some(200.0),
            ..sluice::Qos::default()
        },
        ..FlowConfig::default()
    };
    e.add_flow(f, &config).unwrap();
    let start = e.now();
    for i in 0..10u64 {
        e.submit(Submission::read(f, t, i * 4096, AlignedBuf::zeroed(4096)))
            .unwrap();
    }
    let done = e.run_until_idle().unwrap();
    assert_eq!(done.len(), 10);
    // Ten requests at 200 IOPS: the last is dispatched 45 ms after the
    // first at the earliest.
    assert!(
        e.now() >= start + Duration::from_millis(45),
        "{:?}",
        e.now()
    );
}

#[test]
fn a_timed_wait_with_nothing_pending_sleeps_in_the_kernel() {
    let mut e = engine_or_skip!(noop(), 1);
    assert_eq!(e.poll(Wait::Any).unwrap(), 0, "nothing pending: at once");
    let start = std::time::Instant::now();
    let engine_start = e.now();
    assert_eq!(
        e.poll(Wait::For(std::time::Duration::from_millis(30)))
            .unwrap(),
        0
    );
    // Lower bounds only: time cannot run backwards on a loaded machine.
    assert!(start.elapsed() >= std::time::Duration::from_millis(30));
    assert!(e.now() >= engine_start + Duration::from_millis(30));
    assert!(e.stats().enters < 20, "{} enters", e.stats().enters);
}

/// A holding engine (requests wait 20 ms in the policy) that merges up to
/// `max_sectors`.
fn merging_engine(max_sectors: u32) -> Option<Engine<Holder>> {
    let config = EngineConfig {
        merge_sectors: Some(max_sectors),
        ..EngineConfig::with_queue_depth(4)
    };
    engine_with(Holder::default(), config)
}

#[test]
fn merged_reads_go_as_one_vectored_read_and_each_original_completes_with_its_data() {
    let (_file, mut e, t, f) = reader_or_skip!(
        merging_engine(1024),
        256 * 1024,
        &TargetOptions::read_only()
    );
    // Arrival order 1, 0, 2, 3: a front merge, then back merges, into one
    // 16 KiB read.
    let ids: Vec<RequestId> = [1u64, 0, 2, 3]
        .iter()
        .map(|&k| {
            e.submit(Submission::read(f, t, k * 4096, AlignedBuf::zeroed(4096)))
                .unwrap()
        })
        .collect();
    let done = e.run_until_idle().unwrap();
    assert_eq!(e.stats().merges, 3, "four arrivals, one request");
    assert_eq!(done.len(), 4, "each original completes");
    for c in &done {
        assert!(ids.contains(&c.id));
        assert_eq!(c.bytes(), 4096);
        check_data(c);
    }
    let mut seen: Vec<RequestId> = done.iter().map(|c| c.id).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 4, "exactly once");
}

#[test]
fn merged_writes_land_where_each_original_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("merged.img");
    let Some(mut e) = merging_engine(1024) else {
        return;
    };
    let t = e
        .open_target(&path, &TargetOptions::read_write().size(1 << 20))
        .unwrap();
    let f = flow(&mut e, 0, 100);
    for k in [1u8, 0, 2] {
        let data = vec![k + 10; 8192];
        e.submit(Submission::write(
            f,
            t,
            u64::from(k) * 8192,
            AlignedBuf::from_slice(&data),
        ))
        .unwrap();
    }
    let done = e.run_until_idle().unwrap();
    assert_eq!(e.stats().merges, 2);
    assert!(done
        .iter()
        .all(|c| c.result.as_ref().is_ok_and(|&n| n == 8192)));
    drop(e);
    let on_disk = std::fs::read(&path).unwrap();
    for k in 0..3usize {
        assert!(
            on_disk[k * 8192..(k + 1) * 8192]
                .iter()
                .all(|&b| b == k as u8 + 10),
            "block {k}"
        );
    }
}

#[test]
fn a_short_merged_read_gives_each_original_its_part() {
    // The file ends inside the second of three merged 4 KiB reads.
    let (_file, mut e, t, f) = reader_or_skip!(
        merging_engine(1024),
        4096 + 1000,
        &TargetOptions::read_only()
    );
    for k in 0..3u64 {
        e.submit(Submission::read(f, t, k * 4096, AlignedBuf::zeroed(4096)))
            .unwrap();
    }
    let mut done = e.run_until_idle().unwrap();
    done.sort_by_key(|c| c.offset);
    let bytes: Vec<usize> = done.iter().map(Completion::bytes).collect();
    assert_eq!(bytes, vec![4096, 1000, 0]);
    check_data(&done[1]);
}

#[test]
fn merged_parts_with_a_gap_between_their_bytes_go_one_sqe_each() {
    // Sectors 0 and 1 are contiguous, but the first read covers only bytes
    // 0..100 of its sector: no vectored read can serve both.
    let (_file, mut e, t, f) = reader_or_skip!(
        merging_engine(1024),
        64 * 1024,
        &TargetOptions::read_only().direct(false)
    );
    e.submit(Submission::read(f, t, 0, AlignedBuf::zeroed(100)))
        .unwrap();
    e.submit(Submission::read(f, t, 512, AlignedBuf::zeroed(512)))
        .unwrap();
    let mut done = e.run_until_idle().unwrap();
    assert_eq!(e.stats().merges, 1);
    done.sort_by_key(|c| c.offset);
    assert_eq!(
        done.iter().map(Completion::bytes).collect::<Vec<_>>(),
        vec![100, 512]
    );
    done.iter().for_each(check_data);
}

#[test]
fn a_doorbell_rung_from_another_thread_ends_a_blocking_poll() {
    let Some(mut e) = engine(noop(), 1) else {
        return;
    };
    let bell = e.doorbell().unwrap();
    // Nothing pending and no timer: without the doorbell `Wait::Any` would
    // return at once; with it, the poll blocks until the bell rings.
    let rang = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = std::sync::Arc::clone(&rang);
    let ringer = std::thread::spawn(move || {
        // Late enough that a poll which did not wait would be back first.
        std::thread::sleep(std::time::Duration::from_millis(50));
        seen.store(true, std::sync::atomic::Ordering::SeqCst);
        bell.ring();
    });
    assert_eq!(e.poll(Wait::Any).unwrap(), 0);
    assert!(
        rang.load(std::sync::atomic::Ordering::SeqCst),
        "poll returned before the ring"
    );
    ringer.join().unwrap();
    // Rung once, answered once: the next bounded poll times out quietly.
    assert_eq!(
        e.poll(Wait::For(std::time::Duration::from_millis(5)))
            .unwrap(),
        0
    );
    // Requests still complete with the doorbell armed.
    let file = data_file(8192);
    let t = e
        .open_target(file.path(), &TargetOptions::read_only().direct(false))
        .unwrap();
    let f = flow(&mut e, 0, 100);
    e.submit(Submission::read(f, t, 0, AlignedBuf::zeroed(4096)))
        .unwrap();
    let done = e.run_until_idle().unwrap();
    assert_eq!(done.len(), 1);
    check_data(&done[0]);
}

#[test]
fn adopted_targets_serve_requests_and_close_only_when_idle() {
    let Some(mut e) = engine(noop(), 1) else {
        return;
    };
    let file = data_file(16384);
    let t = e
        .adopt_target(std::fs::File::open(file.path()).unwrap(), file.path())
        .unwrap();
    assert!(!e.target(t).unwrap().writable, "opened read-only");
    let f = flow(&mut e, 0, 100);
    e.submit(Submission::read(f, t, 4096, AlignedBuf::zeroed(4096)))
        .unwrap();
    assert!(matches!(
        e.close_target(t),
        Err(Error::TargetBusy { pending: 1, .. })
    ));
    let done = e.run_until_idle().unwrap();
    check_data(&done[0]);
    e.close_target(t).unwrap();
    assert!(e.target(t).is_none());
    assert!(matches!(e.close_target(t), Err(Error::UnknownTarget(_))));
    let refused = e.submit(Submission::read(f, t, 0, AlignedBuf::zeroed(512)));
    assert!(matches!(refused, Err(Error::UnknownTarget(_))));
    // The id is reused by the next target, which is served.
    let again = e
        .open_target(file.path(), &TargetOptions::read_only())
        .unwrap();
    assert_eq!(again, t);
    e.submit(Submission::read(f, again, 0, AlignedBuf::zeroed(4096)))
        .unwrap();
    check_data(&e.run_until_idle().unwrap()[0]);
}
