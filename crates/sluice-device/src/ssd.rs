//! A flash SSD: pages striped over channels x dies. A read occupies its die
//! for the array read and then its channel for the transfer; a write
//! occupies the channel, then the die for the (much longer) program. The
//! host link is one more shared resource. No positioning cost: IOPS grow
//! with the queue depth until channels, dies or the link saturate.
//!
//! Left out: garbage collection, the mapping table and write amplification
//! (a fresh drive's behaviour).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sluice::{CostModel, Duration, Instant};

use super::{Command, Device};

/// Parameters of an SSD model.
#[derive(Clone, Debug, PartialEq)]
pub struct SsdSpec {
    /// Model name.
    pub name: String,
    /// Size in 512-byte sectors.
    pub capacity_sectors: u64,
    /// Flash channels (pages are striped over them first).
    pub channels: u32,
    /// Dies on each channel.
    pub dies_per_channel: u32,
    /// Flash page size in sectors.
    pub page_sectors: u32,
    /// Reading one page from the array.
    pub read: Duration,
    /// Programming one page.
    pub program: Duration,
    /// Moving one page over a channel.
    pub channel_page: Duration,
    /// Moving one sector over the host link.
    pub link_sector: Duration,
    /// Controller time per command.
    pub overhead: Duration,
    /// The deepest command queue the drive accepts.
    pub max_queue: usize,
}

/// An SSD in service.
#[derive(Clone, Debug)]
pub struct Ssd {
    spec: SsdSpec,
    depth: usize,
    die_free: Vec<Instant>,
    channel_free: Vec<Instant>,
    link_free: Instant,
    pending: BinaryHeap<Reverse<(Instant, u64)>>,
}

impl Ssd {
    /// An idle SSD of model `spec` accepting `depth` commands at once (at
    /// least 1).
    pub fn new(spec: &SsdSpec, depth: usize) -> Self {
        let dies = (spec.channels * spec.dies_per_channel) as usize;
        Ssd {
            depth: depth.max(1),
            die_free: vec![Instant::ZERO; dies],
            channel_free: vec![Instant::ZERO; spec.channels as usize],
            link_free: Instant::ZERO,
            pending: BinaryHeap::new(),
            spec: spec.clone(),
        }
    }

    /// Schedule every page of `cmd` on its die and channel, in order;
    /// returns when the last page is done.
    fn schedule(&mut self, now: Instant, cmd: &Command) -> Instant {
        let s = &self.spec;
        let start = now + s.overhead;
        let n = u64::from(cmd.sectors.max(1));
        let link = s.link_sector * n;
        let first = cmd.lbn / u64::from(s.page_sectors);
        let last = (cmd.lbn + n - 1) / u64::from(s.page_sectors);
        // Writes cross the host link before flash; reads after.
        let mut ready = start;
        if cmd.write {
            ready = ready.max(self.link_free) + link;
            self.link_free = ready;
        }
        let mut end = ready;
        for page in first..=last {
            let ch = (page % u64::from(s.channels)) as usize;
            let die = ch * s.dies_per_channel as usize
                + ((page / u64::from(s.channels)) % u64::from(s.dies_per_channel)) as usize;
            let done = if cmd.write {
                let xfer_end =
                    ready.max(self.channel_free[ch]).max(self.die_free[die]) + s.channel_page;
                self.channel_free[ch] = xfer_end;
                let prog_end = xfer_end + s.program;
                self.die_free[die] = prog_end;
                prog_end
            } else {
                let read_end = ready.max(self.die_free[die]) + s.read;
                let xfer_end = read_end.max(self.channel_free[ch]) + s.channel_page;
                self.channel_free[ch] = xfer_end;
                self.die_free[die] = xfer_end;
                xfer_end
            };
            end = end.max(done);
        }
        if !cmd.write {
            end = end.max(self.link_free) + link;
            self.link_free = end;
        }
        end
    }
}

impl Device for Ssd {
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn queue_depth(&self) -> usize {
        self.depth
    }
    fn submit(&mut self, now: Instant, cmd: Command) {
        let done = self.schedule(now, &cmd);
        self.pending.push(Reverse((done, cmd.tag)));
    }
    fn next_completion(&self) -> Option<Instant> {
        self.pending.peek().map(|r| r.0 .0)
    }
    fn pop_completion(&mut self, now: Instant) -> Option<u64> {
        match self.pending.peek() {
            Some(&Reverse((t, tag))) if t <= now => {
                self.pending.pop();
                Some(tag)
            }
            _ => None,
        }
    }
}

impl CostModel for Ssd {
    fn capacity(&self) -> u64 {
        self.spec.capacity_sectors
    }
    fn seek_time(&self, _from: u64, _to: u64) -> Duration {
        Duration::ZERO
    }
    fn positioning_time(&self, _now: Instant, _from: u64, _to: u64) -> Duration {
        self.spec.read
    }
    fn full_stroke_seek(&self) -> Duration {
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_time::at;

    fn spec() -> SsdSpec {
        SsdSpec {
            name: "t".into(),
            capacity_sectors: 1 << 30,
            channels: 2,
            dies_per_channel: 2,
            page_sectors: 8,
            read: Duration::from_micros(50),
            program: Duration::from_micros(500),
            channel_page: Duration::from_micros(10),
            link_sector: Duration::from_micros(1),
            overhead: Duration::from_micros(5),
            max_queue: 32,
        }
    }

    fn cmd(tag: u64, page: u64, write: bool) -> Command {
        Command {
            flow: 0,
            tag,
            write,
            lbn: page * 8,
            sectors: 8,
        }
    }

    /// When one command alone on an idle drive completes.
    fn lone(write: bool) -> Option<Instant> {
        let mut d = Ssd::new(&spec(), 1);
        d.submit(at(0), cmd(1, 0, write));
        d.next_completion()
    }

    #[test]
    fn a_lone_read_costs_overhead_read_transfer_and_link() {
        assert_eq!(lone(false), Some(at(5_000 + 50_000 + 10_000 + 8_000)));
    }

    #[test]
    fn writes_cost_more_than_reads() {
        assert_eq!(lone(true), Some(at(5_000 + 8_000 + 10_000 + 500_000)));
    }

    #[test]
    fn reads_on_different_dies_overlap_and_on_one_die_serialise() {
        let mut d = Ssd::new(&spec(), 4);
        d.submit(at(0), cmd(1, 0, false));
        d.submit(at(0), cmd(2, 1, false)); // other channel
        let mut times = vec![];
        while let Some(t) = d.next_completion() {
            d.pop_completion(t);
            times.push(t);
        }
        // Parallel on two dies: the second waits only for the host link.
        assert_eq!(times, vec![at(73_000), at(81_000)]);
        let mut d = Ssd::new(&spec(), 4);
        d.submit(at(0), cmd(1, 0, false));
        d.submit(at(0), cmd(2, 4, false)); // page 4: same channel, same die
        d.pop_completion(at(73_000));
        // The die is busy until 65 µs; then read, transfer, link.
        assert_eq!(
            d.next_completion(),
            Some(at(65_000 + 50_000 + 10_000 + 8_000))
        );
    }
}
