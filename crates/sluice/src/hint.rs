//! Cache hints: ask the processor to start loading memory that is about to
//! be read, so that several misses overlap instead of coming one after
//! another. A hint changes no result, only when data arrives; on targets
//! without a prefetch instruction it does nothing.

/// Bytes per cache line on the machines sluice runs on (x86-64 and most
/// ARM cores).
pub const CACHE_LINE: usize = 64;

/// Start loading the cache line that holds `p` (x86-64's PREFETCHT0).
/// Never faults, whatever `p` points at.
#[inline(always)]
pub fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint; it does not fault on any address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Start loading every cache line `value` occupies (not what it points
/// to).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    let start = (value as *const T).cast::<u8>();
    let len = std::mem::size_of::<T>();
    let mut off = 0;
    while off < len {
        prefetch_line(start.wrapping_add(off));
        off += CACHE_LINE;
    }
    // The line of the last byte, when `value` straddles one more.
    prefetch_line(start.wrapping_add(len.saturating_sub(1)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_change_nothing() {
        let big = [7u8; 300];
        prefetch(&big);
        prefetch(&());
        prefetch_line(std::ptr::null());
        prefetch_line(usize::MAX as *const u8);
        assert_eq!(big, [7u8; 300]);
    }
}
