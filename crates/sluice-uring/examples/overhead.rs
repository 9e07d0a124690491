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

use std::io::Write;
use std::os::fd::AsRawFd;
use std::time::Instant;

use io_uring::{opcode, types, IoUring};
use sluice::{policy, FlowConfig, FlowId};
use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetId, TargetOptions};

const FLOWS: usize = 4096;
const DEPTH: usize = 32;
const REQ: usize = 4096;
const FILE: usize = 4 << 20;
const POLICIES: [&str; 2] = ["bfq+", "noop"];

type Error = Box<dyn std::error::Error>;

fn offset(i: usize) -> u64 {
    ((i * 7919) % (FILE / REQ) * REQ) as u64
}

/// The floor: the same reads through a bare ring, `DEPTH` in flight.
fn bare(ring: &mut IoUring, fd: types::Fd, bufs: &mut [AlignedBuf]) -> Result<(), Error> {
    let n = bufs.len();
    let (mut sent, mut done) = (0, 0);
    while done < n {
        while sent < n && sent - done < DEPTH {
            let e = opcode::Read::new(fd, bufs[sent].as_mut_ptr(), REQ as u32)
                .offset(offset(sent))
                .build()
                .user_data(sent as u64);
            // SAFETY: the buffers outlive the wait below, which reaps every
            // read before returning.
            unsafe { ring.submission().push(&e)? };
            sent += 1;
        }
        ring.submit_and_wait(1)?;
        for c in ring.completion() {
            if c.result() != REQ as i32 {
                return Err(format!("bare read returned {}", c.result()).into());
            }
            done += 1;
        }
    }
    Ok(())
}

/// One batch through the engine: every buffer submitted, run to idle.
fn batch(
    e: &mut Engine,
    t: TargetId,
    bufs: &mut Vec<AlignedBuf>,
) -> Result<(), sluice_uring::Error> {
    for (i, buf) in bufs.drain(..).enumerate() {
        let flow = FlowId((i % FLOWS) as u32);
        e.submit(Submission::read(flow, t, offset(i), buf))?;
    }
    for c in e.run_until_idle()? {
        bufs.push(c.buf);
    }
    Ok(())
}

/// An engine running `name` over `path` with `FLOWS` flows. BFQ's idling
/// is off: every batch ends with its queues empty (as in the bench).
fn engine(name: &str, path: &std::path::Path) -> Result<(Engine, TargetId), Error> {
    let mut params = policy::Params::default();
    if name.starts_with("bfq") {
        params.insert("slice_idle_ms", policy::ParamValue::Int(0));
    }
    let mut e = Engine::new(
        policy::build(name, &params)?,
        EngineConfig::with_queue_depth(DEPTH),
    )?;
    let t = e.open_target(path, &TargetOptions::read_only().direct(false))?;
    for f in 0..FLOWS {
        e.add_flow(FlowId(f as u32), &FlowConfig::default())?;
    }
    Ok((e, t))
}

fn main() -> Result<(), Error> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .ok()
            .filter(|&n| (1..=10_000).contains(&n))
            .ok_or("ROUNDS: expected a whole number from 1 to 10000")?,
        None => 30,
    };
    let mut file = tempfile::NamedTempFile::new()?;
    file.write_all(&vec![1u8; FILE])?;
    file.flush()?;
    let fd = types::Fd(file.as_file().as_raw_fd());
    let mut ring = IoUring::new(DEPTH as u32)?;
    println!("ns per request over the bare ring, median of {rounds} rounds (quartiles)");
    for per_flow in [1, 4] {
        let n = FLOWS * per_flow;
        let mut bufs: Vec<AlignedBuf> = (0..n).map(|_| AlignedBuf::zeroed(REQ)).collect();
        let mut engines = Vec::new();
        for name in POLICIES {
            engines.push(engine(name, file.path())?);
        }
        let mut over = vec![Vec::with_capacity(rounds); POLICIES.len()];
        // Two rounds to warm the caches and the page cache, not counted.
        for round in 0..rounds + 2 {
            for (k, (e, t)) in engines.iter_mut().enumerate() {
                let t0 = Instant::now();
                bare(&mut ring, fd, &mut bufs)?;
                let t1 = Instant::now();
                batch(e, *t, &mut bufs)?;
                let t2 = Instant::now();
                bare(&mut ring, fd, &mut bufs)?;
                let t3 = Instant::now();
                let floor = ((t1 - t0) + (t3 - t2)).as_secs_f64() / 2.0;
                if round >= 2 {
                    over[k].push(((t2 - t1).as_secs_f64() - floor) / n as f64 * 1e9);
                }
            }
        }
        for (name, d) in POLICIES.iter().zip(&mut over) {
            d.sort_by(f64::total_cmp);
            // Lower quartile rounded down, upper rounded up, so that the
            // three differ whenever the rounds do.
            let last = d.len() - 1;
            let (low, mid, high) = (d[last / 4], d[last / 2], d[(3 * last).div_ceil(4)]);
            println!("{per_flow} per flow, {name:>5}: {mid:5.0} ({low:.0} .. {high:.0})");
        }
    }
    Ok(())
}
