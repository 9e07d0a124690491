//! Seed spreading shared by every crate that derives random streams or
//! phases from a run's seed (workloads, drive models): one function, so a
//! seed means the same thing everywhere.

/// SplitMix64 (Vigna's `splitmix64.c`, one step from state `x`): spreads a
/// seed into independent-looking stream seeds.
pub fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_the_reference_splitmix64() {
        // The first outputs of Vigna's splitmix64.c from states 0 and
        // 1234567 (each call advances the state by the golden gamma).
        assert_eq!(splitmix(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix(1_234_567), 6_457_827_717_110_365_317);
        assert_eq!(
            splitmix(1_234_567u64.wrapping_add(0x9E37_79B9_7F4A_7C15)),
            3_203_168_211_198_807_973
        );
    }
}
