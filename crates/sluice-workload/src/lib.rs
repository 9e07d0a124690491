//! sluice-workload: the applications that sluice's engines run, as pure
//! state machines with no I/O and no clock of their own.
//!
//! A [`Flow`] is built from a [`FlowSpec`] (what every flow has, and its
//! [`FlowKind`]: the pattern with the settings only that pattern has) and a
//! seed. The engine that runs
//! it (the simulator, or a real I/O engine) tells it when it is due
//! ([`Flow::wake`]) and when one of its requests completed
//! ([`Flow::completed`]), at the engine's [`sluice::Instant`]; the flow
//! answers with [`Actions`]: the requests to issue ([`Issue`]) and when to
//! wake it next. Every random draw follows from the seed ([`rng`]), so the
//! same flow issues the same requests in every engine.
//!
//! ```
//! use sluice::Instant;
//! use sluice_workload::{Actions, Flow, FlowKind, FlowSpec, GreedyPattern};
//!
//! let spec = FlowSpec {
//!     kind: FlowKind::Greedy(GreedyPattern::RandRead),
//!     request_sectors: 8,
//!     file_sectors: 1 << 20,
//!     qos: sluice::Qos::weighted(100),
//!     outstanding: 2,
//!     requests: Some(10),
//!     ..FlowSpec::default()
//! };
//! let mut flow = Flow::new(spec, 1, 0);
//! let mut act = Actions::default();
//! flow.wake(Instant::ZERO, &mut act);
//! assert_eq!(act.issues.len(), 2);
//! ```

mod action;
pub mod distribution;
mod error;
mod flow;
mod replay;
pub mod rng;
mod spec;
pub mod startup;
pub mod trace;

pub use action::{Actions, Issue};
pub use distribution::Distribution;
pub use error::{Error, Result};
pub use flow::{Flow, ThreadStats};
pub use spec::{
    FileService, FlowKind, FlowSpec, GreedyPattern, Pattern, PoolSpec, Replay, StartupSpec,
    TraceSpec, VideoSpec,
};
pub use startup::{StartupRecord, StartupTrace, THREAD_FILE_SECTORS};
