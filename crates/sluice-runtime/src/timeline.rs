//! Throughput over time: bytes completed per flow in fixed bins, reported
//! as the `timeline` object of `sluice.sim/1` and `sluice.run/1`
//! (`{ "interval_s": f, "flows": { name: [mb_s, ...] } }`). The simulator
//! and `sluice run` record into the same [`Bins`].

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use sluice::{Duration, Instant};

/// The most bins a timeline may hold over all flows (8 bytes each).
pub const MAX_BINS: u64 = 20_000_000;

/// Bytes completed per flow per bin.
#[derive(Clone, Debug)]
pub struct Bins {
    bin: Duration,
    bytes: Vec<Vec<u64>>,
}

impl Bins {
    /// Bins of `bin` (at least 1 ns) for `flows` flows.
    pub fn new(bin: Duration, flows: usize) -> Self {
        Bins {
            bin: bin.max(Duration::from_nanos(1)),
            bytes: vec![Vec::new(); flows],
        }
    }

    /// The bin length.
    pub fn bin(&self) -> Duration {
        self.bin
    }

    /// Flow `flow` completed `bytes` at `at` (from the run's start);
    /// returns the bin's index.
    pub fn record(&mut self, flow: usize, at: Instant, bytes: u64) -> usize {
        let i = (at.since_origin() / self.bin) as usize;
        if let Some(series) = self.bytes.get_mut(flow) {
            if series.len() <= i {
                series.resize(i + 1, 0);
            }
            series[i] += bytes;
        }
        i
    }

    /// All flows' MB/s per bin, up to the last bin any flow completed in.
    pub fn total_mb_s(&self) -> Vec<f64> {
        let len = self.bytes.iter().map(Vec::len).max().unwrap_or(0);
        let secs = self.bin.as_secs_f64();
        (0..len)
            .map(|i| {
                let b: u64 = self.bytes.iter().filter_map(|s| s.get(i)).sum();
                b as f64 / 1e6 / secs
            })
            .collect()
    }

    /// The timeline of a run that ended at `end`, flows named in order:
    /// every flow's series covers the run (a last, partial bin counts
    /// per full bin).
    pub fn report<'a>(&self, names: impl IntoIterator<Item = &'a str>, end: Instant) -> Timeline {
        let secs = self.bin.as_secs_f64();
        let len = (end
            .since_origin()
            .as_nanos()
            .div_ceil(self.bin.as_nanos().max(1))) as usize;
        let flows = names
            .into_iter()
            .zip(&self.bytes)
            .map(|(name, b)| {
                let len = len.max(b.len());
                let series = (0..len)
                    .map(|i| b.get(i).copied().unwrap_or(0) as f64 / 1e6 / secs)
                    .collect();
                (name.to_string(), series)
            })
            .collect();
        Timeline {
            interval_s: secs,
            flows: OrderedMap(flows),
        }
    }
}

/// The `timeline` object.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timeline {
    /// Bin length, seconds.
    pub interval_s: f64,
    /// MB/s per bin, per flow (a JSON object keyed by flow name, in the
    /// scenario's flow order).
    pub flows: FlowSeries,
}

/// Flow name to series, serialized as a JSON object in flow order.
pub type FlowSeries = OrderedMap<Vec<f64>>;

/// A JSON object whose keys keep the order they are given in (serde_json
/// sorts a map's keys otherwise).
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Read back in the order the object lists its keys.
impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(OrderedMap(entries))
            }
        }
        d.deserialize_map(Entries(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_sum_to_the_bytes_and_cover_the_run() {
        let mut b = Bins::new(Duration::from_millis(100), 2);
        b.record(0, Instant::from_nanos(50_000_000), 1_000_000);
        b.record(0, Instant::from_nanos(150_000_000), 2_000_000);
        b.record(0, Instant::from_nanos(199_999_999), 1_000_000);
        b.record(1, Instant::from_nanos(0), 500_000);
        let t = b.report(["a", "b"], Instant::from_nanos(350_000_000));
        assert_eq!(t.interval_s, 0.1);
        assert_eq!(t.flows.0[0].1, vec![10.0, 30.0, 0.0, 0.0]);
        assert_eq!(t.flows.0[1].1, vec![5.0, 0.0, 0.0, 0.0]);
        let mb: f64 = t.flows.0[0].1.iter().map(|x| x * 0.1).sum();
        assert!((mb - 4.0).abs() < 1e-9);
        let json = serde_json::to_string(&t).unwrap();
        assert!(
            json.starts_with(r#"{"interval_s":0.1,"flows":{"a":[10.0,30.0,0.0,0.0],"b":"#),
            "{json}"
        );
    }

    #[test]
    fn a_timeline_reads_back_in_the_order_written() {
        let json = r#"{"interval_s":0.5,"flows":{"b":[1.0],"a":[2.0,3.0]}}"#;
        let t: Timeline = serde_json::from_str(json).unwrap();
        assert_eq!(t.flows.0[0], ("b".to_string(), vec![1.0]));
        assert_eq!(t.flows.0[1].0, "a");
        assert_eq!(serde_json::to_string(&t).unwrap(), json);
        assert!(serde_json::from_str::<Timeline>(r#"{"interval_s":1.0,"flows":[]}"#).is_err());
    }
}
