//! What a request costs the flow that issued it: its sectors (BFQ's and
//! YFQ's service), or a linear cost model that knows a 128 KiB read is not
//! a 4 KiB read and a seek is not a sequential step.
//!
//! The model is Linux iocost's (`block/blk-iocost.c`): a base cost per
//! request, different for sequential and random reads and writes, plus a
//! cost per KiB. A request is sequential when it starts within
//! `seq_threshold` of where its flow's previous request ended (iocost: 16
//! MiB, `LCOEF_RANDIO_PAGES`). It converts to and from the kernel's
//! `io.cost.model` line and Seastar's `io_properties.yaml`.

use crate::idhash::IdMap;
use crate::types::{Direction, FlowId, Request, SECTOR_BYTES};

/// A linear cost model: microseconds of device time per request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearCost {
    /// Base cost of a sequential read, µs.
    pub read_seq_us: f64,
    /// Base cost of a random read, µs.
    pub read_rand_us: f64,
    /// Base cost of a sequential write, µs.
    pub write_seq_us: f64,
    /// Base cost of a random write, µs.
    pub write_rand_us: f64,
    /// Cost of each KiB moved, µs.
    pub per_kib_us: f64,
    /// A request starting within this many KiB of its flow's previous end is
    /// sequential.
    pub seq_threshold_kib: f64,
}

/// iocost's threshold: 4096 pages of 4 KiB.
pub const IOCOST_SEQ_THRESHOLD_KIB: f64 = 16384.0;

impl Default for LinearCost {
    /// The kernel's built-in model for rotational disks (iocost's
    /// `autop[AUTOP_HDD]`: rbps 174019176, rseqiops 41708, rrandiops 370,
    /// wseqiops 42705, wrandiops 378), converted as the kernel's
    /// `calc_lcoefs` does, with its read bandwidth for both directions.
    fn default() -> Self {
        LinearCost::from_iocost(174_019_176.0, 41_708.0, 370.0, 42_705.0, 378.0)
    }
}

impl LinearCost {
    /// From an `io.cost.model` line's numbers: bytes per second and 4 KiB
    /// IOPS. Base costs are what an IOPS figure leaves after the bytes'
    /// cost, never below zero (the kernel's `calc_lcoefs`).
    pub fn from_iocost(
        bps: f64,
        rseqiops: f64,
        rrandiops: f64,
        wseqiops: f64,
        wrandiops: f64,
    ) -> Self {
        let per_kib_us = 1e6 * 1024.0 / bps;
        let base = |iops: f64| (1e6 / iops - 4.0 * per_kib_us).max(0.0);
        LinearCost {
            read_seq_us: base(rseqiops),
            read_rand_us: base(rrandiops),
            write_seq_us: base(wseqiops),
            write_rand_us: base(wrandiops),
            per_kib_us,
            seq_threshold_kib: IOCOST_SEQ_THRESHOLD_KIB,
        }
    }

    /// A request's cost in µs, sequential or not.
    pub fn cost_us(&self, dir: Direction, sequential: bool, sectors: u32) -> f64 {
        let base = match (dir, sequential) {
            (Direction::Read, true) => self.read_seq_us,
            (Direction::Read, false) => self.read_rand_us,
            (Direction::Write, true) => self.write_seq_us,
            (Direction::Write, false) => self.write_rand_us,
        };
        base + self.per_kib_us * f64::from(sectors) * SECTOR_BYTES as f64 / 1024.0
    }

    /// 4 KiB IOPS at depth 1 the model gives.
    fn iops_4k(&self, base_us: f64) -> u64 {
        (1e6 / (base_us + 4.0 * self.per_kib_us).max(1e-3)).round() as u64
    }

    /// Bytes per second the per-KiB cost gives.
    fn bps(&self) -> u64 {
        (1e6 * 1024.0 / self.per_kib_us.max(1e-6)).round() as u64
    }

    /// The kernel's `io.cost.model` line for device `major:minor`.
    pub fn iocost_line(&self, major: u32, minor: u32) -> String {
        format!(
            "{major}:{minor} ctrl=user model=linear rbps={} rseqiops={} rrandiops={} wbps={} wseqiops={} wrandiops={}",
            self.bps(),
            self.iops_4k(self.read_seq_us),
            self.iops_4k(self.read_rand_us),
            self.bps(),
            self.iops_4k(self.write_seq_us),
            self.iops_4k(self.write_rand_us),
        )
    }

    /// Seastar's `io_properties.yaml` for the device mounted at
    /// `mountpoint`: 4 KiB random IOPS and bandwidth per direction. They
    /// are the depth-1 figures of this model (Seastar's iotune measures
    /// at its own parallelism).
    pub fn seastar_properties(&self, mountpoint: &str) -> String {
        format!(
            "disks:\n- mountpoint: {mountpoint}\n  read_iops: {}\n  read_bandwidth: {}\n  write_iops: {}\n  write_bandwidth: {}\n",
            self.iops_4k(self.read_rand_us),
            self.bps(),
            self.iops_4k(self.write_rand_us),
            self.bps(),
        )
    }
}

/// What a policy charges a flow for a request.
#[derive(Clone, Debug, PartialEq)]
pub enum Charge {
    /// Its length in sectors (BFQ's, YFQ's and DOR's service).
    Sectors,
    /// The cost model's µs, in sector-equivalents: the cost divided by
    /// what one sector costs, so budgets and tags keep their scale and a
    /// random 4 KiB read weighs as the sequential sectors it could have
    /// been.
    Cost(LinearCost),
}

/// A [`Charge`] with the flows' positions it needs to tell sequential
/// from random requests.
#[derive(Clone, Debug)]
pub struct Charger {
    charge: Charge,
    last_end: IdMap<FlowId, u64>,
}

impl Charger {
    /// A charger for `charge`.
    pub fn new(charge: Charge) -> Self {
        Charger {
            charge,
            last_end: IdMap::default(),
        }
    }

    /// Charge by sectors.
    pub fn sectors() -> Self {
        Self::new(Charge::Sectors)
    }

    /// Whether this charges by the cost model.
    pub fn by_cost(&self) -> bool {
        matches!(self.charge, Charge::Cost(_))
    }

    /// Install (or replace) the cost model; charging switches to it.
    pub fn set_cost(&mut self, cost: LinearCost) {
        self.charge = Charge::Cost(cost);
    }

    /// The charge for `r`, in sectors or sector-equivalents (at least 1),
    /// from where its flow is now; the position does not move.
    pub fn peek(&self, r: &Request) -> u64 {
        match &self.charge {
            Charge::Sectors => u64::from(r.sectors),
            Charge::Cost(model) => {
                let threshold = (model.seq_threshold_kib * 2.0) as u64;
                let sequential = self
                    .last_end
                    .get(&r.flow)
                    .is_some_and(|&end| r.sector.abs_diff(end) <= threshold);
                let per_sector = (model.per_kib_us / 2.0).max(1e-6);
                let us = model.cost_us(r.dir, sequential, r.sectors);
                ((us / per_sector).round() as u64).max(1)
            }
        }
    }

    /// `r` was charged: its flow's position moves to its end.
    pub fn advance(&mut self, r: &Request) {
        if self.by_cost() {
            self.last_end.insert(r.flow, r.end());
        }
    }

    /// [`peek`](Self::peek) then [`advance`](Self::advance): call once per
    /// request, in the order the flow's requests are charged.
    pub fn charge(&mut self, r: &Request) -> u64 {
        let c = self.peek(r);
        self.advance(r);
        c
    }

    /// What the sectors `merged` gained over `old` (the block layer merged
    /// an arrival into it) add to `old`'s charge: the model's cost of
    /// them, in the charge's units. The model is linear and merging does
    /// not make a request sequential or random, so `old`'s charge plus
    /// this is the model's charge of `merged` (by sectors: the sectors
    /// added; by a model without a per-KiB cost: nothing, where adding
    /// raw sectors once made a merged request cost many requests).
    pub fn growth(&self, old: &Request, merged: &Request) -> u64 {
        let added = merged.sectors.saturating_sub(old.sectors);
        match &self.charge {
            Charge::Sectors => u64::from(added),
            Charge::Cost(model) => {
                let per_sector = (model.per_kib_us / 2.0).max(1e-6);
                let us = model.per_kib_us * f64::from(added) * SECTOR_BYTES as f64 / 1024.0;
                (us / per_sector).round() as u64
            }
        }
    }

    /// [`growth`](Self::growth) in I/Os, as [`ios`](Self::ios) counts
    /// them (0 by sectors: a request is one I/O whatever its size).
    pub fn ios_growth(&self, old: &Request, merged: &Request) -> f64 {
        match &self.charge {
            Charge::Sectors => 0.0,
            Charge::Cost(model) => {
                let unit = model.cost_us(Direction::Read, false, 8).max(1e-6);
                let per_sector = (model.per_kib_us / 2.0).max(1e-6);
                self.growth(old, merged) as f64 * per_sector / unit
            }
        }
    }

    /// Forget a flow's position (it is gone).
    pub fn forget(&mut self, flow: FlowId) {
        self.last_end.remove(&flow);
    }

    /// The charge for `r` in I/Os: 1 by sectors (mClock's own unit), the
    /// cost over a 4 KiB random read's by the cost model.
    pub fn ios(&mut self, r: &Request) -> f64 {
        match &self.charge {
            Charge::Sectors => 1.0,
            Charge::Cost(model) => {
                let unit = model.cost_us(Direction::Read, false, 8).max(1e-6);
                let per_sector = (model.per_kib_us / 2.0).max(1e-6);
                self.charge(r) as f64 * per_sector / unit
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::RequestId;
    use crate::Instant;

    fn read(flow: u32, sector: u64, sectors: u32) -> Request {
        Request {
            id: RequestId(0),
            origin: RequestId(0),
            flow: FlowId(flow),
            dir: Direction::Read,
            sync: true,
            sector,
            sectors,
            arrival: Instant::ZERO,
        }
    }

    #[test]
    fn the_kernels_hdd_model_round_trips_through_its_line() {
        let m = LinearCost::default();
        assert!((m.per_kib_us - 5.884).abs() < 0.001, "{m:?}");
        assert!((m.read_rand_us - 2679.2).abs() < 0.1, "{m:?}");
        // wseqiops 42705 is cheaper than its page cost: base 0, as the kernel.
        assert_eq!(m.write_seq_us, 0.0);
        let line = m.iocost_line(8, 0);
        assert!(
            line.starts_with(
                "8:0 ctrl=user model=linear rbps=174019176 rseqiops=41708 rrandiops=370 "
            ),
            "{line}"
        );
        assert!(line.ends_with("wrandiops=378"), "{line}");
    }

    #[test]
    fn a_seek_costs_more_than_a_sequential_step_and_size_counts() {
        let mut c = Charger::new(Charge::Cost(LinearCost::default()));
        let first = c.charge(&read(0, 0, 8)); // no history: random
        let next = c.charge(&read(0, 8, 8)); // right after: sequential
        let far = c.charge(&read(0, 1 << 30, 8)); // 512 GiB away: random
        let big = c.charge(&read(0, (1 << 30) + 8, 256)); // 128 KiB, sequential
        assert!(first > 100 * next, "{first} {next}");
        assert_eq!(first, far);
        assert!(big > 25 * next && big < first, "{big} {next} {first}");
        // By sectors, only the size counts.
        let mut s = Charger::sectors();
        assert_eq!(
            (s.charge(&read(0, 0, 8)), s.charge(&read(0, 1 << 30, 8))),
            (8, 8)
        );
    }

    #[test]
    fn flows_keep_their_own_positions() {
        let mut c = Charger::new(Charge::Cost(LinearCost::default()));
        c.charge(&read(0, 0, 8));
        c.charge(&read(1, 1 << 30, 8));
        // Flow 0 continues where it was, though flow 1 moved in between.
        assert!(c.charge(&read(0, 8, 8)) < 100);
    }

    /// Issue 43 defect 10: a merged request is charged as the model
    /// charges the merged request, not its raw sectors added to a
    /// clamped charge.
    #[test]
    fn a_merged_request_is_charged_as_the_model_charges_it() {
        let grown = |c: &Charger, old: &Request, merged: &Request| {
            let mut fresh = c.clone();
            let charged = fresh.charge(old);
            (charged + c.growth(old, merged), c.clone().charge(merged))
        };
        let (old, merged) = (read(0, 0, 8), read(0, 0, 264));
        for c in [
            Charger::sectors(),
            Charger::new(Charge::Cost(LinearCost::default())),
        ] {
            let (sum, direct) = grown(&c, &old, &merged);
            assert_eq!(sum, direct, "{:?}", c.charge);
        }
        // Per request only: the merged request costs what the old one did.
        let per_request = LinearCost {
            per_kib_us: 0.0,
            ..LinearCost::default()
        };
        let c = Charger::new(Charge::Cost(per_request));
        assert_eq!(grown(&c, &old, &merged), grown(&c, &old, &old));
        assert_eq!(c.growth(&old, &merged), 0);
        assert_eq!(c.ios_growth(&old, &merged), 0.0);
        // In I/Os, by the default model: the added 128 KiB of transfer.
        let c = Charger::new(Charge::Cost(LinearCost::default()));
        let m = LinearCost::default();
        let want = 128.0 * m.per_kib_us / m.cost_us(Direction::Read, false, 8);
        assert!((c.ios_growth(&old, &merged) - want).abs() < 1e-3 * want);
    }

    #[test]
    fn ios_are_relative_to_a_random_4k_read() {
        let mut c = Charger::new(Charge::Cost(LinearCost::default()));
        assert!((c.ios(&read(0, 0, 8)) - 1.0).abs() < 0.01);
        assert!(c.ios(&read(0, 8, 8)) < 0.02);
        assert_eq!(Charger::sectors().ios(&read(0, 0, 256)), 1.0);
    }
}
