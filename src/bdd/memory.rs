//! Allocation of the large tables (node arena, unique table, computed cache).
//!
//! The BDD operations read these tables at random, so on Linux they are
//! allocated with transparent huge pages where the system allows it
//! (`madvise(MADV_HUGEPAGE)`): one TLB entry then covers 2 MiB instead of
//! 4 KiB. On this project's machines a dependent random load into 512 MB
//! costs about 210 ns with 4 KiB pages and 165 ns with huge pages.

/// Smallest allocation worth advising (one huge page).
const HUGE_PAGE: usize = 2 << 20;

/// Advise the kernel to back a vector's buffer with huge pages.
fn advise_huge<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE_PAGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = v.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + bytes - aligned) / PAGE * PAGE;
        // SAFETY: the range lies inside the vector's own allocation and is
        // page aligned; MADV_HUGEPAGE changes no contents, only page backing.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

/// A vector of `len` copies of `value`, advised before its pages are touched.
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise_huge(&v);
    v.resize(len, value);
    v
}

/// Make room for one more element, doubling the capacity (advised) if full.
#[inline]
pub(crate) fn reserve_one<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        grow(v);
    }
}

#[cold]
fn grow<T>(v: &mut Vec<T>) {
    let cap = v.capacity();
    v.reserve_exact(grown_capacity(cap, std::mem::size_of::<T>()) - cap);
    advise_huge(v);
}

/// Past this size a table grows by a quarter instead of doubling: on the
/// largest boards the last doubling of the node arena would reserve
/// gigabytes more than the nodes need (a 7x6 count with 136 M peak nodes
/// held a 4.3 GB arena). Growing a large table moves its pages (`mremap`),
/// it does not copy them, so the extra growths cost little.
const GENTLE_GROWTH_BYTES: usize = 1 << 30;

/// The capacity a full table of `cap` elements of `elem_bytes` bytes grows
/// to: twice `cap` (at least 32), or `cap` and a quarter once the table
/// holds [`GENTLE_GROWTH_BYTES`].
pub(crate) fn grown_capacity(cap: usize, elem_bytes: usize) -> usize {
    let cap = cap.max(16);
    if cap.saturating_mul(elem_bytes) >= GENTLE_GROWTH_BYTES {
        cap + cap / 4
    } else {
        2 * cap
    }
}

/// Make the capacity at least `total` elements (advised).
pub(crate) fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    if v.capacity() < total {
        v.reserve_exact(total - v.len());
        advise_huge(v);
    }
}

#[cfg(test)]
mod tests {
    use super::grown_capacity;

    #[test]
    fn tables_double_then_grow_by_a_quarter() {
        assert_eq!(grown_capacity(0, 16), 32);
        assert_eq!(grown_capacity(1000, 16), 2000);
        let big = (1 << 30) / 16; // a 1 GiB arena of 16-byte nodes
        assert_eq!(grown_capacity(big - 1, 16), 2 * (big - 1));
        assert_eq!(grown_capacity(big, 16), big + big / 4);
        assert_eq!(grown_capacity(big, 4), 2 * big, "a 256 MiB table of 4-byte entries still doubles");
    }
}
