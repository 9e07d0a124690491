//! The reads the engine bench and the `overhead` example both time: 4 KiB
//! reads of a page-cached file, through a bare ring (the floor) or through
//! an engine running a policy.
//!
//! The file is in the temporary directory (`TMPDIR`), not on tmpfs: ext4
//! and xfs serve cached buffered reads inline at submission, while tmpfs
//! punts each to an io_uring worker thread, whose wake-ups then dominate.

use std::io::{self, Write};
use std::path::Path;

use io_uring::{opcode, types, IoUring};
use sluice::{policy, FlowConfig, FlowId};
use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetId, TargetOptions};

/// Bytes per read.
pub(crate) const REQ: usize = 4096;
/// Size of the file read.
pub(crate) const FILE: usize = 4 << 20;

/// A file of `FILE` bytes, written (and so in the page cache).
pub(crate) fn page_cached_file() -> io::Result<tempfile::NamedTempFile> {
    let mut f = tempfile::NamedTempFile::new()?;
    f.write_all(&vec![1u8; FILE])?;
    f.flush()?;
    Ok(f)
}

/// Where read `i` goes: spread over the file by a prime stride.
pub(crate) fn offset(i: usize) -> u64 {
    ((i * 7919) % (FILE / REQ) * REQ) as u64
}

/// The floor: one read into each of `bufs` through a bare ring, `depth`
/// in flight. A short or failed read is an error.
pub(crate) fn bare_reads(
    ring: &mut IoUring,
    fd: types::Fd,
    bufs: &mut [AlignedBuf],
    depth: usize,
) -> io::Result<()> {
    let n = bufs.len();
    let (mut sent, mut done) = (0, 0);
    while done < n {
        while sent < n && sent - done < depth {
            let e = opcode::Read::new(fd, bufs[sent].as_mut_ptr(), REQ as u32)
                .offset(offset(sent))
                .build()
                .user_data(sent as u64);
            // SAFETY: the buffers outlive the waits below, which reap every
            // read before returning.
            unsafe { ring.submission().push(&e) }.map_err(io::Error::other)?;
            sent += 1;
        }
        ring.submit_and_wait(1)?;
        for c in ring.completion() {
            if c.result() != REQ as i32 {
                return Err(io::Error::other(format!(
                    "bare read returned {}",
                    c.result()
                )));
            }
            done += 1;
        }
    }
    Ok(())
}

/// An engine running policy `name` at `depth` over the file at `path`,
/// with flows 0..`flows`. BFQ's idling is off: every batch ends with its
/// queues empty, and the measure is CPU, not anticipation.
pub(crate) fn engine(
    name: &str,
    depth: usize,
    path: &Path,
    flows: u32,
) -> sluice_uring::Result<(Engine, TargetId)> {
    let mut params = policy::Params::default();
    if name.starts_with("bfq") {
        params.insert("slice_idle_ms", policy::ParamValue::Int(0));
    }
    let p = policy::build(name, &params, &policy::BuildContext::default())
        .expect("the bench's policies build");
    let mut e = Engine::new(p, EngineConfig::with_queue_depth(depth))?;
    let t = e.open_target(path, &TargetOptions::read_only().direct(false))?;
    for f in 0..flows {
        e.add_flow(FlowId(f), &FlowConfig::default())?;
    }
    Ok((e, t))
}

/// One batch through the engine: a read into each of `bufs` (read `i`
/// from flow `i % flows`), run until idle; the buffers come back.
pub(crate) fn engine_reads(
    e: &mut Engine,
    t: TargetId,
    bufs: &mut Vec<AlignedBuf>,
    flows: usize,
) -> sluice_uring::Result<()> {
    for (i, buf) in bufs.drain(..).enumerate() {
        let flow = FlowId((i % flows) as u32);
        e.submit(Submission::read(flow, t, offset(i), buf))?;
    }
    for c in e.run_until_idle()? {
        bufs.push(c.buf);
    }
    Ok(())
}
