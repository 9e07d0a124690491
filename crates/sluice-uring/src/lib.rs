//! sluice-uring: the real I/O engine. Any sluice policy schedules real
//! requests from many flows onto files or block devices through io_uring,
//! with a bounded device queue depth.
//!
//! ```no_run
//! use sluice::{policy, FlowConfig, FlowId};
//! use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetOptions, Wait};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bfq = policy::build("bfq", &policy::Params::default(), &policy::BuildContext::default())?;
//! let mut engine = Engine::new(bfq, EngineConfig::with_queue_depth(4))?;
//! let file = engine.open_target("data.img", &TargetOptions::read_only())?;
//! engine.add_flow(FlowId(0), &FlowConfig::weighted(300))?;
//! engine.submit(Submission::read(FlowId(0), file, 0, AlignedBuf::zeroed(65536)))?;
//! engine.poll(Wait::Any)?;
//! while let Some(done) = engine.next_completion() {
//!     println!("{:?}: {:?} in {}", done.id, done.result, done.latency());
//! }
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! The engine is the second host of [`sluice::Driver`] (the simulator is the
//! first): the same driver, hence the same calls into the same policy code,
//! with a real clock and a real device instead of virtual ones.
//!
//! * **Clock.** "Now" is `CLOCK_MONOTONIC` (what `std::time::Instant`
//!   reads) as a [`sluice::Instant`] counted from the engine's creation
//!   ([`Engine::now`]). Every timing in a [`Completion`] is on that clock.
//! * **Requests.** [`Engine::submit`] turns a byte-addressed
//!   [`Submission`] into a sluice [`sluice::Request`] in 512-byte sectors
//!   (the first sector holding `offset`, through the one holding the last
//!   byte) and hands it to the driver's `add`. Targets are laid end to end
//!   in one sector space ([`TargetInfo::base_sector`]) so that a policy sees
//!   distinct targets at distinct positions, as the simulator lays flows'
//!   files out on its disk. Nothing reaches the kernel at submission: the
//!   next [`Engine::poll`] lets the policy choose among everything
//!   submitted so far.
//! * **Dispatch.** In `poll`, the engine fires the driver's wake-up if due
//!   (`handle_timeout`), calls `poll_dispatch` until it returns `None`
//!   (the driver stops at the queue depth), and queues one SQE
//!   (`IORING_OP_READ`/`WRITE` at the request's offset into its buffer) per
//!   dispatched request, tagged with the request id. Each CQE goes back to
//!   the driver's `complete`, which frees the slot; dispatching resumes.
//! * **Timers.** The driver's `poll_timeout()` (the policy's idle waits,
//!   budget and slice timers) becomes the timeout of the blocking
//!   `io_uring_enter` itself (`IORING_ENTER_EXT_ARG`, Linux 5.11+): the
//!   engine waits in the kernel for the first completion *or* the wake-up,
//!   whichever comes first, then calls `handle_timeout(now)` and
//!   `poll_dispatch` until `None`. No thread sleeps, nothing spins, no
//!   timeout SQE has to be cancelled when the policy moves its wake-up.
//! * **Cost model.** Position-aware policies (C-LOOK, SSTF, SATF, YFQ, DOR)
//!   consult a [`SeekEstimate`]: a cost linear in the distance between two
//!   sectors, an estimate only (a host cannot see a real drive's head, and
//!   an SSD or the page cache has no positioning cost). A host that knows
//!   better installs its own model ([`Engine::set_seek_model`]).
//! * **Buffers.** The engine owns each request's [`AlignedBuf`] from
//!   submission to completion and returns it in the [`Completion`]; the
//!   kernel never sees memory the host could free. Dropping the engine
//!   waits for the kernel to finish every operation it holds.
//!   `AlignedBuf`s are 4096-byte aligned, as O_DIRECT needs.
//! * **O_DIRECT.** [`TargetOptions::direct`] asks for it; where the file
//!   system refuses (EINVAL at open) the target is opened buffered and
//!   [`TargetInfo::direct_fallback`] says so, for the caller to warn. On an
//!   O_DIRECT target, offsets and lengths must be multiples of 512 (checked
//!   at submission; a device with 4096-byte logical blocks answers EINVAL to
//!   the rest, which the completion carries).
//!
//! # Exactly once, whatever the kernel answers
//!
//! Every submitted request is dispatched once by the policy and reported
//! once in a [`Completion`], and never panics on I/O errors:
//!
//! * a short read or write sends the remainder (same request, same slot,
//!   `resubmits` counts it); a read that returns 0 bytes is the end of the
//!   file, and the completion reports the bytes read so far (also when an
//!   O_DIRECT read ends off a 512-byte boundary, which only the end of the
//!   file does); a write that makes no progress completes with `WriteZero`;
//! * `EAGAIN` and `EINTR` are retried (up to 1000 times in a row, then
//!   reported);
//! * `ECANCELED`, `EIO`, `EINVAL` and every other error complete the
//!   request with that error ([`Completion::result`]);
//! * engine-level failures (the ring itself) are [`Error`]s of the call,
//!   never a request's.
//!
//! The ring has at least as many entries as the queue depth (up to 4096)
//! and its completion queue twice as many, and no more than `queue_depth`
//! requests are in the kernel at once, so neither queue overflows.
//!
//! # Not here (yet)
//!
//! Registered buffers and files, SQPOLL, linked or vectored requests, and
//! a load generator: `sluice run` builds its flows on this library.

mod buf;
mod clock;
mod cost;
mod doorbell;
mod engine;
mod error;
mod flows;
mod pending;
mod step;
mod target;

pub use buf::{AlignedBuf, BUF_ALIGN};
pub use clock::monotonic_ns;
pub use cost::SeekEstimate;
pub use doorbell::Doorbell;
pub use engine::{
    Completion, Engine, EngineConfig, EngineStats, Submission, Wait, MAX_REQUEST_BYTES,
};
pub use error::{Error, Result};
pub use target::{TargetId, TargetInfo, TargetOptions};
