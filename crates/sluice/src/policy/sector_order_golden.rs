//! Golden tests of the sector-order policies (deadline, C-LOOK, SSTF): the
//! dispatch order of fixed scripts, at any depth, merging off and on, as a
//! fingerprint. The values were computed when the frozen copies of these
//! policies' `BTreeMap` versions (with which the golden reproductions were
//! made) dispatched identically; any change in a decision changes one.

use super::{Clook, Deadline, DeadlineParams, Sstf};
use crate::scheduler::Scheduler;
use crate::testkit::{fnv1a, Op, Testbed};
use crate::time::Duration;

/// A fixed script from an xorshift generator: arrivals from 4 flows on few
/// distinct sectors (ties, contiguous arrivals that merge), completions in
/// any order, waits up to 60 ms.
fn script(seed: u64) -> Vec<Op> {
    let mut s = seed;
    let mut next = move |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n
    };
    (0..400)
        .map(|_| match next(9) {
            0..=5 => Op::Add {
                flow: next(4) as u32,
                sector: next(64) * 8,
                sectors: 1 + next(15) as u32,
                write: next(2) == 1,
            },
            6 | 7 => Op::Complete(next(8) as usize),
            _ => Op::Advance(Duration::from_millis(next(60))),
        })
        .collect()
}

/// Every script at depths 1 to 3, merging off and on, folded into one
/// fingerprint: (dispatches, hash of each run's fingerprint).
fn fingerprint_of<P: Scheduler>(make: impl Fn() -> P) -> (usize, u64) {
    let mut runs = Vec::new();
    for seed in [0x2545_f491_4f6c_dd1d, 7, 0x9e37_79b9_7f4a_7c15, 12345] {
        let ops = script(seed);
        for depth in 1..=3 {
            for merge in [false, true] {
                let mut tb = Testbed::new(make(), depth);
                if merge {
                    tb = tb.with_merging(64);
                }
                for op in &ops {
                    tb.step(op);
                }
                tb.drain();
                runs.push(tb.fingerprint());
            }
        }
    }
    let total = runs.iter().map(|r| r.0).sum();
    (total, fnv1a(runs.iter().flat_map(|&(n, h)| [n as u64, h])))
}

fn tight_deadline() -> DeadlineParams {
    DeadlineParams {
        read_expire: Duration::from_millis(7),
        write_expire: Duration::from_millis(21),
        fifo_batch: 3,
        ..DeadlineParams::default()
    }
}

#[test]
fn dispatch_order_fingerprints_are_unchanged() {
    let got = [
        fingerprint_of(Deadline::default),
        fingerprint_of(|| Deadline::with_params(tight_deadline())),
        fingerprint_of(Clook::default),
        fingerprint_of(Sstf::default),
    ];
    let want: [(usize, u64); 4] = [
        (6331, 11556595543167128439),
        (6335, 8019815033846681451),
        (6332, 10113542700751679344),
        (6339, 13411700878751838133),
    ];
    assert_eq!(got, want, "{got:?}");
}
