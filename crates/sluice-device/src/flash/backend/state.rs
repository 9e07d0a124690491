//! What the back end holds between events; what it does is in the parent
//! module.

use crate::flash::geometry::Geometry;
use crate::flash::work::Op;
use crate::mqsim::{SsdConfig, TransactionScheduling};
use std::collections::VecDeque;

/// Queues of one chip.
#[derive(Clone, Debug, Default)]
pub(crate) struct Queues {
    /// User (and cache) reads, per priority class.
    pub(crate) user_read: [VecDeque<u32>; 4],
    /// User (and cache) writes, per priority class.
    pub(crate) user_write: [VecDeque<u32>; 4],
    pub(crate) mapping_read: VecDeque<u32>,
    pub(crate) gc_read: VecDeque<u32>,
    pub(crate) gc_write: VecDeque<u32>,
    pub(crate) gc_erase: VecDeque<u32>,
    /// Transactions in all of the above.
    pub(crate) queued: u32,
}

/// What a chip is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Idle,
    /// Command (and a program's data) on the channel.
    CommandIn,
    /// The array works.
    Busy,
    /// Read data waits for the channel (or is on it).
    DataOut,
}

/// One chip.
#[derive(Clone, Debug)]
pub(crate) struct Chip {
    pub(crate) status: Status,
    pub(crate) op: Op,
    /// Transactions of the command under way.
    pub(crate) active: Vec<u32>,
    /// The array time of the command under way.
    pub(crate) array_ns: u64,
    /// Read pages still to move out.
    pub(crate) to_move_out: u32,
    pub(crate) queues: Queues,
}

/// One channel.
#[derive(Clone, Debug, Default)]
pub(crate) struct Channel {
    pub(crate) busy: bool,
    /// Transactions queued at its chips: none, and a round of offers
    /// would change nothing (the turn comes back where it was).
    pub(crate) queued: u32,
    /// The chip (index within the channel) offered work next.
    pub(crate) turn: u32,
    /// Read data waiting for the channel: mapping, user, GC.
    pub(crate) waiting_out: [VecDeque<(u32, u32)>; 3],
}

/// The back end's state.
#[derive(Clone, Debug)]
pub(crate) struct Backend {
    pub(crate) chips: Vec<Chip>,
    pub(crate) channels: Vec<Channel>,
    pub(crate) chips_per_channel: u32,
    /// Channels whose chips got work since they were last offered it (a
    /// bit each; all set when there are more than 64 channels).
    pub(crate) fresh: u64,
    pub(crate) prioritised: bool,
    pub(crate) preemptible_gc: bool,
}

impl Backend {
    /// The back end of configuration `c` on a drive of shape `geo`.
    pub(crate) fn new(c: &SsdConfig, geo: &Geometry) -> Self {
        let chip = Chip {
            status: Status::Idle,
            op: Op::Read,
            active: Vec::new(),
            array_ns: 0,
            to_move_out: 0,
            queues: Queues::default(),
        };
        Backend {
            chips: vec![chip; geo.chip_count()],
            channels: vec![Channel::default(); geo.channels as usize],
            chips_per_channel: geo.chips,
            fresh: 0,
            prioritised: c.device.transaction_scheduling_policy
                != TransactionScheduling::OutOfOrder,
            preemptible_gc: c.device.preemptible_gc_enabled,
        }
    }
}

/// Which queue family a pick comes from.
#[derive(Clone, Copy)]
pub(crate) enum Pick {
    UserRead(usize),
    UserWrite(usize),
    MappingRead,
    GcRead,
    GcWrite,
    GcErase,
}
