//! The memory footprint of a run: the bytes its tables take at its peak of live
//! nodes, which the report sets beside the measured peak RSS.

use crate::cache::computed::Entry;
use crate::config::Config;
use crate::store::index_table::{room_of, IndexTable, MAX_LOAD};
use crate::store::pages::{Rec, PAGE};
use crate::store::unique::index_growth;

/// The bytes the memory model charges a run whose live nodes peaked at
/// `peak_nodes`: a node record for each (8 bytes, `pages.rs`) and a bit of
/// the arena's free bitmap per slot; the unique table's index
/// (`index_bytes`); and the computed cache ([`Config::cache_entries`]
/// for the peak's slots). Measured peak RSS beyond this is the arena's
/// pages only partly used, the memo of counting and saving, the three-way
/// split's table in a solve (an eighth of the cache's bytes), the index's
/// growth ahead of a parallel operation, and the process itself.
pub fn model_bytes(peak_nodes: u64, config: &Config) -> u64 {
    let peak = peak_nodes as usize;
    let slots = peak + PAGE;
    let records = peak * std::mem::size_of::<Rec>() + slots / 8;
    let cache = config.cache_entries(slots);
    (records + index_bytes(peak, config.initial_nodes) + cache * CACHE_ENTRY_BYTES) as u64
}

/// Bytes of a computed-cache entry.
pub const CACHE_ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// The bytes of the index of a table that has held `peak` nodes, grown
/// from its first size for `initial` nodes the way the table grows it
/// (past 90% full, to room for twice the nodes, a quarter more once it
/// holds 64 MiB).
pub(crate) fn index_bytes(peak: usize, initial: usize) -> usize {
    let bytes = |groups: usize| groups * std::mem::size_of::<crate::store::index_table::Group>();
    let mut groups = IndexTable::groups_for(initial.max(2), MAX_LOAD);
    while room_of(groups) < peak {
        let held = room_of(groups) + 1;
        groups = IndexTable::groups_for(index_growth(held, bytes(groups)), MAX_LOAD);
    }
    bytes(groups)
}

#[cfg(test)]
mod tests {
    use super::{index_bytes, model_bytes};
    use crate::Config;

    #[test]
    fn the_model_charges_records_bitmap_index_and_cache() {
        let config = Config {
            initial_nodes: 1 << 10,
            cache_ratio: 1,
            max_cache_entries: 1 << 26,
            min_cache_entries: 256,
            ..Config::default()
        };
        // 1024 initial nodes: 95 groups of 12 slots (1,140 slots, 1,026 at
        // 90%): 6,080 bytes. 1000 nodes fit; 2000 grow it once, to room
        // for twice 1,027 nodes: 191 groups.
        assert_eq!(index_bytes(1000, 1 << 10), 95 * 64);
        assert_eq!(index_bytes(2000, 1 << 10), 191 * 64);
        // 1000 nodes: 8 bytes each, a bit for each of their slots and page
        // 0's 4096, the index, and 8192 cache entries (5,096 slots).
        let records = 1000 * 8 + 5096 / 8;
        assert_eq!(model_bytes(1000, &config), (records + 95 * 64 + 8192 * 16) as u64);
        // Half as many cache entries with two slots per entry.
        let halved = Config { cache_ratio: 2, ..config.clone() };
        assert_eq!(model_bytes(1000, &halved), (records + 95 * 64 + 4096 * 16) as u64);
        // 100 M nodes: the index doubles up to 64 MiB, then grows by a
        // quarter; it ends between 100 M / 0.9 and 1.25 times that many
        // slots; the cache stops at its configured size.
        let big = 100_000_000;
        let index = index_bytes(big, 1 << 10);
        let slots = index / 64 * 12;
        assert!(slots as f64 * 0.9 >= big as f64 && (slots as f64) < 1.25 * big as f64 / 0.9 + 24.0, "{slots}");
        let records = big * 8 + (big + 4096) / 8;
        assert_eq!(model_bytes(big as u64, &config), (records + index + (1 << 26) * 16) as u64);
    }
}
