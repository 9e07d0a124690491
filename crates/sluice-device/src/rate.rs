//! A rate device: capacity given as IOPS and bandwidth per direction, as
//! Seastar's `io_properties.yaml` states a disk (`read_iops`,
//! `read_bandwidth`, `write_iops`, `write_bandwidth`) and dmClock's
//! simulator its server (`server_iops`). No mechanics: the device serves
//! the commands it holds one at a time, in arrival order (FIFO), each for
//!
//! ```text
//! time = 1 / iops + bytes / bandwidth      (of the command's direction)
//! ```
//!
//! **The sum, not the maximum**, because that is the cost Seastar's I/O
//! scheduler charges a request against the capacity the properties file
//! describes: `internal::request_tokens` in `src/core/io_queue.cc` gives a
//! read `1/req_count_rate + blocks/blocks_count_rate` tokens, both rates
//! derived from `read_iops` and `read_bandwidth` in
//! `src/core/disk_params.cc` (writes scaled by the write-to-read
//! multipliers, which come to `1/write_iops + bytes/write_bandwidth`), and
//! its token bucket is replenished at one token per second. A device that
//! takes exactly that long serves precisely what Seastar's throttle lets
//! through, so the throttle neither over- nor under-drives it. (With the
//! maximum, a 128 KiB read on the i4i.2xlarge properties of Seastar's
//! reproducers would take 85 µs instead of 89.6 µs: Seastar would think
//! the disk 5% slower than it is.) Either term may be left out (`None`):
//! dmClock's server has only an IOPS figure, and a cost of `c` units there
//! is a request `c` times as large on a device with bandwidth only.
//!
//! Queue depth: the driver may keep up to `queue_depth` commands in the
//! device, which serves them FIFO, one at a time; a command completes at
//! `max(arrival, previous completion) + time`. Deterministic: no random
//! component.

use std::collections::VecDeque;

use sluice::{CostModel, Duration, Instant};

use super::{Command, Device};

/// Bytes in a sector.
const SECTOR_BYTES: f64 = 512.0;

/// One direction's capacity: IOPS and bytes per second, at least one set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimits {
    /// Requests per second (`None`: no per-request cost).
    pub iops: Option<f64>,
    /// Bytes per second (`None`: no per-byte cost).
    pub bytes_per_s: Option<f64>,
}

impl RateLimits {
    /// The time a request of `bytes` takes: `1/iops + bytes/bandwidth`
    /// (missing terms count zero), at least a nanosecond.
    pub fn time(&self, bytes: u64) -> Duration {
        let mut s = 0.0;
        if let Some(i) = self.iops {
            s += 1.0 / i;
        }
        if let Some(b) = self.bytes_per_s {
            s += bytes as f64 / b;
        }
        Duration::from_nanos(((s * 1e9).round() as u64).max(1))
    }
}

/// Parameters of a rate device.
#[derive(Clone, Debug, PartialEq)]
pub struct RateSpec {
    /// Model name.
    pub name: String,
    /// Size in 512-byte sectors.
    pub capacity_sectors: u64,
    /// Reads' capacity.
    pub read: RateLimits,
    /// Writes' capacity.
    pub write: RateLimits,
    /// The deepest command queue the device accepts.
    pub max_queue: usize,
}

impl RateSpec {
    /// The time `cmd` occupies the device.
    pub fn time(&self, write: bool, sectors: u32) -> Duration {
        let bytes = (f64::from(sectors) * SECTOR_BYTES) as u64;
        if write {
            self.write.time(bytes)
        } else {
            self.read.time(bytes)
        }
    }
}

/// A rate device in service.
#[derive(Clone, Debug)]
pub struct Rate {
    spec: RateSpec,
    depth: usize,
    /// When the last command accepted completes.
    busy_until: Instant,
    /// Commands in the device with their completion times, in order.
    pending: VecDeque<(Instant, u64)>,
}

impl Rate {
    /// An idle device of model `spec` accepting `depth` commands at once
    /// (at least 1).
    pub fn new(spec: &RateSpec, depth: usize) -> Self {
        Rate {
            spec: spec.clone(),
            depth: depth.max(1),
            busy_until: Instant::ZERO,
            pending: VecDeque::new(),
        }
    }
}

impl Device for Rate {
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn queue_depth(&self) -> usize {
        self.depth
    }
    fn submit(&mut self, now: Instant, cmd: Command) {
        let done = now.max(self.busy_until) + self.spec.time(cmd.write, cmd.sectors);
        self.busy_until = done;
        self.pending.push_back((done, cmd.tag));
    }
    fn next_completion(&self) -> Option<Instant> {
        self.pending.front().map(|p| p.0)
    }
    fn pop_completion(&mut self, now: Instant) -> Option<u64> {
        match self.pending.front() {
            Some(&(t, tag)) if t <= now => {
                self.pending.pop_front();
                Some(tag)
            }
            _ => None,
        }
    }
}

impl CostModel for Rate {
    fn capacity(&self) -> u64 {
        self.spec.capacity_sectors
    }
    fn seek_time(&self, _from: u64, _to: u64) -> Duration {
        Duration::ZERO
    }
    fn positioning_time(&self, _now: Instant, _from: u64, _to: u64) -> Duration {
        // The per-request term of a read: what a request costs before its
        // size counts.
        self.spec
            .read
            .iops
            .map_or(Duration::ZERO, |i| Duration::from_nanos((1e9 / i) as u64))
    }
    fn full_stroke_seek(&self) -> Duration {
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_time::{at, ns};

    fn spec() -> RateSpec {
        RateSpec {
            name: "rate".into(),
            capacity_sectors: 1 << 30,
            read: RateLimits {
                iops: Some(1000.0),
                bytes_per_s: Some(100e6),
            },
            write: RateLimits {
                iops: Some(500.0),
                bytes_per_s: None,
            },
            max_queue: 64,
        }
    }

    fn cmd(tag: u64, write: bool, sectors: u32) -> Command {
        Command {
            flow: 0,
            tag,
            write,
            lbn: tag * 1000,
            sectors,
        }
    }

    #[test]
    fn a_request_costs_the_sum_of_its_per_request_and_per_byte_terms() {
        // 1 ms + 131072 B / 100 MB/s = 1 ms + 1.31072 ms.
        assert_eq!(spec().time(false, 256), ns(2_310_720));
        // Writes: IOPS only.
        assert_eq!(spec().time(true, 256), ns(2_000_000));
    }

    #[test]
    fn commands_are_served_fifo_one_at_a_time() {
        let mut d = Rate::new(&spec(), 4);
        d.submit(at(0), cmd(1, true, 8));
        d.submit(at(0), cmd(2, true, 8));
        d.submit(at(10_000_000), cmd(3, true, 8));
        let mut got = vec![];
        while let Some(t) = d.next_completion() {
            let tag = d.pop_completion(t).unwrap();
            got.push((t, tag));
        }
        // Back to back, then from its arrival after the device went idle.
        assert_eq!(
            got,
            vec![(at(2_000_000), 1), (at(4_000_000), 2), (at(12_000_000), 3)]
        );
    }

    #[test]
    fn throughput_follows_the_rates() {
        let mut d = Rate::new(&spec(), 1);
        let mut now = at(0);
        for i in 0..100 {
            d.submit(now, cmd(i, true, 8));
            now = d.next_completion().unwrap();
            d.pop_completion(now);
        }
        // 500 IOPS: 100 writes in 0.2 s.
        assert_eq!(now, at(200_000_000));
    }
}
