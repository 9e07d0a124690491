//! The harness both benches share: a policy with a steady backlog of
//! requests at pseudo-random sectors on a depth-1 `FlatDevice`, and one
//! add + dispatch + complete per iteration.

use sluice::policy::{build, Params};
use sluice::testkit::FlatDevice;
use sluice::{
    Decision, Direction, FlowConfig, FlowId, Nanos, Request, RequestId, Scheduler, Service,
};

pub const FLOW_COUNTS: [u32; 3] = [16, 256, 4096];
/// Requests queued per flow.
pub const BACKLOG: u32 = 2;
/// Sectors are drawn from the first 2^30 (512 GiB) of the device.
const SECTOR_SPAN: u64 = 1 << 30;
/// Virtual service time of one request.
const SERVICE: Nanos = 100_000;

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
pub struct Bench {
    pub sched: Box<dyn Scheduler>,
    dev: FlatDevice,
    rng: XorShift,
    now: Nanos,
    next_id: u64,
    /// The flow whose request was served last: the next one to refill.
    refill: FlowId,
    /// Size of every request.
    sectors: u32,
}

impl Bench {
    pub fn new(policy: &str, params: &Params, flows: u32, sectors: u32) -> Self {
        let sched = build(policy, params).expect("the policy builds");
        let mut b = Bench {
            sched,
            dev: FlatDevice::at(0),
            rng: XorShift(0x9E37_79B9_7F4A_7C15),
            now: 0,
            next_id: 0,
            refill: FlowId(0),
            sectors,
        };
        for f in 0..flows {
            b.sched.add_flow(0, FlowId(f), &FlowConfig::default());
        }
        for _ in 0..BACKLOG {
            for f in 0..flows {
                b.add(FlowId(f));
            }
        }
        // Serve one so that the loop starts in its steady state: one flow
        // (`refill`) is a request short, and gets it back first thing.
        b.serve();
        assert_eq!(b.sched.queued(), (flows * BACKLOG - 1) as usize);
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
        self.sched.add(self.now, r);
    }

    /// Dispatch one request to the idle device and complete it.
    fn serve(&mut self) -> Request {
        let r = loop {
            match self.sched.dispatch(self.now, &self.dev) {
                Decision::Dispatch(r) => break r,
                Decision::IdleUntil(t) => self.now = t.max(self.now + 1),
                Decision::Nothing => panic!(
                    "{}: holds {} requests, device idle, dispatches nothing",
                    self.sched.name(),
                    self.sched.queued()
                ),
            }
        };
        self.dev.head = r.end();
        self.dev.in_flight = 1;
        let dispatched = self.now;
        self.now += SERVICE;
        let svc = Service {
            dispatched,
            completed: self.now,
            disk_time: SERVICE,
        };
        self.dev.in_flight = 0;
        self.sched.complete(self.now, &r, &svc);
        self.refill = r.flow;
        r
    }

    /// One iteration: add, dispatch, complete.
    pub fn step(&mut self) -> Request {
        self.add(self.refill);
        self.serve()
    }
}
