//! What the drive works on: the host's requests as they pass through it,
//! and the flash transactions (one page read, program or block erase each)
//! the requests, the cache, the mapping table and garbage collection
//! become.

/// No index (a transaction without a request, a write without an update
/// read...).
pub(crate) const NONE: u32 = u32::MAX;

/// A slab: items addressed by a `u32` index, slots reused.
#[derive(Clone, Debug)]
pub(crate) struct Slab<T> {
    items: Vec<Option<T>>,
    spare: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            items: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    /// Store `item`; returns its index.
    pub(crate) fn insert(&mut self, item: T) -> u32 {
        match self.spare.pop() {
            Some(i) => {
                self.items[i as usize] = Some(item);
                i
            }
            None => {
                self.items.push(Some(item));
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Take item `i` out.
    pub(crate) fn remove(&mut self, i: u32) -> Option<T> {
        let item = self.items.get_mut(i as usize)?.take();
        if item.is_some() {
            self.spare.push(i);
        }
        item
    }

    /// Item `i`.
    pub(crate) fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize)?.as_ref()
    }

    /// Item `i`, mutably.
    pub(crate) fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize)?.as_mut()
    }
}

/// A host request inside the drive.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    /// The driver's tag.
    pub(crate) tag: u64,
    /// The flow (submission queue).
    pub(crate) stream: u32,
    /// A write.
    pub(crate) write: bool,
    /// First sector and length.
    pub(crate) lba: u64,
    /// Sectors.
    pub(crate) sectors: u32,
    /// Write transactions not yet taken into the cache.
    pub(crate) waiting: Vec<u32>,
    /// Flash transactions of this request still under way.
    pub(crate) in_flash: u32,
    /// Sectors of this request still moving through the DRAM.
    pub(crate) in_dram: u32,
}

/// What a transaction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// Read a page (or part of one).
    Read,
    /// Program a page.
    Write,
    /// Erase a block.
    Erase,
}

/// Who asked for a transaction: the order the scheduler serves them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A host request (or the update read of one).
    User,
    /// The cache writing back or evicting a page.
    Cache,
    /// The mapping table (translation pages).
    Mapping,
    /// Garbage collection.
    Gc,
}

/// One flash transaction.
#[derive(Clone, Debug)]
pub(crate) struct Tx {
    /// Read, program or erase.
    pub(crate) op: Op,
    /// Who asked.
    pub(crate) source: Source,
    /// The flow it is for.
    pub(crate) stream: u32,
    /// The logical page (for mapping reads: the translation page).
    pub(crate) lpa: u64,
    /// Sectors of the page it covers (bit per sector).
    pub(crate) sectors: u64,
    /// Bytes moved over the channel.
    pub(crate) bytes: u32,
    /// The host request waiting for it, or [`NONE`].
    pub(crate) request: u32,
    /// Flat plane index, block and page, once placed.
    pub(crate) plane: u32,
    /// Block in the plane.
    pub(crate) block: u32,
    /// Page in the block.
    pub(crate) page: u32,
    /// A write: its update read still to finish ([`NONE`] when none); an
    /// update read: its write; a GC read: its erase; a GC write: its
    /// erase.
    pub(crate) related: u32,
    /// An erase: page moves still to finish.
    pub(crate) moves: u32,
    /// When its data was written by the host (orders cache updates).
    pub(crate) stamp: u64,
    /// The NVMe priority class of its flow (0 urgent .. 3 low).
    pub(crate) priority: u8,
}

/// The number of sectors a sector bitmap covers.
pub(crate) fn sectors_in(bitmap: u64) -> u32 {
    bitmap.count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_reuses_freed_slots() {
        let mut s = Slab::default();
        let a = s.insert('a');
        let b = s.insert('b');
        assert_eq!(s.remove(a), Some('a'));
        assert_eq!(s.remove(a), None);
        let c = s.insert('c');
        assert_eq!(c, a);
        assert_eq!(s.get(b), Some(&'b'));
        *s.get_mut(c).expect("c") = 'd';
        assert_eq!(s.get(c), Some(&'d'));
    }
}
