//! The harness both benches share: a policy, driven by the `Driver` as
//! every host drives it, with a steady backlog of requests at pseudo-random
//! sectors on a depth-1 `FlatDevice`, and one add + dispatch + complete per
//! iteration.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};

use sluice::policy::{build, BuildContext, Params};
use sluice::testkit::FlatDevice;
use sluice::{
    DeviceView, Direction, Driver, Duration, FlowConfig, FlowId, Instant, LastAnswer, Request,
    RequestId, Scheduler,
};

pub(crate) const FLOW_COUNTS: [u32; 3] = [16, 256, 4096];
/// Requests queued per flow.
pub(crate) const BACKLOG: u32 = 2;
/// Sectors are drawn from the first 2^30 (512 GiB) of the device.
const SECTOR_SPAN: u64 = 1 << 30;
/// Virtual service time of one request.
const SERVICE: Duration = Duration::from_micros(100);

/// xorshift64: deterministic sectors without a dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// A policy with its steady backlog, a device and a clock.
pub(crate) struct Bench<D: DeviceView = FlatDevice> {
    pub driver: Driver<Box<dyn Scheduler>>,
    dev: D,
    rng: XorShift,
    now: Instant,
    next_id: u64,
    /// The flow whose request was served last: the next one to refill.
    refill: FlowId,
    /// Size of every request.
    sectors: u32,
}

impl Bench {
    /// `merge`: the driver merges as the simulator's default does (512 KiB;
    /// at random sectors nothing merges, so this measures the index).
    pub(crate) fn new(
        policy: &str,
        params: &Params,
        flows: u32,
        sectors: u32,
        merge: bool,
    ) -> Self {
        Bench::on(
            FlatDevice::at(0),
            policy,
            params,
            flows,
            BACKLOG,
            sectors,
            merge,
        )
    }
}

impl<D: DeviceView> Bench<D> {
    /// As [`Bench::new`], on `dev`, with `backlog` requests queued per flow.
    pub(crate) fn on(
        dev: D,
        policy: &str,
        params: &Params,
        flows: u32,
        backlog: u32,
        sectors: u32,
        merge: bool,
    ) -> Self {
        let sched = build(policy, params, &BuildContext::default()).expect("the policy builds");
        let mut driver = Driver::new(sched, 1);
        if merge {
            driver = driver.with_merging(sluice::DEFAULT_MAX_REQUEST_SECTORS);
        }
        let mut b = Bench {
            driver,
            dev,
            rng: XorShift(0x9E37_79B9_7F4A_7C15),
            now: Instant::ZERO,
            next_id: 0,
            refill: FlowId(0),
            sectors,
        };
        for f in 0..flows {
            b.driver
                .add_flow(Instant::ZERO, FlowId(f), &FlowConfig::default());
        }
        for _ in 0..backlog {
            for f in 0..flows {
                b.add(FlowId(f));
            }
        }
        // Serve one so that the loop starts in its steady state: one flow
        // (`refill`) is a request short, and gets it back first thing.
        b.serve();
        assert_eq!(b.driver.queued(), (flows * backlog - 1) as usize);
        b
    }

    fn add(&mut self, flow: FlowId) {
        let r = Request {
            id: RequestId(self.next_id),
            origin: RequestId(self.next_id),
            flow,
            dir: Direction::Read,
            sync: true,
            sector: self.rng.next() % SECTOR_SPAN,
            sectors: self.sectors,
            arrival: self.now,
        };
        self.next_id += 1;
        self.driver.add(self.now, r);
    }

    /// Dispatch one request to the idle device and complete it, waking
    /// the policy when it idles.
    fn serve(&mut self) -> Request {
        let r = loop {
            if let Some(r) = self.driver.poll_dispatch(self.now, &self.dev) {
                break r;
            }
            match (self.driver.last_answer(), self.driver.poll_timeout()) {
                (LastAnswer::Idle, Some(t)) => {
                    self.now = t.max(self.now + Duration::from_nanos(1));
                    self.driver.handle_timeout(self.now);
                }
                _ => panic!(
                    "{}: holds {} requests, device idle, dispatches nothing",
                    self.driver.policy().name(),
                    self.driver.queued()
                ),
            }
        };
        self.now += SERVICE;
        self.driver
            .complete(self.now, r.id)
            .expect("the request is in flight");
        self.refill = r.flow;
        r
    }

    /// One iteration: add, dispatch, complete.
    pub(crate) fn step(&mut self) -> Request {
        self.add(self.refill);
        self.serve()
    }
}

/// One criterion group `group_name`: `policy` with `params` at each of
/// [`FLOW_COUNTS`], requests of `sectors`; checks the backlog stayed put.
pub(crate) fn bench_group(
    c: &mut Criterion,
    group_name: &str,
    policy: &str,
    params: &Params,
    sectors: u32,
    merge: bool,
) {
    let mut group = c.benchmark_group(group_name);
    group.throughput(Throughput::Elements(1));
    for flows in FLOW_COUNTS {
        let mut bench = Bench::new(policy, params, flows, sectors, merge);
        group.bench_function(BenchmarkId::from_parameter(flows), |b| {
            b.iter(|| black_box(bench.step()))
        });
        assert_eq!(bench.driver.queued(), (flows * BACKLOG - 1) as usize);
    }
    group.finish();
}
