//! Groups of flows to any depth, and rate limits, around any policy.
//!
//! A [`Hierarchy`] is a scheduler of schedulers, as VIOS is with its
//! classes and BFQ with its cgroups, but with any policy at any level: the
//! root's policy orders the flows and groups directly under it, and each
//! group's own policy orders its children. A group shows itself to its
//! parent's policy as one flow, with the group's weight (and, for `mclock`,
//! its reservation and limit), so proportional share holds level by level:
//! two 1:1 flows inside a group of weight 300 beside a group of weight 100
//! get 3/8, 3/8 and 1/4.
//!
//! How a request climbs: it is added to its flow's group's policy. When
//! that policy dispatches it, it has not reached the device yet: it is
//! added to the parent's policy under the group's flow, and so on up to
//! the root, whose dispatch is the real one. Each group keeps at most
//! [`PREFETCH`] request waiting in its parent, so its policy chooses late
//! (when its previous request leaves the parent's queue) and each level
//! sees the sectors and sizes of what it orders. A completion goes to every
//! policy on the way back down.
//!
//! Rate limits are token buckets ([`Bucket`]) in front of a flow's policy
//! and between a group and its parent: a flow over its limit has its
//! requests held back until the bucket allows them, a group over its limit
//! offers its parent nothing. A policy that enforces IOPS limits itself
//! (`mclock`, [`Capabilities::enforces_iops_limits`]) is given them instead.
//!
//! A request the block layer grows by a merge after it passed a bucket
//! owes that bucket the bytes it gained.
//!
//! Left out: a request the block layer merges after a group's policy
//! dispatched it reaches that policy's completion with its merged size.

mod bucket;
mod limited;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, VecDeque};

pub use bucket::{Bucket, DEFAULT_BURST};
pub use limited::Limited;

use super::params::Params;
use super::BuildContext;
use crate::error::Error;
use crate::idhash::IdMap;
use crate::qos::Qos;
use crate::scheduler::{
    Capabilities, ClassConfig, CostModel, Decision, DeviceState, DeviceView, FlowConfig, Scheduler,
    Service,
};
use crate::stats::PolicyStats;
use crate::time::{earliest, Duration, Instant};
use crate::types::{FlowId, Request, RequestId};

/// The most groups a hierarchy takes.
pub const MAX_GROUPS: usize = 4096;
/// The deepest a group may sit (the root's children are at depth 1).
pub const MAX_DEPTH: usize = 32;
/// Requests a group keeps waiting in its parent's queue.
pub const PREFETCH: usize = 1;

/// A group of flows and groups: how its parent sees it, what limits it, and
/// which policy orders its children.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupConfig {
    /// A label (errors and reports name the group by it).
    pub name: String,
    /// The enclosing group, an index into the same list; `None` = the root.
    pub parent: Option<u32>,
    /// The group's weight among its parent's children, its reservation
    /// (read by a parent that runs `mclock`) and the limits of the whole
    /// group.
    pub qos: Qos,
    /// The policy among the group's children, by contract name, with its
    /// parameters; `None` = the root's policy with the root's parameters.
    pub scheduler: Option<(String, Params)>,
}

impl GroupConfig {
    /// A group under `parent` with `weight` and nothing else set.
    pub fn new(name: impl Into<String>, parent: Option<u32>, weight: u32) -> Self {
        GroupConfig {
            name: name.into(),
            parent,
            qos: Qos::weighted(weight),
            scheduler: None,
        }
    }
}

/// How group `g` (node `g + 1`) is known to its parent's policy: ids from
/// the top of the range down, below `u32::MAX` (the simulator's writeback
/// flow). Hosts number their flows from 0.
fn group_flow(g: usize) -> FlowId {
    FlowId(u32::MAX - 1 - g as u32)
}

/// The root (0) or a group (`g + 1`).
struct Node {
    policy: Box<dyn Scheduler>,
    /// The enclosing node (the root's own is 0, unused).
    parent: usize,
    depth: usize,
    /// How the parent's policy knows this node.
    flow: FlowId,
    /// This node's requests in its parent's queue.
    in_parent: usize,
    /// Requests this node's policy dispatched that have not completed.
    outstanding: usize,
    /// The group's limits, where its parent's policy does not enforce them.
    bucket: Option<Bucket>,
    /// The bucket was empty when the policy had something to offer: offer
    /// again then.
    stalled_until: Option<Instant>,
    /// Something changed that may let it offer its parent a request.
    dirty: bool,
}

/// A flow: the node whose policy holds its requests, its limits, and what
/// they hold back.
struct FlowSlot {
    node: usize,
    bucket: Option<Bucket>,
    held: VecDeque<Request>,
}

/// Where a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Held back by its flow's limit.
    Held,
    /// In this node's policy's queue.
    Node(usize),
    /// In the device.
    Device,
}

#[derive(Clone, Copy, Debug)]
struct Place {
    /// The node of the request's flow.
    leaf: usize,
    /// The request's own flow.
    flow: FlowId,
    at: At,
}

/// A policy tree with rate limits: see the module documentation.
pub struct Hierarchy {
    /// The root first, then group `g` at `g + 1`.
    nodes: Vec<Node>,
    /// Groups, deepest first: a child offers before its parent.
    pump_order: Vec<usize>,
    flows: IdMap<FlowId, FlowSlot>,
    places: IdMap<RequestId, Place>,
    /// Flows with requests held back.
    throttled: BTreeSet<FlowId>,
    held: usize,
    any_dirty: bool,
    limited: bool,
}

/// The device's cost model, passed on to a group's policy.
struct Costs<'a>(&'a dyn DeviceView);

impl CostModel for Costs<'_> {
    fn capacity(&self) -> u64 {
        self.0.capacity()
    }
    fn seek_time(&self, from: u64, to: u64) -> Duration {
        self.0.seek_time(from, to)
    }
    fn positioning_time(&self, now: Instant, from: u64, to: u64) -> Duration {
        self.0.positioning_time(now, from, to)
    }
    fn full_stroke_seek(&self) -> Duration {
        self.0.full_stroke_seek()
    }
}

fn group_error(name: &str, what: String) -> Error {
    Error::BadGroup {
        group: name.to_string(),
        what,
    }
}

impl Hierarchy {
    /// `root` alone: rate limits for any policy, no groups.
    pub fn around(root: Box<dyn Scheduler>) -> Self {
        Hierarchy {
            nodes: vec![Node {
                policy: root,
                parent: 0,
                depth: 0,
                flow: FlowId(0),
                in_parent: 0,
                outstanding: 0,
                bucket: None,
                stalled_until: None,
                dirty: false,
            }],
            pump_order: Vec::new(),
            flows: IdMap::default(),
            places: IdMap::default(),
            throttled: BTreeSet::new(),
            held: 0,
            any_dirty: false,
            limited: false,
        }
    }

    /// The root's policy `name` with `params`, and the context's groups
    /// under it, every policy charging by the context's `charge`. Fails on a
    /// group that names no group as parent, a cycle, more than
    /// [`MAX_GROUPS`] groups or [`MAX_DEPTH`] levels, a weight outside
    /// 1..=1000, or a policy that cannot be built.
    pub fn new(name: &str, params: &Params, context: &BuildContext) -> Result<Self, Error> {
        let groups = &context.groups[..];
        let build = |name: &str, params: &Params| super::build_bare(name, params, &context.charge);
        if groups.len() > MAX_GROUPS {
            return Err(group_error(
                &groups[MAX_GROUPS].name,
                format!("more than {MAX_GROUPS} groups"),
            ));
        }
        let mut h = Self::around(build(name, params)?);
        let depths = depths(groups)?;
        for (g, cfg) in groups.iter().enumerate() {
            if !(1..=1000).contains(&cfg.qos.weight) {
                return Err(group_error(
                    &cfg.name,
                    format!("weight must be 1..=1000 (got {})", cfg.qos.weight),
                ));
            }
            let policy = match &cfg.scheduler {
                Some((inner, inner_params)) => build(inner, inner_params)?,
                None => build(name, params)?,
            };
            h.nodes.push(Node {
                policy,
                parent: cfg.parent.map_or(0, |p| p as usize + 1),
                depth: depths[g],
                flow: group_flow(g),
                in_parent: 0,
                outstanding: 0,
                bucket: None,
                stalled_until: None,
                dirty: false,
            });
        }
        for (g, cfg) in groups.iter().enumerate() {
            let n = g + 1;
            let parent = h.nodes[n].parent;
            let parent_limits = h.nodes[parent].policy.capabilities().enforces_iops_limits;
            let seen = FlowConfig {
                qos: Qos {
                    reservation_iops: cfg.qos.reservation_iops,
                    limit_iops: cfg.qos.limit_iops.filter(|_| parent_limits),
                    ..Qos::weighted(cfg.qos.weight)
                },
                ..FlowConfig::default()
            };
            let flow = h.nodes[n].flow;
            h.nodes[parent].policy.add_flow(Instant::ZERO, flow, &seen);
            let iops = cfg.qos.limit_iops.filter(|_| !parent_limits);
            h.nodes[n].bucket = Bucket::new(iops, cfg.qos.limit_mb_s, cfg.qos.burst, Instant::ZERO);
            h.limited |= h.nodes[n].bucket.is_some();
        }
        let mut order: Vec<usize> = (1..h.nodes.len()).collect();
        order.sort_by_key(|&n| std::cmp::Reverse(h.nodes[n].depth));
        h.pump_order = order;
        Ok(h)
    }

    /// The groups (not counting the root).
    pub fn groups(&self) -> usize {
        self.nodes.len() - 1
    }

    fn mark(&mut self, n: usize) {
        if n != 0 {
            self.nodes[n].dirty = true;
            self.any_dirty = true;
        }
    }

    /// The node a group's flow id stands for, if it is one of ours.
    fn node_of_group_flow(&self, flow: FlowId) -> Option<usize> {
        let g = (u32::MAX - 1).checked_sub(flow.0)? as usize;
        (g + 1 < self.nodes.len()).then_some(g + 1)
    }

    /// The request as node `n`'s policy knows it: under its own flow at its
    /// flow's node, under the group it came from above that.
    fn version(&self, r: &Request, place: &Place, n: usize) -> Request {
        let mut child = place.leaf;
        let mut flow = place.flow;
        while child != n {
            flow = self.nodes[child].flow;
            child = self.nodes[child].parent;
        }
        Request { flow, ..*r }
    }

    /// Let every changed group offer its parent what its policy chooses,
    /// deepest first.
    fn pump(&mut self, now: Instant, device: &dyn DeviceView) {
        // A group that takes a child's request from its queue lets the
        // child (deeper, so already passed) offer again: another pass.
        while std::mem::take(&mut self.any_dirty) {
            for i in 0..self.pump_order.len() {
                let n = self.pump_order[i];
                if std::mem::take(&mut self.nodes[n].dirty) {
                    self.offer(now, n, device);
                }
            }
        }
    }

    /// Group `n`'s policy dispatches into its parent's queue while there
    /// is room and its limit allows.
    fn offer(&mut self, now: Instant, n: usize, device: &dyn DeviceView) {
        let depth = device.queue_depth() + PREFETCH;
        let costs = Costs(device);
        loop {
            let node = &mut self.nodes[n];
            if node.in_parent >= PREFETCH || node.outstanding >= depth {
                return;
            }
            if let Some(b) = &mut node.bucket {
                if !b.ready(now) {
                    node.stalled_until = Some(b.ready_at());
                    return;
                }
            }
            let view = DeviceState {
                costs: &costs,
                in_flight: node.outstanding,
                depth,
                head: device.head(),
            };
            let Decision::Dispatch(r) = node.policy.dispatch(now, &view) else {
                return;
            };
            node.outstanding += 1;
            node.in_parent += 1;
            if let Some(b) = &mut node.bucket {
                b.charge(now, r.bytes());
            }
            let up = Request {
                flow: node.flow,
                ..r
            };
            let parent = node.parent;
            if let Some(child) = self.node_of_group_flow(r.flow) {
                self.nodes[child].in_parent -= 1;
                self.mark(child);
            }
            if let Some(p) = self.places.get_mut(&r.id) {
                p.at = At::Node(parent);
            }
            self.nodes[parent].policy.add(now, up);
            self.mark(parent);
        }
    }

    /// A request at node `n` grew by `bytes`: the buckets it passed on
    /// the way (its flow's, its groups' below `n`) are owed them, or a
    /// byte limit would let through what merges add to admitted requests.
    fn charge_growth(&mut self, now: Instant, place: &Place, n: usize, bytes: u64) {
        if bytes == 0 {
            return;
        }
        if let Some(b) = self
            .flows
            .get_mut(&place.flow)
            .and_then(|s| s.bucket.as_mut())
        {
            b.charge_growth(now, bytes);
        }
        let mut child = place.leaf;
        while child != n && child != 0 {
            if let Some(b) = &mut self.nodes[child].bucket {
                b.charge_growth(now, bytes);
            }
            child = self.nodes[child].parent;
        }
    }

    /// Let held requests of flows whose buckets allow them through.
    fn release(&mut self, now: Instant) {
        let due: Vec<FlowId> = self.throttled.iter().copied().collect();
        for flow in due {
            let Some(slot) = self.flows.get_mut(&flow) else {
                continue;
            };
            let node = slot.node;
            let mut released = Vec::new();
            while let Some(r) = slot.held.front().copied() {
                if let Some(b) = &mut slot.bucket {
                    if !b.ready(now) {
                        break;
                    }
                    b.charge(now, r.bytes());
                }
                slot.held.pop_front();
                released.push(r);
            }
            if slot.held.is_empty() {
                self.throttled.remove(&flow);
            }
            self.held -= released.len();
            for r in released {
                if let Some(p) = self.places.get_mut(&r.id) {
                    p.at = At::Node(node);
                }
                self.nodes[node].policy.add(now, r);
                self.mark(node);
            }
        }
    }
}

/// Each group's depth (the root's children: 1), checking parents exist and
/// form no cycle.
fn depths(groups: &[GroupConfig]) -> Result<Vec<usize>, Error> {
    let mut out = vec![0; groups.len()];
    for (g, cfg) in groups.iter().enumerate() {
        let mut depth = 1;
        let mut at = cfg.parent;
        while let Some(p) = at {
            let Some(parent) = groups.get(p as usize) else {
                return Err(group_error(
                    &cfg.name,
                    format!("parent {p} is not a group (there are {})", groups.len()),
                ));
            };
            depth += 1;
            if depth > MAX_DEPTH || p as usize == g {
                return Err(group_error(
                    &cfg.name,
                    if p as usize == g {
                        "is its own ancestor (a cycle of parents)".to_string()
                    } else {
                        format!("sits more than {MAX_DEPTH} levels deep (or in a cycle)")
                    },
                ));
            }
            at = parent.parent;
        }
        out[g] = depth;
    }
    Ok(out)
}

impl Scheduler for Hierarchy {
    fn name(&self) -> &str {
        self.nodes[0].policy.name()
    }

    fn add_flow(&mut self, now: Instant, flow: FlowId, config: &FlowConfig) {
        let node = config
            .group
            .map(|g| g as usize + 1)
            .filter(|&n| n < self.nodes.len())
            .unwrap_or(0);
        let own = self.nodes[node].policy.capabilities().enforces_iops_limits;
        let iops = config.qos.limit_iops.filter(|_| !own);
        let bucket = Bucket::new(iops, config.qos.limit_mb_s, config.qos.burst, now);
        self.limited |= bucket.is_some();
        let slot = self.flows.entry(flow).or_insert(FlowSlot {
            node,
            bucket: None,
            held: VecDeque::new(),
        });
        slot.node = node;
        slot.bucket = bucket;
        self.nodes[node].policy.add_flow(now, flow, config);
    }

    fn add_class(&mut self, now: Instant, class: u32, config: &ClassConfig) -> Result<(), Error> {
        for node in &mut self.nodes {
            node.policy.add_class(now, class, config)?;
        }
        Ok(())
    }

    fn set_weight(&mut self, now: Instant, flow: FlowId, weight: u32) {
        let node = self.flows.get(&flow).map_or(0, |s| s.node);
        self.nodes[node].policy.set_weight(now, flow, weight);
    }

    fn remove_flow(&mut self, now: Instant, flow: FlowId) {
        let node = self.flows.remove(&flow).map_or(0, |s| s.node);
        self.throttled.remove(&flow);
        self.nodes[node].policy.remove_flow(now, flow);
    }

    fn add(&mut self, now: Instant, request: Request) {
        let (node, hold) = match self.flows.get_mut(&request.flow) {
            Some(slot) => {
                let queued_behind = !slot.held.is_empty();
                let hold = match &mut slot.bucket {
                    Some(b) => {
                        let hold = queued_behind || !b.ready(now);
                        if !hold {
                            b.charge(now, request.bytes());
                        }
                        hold
                    }
                    None => false,
                };
                if hold {
                    slot.held.push_back(request);
                }
                (slot.node, hold)
            }
            None => (0, false),
        };
        let at = if hold { At::Held } else { At::Node(node) };
        self.places.insert(
            request.id,
            Place {
                leaf: node,
                flow: request.flow,
                at,
            },
        );
        if hold {
            self.held += 1;
            self.throttled.insert(request.flow);
        } else {
            self.nodes[node].policy.add(now, request);
            self.mark(node);
        }
    }

    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        let Some(place) = self.places.get(&old.id).copied() else {
            self.nodes[0].policy.merge(now, old, merged);
            return;
        };
        match place.at {
            At::Held => {
                if let Some(slot) = self.flows.get_mut(&place.flow) {
                    if let Some(r) = slot.held.iter_mut().find(|r| r.id == old.id) {
                        *r = *merged;
                    }
                }
            }
            At::Node(n) => {
                self.charge_growth(now, &place, n, merged.bytes().saturating_sub(old.bytes()));
                let o = self.version(old, &place, n);
                let m = self.version(merged, &place, n);
                self.nodes[n].policy.merge(now, &o, &m);
            }
            At::Device => {}
        }
    }

    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        self.pump(now, device);
        match self.nodes[0].policy.dispatch(now, device) {
            Decision::Dispatch(r) => {
                let Some(place) = self.places.get_mut(&r.id) else {
                    return Decision::Dispatch(r);
                };
                place.at = At::Device;
                let real = Request {
                    flow: place.flow,
                    ..r
                };
                if let Some(child) = self.node_of_group_flow(r.flow) {
                    self.nodes[child].in_parent -= 1;
                    self.mark(child);
                    // Refill now: the root sees the group's next request
                    // before its completion logic runs.
                    self.pump(now, device);
                }
                Decision::Dispatch(real)
            }
            Decision::Idle => Decision::Idle,
            Decision::Nothing => {
                // Requests held by limits or idling groups, nothing in the
                // device to wake the driver: wait for the timer.
                if device.in_flight() == 0 && self.queued() > 0 && self.poll_timeout().is_some() {
                    Decision::Idle
                } else {
                    Decision::Nothing
                }
            }
        }
    }

    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        let Some(place) = self.places.remove(&request.id) else {
            self.nodes[0].policy.complete(now, request, service);
            return;
        };
        let (mut n, mut flow) = (place.leaf, place.flow);
        loop {
            let r = Request { flow, ..*request };
            self.nodes[n].policy.complete(now, &r, service);
            if n == 0 {
                break;
            }
            self.nodes[n].outstanding = self.nodes[n].outstanding.saturating_sub(1);
            self.mark(n);
            flow = self.nodes[n].flow;
            n = self.nodes[n].parent;
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let policies = self.nodes.iter().map(|n| n.policy.poll_timeout());
        let stalls = self.nodes.iter().map(|n| n.stalled_until);
        let held = self.throttled.iter().map(|f| {
            self.flows
                .get(f)
                .and_then(|s| s.bucket.as_ref())
                .map(Bucket::ready_at)
        });
        earliest(policies.chain(stalls).chain(held))
    }

    fn handle_timeout(&mut self, now: Instant) {
        for n in 0..self.nodes.len() {
            if self.nodes[n]
                .policy
                .poll_timeout()
                .is_some_and(|t| t <= now)
            {
                self.nodes[n].policy.handle_timeout(now);
                self.mark(n);
            }
            if self.nodes[n].stalled_until.is_some_and(|t| t <= now) {
                self.nodes[n].stalled_until = None;
                self.mark(n);
            }
        }
        self.release(now);
    }

    fn queued(&self) -> usize {
        self.nodes.iter().map(|n| n.policy.queued()).sum::<usize>() + self.held
    }

    fn stats(&self) -> PolicyStats {
        self.nodes[0].policy.stats()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            may_idle: self.limited
                || self.nodes.len() > 1
                || self.nodes[0].policy.capabilities().may_idle,
            enforces_iops_limits: true,
        }
    }
}
