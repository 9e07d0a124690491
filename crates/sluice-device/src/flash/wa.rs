//! Write amplification of the FTL's garbage collection under uniform
//! random page writes, measured on the block manager alone (no timing):
//! fill the logical space once, overwrite it at random until the victims'
//! valid share settles, then count pages programmed per page written.

use super::blocks::{owner, owner_parts, BlockManager, Frontier, GcSettings};
use crate::mqsim::GcVictimPolicy;

/// The drive the study runs on: one plane of `blocks` blocks of `pages`
/// pages (many blocks, so that the free pool kept back and the open
/// blocks are a negligible share of the spare space, as the analytic
/// models assume).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaStudy {
    /// Blocks.
    pub blocks: u32,
    /// Pages per block.
    pub pages: u32,
    /// Over-provisioning: the share of physical pages the host cannot
    /// address (MQSim's `Overprovisioning_Ratio`).
    pub op: f64,
    /// How victims are chosen.
    pub policy: GcVictimPolicy,
    /// Random overwrites before counting, in multiples of the logical
    /// space.
    pub warm_up: f64,
    /// Random overwrites counted, in multiples of the logical space.
    pub measured: f64,
    /// Seeds the addresses (and randomized victim choices).
    pub seed: u64,
}

impl WaStudy {
    /// Greedy collection at over-provisioning `op` on 1,024 blocks of 256
    /// pages, two logical spaces of warm-up and two counted.
    pub fn greedy(op: f64, seed: u64) -> Self {
        WaStudy {
            blocks: 1024,
            pages: 256,
            op,
            policy: GcVictimPolicy::Greedy,
            warm_up: 2.0,
            measured: 2.0,
            seed,
        }
    }

    /// Run the study; returns pages programmed per page the host wrote
    /// during the counted part.
    pub fn run(&self) -> f64 {
        let physical = u64::from(self.blocks) * u64::from(self.pages);
        let logical = ((physical as f64) * (1.0 - self.op.clamp(0.0, 0.9))) as u64;
        let mut m = BlockManager::new(
            1,
            self.blocks,
            self.pages,
            1,
            GcSettings {
                // Collect when fewer than two blocks are free.
                threshold: 2.0 / f64::from(self.blocks),
                hard_threshold: 1.0 / f64::from(self.blocks),
                policy: self.policy,
                seed: self.seed,
            },
        );
        // Where each logical page is: block and page, or none.
        let mut at: Vec<Option<(u32, u32)>> = vec![None; logical as usize];
        let write = |m: &mut BlockManager, at: &mut Vec<Option<(u32, u32)>>, lpa: u64| {
            if let Some((b, p)) = at[lpa as usize] {
                m.invalidate(0, b, p);
            }
            let (b, p, fresh) = m.allocate(0, 0, Frontier::Data, owner(0, lpa));
            at[lpa as usize] = Some((b, p));
            if fresh {
                while m.needs_gc(0) {
                    let Some(v) = m.choose_victim(0) else {
                        break;
                    };
                    for (page, who) in v.valid {
                        let (_, l) = owner_parts(who);
                        m.invalidate(0, v.block, page);
                        let (b2, p2, _) = m.allocate(0, 0, Frontier::Gc, who);
                        at[l as usize] = Some((b2, p2));
                    }
                    m.erased(0, v.block);
                }
            }
        };
        for lpa in 0..logical {
            write(&mut m, &mut at, lpa);
        }
        let mut rng = self.seed;
        let mut random_writes = |m: &mut BlockManager, at: &mut Vec<Option<(u32, u32)>>, n: u64| {
            for _ in 0..n {
                rng = sluice::rng::splitmix(rng);
                write(m, at, rng % logical.max(1));
            }
        };
        random_writes(&mut m, &mut at, (self.warm_up * logical as f64) as u64);
        let (user0, gc0) = (m.user_programs, m.gc_programs);
        random_writes(&mut m, &mut at, (self.measured * logical as f64) as u64);
        let user = (m.user_programs - user0).max(1);
        let gc = m.gc_programs - gc0;
        (user + gc) as f64 / user as f64
    }
}

/// Write amplification of greedy garbage collection under uniform random
/// writes at over-provisioning `op` (MQSim's ratio: the share of physical
/// pages the host cannot address), measured on the FTL's block manager.
pub fn uniform_random_write_amplification(op: f64, seed: u64) -> f64 {
    WaStudy::greedy(op, seed).run()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(op: f64) -> WaStudy {
        WaStudy {
            blocks: 128,
            pages: 64,
            ..WaStudy::greedy(op, 3)
        }
    }

    #[test]
    fn more_spare_space_means_less_amplification() {
        let tight = small(0.07).run();
        let loose = small(0.28).run();
        assert!(tight > loose, "{tight} vs {loose}");
        assert!(loose > 1.0);
    }

    #[test]
    fn a_sequential_fill_alone_amplifies_nothing() {
        let s = WaStudy {
            warm_up: 0.0,
            measured: 0.0,
            ..small(0.07)
        };
        assert_eq!(s.run(), 1.0);
    }
}
