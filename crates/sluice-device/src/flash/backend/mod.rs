//! The flash back end and its scheduler, as MQSim's out-of-order
//! transaction scheduling unit (`TSU_OutOfOrder`, `TSU_Base`) and ONFI
//! controller (`NVM_PHY_ONFI_NVDDR2`) run them:
//!
//! - per chip, a queue per kind of work: user reads and writes (one per
//!   NVMe priority class under `PRIORITY_OUT_OF_ORDER`), mapping reads,
//!   GC reads, writes and erases;
//! - when a channel falls idle, its chips are offered work in round-robin
//!   order until one command occupies the channel; a chip takes a command
//!   only when idle (MQSim's suspension code falls through to a refusal, so
//!   a busy chip is never interrupted), reads before writes before erases;
//! - a command goes to one die: the first queued transaction's die, plus
//!   transactions of that die's other planes at the same page (a
//!   multi-plane command);
//! - a read holds the channel for its command cycles, the array for the
//!   read, then the channel again for each page's data; a program holds
//!   the channel for command and data, then the array.
//!
//! Garbage collection is non-preemptive unless configured otherwise: its
//! queues go first whenever `Preemptible_GC_Enabled` is false, as in MQSim.

pub(crate) mod state;

use self::state::*;
use super::device::{Event, Parts};
use super::work::{Op, Source};
use std::collections::VecDeque;

impl Parts {
    fn chip_of(&self, tx: u32) -> usize {
        self.ftl
            .txs
            .get(tx)
            .map_or(0, |t| self.geo.chip_of_plane(t.plane as usize))
    }

    /// Put a placed transaction in its chip's queue.
    pub(crate) fn enqueue(&mut self, tx: u32) {
        let Some(t) = self.ftl.txs.get(tx) else {
            return;
        };
        let class = if self.backend.prioritised {
            usize::from(t.priority.min(3))
        } else {
            0
        };
        let (op, source) = (t.op, t.source);
        let chip = self.chip_of(tx);
        let ch = self.geo.channel_of_chip(chip);
        self.backend.channels[ch].queued += 1;
        self.mark_fresh(ch);
        let q = &mut self.backend.chips[chip].queues;
        q.queued += 1;
        match (op, source) {
            (Op::Read, Source::Mapping) => q.mapping_read.push_back(tx),
            (Op::Read, Source::Gc) => q.gc_read.push_back(tx),
            (Op::Read, _) => q.user_read[class].push_back(tx),
            (Op::Write, Source::Gc) => q.gc_write.push_back(tx),
            (Op::Write, _) => q.user_write[class].push_back(tx),
            (Op::Erase, _) => q.gc_erase.push_back(tx),
        }
    }

    /// Note that channel `ch` has new work (or work that became ready).
    pub(crate) fn mark_fresh(&mut self, ch: usize) {
        self.backend.fresh |= if ch < 64 { 1 << ch } else { u64::MAX };
    }

    /// Offer work to every idle channel's chips (`TSU::Schedule`). Only
    /// channels with new work can take any: on the others, every idle
    /// chip was offered its work when the channel last fell idle, and a
    /// round that finds nothing leaves the turn where it was.
    pub(crate) fn schedule(&mut self) {
        let fresh = std::mem::take(&mut self.backend.fresh);
        let channels = self.backend.channels.len();
        for ch in 0..channels {
            if (ch >= 64 || fresh & (1 << ch) != 0) && !self.backend.channels[ch].busy {
                self.offer_channel(ch);
            }
        }
    }

    /// Round-robin over a channel's chips until one takes a command.
    fn offer_channel(&mut self, ch: usize) {
        if self.backend.channels[ch].queued == 0 {
            return;
        }
        let n = self.backend.chips_per_channel;
        for _ in 0..n {
            let turn = self.backend.channels[ch].turn;
            let chip = ch * n as usize + turn as usize;
            self.offer_chip(chip);
            self.backend.channels[ch].turn = (turn + 1) % n;
            if self.backend.channels[ch].busy {
                break;
            }
        }
    }

    /// GC goes first when it is not preemptible, or when a plane of the
    /// chip is nearly out of free blocks.
    fn gc_urgent(&self, chip: usize) -> bool {
        if !self.backend.preemptible_gc {
            return true;
        }
        let per_chip = (self.geo.dies * self.geo.planes) as usize;
        (chip * per_chip..(chip + 1) * per_chip)
            .any(|p| self.ftl.blocks.free_blocks(p) < self.ftl.blocks.gc_hard_threshold)
    }

    fn user_class(q: &[VecDeque<u32>; 4]) -> Option<usize> {
        (0..4).find(|&c| !q[c].is_empty())
    }

    /// Give chip `chip` a command if it is idle and has work.
    fn offer_chip(&mut self, chip: usize) {
        let c = &self.backend.chips[chip];
        if c.status != Status::Idle || c.queues.queued == 0 {
            return;
        }
        let urgent = self.gc_urgent(chip);
        let q = &self.backend.chips[chip].queues;
        let user_read = Self::user_class(&q.user_read).map(Pick::UserRead);
        let user_write = Self::user_class(&q.user_write).map(Pick::UserWrite);
        // Reads (`service_read_transaction`).
        let read = if !q.mapping_read.is_empty() {
            let second = if urgent && !q.gc_read.is_empty() {
                Some(Pick::GcRead)
            } else {
                user_read
            };
            Some((Pick::MappingRead, second))
        } else if urgent {
            if !q.gc_read.is_empty() {
                Some((Pick::GcRead, user_read))
            } else if !q.gc_write.is_empty() || !q.gc_erase.is_empty() {
                None
            } else {
                user_read.map(|p| (p, None))
            }
        } else if let Some(p) = user_read {
            Some((p, (!q.gc_read.is_empty()).then_some(Pick::GcRead)))
        } else if user_write.is_some() {
            None
        } else {
            (!q.gc_read.is_empty()).then_some((Pick::GcRead, None))
        };
        if let Some((first, second)) = read {
            if self.issue(chip, first, second, Op::Read) {
                return;
            }
        }
        // Writes (`service_write_transaction`).
        let q = &self.backend.chips[chip].queues;
        let write = if urgent {
            if !q.gc_write.is_empty() {
                Some((Pick::GcWrite, user_write))
            } else if !q.gc_erase.is_empty() {
                None
            } else {
                user_write.map(|p| (p, None))
            }
        } else if let Some(p) = user_write {
            Some((p, (!q.gc_write.is_empty()).then_some(Pick::GcWrite)))
        } else {
            (!q.gc_write.is_empty()).then_some((Pick::GcWrite, None))
        };
        if let Some((first, second)) = write {
            if self.issue(chip, first, second, Op::Write) {
                return;
            }
        }
        if !self.backend.chips[chip].queues.gc_erase.is_empty() {
            self.issue(chip, Pick::GcErase, None, Op::Erase);
        }
    }

    fn queue_mut(&mut self, chip: usize, p: Pick) -> &mut VecDeque<u32> {
        let q = &mut self.backend.chips[chip].queues;
        match p {
            Pick::UserRead(c) => &mut q.user_read[c],
            Pick::UserWrite(c) => &mut q.user_write[c],
            Pick::MappingRead => &mut q.mapping_read,
            Pick::GcRead => &mut q.gc_read,
            Pick::GcWrite => &mut q.gc_write,
            Pick::GcErase => &mut q.gc_erase,
        }
    }

    /// A transaction may go: a write once its update read is done, an
    /// erase once its pages are moved.
    fn ready(&self, tx: u32) -> bool {
        self.ftl.txs.get(tx).is_some_and(|t| match t.op {
            Op::Read => true,
            Op::Write => t.related == super::work::NONE || t.source == Source::Gc,
            Op::Erase => t.moves == 0,
        })
    }

    /// `issue_command_to_chip`: one die, as many planes as match.
    fn issue(&mut self, chip: usize, first: Pick, second: Option<Pick>, op: Op) -> bool {
        let Some(&head) = self.queue_mut(chip, first).front() else {
            return false;
        };
        let Some((die, page)) = self
            .ftl
            .txs
            .get(head)
            .map(|t| (self.geo.die_of_plane(t.plane as usize), t.page))
        else {
            return false;
        };
        let planes = self.geo.planes as usize;
        let mut taken = std::mem::take(&mut self.backend.chips[chip].active);
        taken.clear();
        let mut plane_mask = 0u32;
        for pick in std::iter::once(first).chain(second) {
            if taken.len() >= planes {
                break;
            }
            let mut queue = std::mem::take(self.queue_mut(chip, pick));
            queue.retain(|&tx| {
                let fits = taken.len() < planes
                    && self.ready(tx)
                    && self.ftl.txs.get(tx).is_some_and(|t| {
                        let p = t.plane as usize;
                        self.geo.die_of_plane(p) == die
                            && plane_mask & (1 << self.geo.plane_in_die(p)) == 0
                            && (plane_mask == 0 || t.page == page)
                    });
                if fits {
                    if let Some(t) = self.ftl.txs.get(tx) {
                        plane_mask |= 1 << self.geo.plane_in_die(t.plane as usize);
                    }
                    taken.push(tx);
                }
                !fits
            });
            *self.queue_mut(chip, pick) = queue;
        }
        if taken.is_empty() {
            self.backend.chips[chip].active = taken;
            return false;
        }
        let n = taken.len().min(4);
        let first_page = self.ftl.txs.get(taken[0]).map_or(0, |t| t.page);
        let (channel_ns, array_ns) = match op {
            Op::Read => (self.t.read_command[n], self.t.read_latency(first_page)),
            Op::Write => {
                let data: u64 = taken
                    .iter()
                    .filter_map(|&tx| self.ftl.txs.get(tx))
                    .map(|t| self.t.transfer(u64::from(t.bytes)))
                    .sum();
                (
                    self.t.program_command[n] + data,
                    self.t.program_latency(first_page),
                )
            }
            Op::Erase => (self.t.erase_command[n], self.t.erase),
        };
        let ch = self.geo.channel_of_chip(chip);
        self.backend.channels[ch].busy = true;
        self.backend.channels[ch].queued -= taken.len() as u32;
        let c = &mut self.backend.chips[chip];
        c.queues.queued -= taken.len() as u32;
        c.status = Status::CommandIn;
        c.op = op;
        c.active = taken;
        c.array_ns = array_ns;
        let at = self.now + channel_ns;
        self.at(at, Event::CommandSent(chip as u32));
        true
    }

    pub(crate) fn command_sent(&mut self, chip: usize) {
        let c = &mut self.backend.chips[chip];
        c.status = Status::Busy;
        let at = self.now + c.array_ns;
        self.at(at, Event::ArrayDone(chip as u32));
        let ch = self.geo.channel_of_chip(chip);
        self.channel_idle(ch);
    }

    pub(crate) fn array_done(&mut self, chip: usize) {
        let ch = self.geo.channel_of_chip(chip);
        let op = self.backend.chips[chip].op;
        if op == Op::Read {
            self.backend.chips[chip].status = Status::DataOut;
            let n = self.backend.chips[chip].active.len();
            self.backend.chips[chip].to_move_out = n as u32;
            for i in 0..n {
                let tx = self.backend.chips[chip].active[i];
                if self.backend.channels[ch].busy {
                    let family = match self.ftl.txs.get(tx).map(|t| t.source) {
                        Some(Source::Mapping) => 0,
                        Some(Source::Gc) => 2,
                        _ => 1,
                    };
                    self.backend.channels[ch].waiting_out[family].push_back((chip as u32, tx));
                } else {
                    self.move_out(chip, tx);
                }
            }
        } else {
            let mut active = std::mem::take(&mut self.backend.chips[chip].active);
            for &tx in &active {
                self.tx_done(tx);
            }
            active.clear();
            self.backend.chips[chip].active = active;
            self.backend.chips[chip].status = Status::Idle;
        }
        if !self.backend.channels[ch].busy {
            self.offer_channel(ch);
        }
    }

    /// Move a read page's data out over the channel.
    fn move_out(&mut self, chip: usize, tx: u32) {
        let bytes = self.ftl.txs.get(tx).map_or(0, |t| u64::from(t.bytes));
        let ch = self.geo.channel_of_chip(chip);
        self.backend.channels[ch].busy = true;
        let at = self.now + self.t.transfer(bytes);
        self.at(at, Event::DataOut(chip as u32, tx));
    }

    pub(crate) fn data_out_done(&mut self, chip: usize, tx: u32) {
        self.tx_done(tx);
        let c = &mut self.backend.chips[chip];
        c.active.retain(|&t| t != tx);
        c.to_move_out = c.to_move_out.saturating_sub(1);
        if c.to_move_out == 0 {
            c.status = Status::Idle;
        }
        let ch = self.geo.channel_of_chip(chip);
        self.channel_idle(ch);
    }

    /// The channel is free: waiting read data first, then new commands.
    fn channel_idle(&mut self, ch: usize) {
        self.backend.channels[ch].busy = false;
        for family in 0..3 {
            if let Some((chip, tx)) = self.backend.channels[ch].waiting_out[family].pop_front() {
                self.move_out(chip as usize, tx);
                return;
            }
        }
        self.offer_channel(ch);
    }

    /// A transaction finished: tell whoever waits for it.
    fn tx_done(&mut self, tx: u32) {
        match self.ftl.txs.get(tx).map(|t| t.source) {
            Some(Source::User) | Some(Source::Cache) => self.cache_tx_done(tx),
            Some(Source::Mapping) => self.translation_arrived(tx),
            Some(Source::Gc) => self.gc_tx_done(tx),
            None => {}
        }
    }
}
