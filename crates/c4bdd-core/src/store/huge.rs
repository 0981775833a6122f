//! An allocator for the binary: large blocks in mappings of whole huge pages.
//!
//! The BDD tables (node arena, unique table, computed cache, the three-way
//! split's table, the bit vectors of marking and counting) are read at
//! random, so nearly every access misses the TLB unless one entry covers
//! 2 MiB (a transparent huge page) instead of 4 KiB.
//!
//! Blocks of at least [`LARGE`] bytes (with at most page alignment) are each
//! mapped on their own, their length rounded up to whole 2 MiB pages, and
//! advised `MADV_HUGEPAGE` before their pages are first touched; they grow
//! and shrink with `mremap`. Recent Linux kernels (6.18 on this project's
//! machine) place an anonymous mapping whose length is a multiple of 2 MiB on
//! a 2 MiB boundary, and keep that alignment when `mremap` moves it, so a
//! table keeps its huge pages as it grows (a kernel that does not still gives
//! correct blocks, with fewer huge pages). glibc's own mappings (a header
//! before the block, a length in 4 KiB pages) lose them: when a grown
//! table's mapping moved, its old pages came back as 4 KiB pages, and a 6x4
//! solve held 49 of its 145 MB in huge pages. Smaller blocks, and every
//! block on other systems, go to the system allocator.
//!
//! The library does not install it: `main.rs`, the benchmarks and the
//! integration tests do, with `#[global_allocator]`.
//!
//! Invariant: on Linux, a block whose layout has `size >= LARGE` and
//! `align <= PAGE` was made by `map` (or `remap`), its mapping `size`
//! rounded up to whole huge pages; every other block belongs to the system
//! allocator. Both sides decide by the layout alone, which `dealloc` and
//! `realloc` receive unchanged.

use std::alloc::{GlobalAlloc, Layout, System};

/// Bytes of a huge page.
pub(crate) const HUGE_PAGE: usize = 2 << 20;
/// Smallest block mapped on its own: one huge page.
const LARGE: usize = HUGE_PAGE;
/// Alignment every mapping has.
const PAGE: usize = 4096;

/// The allocator: see the module documentation.
pub struct HugePageAlloc;

/// The function [`on_failure`] installed, as an address (0: none).
static ON_FAILURE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Call `stop` (with the size asked for) when an allocation fails, instead of
/// returning null to the caller (after which Rust aborts the process). It
/// runs inside the allocator: it must not allocate, and it ends the process.
/// A sweep's worker uses it to stop cleanly at its memory limit.
pub fn on_failure(stop: fn(usize) -> !) {
    ON_FAILURE.store(stop as usize, std::sync::atomic::Ordering::Relaxed);
}

/// `p`, or, when it is null and [`on_failure`] installed a function, that
/// function's end of the process.
#[inline]
fn checked(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        let f = ON_FAILURE.load(std::sync::atomic::Ordering::Relaxed);
        if f != 0 {
            // SAFETY: a non-zero value was stored from a `fn(usize) -> !`.
            let stop: fn(usize) -> ! = unsafe { std::mem::transmute::<usize, fn(usize) -> !>(f) };
            stop(size);
        }
    }
    p
}

/// Whether a block of this layout is mapped on its own.
#[inline(always)]
fn large(size: usize, align: usize) -> bool {
    cfg!(target_os = "linux") && size >= LARGE && align <= PAGE
}

#[cfg(target_os = "linux")]
mod os {
    use super::HUGE_PAGE;

    /// The mapping length of a large block of `size` bytes.
    fn mapped(size: usize) -> usize {
        size.next_multiple_of(HUGE_PAGE)
    }

    /// A fresh zeroed mapping for `size` bytes, advised; null on failure.
    ///
    /// # Safety
    /// `size` is not zero. The caller owns the mapping and gives it back with
    /// [`unmap`] or [`remap`] with the same `size`.
    pub(super) unsafe fn map(size: usize) -> *mut u8 {
        let len = mapped(size);
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // SAFETY: a new anonymous mapping; no existing memory is touched.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, -1, 0) };
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        // SAFETY: the mapping just made; the advice changes no contents.
        unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
        p.cast()
    }

    /// Resize the mapping of a `old` byte block at `p` for `new` bytes
    /// (moving it if need be, contents kept); null on failure, `p` then
    /// unchanged.
    ///
    /// # Safety
    /// `p` was returned by [`map`] or [`remap`] for `old` bytes and is not
    /// used again unless the call fails; `new` is not zero.
    pub(super) unsafe fn remap(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let (old_len, new_len) = (mapped(old), mapped(new));
        if old_len == new_len {
            return p;
        }
        // SAFETY: `p` is a mapping of `old_len` bytes made by `map`, which
        // the caller owns and gives up on success.
        let q = unsafe { libc::mremap(p.cast(), old_len, new_len, libc::MREMAP_MAYMOVE) };
        if q == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        // SAFETY: the mapping now at `q`; the advice changes no contents.
        unsafe { libc::madvise(q, new_len, libc::MADV_HUGEPAGE) };
        q.cast()
    }

    /// Unmap a block of `size` bytes made by `map`.
    ///
    /// # Safety
    /// `p` was returned by [`map`] or [`remap`] for `size` bytes and is not
    /// used again.
    pub(super) unsafe fn unmap(p: *mut u8, size: usize) {
        // SAFETY: `p` is a mapping of `mapped(size)` bytes that the caller gives up.
        unsafe { libc::munmap(p.cast(), mapped(size)) };
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    // `large` is false off Linux, so these are never called.

    /// # Safety
    /// Never called (see above).
    pub(super) unsafe fn map(_: usize) -> *mut u8 {
        unreachable!()
    }
    /// # Safety
    /// Never called (see above).
    pub(super) unsafe fn remap(_: *mut u8, _: usize, _: usize) -> *mut u8 {
        unreachable!()
    }
    /// # Safety
    /// Never called (see above).
    pub(super) unsafe fn unmap(_: *mut u8, _: usize) {
        unreachable!()
    }
}

// SAFETY: large blocks are whole private mappings, at least page aligned,
// of at least the requested size, zeroed when fresh, kept until `dealloc`;
// `realloc` keeps the contents up to the smaller size. Every other block is
// the system allocator's (see the invariant above).
unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = match large(layout.size(), layout.align()) {
            // SAFETY: see the impl's comment.
            true => unsafe { os::map(layout.size()) },
            // SAFETY: the caller's layout, passed on unchanged.
            false => unsafe { System.alloc(layout) },
        };
        checked(p, layout.size())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = match large(layout.size(), layout.align()) {
            // SAFETY: a fresh mapping is zeroed.
            true => unsafe { os::map(layout.size()) },
            // SAFETY: the caller's layout, passed on unchanged.
            false => unsafe { System.alloc_zeroed(layout) },
        };
        checked(p, layout.size())
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        match large(layout.size(), layout.align()) {
            // SAFETY: the block was made by `map` (the invariant).
            true => unsafe { os::unmap(p, layout.size()) },
            // SAFETY: a small block is the system allocator's (the invariant).
            false => unsafe { System.dealloc(p, layout) },
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (large(layout.size(), align), large(new_size, align)) {
            // SAFETY: the block was made by `map` (the invariant).
            (true, true) => checked(unsafe { os::remap(p, layout.size(), new_size) }, new_size),
            // SAFETY: a small block is the system allocator's, and stays small.
            (false, false) => checked(unsafe { System.realloc(p, layout, new_size) }, new_size),
            _ => {
                // SAFETY: the new layout is valid (the caller's contract on
                // `new_size`); the block moves between the two allocators.
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                // SAFETY: a valid layout of non-zero size (the caller's `new_size`).
                let q = unsafe { self.alloc(new_layout) };
                if !q.is_null() {
                    // SAFETY: both blocks hold at least the smaller size and do not overlap.
                    unsafe {
                        std::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                        self.dealloc(p, layout);
                    }
                }
                q
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    use super::{HugePageAlloc, HUGE_PAGE, LARGE};

    fn pattern(i: usize) -> u8 {
        (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1]
    }

    /// Blocks cross between the two allocators and grow and shrink as
    /// mappings with their contents kept; fresh large blocks are zeroed and
    /// start a page.
    #[test]
    fn contents_survive_every_kind_of_resize() {
        let a = HugePageAlloc;
        let align = 8;
        let mut size = 1000;
        // SAFETY: every layout has a non-zero size; each block is used only
        // within its size and given back once, with the layout it has.
        unsafe {
            let mut p = a.alloc(Layout::from_size_align(size, align).unwrap());
            (0..size).for_each(|i| *p.add(i) = pattern(i));
            for new in [LARGE / 4 + 7, 3 * HUGE_PAGE / 4, LARGE, 5 * LARGE / 4 + 3, 200, 10] {
                p = a.realloc(p, Layout::from_size_align(size, align).unwrap(), new);
                assert!(!p.is_null());
                let kept = size.min(new);
                assert!((0..kept).all(|i| *p.add(i) == pattern(i)), "resized to {new}");
                (kept..new).for_each(|i| *p.add(i) = pattern(i));
                size = new;
            }
            a.dealloc(p, Layout::from_size_align(size, align).unwrap());
            let layout = Layout::from_size_align(3 * HUGE_PAGE + 5, align).unwrap();
            let z = a.alloc_zeroed(layout);
            assert!((0..layout.size()).all(|i| *z.add(i) == 0));
            if cfg!(target_os = "linux") {
                assert_eq!(z as usize % 4096, 0, "a large block starts a page");
            }
            a.dealloc(z, layout);
        }
    }
}
