//! sluice: disk I/O scheduling policies as pure state machines.
//!
//! A policy never reads a clock or does I/O: time is an argument (nanoseconds)
//! and the device is a read-only [`DeviceView`]. The same policy code runs in
//! the simulator's virtual time and in real time under an I/O engine.
//!
//! Start with [`Scheduler`] (the interface every driver calls) and
//! [`policy::build`] (construct a policy by its contract name).

pub mod metrics;
pub mod policy;
mod scheduler;
pub mod testkit;
mod types;

pub use scheduler::{ClassConfig, Decision, DeviceView, FlowConfig, Scheduler, Service};
pub use types::{Direction, FlowId, Nanos, Request, RequestId, NS_PER_MS, NS_PER_S, SECTOR_BYTES};
