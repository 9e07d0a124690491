//! The drive's read cache: a few segments, each holding one run of
//! consecutive sectors, filled by reads and by read-ahead after them. At
//! most one segment grows at a time: the one the head is streaming into.

use std::cell::Cell;

use sluice::Instant;

use super::mechanics::Mechanics;

/// One cache segment: sectors `[start, end)` are in the buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Segment {
    start: u64,
    end: u64,
    /// Last use, for least-recently-used replacement.
    stamp: u64,
}

/// The head streaming read-ahead into a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefetch {
    segment: usize,
    /// First sector the stream reads; the head is right before it at `t0`.
    from: u64,
    t0: Instant,
    /// The stream stops before this sector.
    limit: u64,
}

/// What the cache can do for a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Every sector is in the buffer now.
    Hit,
    /// The read-ahead stream will have read everything by this time.
    Stream(Instant),
    /// The buffer holds the read's start; the media must be read from
    /// this sector on.
    Partial(u64),
    /// The media must be accessed.
    Miss,
}

/// Segmented read cache with read-ahead.
#[derive(Clone, Debug)]
pub struct ReadCache {
    segments: Vec<Segment>,
    /// Sectors a segment holds.
    capacity: u64,
    prefetch: Option<Prefetch>,
    /// When the active stream reaches its limit, once computed: from then
    /// on its frontier is the limit, with no walk over its tracks (the
    /// common case: a lookup after the read-ahead has finished).
    stream_done: Cell<Option<Instant>>,
    /// The active stream's frontier last computed, and when: a lookup asks
    /// for it once per segment and again to decide, at the same instant.
    frontier_at: Cell<Option<(Instant, u64)>>,
    clock: u64,
}

impl ReadCache {
    /// `segments` segments of `segment_sectors` each. Zero segments
    /// disables caching.
    pub fn new(segments: usize, segment_sectors: u64) -> Self {
        ReadCache {
            segments: vec![Segment::default(); segments],
            capacity: segment_sectors,
            prefetch: None,
            stream_done: Cell::new(None),
            frontier_at: Cell::new(None),
            clock: 0,
        }
    }

    /// The active stream's frontier at `t` (first sector not yet read).
    /// One walk over the stream's tracks answers both where it is at `t`
    /// and, when it has finished by then, when it did: a later `t` then
    /// needs no walk.
    fn frontier(&self, m: &Mechanics, p: &Prefetch, t: Instant) -> u64 {
        let last = p.limit.min(m.layout.capacity()).max(p.from);
        if self.stream_done.get().is_some_and(|done| t >= done) {
            return p.limit.min(last);
        }
        if let Some((at, front)) = self.frontier_at.get() {
            if at == t {
                return front;
            }
        }
        match m.stream_walk(p.from, p.t0, t, p.limit) {
            (_, Some(done)) => {
                self.stream_done.set(Some(done));
                p.limit.min(last)
            }
            (front, None) => {
                self.frontier_at.set(Some((t, front)));
                front
            }
        }
    }

    /// Start (or end, with `None`) the read-ahead stream.
    fn set_prefetch(&mut self, p: Option<Prefetch>) {
        self.prefetch = p;
        self.stream_done.set(None);
        self.frontier_at.set(None);
    }

    /// Valid range of segment `i` at time `t`, including the stream.
    fn valid(&self, m: &Mechanics, i: usize, t: Instant) -> (u64, u64) {
        let s = self.segments[i];
        match self.prefetch {
            Some(p) if p.segment == i => {
                let end = self.frontier(m, &p, t).max(s.end);
                (s.start.max(end.saturating_sub(self.capacity)), end)
            }
            _ => (s.start, s.end),
        }
    }

    /// Can `[lbn, lbn+n)` be served from the buffer, or from the stream?
    /// A read served from the stream moves its read-ahead limit to
    /// `limit(start)` if that is further, `start` being the first sector
    /// the segment holds.
    pub fn lookup(
        &mut self,
        m: &Mechanics,
        t: Instant,
        lbn: u64,
        n: u32,
        limit: impl FnOnce(u64) -> u64,
    ) -> Lookup {
        let end = lbn + u64::from(n);
        for i in 0..self.segments.len() {
            let (s, e) = self.valid(m, i, t);
            if s <= lbn && end <= e {
                self.clock += 1;
                self.segments[i].stamp = self.clock;
                return Lookup::Hit;
            }
        }
        if let Some(p) = self.prefetch {
            let (s, e) = self.valid(m, p.segment, t);
            // The read starts inside data already buffered or still to come
            // on this stream: the head keeps going and serves it in passing.
            // Not once the stream has stopped at its limit short of the
            // read's end: the head no longer reads, the rest is a media
            // access.
            let stopped = e >= p.limit && end > p.limit;
            if s <= lbn && lbn < e && stopped {
                self.clock += 1;
                self.segments[p.segment].stamp = self.clock;
                return Lookup::Partial(e);
            }
            if s <= lbn && lbn <= e.max(p.limit) && !stopped {
                // Rebase the stream at its frontier, so that finding when it
                // reaches a sector costs the distance from there, not from
                // where a long sequential run began.
                let front = self.frontier(m, &p, t);
                let t_front = m.stream_time(p.from, p.t0, front);
                let seg = &mut self.segments[p.segment];
                seg.end = seg.end.max(front);
                seg.start = seg.start.max(seg.end.saturating_sub(self.capacity));
                self.clock += 1;
                seg.stamp = self.clock;
                let limit = limit(seg.start).max(p.limit);
                self.set_prefetch(Some(Prefetch {
                    segment: p.segment,
                    from: front,
                    t0: t_front,
                    limit,
                }));
                return Lookup::Stream(m.stream_time(front, t_front, end));
            }
        }
        Lookup::Miss
    }

    /// The head leaves the stream at `t` (for another access). Returns the
    /// sector the head is over, if a stream was active.
    pub fn stop(&mut self, m: &Mechanics, t: Instant) -> Option<u64> {
        let p = self.prefetch?;
        let front = self.frontier(m, &p, t);
        self.set_prefetch(None);
        let seg = &mut self.segments[p.segment];
        seg.end = seg.end.max(front);
        seg.start = seg.start.max(seg.end.saturating_sub(self.capacity));
        Some(front.saturating_sub(1))
    }

    /// A read miss of `[lbn, lbn+n)` finished at `done`: buffer it in the
    /// least recently used segment and stream read-ahead after it, up to
    /// sector `limit` (exclusive). A stream longer than the segment keeps
    /// only its last sectors, as a ring buffer does.
    pub fn fill(&mut self, lbn: u64, n: u32, done: Instant, limit: u64) {
        if self.segments.is_empty() {
            return;
        }
        let i = (0..self.segments.len())
            .min_by_key(|&i| self.segments[i].stamp)
            .expect("at least one segment");
        let end = lbn + u64::from(n);
        self.clock += 1;
        self.segments[i] = Segment {
            start: lbn.max(end.saturating_sub(self.capacity)),
            end,
            stamp: self.clock,
        };
        if limit > end {
            self.set_prefetch(Some(Prefetch {
                segment: i,
                from: end,
                t0: done,
                limit,
            }));
        }
    }

    /// A write to `[lbn, lbn+n)`: cached copies of those sectors are stale.
    pub fn invalidate(&mut self, lbn: u64, n: u32) {
        let end = lbn + u64::from(n);
        for s in &mut self.segments {
            if s.start < end && lbn < s.end {
                // Keep the part before the write, if any.
                s.end = s.end.min(lbn).max(s.start);
            }
        }
    }

    /// The head position the stream has reached at `t`, if streaming.
    pub fn streaming_at(&self, m: &Mechanics, t: Instant) -> Option<u64> {
        self.prefetch
            .map(|p| self.frontier(m, &p, t).saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::super::mechanics::test_mechanics;
    use super::*;
    use crate::test_time::at;

    fn mech() -> Mechanics {
        test_mechanics(1000, 10.0, 0)
    }

    /// Look up at `t` ns, a stream hit reading 500 sectors past the read.
    fn lookup(c: &mut ReadCache, m: &Mechanics, t: u64, lbn: u64, n: u32) -> Lookup {
        c.lookup(m, at(t), lbn, n, |_| lbn + u64::from(n) + 500)
    }

    /// The test drive and a one-segment cache that read sectors 0..100 at
    /// time 0, reading ahead `read_ahead` sectors.
    fn holding_first_100(read_ahead: u64) -> (Mechanics, ReadCache) {
        let mut c = ReadCache::new(1, 1000);
        c.fill(0, 100, at(0), 100 + read_ahead);
        (mech(), c)
    }

    #[test]
    fn read_ahead_turns_the_next_sequential_read_into_a_hit() {
        let m = mech();
        let mut c = ReadCache::new(2, 1000);
        assert_eq!(lookup(&mut c, &m, 0, 0, 100), Lookup::Miss);
        c.fill(0, 100, at(10_000_000), 600);
        // Right after the miss, the next 100 sectors are still coming.
        match lookup(&mut c, &m, 10_000_000, 100, 100) {
            Lookup::Stream(t) => assert_eq!(t, m.stream_time(100, at(10_000_000), 200)),
            other => panic!("{other:?}"),
        }
        // Much later, they are in the buffer.
        assert_eq!(lookup(&mut c, &m, 200_000_000, 300, 100), Lookup::Hit);
        // The earlier data is still there.
        assert_eq!(lookup(&mut c, &m, 200_000_000, 0, 100), Lookup::Hit);
    }

    #[test]
    fn a_read_past_a_stopped_stream_goes_to_the_media() {
        // Read-ahead of 50 sectors after 0..100: done within 10 ms.
        let (m, mut c) = holding_first_100(50);
        // While the head still streams, a read past the limit rides on.
        assert!(matches!(
            lookup(&mut c, &m, 1_000_000, 120, 50),
            Lookup::Stream(_)
        ));
        let (m, mut c) = holding_first_100(50);
        // Long after the stream stopped at 150, 150..170 was never read.
        assert_eq!(
            lookup(&mut c, &m, 200_000_000, 120, 50),
            Lookup::Partial(150)
        );
        assert_eq!(lookup(&mut c, &m, 200_000_000, 120, 30), Lookup::Hit);
    }

    #[test]
    fn a_far_read_misses_and_stopping_keeps_what_was_read() {
        let (m, mut c) = holding_first_100(500);
        assert_eq!(lookup(&mut c, &m, 5_000_000, 50_000, 8), Lookup::Miss);
        // Sector 100 opens cylinder 1: a 1 ms cylinder switch, then 4 ms
        // of streaming at 10 sectors per ms by t = 5 ms.
        assert_eq!(c.stop(&m, at(5_000_000)), Some(139));
        assert_eq!(lookup(&mut c, &m, 5_000_000, 100, 40), Lookup::Hit);
        assert_eq!(lookup(&mut c, &m, 5_000_000, 100, 41), Lookup::Miss);
    }

    #[test]
    fn writes_invalidate_overlapping_data() {
        let (m, mut c) = holding_first_100(0);
        c.invalidate(50, 8);
        assert_eq!(lookup(&mut c, &m, 1, 0, 50), Lookup::Hit);
        assert_eq!(lookup(&mut c, &m, 1, 40, 20), Lookup::Miss);
    }

    #[test]
    fn least_recently_used_segment_is_replaced() {
        let m = mech();
        let mut c = ReadCache::new(2, 1000);
        c.fill(0, 10, at(0), 10);
        c.fill(5000, 10, at(0), 5010);
        assert_eq!(lookup(&mut c, &m, 1, 0, 10), Lookup::Hit); // touch segment 0
        c.fill(9000, 10, at(0), 9010); // replaces the 5000 segment
        assert_eq!(lookup(&mut c, &m, 2, 0, 10), Lookup::Hit);
        assert_eq!(lookup(&mut c, &m, 2, 5000, 10), Lookup::Miss);
        assert_eq!(lookup(&mut c, &m, 2, 9000, 10), Lookup::Hit);
    }
}
