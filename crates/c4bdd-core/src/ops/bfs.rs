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
//! requests [`AHEAD`] places on while it works on the current one. An
//! in-place product's step joins two products with `or`: the joins of a
//! level run as one breadth-first batch of `or`s before its nodes are made.
//!
//! Results and cache entries are those of the depth-first bodies (the
//! table is canonical; the cache keys are the same). Invariant between
//! operations: every level's requests and map are empty.
//!
//! Memory: a request takes 20 bytes (binary operations) or 32 (in-place
//! products), its result kept in place of an operand, and its map slot 4
//! bytes (the map between a quarter and half full, its keys read from the
//! requests). Between walks the tables keep their room up to [`KEEP`]
//! requests per level and give back the rest. A walk
//! holds at most [`Config::max_requests`](crate::Config::max_requests)
//! requests of each kind: once it holds them, a child that is no request
//! yet is made where the walk meets it, by the depth-first body.

use crate::cache::computed::Op;
use crate::manager::{Manager, Step};
use crate::ops::apply::apply_missed;
use crate::ops::level_map::{mix, LevelMap};
use crate::ops::pairing::{pair_missed, pair_split};
use crate::parallel::recursor::Seq;
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
/// Most requests a level's list (and items a scratch list) keeps room for
/// between walks: a walk that needed more gives its memory back, so that
/// the tables hold between walks at most a few megabytes per level and
/// not the largest walk's size at every level.
const KEEP: usize = 1 << 16;

/// The items step `i` of a walk over `n` hints, `d` ahead: the first `d + 1`
/// at step 0, then the one `d` places on.
#[inline(always)]
fn hinted(i: usize, n: usize, d: usize) -> std::ops::Range<usize> {
    if i == 0 {
        0..(d + 1).min(n)
    } else if i + d < n {
        i + d..i + d + 1
    } else {
        0..0
    }
}

/// A map key: a request's two operands.
#[inline(always)]
fn key(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}

/// A child: node `.0` if `.1` is [`NODE`], else request `.0` of level `.1`.
type Kid = (u32, u16);

/// A child of a binary step, worked out once when its parent is
/// cofactored: by `level`, the node `a` ([`Child::NODE`]), the negation of
/// `a` still to make ([`Child::NEGATE`]), or the open pair `(a, b)` (its
/// operands ordered) whose request is at `level` and whose cache entry is
/// at `slot` (for the cache's size then).
#[derive(Clone, Copy)]
struct Child {
    a: u32,
    b: u32,
    level: u32,
    slot: u32,
    /// The request's hash in its level's map.
    hash: u64,
}

impl Child {
    const NODE: u32 = u32::MAX;
    const NEGATE: u32 = u32::MAX - 1;
    /// A child that is the node `x`.
    const fn node(x: u32) -> Child {
        Child { a: x, b: 0, level: Child::NODE, slot: 0, hash: 0 }
    }

    #[inline(always)]
    fn open(&self) -> bool {
        self.level < Child::NEGATE
    }
}

/// A node to make: its children and the [`hash`](crate::store::unique::hash)
/// of its key.
#[derive(Clone, Copy)]
struct Made {
    low: u32,
    high: u32,
    hash: u64,
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

impl Made {
    /// The node `(level, low, high)` to make.
    #[inline(always)]
    fn of(level: u32, low: u32, high: u32) -> Made {
        Made { low, high, hash: crate::store::unique::hash(level, low, high) }
    }
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
    /// A level's products (in-place).
    products: Vec<[(u32, u32); 4]>,
    /// A level's joins, and their results.
    joins: Vec<(u32, u32)>,
    joined: Vec<u32>,
}

impl Bfs {
    /// Bytes the tables hold.
    pub(crate) fn bytes(&self) -> usize {
        self.apply.bytes()
            + self.pair.bytes()
            + self.products.capacity() * size_of::<[(u32, u32); 4]>()
            + self.joins.capacity() * size_of::<(u32, u32)>()
            + self.joined.capacity() * size_of::<u32>()
    }

    /// Give back what a walk larger than [`KEEP`] requests per level took
    /// (between walks: every list and map empty).
    fn trim(&mut self) {
        self.apply.trim();
        self.pair.trim();
        trim_scratch(&mut self.products);
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
    /// run breadth-first (which needs fewer levels than [`NODE`]); the
    /// splits and the quantifiers walk depth-first either way.
    #[inline]
    pub(crate) fn breadth_first(&self) -> bool {
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

    /// The [`Child`] `op(a, b)` of a binary step.
    #[inline(always)]
    fn child(&self, op: Op, a: u32, b: u32) -> Child {
        match Manager::apply_terminal_case(op, a, b) {
            Some(Ok(x)) => Child::node(x),
            Some(Err(x)) => Child { level: Child::NEGATE, ..Child::node(x) },
            None => {
                let (a, b) = Manager::apply_operands(op, a, b);
                let (slot, hash) = (self.cache.slot_of(op, a, b, 0) as u32, mix(key(a, b)));
                Child { a, b, level: self.request_level(a, b) as u32, slot, hash }
            }
        }
    }

    /// A child of a binary step: a node, or a request. `shift` is the
    /// cache's when `c` was worked out (a slot of another size is taken again).
    #[inline(always)]
    fn apply_child(&mut self, lv: &mut Levels<2>, op: Op, c: Child, shift: u32) -> Result<Kid, Full> {
        match c.level {
            Child::NODE => return Ok((c.a, NODE)),
            Child::NEGATE => return self.not_rec(c.a).map(|x| (x, NODE)),
            _ => {}
        }
        let slot = if shift == self.cache.shift { c.slot as usize } else { self.cache.slot_of(op, c.a, c.b, 0) };
        if let Some(x) = self.cached_at(slot, op, c.a, c.b, 0) {
            return Ok((x, NODE));
        }
        match lv.request_hashed(c.level as usize, (c.a, c.b), c.hash, self.config.max_requests) {
            Some(kid) => Ok(kid),
            None => {
                self.stats.bfs_past_bound += 1;
                apply_missed(Seq::new(self), op, c.a, c.b, 0).map(|x| (x, NODE))
            }
        }
    }

    /// `op(a, b)` for each pair of `pairs`, into `out` in order.
    fn apply_batch(&mut self, bfs: &mut Bfs, op: Op, pairs: &[(u32, u32)], out: &mut Vec<u32>) -> Result<(), Full> {
        let mut lv = std::mem::take(&mut bfs.apply);
        lv.prepare(self.var_count());
        let r = self.apply_levels(&mut lv, op, pairs, out);
        self.stats.bfs_peak_requests = self.stats.bfs_peak_requests.max(lv.held as u64);
        lv.clear();
        bfs.apply = lv;
        r
    }

    /// The body of [`Manager::apply_batch`].
    fn apply_levels(
        &mut self,
        lv: &mut Levels<2>,
        op: Op,
        pairs: &[(u32, u32)],
        out: &mut Vec<u32>,
    ) -> Result<(), Full> {
        let mut roots = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let (c, shift) = (self.child(op, a, b), self.cache.shift);
            match self.apply_child(lv, op, c, shift) {
                Ok(r) => roots.push(r),
                Err(e) => {
                    lv.clear_maps(0);
                    return Err(e);
                }
            }
        }
        for l in lv.top..lv.reqs.len() {
            lv.clear_map(l);
            if let Err(e) = self.expand_apply(lv, op, l) {
                lv.clear_maps(l + 1);
                return Err(e);
            }
        }
        for l in (lv.top..lv.reqs.len()).rev() {
            let mut list = std::mem::take(&mut lv.reqs[l]);
            let r = self.make_nodes(&mut list, l as u32, (op, 0), |_, req| {
                (lv.resolve((req.kids[0], req.at[0])), lv.resolve((req.kids[1], req.at[1])))
            });
            lv.reqs[l] = list;
            r?;
        }
        out.clear();
        out.extend(roots.iter().map(|&r| lv.resolve(r)));
        Ok(())
    }

    /// Expand level `l` of a binary operation, request by request, each
    /// request's records hinted `2 AHEAD` requests before it is worked on,
    /// its children worked out (and their cache entries and records hinted)
    /// `AHEAD` before, their map slots hinted `AHEAD / 2` before and the
    /// requests those name `AHEAD / 4` before.
    fn expand_apply(&mut self, lv: &mut Levels<2>, op: Op, l: usize) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let (n, shift) = (list.len(), self.cache.shift);
        let mut ring = [[Child::node(0); 2]; RING];
        let records = |s: &Self, req: &Req<2>| {
            s.table.nodes().prefetch(req.a);
            s.table.nodes().prefetch(req.b);
        };
        let work = |s: &Self, req: &Req<2>| {
            let ((a0, a1), (b0, b1)) = (s.cofactors(req.a, l as u32), s.cofactors(req.b, l as u32));
            let children = [s.child(op, a0, b0), s.child(op, a1, b1)];
            for c in children.iter().filter(|c| c.open()) {
                s.cache.prefetch_at(c.slot as usize);
                s.table.nodes().prefetch(c.a);
                s.table.nodes().prefetch(c.b);
            }
            children
        };
        let slots = |lv: &Levels<2>, children: &[Child; 2]| {
            children.iter().filter(|c| c.open()).for_each(|c| lv.prefetch_slot(c.level as usize, c.hash));
        };
        let reqs = |lv: &Levels<2>, children: &[Child; 2]| {
            children.iter().filter(|c| c.open()).for_each(|c| lv.prefetch_req(c.level as usize, c.hash));
        };
        list.iter().take(2 * AHEAD).for_each(|req| records(self, req));
        for (j, req) in list.iter().enumerate().take(AHEAD) {
            ring[j] = work(self, req);
        }
        ring.iter().take(n.min(AHEAD / 2)).for_each(|c| slots(lv, c));
        ring.iter().take(n.min(AHEAD / 4)).for_each(|c| reqs(lv, c));
        for i in 0..n {
            if let Some(req) = list.get(i + 2 * AHEAD) {
                records(self, req);
            }
            if let Some(req) = list.get(i + AHEAD) {
                ring[(i + AHEAD) % RING] = work(self, req);
            }
            if i + AHEAD / 2 < n {
                slots(lv, &ring[(i + AHEAD / 2) % RING]);
            }
            if i + AHEAD / 4 < n {
                reqs(lv, &ring[(i + AHEAD / 4) % RING]);
            }
            for (k, &c) in ring[i % RING].iter().enumerate() {
                match self.apply_child(lv, op, c, shift) {
                    Ok(kid) => (list[i].kids[k], list[i].at[k]) = kid,
                    Err(e) => {
                        lv.reqs[l] = list;
                        return Err(e);
                    }
                }
            }
        }
        lv.reqs[l] = list;
        Ok(())
    }

    /// Make the node of each request of `list` (level `l`) from its
    /// children's nodes `kids(i, req)`, cache it under `(op, a, b, id)` and
    /// keep it in the request's `a`: request by request, each one's key
    /// worked out (and its index group and cache entry hinted) `AHEAD`
    /// requests before it is made, the records its lookup compares hinted
    /// `AHEAD / 2` before.
    fn make_nodes<const K: usize>(
        &mut self,
        list: &mut [Req<K>],
        l: u32,
        (op, id): (Op, u32),
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
            s.cache.prefetch(op, req.a, req.b, id);
            made
        };
        let candidates = |s: &Self, m: &Made| {
            if m.low != m.high {
                s.table.prefetch_candidates(m.hash);
            }
        };
        for (j, req) in list.iter().enumerate().take(AHEAD) {
            ring[j] = work(self, j, req);
        }
        ring.iter().take(n.min(AHEAD / 2)).for_each(|m| candidates(self, m));
        for i in 0..n {
            if let Some(req) = list.get(i + AHEAD) {
                ring[(i + AHEAD) % RING] = work(self, i + AHEAD, req);
            }
            if i + AHEAD / 2 < n {
                candidates(self, &ring[(i + AHEAD / 2) % RING]);
            }
            let Made { low, high, hash } = ring[i % RING];
            let x = if low == high { low } else { self.mk_hashed(l, low, high, hash)? };
            self.cache.put(op, list[i].a, list[i].b, id, x);
            list[i].a = x;
        }
        Ok(())
    }

    /// A product of an in-place step: a node, or a request.
    #[inline(always)]
    fn pair_child(&mut self, lv: &mut Levels<4>, op: Op, f: u32, t: u32, id: u32) -> Result<Kid, Full> {
        let start = self.pairings[id as usize].step_start(f, t, |g| self.level(g));
        let x = match start {
            Ok(x) => x,
            Err(node) => return Ok((node, NODE)),
        };
        if let Some(node) = self.cached(op, f, t, id) {
            return Ok((node, NODE));
        }
        match lv.request(x as usize, (f, t), self.config.max_requests) {
            Some(kid) => Ok(kid),
            None => {
                self.stats.bfs_past_bound += 1;
                pair_missed(Seq::new(self), op, (f, t, id), x, 0).map(|x| (x, NODE))
            }
        }
    }

    /// The in-place product `(f, t)` under pairing `id`: expand, then reduce.
    fn pair_levels(&mut self, bfs: &mut Bfs, op: Op, (f, t, id): (u32, u32, u32)) -> Step {
        let mut lv = std::mem::take(&mut bfs.pair);
        lv.prepare(self.var_count());
        let node = self.pair_walk(bfs, &mut lv, op, (f, t, id));
        self.stats.bfs_peak_requests = self.stats.bfs_peak_requests.max(lv.held as u64);
        lv.clear();
        bfs.pair = lv;
        node
    }

    /// The body of [`Manager::pair_levels`]; on failure every map is empty.
    fn pair_walk(&mut self, bfs: &mut Bfs, lv: &mut Levels<4>, op: Op, (f, t, id): (u32, u32, u32)) -> Step {
        let root = self.pair_child(lv, op, f, t, id).inspect_err(|_| lv.clear_maps(0))?;
        for l in lv.top..lv.reqs.len() {
            lv.clear_map(l);
            self.expand_pair(lv, &mut bfs.products, op, (l, id)).inspect_err(|_| lv.clear_maps(l + 1))?;
        }
        for l in (lv.top..lv.reqs.len()).rev() {
            self.reduce_pair(bfs, lv, op, (l, id))?;
        }
        Ok(lv.resolve(root))
    }

    /// Expand level `l` of an in-place product: each request's four
    /// products (records hinted ahead), then their children (cache
    /// entries and records hinted ahead).
    fn expand_pair(
        &mut self,
        lv: &mut Levels<4>,
        products: &mut Vec<[(u32, u32); 4]>,
        op: Op,
        (l, id): (usize, u32),
    ) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let n = list.len();
        products.clear();
        for i in 0..n {
            for j in hinted(i, n, AHEAD) {
                self.table.nodes().prefetch(list[j].a);
            }
            let nodes = self.table.nodes();
            let (f, t) = (list[i].a, list[i].b);
            let ((f0, f1), into0, into1) = pair_split(op, f, t, l as u32, |g, level| nodes.get(g).cofactors(g, level));
            products.push([(f0, into0.0), (f1, into0.1), (f0, into1.0), (f1, into1.1)]);
        }
        for i in 0..n {
            for j in hinted(i, n, AHEAD) {
                for (f, t) in products[j].into_iter().filter(|&(f, t)| f > 1 && t > 1) {
                    self.cache.prefetch(op, f, t, id);
                    self.table.nodes().prefetch(f);
                }
            }
            let mut kids = [(0, NODE); 4];
            for (kid, (f, t)) in kids.iter_mut().zip(products[i]) {
                match self.pair_child(lv, op, f, t, id) {
                    Ok(k) => *kid = k,
                    Err(e) => {
                        lv.reqs[l] = list;
                        return Err(e);
                    }
                }
            }
            (list[i].kids, list[i].at) = (kids.map(|k| k.0), kids.map(|k| k.1));
        }
        lv.reqs[l] = list;
        Ok(())
    }

    /// Reduce level `l` of an in-place product: the joins of its requests'
    /// products as one batch of `or`s, then each request's node, cached.
    fn reduce_pair(&mut self, bfs: &mut Bfs, lv: &mut Levels<4>, op: Op, (l, id): (usize, u32)) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let mut joins = std::mem::take(&mut bfs.joins);
        joins.clear();
        for req in &list {
            let k: [u32; 4] = std::array::from_fn(|j| lv.resolve((req.kids[j], req.at[j])));
            joins.extend([(k[0], k[1]), (k[2], k[3])]);
        }
        let mut joined = std::mem::take(&mut bfs.joined);
        let mut r = self.apply_batch(bfs, Op::Or, &joins, &mut joined);
        if r.is_ok() {
            r = self.make_nodes(&mut list, l as u32, (op, id), |i, _| (joined[2 * i], joined[2 * i + 1]));
        }
        (bfs.joins, bfs.joined) = (joins, joined);
        lv.reqs[l] = list;
        r
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
