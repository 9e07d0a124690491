//! DOR's search for the request that fills a gap of the sequence (see the
//! module docs of [`super`], "Finding a request for a gap").

use super::index::Leaf;
use super::queue::Seq;
use super::{DFlow, Dor};
use crate::policy::yfq::tags::Tag;
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

/// A request the search found: sector, queue, place in the queue.
type Entry = (u64, FlowId, Seq);

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

/// The two lowest and two highest `f` of the non-empty queues (with their
/// counts), the spread and `M_qos`: all Property 2 needs, so that a search
/// tests each request it meets in O(1) rather than walking `fset` for it.
#[derive(Clone, Copy, Debug)]
pub(super) struct FsetEnds {
    pub(super) low: [Option<(Tag, usize)>; 2],
    pub(super) high: [Option<(Tag, usize)>; 2],
    pub(super) spread: Tag,
    pub(super) m_qos: Tag,
}

impl FsetEnds {
    /// `Dor::spread_if` (the walk over `fset` the tests compare with)
    /// from the ends alone: one queue's `f` leaving drops at most one
    /// entry at each end.
    pub(super) fn spread_if(&self, old: Tag, new: Tag) -> Tag {
        // The end's first entry that stays once `old` leaves.
        let stays = |end: &[Option<(Tag, usize)>; 2]| {
            end.iter()
                .flatten()
                .find(|e| e.0 != old || e.1 > 1)
                .map(|e| e.0)
        };
        let lo = stays(&self.low).map_or(new, |t| new.min(t));
        let hi = stays(&self.high).map_or(new, |t| new.max(t));
        Tag(hi.0 - lo.0)
    }

    /// Property 2 (see `Dor::property2`, the test-only entry point) for a
    /// request of `sectors` of `fl`'s queue.
    pub(super) fn property2(&self, fl: &DFlow, sectors: u32) -> bool {
        let after = self.spread_if(fl.f, fl.f + fl.len_of(sectors));
        after <= self.m_qos || after < self.spread
    }

    /// A raised `f_k` above this fails Property 2. Unless `f_k` is the
    /// lowest `f` alone, the lowest stays and no insertion narrows the
    /// spread (it raises no lowest and lowers no highest), so passing needs
    /// the raised `f_k` within `M_qos` of the lowest. The lowest alone may
    /// rise, to at most the second lowest, and narrow the spread: then the
    /// spread after is at least the raised `f_k`'s distance from the
    /// second lowest, and passing needs it within `M_qos` or the spread
    /// now. No limit with a single backlogged queue (every request passes).
    pub(super) fn limit(&self) -> Tag {
        match self.low {
            [Some((t, c)), _] if c > 1 => t + self.m_qos,
            [_, Some((t, _))] => t + self.m_qos.max(self.spread),
            _ => Tag(u128::MAX),
        }
    }
}

/// Which of the four walks (see [`Dor::candidate`]).
#[derive(Clone, Copy)]
enum Side {
    Below,
    UpToMid,
    DownToMid,
    Above,
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
    /// 2 turns away (see the module docs, "Finding a request for a gap"),
    /// most of them judged from their index entry alone.
    pub(super) fn candidate(&self, gap: &Gap<'_>) -> Fill {
        self.candidate_with(gap, true)
    }

    /// [`Self::candidate`]; `skip = false` looks every request it meets up
    /// (the reference the bounds are tested against).
    pub(super) fn candidate_with(&self, gap: &Gap<'_>, skip: bool) -> Fill {
        let (from, to) = (gap.a.end(), gap.b.sector);
        let (lo, hi) = (from.min(to), from.max(to));
        let mid = lo + (hi - lo) / 2;
        let idx = &self.index;
        // The index positions of the gap's ends, each searched for only
        // when a walk from it runs (the near walks of an upward gap need
        // only the lower one); the middle bounds the walks by sector.
        let p_lo = std::cell::OnceCell::new();
        let p_hi = std::cell::OnceCell::new();
        let p_lo = || *p_lo.get_or_init(|| idx.first_at(lo));
        let p_hi = || *p_hi.get_or_init(|| idx.first_at(hi));
        // Every sector the walks beyond the middle reach lies at least
        // `far` from `R^cur`.
        let (near, other, far) = if from <= to {
            (
                [Side::Below, Side::UpToMid],
                [Side::DownToMid, Side::Above],
                mid + 1 - lo,
            )
        } else {
            (
                [Side::Above, Side::DownToMid],
                [Side::Below, Side::UpToMid],
                hi - mid,
            )
        };
        let ends = self.fset_ends();
        let limit = if skip { ends.limit() } else { Tag(u128::MAX) };
        let mut admitted = false;
        let mut first = |side: Side| {
            let mut stop = |leaf: &Leaf| self.judge(gap, &ends, limit, leaf, &mut admitted);
            let hit = match side {
                Side::Below => idx.down(idx.start(), p_lo()).find_map(&mut stop),
                Side::UpToMid => idx
                    .up(p_lo(), idx.end())
                    .take_while(|l| l.sector <= mid)
                    .find_map(&mut stop),
                Side::DownToMid => idx
                    .down(idx.start(), p_hi())
                    .take_while(|l| l.sector > mid)
                    .find_map(&mut stop),
                Side::Above => idx.up(p_hi(), idx.end()).find_map(&mut stop),
            };
            hit.flatten().map(|e: Entry| (from.abs_diff(e.0), e))
        };
        let mut best: Option<(u64, Entry)> = None;
        for side in near {
            best = best.into_iter().chain(first(side)).min();
        }
        if best.is_none_or(|(d, _)| d >= far) {
            for side in other {
                best = best.into_iter().chain(first(side)).min();
            }
        }
        match best {
            Some((_, (_, k, seq))) => Fill::Request(k, seq),
            None if admitted => Fill::Refused,
            None => Fill::Nothing,
        }
    }

    /// One request of a walk: `None` to walk on (it passes Property 1 and
    /// fails Property 2), `Some(None)` to stop empty-handed (it fails
    /// Property 1), `Some(Some(entry))` to stop with it (it passes both).
    /// The flow and queue are looked up only if the entry's bound leaves
    /// Property 2 open.
    pub(super) fn judge(
        &self,
        gap: &Gap<'_>,
        ends: &FsetEnds,
        limit: Tag,
        leaf: &Leaf,
        admitted: &mut bool,
    ) -> Option<Option<Entry>> {
        let detour = gap.device.seek_time(gap.a.end(), leaf.sector)
            + gap.device.seek_time(leaf.end(), gap.b.sector);
        if detour > gap.bound {
            return Some(None);
        }
        *admitted = true;
        if leaf.least_f() > limit {
            return None;
        }
        // The leaf's size is its request's (a merge re-files the leaf), so
        // the flow's tags alone decide: its queue is not read.
        let fl = &self.flows[&leaf.flow];
        leaf.set_least_f(fl.f + fl.len_of(leaf.sectors()));
        ends.property2(fl, leaf.sectors())
            .then_some(Some((leaf.sector, leaf.flow, leaf.seq)))
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
                    if ends.property2(fl, r.sectors) {
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
