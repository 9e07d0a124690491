//! What [`crate::policy::build`] returns without groups: the policy itself
//! until a flow with a rate limit appears, then a [`Hierarchy`] around it,
//! so a limit given to any policy is enforced, never ignored.
//!
//! Per request the unlimited policy costs one branch on the state (its own
//! methods are called statically, inside the one virtual call a
//! `Box<dyn Scheduler>` makes anyway).

use super::Hierarchy;
use crate::error::Error;
use crate::policy::noop::Noop;
use crate::scheduler::{
    Capabilities, ClassConfig, Decision, DeviceView, FlowConfig, Scheduler, Service,
};
use crate::stats::PolicyStats;
use crate::time::Instant;
use crate::types::{FlowId, Request};

/// A policy that enforces every flow's [`FlowConfig`] limits: see the module
/// documentation.
pub struct Limited<S> {
    state: State<S>,
}

enum State<S> {
    /// No limited flow yet: every call goes straight to the policy.
    Plain(S),
    /// A limited flow appeared: the policy is the hierarchy's root. Requests
    /// queued before are unknown to the hierarchy, which passes them to
    /// the root as they are.
    Tree(Hierarchy),
}

/// Call `$call` on whichever the state holds.
macro_rules! each {
    ($state:expr, $p:ident => $call:expr) => {
        match $state {
            State::Plain($p) => $call,
            State::Tree($p) => $call,
        }
    };
}

impl<S: Scheduler + 'static> Limited<S> {
    /// `policy`, passed straight through until a flow is limited.
    pub fn new(policy: S) -> Self {
        Limited {
            state: State::Plain(policy),
        }
    }

    /// Whether the policy now runs inside a [`Hierarchy`] (a limited flow
    /// has appeared).
    pub fn is_wrapped(&self) -> bool {
        matches!(self.state, State::Tree(_))
    }

    fn wrap(&mut self) {
        let placeholder = State::Tree(Hierarchy::around(Box::new(Noop::default())));
        self.state = match std::mem::replace(&mut self.state, placeholder) {
            State::Plain(policy) => State::Tree(Hierarchy::around(Box::new(policy))),
            tree => tree,
        };
    }
}

impl<S: Scheduler + 'static> Scheduler for Limited<S> {
    fn name(&self) -> &str {
        each!(&self.state, p => p.name())
    }
    fn add_flow(&mut self, now: Instant, flow: FlowId, config: &FlowConfig) {
        if config.is_limited() {
            self.wrap();
        }
        each!(&mut self.state, p => p.add_flow(now, flow, config))
    }
    fn add_class(&mut self, now: Instant, class: u32, config: &ClassConfig) -> Result<(), Error> {
        each!(&mut self.state, p => p.add_class(now, class, config))
    }
    fn set_weight(&mut self, now: Instant, flow: FlowId, weight: u32) {
        each!(&mut self.state, p => p.set_weight(now, flow, weight))
    }
    fn remove_flow(&mut self, now: Instant, flow: FlowId) {
        each!(&mut self.state, p => p.remove_flow(now, flow))
    }
    #[inline]
    fn add(&mut self, now: Instant, request: Request) {
        each!(&mut self.state, p => p.add(now, request))
    }
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        each!(&mut self.state, p => p.merge(now, old, merged))
    }
    #[inline]
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        each!(&mut self.state, p => p.dispatch(now, device))
    }
    #[inline]
    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        each!(&mut self.state, p => p.complete(now, request, service))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Instant> {
        each!(&self.state, p => p.poll_timeout())
    }
    fn handle_timeout(&mut self, now: Instant) {
        each!(&mut self.state, p => p.handle_timeout(now))
    }
    #[inline]
    fn queued(&self) -> usize {
        each!(&self.state, p => p.queued())
    }
    fn stats(&self) -> PolicyStats {
        each!(&self.state, p => p.stats())
    }
    fn capabilities(&self) -> Capabilities {
        each!(&self.state, p => p.capabilities())
    }
}
