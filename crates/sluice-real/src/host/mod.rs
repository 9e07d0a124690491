//! The real-time host both front ends share, below them: `run` drives it
//! with the io_uring engine, `kernel` with OS threads under the kernel's
//! scheduler. It holds the books on the requests (the runtime's backend),
//! the report built from them, progress, signals and the scenario made
//! ready for a real target. Private: only [`RunReport`] and what it is made
//! of, [`ShowProgress`] and [`Interrupted`] are seen outside, through `run`.

mod progress;
mod report;
mod requests;
mod scenario;
mod signals;
mod sys;
mod verify;

pub(crate) use progress::Progress;
pub use progress::ShowProgress;
pub(crate) use report::{report, Origin, Tally};
pub use report::{EngineReport, RunReport, RUN_SCHEMA};
pub(crate) use requests::{complete, pattern_byte, settle, Book, Host, Io};
pub(crate) use scenario::{
    device_regions, device_write_refusal, gib, recorded_extents, set_duration,
};
pub use signals::Interrupted;
pub(crate) use signals::{interrupt_flag, InterruptFlag};
pub(crate) use sys::{current_value, unmount_lazily};
pub(crate) use verify::Verifier;
