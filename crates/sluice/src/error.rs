//! The core crate's one error type.

use crate::types::RequestId;

/// What can go wrong in the core: building a policy from names and
/// parameters, or a host handing the driver something it does not hold.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    #[error("unknown policy '{name}' (available: {available})")]
    UnknownPolicy { name: String, available: String },
    #[error("policy '{policy}' has no parameter '{param}'{hint}")]
    UnknownParam {
        policy: String,
        param: String,
        hint: String,
    },
    #[error("parameter '{param}' of policy '{policy}': expected {expected}, got {got}")]
    BadParam {
        policy: String,
        param: String,
        expected: String,
        got: String,
    },
    #[error("class {class}: inner scheduler '{inner}' is not a policy (available: {available})")]
    UnknownInner {
        class: u32,
        inner: String,
        available: String,
    },
    #[error("request {0:?} completed but not in flight")]
    NotInFlight(RequestId),
}
