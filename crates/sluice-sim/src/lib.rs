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

pub mod device;
pub mod engine;
mod error;
mod replay;
pub mod report;
pub mod repro;
mod rng;
pub mod scenario;
pub mod startup;
pub mod validate;
pub(crate) mod workload;

pub use engine::{simulate, RequestRecord, Simulation};
pub use error::{Error, Result};
pub use replay::Replay;
pub use report::SimReport;
pub use scenario::{FlowBuilder, Scenario, ScenarioBuilder};
