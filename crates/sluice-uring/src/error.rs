//! The engine's one error type. I/O errors of requests are not here: they
//! come back in their [`crate::Completion`].

use std::io;
use std::path::PathBuf;

use sluice::FlowId;

use crate::TargetId;

/// What can go wrong with the engine itself (never a request's I/O error,
/// which its completion carries).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The kernel has no io_uring, refuses it (`kernel.io_uring_disabled`,
    /// seccomp: ENOSYS, EPERM), or lacks a feature the engine needs.
    #[error("io_uring unavailable: {0}")]
    Unavailable(io::Error),
    /// The ring failed in a way that is not a request's error.
    #[error("io_uring: {0}")]
    Ring(io::Error),
    /// A target could not be opened or prepared.
    #[error("{}: {source}", path.display())]
    Open {
        /// The target's path.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
    /// Writing to a block device needs `TargetOptions::allow_device_writes`.
    #[error("{}: a block device is opened for writing only with allow_device_writes", path.display())]
    DeviceWritesRefused {
        /// The block device's path.
        path: PathBuf,
    },
    /// A submission names a target the engine never opened.
    #[error("no target {0:?}")]
    UnknownTarget(TargetId),
    /// A submission or call names a flow not added (or already removed).
    #[error("no flow {0:?} (add_flow first)")]
    UnknownFlow(FlowId),
    /// `add_flow` of a flow already added.
    #[error("flow {0:?} already exists")]
    FlowExists(FlowId),
    /// `remove_flow` of a flow whose requests have not all completed.
    #[error("flow {flow:?} still has {pending} requests pending")]
    FlowBusy {
        /// The flow.
        flow: FlowId,
        /// Its requests submitted and not yet completed.
        pending: usize,
    },
    /// `close_target` of a target whose requests have not all completed.
    #[error("target {target:?} still has {pending} requests pending")]
    TargetBusy {
        /// The target.
        target: TargetId,
        /// Its requests submitted and not yet completed.
        pending: usize,
    },
    /// The request cannot be sent as it is (empty, too long, misaligned
    /// for an O_DIRECT target, a write to a read-only target).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The policy refused something (a class naming no inner policy).
    #[error(transparent)]
    Policy(#[from] sluice::Error),
    /// The policy holds requests but dispatches none, has none in flight and
    /// asks for no wake-up: nothing can ever happen (a policy bug).
    #[error("policy '{policy}' holds {queued} requests, none in flight and no wake-up: stalled")]
    Stalled {
        /// The policy's name.
        policy: String,
        /// Requests it holds.
        queued: usize,
    },
}

/// The engine's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
