//! sluice-runtime: the workload runtime every sluice host runs.
//!
//! A host (the simulator, the io_uring engine, OS threads under the
//! kernel's scheduler) supplies time and a device; this crate supplies the
//! rest, the same way for all of them: the scenario format
//! ([`scenario`]), the population of flows and their threads
//! ([`population`], generic over the host's [`Backend`]), what a run
//! measures ([`report`], [`timeline`]) and the command-line overrides
//! ([`overrides`]); and `sluice mount --config`'s file ([`mount_config`]).
//!
//! ```no_run
//! let scenario = sluice_runtime::Scenario::load("scenarios/10r-rand.toml".as_ref()).unwrap();
//! println!("{} flows", scenario.flows.len());
//! ```

mod error;
pub mod fleet;
pub mod import;
pub mod mount_config;
pub mod names;
pub mod overrides;
pub mod population;
pub mod report;
pub mod request_log;
pub mod scenario;
pub mod timeline;

pub use error::{Error, Result};
pub use mount_config::{MountClass, MountConfig, ProcessInfo, ProcessMatch};
pub use population::{Backend, Population};
pub use report::SimReport;
pub use scenario::{CostKeys, FlowBuilder, GroupBuilder, Scenario, ScenarioBuilder};
