//! The options of the BDD manager shared by `count` and `solve`: its
//! settings, its node limit and its threads.

use anyhow::Result;
use clap::Args;

use c4bdd::bdd::{Config, GcCache, Traversal};
use c4bdd::run::{Limits, ManagerSettings, Pass, RunSpec};

use super::{named, BoardArgs, EncodingArgs};

/// The manager's settings, its node limit and its threads.
#[derive(Args, Debug, Clone)]
pub struct ManagerArgs {
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Most BDD node slots (default: 2^32 - 1); reaching it stops the run
    /// with exit status 3, keeping the finished plies.
    #[arg(long, allow_negative_numbers = true)]
    pub max_nodes: Option<usize>,
    /// Threads of the Boolean operations and images (1 = none; more run them in parallel with work stealing).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// [`ManagerSettings`] as options; the pass's defaults fill what is absent.
#[derive(Args, Debug, Clone)]
pub struct SettingsArgs {
    /// Collect garbage once this many nodes are alive (default: 4194304 for a count, 1048576 for a solve)...
    #[arg(long, allow_negative_numbers = true)]
    pub gc_min_live: Option<usize>,
    /// ...or once the live nodes have grown by this factor since the last collection.
    #[arg(long, allow_negative_numbers = true, default_value_t = Config::default().gc_growth)]
    pub gc_growth: f64,
    /// Node slots per computed-cache entry (1 = as many entries as slots; default: 8 for a solve on one thread, 1 otherwise).
    #[arg(long, allow_negative_numbers = true)]
    pub cache_ratio: Option<usize>,
    /// Most computed-cache entries (a power of two; 16 bytes each): the cache stops growing with the node table there (default: 16777216 for a solve on one thread, 67108864 otherwise).
    #[arg(long, allow_negative_numbers = true)]
    pub max_cache_entries: Option<usize>,
    /// The computed cache's floor (a power of two; default: 4194304 for a count, none (256) for a solve): below it the cache holds up to four entries per node slot, beyond it one per slot (or --cache-ratio's share).
    #[arg(long, allow_negative_numbers = true)]
    pub min_cache_entries: Option<usize>,
    /// What a garbage collection does with the computed cache: keep the entries whose nodes survive, or clear it.
    #[arg(long, value_parser = named::<GcCache>(), default_value_t = Config::default().gc_cache)]
    pub gc_cache: GcCache,
    /// Computed-cache entries per entry of a solve's three-way split table (32 bytes each; 1 = as many as the cache; default: 1 for a solve on one thread, 16 otherwise).
    #[arg(long, allow_negative_numbers = true)]
    pub split3_cache_ratio: Option<usize>,
    /// How one thread walks the Boolean operations and images: depth-first (recursive) or breadth-first (level by level, the memory reads of a level hinted ahead; holds its requests between operations). More threads run depth-first. Default: breadth-first for a solve on one thread, depth-first otherwise.
    #[arg(long, value_parser = named::<Traversal>())]
    pub traversal: Option<Traversal>,
    /// Most requests a breadth-first operation holds at once, per kind (about 30-50 bytes each); past them it goes on depth-first where it meets each further step (default: 8388608).
    #[arg(long)]
    pub max_requests: Option<usize>,
}

impl SettingsArgs {
    /// The settings these options name.
    fn settings(&self) -> ManagerSettings {
        ManagerSettings {
            gc_min_live: self.gc_min_live,
            gc_growth: self.gc_growth,
            cache_ratio: self.cache_ratio,
            max_cache_entries: self.max_cache_entries,
            min_cache_entries: self.min_cache_entries,
            gc_cache: self.gc_cache,
            split3_cache_ratio: self.split3_cache_ratio,
            traversal: self.traversal,
            max_requests: self.max_requests,
        }
    }
}

impl ManagerArgs {
    /// A run of `pass` with these settings, strategies and encoding.
    pub fn run(&self, pass: Pass, board: &BoardArgs, encoding: &EncodingArgs) -> Result<RunSpec> {
        Ok(RunSpec {
            threads: self.threads,
            limits: Limits { max_nodes: self.max_nodes, ..Limits::default() },
            manager: self.settings.settings(),
            ..RunSpec::new(pass, board.size()?, encoding.encoding, encoding.order.name())
        })
    }
}
