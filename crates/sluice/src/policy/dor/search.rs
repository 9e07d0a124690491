//! DOR's search for the request that fills a gap of the sequence (see the
//! module docs of [`super`], "Finding a request for a gap").

use super::queue::{Entry, Seq, Walk};
use super::Dor;
use crate::scheduler::DeviceView;
use crate::time::Duration;
use crate::types::{FlowId, Request};

/// One gap `R^cur -> R^next` of the walk, with Property 1's bound.
pub(super) struct Gap<'a> {
    pub(super) a: &'a Request,
    pub(super) b: &'a Request,
    /// `T(R^cur, R^next) + M_dmo`.
    pub(super) bound: Duration,
    pub(super) device: &'a dyn DeviceView,
}

/// What the search found for a gap.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Fill {
    /// The request to insert: its queue and place.
    Request(FlowId, Seq),
    /// Requests passed Property 1 but Property 2 turned every one away.
    Refused,
    /// No request passed Property 1.
    Nothing,
}

impl<'a> Gap<'a> {
    pub(super) fn new(
        a: &'a Request,
        b: &'a Request,
        margin: Duration,
        device: &'a dyn DeviceView,
    ) -> Self {
        let bound = device.seek_time(a.end(), b.sector) + margin;
        Gap {
            a,
            b,
            bound,
            device,
        }
    }

    /// `T(R^cur, r) + T(r, R^next)`.
    pub(super) fn detour(&self, r: &Request) -> Duration {
        self.device.seek_time(self.a.end(), r.sector)
            + self.device.seek_time(r.end(), self.b.sector)
    }

    /// Property 1.
    pub(super) fn admits(&self, r: &Request) -> bool {
        self.detour(r) <= self.bound
    }
}

impl Dor {
    /// DOR's pick for `gap`: the passing request nearest `R^cur` (then
    /// lowest sector), whichever queue holds it. Four walks over the sector
    /// index, from the gap's lower end down, from it up to the middle, from
    /// the upper end down to the middle and from it up, meet requests in
    /// growing detour on a seek curve concave in the distance. Each stops
    /// at its first request that passes both properties or fails Property
    /// 1; the two beyond the middle run only when the two beside `R^cur`
    /// find nothing nearer. A gap costs O(log n) plus the requests Property
    /// 2 turns away (see the module docs, "Finding a request for a gap").
    pub(super) fn candidate(&self, gap: &Gap<'_>) -> Fill {
        let (from, to) = (gap.a.end(), gap.b.sector);
        let (lo, hi) = (from.min(to), from.max(to));
        let mid = lo + (hi - lo) / 2;
        let below = self.index.walk(..lo, true);
        let up_to_mid = self.index.walk(lo..=mid, false);
        let down_to_mid = self.index.walk(mid + 1..hi, true);
        let above = self.index.walk(hi.., false);
        // Every sector the walks beyond the middle reach lies at least
        // `far` from `R^cur`.
        let (near, other, far) = if from <= to {
            ([below, up_to_mid], [down_to_mid, above], mid + 1 - lo)
        } else {
            ([above, down_to_mid], [below, up_to_mid], hi - mid)
        };
        let ends = self.fset_ends();
        let mut best: Option<(u64, Entry)> = None;
        let mut admitted = false;
        let mut look = |walks: [Walk<'_>; 2], best: &mut Option<(u64, Entry)>| {
            for walk in walks {
                for (sector, k, seq) in walk {
                    let fl = &self.flows[&k];
                    let r = fl.queue.get(seq);
                    if !gap.admits(r) {
                        break;
                    }
                    admitted = true;
                    if ends.property2(fl, r) {
                        let key = (from.abs_diff(sector), (sector, k, seq));
                        if best.is_none_or(|b| key < b) {
                            *best = Some(key);
                        }
                        break;
                    }
                }
            }
        };
        look(near, &mut best);
        if best.is_none_or(|(d, _)| d >= far) {
            look(other, &mut best);
        }
        match best {
            Some((_, (_, k, seq))) => Fill::Request(k, seq),
            None if admitted => Fill::Refused,
            None => Fill::Nothing,
        }
    }

    /// `oldest_first`: the first passing request in queue order, queues in
    /// ascending flow id, by looking at every queued request.
    pub(super) fn oldest_candidate(&self, gap: &Gap<'_>) -> Fill {
        let ends = self.fset_ends();
        let mut admitted = false;
        for &k in &self.flow_order {
            let fl = &self.flows[&k];
            for (seq, r) in fl.queue.by_arrival() {
                if gap.admits(r) {
                    admitted = true;
                    if ends.property2(fl, r) {
                        return Fill::Request(k, seq);
                    }
                }
            }
        }
        if admitted {
            Fill::Refused
        } else {
            Fill::Nothing
        }
    }
}
