//! The memory model of the chained node store, which ran every archived row
//! that has no `model_bytes` column: 16-byte nodes `(level, low, high,
//! next)` in one arena, a unique table of 4-byte chain heads with one bucket
//! per slot of the arena's capacity, and the computed cache. The report uses
//! it to set those rows' peak RSS beside the tables they held.

use crate::bdd::Config;

/// Bytes of a node of the chained store.
const NODE_BYTES: usize = 16;
/// Past this many bytes its arena grew by a quarter instead of doubling.
const GENTLE_GROWTH_BYTES: usize = 1 << 30;

/// The model's bytes for a run of the chained store whose live nodes peaked
/// at `peak_nodes`: a node each, a bucket per slot of the capacity its arena
/// grew to for the peak's slots (from `config.initial_nodes` and the two
/// terminals, doubling, then a quarter at a time past 1 GiB), and
/// [`Config::cache_entries`] for those slots at `entry_bytes` an entry.
pub fn chained_model_bytes(peak_nodes: u64, config: &Config, entry_bytes: usize) -> u64 {
    let slots = (peak_nodes as usize + 2).max(config.initial_nodes);
    let mut capacity = config.initial_nodes + 2;
    while capacity < slots {
        let cap = capacity.max(16);
        capacity = if cap * NODE_BYTES >= GENTLE_GROWTH_BYTES { cap + cap / 4 } else { 2 * cap };
    }
    let buckets = capacity.max(16);
    let cache = config.cache_entries(slots);
    (peak_nodes as usize * NODE_BYTES + buckets * 4 + cache * entry_bytes) as u64
}

#[cfg(test)]
mod tests {
    use super::chained_model_bytes;
    use crate::bdd::Config;

    #[test]
    fn the_chained_model_charges_nodes_buckets_and_cache() {
        // The default cache: one entry per slot, at most 2^26; no floor.
        let config = Config { initial_nodes: 1 << 10, min_cache_entries: 256, ..Config::default() };
        // 1000 nodes: 1002 slots fit the arena's first 1026 (the 1024 asked
        // for and the two terminals): 1026 buckets and 1024 cache entries.
        assert_eq!(chained_model_bytes(1000, &config, 16), 1000 * 16 + 1026 * 4 + 1024 * 16);
        assert_eq!(chained_model_bytes(1000, &config, 20), 1000 * 16 + 1026 * 4 + 1024 * 20);
        // 100 M nodes: the arena doubles from 1026 slots to 1026 * 2^16 =
        // 67,239,936 (past 1 GiB of 16-byte nodes), then grows by a quarter:
        // 84,049,920, then 105,062,400 slots, as many buckets; the cache
        // stops at its configured size.
        let big = 100_000_000;
        assert_eq!(chained_model_bytes(big, &config, 16), big * 16 + 105_062_400 * 4 + (1 << 26) * 16);
    }
}
