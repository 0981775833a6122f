//! The manager: owns every node, the unique table, the computed cache, the
//! variable order, registered variable sets and renamings, pins and statistics.
//!
//! Invariants (checked by [`Manager::check`]):
//! - every BDD is reduced and ordered: an internal node's level is smaller than
//!   its children's levels (terminals have the largest level), and its two
//!   children differ;
//! - `var_level` and `level_var` are inverse permutations of `0..var_count`;
//! - the order can only change while no internal node, variable set or
//!   renaming exists, so node levels never go stale.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::cache::computed::Cache;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::stats::Stats;
use crate::store::node::{Bdd, Level, Node, Var, MAX_VARS};
use crate::store::unique::{Full, NodeTable};

/// A registered set of variables, used by quantification and counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarSet(pub(crate) u32);

/// A registered variable substitution `x -> y`, used by [`Manager::rename`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Renaming(pub(crate) u32);

pub(crate) struct VarSetData {
    /// `member[level]`: whether the variable at that level is in the set.
    pub member: Vec<bool>,
    /// Levels of the members, ascending.
    pub levels: Vec<u32>,
}

pub(crate) struct RenamingData {
    /// `target[level]`: the level the variable at `level` is replaced by.
    pub target: Vec<u32>,
    /// The deepest level that is replaced; nodes below it are unchanged.
    pub last: u32,
}

/// The BDD manager. See the module documentation for its invariants.
pub struct Manager {
    pub(crate) table: NodeTable,
    pub(crate) cache: Cache,
    /// The three-way split's table (empty until the first `split3`).
    pub(crate) split3_cache: crate::cache::split3::Split3Cache,
    /// The breadth-first operations' requests, kept between operations.
    pub(crate) bfs: crate::ops::bfs::Bfs,
    pub(crate) config: Config,
    var_level: Vec<u32>,
    level_var: Vec<u32>,
    pub(crate) var_sets: Vec<VarSetData>,
    var_set_ids: FxHashMap<Vec<u32>, u32>,
    pub(crate) renamings: Vec<RenamingData>,
    pub(crate) pairings: Vec<crate::pairs::PairingData>,
    pub(crate) pins: FxHashMap<u32, u32>,
    pub(crate) stats: Stats,
    pub(crate) gc_next: usize,
    cache_grow_at: usize,
    /// The threads of parallel operations (`config.threads > 1` only).
    pub(crate) pool: Option<Arc<rayon::ThreadPool>>,
}

/// `f(parallel)` on `pool` with `parallel` true when there is one (directly
/// when the caller is one of its threads), else `f(false)` on the calling
/// thread.
pub(crate) fn run_on<R: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce(bool) -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(|| f(true)),
        None => f(false),
    }
}

/// Internal result of recursive operations: the error is a zero-sized marker
/// so the hot path returns a register-sized value.
pub(crate) type Step = std::result::Result<u32, Full>;
/// The result of a recursive step with two results.
pub(crate) type Step2 = std::result::Result<(u32, u32), Full>;

/// Memo bytes below which a count keeps the computed tables (see
/// [`Manager::make_room_for_count`]): below it the memory saved is small, and
/// regrowing the tables at every ply costs short plies much of their time.
pub const COUNT_MEMO_KEEPS_CACHE: usize = 1 << 28;

impl Manager {
    /// An empty manager with no variables.
    ///
    /// # Panics
    /// When `config.threads > 1` and the system cannot start the pool's
    /// threads; [`Manager::try_new`] returns that as an error.
    pub fn new(config: Config) -> Manager {
        Self::try_new(config).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An empty manager with no variables; an error when the pool of
    /// `config.threads > 1` threads cannot be started (never fewer threads).
    pub fn try_new(mut config: Config) -> Result<Manager> {
        let pool = match config.threads {
            0 | 1 => None,
            n => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| Error::ThreadPool { threads: n, reason: e.to_string() })?,
            )),
        };
        config.threads = config.threads.max(1);
        let table = NodeTable::new(config.initial_nodes, config.max_nodes);
        let cache = Cache::new(config.cache_entries(config.initial_nodes));
        let cache_grow_at = Self::cache_grow_at(&config, cache.len());
        let gc_next = config.gc_min_live;
        Ok(Manager {
            table,
            cache,
            split3_cache: Default::default(),
            bfs: Default::default(),
            config,
            var_level: Vec::new(),
            level_var: Vec::new(),
            var_sets: Vec::new(),
            var_set_ids: FxHashMap::default(),
            renamings: Vec::new(),
            pairings: Vec::new(),
            pins: FxHashMap::default(),
            stats: Stats::default(),
            gc_next,
            cache_grow_at,
            pool,
        })
    }

    /// Threads of the parallel operations (1: none).
    #[inline]
    pub fn threads(&self) -> usize {
        self.config.threads
    }

    /// The pool of the parallel operations, if there is one (`threads > 1`).
    /// Work run on it with `pool.install(|| ...)` starts each parallel
    /// operation on a thread of the pool, instead of handing every one,
    /// however small, from the calling thread to the pool and waiting.
    pub fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.pool.clone()
    }

    /// The configuration this manager was created with (limits may have changed since).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Whether `f` is a handle to a node alive in this manager: a terminal,
    /// or a slot of the arena that holds a node. A handle stays alive until a
    /// collection that neither pins it nor has it among its roots; after it,
    /// its slot is free or holds another node, and using it is a bug.
    pub fn is_live(&self, f: Bdd) -> bool {
        f.0 <= 1
            || ((f.0 as usize) < self.table.slots() && {
                let n = self.table.nodes().get(f.0);
                n.low != n.high
            })
    }

    /// In debug builds, panic unless every handle of `fs` is alive
    /// ([`Manager::is_live`]): the check of every public operation's operands.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn debug_check(&self, fs: &[Bdd]) {
        if cfg!(debug_assertions) {
            if let Some(f) = fs.iter().find(|&&f| !self.is_live(f)) {
                panic!(
                    "BDD handle {} is not a live node of this manager (freed by a collection, or another manager's)",
                    f.0
                );
            }
        }
    }

    /// Add `count` variables at the bottom of the order; returns them in order.
    pub fn add_vars(&mut self, count: usize) -> Result<Vec<Var>> {
        let start = self.var_level.len();
        if start + count > MAX_VARS {
            return Err(Error::TooManyVars { requested: start + count, max: MAX_VARS });
        }
        let vars = (start..start + count).map(|i| Var(i as u32)).collect();
        self.var_level.extend((start..start + count).map(|i| i as u32));
        self.level_var.extend((start..start + count).map(|i| i as u32));
        Ok(vars)
    }

    /// Number of variables.
    pub fn var_count(&self) -> usize {
        self.var_level.len()
    }

    /// Set the variable order: `order[l]` is the variable placed at level `l`.
    /// Allowed only before any internal node, variable set or renaming exists.
    pub fn set_order(&mut self, order: &[Var]) -> Result<()> {
        let n = self.var_count();
        if order.len() != n {
            let reason = format!("{} variables given, the manager has {n}", order.len());
            return Err(Error::InvalidOrder { reason });
        }
        let mut seen = vec![false; n];
        for &Var(v) in order {
            let slot = seen.get_mut(v as usize).ok_or(Error::UnknownVar { var: v, count: n as u32 })?;
            if std::mem::replace(slot, true) {
                return Err(Error::InvalidOrder { reason: format!("variable {v} appears twice") });
            }
        }
        if self.table.live() > 2 || !self.var_sets.is_empty() || !self.renamings.is_empty() {
            let reason = "the order can only be set before any BDD, variable set or renaming is built".to_string();
            return Err(Error::InvalidOrder { reason });
        }
        for (level, &Var(v)) in order.iter().enumerate() {
            self.level_var[level] = v;
            self.var_level[v as usize] = level as u32;
        }
        Ok(())
    }

    /// The level of a variable.
    pub fn level_of(&self, var: Var) -> Level {
        Level(self.var_level[var.0 as usize])
    }

    /// The variable at a level.
    pub fn var_at(&self, level: Level) -> Var {
        Var(self.level_var[level.0 as usize])
    }

    fn check_var(&self, var: Var) -> Result<u32> {
        self.var_level
            .get(var.0 as usize)
            .copied()
            .ok_or(Error::UnknownVar { var: var.0, count: self.var_count() as u32 })
    }

    /// The function `var == value`.
    pub fn literal(&mut self, var: Var, value: bool) -> Result<Bdd> {
        let level = self.check_var(var)?;
        let (low, high) = if value { (0, 1) } else { (1, 0) };
        let r = self.mk(level, low, high);
        self.lift(r)
    }

    /// The conjunction of literals `var == value` (a cube).
    pub fn cube(&mut self, literals: &[(Var, bool)]) -> Result<Bdd> {
        let mut lits = Vec::with_capacity(literals.len());
        for &(var, value) in literals {
            lits.push((self.check_var(var)?, value));
        }
        lits.sort_unstable_by_key(|&(level, _)| std::cmp::Reverse(level));
        let mut f = 1;
        for (i, &(level, value)) in lits.iter().enumerate() {
            if i > 0 && lits[i - 1].0 == level {
                if lits[i - 1].1 != value {
                    return Ok(Bdd::FALSE);
                }
                continue;
            }
            let node = if value { self.mk(level, 0, f) } else { self.mk(level, f, 0) };
            f = self.lift_raw(node)?;
        }
        Ok(Bdd(f))
    }

    /// Register (or look up) the set of the given variables.
    pub fn var_set(&mut self, vars: &[Var]) -> Result<VarSet> {
        let mut levels = Vec::with_capacity(vars.len());
        for &v in vars {
            levels.push(self.check_var(v)?);
        }
        levels.sort_unstable();
        levels.dedup();
        if let Some(&id) = self.var_set_ids.get(&levels) {
            return Ok(VarSet(id));
        }
        let mut member = vec![false; self.var_count()];
        for &l in &levels {
            member[l as usize] = true;
        }
        let id = self.var_sets.len() as u32;
        self.var_set_ids.insert(levels.clone(), id);
        self.var_sets.push(VarSetData { member, levels });
        Ok(VarSet(id))
    }

    /// The variables of a registered set, in level order.
    pub fn var_set_vars(&self, set: VarSet) -> Vec<Var> {
        self.var_sets[set.0 as usize].levels.iter().map(|&l| Var(self.level_var[l as usize])).collect()
    }

    /// Register a substitution of variables by variables, `(from, to)` pairs.
    /// Any map is allowed (it need not be injective or preserve the order).
    pub fn renaming(&mut self, pairs: &[(Var, Var)]) -> Result<Renaming> {
        let mut target: Vec<u32> = (0..self.var_count() as u32).collect();
        let mut last = 0;
        for &(from, to) in pairs {
            let (lf, lt) = (self.check_var(from)?, self.check_var(to)?);
            target[lf as usize] = lt;
            if lf != lt {
                last = last.max(lf);
            }
        }
        self.renamings.push(RenamingData { target, last });
        Ok(Renaming(self.renamings.len() as u32 - 1))
    }

    /// Protect `f` from garbage collection until a matching [`Manager::unpin`].
    pub fn pin(&mut self, f: Bdd) {
        self.debug_check(&[f]);
        if !f.is_const() {
            *self.pins.entry(f.0).or_insert(0) += 1;
        }
    }

    /// Undo one [`Manager::pin`] of `f`.
    ///
    /// # Panics
    /// If `f` is not pinned.
    pub fn unpin(&mut self, f: Bdd) {
        if f.is_const() {
            return;
        }
        let count = self.pins.get_mut(&f.0).expect("unpin of a BDD that is not pinned");
        *count -= 1;
        if *count == 0 {
            self.pins.remove(&f.0);
        }
    }

    /// Internal nodes alive now (allocated and not freed by a GC).
    pub fn live_nodes(&self) -> usize {
        self.table.live() - 2
    }

    /// Change the node limit (never below the slots already in use).
    pub fn set_max_nodes(&mut self, max_nodes: usize) {
        self.table.set_max_nodes(max_nodes);
        self.config.max_nodes = self.table.max_nodes();
    }

    /// Forget every computed-cache entry (for benchmarks that must not be
    /// answered from an earlier iteration's results).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
        self.split3_cache.clear(false);
    }

    /// Give the computed tables' memory back to the system, for a long phase
    /// that only reads the node table (a model count): the computed cache
    /// shrinks to its smallest size and the three-way split's table to none.
    /// Both regrow to their configured sizes when next used (the cache at the
    /// start of the next operation, or for the quantifiers at their first new
    /// node; the split's table at the next split); their entries are lost.
    pub fn release_caches(&mut self) {
        self.cache = Cache::new(0);
        self.cache_grow_at = Self::cache_grow_at(&self.config, self.cache.len());
        self.split3_cache = Default::default();
        self.bfs = Default::default();
    }

    /// Before a model count of BDDs among the live nodes: [`Self::release_caches`]
    /// when the count's memo could take an eighth of the computed tables'
    /// bytes or more (its 8 bytes a counted node, bounded by the live nodes),
    /// so that the memo takes the cache's place at the peak instead of adding
    /// to it; smaller counts, and any whose memo stays below
    /// `COUNT_MEMO_KEEPS_CACHE`, keep the cache, whose regrowth would cost
    /// more than the memo.
    pub fn make_room_for_count(&mut self) {
        let memo_bound = self.live_nodes().saturating_mul(8);
        let tables = self.cache.bytes() + self.split3_cache.bytes();
        if memo_bound >= COUNT_MEMO_KEEPS_CACHE && memo_bound.saturating_mul(8) >= tables {
            self.release_caches();
        }
    }

    /// Time spent in garbage collection so far (as in [`Manager::stats`]).
    pub fn gc_time(&self) -> std::time::Duration {
        self.stats.gc_time
    }

    /// A snapshot of the statistics.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats;
        s.live = self.live_nodes() as u64;
        s.slots = self.table.slots() as u64;
        s.max_nodes = self.table.max_nodes() as u64;
        s.cache_entries = self.cache.len() as u64;
        s.table_bytes = (self.table.bytes() + self.cache.bytes() + self.split3_cache.bytes()) as u64;
        s.bfs_bytes = self.bfs.bytes() as u64;
        s
    }

    // ----- internal helpers shared by the operations -----

    /// The node behind an index.
    #[inline(always)]
    pub(crate) fn node(&self, f: u32) -> Node {
        self.table.nodes().get(f)
    }

    /// The level of a node (terminals: `TERMINAL_LEVEL`).
    #[inline(always)]
    pub(crate) fn level(&self, f: u32) -> u32 {
        self.table.nodes().level(f)
    }

    /// The cofactors of `f` with respect to the variable at `level`, where
    /// `level <= level(f)`.
    #[inline(always)]
    pub(crate) fn cofactors(&self, f: u32, level: u32) -> (u32, u32) {
        self.node(f).cofactors(f, level)
    }

    /// The reduced node `(level, low, high)`: `low` when both children agree,
    /// else the unique node, created if needed.
    #[inline]
    pub(crate) fn mk(&mut self, level: u32, low: u32, high: u32) -> Step {
        if low == high {
            return Ok(low);
        }
        self.mk_hashed(level, low, high, crate::store::unique::hash(level, low, high))
    }

    /// [`Manager::mk`] of a node with `low != high` whose key's hash
    /// (`store::unique::hash`) is `h`.
    #[inline]
    pub(crate) fn mk_hashed(&mut self, level: u32, low: u32, high: u32, h: u64) -> Step {
        debug_assert_ne!(low, high);
        let before = self.table.live();
        let id = self.table.find_or_insert(level, low, high, h)?;
        let live = self.table.live();
        if live > before {
            self.stats.nodes_created += 1;
            let internal = (live - 2) as u64;
            if internal > self.stats.peak_live {
                self.stats.peak_live = internal;
            }
            self.grow_cache_if_due();
        }
        Ok(id)
    }

    /// Grow the computed cache if the arena has outgrown it.
    #[inline(always)]
    pub(crate) fn grow_cache_if_due(&mut self) {
        if self.table.slots() > self.cache_grow_at {
            self.grow_cache();
        }
    }

    #[cold]
    fn grow_cache(&mut self) {
        self.cache.resize(self.config.cache_entries(self.table.slots()));
        self.cache_grow_at = Self::cache_grow_at(&self.config, self.cache.len());
    }

    /// The most slots the arena may have before a cache of `len` entries is
    /// smaller than [`Config::cache_entries`] asks for (`usize::MAX` if it
    /// never is): found by bisection, since that size never decreases as
    /// the slots grow, so that the policy lives in `cache_entries` alone.
    fn cache_grow_at(config: &Config, len: usize) -> usize {
        // A node index is a u32: the arena never holds more slots.
        let most = u32::MAX as usize;
        if config.cache_entries(most) <= len {
            return usize::MAX;
        }
        // Invariant: cache_entries(lo) <= len < cache_entries(hi).
        let (mut lo, mut hi) = (0, most);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if config.cache_entries(mid) <= len {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Count one recursive step of `op` and look it up in the cache.
    #[inline(always)]
    pub(crate) fn cached(&mut self, op: crate::cache::computed::Op, a: u32, b: u32, c: u32) -> Option<u32> {
        self.cached_at(self.cache.slot_of(op, a, b, c), op, a, b, c)
    }

    /// [`Manager::cached`] at a slot from `Cache::slot_of`.
    #[inline(always)]
    pub(crate) fn cached_at(
        &mut self,
        slot: usize,
        op: crate::cache::computed::Op,
        a: u32,
        b: u32,
        c: u32,
    ) -> Option<u32> {
        self.stats.steps[op.index()] += 1;
        let hit = self.cache.get_at(slot, op, a, b, c);
        if hit.is_some() {
            self.stats.cache_hits[op.index()] += 1;
        }
        hit
    }

    /// The error value for a step that hit the node limit.
    pub(crate) fn limit_error(&self) -> Error {
        Error::NodeLimit { capacity: self.table.max_nodes() as u64, live: self.live_nodes() as u64 }
    }

    /// Turn an internal step result into a public one.
    #[inline]
    pub(crate) fn lift(&self, r: Step) -> Result<Bdd> {
        r.map(Bdd).map_err(|_| self.limit_error())
    }

    #[inline]
    fn lift_raw(&self, r: Step) -> Result<u32> {
        r.map_err(|_| self.limit_error())
    }
}
