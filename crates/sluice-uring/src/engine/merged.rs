//! Merged requests in the kernel: the driver joined contiguous requests of
//! a flow while the policy held them, and the engine sends the result as
//! one vectored read or write over the original buffers (`readv`/`writev`
//! at the first part's offset). Parts that do not lie end to end in one
//! file (possible only for requests not aligned to sectors, or across a
//! target's end) go one SQE each instead; either way the driver hears of
//! one completion and the host of each original request's.

use std::io;

use io_uring::{opcode, types};
use sluice::{Direction, IdMap, Instant, RequestId, Scheduler};

use super::Engine;
use crate::error::Result;
use crate::step::{Progress, Step};

/// Set in the user data of a merged request's vectored SQE (request ids
/// use the low 64 - 24 bits for their sequence number, far from it).
pub(super) const GROUP_BIT: u64 = 1 << 63;

/// One merged request in the kernel.
struct Group {
    /// Its original requests, in sector order.
    parts: Vec<RequestId>,
    /// The vectored operation's progress and its iovecs (kept alive until
    /// its CQE); `None` when the parts went one SQE each.
    vectored: Option<(Progress, Vec<libc::iovec>)>,
    /// Parts not yet done (one SQE each).
    open: usize,
    results: Vec<(RequestId, io::Result<usize>)>,
}

/// The merged requests the engine has in the kernel, by the id the driver
/// knows them by.
#[derive(Default)]
pub(super) struct Groups {
    groups: IdMap<RequestId, Group>,
    /// Parts sent one SQE each: part -> the merged request.
    lead: IdMap<RequestId, RequestId>,
}

impl Groups {
    /// The merged request a separately sent part belongs to.
    pub(super) fn lead_of(&mut self, part: RequestId) -> Option<RequestId> {
        if self.lead.is_empty() {
            return None;
        }
        self.lead.get(&part).copied()
    }
}

/// A failed vectored operation fails each part with the same error.
fn same_error(e: &io::Error) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(libc::EIO))
}

impl<P: Scheduler> Engine<P> {
    /// Send merged request `lead` (the driver's id) to the kernel.
    pub(super) fn push_group(&mut self, lead: RequestId) -> Result<()> {
        let mut parts: Vec<RequestId> = self.driver.parts_of(lead).iter().map(|r| r.id).collect();
        parts.sort_by_key(|id| self.pending.get(*id).map(|p| p.offset));
        let end_to_end =
            parts
                .windows(2)
                .all(|w| match (self.pending.get(w[0]), self.pending.get(w[1])) {
                    (Some(a), Some(b)) => {
                        a.fd == b.fd && a.offset + a.progress.len as u64 == b.offset
                    }
                    _ => false,
                });
        if !end_to_end {
            for &p in &parts {
                self.groups.lead.insert(p, lead);
            }
            let open = parts.len();
            self.groups.groups.insert(
                lead,
                Group {
                    parts: parts.clone(),
                    vectored: None,
                    open,
                    results: Vec::with_capacity(open),
                },
            );
            for p in parts {
                self.push(p)?;
            }
            return Ok(());
        }
        let first = self
            .pending
            .get(parts[0])
            .expect("a dispatched part is pending");
        let (dir, direct) = (first.progress.dir, first.progress.direct);
        let len = parts
            .iter()
            .filter_map(|&p| self.pending.get(p))
            .map(|p| p.progress.len)
            .sum();
        self.groups.groups.insert(
            lead,
            Group {
                parts,
                vectored: Some((Progress::new(dir, len, direct), Vec::new())),
                open: 1,
                results: Vec::new(),
            },
        );
        self.push_vectored(lead)
    }

    /// Queue the vectored SQE for what is left of merged request `lead`.
    fn push_vectored(&mut self, lead: RequestId) -> Result<()> {
        let g = self
            .groups
            .groups
            .get_mut(&lead)
            .expect("a group in the kernel");
        let Some((progress, iov)) = &mut g.vectored else {
            return Ok(());
        };
        let mut skip = progress.done;
        iov.clear();
        let (mut fd, mut offset) = (0, None);
        for &id in &g.parts {
            let p = self
                .pending
                .get_mut(id)
                .expect("parts stay pending until done");
            let n = p.progress.len;
            if skip >= n {
                skip -= n;
                continue;
            }
            if offset.is_none() {
                offset = Some(p.offset + skip as u64);
                fd = p.fd;
            }
            // SAFETY (of the kernel's later use): each buffer is owned by
            // its `Pending` until the group completes, and `skip < n`.
            let base = unsafe { p.buf.as_mut_ptr().add(skip) };
            iov.push(libc::iovec {
                iov_base: base.cast(),
                iov_len: n - skip,
            });
            skip = 0;
        }
        let offset = offset.unwrap_or(0);
        let fd = types::Fd(fd);
        let (ptr, n) = (iov.as_ptr(), iov.len() as u32);
        let entry = match progress.dir {
            Direction::Read => opcode::Readv::new(fd, ptr, n).offset(offset).build(),
            Direction::Write => opcode::Writev::new(fd, ptr.cast(), n)
                .offset(offset)
                .build(),
        }
        .user_data(lead.0 | GROUP_BIT);
        self.push_entry(&entry)
    }

    /// The kernel's result for merged request `lead`'s vectored SQE.
    pub(super) fn group_result(&mut self, now: Instant, lead: RequestId, res: i32) -> Result<()> {
        let Some(g) = self.groups.groups.get_mut(&lead) else {
            debug_assert!(false, "CQE for unknown group {lead:?}");
            return Ok(());
        };
        let Some((progress, _)) = &mut g.vectored else {
            return Ok(());
        };
        match progress.on_result(res) {
            Step::Resubmit => {
                self.stats.resubmits += 1;
                self.push_vectored(lead)
            }
            Step::Done(r) => {
                // Bytes go to the parts in order; an error to each.
                let mut left = r.as_ref().map_or(0, |&n| n);
                let results = g
                    .parts
                    .iter()
                    .map(|&id| {
                        let len = self.pending.get(id).map_or(0, |p| p.progress.len);
                        let res = match &r {
                            Ok(_) => {
                                let n = left.min(len);
                                left -= n;
                                Ok(n)
                            }
                            Err(e) => Err(same_error(e)),
                        };
                        (id, res)
                    })
                    .collect();
                g.results = results;
                self.finish_group(now, lead);
                Ok(())
            }
        }
    }

    /// Part `id` of merged request `lead`, sent on its own, is done.
    pub(super) fn part_done(
        &mut self,
        now: Instant,
        lead: RequestId,
        id: RequestId,
        r: io::Result<usize>,
    ) {
        self.groups.lead.remove(&id);
        let Some(g) = self.groups.groups.get_mut(&lead) else {
            return;
        };
        g.results.push((id, r));
        g.open -= 1;
        if g.open == 0 {
            self.finish_group(now, lead);
        }
    }

    /// Every part of `lead` is done: tell the driver once, the host of each.
    fn finish_group(&mut self, now: Instant, lead: RequestId) {
        let Some(mut g) = self.groups.groups.remove(&lead) else {
            return;
        };
        let resubmits = g.vectored.as_ref().map_or(0, |(p, _)| p.resubmits);
        let Ok(done) = self.driver.complete(now, lead) else {
            debug_assert!(false, "a merged request in the kernel was dispatched");
            return;
        };
        for (orig, service) in done.each() {
            let Some(i) = g.results.iter().position(|(id, _)| *id == orig.id) else {
                continue;
            };
            let (_, result) = g.results.swap_remove(i);
            let Some(p) = self.pending.remove(orig.id) else {
                continue;
            };
            let resubmits = resubmits + p.progress.resubmits;
            self.deliver(orig.id, p, result, service, resubmits);
        }
    }
}
