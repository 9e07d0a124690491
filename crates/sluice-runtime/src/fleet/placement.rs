//! Which node each volume goes to.

use std::collections::BTreeMap;

use super::fail;
use crate::error::Result;

/// How volumes are placed on nodes (`[fleet] placement`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// By a hash of the volume's name (FNV-1a, 64 bits) modulo the nodes:
    /// where a volume goes does not depend on the others, nor on the
    /// machine.
    Hash,
    /// The volumes in the order the trace names them first, dealt out to
    /// the nodes in turn.
    RoundRobin,
    /// As `[fleet.given]` says: volume name = node (0-based).
    Given,
}

impl Placement {
    /// Every placement with its scenario name.
    pub const ALL: [(&'static str, Placement); 3] = [
        ("hash", Placement::Hash),
        ("round-robin", Placement::RoundRobin),
        ("given", Placement::Given),
    ];

    /// The placement a scenario names.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|&(_, p)| p)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("", |(n, _)| n)
    }

    /// Each of `volumes`' node, among `nodes`.
    pub fn place(
        self,
        volumes: &[String],
        nodes: u32,
        given: Option<&BTreeMap<String, u32>>,
    ) -> Result<Vec<u32>> {
        match self {
            Placement::Hash => Ok(volumes
                .iter()
                .map(|v| (fnv1a(v.as_bytes()) % u64::from(nodes)) as u32)
                .collect()),
            Placement::RoundRobin => Ok((0..volumes.len())
                .map(|i| (i % nodes as usize) as u32)
                .collect()),
            Placement::Given => {
                let given = given.ok_or_else(|| {
                    fail("[fleet] placement = \"given\" needs a [fleet.given] table: volume = node")
                })?;
                if let Some((v, &n)) = given.iter().find(|(_, &n)| n >= nodes) {
                    return Err(fail(format!(
                        "[fleet.given] {v} = {n}: nodes are 0..={}",
                        nodes - 1
                    )));
                }
                volumes
                    .iter()
                    .map(|v| {
                        given.get(v).copied().ok_or_else(|| {
                            fail(format!(
                                "[fleet.given] has no node for volume '{v}', which the trace names"
                            ))
                        })
                    })
                    .collect()
            }
        }
    }
}

/// FNV-1a, 64 bits: a stable hash, the same on every machine and run.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| i.to_string()).collect()
    }

    #[test]
    fn fnv1a_is_the_published_function() {
        // The FNV-1a test vectors of its authors: "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn hash_placement_spreads_and_depends_on_the_name_only() {
        let v = names(1000);
        let p = Placement::Hash.place(&v, 8, None).unwrap();
        let mut per = [0; 8];
        for &n in &p {
            per[n as usize] += 1;
        }
        assert!(per.iter().all(|&c| (90..=160).contains(&c)), "{per:?}");
        // The same volume lands on the same node among other volumes.
        let q = Placement::Hash.place(&v[500..], 8, None).unwrap();
        assert_eq!(&p[500..], &q[..]);
    }

    #[test]
    fn round_robin_deals_in_turn() {
        let p = Placement::RoundRobin.place(&names(5), 2, None).unwrap();
        assert_eq!(p, [0, 1, 0, 1, 0]);
    }

    #[test]
    fn given_places_as_told_and_refuses_gaps_and_unknown_nodes() {
        let v = names(2);
        let mut g = BTreeMap::new();
        g.insert("0".to_string(), 1);
        assert!(Placement::Given
            .place(&v, 2, Some(&g))
            .unwrap_err()
            .to_string()
            .contains("no node for volume '1'"));
        g.insert("1".to_string(), 0);
        assert_eq!(Placement::Given.place(&v, 2, Some(&g)).unwrap(), [1, 0]);
        g.insert("1".to_string(), 2);
        assert!(Placement::Given
            .place(&v, 2, Some(&g))
            .unwrap_err()
            .to_string()
            .contains("nodes are 0..=1"));
        assert!(Placement::Given.place(&v, 2, None).is_err());
    }
}
