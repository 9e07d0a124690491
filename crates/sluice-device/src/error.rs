//! The located input error (file, line, key, message) every sluice input
//! reports through: a drive description's is the same type as a
//! scenario's, the core's [`sluice::LocatedError`].

pub use sluice::LocatedError as Error;

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
