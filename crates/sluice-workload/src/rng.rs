//! Deterministic random numbers: every draw in a run follows from the
//! scenario's seed, so a run is a function of (scenario, seed).
//!
//! Workloads draw from [`stream`], seeded through [`splitmix`].

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// SplitMix64 (the core's, which the drive models seed from too).
pub use sluice::rng::splitmix;

/// The generator of stream number `index` of a run seeded with `seed`:
/// each stream draws independently, so adding one does not change the
/// others' draws.
pub fn stream(seed: u64, index: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(splitmix(seed ^ splitmix(index + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_repeat_by_seed_and_index_and_differ_otherwise() {
        let draw = |seed, index| {
            let mut r = stream(seed, index);
            (0..4).map(|_| r.gen::<u64>()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 0), draw(7, 0));
        assert_ne!(draw(7, 0), draw(7, 1));
        assert_ne!(draw(7, 0), draw(8, 0));
    }
}
