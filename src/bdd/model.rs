//! The memory model: the bytes a run's tables take at its peak of live
//! nodes, which the report sets beside the measured peak RSS.

use super::cache::Entry;
use super::config::Config;
use super::memory::grown_capacity;
use super::node::Node;

/// The bytes the memory model charges a run whose live nodes peaked at
/// `peak_nodes`: a node record for each; the unique table's buckets, one per
/// slot of the capacity the arena has grown to for the peak's slots (from
/// `config.initial_nodes`, doubling, then a quarter at a time past 1 GiB);
/// and the computed cache ([`Config::cache_entries`] for those
/// slots). Measured peak RSS beyond this is the free set (a bit a slot), the
/// memo of counting and saving, the three-way split's table in a solve (an
/// eighth of the cache's bytes), and the process itself.
pub fn model_bytes(peak_nodes: u64, config: &Config) -> u64 {
    model_bytes_with(peak_nodes, config, CACHE_ENTRY_BYTES)
}

/// Bytes of a computed-cache entry.
pub const CACHE_ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// [`model_bytes`] for a build whose cache entries were `entry_bytes` long.
pub fn model_bytes_with(peak_nodes: u64, config: &Config, entry_bytes: usize) -> u64 {
    let slots = (peak_nodes as usize + 2).max(config.initial_nodes);
    let mut capacity = config.initial_nodes + 2;
    while capacity < slots {
        capacity = grown_capacity(capacity, std::mem::size_of::<Node>());
    }
    let buckets = capacity.max(16);
    let cache = config.cache_entries(slots);
    (peak_nodes as usize * std::mem::size_of::<Node>() + buckets * std::mem::size_of::<u32>() + cache * entry_bytes)
        as u64
}

#[cfg(test)]
mod tests {
    use super::{model_bytes, model_bytes_with};
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
}
