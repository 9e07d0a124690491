//! The model types every policy and driver shares.

use crate::time::Instant;

/// Positions and sizes are counted in 512-byte sectors, as the papers do.
pub const SECTOR_BYTES: u64 = 512;

/// A flow: one tenant, application or process whose requests share a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// A request's identity, unique for the lifetime of a driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestId(pub u64);

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the device to memory.
    Read,
    /// From memory to the device.
    Write,
}

/// One I/O request as the scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// This request's identity.
    pub id: RequestId,
    /// The application request this one is a fragment of (its own id when
    /// not fragmented). FreeBSD splits large raw I/O into fragments of at
    /// most 64 KiB that arrive together; YFQ gives all fragments of one
    /// origin the finish tag of the whole request and may issue them as a
    /// group (YFQ paper §3.4).
    pub origin: RequestId,
    /// The flow that issued it.
    pub flow: FlowId,
    /// Read or write.
    pub dir: Direction,
    /// Synchronous: the issuer waits for it (reads, fsync'd writes). BFQ and
    /// CFQ idle only for synchronous flows and queue async writes together.
    pub sync: bool,
    /// First sector.
    pub sector: u64,
    /// Length in sectors (at least 1).
    pub sectors: u32,
    /// When the request reached the scheduler.
    pub arrival: Instant,
}

impl Request {
    /// The sector just past the request's end.
    pub fn end(&self) -> u64 {
        self.sector + u64::from(self.sectors)
    }

    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        u64::from(self.sectors) * SECTOR_BYTES
    }

    /// True for writes.
    pub fn is_write(&self) -> bool {
        self.dir == Direction::Write
    }
}
