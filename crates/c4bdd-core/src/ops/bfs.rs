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
//! operations: every level's requests, results and map are empty.

use crate::cache::computed::Op;
use crate::manager::{Manager, Step};
use crate::ops::pairing::pair_split;
use crate::prefetch::prefetch;
use crate::store::unique::Full;

/// A child reference: a node, or (with this bit) a request `level << 32 | index`.
const REQ: u64 = 1 << 63;
/// How many requests ahead a walk hints the memory it will read.
const AHEAD: usize = 12;

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

/// Open-addressed map from a request's key to its index (one per level);
/// key 0 marks an empty slot (no request has two terminal operands).
#[derive(Default)]
struct LevelMap {
    keys: Vec<u64>,
    vals: Vec<u32>,
    /// The filled slots, so that a clear costs what the operation used.
    filled: Vec<u32>,
}

impl LevelMap {
    #[inline(always)]
    fn slot(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 32) as usize & (self.keys.len() - 1)
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        if !self.keys.is_empty() {
            prefetch(&self.keys[self.slot(key)]);
        }
    }

    /// The index of `key`, inserted as `next` if new: `(index, new)`. The
    /// map stays at most half full.
    #[inline(always)]
    fn get_or_insert(&mut self, key: u64, next: u32) -> (u32, bool) {
        if 2 * (self.filled.len() + 1) > self.keys.len() {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut s = self.slot(key);
        loop {
            match self.keys[s] {
                k if k == key => return (self.vals[s], false),
                0 => {
                    self.keys[s] = key;
                    self.vals[s] = next;
                    self.filled.push(s as u32);
                    return (next, true);
                }
                _ => s = (s + 1) & mask,
            }
        }
    }

    fn clear(&mut self) {
        for &s in &self.filled {
            self.keys[s as usize] = 0;
        }
        self.filled.clear();
    }

    #[cold]
    fn grow(&mut self) {
        let len = (self.keys.len() * 2).max(64);
        let keys = std::mem::replace(&mut self.keys, vec![0; len]);
        let vals = std::mem::replace(&mut self.vals, vec![0; len]);
        self.filled.clear();
        for (k, v) in keys.into_iter().zip(vals) {
            if k != 0 {
                self.get_or_insert(k, v);
            }
        }
    }
}

/// A request: its operands, and its `K` children's references once expanded.
#[derive(Clone, Copy)]
struct Req<const K: usize> {
    a: u32,
    b: u32,
    kids: [u64; K],
}

/// The per-level requests of one kind of operation.
struct Levels<const K: usize> {
    reqs: Vec<Vec<Req<K>>>,
    maps: Vec<LevelMap>,
    /// Per level, the nodes of its requests, in request order (reduce).
    results: Vec<Vec<u32>>,
}

impl<const K: usize> Default for Levels<K> {
    fn default() -> Self {
        Levels { reqs: Vec::new(), maps: Vec::new(), results: Vec::new() }
    }
}

impl<const K: usize> Levels<K> {
    fn prepare(&mut self, levels: usize) {
        self.reqs.resize_with(levels, Vec::new);
        self.maps.resize_with(levels, LevelMap::default);
        self.results.resize_with(levels, Vec::new);
    }

    /// The reference of the request `(a, b)` at `level`, added if new.
    #[inline(always)]
    fn request(&mut self, level: usize, a: u32, b: u32) -> u64 {
        let next = self.reqs[level].len() as u32;
        let (i, new) = self.maps[level].get_or_insert(key(a, b), next);
        if new {
            self.reqs[level].push(Req { a, b, kids: [0; K] });
        }
        REQ | (level as u64) << 32 | i as u64
    }

    /// The node of a reference (a request's once its level is reduced).
    #[inline(always)]
    fn resolve(&self, r: u64) -> u32 {
        if r & REQ == 0 {
            r as u32
        } else {
            self.results[((r & !REQ) >> 32) as usize][(r & 0xffff_ffff) as usize]
        }
    }

    /// Empty every level from `top` on, keeping the memory.
    fn clear(&mut self, top: usize) {
        for l in top..self.reqs.len() {
            self.reqs[l].clear();
            self.results[l].clear();
            self.maps[l].clear();
        }
    }
}

/// The breadth-first operations' tables, kept between operations so that
/// their memory is not mapped and zeroed again each time.
#[derive(Default)]
pub(crate) struct Bfs {
    apply: Levels<2>,
    pair: Levels<4>,
    /// A level's cofactor pairs (binary operations) or products (in-place).
    cofactors: Vec<[(u32, u32); 2]>,
    products: Vec<[(u32, u32); 4]>,
    /// A level's joins, and their results.
    joins: Vec<(u32, u32)>,
    joined: Vec<u32>,
}

type Ref = std::result::Result<u64, Full>;

impl Manager {
    /// Whether one-thread operations run breadth-first.
    #[inline]
    pub(crate) fn breadth_first(&self) -> bool {
        self.config.traversal == crate::Traversal::BreadthFirst
    }

    /// `op(f, g)` for a binary operation, breadth-first.
    pub(crate) fn apply_bfs(&mut self, op: Op, f: u32, g: u32) -> Step {
        self.grow_cache_if_due();
        let mut bfs = std::mem::take(&mut self.bfs);
        let mut out = Vec::with_capacity(1);
        let r = self.apply_batch(&mut bfs, op, &[(f, g)], &mut out);
        self.bfs = bfs;
        r.map(|()| out[0])
    }

    /// The in-place image or pre-image step `(f, t)` under pairing `id`,
    /// breadth-first.
    pub(crate) fn pair_bfs(&mut self, op: Op, f: u32, t: u32, id: u32) -> Step {
        self.grow_cache_if_due();
        let mut bfs = std::mem::take(&mut self.bfs);
        let r = self.pair_levels(&mut bfs, op, (f, t, id));
        self.bfs = bfs;
        r
    }

    /// A child of a binary step: a node, or a request.
    #[inline(always)]
    fn apply_child(&mut self, lv: &mut Levels<2>, op: Op, a: u32, b: u32) -> Ref {
        match Manager::apply_terminal_case(op, a, b) {
            Some(Ok(x)) => return Ok(x as u64),
            Some(Err(x)) => return self.not_rec(x).map(u64::from),
            None => {}
        }
        let (a, b) = Manager::apply_operands(op, a, b);
        if let Some(x) = self.cached(op, a, b, 0) {
            return Ok(x as u64);
        }
        let level = self.level(a).min(self.level(b)) as usize;
        Ok(lv.request(level, a, b))
    }

    /// `op(a, b)` for each pair of `pairs`, into `out` in order.
    fn apply_batch(&mut self, bfs: &mut Bfs, op: Op, pairs: &[(u32, u32)], out: &mut Vec<u32>) -> Result<(), Full> {
        let mut lv = std::mem::take(&mut bfs.apply);
        lv.prepare(self.var_count());
        let mut top = lv.reqs.len();
        let r = self.apply_levels(&mut lv, &mut bfs.cofactors, op, pairs, out, &mut top);
        lv.clear(top);
        bfs.apply = lv;
        r
    }

    /// The body of [`Manager::apply_batch`]; `top` becomes the top level
    /// with requests.
    fn apply_levels(
        &mut self,
        lv: &mut Levels<2>,
        cofactors: &mut Vec<[(u32, u32); 2]>,
        op: Op,
        pairs: &[(u32, u32)],
        out: &mut Vec<u32>,
        top: &mut usize,
    ) -> Result<(), Full> {
        let mut roots = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let r = self.apply_child(lv, op, a, b)?;
            if r & REQ != 0 {
                *top = (*top).min(((r & !REQ) >> 32) as usize);
            }
            roots.push(r);
        }
        for l in *top..lv.reqs.len() {
            self.expand_apply(lv, cofactors, op, l)?;
        }
        for l in (*top..lv.reqs.len()).rev() {
            self.reduce_apply(lv, op, l)?;
        }
        out.clear();
        out.extend(roots.iter().map(|&r| lv.resolve(r)));
        Ok(())
    }

    /// Expand level `l` of a binary operation: first the cofactors (records
    /// hinted ahead), then the children (cache entries, records and map
    /// slots hinted ahead).
    fn expand_apply(
        &mut self,
        lv: &mut Levels<2>,
        cofactors: &mut Vec<[(u32, u32); 2]>,
        op: Op,
        l: usize,
    ) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let n = list.len();
        cofactors.clear();
        for i in 0..n {
            for j in hinted(i, n, AHEAD) {
                self.table.nodes().prefetch(list[j].a);
                self.table.nodes().prefetch(list[j].b);
            }
            let (a0, a1) = self.cofactors(list[i].a, l as u32);
            let (b0, b1) = self.cofactors(list[i].b, l as u32);
            cofactors.push([(a0, b0), (a1, b1)]);
        }
        let open = |(a, b): (u32, u32)| Manager::apply_terminal_case(op, a, b).is_none();
        for i in 0..n {
            for j in hinted(i, n, AHEAD) {
                for (a, b) in cofactors[j].into_iter().filter(|&c| open(c)) {
                    let (a, b) = Manager::apply_operands(op, a, b);
                    self.cache.prefetch(op, a, b, 0);
                    self.table.nodes().prefetch(a);
                    self.table.nodes().prefetch(b);
                }
            }
            for j in hinted(i, n, AHEAD / 2) {
                for (a, b) in cofactors[j].into_iter().filter(|&c| open(c)) {
                    let (a, b) = Manager::apply_operands(op, a, b);
                    lv.maps[self.level(a).min(self.level(b)) as usize].prefetch(key(a, b));
                }
            }
            let [(a0, b0), (a1, b1)] = cofactors[i];
            let kids = self.apply_child(lv, op, a0, b0).and_then(|lo| Ok([lo, self.apply_child(lv, op, a1, b1)?]));
            match kids {
                Ok(kids) => list[i].kids = kids,
                Err(e) => {
                    lv.reqs[l] = list;
                    return Err(e);
                }
            }
        }
        lv.reqs[l] = list;
        Ok(())
    }

    /// Reduce level `l` of a binary operation: each request's node (index
    /// groups and cache entries hinted ahead), cached.
    fn reduce_apply(&mut self, lv: &mut Levels<2>, op: Op, l: usize) -> Result<(), Full> {
        let list = std::mem::take(&mut lv.reqs[l]);
        let mut done = std::mem::take(&mut lv.results[l]);
        let mut r = Ok(());
        for i in 0..list.len() {
            for j in hinted(i, list.len(), AHEAD) {
                let (lo, hi) = (lv.resolve(list[j].kids[0]), lv.resolve(list[j].kids[1]));
                if lo != hi {
                    self.table.prefetch_home(l as u32, lo, hi);
                }
                self.cache.prefetch(op, list[j].a, list[j].b, 0);
            }
            let Req { a, b, kids } = list[i];
            match self.mk(l as u32, lv.resolve(kids[0]), lv.resolve(kids[1])) {
                Ok(x) => {
                    self.cache.put(op, a, b, 0, x);
                    done.push(x);
                }
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        lv.results[l] = done;
        lv.reqs[l] = list;
        r
    }

    /// A product of an in-place step: a node, or a request.
    #[inline(always)]
    fn pair_child(&mut self, lv: &mut Levels<4>, op: Op, f: u32, t: u32, id: u32) -> u64 {
        let start = self.pairings[id as usize].step_start(f, t, |g| self.level(g));
        let x = match start {
            Ok(x) => x,
            Err(node) => return node as u64,
        };
        if let Some(node) = self.cached(op, f, t, id) {
            return node as u64;
        }
        lv.request(x as usize, f, t)
    }

    /// The in-place product `(f, t)` under pairing `id`: expand, then reduce.
    fn pair_levels(&mut self, bfs: &mut Bfs, op: Op, (f, t, id): (u32, u32, u32)) -> Step {
        let mut lv = std::mem::take(&mut bfs.pair);
        lv.prepare(self.var_count());
        let root = self.pair_child(&mut lv, op, f, t, id);
        let top = if root & REQ == 0 { lv.reqs.len() } else { ((root & !REQ) >> 32) as usize };
        for l in top..lv.reqs.len() {
            self.expand_pair(&mut lv, &mut bfs.products, op, (l, id));
        }
        let mut r = Ok(());
        for l in (top..lv.reqs.len()).rev() {
            r = self.reduce_pair(bfs, &mut lv, op, (l, id));
            if r.is_err() {
                break;
            }
        }
        let node = r.map(|()| lv.resolve(root));
        lv.clear(top);
        bfs.pair = lv;
        node
    }

    /// Expand level `l` of an in-place product: each request's four
    /// products (records hinted ahead), then their references (cache
    /// entries and records hinted ahead).
    fn expand_pair(&mut self, lv: &mut Levels<4>, products: &mut Vec<[(u32, u32); 4]>, op: Op, (l, id): (usize, u32)) {
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
            list[i].kids = products[i].map(|(f, t)| self.pair_child(lv, op, f, t, id));
        }
        lv.reqs[l] = list;
    }

    /// Reduce level `l` of an in-place product: the joins of its requests'
    /// products as one batch of `or`s, then each request's node, cached.
    fn reduce_pair(&mut self, bfs: &mut Bfs, lv: &mut Levels<4>, op: Op, (l, id): (usize, u32)) -> Result<(), Full> {
        let list = std::mem::take(&mut lv.reqs[l]);
        let mut joins = std::mem::take(&mut bfs.joins);
        joins.clear();
        for req in &list {
            let k = req.kids.map(|k| lv.resolve(k));
            joins.extend([(k[0], k[1]), (k[2], k[3])]);
        }
        let mut joined = std::mem::take(&mut bfs.joined);
        let mut r = self.apply_batch(bfs, Op::Or, &joins, &mut joined);
        let mut done = std::mem::take(&mut lv.results[l]);
        if r.is_ok() {
            for (i, req) in list.iter().enumerate() {
                for j in hinted(i, list.len(), AHEAD) {
                    if joined[2 * j] != joined[2 * j + 1] {
                        self.table.prefetch_home(l as u32, joined[2 * j], joined[2 * j + 1]);
                    }
                }
                match self.mk(l as u32, joined[2 * i], joined[2 * i + 1]) {
                    Ok(x) => {
                        self.cache.put(op, req.a, req.b, id, x);
                        done.push(x);
                    }
                    Err(e) => {
                        r = Err(e);
                        break;
                    }
                }
            }
        }
        (bfs.joins, bfs.joined) = (joins, joined);
        lv.results[l] = done;
        lv.reqs[l] = list;
        r
    }
}
