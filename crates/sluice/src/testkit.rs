//! Tools for testing policies: a trivial device and a driver that checks the
//! scheduler invariants. Public so that embedders can check their own
//! policies the same way.

use std::collections::{BTreeSet, HashSet};

use crate::scheduler::{Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::types::{Direction, FlowId, Nanos, Request, RequestId};

/// A device whose seek time grows with the sector distance (1 µs plus 1 ns
/// per sector) and which has no rotation.
#[derive(Clone, Debug)]
pub struct FlatDevice {
    pub head: u64,
    pub in_flight: usize,
    pub depth: usize,
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
    fn capacity(&self) -> u64 {
        self.capacity
    }
    fn seek_time(&self, from: u64, to: u64) -> Nanos {
        if from == to {
            0
        } else {
            1000 + from.abs_diff(to)
        }
    }
    fn positioning_time(&self, _now: Nanos, from: u64, to: u64) -> Nanos {
        self.seek_time(from, to)
    }
    fn full_stroke_seek(&self) -> Nanos {
        self.seek_time(0, self.capacity)
    }
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
        arrival: 0,
    }
}

/// One step of a scripted run.
#[derive(Clone, Debug)]
pub enum Op {
    /// A request arrives from `flow`.
    Add {
        flow: u32,
        sector: u64,
        sectors: u32,
        write: bool,
    },
    /// The device finishes the in-flight request at this index (modulo the
    /// number in flight); nothing happens if none is in flight.
    Complete(usize),
    /// Virtual time passes.
    Advance(Nanos),
}

/// Drives a policy through a script like a real driver would and checks
/// the invariants of [`Scheduler`]. Panics with a message on a violation.
pub struct Harness<'a> {
    sched: &'a mut dyn Scheduler,
    dev: FlatDevice,
    now: Nanos,
    next_id: u64,
    flows: BTreeSet<u32>,
    added: HashSet<u64>,
    dispatched: HashSet<u64>,
    in_flight: Vec<(Request, Nanos)>,
    idle_until: Option<Nanos>,
    /// Requests dispatched, in order.
    pub order: Vec<Request>,
}

impl<'a> Harness<'a> {
    pub fn new(sched: &'a mut dyn Scheduler, depth: usize) -> Self {
        let mut dev = FlatDevice::at(0);
        dev.depth = depth.max(1);
        Harness {
            sched,
            dev,
            now: 0,
            next_id: 0,
            flows: BTreeSet::new(),
            added: HashSet::new(),
            dispatched: HashSet::new(),
            in_flight: Vec::new(),
            idle_until: None,
            order: Vec::new(),
        }
    }

    /// Register a flow with a weight (done implicitly with weight 100 on a
    /// flow's first request otherwise).
    pub fn flow(&mut self, flow: u32, weight: u32) {
        if self.flows.insert(flow) {
            let cfg = FlowConfig {
                weight,
                class: None,
            };
            self.sched.add_flow(self.now, FlowId(flow), &cfg);
        }
    }

    /// Run one step, then let the policy fill the device.
    pub fn step(&mut self, op: &Op) {
        match *op {
            Op::Add {
                flow,
                sector,
                sectors,
                write,
            } => {
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
                self.next_id += 1;
                self.added.insert(r.id.0);
                self.sched.add(self.now, r);
            }
            Op::Complete(i) => {
                if !self.in_flight.is_empty() {
                    let i = i % self.in_flight.len();
                    self.complete_at(i);
                }
            }
            Op::Advance(dt) => self.advance(dt),
        }
        self.pump();
    }

    fn complete_at(&mut self, i: usize) {
        let (r, dispatched) = self.in_flight.remove(i);
        self.dev.in_flight = self.in_flight.len();
        let svc = Service {
            dispatched,
            completed: self.now,
            disk_time: self.now - dispatched,
        };
        self.sched.complete(self.now, &r, &svc);
    }

    /// Move time forward, stopping at every timer and idle deadline on the
    /// way, so that "idle until t" is honoured exactly at t.
    fn advance(&mut self, dt: Nanos) {
        let end = self.now + dt;
        loop {
            let timer = self.sched.next_timer().filter(|&t| t <= end);
            let idle = self.idle_until.filter(|&t| t <= end);
            let next = match (timer, idle) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => break,
            };
            self.now = self.now.max(next);
            if timer.is_some_and(|t| t <= self.now) {
                self.sched.on_timer(self.now);
            }
            self.pump();
            // A timer the policy keeps at the same instant would loop forever.
            assert!(
                self.sched.next_timer().is_none_or(|t| t > self.now)
                    && self.idle_until.is_none_or(|t| t > self.now),
                "{}: timer or idle deadline not moved past now={}",
                self.sched.name(),
                self.now
            );
        }
        self.now = end;
    }

    fn pump(&mut self) {
        self.idle_until = None;
        while self.in_flight.len() < self.dev.depth {
            match self.sched.dispatch(self.now, &self.dev) {
                Decision::Dispatch(r) => {
                    let name = self.sched.name().to_string();
                    assert!(
                        self.added.contains(&r.id.0),
                        "{name}: dispatched {:?}, never added",
                        r.id
                    );
                    assert!(
                        self.dispatched.insert(r.id.0),
                        "{name}: dispatched {:?} twice",
                        r.id
                    );
                    self.dev.head = r.end();
                    self.in_flight.push((r, self.now));
                    self.dev.in_flight = self.in_flight.len();
                    self.order.push(r);
                }
                Decision::IdleUntil(t) => {
                    assert!(
                        self.sched.may_idle(),
                        "{}: idles but says it never does",
                        self.sched.name()
                    );
                    assert!(
                        t > self.now,
                        "{}: idle until {t}, not after now={}",
                        self.sched.name(),
                        self.now
                    );
                    self.idle_until = Some(t);
                    break;
                }
                Decision::Nothing => {
                    // Work conservation: with nothing in flight, a policy that
                    // holds requests must dispatch or say why it idles.
                    assert!(
                        self.sched.queued() == 0 || !self.in_flight.is_empty(),
                        "{}: holds {} requests, device empty, dispatches nothing",
                        self.sched.name(),
                        self.sched.queued()
                    );
                    break;
                }
            }
        }
    }

    /// Complete everything and let time pass until the policy has given up
    /// every request; then check exactly-once dispatch.
    pub fn drain(&mut self) {
        for _ in 0..1_000_000 {
            if !self.in_flight.is_empty() {
                self.complete_at(0);
                self.pump();
            } else if self.sched.queued() > 0 {
                self.advance(1_000_000);
                self.pump();
            } else {
                break;
            }
        }
        assert_eq!(
            self.sched.queued(),
            0,
            "{}: requests stuck in the policy",
            self.sched.name()
        );
        assert_eq!(
            self.dispatched.len(),
            self.added.len(),
            "{}: dispatched count differs",
            self.sched.name()
        );
    }

    /// The current virtual time.
    pub fn now(&self) -> Nanos {
        self.now
    }
}
