//! sluice: disk I/O scheduling policies as pure state machines, and the one
//! driver that runs them.
//!
//! A policy never reads a clock or does I/O: time is an argument (a typed
//! [`Instant`]) and the device is a read-only [`DeviceView`]. A host (the
//! simulator, the test kit, a real I/O engine) never calls a policy itself:
//! it feeds a [`Driver`] arrivals, completions and its clock, and the driver
//! calls the policy. The same policy code runs in virtual and in real time.
//!
//! Start with [`Scheduler`] (the interface every policy implements),
//! [`Driver`] (what hosts call) and [`policy::build`] (construct a policy by
//! its contract name).

pub mod charge;
pub mod driver;
mod error;
pub mod hint;
pub mod idhash;
pub mod latency_histogram;
mod located;
#[cfg(feature = "metrics")]
pub mod metrics;
pub mod policy;
mod qos;
pub mod rng;
mod scheduler;
mod short_number;
mod stats;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod time;
mod types;

pub use charge::{Charge, Charger, LinearCost};
pub use driver::{Completion, Driver, LastAnswer, DEFAULT_MAX_REQUEST_SECTORS};
pub use error::Error;
pub use idhash::{IdMap, SlotIds};
pub use located::LocatedError;
pub use qos::Qos;
pub use scheduler::{
    Capabilities, ClassConfig, CostModel, Decision, DeviceState, DeviceView, FlowConfig, Scheduler,
    Service,
};
pub use short_number::short_number;
pub use time::{Duration, Instant, NS_PER_MS, NS_PER_S, NS_PER_US};
pub use types::{Direction, FlowId, Request, RequestId, SECTOR_BYTES};
