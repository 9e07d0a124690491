//! sluice-sim: a deterministic discrete-event simulator for disk schedulers.
//!
//! A run is a function of (scenario, seed): the same inputs give the same
//! report, byte for byte, apart from the wall-clock `perf` figures.
//!
//! ```no_run
//! let scenario = sluice_sim::Scenario::load("scenarios/10r-rand.toml".as_ref()).unwrap();
//! let report = sluice_sim::simulate(&scenario).unwrap();
//! println!("{:.1} MB/s", report.aggregate.mb_s);
//! ```

/// The drive models (their own crate, shared with the emulator).
pub use sluice_device as device;
pub mod engine;
mod error;
pub mod overrides;
pub mod report;
pub mod repro;
pub mod scenario;
pub mod timeline;
pub mod validate;

pub use engine::{simulate, RequestRecord, Simulation};
pub use error::{Error, Result};
pub use report::SimReport;
pub use scenario::{FlowBuilder, Scenario, ScenarioBuilder};
/// The workloads live in `sluice-workload`, shared with the real engine.
pub use sluice_workload::{startup, Replay};
