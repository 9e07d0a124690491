//! Input errors, located: what is wrong, in which file, at which line and
//! key. The type is the core's [`sluice::LocatedError`], shared with the
//! drive models and the scenario format, so every bad input reads the same
//! way.

pub use sluice::LocatedError as Error;

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
