//! Allocation of the large tables (node arena, unique table, computed cache).
//!
//! The BDD operations read these tables at random, so on Linux they live in
//! transparent huge pages where the system allows it (the binary's
//! allocator, `huge.rs`): one TLB entry then covers 2 MiB instead of 4 KiB.
//! On this project's machines a dependent random load into 512 MB costs
//! about 210 ns with 4 KiB pages and 165 ns with huge pages.

/// Past this size a table grows by a quarter instead of doubling: on the
/// largest boards the last doubling of the node arena would reserve
/// gigabytes of address space more than the nodes need (a 7x6 count with
/// 136 M peak nodes reserved a 4.3 GB arena). Untouched capacity is not
/// resident, but a sweep's memory limit bounds the address space
/// (`RLIMIT_AS`), so the reservation decides whether a board fits. Growing
/// a large table moves its pages (`mremap`), it does not copy them, so the
/// extra growths cost little.
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

/// Make room for `n` more elements, growing the capacity as
/// [`grown_capacity`] does when it is short.
pub(crate) fn reserve_more<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() - v.len() < n {
        let target = grown_capacity(v.capacity(), std::mem::size_of::<T>()).max(v.len() + n);
        v.reserve_exact(target - v.len());
    }
}

/// Make the capacity at least `total` elements.
pub(crate) fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    if v.capacity() < total {
        v.reserve_exact(total - v.len());
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
