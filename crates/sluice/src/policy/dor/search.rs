//! DOR's search for the request that fills a gap of the sequence (see the
//! module docs of [`super`], "Finding a request for a gap").

use super::queue::{Entry, Seq, Walk};
use super::Dor;
use crate::scheduler::DeviceView;
use crate::time::Duration;
use crate::types::{FlowId, Request};

impl Dor {
    /// The four walks over the sector index for the gap `a -> b`: from
    /// its lower end down, from its lower end up to the middle, from its
    /// upper end down to the middle, from its upper end up. On a seek curve
    /// concave in the distance, each meets requests in growing detour.
    pub(super) fn walks(&self, a: &Request, b: &Request) -> [Walk<'_>; 4] {
        let (from, to) = (a.end(), b.sector);
        let (lo, hi) = (from.min(to), from.max(to));
        let mid = lo + (hi - lo) / 2;
        [
            self.index.walk(..lo, true),
            self.index.walk(lo..=mid, false),
            self.index.walk(mid + 1..hi, true),
            self.index.walk(hi.., false),
        ]
    }

    /// `T(a, r) + T(r, b)`.
    pub(super) fn detour(
        a: &Request,
        r: &Request,
        b: &Request,
        device: &dyn DeviceView,
    ) -> Duration {
        device.seek_time(a.end(), r.sector) + device.seek_time(r.end(), b.sector)
    }

    /// Whether any queued request passes Property 1 for the gap `a -> b`:
    /// the first request of each walk is the cheapest of its stretch.
    pub(super) fn passes_property1(
        &self,
        a: &Request,
        b: &Request,
        bound: Duration,
        device: &dyn DeviceView,
    ) -> bool {
        self.walks(a, b).into_iter().any(|mut walk| {
            walk.next().is_some_and(|(_, k, seq)| {
                Self::detour(a, self.flows[&k].queue.get(seq), b, device) <= bound
            })
        })
    }

    /// DOR's pick for the gap `a -> b`: the passing request nearest `a`
    /// (then lowest sector), whichever queue holds it. Each walk stops at
    /// its first request that passes both properties or fails Property 1,
    /// and the walks on the far side of the gap's middle run only when the
    /// near ones find nothing nearer, so a gap costs O(log n) plus the
    /// requests Property 2 turns away (see the module docs, "Finding a
    /// request for a gap").
    pub(super) fn candidate(
        &self,
        a: &Request,
        b: &Request,
        bound: Duration,
        device: &dyn DeviceView,
    ) -> Option<(FlowId, Seq)> {
        let (from, to) = (a.end(), b.sector);
        let (lo, hi) = (from.min(to), from.max(to));
        let mid = lo + (hi - lo) / 2;
        let [below, up_to_mid, down_to_mid, above] = self.walks(a, b);
        // The two walks beside `from` first. Every sector the other two
        // reach lies past the middle of the gap, at least `far` from
        // `from`: they run only if nothing nearer was found.
        let (near, other, far) = if from <= to {
            ([below, up_to_mid], [down_to_mid, above], mid + 1 - lo)
        } else {
            ([above, down_to_mid], [below, up_to_mid], hi - mid)
        };
        let mut best: Option<(u64, Entry)> = None;
        let look = |walks: [Walk<'_>; 2], best: &mut Option<(u64, Entry)>| {
            for walk in walks {
                for (sector, k, seq) in walk {
                    let fl = &self.flows[&k];
                    let r = fl.queue.get(seq);
                    if Self::detour(a, r, b, device) > bound {
                        break;
                    }
                    if self.property2(fl, r) {
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
        best.map(|(_, (_, k, seq))| (k, seq))
    }

    /// `oldest_first`: the first passing request in queue order, queues in
    /// ascending flow id, by looking at every queued request.
    pub(super) fn oldest_candidate(
        &self,
        a: &Request,
        b: &Request,
        bound: Duration,
        device: &dyn DeviceView,
    ) -> Option<(FlowId, Seq)> {
        self.flows.iter().find_map(|(&k, fl)| {
            // Property 2 turns the whole queue away when it turns away
            // its smallest request.
            if !self.property2_sectors(fl, fl.queue.min_sectors()?) {
                return None;
            }
            fl.queue
                .by_arrival()
                .find(|(_, r)| self.property2(fl, r) && Self::detour(a, r, b, device) <= bound)
                .map(|(seq, _)| (k, seq))
        })
    }
}
