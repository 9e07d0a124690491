//! The driver: the one piece of code that drives a policy, for every host.
//!
//! A host (the simulator, the test kit, a real I/O engine) owns a clock and
//! a device; the driver owns everything between them and the policy: the
//! requests in flight, the device's queue depth, the head position (where
//! the last completed request ended: all a host can know of a drive that
//! orders its own queue), the attribution of device time to requests, and
//! the policy's wake-ups. It
//! never reads a clock and does no I/O (sans-I/O, in the manner of
//! quinn-proto's `Connection` or smoltcp's `Interface`):
//!
//! ```text
//!   host                              driver                     policy
//!   ----                              ------                     ------
//!   request arrives      -- add(now, r) ----------------------->  add
//!   device has room      -- poll_dispatch(now, costs) -> Some(r)  dispatch
//!   device finished r    -- complete(now, id) -> Completion ---->  complete
//!   clock reaches t      -- handle_timeout(now) --------------->  handle_timeout
//!   before sleeping      <- poll_timeout() = t ------------------  poll_timeout
//! ```
//!
//! The driver's wake-up is the policy's (the one time channel: idle-wait
//! ends and budget or slice timers alike), plus the end of the last idle
//! wait the policy announced: the device is offered to the policy then even
//! if a request arrived earlier and ended the wait.
//!
//! With [`Driver::with_merging`] the driver is also the block layer: an
//! arrival contiguous with a queued request of the same flow, direction and
//! sync class joins it (see `merge`); the policy sees the merged request,
//! the host gets every original request back in the [`Completion`].
//!
//! After every input (an arrival, a completion, a wake-up) the host calls
//! `poll_dispatch` until it returns `None`, handing each request to its
//! device, then sleeps until its device's next completion or
//! `poll_timeout()`, whichever is first.

use crate::error::Error;
use crate::scheduler::{
    ClassConfig, CostModel, Decision, DeviceState, FlowConfig, Scheduler, Service,
};
use crate::time::{earliest, Duration, Instant};
use crate::types::{FlowId, Request, RequestId};

mod merge;

pub use self::merge::DEFAULT_MAX_REQUEST_SECTORS;
use self::merge::{Arrival, Merger};

/// A request in the device.
#[derive(Clone, Debug)]
struct InFlight {
    request: Request,
    dispatched: Instant,
    /// Device time attributed so far.
    disk_time: Duration,
    /// The original requests merged into it (empty: it is one).
    parts: Vec<Request>,
}

/// A finished request, as the driver hands it back to its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The request that finished (as the policy saw it: merged, if
    /// arrivals joined it).
    pub request: Request,
    /// Dispatch and completion times and the attributed device time (what
    /// the policy was told).
    pub service: Service,
    /// The original requests merged into `request`, in sector order; empty
    /// when it is one request. [`Completion::originals`] reads both cases.
    pub parts: Vec<Request>,
}

impl Completion {
    /// The requests the host added that this completion finishes: the
    /// request itself, or every original merged into it.
    pub fn originals(&self) -> &[Request] {
        if self.parts.is_empty() {
            std::slice::from_ref(&self.request)
        } else {
            &self.parts
        }
    }

    /// Each original with its own service: the same dispatch and completion
    /// times, and the device time shared by size.
    pub fn each(&self) -> impl Iterator<Item = (&Request, Service)> + '_ {
        let originals = self.originals();
        merge::share_by_size(self.service.disk_time.as_nanos(), originals)
            .zip(originals)
            .map(|(ns, r)| {
                let service = Service {
                    disk_time: Duration::from_nanos(ns),
                    ..self.service
                };
                (r, service)
            })
    }
}

/// What the policy answered the last time the device had room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastAnswer {
    /// It dispatched until the device was full (or has not been asked).
    Full,
    /// It holds the device idle on purpose until its wake-up.
    Idle,
    /// It had nothing to send.
    Nothing,
}

/// Drives one policy `P` for a device of a fixed queue depth.
pub struct Driver<P> {
    policy: P,
    depth: usize,
    in_flight: Vec<InFlight>,
    /// The sector past the last completed request.
    head: u64,
    /// When the set of requests in flight last changed (device time since
    /// then is shared among them).
    last_change: Instant,
    last_answer: LastAnswer,
    /// The end of the last idle wait the policy announced: the driver offers
    /// the device again then, even if an arrival cut the wait short (a
    /// policy that checks its slices lazily, as CFQ does, may act on it).
    idle_end: Option<Instant>,
    /// The block layer's merging, when on.
    merger: Option<Merger>,
}

impl<P: Scheduler> Driver<P> {
    /// A driver for `policy` on a device that holds up to `queue_depth`
    /// requests at once (at least 1).
    pub fn new(policy: P, queue_depth: usize) -> Self {
        let depth = queue_depth.max(1);
        Driver {
            policy,
            depth,
            in_flight: Vec::with_capacity(depth),
            head: 0,
            last_change: Instant::ZERO,
            last_answer: LastAnswer::Full,
            idle_end: None,
            merger: None,
        }
    }

    /// Merge arrivals into contiguous queued requests of the same flow,
    /// direction and sync class, up to `max_sectors` per request (Linux's
    /// `max_sectors_kb`; [`DEFAULT_MAX_REQUEST_SECTORS`] is the papers'
    /// kernels' 512 KiB). Set before the first request.
    pub fn with_merging(mut self, max_sectors: u32) -> Self {
        self.merger = Some(Merger::new(max_sectors));
        self
    }

    /// Arrivals merged into queued requests so far (0 without merging).
    pub fn merges(&self) -> u64 {
        self.merger.as_ref().map_or(0, Merger::merges)
    }

    /// The largest request merging builds, in sectors (`None`: merging off).
    pub fn max_merge_sectors(&self) -> Option<u32> {
        self.merger.as_ref().map(Merger::max_sectors)
    }

    /// The policy (read-only: its statistics, its state in tests).
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The policy, to change its settings between calls.
    pub fn policy_mut(&mut self) -> &mut P {
        &mut self.policy
    }

    /// The queue depth the driver keeps.
    pub fn queue_depth(&self) -> usize {
        self.depth
    }

    /// Requests in the device now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The requests in the device, with when each was dispatched.
    pub fn in_flight_requests(&self) -> impl Iterator<Item = (&Request, Instant)> {
        self.in_flight.iter().map(|x| (&x.request, x.dispatched))
    }

    /// The sector past the last completed request (0 before the first
    /// completion): where the head was last known to be. A request sent to
    /// a drive with a command queue may be served in any order, so the end
    /// of the last dispatch says nothing of where the head will be.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// Requests the policy holds (added, not dispatched).
    pub fn queued(&self) -> usize {
        self.policy.queued()
    }

    /// What the policy said the last time it was asked for a request.
    pub fn last_answer(&self) -> LastAnswer {
        self.last_answer
    }

    /// A class of flows appears (VIOS builds its inner scheduler).
    pub fn add_class(
        &mut self,
        now: Instant,
        class: u32,
        config: &ClassConfig,
    ) -> Result<(), Error> {
        self.policy.add_class(now, class, config)
    }

    /// A flow appears.
    pub fn add_flow(&mut self, now: Instant, flow: FlowId, config: &FlowConfig) {
        self.policy.add_flow(now, flow, config);
    }

    /// A flow's weight changes.
    pub fn set_weight(&mut self, now: Instant, flow: FlowId, weight: u32) {
        self.policy.set_weight(now, flow, weight);
    }

    /// A flow is gone (its requests in flight still complete normally).
    pub fn remove_flow(&mut self, now: Instant, flow: FlowId) {
        if let Some(m) = &mut self.merger {
            m.flow_removed(flow);
        }
        self.policy.remove_flow(now, flow);
    }

    /// A request arrives. Call `poll_dispatch` afterwards. With merging on,
    /// it may join a queued request instead of reaching the policy as its
    /// own.
    pub fn add(&mut self, now: Instant, request: Request) {
        match self.merger.as_mut().map(|m| m.arrive(request)) {
            None | Some(Arrival::New) => self.policy.add(now, request),
            Some(Arrival::Merged { old, merged }) => self.policy.merge(now, &old, &merged),
        }
    }

    /// The original requests carried by in-flight request `id` (empty when
    /// it is one request): a real engine reads or writes each one's buffer
    /// in one vectored operation.
    pub fn parts_of(&self, id: RequestId) -> &[Request] {
        // Hosts ask right after dispatching it: the newest entry.
        self.in_flight
            .iter()
            .rfind(|x| x.request.id == id)
            .map_or(&[], |x| x.parts.as_slice())
    }

    /// The device has room: the next request to send it, if the policy
    /// sends one now. Fires the policy's wake-up first if it is due. Call
    /// until `None`, submitting each request to the device.
    #[must_use = "a dispatched request is in flight: it must be sent to the device"]
    pub fn poll_dispatch(&mut self, now: Instant, costs: &dyn CostModel) -> Option<Request> {
        if self.in_flight.len() >= self.depth {
            self.last_answer = LastAnswer::Full;
            return None;
        }
        self.fire_due(now);
        let view = DeviceState {
            costs,
            in_flight: self.in_flight.len(),
            depth: self.depth,
            head: self.head,
        };
        match self.policy.dispatch(now, &view) {
            Decision::Dispatch(request) => {
                self.attribute(now);
                let parts = match &mut self.merger {
                    Some(m) => m.dispatched(&request),
                    None => Vec::new(),
                };
                self.in_flight.push(InFlight {
                    request,
                    dispatched: now,
                    disk_time: Duration::ZERO,
                    parts,
                });
                self.last_answer = LastAnswer::Full;
                Some(request)
            }
            Decision::Idle => {
                debug_assert!(
                    self.policy.poll_timeout().is_some_and(|t| t > now),
                    "{} idles without a wake-up after now",
                    self.policy.name()
                );
                self.last_answer = LastAnswer::Idle;
                self.idle_end = self.policy.poll_timeout();
                None
            }
            Decision::Nothing => {
                self.last_answer = LastAnswer::Nothing;
                None
            }
        }
    }

    /// The device finished request `id`: tell the policy and hand back what
    /// was served. Call `poll_dispatch` afterwards.
    pub fn complete(&mut self, now: Instant, id: RequestId) -> Result<Completion, Error> {
        self.attribute(now);
        // Not `ok_or`: it would build (and drop) the error on every call.
        let Some(i) = self.in_flight.iter().position(|x| x.request.id == id) else {
            return Err(Error::NotInFlight(id));
        };
        let x = self.in_flight.swap_remove(i);
        self.head = x.request.end();
        let service = Service {
            dispatched: x.dispatched,
            completed: now,
            disk_time: x.disk_time,
        };
        self.policy.complete(now, &x.request, &service);
        Ok(Completion {
            request: x.request,
            service,
            parts: x.parts,
        })
    }

    /// When the driver next needs `handle_timeout`, even if nothing else
    /// happens. `None`: only arrivals and completions matter.
    #[must_use = "the host must wake the driver at this instant, or idle waits never end"]
    pub fn poll_timeout(&self) -> Option<Instant> {
        earliest([self.policy.poll_timeout(), self.idle_end])
    }

    /// The host's clock reached the instant `poll_timeout` gave (calling it
    /// early or twice does nothing). Call `poll_dispatch` afterwards.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.idle_end.is_some_and(|t| t <= now) {
            self.idle_end = None;
        }
        self.fire_due(now);
    }

    fn fire_due(&mut self, now: Instant) {
        if self.policy.poll_timeout().is_some_and(|t| t <= now) {
            self.policy.handle_timeout(now);
        }
    }

    /// Share the device time since the last change evenly among the
    /// requests in flight (the first `rem` get one nanosecond more). One
    /// request in flight, the common case, costs no division.
    fn attribute(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last_change);
        self.last_change = now;
        match self.in_flight.as_mut_slice() {
            [] => {}
            [only] => only.disk_time += elapsed,
            all => {
                let k = all.len() as u64;
                let share = elapsed.as_nanos() / k;
                let rem = elapsed.as_nanos() - share * k;
                for (i, x) in all.iter_mut().enumerate() {
                    x.disk_time += Duration::from_nanos(share + u64::from((i as u64) < rem));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
