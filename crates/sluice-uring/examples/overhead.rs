//! The engine's own cost per request, measured the steady way: batches of
//! page-cached 4 KiB reads from 4,096 flows (one and four requests per flow
//! per batch, 32 in flight), each engine batch timed between two bare-ring
//! batches of the same reads, and the median over rounds of
//! `(engine - mean of its two neighbours) / requests`.
//!
//! The `engine-4096-flows` criterion bench measures the same reads, but
//! times the engine and the bare ring minutes apart; on a shared machine
//! whose speed drifts, their difference swings by 2x between runs. Here
//! every difference is taken within a second.
//!
//! Run: `cargo run --release -p sluice-uring --example overhead [ROUNDS]`
//! (default 30).

use std::os::fd::AsRawFd;
use std::time::Instant;

use io_uring::{types, IoUring};
use sluice_uring::AlignedBuf;

// The engine bench's reads, so that both time the same thing.
#[path = "../benches/common/mod.rs"]
mod common;
use common::{bare_reads, engine, engine_reads, page_cached_file, REQ};

const FLOWS: usize = 4096;
const DEPTH: usize = 32;
const POLICIES: [&str; 2] = ["bfq+", "noop"];

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .ok()
            .filter(|&n| (1..=10_000).contains(&n))
            .ok_or("ROUNDS: expected a whole number from 1 to 10000")?,
        None => 30,
    };
    let file = page_cached_file()?;
    let fd = types::Fd(file.as_file().as_raw_fd());
    let mut ring = IoUring::new(DEPTH as u32)?;
    println!("ns per request, median of {rounds} rounds (quartiles): the bare ring, then each engine over it");
    for per_flow in [1, 4] {
        let n = FLOWS * per_flow;
        let mut bufs: Vec<AlignedBuf> = (0..n).map(|_| AlignedBuf::zeroed(REQ)).collect();
        let mut engines = Vec::new();
        for name in POLICIES {
            engines.push(engine(name, DEPTH, file.path(), FLOWS as u32)?);
        }
        let mut over = vec![Vec::with_capacity(rounds); POLICIES.len()];
        let mut floors = Vec::with_capacity(rounds * POLICIES.len());
        // Two rounds to warm the caches and the page cache, not counted.
        for round in 0..rounds + 2 {
            for (k, (e, t)) in engines.iter_mut().enumerate() {
                let t0 = Instant::now();
                bare_reads(&mut ring, fd, &mut bufs, DEPTH)?;
                let t1 = Instant::now();
                engine_reads(e, *t, &mut bufs, FLOWS)?;
                let t2 = Instant::now();
                bare_reads(&mut ring, fd, &mut bufs, DEPTH)?;
                let t3 = Instant::now();
                let floor = ((t1 - t0) + (t3 - t2)).as_secs_f64() / 2.0;
                if round >= 2 {
                    over[k].push(((t2 - t1).as_secs_f64() - floor) / n as f64 * 1e9);
                    floors.push(floor / n as f64 * 1e9);
                }
            }
        }
        let (low, mid, high) = quartiles(&mut floors);
        println!("{per_flow} per flow, bare ring itself: {mid:5.0} ({low:.0} .. {high:.0})");
        for (name, d) in POLICIES.iter().zip(&mut over) {
            let (low, mid, high) = quartiles(d);
            println!("{per_flow} per flow, {name:>5}: {mid:5.0} ({low:.0} .. {high:.0})");
        }
    }
    Ok(())
}

/// Lower quartile, median and upper quartile of `d`, the lower rounded down
/// and the upper up, so that the three differ whenever the rounds do.
fn quartiles(d: &mut [f64]) -> (f64, f64, f64) {
    d.sort_by(f64::total_cmp);
    let last = d.len() - 1;
    (d[last / 4], d[last / 2], d[(3 * last).div_ceil(4)])
}
