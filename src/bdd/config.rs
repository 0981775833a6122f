//! A manager's sizes, limits and policies: every field is a run-time choice
//! (CLI flags, spec settings), recorded with every result.

use serde::{Deserialize, Serialize};

/// Sizes and limits of a manager. Every field is a run-time choice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Node slots reserved at the start; the arena grows from there on demand
    /// (doubling, by a quarter once it holds 1 GiB).
    pub initial_nodes: usize,
    /// Most node slots (terminals included); reaching it is `Error::NodeLimit`.
    pub max_nodes: usize,
    /// Node slots per computed-cache entry: the cache grows with the arena so
    /// that `entries >= slots / cache_ratio`.
    pub cache_ratio: usize,
    /// Upper bound on computed-cache entries (a power of two, see
    /// [`check_cache_entries`]); once the cache holds this many it stops
    /// growing with the arena.
    pub max_cache_entries: usize,
    /// The computed cache's floor (a power of two, see
    /// [`check_cache_entries`]): below it the cache holds up to
    /// [`CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR`] entries per node slot, so that
    /// small problems keep a small cache and larger ones reach the floor
    /// early (see [`Config::cache_entries`]). Zero in configurations recorded
    /// before the field existed, whose cache only grew with the arena.
    #[serde(default)]
    pub min_cache_entries: usize,
    /// [`Manager::maybe_gc`](super::Manager::maybe_gc) collects once this many internal nodes are alive...
    pub gc_min_live: usize,
    /// ...or, after a collection, once the live count has grown by this factor.
    pub gc_growth: f64,
    /// What a collection does with the computed cache.
    #[serde(default)]
    pub gc_cache: GcCache,
    /// Threads of the Boolean operations and (pre-)images: 1 runs them on
    /// the calling thread, more on a pool of that many threads (`par.rs`).
    #[serde(default = "one_thread")]
    pub threads: usize,
    /// Fewest nodes a parallel operation may add (the unique table's index
    /// gets room for them, and for a sixteenth of its nodes more, before the
    /// operation); an operation that adds them all stops and runs again with
    /// more (`Stats::parallel_reruns`).
    #[serde(default = "parallel_spare")]
    pub parallel_spare: usize,
    /// Computed-cache entries per entry of the three-way split's table
    /// (`split3_cache.rs`, 32 bytes an entry): the table holds
    /// `cache entries / split3_cache_ratio` entries, rounded up to a power
    /// of two, at least 256.
    #[serde(default = "split3_cache_ratio")]
    pub split3_cache_ratio: usize,
}

/// What a garbage collection does with the computed cache; either way no
/// entry is left that names a freed node.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum GcCache {
    /// Keep every entry whose operands and result survive: a pass over the
    /// cache that looks each entry's nodes up in the collection's marks.
    #[default]
    Keep,
    /// Empty it: one pass of writes, no lookups; the operations after the
    /// collection find none of the results made before it.
    Clear,
}

impl std::fmt::Display for GcCache {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.pad(clap::ValueEnum::to_possible_value(self).expect("every value has a name").get_name())
    }
}

/// Fewest and most computed-cache entries [`Config::max_cache_entries`] and
/// [`Config::min_cache_entries`] may name.
pub const CACHE_ENTRIES_RANGE: std::ops::RangeInclusive<usize> = (1 << 8)..=(1 << 34);

/// The default of [`Config::min_cache_entries`] in a count
/// ([`Config::for_count`]): 2^22 entries (64 MiB). On boards whose arena
/// stays below 4 M slots (the 5x5 and 7x4 counts), a cache that only grew
/// with the arena took 14-16% more recursive steps. A solve has no floor
/// ([`Config::default`]: 256, the cache's own minimum): it gained nothing
/// measurable from one, and its shortest runs lost to the larger cache's pages.
pub const COUNT_MIN_CACHE_ENTRIES: usize = 1 << 22;

/// The default of [`Config::gc_min_live`] in a count (the forward pass
/// alone, [`Config::for_count`]): 2^22 nodes (64 MiB of records), against
/// 2^20 in a solve ([`Config::default`]). A collection in the forward pass frees the nodes of
/// earlier plies, and the plies after it build many of them again: the 7x4
/// count created 5.4 M nodes with collections from 2^20 live nodes and 3.1 M
/// with none. A solve's retrograde pass reuses little of its garbage, and
/// there a larger table only costs memory and locality.
pub const COUNT_GC_MIN_LIVE: usize = 1 << 22;

/// Cache entries per node slot while the cache is below its floor.
pub const CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR: usize = 4;

impl Config {
    /// The defaults of a count: [`Config::default`] with [`COUNT_GC_MIN_LIVE`]
    /// and [`COUNT_MIN_CACHE_ENTRIES`].
    pub fn for_count() -> Config {
        Config { gc_min_live: COUNT_GC_MIN_LIVE, min_cache_entries: COUNT_MIN_CACHE_ENTRIES, ..Config::default() }
    }

    /// Computed-cache entries for an arena of `slots` slots: a power of two
    /// at least `slots / cache_ratio`, and at least the smaller of the floor
    /// and [`CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR`] entries per slot; at most
    /// `max_cache_entries`, at least 256. Never decreases as `slots` grows.
    pub fn cache_entries(&self, slots: usize) -> usize {
        let below_floor = slots.saturating_mul(CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR).min(self.min_cache_entries);
        (slots / self.cache_ratio.max(1))
            .max(below_floor)
            .next_power_of_two()
            .clamp(256, self.max_cache_entries.max(256))
    }
}

/// Check a bound on the computed cache's entries: a power of two within
/// [`CACHE_ENTRIES_RANGE`]. The message names the value.
pub fn check_cache_entries(n: usize) -> std::result::Result<(), String> {
    if !n.is_power_of_two() || !CACHE_ENTRIES_RANGE.contains(&n) {
        let (lo, hi) = (CACHE_ENTRIES_RANGE.start().trailing_zeros(), CACHE_ENTRIES_RANGE.end().trailing_zeros());
        return Err(format!("{n} must be a power of two from 2^{lo} to 2^{hi}"));
    }
    Ok(())
}

/// Most threads a manager may be given.
pub const MAX_THREADS: usize = 256;

/// The default of [`Config::threads`] (also for serde).
pub fn one_thread() -> usize {
    1
}

/// The default of [`Config::parallel_spare`] (also for serde).
pub fn parallel_spare() -> usize {
    1 << 16
}

/// The default of [`Config::split3_cache_ratio`] (also for serde): a
/// sixteenth of the cache's entries, an eighth of its bytes.
pub fn split3_cache_ratio() -> usize {
    16
}

impl Default for Config {
    fn default() -> Config {
        Config {
            initial_nodes: 1 << 14,
            max_nodes: u32::MAX as usize - 1,
            cache_ratio: 1,
            max_cache_entries: 1 << 26,
            min_cache_entries: *CACHE_ENTRIES_RANGE.start(),
            gc_min_live: 1 << 20,
            gc_growth: 2.0,
            gc_cache: GcCache::default(),
            threads: 1,
            parallel_spare: parallel_spare(),
            split3_cache_ratio: split3_cache_ratio(),
        }
    }
}
