//! The scheduler interface: the contract between a policy and its driver.

use crate::error::Error;
use crate::qos::Qos;
use crate::stats::PolicyStats;
use crate::time::{Duration, Instant};
use crate::types::{FlowId, Request};

/// What the policy wants done with a free device slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send this request to the device now.
    Dispatch(Request),
    /// Keep the device idle on purpose, even though requests may be queued
    /// (anticipation: BFQ's and CFQ's idling for a sync flow that is
    /// expected to issue its next request soon). The policy has set when the
    /// wait ends through [`Scheduler::poll_timeout`]; the driver calls
    /// `dispatch` again then at the latest, earlier if a request arrives or
    /// completes.
    Idle,
    /// Nothing to send (empty, or waiting for in-flight requests to finish,
    /// as YFQ's batches and VIOS's one-request-at-a-time rule do).
    Nothing,
}

/// A policy that never idles answers with the request it chose, if any.
impl From<Option<Request>> for Decision {
    fn from(request: Option<Request>) -> Self {
        request.map_or(Decision::Nothing, Decision::Dispatch)
    }
}

/// How the device served a request: passed back on completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Service {
    /// When the driver handed the request to the device.
    pub dispatched: Instant,
    /// When the device reported it done.
    pub completed: Instant,
    /// Device time attributed to this request: the time it was in flight,
    /// where every stretch with k requests in flight counts 1/k to each.
    /// VIOS charges this to the request's class; BFQ uses it for the
    /// budget timeout and its peak-rate estimate.
    pub disk_time: Duration,
}

impl Service {
    /// Dispatch-to-completion time.
    pub fn response(&self) -> Duration {
        self.completed.saturating_duration_since(self.dispatched)
    }
}

/// Per-flow settings a driver gives a policy when the flow appears.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowConfig {
    /// Its weight, reservation and limits (limits hold under every policy
    /// [`crate::policy::build`] returns).
    pub qos: Qos,
    /// Class the flow belongs to (VIOS's OS instance); `None` = the
    /// default class.
    pub class: Option<u32>,
    /// The group the flow belongs to, an index into the build context's
    /// groups ([`crate::policy::BuildContext::groups`]); `None` = directly
    /// under the root.
    pub group: Option<u32>,
}

impl FlowConfig {
    /// A flow with `weight`, nothing else set.
    pub fn weighted(weight: u32) -> Self {
        FlowConfig {
            qos: Qos::weighted(weight),
            ..FlowConfig::default()
        }
    }

    /// Whether the flow has a rate cap of either kind.
    pub fn is_limited(&self) -> bool {
        self.qos.is_limited()
    }
}

/// A class of flows (VIOS's operating-system instance, a cgroup): its
/// share and the policy that orders its own requests.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassConfig {
    /// A label for the class (VIOS shows it in its class stats).
    pub name: String,
    /// Disk time the class gets per round (VIOS's Q_i); zero = the
    /// policy's default quantum.
    pub quantum: Duration,
    /// Contract name of the policy that orders the class's requests
    /// (`noop` = FCFS).
    pub inner: String,
}

/// What a host knows of its device's costs: the oracle position-aware
/// policies consult. The simulator answers from its drive model, a real
/// engine from a model of its target (or zeros, for a flat device).
pub trait CostModel {
    /// Device size in sectors.
    fn capacity(&self) -> u64;
    /// Estimated seek time between two sectors (no rotation): monotone in the
    /// cylinder distance.
    fn seek_time(&self, from: u64, to: u64) -> Duration;
    /// Estimated positioning time (seek plus rotational wait) to start
    /// accessing `to` if the head left `from` at time `now`. Devices without
    /// rotation return their fixed access latency.
    fn positioning_time(&self, now: Instant, from: u64, to: u64) -> Duration;
    /// Full-stroke seek time (Nam–Park's M_dmo is a percentage of it).
    fn full_stroke_seek(&self) -> Duration;
}

/// A read-only view of the device a policy dispatches to: the driver's
/// state (requests in flight, depth, head) over the host's [`CostModel`].
///
/// Position-aware policies use the cost oracle: C-LOOK and SSTF need the head
/// position, SATF and YFQ's tie-breaking need positioning-time estimates,
/// Nam–Park's DOR compares estimated costs with a margin of the full-stroke
/// seek time.
pub trait DeviceView: CostModel {
    /// Requests the device holds now (dispatched, not completed).
    fn in_flight(&self) -> usize;
    /// How many requests the device accepts at once (1 = no NCQ/TCQ).
    fn queue_depth(&self) -> usize;
    /// The sector just past the last completed request: where the head was
    /// last known to be (a drive with a command queue serves what it holds
    /// in its own order, so the host cannot know more).
    fn head(&self) -> u64;
}

/// A device view made of parts: a cost model and the queue state laid over
/// it. The driver shows its policy one; VIOS shows each class's inner
/// scheduler one with only that class's requests in flight.
#[derive(Clone, Copy)]
pub struct DeviceState<'a> {
    /// The host's cost model of the device.
    pub costs: &'a dyn CostModel,
    /// Requests in the device now ([`DeviceView::in_flight`]).
    pub in_flight: usize,
    /// How many requests the device accepts at once ([`DeviceView::queue_depth`]).
    pub depth: usize,
    /// Where the head was last known to be ([`DeviceView::head`]).
    pub head: u64,
}

impl CostModel for DeviceState<'_> {
    fn capacity(&self) -> u64 {
        self.costs.capacity()
    }
    fn seek_time(&self, from: u64, to: u64) -> Duration {
        self.costs.seek_time(from, to)
    }
    fn positioning_time(&self, now: Instant, from: u64, to: u64) -> Duration {
        self.costs.positioning_time(now, from, to)
    }
    fn full_stroke_seek(&self) -> Duration {
        self.costs.full_stroke_seek()
    }
}

impl DeviceView for DeviceState<'_> {
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

/// A disk scheduling policy: a pure state machine driven by its driver.
///
/// Call protocol (the [`crate::driver::Driver`] keeps it; hosts never call a
/// policy directly): `add_flow` before a flow's first request; `add` for
/// each arriving request, or `merge` when the driver's block layer joined
/// it to a queued one; `dispatch` whenever the device has a free slot
/// (after every `add`, every `complete` and every wake-up); `complete` when
/// the device finishes a request.
///
/// Time reaches a policy through one channel: [`Scheduler::poll_timeout`]
/// says when it next needs to be called even if nothing happens (the end of
/// an idle wait, a budget timeout, a slice end: all alike), and
/// [`Scheduler::handle_timeout`] is that call. The driver makes it once the
/// instant has come and before the next `dispatch`, so `dispatch` never sees
/// an overdue timer.
///
/// Invariants every policy keeps (property-tested for each, with merging on
/// and off): every added request is dispatched exactly once (merged ones as
/// the request they grew); nothing is dispatched that was not
/// added; a policy that is not idling ([`Decision::Idle`], with a wake-up
/// set) and holds requests dispatches one when asked, unless it is waiting
/// for completions (`Nothing` with requests in flight, as batch policies do).
pub trait Scheduler {
    /// The policy's contract name (`noop`, `clook`, `bfq+`, ...).
    fn name(&self) -> &str;

    /// A flow appears. Needed by every weighted policy (BFQ, YFQ, DOR) and by
    /// class-based ones (VIOS). Default: nothing to set up.
    fn add_flow(&mut self, _now: Instant, _flow: FlowId, _config: &FlowConfig) {}

    /// A class appears (before any flow names it). Class-based policies
    /// (VIOS) build the class's inner scheduler here, and fail if it names no
    /// policy; others ignore it and treat flows of every class alike.
    fn add_class(
        &mut self,
        _now: Instant,
        _class: u32,
        _config: &ClassConfig,
    ) -> Result<(), Error> {
        Ok(())
    }

    /// Change a flow's weight (proportional-share policies).
    fn set_weight(&mut self, _now: Instant, _flow: FlowId, _weight: u32) {}

    /// A flow is gone; it has no queued requests left.
    fn remove_flow(&mut self, _now: Instant, _flow: FlowId) {}

    /// A request arrives.
    fn add(&mut self, now: Instant, request: Request);

    /// The block layer merged an arrival into queued request `old`: the
    /// policy now holds `merged` in its place (same id, flow, direction and
    /// arrival; longer, and starting earlier after a front merge). Only
    /// requests the policy holds and has not dispatched are merged. Like
    /// the kernel's elevators, a policy updates where it keeps the request
    /// (its position order, its size) and charges the larger size when it
    /// dispatches; the arrival itself is no new request (no think-time or
    /// seek sample, no new tag).
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request);

    /// The device has a free slot: say what to do with it.
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision;

    /// A dispatched request completed. `service` carries the dispatch and
    /// completion times and the attributed device time: VIOS charges it,
    /// BFQ checks its budget timeout and samples the peak rate, YFQ counts
    /// its batch down. Policies that keep no per-request state ignore it.
    fn complete(&mut self, _now: Instant, _request: &Request, _service: &Service) {}

    /// The one time channel, outward: when the policy next needs a call even
    /// if nothing happens (the end of an idle wait, BFQ's budget timeout,
    /// CFQ's idle timer). `None` = no wake-up needed. After
    /// `handle_timeout(now)` it must be later than `now` or `None`.
    #[must_use = "the caller must call handle_timeout at this instant"]
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    /// The one time channel, inward: the instant `poll_timeout` returned has
    /// come (`now` is at or after it).
    fn handle_timeout(&mut self, _now: Instant) {}

    /// Requests held by the policy (added, not yet dispatched).
    fn queued(&self) -> usize;

    /// Counters the policy wants reported (e.g. DOR's sequence lengths);
    /// hosts put their [`PolicyStats::entries`] in their results.
    fn stats(&self) -> PolicyStats {
        PolicyStats::None
    }

    /// What the policy does beyond the call protocol: a value, so wrappers
    /// pass it on whole instead of forwarding one probe per property.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
}

/// What a policy does beyond the call protocol (all `false` by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// The policy may keep the device idle while it holds requests (BFQ,
    /// CFQ idle; FIFO, C-LOOK, SSTF never do). Drivers and tests use it to
    /// check work conservation.
    pub may_idle: bool,
    /// The policy enforces [`Qos::limit_iops`](crate::Qos::limit_iops) itself (`mclock`'s
    /// limit tags): [`crate::policy::Hierarchy`] then leaves IOPS limits to
    /// it and only throttles MB/s limits.
    pub enforces_iops_limits: bool,
}

impl Capabilities {
    /// A policy that may idle when `may_idle` and has no other capability:
    /// what every idling policy but `mclock` and the hierarchy reports.
    pub const fn idling_if(may_idle: bool) -> Self {
        Capabilities {
            may_idle,
            enforces_iops_limits: false,
        }
    }
}

/// A boxed or borrowed policy is a policy: `Driver<Box<dyn Scheduler>>`
/// drives one chosen by name at run time, `Driver<&mut dyn Scheduler>` one
/// the caller keeps. A method left out here would silently fall back to the
/// trait's default: `tests::every_method_is_forwarded` fails when one is.
macro_rules! forward_scheduler {
    ($($ty:ty),*) => {$(
impl<S: Scheduler + ?Sized> Scheduler for $ty {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn add_flow(&mut self, now: Instant, flow: FlowId, config: &FlowConfig) {
        (**self).add_flow(now, flow, config)
    }
    fn add_class(
        &mut self,
        now: Instant,
        class: u32,
        config: &ClassConfig,
    ) -> Result<(), Error> {
        (**self).add_class(now, class, config)
    }
    fn set_weight(&mut self, now: Instant, flow: FlowId, weight: u32) {
        (**self).set_weight(now, flow, weight)
    }
    fn remove_flow(&mut self, now: Instant, flow: FlowId) {
        (**self).remove_flow(now, flow)
    }
    fn add(&mut self, now: Instant, request: Request) {
        (**self).add(now, request)
    }
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        (**self).merge(now, old, merged)
    }
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        (**self).dispatch(now, device)
    }
    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        (**self).complete(now, request, service)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        (**self).poll_timeout()
    }
    fn handle_timeout(&mut self, now: Instant) {
        (**self).handle_timeout(now)
    }
    fn queued(&self) -> usize {
        (**self).queued()
    }
    fn stats(&self) -> PolicyStats {
        (**self).stats()
    }
    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }
}
    )*};
}

forward_scheduler!(Box<S>, &mut S);

#[cfg(test)]
mod tests {
    /// The `fn` names in the first block of `source` that starts with
    /// `opening` (up to the first line that is a lone `}` at its depth).
    fn methods(source: &str, opening: &str) -> Vec<String> {
        let start = source.find(opening).expect("the block is in the source");
        let block = &source[start..];
        let end = block.find("\n}").expect("the block ends");
        let mut names: Vec<String> = block[..end]
            .split("fn ")
            .skip(1)
            .map(|rest| {
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            })
            .collect();
        names.sort();
        names
    }

    /// Every trait method has a forwarding body for `Box<S>` and `&mut S`:
    /// one left out would answer with the trait's default for a boxed policy.
    #[test]
    fn every_method_is_forwarded() {
        let source = include_str!("scheduler.rs");
        let declared = methods(source, "pub trait Scheduler {");
        let forwarded = methods(source, "macro_rules! forward_scheduler {");
        assert!(declared.len() >= 14, "{declared:?}");
        assert_eq!(declared, forwarded);
        let limited = include_str!("policy/hierarchy/limited.rs");
        let passed_on = methods(
            limited,
            "impl<S: Scheduler + 'static> Scheduler for Limited<S> {",
        );
        assert_eq!(declared, passed_on, "Limited");
    }
}
