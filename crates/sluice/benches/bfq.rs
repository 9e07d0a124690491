//! Cost of one request's trip through `bfq+`: `add` + `dispatch` +
//! `complete`, with 16, 256 and 4096 active flows (the pattern of
//! `per_request.rs`, which also covers `bfq` and `bfq+` at defaults).
//!
//! Every flow keeps a backlog of 2 requests of 64 sectors at pseudo-random
//! sectors (so queues are detected as random and never idled for). One
//! iteration adds a request to the flow served last, dispatches one to a
//! depth-1 `FlatDevice` and completes it. Two groups:
//!
//! * `bfq+_steady`: defaults. The flow served last is refilled at once, so a queue
//!   keeps its slot until its budget runs out: most requests cost the
//!   in-slot path, one in about a hundred the expiration and selection.
//! * `bfq+_slot_per_request`: B_max pinned to 64 sectors, so every
//!   dispatch ends a service slot (expiration, budget feedback, B-WF2Q+
//!   requeue and selection among all flows once per request): the worst
//!   case, and the one that shows the O(log n) scaling.
//!
//! Run: `cargo bench -p sluice --bench bfq -- --warm-up-time 1 --measurement-time 2`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use sluice::policy::{build, ParamValue, Params};
use sluice::testkit::FlatDevice;
use sluice::{
    Decision, Direction, FlowConfig, FlowId, Nanos, Request, RequestId, Scheduler, Service,
};

const FLOW_COUNTS: [u32; 3] = [16, 256, 4096];
const BACKLOG: u32 = 2;
const SECTOR_SPAN: u64 = 1 << 30;
const SERVICE: Nanos = 100_000;
const SECTORS: u32 = 64;

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

struct Bench {
    sched: Box<dyn Scheduler>,
    dev: FlatDevice,
    rng: XorShift,
    now: Nanos,
    next_id: u64,
    refill: FlowId,
}

impl Bench {
    fn new(params: &Params, flows: u32) -> Self {
        let sched = build("bfq+", params).expect("bfq+ builds");
        let mut b = Bench {
            sched,
            dev: FlatDevice::at(0),
            rng: XorShift(0x9E37_79B9_7F4A_7C15),
            now: 0,
            next_id: 0,
            refill: FlowId(0),
        };
        for f in 0..flows {
            b.sched.add_flow(0, FlowId(f), &FlowConfig::default());
        }
        for _ in 0..BACKLOG {
            for f in 0..flows {
                b.add(FlowId(f));
            }
        }
        b.serve();
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
            sectors: SECTORS,
            arrival: self.now,
        };
        self.next_id += 1;
        self.sched.add(self.now, r);
    }

    fn serve(&mut self) -> Request {
        let r = loop {
            match self.sched.dispatch(self.now, &self.dev) {
                Decision::Dispatch(r) => break r,
                Decision::IdleUntil(t) => self.now = t.max(self.now + 1),
                Decision::Nothing => panic!("bfq+ stalls with {} queued", self.sched.queued()),
            }
        };
        self.dev.head = r.end();
        let dispatched = self.now;
        self.now += SERVICE;
        let svc = Service {
            dispatched,
            completed: self.now,
            disk_time: SERVICE,
        };
        self.sched.complete(self.now, &r, &svc);
        self.refill = r.flow;
        r
    }

    fn step(&mut self) -> Request {
        self.add(self.refill);
        self.serve()
    }
}

fn bfq_plus(c: &mut Criterion) {
    let setups: [(&str, Params); 2] = [
        ("bfq+_steady", Params::default()),
        ("bfq+_slot_per_request", {
            let mut p = Params::default();
            p.insert("max_budget", ParamValue::Int(i64::from(SECTORS)));
            p
        }),
    ];
    for (group_name, params) in setups {
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(1));
        for flows in FLOW_COUNTS {
            let mut bench = Bench::new(&params, flows);
            group.bench_function(BenchmarkId::from_parameter(flows), |b| {
                b.iter(|| black_box(bench.step()))
            });
            assert_eq!(bench.sched.queued(), (flows * BACKLOG - 1) as usize);
        }
        group.finish();
    }
}

criterion_group!(benches, bfq_plus);
criterion_main!(benches);
