//! The runtime's one error type is the core's located input error
//! ([`sluice::LocatedError`]: file, line, key, message; one line on
//! display): scenarios, drive descriptions and start-up traces all report
//! through it, in every host.

pub use sluice::LocatedError as Error;

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
