//! The emulated disk's contents: sparse, in memory, 4 KiB blocks; what was
//! never written reads as zeros.

use std::collections::BTreeMap;

const BLOCK: u64 = 4096;

/// Sparse byte store of a fixed size.
#[derive(Default)]
pub struct Store {
    blocks: BTreeMap<u64, Box<[u8; BLOCK as usize]>>,
}

impl Store {
    /// An empty store: every byte reads as zero.
    pub fn new() -> Self {
        Store::default()
    }

    /// Bytes held in memory (written blocks).
    pub fn resident_bytes(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK
    }

    /// Fill `buf` from `offset`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) {
        let mut done = 0usize;
        while done < buf.len() {
            let pos = offset + done as u64;
            let (block, within) = (pos / BLOCK, (pos % BLOCK) as usize);
            let n = (BLOCK as usize - within).min(buf.len() - done);
            match self.blocks.get(&block) {
                Some(b) => buf[done..done + n].copy_from_slice(&b[within..within + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
        }
    }

    /// Store `data` at `offset`. Blocks written whole with zeros are
    /// dropped again, so zeroing the disk gives its memory back.
    pub fn write(&mut self, offset: u64, data: &[u8]) {
        let mut done = 0usize;
        while done < data.len() {
            let pos = offset + done as u64;
            let (block, within) = (pos / BLOCK, (pos % BLOCK) as usize);
            let n = (BLOCK as usize - within).min(data.len() - done);
            let src = &data[done..done + n];
            if n == BLOCK as usize && src.iter().all(|&b| b == 0) {
                self.blocks.remove(&block);
            } else {
                let b = self
                    .blocks
                    .entry(block)
                    .or_insert_with(|| Box::new([0; BLOCK as usize]));
                b[within..within + n].copy_from_slice(src);
            }
            done += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritten_reads_zero_and_writes_read_back_across_blocks() {
        let mut s = Store::new();
        let mut buf = vec![7u8; 10_000];
        s.read(123, &mut buf);
        assert!(buf.iter().all(|&b| b == 0));
        let data: Vec<u8> = (0..9000u32).map(|i| (i % 251) as u8 + 1).collect();
        s.write(4000, &data);
        let mut back = vec![0u8; 9000];
        s.read(4000, &mut back);
        assert_eq!(back, data);
        let mut edge = [9u8; 8];
        s.read(3996, &mut edge);
        assert_eq!(&edge[..4], &[0, 0, 0, 0]);
        assert_eq!(&edge[4..], &data[..4]);
        assert_eq!(s.resident_bytes(), 4 * BLOCK);
        s.write(0, &[0u8; 4 * BLOCK as usize]);
        assert_eq!(s.resident_bytes(), 0);
    }
}
