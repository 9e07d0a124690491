//! What a flow asks of its host after an event: requests to issue and
//! times to be woken. Every kind of flow (and the start-up replays) speaks
//! it, so it sits below them all.

use sluice::Instant;

/// A request a flow wants issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The flow's thread that issues it (one scheduler flow each).
    pub thread: u32,
    /// Continues the previous issue's application request (a fragment).
    pub continues: bool,
    /// First sector.
    pub sector: u64,
    /// Length in sectors.
    pub sectors: u32,
    /// A write (else a read).
    pub write: bool,
    /// Synchronous: the application waits for it.
    pub sync: bool,
    /// A buffered writer's fsync() after this write (`fsync_every`): it
    /// completes once its file's dirty data is on the disk.
    pub flush: bool,
}

/// What a flow asks of the engine after an event.
#[derive(Debug, Default)]
pub struct Actions {
    /// The flow starts over as new processes: its threads get fresh
    /// scheduler flows before `issues` go out (an application started again
    /// is a new process, and a scheduler sees it as a new queue).
    pub new_process: bool,
    /// Requests to issue, in order.
    pub issues: Vec<Issue>,
    /// Times at which the flow wants to be woken.
    pub wakes: Vec<Instant>,
}
