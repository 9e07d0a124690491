//! Embedding the engine: two greedy readers of one file, weights 100 and
//! 300, under BFQ. Run: `cargo run -p sluice-uring --example embed`.

use std::io::Write;

use sluice::{policy, FlowConfig, FlowId};
use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetOptions, Wait};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const REQ: usize = 64 * 1024;
    const FILE: u64 = 64 << 20;
    let mut file = tempfile::NamedTempFile::new()?;
    file.write_all(&vec![7u8; FILE as usize])?;

    let bfq = policy::build(
        "bfq",
        &policy::Params::default(),
        &policy::BuildContext::default(),
    )?;
    let mut engine = Engine::new(bfq, EngineConfig::with_queue_depth(1))?;
    let target = engine.open_target(file.path(), &TargetOptions::read_only())?;
    if let Some(why) = &engine.target(target).unwrap().direct_fallback {
        eprintln!("warning: {why}");
    }
    let weights = [100, 300];
    for (i, &weight) in weights.iter().enumerate() {
        let config = FlowConfig::weighted(weight);
        engine.add_flow(FlowId(i as u32), &config)?;
    }

    // Each flow reads its half of the file sequentially, 8 requests ahead.
    let mut next = [0u64, FILE / 2];
    let mut read = |engine: &mut Engine, flow: usize| -> Result<(), sluice_uring::Error> {
        let buf = AlignedBuf::zeroed(REQ);
        let offset = next[flow] % (FILE / 2) + flow as u64 * FILE / 2;
        next[flow] += REQ as u64;
        engine.submit(Submission::read(FlowId(flow as u32), target, offset, buf))?;
        Ok(())
    };
    for flow in (0..16).map(|i| i % 2) {
        read(&mut engine, flow)?;
    }
    let mut bytes = [0usize; 2];
    for _ in 0..4000 {
        engine.poll(Wait::Any)?;
        while let Some(done) = engine.next_completion() {
            let flow = done.flow.0 as usize;
            bytes[flow] += done.result?;
            read(&mut engine, flow)?; // greedy: replace what completed
        }
    }
    for (flow, b) in bytes.iter().enumerate() {
        let mb = *b as f64 / 1e6;
        println!("flow {flow} weight {}: {mb:.1} MB", weights[flow]);
    }
    Ok(())
}
