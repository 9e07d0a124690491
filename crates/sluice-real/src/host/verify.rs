//! `verify`: every written 512-byte block carries a stamp (magic, flow,
//! offset, generation) and a body derived from it; after the run sluice
//! reads back every block it wrote and counts those whose content is not a
//! stamp that could have been the last one written: a lost write (an older
//! stamp or the file's fill), a misdirected one (another offset or flow), a
//! torn one (a body that does not match its header).
//!
//! Two writes to the same block that were in the device together may land
//! in either order, so a block accepts every write that overlapped in time
//! the last one to complete.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use sluice::Instant;

const BLOCK: usize = 512;
const MAGIC: &[u8; 8] = b"SLUICEVB";

/// What a written block may hold: the generations of the writes that may
/// have landed last, with their completion instants.
type Candidates = Vec<(u64, Instant)>;

/// The stamps handed out and the blocks they went to.
#[derive(Default)]
pub(crate) struct Verifier {
    next_generation: u64,
    /// (flow, block index in the flow's data) -> candidates; `None` once
    /// a write there failed (its content is unknown, and not checked).
    blocks: HashMap<(u32, u64), Option<Candidates>>,
}

/// One stamped write: where it goes and its generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamped {
    pub(crate) flow: u32,
    /// Byte offset in the flow's data.
    pub(crate) offset: u64,
    pub(crate) len: usize,
    pub(crate) generation: u64,
}

/// What the read-back found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Blocks read back and checked.
    pub(crate) verified: u64,
    /// Blocks whose content was not an acceptable stamp.
    pub(crate) errors: u64,
}

fn body_byte(offset: u64, generation: u64, i: usize) -> u8 {
    let x = (offset / BLOCK as u64)
        .wrapping_mul(131)
        .wrapping_add(generation.wrapping_mul(29))
        .wrapping_add(i as u64);
    (x % 251) as u8 + 1
}

fn stamp_block(b: &mut [u8], flow: u32, offset: u64, generation: u64) {
    b[..8].copy_from_slice(MAGIC);
    b[8..16].copy_from_slice(&generation.to_le_bytes());
    b[16..24].copy_from_slice(&offset.to_le_bytes());
    b[24..28].copy_from_slice(&flow.to_le_bytes());
    b[28..32].fill(0);
    for (i, x) in b[32..].iter_mut().enumerate() {
        *x = body_byte(offset, generation, i);
    }
}

/// The generation a block holds, if it is a well-formed stamp of `flow` at
/// `offset`.
fn read_stamp(b: &[u8], flow: u32, offset: u64) -> Option<u64> {
    let word = |r: std::ops::Range<usize>| {
        let mut w = [0u8; 8];
        w[..r.len()].copy_from_slice(&b[r]);
        u64::from_le_bytes(w)
    };
    if &b[..8] != MAGIC || word(16..24) != offset || word(24..28) != u64::from(flow) {
        return None;
    }
    let generation = word(8..16);
    b[32..]
        .iter()
        .enumerate()
        .all(|(i, &x)| x == body_byte(offset, generation, i))
        .then_some(generation)
}

impl Verifier {
    /// Stamp `buf`, about to be written at byte `offset` of flow `flow`'s
    /// data.
    pub(crate) fn stamp(&mut self, flow: u32, offset: u64, buf: &mut [u8]) -> Stamped {
        let generation = self.next_generation;
        self.next_generation += 1;
        for (k, b) in buf.chunks_exact_mut(BLOCK).enumerate() {
            stamp_block(b, flow, offset + (k * BLOCK) as u64, generation);
        }
        Stamped {
            flow,
            offset,
            len: buf.len(),
            generation,
        }
    }

    /// The write `w`, dispatched at `dispatched`, completed at `completed`:
    /// successfully, or not (`ok` false: what its blocks hold is unknown).
    pub(crate) fn written(
        &mut self,
        w: &Stamped,
        dispatched: Instant,
        completed: Instant,
        ok: bool,
    ) {
        let (flow, generation) = (w.flow, w.generation);
        let first = w.offset / BLOCK as u64;
        for block in first..first + (w.len / BLOCK) as u64 {
            let entry = self.blocks.entry((flow, block)).or_insert(Some(Vec::new()));
            if !ok {
                *entry = None;
            }
            let Some(c) = entry else {
                continue;
            };
            // Writes that completed before this one was dispatched are
            // overwritten; those that overlapped it may still be on top.
            c.retain(|&(_, done)| done > dispatched);
            c.push((generation, completed));
        }
    }

    /// Read back every written block of every flow: `source(flow)` gives
    /// the file holding the flow's data and the byte where it starts.
    pub(crate) fn check(
        &self,
        mut source: impl FnMut(u32) -> io::Result<(File, u64)>,
    ) -> io::Result<Outcome> {
        let mut keys: Vec<&(u32, u64)> = self.blocks.keys().collect();
        keys.sort_unstable();
        let mut out = Outcome::default();
        let mut open: Option<(u32, File, u64)> = None;
        let mut buf = vec![0u8; BLOCK];
        for &(flow, block) in keys {
            let Some(candidates) = &self.blocks[&(flow, block)] else {
                continue;
            };
            if open.as_ref().is_none_or(|o| o.0 != flow) {
                let (f, base) = source(flow)?;
                open = Some((flow, f, base));
            }
            let (_, file, base) = open.as_ref().expect("opened above");
            let offset = block * BLOCK as u64;
            file.read_exact_at(&mut buf, base + offset)?;
            out.verified += 1;
            let good = read_stamp(&buf, flow, offset)
                .is_some_and(|g| candidates.iter().any(|&(c, _)| c == g));
            out.errors += u64::from(!good);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + sluice::Duration::from_millis(ms)
    }

    #[test]
    fn a_stamp_reads_back_and_a_torn_one_does_not() {
        let mut v = Verifier::default();
        let mut b = vec![0u8; 1024];
        let g = v.stamp(3, 4096, &mut b).generation;
        assert_eq!(read_stamp(&b[..512], 3, 4096), Some(g));
        assert_eq!(read_stamp(&b[512..], 3, 4608), Some(g));
        assert_eq!(read_stamp(&b[512..], 3, 4096), None, "misdirected");
        assert_eq!(read_stamp(&b[..512], 2, 4096), None, "another flow");
        b[100] ^= 1;
        assert_eq!(read_stamp(&b[..512], 3, 4096), None, "torn body");
    }

    #[test]
    fn overlapping_writes_both_count_and_older_ones_do_not() {
        let mut v = Verifier::default();
        let mut b = vec![0u8; 512];
        let old = v.stamp(0, 0, &mut b);
        v.written(&old, at(0), at(1), true);
        let a = v.stamp(0, 0, &mut b);
        let c = v.stamp(0, 0, &mut b);
        // a and c in the device together; a completes last.
        v.written(&c, at(2), at(3), true);
        v.written(&a, at(2), at(4), true);
        let gens: Vec<u64> = v.blocks[&(0, 0)]
            .as_ref()
            .unwrap()
            .iter()
            .map(|x| x.0)
            .collect();
        assert_eq!(gens, vec![c.generation, a.generation]);
        // A failed write leaves the block unknown: not checked.
        v.written(&old, at(5), at(6), false);
        assert!(v.blocks[&(0, 0)].is_none());
    }

    #[test]
    fn check_counts_lost_writes() {
        let dir = std::env::temp_dir().join(format!("sluice-verify-{}", std::process::id()));
        let mut v = Verifier::default();
        let mut data = vec![0u8; 2048];
        let w1 = v.stamp(1, 0, &mut data[..1024]);
        v.written(&w1, at(0), at(1), true);
        // A second write of block 0 that the file never got.
        let mut lost = vec![0u8; 512];
        let w2 = v.stamp(1, 0, &mut lost);
        v.written(&w2, at(2), at(3), true);
        let mut f = File::create(&dir).unwrap();
        f.write_all(&data).unwrap();
        let out = v.check(|_| Ok((File::open(&dir)?, 0))).unwrap();
        let _ = std::fs::remove_file(&dir);
        assert_eq!(
            out,
            Outcome {
                verified: 2,
                errors: 1
            }
        );
    }
}
