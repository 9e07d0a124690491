//! sluice-sim: a deterministic discrete-event simulator for disk schedulers.
//!
//! The simulator is one host of the workload runtime (`sluice-runtime`):
//! a virtual clock and a drive model (`sluice-device`) around the core's
//! driver. A run is a function of (scenario, seed): the same inputs give
//! the same report, byte for byte, apart from the wall-clock `perf`
//! figures. DiskSim validation ([`validate`]) replays a real drive's trace
//! through the same driver and drive model.
//!
//! ```no_run
//! let scenario = sluice_runtime::Scenario::load("scenarios/10r-rand.toml".as_ref()).unwrap();
//! let report = sluice_sim::simulate(&scenario).unwrap();
//! println!("{:.1} MB/s", report.aggregate.mb_s);
//! ```

/// The drive models (their own crate, shared with the emulator).
pub use sluice_device as device;
pub mod engine;
pub mod fleet;
pub mod os;
pub mod validate;

pub use engine::{compare, simulate, RequestRecord, Simulation};
pub use sluice_runtime::{Error, Result};
