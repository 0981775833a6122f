//! The unique table: the node arena (`pages.rs`) and its index
//! (`index_table.rs`).
//!
//! Invariants:
//! - slots 0 and 1 are the terminals FALSE and TRUE and are never freed;
//! - the index holds every internal node exactly once, and no two nodes
//!   have the same `(level, low, high)`;
//! - the index has room for every node at its largest load: it grows
//!   (doubling, by a quarter once it holds 64 MiB) when the nodes outgrow
//!   it, and a parallel operation adds no more nodes than it has room for;
//! - at most `max_nodes` slots are in use (terminals included);
//! - slots never move: a node keeps its index until it is freed by a GC.

use rayon::prelude::*;

use crate::store::index_table::{IndexTable, Vacancy, MAX_LOAD};
use crate::store::memory::{grown_capacity, reserve_total};
use crate::store::node::NIL;
use crate::store::pages::{Arena, Nodes, Rec, MAX_SLOTS, NO_LEVEL, PAGE};
use crate::store::shared_pages::{Returned, SharedArena};

/// The table is at its configured node limit (or, in a parallel
/// operation, at the end of its reserved capacity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Full;

pub(crate) struct NodeTable {
    /// Every slot, terminals included.
    pub arena: Arena,
    /// Every internal node, by hash.
    pub index: IndexTable,
    /// Most slots in use (terminals included).
    max_nodes: usize,
}

/// The capacity [`NodeTable::reserve`] grows an arena of `len` slots and
/// `capacity` to, or `None` when it has room for a quarter of its slots more
/// and for `spare` slots. The arena grows from its capacity (as a full one
/// does: doubling, then by a quarter), so that once grown it has room for a
/// quarter more than the slots it then holds and grows again only after its
/// slots have grown by about a fifth of its capacity: every growth resizes
/// the index and inserts every node again.
pub(crate) fn reserve_target(len: usize, capacity: usize, spare: usize) -> Option<usize> {
    let wanted = (len / 4).max(spare);
    (capacity - len < wanted).then(|| grown_capacity(capacity, std::mem::size_of::<Rec>()).max(len + wanted))
}

/// Past this size the index grows by a quarter instead of doubling: every
/// byte of it is touched (a hash table fills evenly), so its slack is
/// resident memory, and growing by a quarter costs only more rebuilds
/// (each inserts every node again: about five times the nodes in all
/// instead of twice).
pub(crate) const INDEX_GENTLE_BYTES: usize = 64 << 20;

/// The entries an index of `bytes` bytes holding `held` nodes grows to
/// have room for: twice the nodes, a quarter more once it holds
/// [`INDEX_GENTLE_BYTES`].
pub(crate) fn index_growth(held: usize, bytes: usize) -> usize {
    if bytes >= INDEX_GENTLE_BYTES {
        held + held / 4
    } else {
        2 * held
    }
}

#[inline(always)]
pub(crate) fn hash(level: u32, low: u32, high: u32) -> u64 {
    let key = ((high as u64) << 32) | low as u64;
    let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (level as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mixed ^ (mixed >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// Call `f` with the hash and slot of each node of page `p`.
#[inline]
fn page_nodes(arena: &Arena, p: usize, mut f: impl FnMut(u64, u32)) {
    let level = arena.levels[p];
    if level == NO_LEVEL {
        return;
    }
    for (j, r) in arena.recs[p * PAGE..(p + 1) * PAGE].iter().enumerate() {
        if !r.is_free() {
            f(hash(level, r.low, r.high), (p * PAGE + j) as u32);
        }
    }
}

/// How many nodes ahead of its insertion [`insert_page`] fetches a node's
/// home group: enough to overlap the misses of a random-access insert.
const PREFETCH_AHEAD: usize = 16;

/// Call `insert(ahead, h, i)` with the hash and slot of each node of page
/// `p` (gathered in `batch` first), `ahead` the hash of the node
/// [`PREFETCH_AHEAD`] places later (whose home group `insert` may fetch).
#[inline]
fn insert_page(arena: &Arena, p: usize, batch: &mut Vec<(u64, u32)>, mut insert: impl FnMut(Option<u64>, u64, u32)) {
    batch.clear();
    page_nodes(arena, p, |h, i| batch.push((h, i)));
    for k in 0..batch.len() {
        let (h, i) = batch[k];
        insert(batch.get(k + PREFETCH_AHEAD).map(|&(a, _)| a), h, i);
    }
}

impl NodeTable {
    /// A table with room reserved for `initial` slots that may grow to `max_nodes`.
    pub fn new(initial: usize, max_nodes: usize) -> NodeTable {
        let max_nodes = max_nodes.clamp(2, NIL as usize);
        let initial = initial.clamp(2, max_nodes);
        let index = IndexTable::new(IndexTable::groups_for(initial, MAX_LOAD));
        NodeTable { arena: Arena::new(initial), index, max_nodes }
    }

    /// The nodes, for reading.
    #[inline(always)]
    pub fn nodes(&self) -> Nodes<'_> {
        self.arena.nodes()
    }

    /// Slots in use (internal nodes and the terminals).
    #[inline]
    pub fn live(&self) -> usize {
        self.arena.nodes_held() + 2
    }

    /// Slots in all (live, free and page 0's unused ones).
    #[inline]
    pub fn slots(&self) -> usize {
        self.arena.recs.len()
    }

    /// The configured node limit.
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Bytes held by the arena and the index.
    pub fn bytes(&self) -> usize {
        self.arena.bytes() + self.index.bytes()
    }

    /// Raise or lower the node limit (never below the slots already in use).
    pub fn set_max_nodes(&mut self, max_nodes: usize) {
        self.max_nodes = max_nodes.clamp(self.live(), NIL as usize);
    }

    /// The index of the node `(level, low, high)`, created if absent.
    /// The caller has already applied the reduction rule `low != high`; `h`
    /// is the key's [`hash`].
    #[inline]
    pub fn find_or_insert(&mut self, level: u32, low: u32, high: u32, h: u64) -> Result<u32, Full> {
        let nodes = self.arena.nodes();
        let is_key = |i: u32| {
            let n = nodes.get(i);
            n.low == low && n.high == high && n.level == level
        };
        let at = match self.index.find(h, Vacancy::default(), is_key) {
            Ok(i) => return Ok(i),
            Err(at) => at,
        };
        if self.live() >= self.max_nodes {
            return Err(Full);
        }
        let id = self.arena.alloc(level).ok_or(Full)?;
        self.arena.recs[id as usize] = Rec { low, high };
        self.index.fill(h, at, id);
        if self.arena.nodes_held() > self.index.room() {
            self.grow_index(self.arena.nodes_held(), false);
        }
        Ok(id)
    }

    /// Make the index take `entries` nodes: when it cannot, an index with
    /// room for them and for [`index_growth`]'s, every node inserted again (with
    /// `parallel`, on the current rayon pool).
    #[cold]
    fn grow_index(&mut self, entries: usize, parallel: bool) {
        if entries <= self.index.room() {
            return;
        }
        let grown = index_growth(self.arena.nodes_held(), self.index.bytes());
        self.index.reset(IndexTable::groups_for(entries.max(grown), MAX_LOAD), parallel);
        self.reindex(parallel);
    }

    /// Free every internal node for which `keep` is false, then rebuild the
    /// arena's free slots and the index. Returns the number of nodes freed.
    pub fn sweep(&mut self, keep: impl Fn(usize) -> bool + Sync, parallel: bool) -> usize {
        let freed = self.arena.sweep(keep, parallel);
        self.index.clear(parallel);
        self.reindex(parallel);
        freed
    }

    /// Insert every internal node into the (empty) index.
    fn reindex(&mut self, parallel: bool) {
        let (arena, index) = (&self.arena, &mut self.index);
        if parallel {
            let index = &*index;
            (1..arena.pages()).into_par_iter().for_each_init(Vec::new, |batch, p| {
                insert_page(arena, p, batch, |ahead, h, i| {
                    if let Some(a) = ahead {
                        index.prefetch(a);
                    }
                    index.insert_new_shared(h, i)
                })
            });
        } else {
            let mut batch = Vec::new();
            for p in 1..arena.pages() {
                insert_page(arena, p, &mut batch, |ahead, h, i| {
                    if let Some(a) = ahead {
                        index.prefetch(a);
                    }
                    index.insert_new(h, i)
                });
            }
        }
    }

    /// Hint the index group where a lookup of a key of [`hash`] `h` starts.
    #[inline(always)]
    pub fn prefetch_home(&self, h: u64) {
        self.index.prefetch(h);
    }

    /// Hint the records of the nodes that a lookup of a key of [`hash`] `h`
    /// compares first (those its home group's tags name): this reads the
    /// group, so hint it earlier with [`NodeTable::prefetch_home`].
    #[inline(always)]
    pub fn prefetch_candidates(&self, h: u64) {
        let nodes = self.arena.nodes();
        self.index.home_matches(h, |i| nodes.prefetch(i));
    }

    /// Whether the node in slot `i` is in the index.
    pub fn is_indexed(&self, i: u32) -> bool {
        let n = self.arena.nodes().get(i);
        self.index.contains(hash(n.level, n.low, n.high), i)
    }

    /// Make room for `nodes` more nodes in the index (and a sixteenth of
    /// the nodes more) and, in the arena, for `slots` more slots and a
    /// quarter of its slots more (growing as a full arena does; capacity not
    /// used is not memory): before a parallel operation (its threads can
    /// grow neither) and before a file's nodes are loaded (each growth of
    /// the index inserts every node again; with `parallel`, on the current
    /// rayon pool).
    pub fn reserve(&mut self, nodes: usize, slots: usize, parallel: bool) {
        let (len, capacity) = (self.arena.recs.len(), self.arena.recs.capacity());
        if let Some(target) = reserve_target(len, capacity, slots) {
            reserve_total(&mut self.arena.recs, target.next_multiple_of(PAGE).min(MAX_SLOTS).max(len));
        }
        let held = self.arena.nodes_held();
        self.grow_index(held + nodes.max(held / 16), parallel);
    }

    /// Share the arena with the threads of a parallel operation over
    /// `levels` levels (see `shared_pages.rs`). Its budget is what both the
    /// node limit and the index's room allow.
    pub fn share(&mut self, levels: usize) -> (SharedArena<'_>, &IndexTable) {
        self.arena.cover_levels(levels);
        let by_limit = self.max_nodes - self.live();
        let by_index = self.index.room().saturating_sub(self.arena.nodes_held());
        (SharedArena::new(&mut self.arena, by_limit.min(by_index), by_limit <= by_index), &self.index)
    }

    /// Take back the arena after a parallel operation; whether it reached
    /// the node limit.
    pub fn finish_parallel(&mut self, returned: Returned) -> bool {
        let reached = returned.reached_limit();
        self.arena.finish_parallel(returned);
        reached
    }

    /// Whether the arena's capacity can grow (for a parallel operation that
    /// ran out of pages).
    pub fn can_grow(&self) -> bool {
        self.arena.recs.capacity() < MAX_SLOTS
    }

    /// Whether the arena's free slots and counts are consistent.
    pub fn check_arena(&self) -> Result<(), String> {
        self.arena.check()
    }
}

#[cfg(test)]
mod tests {
    use super::reserve_target;

    /// A grown arena has room for a quarter of its slots more and for the
    /// spare asked for.
    #[test]
    fn a_reserve_leaves_a_quarter_and_the_spare() {
        for (len, capacity, spare) in [(1000, 1000, 16), (1000, 1100, 5000), (306_559_174, 306_559_174, 1 << 16)] {
            let target = reserve_target(len, capacity, spare).expect("a full arena grows");
            assert!(target >= capacity && target - len >= (len / 4).max(spare), "{len} {capacity} {spare}: {target}");
            assert_eq!(reserve_target(len, target, spare), None);
        }
    }

    /// An arena whose slots grow a few at a time between parallel operations
    /// grows (and rebuilds its index) a few dozen times from a thousand slots to a
    /// billion, in the doubling and in the quarter-growth regime alike, not once for
    /// every few hundred slots.
    #[test]
    fn slots_added_a_few_at_a_time_grow_the_arena_geometrically() {
        let (mut len, mut capacity, mut growths) = (1000usize, 1000usize, 0);
        while len < 1_000_000_000 {
            if let Some(target) = reserve_target(len, capacity, 1 << 16) {
                capacity = target;
                growths += 1;
            }
            len += 300 + len / 10_000;
        }
        assert!(growths <= 70, "{growths} growths");
    }
}
