//! Allocation of the large tables (node arena, unique table, computed cache).
//!
//! The BDD operations read these tables at random, so on Linux they live in
//! transparent huge pages where the system allows it (the binary's
//! allocator, `huge.rs`): one TLB entry then covers 2 MiB instead of 4 KiB.
//! On this project's machines a dependent random load into 512 MB costs
//! about 210 ns with 4 KiB pages and 165 ns with huge pages.

/// The bytes the memory model charges a run whose live nodes peaked at
/// `peak_nodes`: a node record for each; the unique table's buckets, one per
/// slot of the capacity the arena has grown to for the peak's slots (from
/// `config.initial_nodes`, doubling, then a quarter at a time past 1 GiB);
/// and the computed cache ([`super::Config::cache_entries`] for those
/// slots). Measured peak RSS beyond this is the free set (a bit a slot), the
/// memo of counting and saving, the three-way split's table in a solve (an
/// eighth of the cache's bytes), and the process itself.
pub fn model_bytes(peak_nodes: u64, config: &super::Config) -> u64 {
    model_bytes_with(peak_nodes, config, CACHE_ENTRY_BYTES)
}

/// Bytes of a computed-cache entry (20 before commit 3820172).
pub const CACHE_ENTRY_BYTES: usize = std::mem::size_of::<super::cache::Entry>();

/// [`model_bytes`] for a build whose cache entries were `entry_bytes` long.
pub fn model_bytes_with(peak_nodes: u64, config: &super::Config, entry_bytes: usize) -> u64 {
    let slots = (peak_nodes as usize + 2).max(config.initial_nodes);
    let mut capacity = config.initial_nodes + 2;
    while capacity < slots {
        capacity = grown_capacity(capacity, std::mem::size_of::<super::node::Node>());
    }
    let buckets = capacity.max(16);
    let cache = config.cache_entries(slots);
    (peak_nodes as usize * std::mem::size_of::<super::node::Node>()
        + buckets * std::mem::size_of::<u32>()
        + cache * entry_bytes) as u64
}

/// Make room for one more element, doubling the capacity if full.
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
}

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

/// Make the capacity at least `total` elements.
pub(crate) fn reserve_total<T>(v: &mut Vec<T>, total: usize) {
    if v.capacity() < total {
        v.reserve_exact(total - v.len());
    }
}

#[cfg(test)]
mod tests {
    use super::{grown_capacity, model_bytes, model_bytes_with};
    use crate::bdd::Config;

    #[test]
    fn the_model_charges_nodes_buckets_and_cache() {
        let config = Config {
            initial_nodes: 1 << 10,
            cache_ratio: 1,
            max_cache_entries: 1 << 26,
            min_cache_entries: 256,
            ..Config::default()
        };
        // 1000 nodes: 1002 slots fit the arena's first 1026 (the 1024 asked
        // for and the two terminals): 1026 buckets and 1024 cache entries.
        assert_eq!(model_bytes(1000, &config), 1000 * 16 + 1026 * 4 + 1024 * 16);
        // Half as many cache entries with two slots per entry.
        let halved = Config { cache_ratio: 2, ..config.clone() };
        assert_eq!(model_bytes(1000, &halved), 1000 * 16 + 1026 * 4 + 512 * 16);
        // A build with 20-byte cache entries.
        assert_eq!(model_bytes_with(1000, &config, 20), 1000 * 16 + 1026 * 4 + 1024 * 20);
        // With a floor of 2^22 entries the cache holds four entries per
        // slot below it (the 1024 slots asked for: 4096), and the
        // floor itself once that is more (2 M nodes: 2^22 entries, not
        // 2^21), unless the cap is smaller.
        let floored = Config { min_cache_entries: 1 << 22, ..config.clone() };
        assert_eq!(model_bytes(1000, &floored), 1000 * 16 + 1026 * 4 + 4096 * 16);
        let (two_m, buckets) = (2_000_000, 1026 << 11);
        assert_eq!(model_bytes(two_m, &floored), two_m * 16 + buckets * 4 + (1 << 22) * 16);
        let capped = Config { max_cache_entries: 1 << 20, ..floored.clone() };
        assert_eq!(model_bytes(two_m, &capped), two_m * 16 + buckets * 4 + (1 << 20) * 16);
        // 100 M nodes: the arena doubles from 1026 slots to 1026 * 2^16 =
        // 67,239,936 (past 1 GiB of 16-byte nodes), then grows by a quarter:
        // 84,049,920, then 105,062,400 slots, as many buckets; the cache
        // stops at its configured size.
        let big = 100_000_000;
        assert_eq!(model_bytes(big, &config), big * 16 + 105_062_400 * 4 + (1 << 26) * 16);
    }

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
