//! The binary operations and in-place products breadth-first
//! ([`Traversal::BreadthFirst`](crate::Traversal::BreadthFirst), one thread).
//!
//! A depth-first step reads its operands' records, its cache entry and its
//! node's index group one after another, each a miss in memory on large
//! BDDs, and cannot read the next step's until it has its own. Here an
//! operation runs in two sweeps over the levels:
//! - *expand*, top-down: the requests of a level (each a distinct operand
//!   pair, kept once in a per-level map) are cofactored, and each child is
//!   a node (a terminal case or a cache hit) or a request one level down or
//!   more;
//! - *reduce*, bottom-up: each request's node is made from its children's.
//!
//! All requests of a level are known before the level is walked, so each
//! walk hints the records, cache entries, map slots and index groups of the
//! requests up to `2 AHEAD` places on while it works on the current one.
//! What a request's step needs (its children or products with their cache
//! slots and hashes, or its node's key and hash) is worked out once, `AHEAD`
//! requests before the step, and kept in a ring of [`RING`] requests until
//! the step and its hints read it: a walk's instructions, not only its
//! loads, bound its time. An
//! in-place product's step joins two products with `or`: the joins of a
//! level run as one breadth-first batch of `or`s before its nodes are made.
//!
//! Results are those of the depth-first bodies (the table is canonical),
//! and so are the binary operations' cache entries (the keys are the same).
//! The in-place products' walk neither reads nor writes the cache: their
//! steps repeat across walks too seldom to pay for the lookups (2-3% of
//! them on a 6x4 solve), and a walk's level maps find its own repeats.
//! Invariant between operations: every level's requests and map are empty.
//!
//! Memory: a request takes 20 bytes (binary operations) or 32 (in-place
//! products), its result kept in place of an operand, and its map slot 4
//! bytes (the map between a quarter and half full, its keys read from the
//! requests). Between walks the tables keep their room up to [`KEEP`]
//! requests per level and give back the rest. A walk
//! holds at most [`Config::max_requests`](crate::Config::max_requests)
//! requests of each kind: once it holds them, a child that is no request
//! yet is made where the walk meets it, by the depth-first body.

mod apply;
mod pair;

use crate::cache::computed::Op;
use crate::manager::{Manager, Step};
use crate::ops::level_map::{mix, LevelMap};
use crate::prefetch::prefetch;
use crate::store::unique::Full;

/// The level of a child that is a node, not a request; so breadth-first
/// operations run on managers of fewer levels than this.
pub(crate) const NODE: u16 = u16::MAX;
/// How many requests ahead a walk hints the memory it will read.
const AHEAD: usize = 12;
/// The requests a walk keeps worked out ahead of the one it works on (their
/// children, or the nodes to make), in a ring: a power of two above [`AHEAD`].
const RING: usize = 16;
const _: () = assert!(RING.is_power_of_two() && RING > AHEAD);

/// The item that a stage `lag` ticks behind a walk's first stage works on
/// at tick `t`, in a walk over `n` items, if any. A walk runs its stages
/// tick by tick (ticks `0..n + LAG`, its step `LAG` ticks behind), so that
/// a stage `lag` ticks behind the first hints or works out an item's memory
/// `LAG - lag` ticks before the item's step, with no start of its own.
#[inline(always)]
fn behind(t: usize, lag: usize, n: usize) -> Option<usize> {
    t.checked_sub(lag).filter(|&j| j < n)
}

/// Most requests a level's list (and items a scratch list) keeps room for
/// between walks: a walk that needed more gives its memory back, so that
/// the tables hold between walks at most a few megabytes per level and
/// not the largest walk's size at every level.
const KEEP: usize = 1 << 16;

/// A map key: a request's two operands.
#[inline(always)]
fn key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

/// A child: node `.0` if `.1` is [`NODE`], else request `.0` of level `.1`.
type Kid = (u32, u16);

/// A node to make: its children and the [`hash`](crate::store::unique::hash)
/// of its key.
#[derive(Clone, Copy)]
struct Made {
    low: u32,
    high: u32,
    hash: u64,
}

impl Made {
    /// The node `(level, low, high)` to make.
    #[inline(always)]
    fn of(level: u32, low: u32, high: u32) -> Made {
        Made { low, high, hash: crate::store::unique::hash(level, low, high) }
    }
}

/// A request: its operands, and its `K` children once expanded (child `k`
/// is `(kids[k], at[k])`, a [`Kid`]). Once its level is reduced, `a` holds
/// the request's node.
#[derive(Clone, Copy)]
struct Req<const K: usize> {
    a: u32,
    b: u32,
    kids: [u32; K],
    at: [u16; K],
}

impl<const K: usize> Req<K> {
    #[inline(always)]
    fn key(&self) -> u64 {
        key(self.a, self.b)
    }
}

/// The per-level requests of one kind of operation. Invariant between
/// operations: every list empty, every map empty, `top` the level count,
/// `held` zero; during one, `held` is the sum of the lists' lengths, and a
/// level's map holds exactly its requests until the level is expanded,
/// when it is emptied.
struct Levels<const K: usize> {
    reqs: Vec<Vec<Req<K>>>,
    maps: Vec<LevelMap>,
    /// The top level with requests.
    top: usize,
    /// The requests of all levels.
    held: usize,
}

impl<const K: usize> Default for Levels<K> {
    fn default() -> Self {
        Levels { reqs: Vec::new(), maps: Vec::new(), top: 0, held: 0 }
    }
}

impl<const K: usize> Levels<K> {
    fn prepare(&mut self, levels: usize) {
        self.reqs.resize_with(levels, Vec::new);
        self.maps.resize_with(levels, LevelMap::default);
        self.top = levels;
    }

    /// The request `(a, b)` at `level`, added if new and fewer than
    /// `most` requests are held; `None` if it is new and they are not.
    #[inline(always)]
    fn request(&mut self, level: usize, (a, b): (u32, u32), most: usize) -> Option<Kid> {
        self.request_hashed(level, (a, b), mix(key(a, b)), most)
    }

    /// [`Levels::request`] with the key's hash `h` (`mix(key(a, b))`) given.
    #[inline(always)]
    fn request_hashed(&mut self, level: usize, (a, b): (u32, u32), h: u64, most: usize) -> Option<Kid> {
        let (list, k) = (&mut self.reqs[level], key(a, b));
        if self.held >= most {
            return self.maps[level].find(h, |i| list[i].key() == k).map(|i| (i, level as u16));
        }
        let hash_of = |i: usize| mix(list[i].key());
        let (i, new) = self.maps[level].find_or_insert(h, list.len(), |i| list[i].key() == k, hash_of);
        if new {
            list.push(Req { a, b, kids: [0; K], at: [NODE; K] });
            self.held += 1;
        }
        self.top = self.top.min(level);
        Some((i, level as u16))
    }

    /// Hint the map slot of the request of hash `h` at `level`.
    #[inline(always)]
    fn prefetch_slot(&self, level: usize, h: u64) {
        self.maps[level].prefetch(h);
    }

    /// Hint the request that the home slot of hash `h` at `level` names.
    #[inline(always)]
    fn prefetch_req(&self, level: usize, h: u64) {
        if let Some(req) = self.maps[level].at_home(h).and_then(|i| self.reqs[level].get(i)) {
            prefetch(req);
        }
    }

    /// The node of a child (a request's once its level is reduced).
    #[inline(always)]
    fn resolve(&self, (x, at): Kid) -> u32 {
        if at == NODE {
            x
        } else {
            self.reqs[at as usize][x as usize].a
        }
    }

    /// Empty the maps of the levels from `from` on (their requests not yet
    /// reduced), after a failed expansion.
    fn clear_maps(&mut self, from: usize) {
        for l in from..self.reqs.len() {
            self.clear_map(l);
        }
    }

    /// Empty the map of level `l`.
    fn clear_map(&mut self, l: usize) {
        let list = &self.reqs[l];
        self.maps[l].clear(list.len(), |i| mix(list[i].key()));
    }

    /// Bytes its lists and maps hold.
    fn bytes(&self) -> usize {
        let lists: usize = self.reqs.iter().map(|l| l.capacity() * size_of::<Req<K>>()).sum();
        lists + self.maps.iter().map(LevelMap::bytes).sum::<usize>()
    }

    /// Free the list and map of every level whose list holds room for more
    /// than [`KEEP`] requests (every list and map empty).
    fn trim(&mut self) {
        for (list, map) in self.reqs.iter_mut().zip(&mut self.maps) {
            if list.capacity() > KEEP {
                *list = Vec::new();
                *map = LevelMap::default();
            }
        }
    }

    /// Empty every level's list (the maps are empty), keeping the memory.
    fn clear(&mut self) {
        for list in &mut self.reqs[self.top..] {
            list.clear();
        }
        self.top = self.reqs.len();
        self.held = 0;
    }
}

/// The breadth-first operations' tables, kept between operations (up to
/// [`KEEP`] requests a level) so that the many small walks do not map and
/// zero their memory again each time.
#[derive(Default)]
pub(crate) struct Bfs {
    apply: Levels<2>,
    pair: Levels<4>,
    /// A level's joins, and their results.
    joins: Vec<(u32, u32)>,
    joined: Vec<u32>,
}

impl Bfs {
    /// Bytes the tables hold.
    pub(crate) fn bytes(&self) -> usize {
        self.apply.bytes()
            + self.pair.bytes()
            + self.joins.capacity() * size_of::<(u32, u32)>()
            + self.joined.capacity() * size_of::<u32>()
    }

    /// Give back what a walk larger than [`KEEP`] requests per level took
    /// (between walks: every list and map empty).
    fn trim(&mut self) {
        self.apply.trim();
        self.pair.trim();
        trim_scratch(&mut self.joins);
        trim_scratch(&mut self.joined);
    }
}

/// Free an empty scratch list with room for more than [`KEEP`] items.
fn trim_scratch<T>(list: &mut Vec<T>) {
    if list.capacity() > KEEP {
        *list = Vec::new();
    }
}

impl Manager {
    /// Whether the binary operations and in-place products of one thread
    /// run breadth-first (which needs fewer than 65,535 levels); the
    /// splits and the quantifiers walk depth-first either way, so a caller
    /// that may take binary operations instead of a split asks here.
    #[inline]
    pub fn breadth_first(&self) -> bool {
        self.config.traversal == crate::Traversal::BreadthFirst && self.var_count() < NODE as usize
    }

    /// `op(f, g)` for a binary operation, breadth-first.
    pub(crate) fn apply_bfs(&mut self, op: Op, f: u32, g: u32) -> Step {
        self.grow_cache_if_due();
        let mut bfs = std::mem::take(&mut self.bfs);
        let mut out = Vec::with_capacity(1);
        let r = self.apply_batch(&mut bfs, op, &[(f, g)], &mut out);
        self.end_walk(bfs);
        r.map(|()| out[0])
    }

    /// The in-place image or pre-image step `(f, t)` under pairing `id`,
    /// breadth-first.
    pub(crate) fn pair_bfs(&mut self, op: Op, f: u32, t: u32, id: u32) -> Step {
        self.grow_cache_if_due();
        let mut bfs = std::mem::take(&mut self.bfs);
        let r = self.pair_levels(&mut bfs, op, (f, t, id));
        self.end_walk(bfs);
        r
    }

    /// Keep the tables of a finished walk, their size recorded, and what
    /// a large walk took given back.
    fn end_walk(&mut self, mut bfs: Bfs) {
        self.stats.bfs_peak_bytes = self.stats.bfs_peak_bytes.max(bfs.bytes() as u64);
        bfs.trim();
        self.bfs = bfs;
    }

    /// The level of the binary request on (ordered) operands `a` and `b`.
    #[inline(always)]
    fn request_level(&self, a: u32, b: u32) -> usize {
        self.level(a).min(self.level(b)) as usize
    }

    /// Make the node of each request of `list` (level `l`) from its
    /// children's nodes `kids(i, req)`, cache it under `(op, a, b, id)` for
    /// `cache_as` `Some((op, id))`, and keep it in the request's `a`:
    /// request by request, each one's key worked out (and its index group
    /// and cache entry hinted) `AHEAD` ticks before it is made, the records
    /// its lookup compares hinted `AHEAD / 2` before (see [`behind`]).
    fn make_nodes<const K: usize>(
        &mut self,
        list: &mut [Req<K>],
        l: u32,
        cache_as: Option<(Op, u32)>,
        kids: impl Fn(usize, &Req<K>) -> (u32, u32),
    ) -> Result<(), Full> {
        let n = list.len();
        let mut ring = [Made { low: 0, high: 0, hash: 0 }; RING];
        let work = |s: &Self, j: usize, req: &Req<K>| {
            let (low, high) = kids(j, req);
            let made = Made::of(l, low, high);
            if low != high {
                s.table.prefetch_home(made.hash);
            }
            if let Some((op, id)) = cache_as {
                s.cache.prefetch(op, req.a, req.b, id);
            }
            made
        };
        let candidates = |s: &Self, m: &Made| {
            if m.low != m.high {
                s.table.prefetch_candidates(m.hash);
            }
        };
        for t in 0..n + AHEAD {
            if let Some(j) = behind(t, 0, n) {
                ring[j % RING] = work(self, j, &list[j]);
            }
            if let Some(j) = behind(t, AHEAD / 2, n) {
                candidates(self, &ring[j % RING]);
            }
            if let Some(i) = behind(t, AHEAD, n) {
                let Made { low, high, hash } = ring[i % RING];
                let x = if low == high { low } else { self.mk_hashed(l, low, high, hash)? };
                if let Some((op, id)) = cache_as {
                    self.cache.put(op, list[i].a, list[i].b, id, x);
                }
                list[i].a = x;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn between_walks_a_level_keeps_room_for_at_most_keep_requests() {
        let mut lv = Levels::<2>::default();
        lv.prepare(3);
        lv.reqs[0].reserve_exact(KEEP);
        lv.reqs[1].reserve_exact(KEEP + 1);
        for i in 0..=KEEP as u32 {
            lv.request(1, (i, i), usize::MAX);
        }
        lv.clear_map(1);
        lv.clear();
        let before = lv.bytes();
        lv.trim();
        assert_eq!(lv.reqs[0].capacity(), KEEP);
        assert_eq!((lv.reqs[1].capacity(), lv.maps[1].bytes()), (0, 0));
        assert_eq!(lv.bytes(), KEEP * size_of::<Req<2>>());
        assert!(before > lv.bytes() + (KEEP + 1) * (size_of::<Req<2>>() + 2 * size_of::<u32>()));
        let mut scratch: Vec<u32> = Vec::with_capacity(KEEP + 1);
        trim_scratch(&mut scratch);
        assert_eq!(scratch.capacity(), 0);
    }
}
