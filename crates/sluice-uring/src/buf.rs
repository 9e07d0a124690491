//! Buffers aligned for O_DIRECT.

use std::alloc::{self, Layout};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The alignment of every [`AlignedBuf`]: a page, enough for O_DIRECT on any
/// logical block size Linux supports.
pub const BUF_ALIGN: usize = 4096;

/// A zero-initialised byte buffer whose start is aligned to [`BUF_ALIGN`]
/// and whose capacity is a multiple of it, as O_DIRECT wants. Its length
/// (what a read fills or a write sends) is at most its capacity and need not
/// be a multiple of anything (O_DIRECT targets do want multiples of 512).
///
/// The engine owns a submitted buffer until the request completes and hands
/// it back in the [`crate::Completion`], so the kernel never writes to
/// memory the host has freed or reused.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    cap: usize,
}

// SAFETY: `AlignedBuf` owns its allocation exclusively, like `Vec<u8>`.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access is read-only through `&[u8]`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A buffer of `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        let cap = len.div_ceil(BUF_ALIGN).max(1) * BUF_ALIGN;
        let layout = Layout::from_size_align(cap, BUF_ALIGN).expect("buffer size overflows");
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, len, cap }
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(data: &[u8]) -> Self {
        let mut b = AlignedBuf::zeroed(data.len());
        b.copy_from_slice(data);
        b
    }

    /// Bytes the buffer holds (what a read asks for, what a write sends).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Allocated bytes (a multiple of [`BUF_ALIGN`]).
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Change the length within the capacity (bytes past the old length
    /// keep whatever they held: zeros or earlier data, never uninitialised
    /// memory). Panics if `len` exceeds the capacity.
    pub fn set_len(&mut self, len: usize) {
        assert!(
            len <= self.cap,
            "length {len} exceeds capacity {}",
            self.cap
        );
        self.len = len;
    }

    /// The start of the allocation (aligned to [`BUF_ALIGN`]).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr` points to `cap >= len` initialised bytes we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Clone for AlignedBuf {
    fn clone(&self) -> Self {
        AlignedBuf::from_slice(self)
    }
}

impl fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBuf")
            .field("len", &self.len)
            .field("cap", &self.cap)
            .finish()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.cap, BUF_ALIGN).expect("checked at allocation");
        // SAFETY: allocated in `zeroed` with this very layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_zeroed_and_sized() {
        for len in [0, 1, 511, 4096, 4097, 65536] {
            let b = AlignedBuf::zeroed(len);
            assert_eq!((b.as_ptr() as usize) % BUF_ALIGN, 0);
            assert_eq!(b.len(), len);
            assert!(b.capacity() >= len && b.capacity().is_multiple_of(BUF_ALIGN));
            assert!(b.iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn from_slice_and_clone_copy() {
        let b = AlignedBuf::from_slice(b"hello");
        let c = b.clone();
        assert_eq!(&c[..], b"hello");
        let mut d = c;
        d.set_len(4096);
        assert_eq!(&d[..5], b"hello");
        assert!(d[5..].iter().all(|&x| x == 0));
    }
}
