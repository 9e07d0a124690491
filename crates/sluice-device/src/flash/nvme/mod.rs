//! The host interface: one NVMe submission queue per flow (or, for SATA,
//! one native command queue of 32 shared by all), fetched by the drive
//! over PCIe as MQSim's `Host_Interface_NVMe` fetches it: a doorbell lets
//! the drive fetch one entry if fewer than `Queue_Fetch_Size` of that
//! queue are under way, and each finished request lets it fetch the next
//! waiting one. A request is split into page-sized transactions
//! (`segment_user_request`) when its entry (a read) or its data (a write)
//! has arrived.

pub(crate) mod state;

use self::state::*;
use super::device::{Event, Parts};
use super::pcie::{Message, Toward, CQE_BYTES, DOORBELL_BYTES, SQE_BYTES};
use super::work::{Op, Request, Source, Tx, NONE};
use crate::mqsim::SECTOR_BYTES;
use crate::Command;

impl Parts {
    /// The host writes `cmd` into its flow's queue and rings the doorbell.
    pub(crate) fn submit(&mut self, cmd: Command) {
        let q = self.host.queue_of(cmd.flow);
        if self.host.queues.len() <= q {
            self.host.queues.resize_with(q + 1, Queue::default);
        }
        self.host.queues[q].entries.push_back(cmd);
        let mut at = self
            .host
            .link
            .send(self.now, Toward::Device, Message::Data(DOORBELL_BYTES));
        if self.host.sata {
            at += self.host.sata_delay;
        }
        // The doorbell is handled as it is written, its fetch booked from
        // when it reaches the drive: one event less per request (MQSim
        // decides at the arrival, a few ns later).
        let queue = &mut self.host.queues[q];
        queue.rung += 1;
        if queue.under_way < self.host.fetch_size {
            self.fetch(q as u32, at);
        }
    }

    /// Fetch queue `q`'s next entry: a read request to host memory sent at
    /// `from`.
    fn fetch(&mut self, q: u32, from: u64) {
        let queue = &mut self.host.queues[q as usize];
        let Some(cmd) = queue.entries.pop_front() else {
            return;
        };
        queue.under_way += 1;
        queue.fetched += 1;
        let r = self.host.requests.insert(Request {
            tag: cmd.tag,
            stream: cmd.flow,
            write: cmd.write,
            lba: cmd.lbn,
            sectors: cmd.sectors.max(1),
            waiting: Vec::new(),
            in_flash: 0,
            in_dram: 0,
        });
        let at = self.read_host_memory(from, SQE_BYTES);
        self.at(at, Event::Sqe(r));
    }

    /// The drive reads `bytes` of host memory: a read request goes up, the
    /// host answers at once with the data; returns when the data is in the
    /// drive. Both legs are booked now (MQSim books the answer when the
    /// request arrives, a few ns later; a doorbell written in between
    /// would go first there, a difference of one small message).
    fn read_host_memory(&mut self, from: u64, bytes: u64) -> u64 {
        let asked = self
            .host
            .link
            .send(from, Toward::Host, Message::ReadRequest);
        self.host
            .link
            .send(asked, Toward::Device, Message::Data(bytes))
    }

    pub(crate) fn sqe_arrived(&mut self, r: u32) {
        let Some(req) = self.host.requests.get(r) else {
            return;
        };
        if req.write {
            let bytes = u64::from(req.sectors) * u64::from(SECTOR_BYTES);
            let at = self.read_host_memory(self.now, bytes);
            self.at(at, Event::WriteData(r));
        } else {
            let txs = self.segment(r);
            self.cache_read(r, txs);
        }
    }

    pub(crate) fn write_data_arrived(&mut self, r: u32) {
        let txs = self.segment(r);
        self.cache_write(r, txs);
    }

    /// Split request `r` into one transaction per page it touches, in the
    /// flow's own page numbering (MQSim's per-flow address domains).
    fn segment(&mut self, r: u32) -> Vec<u32> {
        let Some(req) = self.host.requests.get(r) else {
            return Vec::new();
        };
        let (stream, write, lba, sectors) = (req.stream, req.write, req.lba, req.sectors);
        let (_, priority, first) = self.spec.stream_basics(stream as usize);
        let priority = priority as u8;
        let per_page = u64::from(self.geo.page_sectors);
        let mut lsa = lba.saturating_sub(first);
        let mut done = 0u32;
        let mut txs = self.list();
        while done < sectors {
            let offset = lsa % per_page;
            let size = (per_page - offset).min(u64::from(sectors - done));
            let bits = if size >= 64 {
                u64::MAX
            } else {
                (1u64 << size) - 1
            } << offset;
            let tx = Tx {
                op: if write { Op::Write } else { Op::Read },
                source: Source::User,
                stream,
                lpa: lsa / per_page,
                sectors: bits,
                bytes: size as u32 * SECTOR_BYTES,
                request: r,
                plane: 0,
                block: 0,
                page: 0,
                related: NONE,
                moves: 0,
                stamp: self.now,
                priority,
            };
            txs.push(self.ftl.txs.insert(tx));
            lsa += size;
            done += size as u32;
        }
        txs
    }

    /// Whether request `r` has nothing left under way.
    pub(crate) fn request_finished(&self, r: u32) -> bool {
        self.host
            .requests
            .get(r)
            .is_some_and(|q| q.in_flash == 0 && q.in_dram == 0 && q.waiting.is_empty())
    }

    /// Request `r` is done in the drive: its data (a read) and its
    /// completion entry go to the host, and the queue may fetch again.
    pub(crate) fn request_serviced(&mut self, r: u32) {
        let Some(req) = self.host.requests.remove(r) else {
            return;
        };
        let q = self.host.queue_of(req.stream);
        if !req.write {
            let bytes = u64::from(req.sectors) * u64::from(SECTOR_BYTES);
            self.host
                .link
                .send(self.now, Toward::Host, Message::Data(bytes));
        }
        let queue = &mut self.host.queues[q];
        queue.under_way = queue.under_way.saturating_sub(1);
        if queue.rung > queue.fetched {
            self.fetch(q as u32, self.now);
        }
        let at = self
            .host
            .link
            .send(self.now, Toward::Host, Message::Data(CQE_BYTES));
        self.arriving.push_back((at, req.tag));
    }

    pub(crate) fn cqe_arrived(&mut self, tag: u64) {
        self.done.push_back(tag);
        // The host moves the completion queue's head: one more doorbell.
        self.host
            .link
            .send(self.now, Toward::Device, Message::Data(DOORBELL_BYTES));
    }

    /// A flash transaction of request `r` finished.
    pub(crate) fn request_tx_done(&mut self, r: u32) {
        if let Some(req) = self.host.requests.get_mut(r) {
            req.in_flash = req.in_flash.saturating_sub(1);
        }
        if self.request_finished(r) {
            self.request_serviced(r);
        }
    }
}
