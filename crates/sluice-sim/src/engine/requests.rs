//! The simulator's side of the population: its [`Backend`] hands each
//! request to the driver in virtual time, numbering requests and the
//! application requests their fragments belong to, and remembers which
//! are still pending (for a starved flow's oldest unserved request).
//! Buffered flows' requests (`direct = false`) go to the page cache
//! instead ([`Os`]), which sends the driver its own: a request's
//! fragments reach the cache as one extent (one write() or read() of the
//! whole request), since the page cache copies pages, not fragments.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use sluice::{
    Direction, Driver, FlowConfig, FlowId, IdMap, Instant, Request, RequestId, Scheduler,
};
use sluice_runtime::Backend;
use sluice_workload::{FlowSpec, Issue};

use crate::os::{self, Op, Out, PageCache};

/// The scheduler flow of writeback whose writer is gone (its process was
/// replaced): the root flusher (no population flow has this id). Other
/// writeback is issued in its writer's name.
pub(super) const FLUSHER: FlowId = FlowId(u32::MAX);

/// The page cache of buffered flows and what the host keeps around it.
pub(crate) struct Os {
    pub cache: PageCache,
    /// Driver requests the cache asked for: request id -> the cache's id.
    ios: BTreeMap<u64, u64>,
    /// Application requests in the cache: token -> what to report.
    apps: BTreeMap<u64, App>,
    /// Application requests the cache completes, to schedule: (at, token).
    pub due: Vec<(Instant, u64)>,
    /// The request whose fragments are being gathered, not yet handed to
    /// the cache.
    open: Option<Extent>,
    /// Threads whose process was replaced: their writeback goes out as
    /// the flusher's.
    retired: BTreeSet<u32>,
}

/// A buffered request gathered from its fragments.
#[derive(Clone, Copy, Debug)]
struct Extent {
    op: Op,
    write: bool,
    /// A write() and fsync() (its last fragment asks for the fsync).
    flush: bool,
}

/// A buffered flow's request, as its flow will be told of it: once per
/// fragment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct App {
    pub thread: FlowId,
    /// Bytes of the whole request.
    pub bytes: u64,
    /// Its fragments, and the bytes of each but the last (which has the
    /// rest).
    pub fragments: u32,
    pub fragment_bytes: u64,
    pub write: bool,
    pub arrival: Instant,
}

impl App {
    /// The bytes of each fragment, in order.
    pub(crate) fn fragment_sizes(&self) -> impl Iterator<Item = u64> {
        let (total, each) = (self.bytes, self.fragment_bytes);
        (0..u64::from(self.fragments)).map(move |k| each.min(total.saturating_sub(k * each)))
    }
}

/// The driver, and the requests handed to it and not yet completed.
pub(crate) struct Requests {
    pub driver: Driver<Box<dyn Scheduler>>,
    next_id: u64,
    /// Id of the application request the next fragment belongs to.
    origin: u64,
    /// Requests issued and not completed: id -> (flow, arrival). Hashed,
    /// not ordered: only the oldest per flow is asked for, at the end, and
    /// a tree's rebalancing cost most of a request at 65,536 flows.
    pending: IdMap<u64, (u32, Instant)>,
    /// The page cache, when a flow is buffered.
    pub os: Option<Os>,
    /// Threads with a weight, limits, a reservation, a class or a group
    /// of their own: a cgroup of their own, with its own writeback.
    own_cgroup: BTreeSet<u32>,
}

impl Requests {
    pub(super) fn new(driver: Driver<Box<dyn Scheduler>>) -> Self {
        Requests {
            driver,
            next_id: 0,
            origin: 0,
            pending: IdMap::default(),
            os: None,
            own_cgroup: BTreeSet::new(),
        }
    }

    /// Put a page cache between the buffered flows and the driver, and
    /// register its flusher (after the population's flows).
    pub(super) fn with_page_cache(&mut self, cfg: os::Config) {
        let flusher = FlowConfig::weighted(100);
        self.driver.add_flow(Instant::ZERO, FLUSHER, &flusher);
        let mut cache = PageCache::new(cfg);
        for &id in &self.own_cgroup {
            cache.own_writeback(id);
        }
        self.os = Some(Os {
            cache,
            ios: BTreeMap::new(),
            apps: BTreeMap::new(),
            due: Vec::new(),
            open: None,
            retired: BTreeSet::new(),
        });
    }

    /// Hand the request being gathered to the cache. Call it once a
    /// flow's issues are all made (a request's fragments come in one
    /// batch).
    pub(super) fn submit_extent(&mut self, now: Instant) {
        let Some(os) = &mut self.os else {
            return;
        };
        let Some(x) = os.open.take() else {
            return;
        };
        if x.write && x.flush {
            os.cache.write_sync(now, x.op);
        } else if x.write {
            os.cache.write(now, x.op);
        } else {
            os.cache.read(now, x.op);
        }
        self.drain_cache(now);
    }

    /// Whether driver request `id` is one the page cache asked for.
    pub(super) fn is_cache_io(&self, id: RequestId) -> bool {
        self.os.as_ref().is_some_and(|o| o.ios.contains_key(&id.0))
    }

    /// The disk completed the page cache's request `id`.
    pub(super) fn cache_io_done(&mut self, now: Instant, id: RequestId) {
        if let Some(os) = &mut self.os {
            if let Some(io) = os.ios.remove(&id.0) {
                os.cache.io_done(now, io);
            }
        }
        self.drain_cache(now);
    }

    /// The flusher's periodic wake-up.
    pub(super) fn kupdate(&mut self, now: Instant) {
        if let Some(os) = &mut self.os {
            os.cache.kupdate(now);
        }
        self.drain_cache(now);
    }

    /// The cache completed application request `token`: it is no longer
    /// pending; what to tell its flow.
    pub(super) fn cache_done(&mut self, token: u64) -> Option<App> {
        self.pending.remove(&token);
        self.os.as_mut()?.apps.remove(&token)
    }

    /// Carry out what the cache asks: its disk requests to the driver, its
    /// completions onto `due`.
    fn drain_cache(&mut self, now: Instant) {
        let Some(os) = &mut self.os else {
            return;
        };
        for out in os.cache.take() {
            match out {
                Out::Done { token, at } => os.due.push((at, token)),
                Out::Io(io) => {
                    let id = RequestId(self.next_id);
                    self.next_id += 1;
                    os.ios.insert(id.0, io.id);
                    // Writeback in its writer's name (the root flusher's
                    // once the writer is gone).
                    let flow = if os.retired.contains(&io.stream) {
                        FLUSHER
                    } else {
                        FlowId(io.stream)
                    };
                    self.driver.add(
                        now,
                        Request {
                            id,
                            origin: id,
                            flow,
                            dir: if io.write {
                                Direction::Write
                            } else {
                                Direction::Read
                            },
                            sync: !io.write,
                            sector: io.sector,
                            sectors: io.sectors,
                            arrival: now,
                        },
                    );
                }
            }
        }
    }

    /// A buffered flow's fragment: it extends the request being gathered,
    /// or (a new request) the one gathered so far goes to the cache and
    /// this one is opened.
    fn issue_buffered(
        &mut self,
        now: Instant,
        flow: usize,
        spec: &FlowSpec,
        thread: FlowId,
        i: Issue,
    ) {
        let bytes = u64::from(i.sectors) * 512;
        if let Some(os) = &mut self.os {
            if let Some(x) = os.open.as_mut().filter(|x| {
                i.continues
                    && x.op.stream == thread.0
                    && x.write == i.write
                    && x.op.sector + u64::from(x.op.sectors) == i.sector
            }) {
                if let (Some(sectors), Some(app)) = (
                    x.op.sectors.checked_add(i.sectors),
                    os.apps.get_mut(&x.op.token),
                ) {
                    x.op.sectors = sectors;
                    x.flush |= i.flush;
                    app.bytes += bytes;
                    app.fragments += 1;
                    return;
                }
            }
        }
        self.submit_extent(now);
        let Some(os) = &mut self.os else {
            return;
        };
        let token = self.next_id;
        self.next_id += 1;
        self.pending.insert(token, (flow as u32, now));
        os.apps.insert(
            token,
            App {
                thread,
                bytes,
                fragments: 1,
                fragment_bytes: bytes,
                write: i.write,
                arrival: now,
            },
        );
        // The file of the request (a flow may have several).
        let (file_start, file_sectors) = spec.file_at(i.sector);
        os.open = Some(Extent {
            op: Op {
                token,
                sector: i.sector,
                sectors: i.sectors,
                file_start,
                file_sectors,
                stream: thread.0,
            },
            write: i.write,
            flush: i.flush,
        });
    }

    /// Request `id` completed: it is no longer pending.
    pub(super) fn served(&mut self, id: RequestId) {
        self.pending.remove(&id.0);
    }

    /// Arrival of the oldest request still pending, per flow (of `flows`).
    pub(super) fn oldest_pending(&self, flows: usize) -> Vec<Option<Instant>> {
        let pending = self.pending.values().map(|&(f, a)| (f as usize, a));
        sluice_runtime::report::oldest_pending(flows, pending)
    }
}

impl Backend for Requests {
    type Error = std::convert::Infallible;

    fn add_thread(
        &mut self,
        now: Instant,
        id: FlowId,
        config: &FlowConfig,
    ) -> Result<(), Self::Error> {
        self.driver.add_flow(now, id, config);
        if has_own_cgroup(config) {
            self.own_cgroup.insert(id.0);
            if let Some(os) = &mut self.os {
                os.cache.own_writeback(id.0);
            }
        }
        Ok(())
    }

    /// Removed at once: the driver keeps their requests in flight.
    fn retire_threads(&mut self, now: Instant, ids: Range<u32>) -> Result<(), Self::Error> {
        for id in ids {
            self.driver.remove_flow(now, FlowId(id));
            if let Some(os) = &mut self.os {
                os.retired.insert(id);
            }
        }
        Ok(())
    }

    fn issue(
        &mut self,
        now: Instant,
        flow: usize,
        spec: &FlowSpec,
        thread: FlowId,
        i: Issue,
    ) -> Result<(), Self::Error> {
        if !spec.direct && self.os.is_some() {
            self.issue_buffered(now, flow, spec, thread, i);
            return Ok(());
        }
        if !i.continues {
            self.origin = self.next_id;
        }
        let r = Request {
            id: RequestId(self.next_id),
            origin: RequestId(self.origin),
            flow: thread,
            dir: if i.write {
                Direction::Write
            } else {
                Direction::Read
            },
            sync: i.sync,
            sector: i.sector,
            sectors: i.sectors,
            arrival: now,
        };
        self.next_id += 1;
        self.pending.insert(r.id.0, (flow as u32, now));
        self.driver.add(now, r);
        Ok(())
    }
}

/// Whether a thread's flow sets terms of its own (weight, reservation,
/// limits, class or group): it stands for a cgroup of its own, whose
/// writeback is its own (the others share the root cgroup's).
fn has_own_cgroup(config: &FlowConfig) -> bool {
    config.qos != sluice::Qos::default() || config.class.is_some() || config.group.is_some()
}
