//! The engine's thread: it owns the io_uring engine (hence the policy),
//! takes the file system's requests from a channel, and answers each FUSE
//! reply when its request completes. The FUSE thread never waits for I/O;
//! it rings the engine's doorbell after each message.
//!
//! Reads go to an `O_DIRECT` descriptor of the file, widened to whole 4 KiB
//! blocks (the widest logical block a device has), so what the policy
//! dispatches is what reaches the device below, nothing cached on the way.
//! Writes of whole aligned blocks go there too; other writes go to a
//! buffered descriptor of the same file (the kernel keeps the two
//! coherent: a direct read first writes back the dirty pages it covers).
//! Where the file system below refuses `O_DIRECT` (tmpfs), both are
//! buffered.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};

use fuser::{Errno, ReplyData, ReplyWrite};
use sluice::{Direction, FlowId, RequestId, Scheduler};
use sluice_runtime::request_log::RequestRecord;
use sluice_uring::{AlignedBuf, Completion, Engine, Submission, TargetId, Wait};

use crate::attribution::NewFlow;
use crate::stats::{FlowStats, Tally};

/// Alignment of direct I/O: the widest logical block size.
pub(crate) const BLOCK: u64 = 4096;

/// What the file system hands the engine's thread.
pub(crate) enum Work {
    /// A flow seen for the first time (before its first request).
    Flow(NewFlow),
    /// A file was opened: `direct` (`O_DIRECT`, if the file system below
    /// allows it) and `buffered` descriptors of it.
    Open {
        fh: u64,
        direct: Option<File>,
        buffered: File,
        path: PathBuf,
    },
    /// The kernel let go of a file handle.
    Release { fh: u64 },
    /// A flow's process exited: remove it from the policy once idle.
    Gone(FlowId),
    Read {
        fh: u64,
        flow: FlowId,
        offset: u64,
        size: u32,
        reply: ReplyData,
    },
    Write {
        fh: u64,
        flow: FlowId,
        offset: u64,
        data: Vec<u8>,
        reply: ReplyWrite,
    },
}

/// A file handle's targets in the engine.
struct Handle {
    direct: Option<TargetId>,
    buffered: TargetId,
}

/// A request in the engine, and what to answer when it completes.
enum Waiting {
    Read {
        reply: ReplyData,
        /// Bytes of the widened read before the ones asked for.
        skip: usize,
        size: usize,
    },
    Write {
        reply: ReplyWrite,
    },
}

/// A flow's totals.
enum Record {
    Live(Tally),
    /// Its process exited and the flow was removed.
    Done(FlowStats),
}

/// What the engine's thread keeps between messages.
pub(crate) struct Server {
    engine: Engine<Box<dyn Scheduler>>,
    handles: HashMap<u64, Handle>,
    waiting: HashMap<RequestId, Waiting>,
    /// Targets of released handles with requests still pending.
    closing: Vec<TargetId>,
    /// Flows of exited processes with requests still pending.
    retiring: Vec<FlowId>,
    /// Each flow's totals by id: running, or final once it was removed.
    tallies: Vec<Record>,
    log: Option<std::io::BufWriter<File>>,
    names: Vec<String>,
}

fn errno(e: &std::io::Error) -> Errno {
    Errno::from_i32(e.raw_os_error().unwrap_or(libc::EIO))
}

impl Server {
    pub(crate) fn new(engine: Engine<Box<dyn Scheduler>>, log: Option<File>) -> Self {
        let log = log.map(|f| {
            let mut w = std::io::BufWriter::new(f);
            let _ = writeln!(w, "{}", RequestRecord::CSV_HEADER);
            w
        });
        Server {
            engine,
            handles: HashMap::new(),
            waiting: HashMap::new(),
            closing: Vec::new(),
            retiring: Vec::new(),
            tallies: Vec::new(),
            log,
            names: Vec::new(),
        }
    }

    /// Serve until the file system is gone (the channel closes) and every
    /// request taken has been answered. An engine failure (the ring
    /// itself) ends it; requests still waiting are answered EIO as their
    /// replies drop.
    pub(crate) fn run(
        &mut self,
        rx: &Receiver<Work>,
        stop: &AtomicBool,
    ) -> Result<(), sluice_uring::Error> {
        let mut open = true;
        loop {
            open &= !stop.load(Ordering::SeqCst);
            while open {
                match rx.try_recv() {
                    Ok(work) => self.take(work),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => open = false,
                }
            }
            if !open && self.engine.pending() == 0 {
                break;
            }
            // Blocks until a completion, the policy's wake-up or the doorbell.
            self.engine.poll(Wait::Any)?;
            while let Some(c) = self.engine.next_completion() {
                self.answer(c);
            }
            self.closing
                .retain(|&t| self.engine.close_target(t).is_err());
            self.retire();
        }
        if let Some(log) = &mut self.log {
            let _ = log.flush();
        }
        Ok(())
    }

    fn take(&mut self, work: Work) {
        match work {
            Work::Flow(f) => {
                // Flow ids are handed out in order, each added once.
                let _ = self.engine.add_flow(f.id, &f.config);
                self.names.push(f.name.clone());
                self.tallies.push(Record::Live(Tally::new(f.name, f.class)));
            }
            Work::Open {
                fh,
                direct,
                buffered,
                path,
            } => {
                let direct = direct.and_then(|f| self.engine.adopt_target(f, &path).ok());
                match self.engine.adopt_target(buffered, &path) {
                    Ok(buffered) => {
                        self.handles.insert(fh, Handle { direct, buffered });
                    }
                    Err(_) => self.closing.extend(direct),
                }
            }
            Work::Gone(flow) => {
                self.retiring.push(flow);
                self.retire();
            }
            Work::Release { fh } => {
                if let Some(h) = self.handles.remove(&fh) {
                    self.closing.extend(h.direct);
                    self.closing.push(h.buffered);
                    self.closing
                        .retain(|&t| self.engine.close_target(t).is_err());
                }
            }
            Work::Read {
                fh,
                flow,
                offset,
                size,
                reply,
            } => {
                let Some(h) = self.handles.get(&fh) else {
                    return reply.error(Errno::EBADF);
                };
                let (target, start, len) = match h.direct {
                    Some(t) => {
                        let start = offset / BLOCK * BLOCK;
                        let end = (offset + u64::from(size)).div_ceil(BLOCK) * BLOCK;
                        (t, start, end - start)
                    }
                    None => (h.buffered, offset, u64::from(size)),
                };
                let sub = Submission::read(flow, target, start, AlignedBuf::zeroed(len as usize));
                match self.engine.submit(sub) {
                    Ok(id) => {
                        let skip = (offset - start) as usize;
                        self.waiting.insert(
                            id,
                            Waiting::Read {
                                reply,
                                skip,
                                size: size as usize,
                            },
                        );
                    }
                    Err(_) => reply.error(Errno::EIO),
                }
            }
            Work::Write {
                fh,
                flow,
                offset,
                data,
                reply,
            } => {
                let Some(h) = self.handles.get(&fh) else {
                    return reply.error(Errno::EBADF);
                };
                let aligned =
                    offset.is_multiple_of(BLOCK) && (data.len() as u64).is_multiple_of(BLOCK);
                let target = match h.direct {
                    Some(t) if aligned => t,
                    _ => h.buffered,
                };
                // The writer waits for the answer: a synchronous write, as
                // the kernel marks O_DIRECT writes.
                let sub = Submission::write(flow, target, offset, AlignedBuf::from_slice(&data))
                    .sync(true);
                match self.engine.submit(sub) {
                    Ok(id) => {
                        self.waiting.insert(id, Waiting::Write { reply });
                    }
                    Err(_) => reply.error(Errno::EIO),
                }
            }
        }
    }

    fn answer(&mut self, c: Completion) {
        if let Some(Record::Live(t)) = self.tallies.get_mut(c.flow.0 as usize) {
            t.record(
                c.dir,
                c.result.as_ref().ok().copied(),
                c.arrival,
                c.completed,
            );
        }
        if let Some(log) = &mut self.log {
            let record = RequestRecord {
                flow: c.flow.0,
                thread: 0,
                write: c.dir == Direction::Write,
                sync: true,
                sector: c.offset / sluice::SECTOR_BYTES,
                sectors: c.buf.len().div_ceil(sluice::SECTOR_BYTES as usize) as u32,
                arrival: c.arrival,
                dispatched: c.dispatched,
                completed: c.completed,
            };
            let name = record.flow_name(&self.names);
            let _ = writeln!(log, "{}", record.csv(name));
        }
        match (self.waiting.remove(&c.id), c.result) {
            (None, _) => {}
            (Some(Waiting::Read { reply, .. }), Err(e)) => reply.error(errno(&e)),
            (Some(Waiting::Write { reply }), Err(e)) => reply.error(errno(&e)),
            (Some(Waiting::Read { reply, skip, size }), Ok(n)) => {
                let end = n.min(skip + size);
                reply.data(if end > skip { &c.buf[skip..end] } else { &[] });
            }
            (Some(Waiting::Write { reply }), Ok(n)) => reply.written(n as u32),
        }
    }

    /// Remove the flows of exited processes that have nothing pending; a
    /// removed flow's totals are kept as a summary (no histogram).
    fn retire(&mut self) {
        let (engine, tallies) = (&mut self.engine, &mut self.tallies);
        self.retiring.retain(|&flow| {
            if engine.remove_flow(flow).is_err() {
                return true;
            }
            if let Some(r) = tallies.get_mut(flow.0 as usize) {
                if let Record::Live(t) = r {
                    *r = Record::Done(FlowStats {
                        exited: true,
                        ..t.summary()
                    });
                }
            }
            false
        });
    }

    /// What the engine's thread hands back when it ends.
    pub(crate) fn finish(self) -> Served {
        Served {
            scheduler: self.engine.policy().name().to_string(),
            flows: self
                .tallies
                .iter()
                .map(|r| match r {
                    Record::Live(t) => t.summary(),
                    Record::Done(s) => s.clone(),
                })
                .collect(),
            policy_stats: self.engine.policy().stats().by_key(),
        }
    }
}

/// What was served: the policy's name, each flow's totals in the order
/// the flows appeared, and the policy's counters by report key.
pub(crate) struct Served {
    pub scheduler: String,
    pub flows: Vec<FlowStats>,
    pub policy_stats: std::collections::BTreeMap<String, f64>,
}
