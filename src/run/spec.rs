//! One run: its board, encoding, order, pass, strategies, limits and manager
//! settings, where it keeps its checkpoint and solution, and the key that
//! names it in results. A sweep's spec expands into runs, and `c4bdd count`
//! and `c4bdd solve` build one from their options; either way
//! [`RunSpec::validate`] checks it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::bdd::{Config, GcCache, Traversal, MAX_THREADS};
use crate::encoding::{EncodingKind, OrderSpec};
use crate::game::BoardSize;
use crate::search::partition::{Cut, Share};
use crate::search::{is_zero, ForwardOptions, ImageStrategy, TerminalStrategy, MAX_IMAGE_SPLIT, MAX_SPLIT_PARTS};

crate::named::named_enum! {
    /// A search pass.
    pub enum Pass ("pass", default Count) {
        /// The forward pass: positions per ply.
        Count = "count",
        /// Forward and retrograde passes: won, drawn, lost per ply.
        Solve = "solve",
    }
}

pub(crate) fn one_repeat() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Fewest node slots a run may be limited to.
pub const MIN_MAX_NODES: usize = 16;

/// The least address space a run may be limited to: a worker's threads,
/// tables and libraries take tens of megabytes before any BDD work (below
/// about 1e7 bytes it cannot start at all).
pub const MIN_MEMORY_BYTES: f64 = 1e8;

/// Per-run limits; a run that reaches one is recorded with that status. A
/// sweep applies all three (`[limits]`); `count` and `solve` take the node
/// limit (`--max-nodes`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Wall time; the run is killed after it.
    pub time_s: Option<f64>,
    /// Most BDD node slots (default: 2^32 - 1); reaching it stops the run
    /// with exit status 3, keeping the finished plies.
    pub max_nodes: Option<usize>,
    /// Address-space limit of the run's process.
    pub memory_bytes: Option<f64>,
}

impl Limits {
    /// Check the limits; the message names the key and the value.
    pub fn check(&self) -> Result<(), String> {
        if let Some(t) = self.time_s.filter(|t| !t.is_finite() || *t <= 0.0) {
            return Err(format!("time_s: {t} must be a positive number of seconds"));
        }
        if let Some(m) = self.memory_bytes.filter(|m| !m.is_finite() || *m < MIN_MEMORY_BYTES) {
            return Err(format!(
                "memory_bytes: {m} must be a number of bytes of at least {MIN_MEMORY_BYTES:e} (what a worker needs to start)"
            ));
        }
        if let Some(n) = self.max_nodes.filter(|&n| n < MIN_MAX_NODES) {
            return Err(format!("max_nodes: {n} must be at least {MIN_MAX_NODES}"));
        }
        Ok(())
    }
}

/// The default of [`Config::min_cache_entries`] in a count
/// ([`count_config`]): 2^22 entries (64 MiB). On boards whose arena
/// stays below 4 M slots (the 5x5 and 7x4 counts), a cache that only grew
/// with the arena took 14-16% more recursive steps. A solve has no floor
/// ([`Config::default`]: 256, the cache's own minimum): it gained nothing
/// measurable from one, and its shortest runs lost to the larger cache's pages.
pub const COUNT_MIN_CACHE_ENTRIES: usize = 1 << 22;

/// The default of [`Config::gc_min_live`] in a count (the forward pass
/// alone, [`count_config`]): 2^22 nodes (64 MiB of records), against
/// 2^20 in a solve ([`Config::default`]). A collection in the forward pass frees the nodes of
/// earlier plies, and the plies after it build many of them again: the 7x4
/// count created 5.4 M nodes with collections from 2^20 live nodes and 3.1 M
/// with none. A solve's retrograde pass reuses little of its garbage, and
/// there a larger table only costs memory and locality.
pub const COUNT_GC_MIN_LIVE: usize = 1 << 22;

/// The manager's defaults of a count: [`Config::default`] with
/// [`COUNT_GC_MIN_LIVE`] and [`COUNT_MIN_CACHE_ENTRIES`].
pub fn count_config() -> Config {
    Config { gc_min_live: COUNT_GC_MIN_LIVE, min_cache_entries: COUNT_MIN_CACHE_ENTRIES, ..Config::default() }
}

/// The default of [`Config::cache_ratio`] in a solve on one thread, which
/// walks breadth-first by default ([`solve_config`]). A breadth-first
/// operation finds its repeated operand pairs in its levels' maps, so the
/// computed cache serves it less than a depth-first one.
pub const SOLVE_BREADTH_FIRST_CACHE_RATIO: usize = 8;

/// The default of [`Config::max_cache_entries`] in a solve on one thread:
/// a quarter of [`Config::default`]'s cap (2^24 entries, 256 MiB), so that
/// on the boards whose cache reaches its cap, where the eighth of the node
/// slots would not make it smaller, the breadth-first walk's requests and
/// the larger split table take the depth-first cache's place instead of
/// adding to it.
pub const SOLVE_BREADTH_FIRST_MAX_CACHE_ENTRIES: usize = crate::bdd::DEFAULT_MAX_CACHE_ENTRIES / 4;

/// The default of [`Config::split3_cache_ratio`] in a solve on one thread:
/// the three-way split's table holds as many entries as the computed cache,
/// an eighth of the node slots (twice its share under [`Config::default`])
/// up to 2^24. A one-thread solve splits its plies by breadth-first binary
/// walks and makes no such table; walking depth-first (`--traversal
/// depth-first`) it takes the three-way split, whose time on large boards
/// falls with its table's size.
pub const SOLVE_BREADTH_FIRST_SPLIT3_CACHE_RATIO: usize = 1;

/// The manager's defaults of a solve on `threads` threads: on one thread
/// breadth-first with [`SOLVE_BREADTH_FIRST_CACHE_RATIO`],
/// [`SOLVE_BREADTH_FIRST_MAX_CACHE_ENTRIES`] and
/// [`SOLVE_BREADTH_FIRST_SPLIT3_CACHE_RATIO`], on more (which walk
/// depth-first) [`Config::default`].
pub fn solve_config(threads: usize) -> Config {
    match threads {
        0 | 1 => Config {
            traversal: Traversal::BreadthFirst,
            cache_ratio: SOLVE_BREADTH_FIRST_CACHE_RATIO,
            max_cache_entries: SOLVE_BREADTH_FIRST_MAX_CACHE_ENTRIES,
            split3_cache_ratio: SOLVE_BREADTH_FIRST_SPLIT3_CACHE_RATIO,
            ..Config::default()
        },
        _ => Config::default(),
    }
}

/// The manager's settings: a spec's `[manager]` table (and grid axes), or
/// the options of `count` and `solve`. The pass's defaults
/// ([`count_config`], [`Config::default`]) fill what is absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ManagerSettings {
    /// Collect garbage once this many nodes are alive (default: the pass's,
    /// [`COUNT_GC_MIN_LIVE`] for a count, [`Config::default`]'s for a solve)...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_min_live: Option<usize>,
    /// ...or once the live nodes have grown by this factor since the last collection.
    pub gc_growth: f64,
    /// Node slots per computed-cache entry (1 = as many entries as slots;
    /// default: the pass's, [`solve_config`] for a solve, 1 for a count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_ratio: Option<usize>,
    /// Most computed-cache entries (a power of two; 16 bytes each): the cache stops growing with the node table there (default: the pass's, [`solve_config`] for a solve, [`Config::default`]'s for a count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cache_entries: Option<usize>,
    /// The computed cache's floor (a power of two; default: 4194304 for a count, none (256) for a solve): below it the cache holds up to four entries per node slot, beyond it one per slot (or --cache-ratio's share).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cache_entries: Option<usize>,
    /// What a garbage collection does with the computed cache: keep the entries whose nodes survive, or clear it.
    pub gc_cache: GcCache,
    /// Computed-cache entries per entry of a solve's three-way split table (32 bytes each; 1 = as many as the cache; default: [`solve_config`]'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split3_cache_ratio: Option<usize>,
    /// How one thread walks the Boolean operations and images: depth-first or breadth-first (more threads run depth-first; default: the pass's, [`solve_config`] for a solve, depth-first for a count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traversal: Option<Traversal>,
    /// Most requests a breadth-first operation holds at once, per kind; past them it goes on depth-first (default: [`Config::default`]'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_requests: Option<usize>,
}

impl Default for ManagerSettings {
    fn default() -> ManagerSettings {
        let c = Config::default();
        ManagerSettings {
            gc_min_live: None,
            gc_growth: c.gc_growth,
            cache_ratio: None,
            max_cache_entries: None,
            min_cache_entries: None,
            gc_cache: c.gc_cache,
            split3_cache_ratio: None,
            traversal: None,
            max_requests: None,
        }
    }
}

impl ManagerSettings {
    /// Check the settings; the message names the key and the value.
    pub fn check(&self) -> Result<(), String> {
        if !(self.gc_growth >= 1.0 && self.gc_growth.is_finite()) {
            return Err(format!("gc_growth: {} must be a number of at least 1", self.gc_growth));
        }
        if let Some(r) = self.cache_ratio.filter(|r| !(1..=MAX_CACHE_RATIO).contains(r)) {
            return Err(format!("cache_ratio: {r} must be 1 to {MAX_CACHE_RATIO}"));
        }
        if let Some(r) = self.split3_cache_ratio.filter(|r| !(1..=MAX_CACHE_RATIO).contains(r)) {
            return Err(format!("split3_cache_ratio: {r} must be 1 to {MAX_CACHE_RATIO}"));
        }
        let check = |key: &str, n: Option<usize>| match n.map(crate::bdd::check_cache_entries) {
            Some(Err(e)) => Err(format!("{key}: {e}")),
            _ => Ok(()),
        };
        check("max_cache_entries", self.max_cache_entries)?;
        check("min_cache_entries", self.min_cache_entries)
    }
}

/// Most node slots per computed-cache entry, and most cache entries per
/// entry of the three-way split's table.
pub const MAX_CACHE_RATIO: usize = 1024;

/// Which manager settings (and whether the image split) a run's grid sweeps
/// as axes: those are named in its key, so that runs differing only in them
/// are told apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swept {
    pub cache_ratio: bool,
    pub gc_growth: bool,
    #[serde(default)]
    pub max_cache_entries: bool,
    #[serde(default)]
    pub gc_cache: bool,
    #[serde(default)]
    pub min_cache_entries: bool,
    #[serde(default)]
    pub split3_cache_ratio: bool,
    #[serde(default)]
    pub traversal: bool,
    /// The image split, when the grid lists more than one (it changes how
    /// images are computed, not what they are: a run not sweeping it may
    /// change it between processes, e.g. `sweep --image-split`).
    #[serde(default)]
    pub image_split: bool,
    /// The split in parts of a solve's plies, when the grid lists more than
    /// one (like the image split, it changes the work, not the sets).
    #[serde(default)]
    pub split_parts: bool,
}

impl Swept {
    fn is_none(&self) -> bool {
        *self == Swept::default()
    }
}

/// One run of a sweep: everything a worker needs, and the row's identity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    pub width: u8,
    pub height: u8,
    pub encoding: EncodingKind,
    pub order: String,
    pub pass: Pass,
    pub terminal: TerminalStrategy,
    pub image: ImageStrategy,
    /// Top variables each (pre-)image's operand is split on
    /// ([`ForwardOptions::image_split`]; part of the key when swept and not 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub image_split: u8,
    /// Top variables a solve's plies are split in parts on
    /// ([`ForwardOptions::split_parts`]; part of the key when swept and not 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub split_parts: u8,
    /// Threads of the BDD operations (part of the key when more than one).
    #[serde(default = "crate::bdd::one_thread")]
    pub threads: usize,
    pub limits: Limits,
    pub manager: ManagerSettings,
    /// The settings its grid sweeps (part of the key).
    #[serde(default, skip_serializing_if = "Swept::is_none")]
    pub swept: Swept,
    /// Which repetition of the run this is, from 1 (part of the key when more).
    #[serde(default = "one_repeat", skip_serializing_if = "is_one")]
    pub repeat: u32,
    /// Where the run saves its finished plies and resumes from (set by the
    /// runner when the spec asks for checkpoints; not part of the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<PathBuf>,
    /// Where a solve stores its solution (not part of the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution: Option<PathBuf>,
    /// A count also puts all plies into one BDD and reports its size.
    #[serde(default, skip_serializing_if = "is_false")]
    pub full_bdd: bool,
    /// A count also reports the plies' sizes with complement edges.
    #[serde(default, skip_serializing_if = "is_false")]
    pub complement_edges: bool,
    /// A solve that keeps no forward layer in memory (each is read back from
    /// its checkpoint) and solves from the last ply down to this one only
    /// (part of the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_to: Option<u32>,
    /// A solve's partitioned pass: the plies below the checkpoint's lowest
    /// whole solved ply cut on these variables of cells and solved part by
    /// part (`Cut::NONE`: whole plies; part of the key when cut).
    #[serde(default = "no_cut", skip_serializing_if = "Cut::is_empty")]
    pub parts: Cut,
    /// The share of each ply's parts this process solves (`None`: all; part
    /// of the key when set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<Share>,
    /// Bytes the partitioned pass's won and lost sets may keep on disk
    /// (`None`: no bound; not part of the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_budget: Option<u64>,
}

impl RunSpec {
    /// The run's key in results: `WxH/encoding/order/pass/terminal/image`,
    /// then `/split-K` when its grid sweeps the image split and each image is
    /// split on K > 0 top variables, `/parts-K` when it sweeps the split in
    /// parts and a ply is split on K > 0,
    /// then `/N-threads` when the operations run on N > 1 threads, then
    /// `/cache-R`, `/gc-G`, `/max-cache-E`, `/gc-cache-P`, `/min-cache-E` and
    /// `/split3-cache-S` when its grid sweeps the cache ratio, the GC growth
    /// factor, the cap on cache entries, what collections do with the cache,
    /// the cache's floor or the three-way split table's ratio, then `/full-bdd` when a count also builds the BDD of all plies,
    /// `/down-to-K` when a solve stops at ply K, `/partitioned-K` when its
    /// plies below the whole ones are cut on K variables, `/part-I-of-N` for
    /// a process of a share of them, then `/repeat-k` for its `k`-th repetition (`k > 1`).
    pub fn key(&self) -> String {
        let split = self.swept.image_split && self.image_split > 0;
        let mut extra = if split { format!("/split-{}", self.image_split) } else { String::new() };
        if self.swept.split_parts && self.split_parts > 0 {
            extra += &format!("/parts-{}", self.split_parts);
        }
        if self.threads > 1 {
            extra += &format!("/{}-threads", self.threads);
        }
        if self.swept.cache_ratio {
            extra += &format!("/cache-{}", self.config().cache_ratio);
        }
        if self.swept.gc_growth {
            extra += &format!("/gc-{}", self.manager.gc_growth);
        }
        if self.swept.max_cache_entries {
            extra += &format!("/max-cache-{}", self.config().max_cache_entries);
        }
        if self.swept.gc_cache {
            extra += &format!("/gc-cache-{}", self.manager.gc_cache);
        }
        if self.swept.min_cache_entries {
            extra += &format!("/min-cache-{}", self.config().min_cache_entries);
        }
        if self.swept.split3_cache_ratio {
            extra += &format!("/split3-cache-{}", self.config().split3_cache_ratio);
        }
        if self.swept.traversal {
            extra += &format!("/{}", self.config().traversal);
        }
        if self.full_bdd {
            extra += "/full-bdd";
        }
        if let Some(k) = self.down_to {
            extra += &format!("/down-to-{k}");
        }
        if !self.parts.is_empty() {
            extra += &format!("/partitioned-{}", self.parts.key());
        }
        if let Some(share) = self.part {
            extra += &format!("/part-{}-of-{}", share.index + 1, share.of);
        }
        if self.repeat > 1 {
            extra += &format!("/repeat-{}", self.repeat);
        }
        format!(
            "{}x{}/{}/{}/{}/{}/{}{extra}",
            self.width,
            self.height,
            self.encoding.name(),
            self.order,
            self.pass.name(),
            self.terminal,
            self.image
        )
    }

    /// A run of `pass` with the defaults of everything else.
    pub fn new(pass: Pass, size: BoardSize, encoding: EncodingKind, order: String) -> RunSpec {
        RunSpec {
            width: size.width,
            height: size.height,
            encoding,
            order,
            pass,
            terminal: TerminalStrategy::Whole,
            image: ImageStrategy::InPlace,
            image_split: 0,
            split_parts: 0,
            threads: 1,
            limits: Limits::default(),
            manager: ManagerSettings::default(),
            swept: Swept::default(),
            repeat: 1,
            checkpoint: None,
            solution: None,
            full_bdd: false,
            complement_edges: false,
            down_to: None,
            parts: Cut::NONE,
            part: None,
            solution_budget: None,
        }
    }

    /// Check the run as a whole: every door that makes a run (a spec, the
    /// command line) gets the same one-line message, naming the key and the
    /// value.
    pub fn validate(&self) -> Result<(), String> {
        let size = BoardSize::new(self.width as u32, self.height as u32).map_err(|e| e.to_string())?;
        let order = self.order_spec().map_err(|e| format!("order: {e}"))?;
        let vars = self.encoding.build(size).state_vars();
        order.arrange(&vars, size, self.encoding).map_err(|e| format!("order: {e}"))?;
        if self.pass == Pass::Solve && !self.terminal.can_solve() {
            return Err(format!("terminal: {} cannot solve: solving needs whole or lines", self.terminal));
        }
        if self.image_split > MAX_IMAGE_SPLIT {
            return Err(format!("image_split: {} must be 0 to {MAX_IMAGE_SPLIT}", self.image_split));
        }
        if self.split_parts > MAX_SPLIT_PARTS {
            return Err(format!("split_parts: {} must be 0 to {MAX_SPLIT_PARTS}", self.split_parts));
        }
        if self.split_parts > 0 && self.pass != Pass::Solve {
            return Err(format!("split_parts: {} splits a solve's plies; a count has none", self.split_parts));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(format!("threads: {} must be 1 to {MAX_THREADS}", self.threads));
        }
        if self.pass == Pass::Count && self.solution.is_some() {
            return Err("solution: a count has no solution to store".into());
        }
        if self.pass == Pass::Solve && (self.full_bdd || self.complement_edges) {
            return Err("full_bdd and complement_edges are figures of a count, not of a solve".into());
        }
        if let Some(k) = self.down_to {
            if self.pass != Pass::Solve || self.checkpoint.is_none() {
                return Err("down_to: only a solve with a checkpoint reads its layers back".into());
            }
            if k > size.cells() {
                return Err(format!("down_to: {k} is beyond the last ply of {size} ({})", size.cells()));
            }
        }
        self.validate_parts()?;
        if self.full_bdd && self.checkpoint.is_some() {
            return Err("full_bdd: a checkpointed count cannot build the BDD of all plies".into());
        }
        self.limits.check()?;
        self.manager.check()
    }

    /// The partitioned pass's settings, checked.
    fn validate_parts(&self) -> Result<(), String> {
        if !self.parts.is_empty() && (self.pass != Pass::Solve || self.checkpoint.is_none()) {
            return Err(format!("parts: {} cuts the plies of a solve with a checkpoint", self.parts));
        }
        if !self.parts.is_empty() && self.solution.is_some() {
            return Err("parts: a partitioned solve keeps its solution in the checkpoint's parts/ folder".into());
        }
        if self.parts.is_empty() && (self.part.is_some() || self.solution_budget.is_some()) {
            return Err("part and solution_budget: settings of a partitioned solve (parts > 0)".into());
        }
        Ok(())
    }

    /// The board.
    pub fn size(&self) -> BoardSize {
        BoardSize { width: self.width, height: self.height }
    }

    /// The variable order, parsed.
    pub fn order_spec(&self) -> Result<OrderSpec, String> {
        self.order.parse()
    }

    /// The forward pass's strategies.
    pub fn forward_options(&self) -> ForwardOptions {
        let (image, terminal) = (self.image, self.terminal);
        ForwardOptions { image, terminal, image_split: self.image_split, split_parts: self.split_parts }
    }

    /// The manager configuration of this run: its pass's defaults
    /// ([`count_config`] or [`solve_config`]) with the spec's settings.
    pub fn config(&self) -> Config {
        let defaults = match self.pass {
            Pass::Count => count_config(),
            Pass::Solve => solve_config(self.threads),
        };
        Config {
            max_nodes: self.limits.max_nodes.unwrap_or(defaults.max_nodes),
            gc_min_live: self.manager.gc_min_live.unwrap_or(defaults.gc_min_live),
            gc_growth: self.manager.gc_growth,
            cache_ratio: self.manager.cache_ratio.unwrap_or(defaults.cache_ratio),
            max_cache_entries: self.manager.max_cache_entries.unwrap_or(defaults.max_cache_entries),
            min_cache_entries: self.manager.min_cache_entries.unwrap_or(defaults.min_cache_entries),
            gc_cache: self.manager.gc_cache,
            split3_cache_ratio: self.manager.split3_cache_ratio.unwrap_or(defaults.split3_cache_ratio),
            traversal: self.manager.traversal.unwrap_or(defaults.traversal),
            max_requests: self.manager.max_requests.unwrap_or(defaults.max_requests),
            threads: self.threads,
            ..defaults
        }
    }
}

/// The default of [`RunSpec::parts`]: whole plies.
fn no_cut() -> Cut {
    Cut::NONE
}
