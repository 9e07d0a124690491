//! A two-tenant host: tenant `a` is guaranteed 300 IOPS (an mClock
//! reservation), tenant `b` may use at most 200 (a limit), and a
//! best-effort tenant `c` of weight 400 takes what is left. Each keeps 8
//! random 4 KiB reads in flight on one file for two seconds.
//! Run: `cargo run --release -p sluice-uring --example tenants`.

use std::io::Write;
use std::time::{Duration, Instant};

use sluice::{policy, FlowConfig, FlowId};
use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetOptions, Wait};

const REQ: usize = 4096;
const FILE: u64 = 64 << 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut file = tempfile::NamedTempFile::new()?;
    file.write_all(&vec![7u8; FILE as usize])?;
    let mclock = policy::build(
        "mclock",
        &policy::Params::default(),
        &policy::BuildContext::default(),
    )?;
    let mut engine = Engine::new(mclock, EngineConfig::with_queue_depth(4))?;
    let target = engine.open_target(file.path(), &TargetOptions::read_only())?;

    // (name, weight, reserved IOPS, IOPS limit)
    let tenants = [
        ("a", 100, Some(300.0), None),
        ("b", 100, None, Some(200.0)),
        ("c", 400, None, None),
    ];
    let configs = tenants.map(|(_, weight, reservation_iops, limit_iops)| FlowConfig {
        qos: sluice::Qos {
            weight,
            reservation_iops,
            limit_iops,
            ..sluice::Qos::default()
        },
        ..FlowConfig::default()
    });
    for (i, config) in configs.iter().enumerate() {
        engine.add_flow(FlowId(i as u32), config)?;
    }

    // A cheap deterministic walk over the file's 4 KiB blocks.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut read = |engine: &mut Engine, flow: u32| -> Result<(), sluice_uring::Error> {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let offset = (seed >> 33) % (FILE / REQ as u64) * REQ as u64;
        let buf = AlignedBuf::zeroed(REQ);
        engine.submit(Submission::read(FlowId(flow), target, offset, buf))?;
        Ok(())
    };
    for flow in 0..tenants.len() as u32 {
        for _ in 0..8 {
            read(&mut engine, flow)?;
        }
    }

    let start = Instant::now();
    let mut done = [0u64; 3];
    while start.elapsed() < Duration::from_secs(2) {
        engine.poll(Wait::Any)?;
        while let Some(c) = engine.next_completion() {
            c.result?;
            done[c.flow.0 as usize] += 1;
            read(&mut engine, c.flow.0)?; // keep 8 in flight
        }
    }
    let secs = start.elapsed().as_secs_f64();
    for (i, (name, weight, reserved, limit)) in tenants.iter().enumerate() {
        let iops = done[i] as f64 / secs;
        println!("tenant {name}: {iops:7.0} IOPS (weight {weight}, reservation {reserved:?}, limit {limit:?})");
    }
    Ok(())
}
