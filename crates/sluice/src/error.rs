//! The core crate's one error type.

use crate::types::RequestId;

/// What can go wrong in the core: building a policy from names and
/// parameters, or a host handing the driver something it does not hold.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    /// No policy has this name.
    #[error("unknown policy '{name}' (available: {available})")]
    UnknownPolicy {
        /// The name asked for.
        name: String,
        /// The policy names there are, comma-separated.
        available: String,
    },
    /// A parameter was given that the policy does not read.
    #[error("policy '{policy}' has no parameter '{param}'{hint}")]
    UnknownParam {
        /// The policy being built.
        policy: String,
        /// The parameter it does not take.
        param: String,
        /// The parameters it does take, as a parenthesised suffix for the
        /// message (" (it takes none)" when it takes none).
        hint: String,
    },
    /// A parameter's value has the wrong type or is out of range.
    #[error("parameter '{param}' of policy '{policy}': expected {expected}, got {got}")]
    BadParam {
        /// The policy being built.
        policy: String,
        /// The parameter's name.
        param: String,
        /// What the parameter accepts.
        expected: String,
        /// The value given.
        got: String,
    },
    /// A VIOS class names an inner scheduler that is no policy.
    #[error("class {class}: inner scheduler '{inner}' is not a policy (available: {available})")]
    UnknownInner {
        /// The class id given to `add_class`.
        class: u32,
        /// The inner scheduler's name as given.
        inner: String,
        /// The policy names there are, comma-separated.
        available: String,
    },
    /// A group of a [`crate::policy::Hierarchy`] cannot be built.
    #[error("group '{group}': {what}")]
    BadGroup {
        /// The group's name.
        group: String,
        /// What is wrong with it.
        what: String,
    },
    /// The host completed a request the driver does not hold in flight.
    #[error("request {0:?} completed but not in flight")]
    NotInFlight(RequestId),
}
