//! A manager's sizes, limits and policies: every field is a run-time choice
//! (CLI flags, spec settings), recorded with every result.

/// Sizes and limits of a manager. Every field is a run-time choice.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    #[cfg_attr(feature = "serde", serde(default))]
    pub min_cache_entries: usize,
    /// [`Manager::maybe_gc`](crate::Manager::maybe_gc) collects once this many internal nodes are alive...
    pub gc_min_live: usize,
    /// ...or, after a collection, once the live count has grown by this factor.
    pub gc_growth: f64,
    /// What a collection does with the computed cache.
    #[cfg_attr(feature = "serde", serde(default))]
    pub gc_cache: GcCache,
    /// Threads of the Boolean operations and (pre-)images: 1 runs them on
    /// the calling thread, more on a pool of that many threads (`par.rs`).
    #[cfg_attr(feature = "serde", serde(default = "one_thread"))]
    pub threads: usize,
    /// Fewest nodes a parallel operation may add (the unique table's index
    /// gets room for them, and for a sixteenth of its nodes more, before the
    /// operation); an operation that adds them all stops and runs again with
    /// more (`Stats::parallel_reruns`).
    #[cfg_attr(feature = "serde", serde(default = "parallel_spare"))]
    pub parallel_spare: usize,
    /// Computed-cache entries per entry of the three-way split's table
    /// (`split3_cache.rs`, 32 bytes an entry): the table holds
    /// `cache entries / split3_cache_ratio` entries, rounded up to a power
    /// of two, at least 256.
    #[cfg_attr(feature = "serde", serde(default = "split3_cache_ratio"))]
    pub split3_cache_ratio: usize,
    /// How a one-thread manager walks the binary operations and the in-place
    /// products (more threads always run the parallel depth-first bodies).
    #[cfg_attr(feature = "serde", serde(default))]
    pub traversal: Traversal,
    /// Most requests a breadth-first operation holds at once, per kind (the
    /// binary operations', the in-place products'): once a walk holds this
    /// many, a new child is made depth-first where the walk meets it, so
    /// that the requests' memory (about 30 to 50 bytes each with their map
    /// slots) stays bounded however large the operation.
    #[cfg_attr(feature = "serde", serde(default = "max_requests"))]
    pub max_requests: usize,
}

/// The walk of the binary operations and in-place products on one thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Traversal {
    /// Recursive: each step looks up its node before the next begins.
    #[default]
    DepthFirst,
    /// Level by level (`ops/bfs.rs`): the steps of a level are known
    /// together, so their memory reads are hinted ahead of use; holds its
    /// requests (28 to 48 bytes each with their map slots) between
    /// operations. A manager of 65,535 levels or more walks depth-first.
    BreadthFirst,
}

impl Traversal {
    /// Every traversal.
    pub const ALL: [Traversal; 2] = [Traversal::DepthFirst, Traversal::BreadthFirst];

    /// Its name on the command line and in records.
    pub const fn name(self) -> &'static str {
        match self {
            Traversal::DepthFirst => "depth-first",
            Traversal::BreadthFirst => "breadth-first",
        }
    }
}

impl std::fmt::Display for Traversal {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// What a garbage collection does with the computed cache; either way no
/// entry is left that names a freed node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum GcCache {
    /// Keep every entry whose operands and result survive: a pass over the
    /// cache that looks each entry's nodes up in the collection's marks.
    #[default]
    Keep,
    /// Empty it: one pass of writes, no lookups; the operations after the
    /// collection find none of the results made before it.
    Clear,
}

impl GcCache {
    /// Every policy, in the order of its names.
    pub const ALL: [GcCache; 2] = [GcCache::Keep, GcCache::Clear];

    /// The policy's name (as serde writes it, and as `FromStr` reads it).
    pub const fn name(self) -> &'static str {
        match self {
            GcCache::Keep => "keep",
            GcCache::Clear => "clear",
        }
    }
}

impl std::fmt::Display for GcCache {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl std::str::FromStr for GcCache {
    type Err = String;

    fn from_str(s: &str) -> Result<GcCache, String> {
        GcCache::ALL.into_iter().find(|g| g.name() == s).ok_or_else(|| {
            let names: Vec<&str> = GcCache::ALL.iter().map(|g| g.name()).collect();
            format!("unknown GC cache policy '{s}' (expected one of {})", names.join(", "))
        })
    }
}

/// Fewest and most computed-cache entries [`Config::max_cache_entries`] and
/// [`Config::min_cache_entries`] may name.
pub const CACHE_ENTRIES_RANGE: std::ops::RangeInclusive<usize> = (1 << 8)..=(1 << 34);

/// Cache entries per node slot while the cache is below its floor.
pub const CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR: usize = 4;

impl Config {
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

/// The default of [`Config::max_cache_entries`]: 2^26 entries, 1 GiB.
pub const DEFAULT_MAX_CACHE_ENTRIES: usize = 1 << 26;

/// The default of [`Config::split3_cache_ratio`] (also for serde): a
/// sixteenth of the cache's entries, an eighth of its bytes.
pub fn split3_cache_ratio() -> usize {
    16
}

/// The default of [`Config::max_requests`] (also for serde): 2^23, at most
/// about 250 MB of binary requests and 380 MB of products with their map
/// slots.
pub fn max_requests() -> usize {
    1 << 23
}

impl Default for Config {
    fn default() -> Config {
        Config {
            initial_nodes: 1 << 14,
            max_nodes: u32::MAX as usize - 1,
            cache_ratio: 1,
            max_cache_entries: DEFAULT_MAX_CACHE_ENTRIES,
            min_cache_entries: *CACHE_ENTRIES_RANGE.start(),
            gc_min_live: 1 << 20,
            gc_growth: 2.0,
            gc_cache: GcCache::default(),
            threads: 1,
            parallel_spare: parallel_spare(),
            split3_cache_ratio: split3_cache_ratio(),
            traversal: Traversal::default(),
            max_requests: max_requests(),
        }
    }
}

/// Recursion depth below which both branches of a step become parallel tasks.
pub(crate) const SPAWN_DEPTH: u32 = 8;
