//! sluice-real: sluice's real hosts as a library. [`run`] plays a scenario
//! in real time on real files or a block device through the io_uring
//! engine (`sluice-uring`), with the same workload runtime, policy code and
//! report as the simulator, and can verify every write; [`kernel`] plays
//! it under the kernel's own scheduler instead, from OS threads. Both
//! create their files exclusively, write a block device only when allowed,
//! stop on SIGINT/SIGTERM, hold the device against a second run, and undo
//! what they changed — after a crash too, from their [`journal`].
//!
//! ```no_run
//! let opts = sluice_real::run::Options {
//!     scenario: "scenarios/run/weights.toml".into(),
//!     duration_s: Some(2.0),
//!     ..Default::default()
//! };
//! let report = sluice_real::run::run(&opts).unwrap();
//! println!("{:.1} MB/s", report.report.aggregate.mb_s);
//! ```

pub mod calibrate;
mod host;
pub mod journal;
pub mod kernel;
pub mod run;
pub mod status;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;

pub use status::{DataError, Refused};
