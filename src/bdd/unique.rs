//! Node arena and unique table.
//!
//! Invariants:
//! - slots 0 and 1 are the terminals FALSE and TRUE and are never freed;
//! - every other slot is either live (a variable level) or free
//!   (`level == FREE_LEVEL`, its bit set in the free set);
//! - every live internal node is in exactly one hash chain, the one of its
//!   bucket, and no two live nodes have the same `(level, low, high)`;
//! - `buckets.len()` is at least the number of slots (one bucket per slot of
//!   the arena's capacity once it has grown), so chains stay short (load
//!   factor at most 1); a hash is mapped onto the buckets by the high half of
//!   its product with their number (any number of buckets, not only a power
//!   of two);
//! - slots never move: a node keeps its index until it is freed by a GC.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::free::{FreeParts, FreeSet};
use super::memory::{grown_capacity, reserve_one, reserve_total};
use super::node::{Node, FREE_LEVEL, NIL};

/// Slots per task of a parallel sweep or chain rebuild.
const SWEEP_CHUNK: usize = 1 << 16;

/// The table is at its configured node limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Full;

pub(crate) struct NodeTable {
    /// All slots, terminals included.
    pub nodes: Vec<Node>,
    /// Head of each hash chain, `NIL` when empty.
    buckets: Vec<u32>,
    /// Free slots, handed out lowest first.
    free: FreeSet,
    /// Most slots the arena may hold (terminals included).
    max_nodes: usize,
}

/// See [`NodeTable::parallel_parts`].
pub(crate) struct ParallelParts {
    pub nodes: *mut Node,
    pub cap: usize,
    pub len: usize,
    pub free: FreeParts,
    pub buckets: *mut u32,
    pub bucket_len: usize,
}

/// The capacity [`NodeTable::reserve`] grows an arena of `len` slots and
/// `capacity` to, or `None` when it has room for a quarter of its slots more
/// and for `spare` slots. The arena grows from its capacity (as a full one
/// does: doubling, then by a quarter), so that once grown it has room for a
/// quarter more than the slots it then holds and grows again only after its
/// slots have grown by about a fifth of its capacity: every growth resizes
/// the buckets and relinks every node.
pub(crate) fn reserve_target(len: usize, capacity: usize, spare: usize) -> Option<usize> {
    let wanted = (len / 4).max(spare);
    (capacity - len < wanted).then(|| grown_capacity(capacity, std::mem::size_of::<Node>()).max(len + wanted))
}

/// The bucket of hash `h` among `len` buckets: the high half of `h · len`.
#[inline(always)]
pub(crate) fn bucket_of(h: u64, len: usize) -> usize {
    ((h as u128 * len as u128) >> 64) as usize
}

#[inline(always)]
pub(crate) fn hash(level: u32, low: u32, high: u32) -> u64 {
    let key = ((high as u64) << 32) | low as u64;
    let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (level as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mixed ^ (mixed >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

impl NodeTable {
    /// An arena with room reserved for `initial` slots that may grow to `max_nodes`.
    pub fn new(initial: usize, max_nodes: usize) -> NodeTable {
        let max_nodes = max_nodes.clamp(2, NIL as usize);
        let initial = initial.clamp(2, max_nodes);
        let bucket_len = initial.max(16);
        let mut nodes = vec![Node::TERMINAL; 2];
        nodes.reserve_exact(initial);
        NodeTable { nodes, buckets: vec![NIL; bucket_len], free: FreeSet::new(2), max_nodes }
    }

    /// Slots in use (live nodes, terminals included).
    #[inline]
    pub fn live(&self) -> usize {
        self.nodes.len() - self.free.count()
    }

    /// Slots ever allocated (live or free).
    #[inline]
    pub fn slots(&self) -> usize {
        self.nodes.len()
    }

    /// The configured node limit.
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Bytes held by the arena, the bucket array and the free set.
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.buckets.len() * 4 + self.free.bytes()
    }

    /// Raise or lower the node limit (never below the slots already in use).
    pub fn set_max_nodes(&mut self, max_nodes: usize) {
        self.max_nodes = max_nodes.clamp(self.nodes.len(), NIL as usize);
    }

    /// The index of the node `(level, low, high)`, created if absent.
    /// The caller has already applied the reduction rule `low != high`.
    #[inline]
    pub fn find_or_insert(&mut self, level: u32, low: u32, high: u32) -> Result<u32, Full> {
        let bucket = bucket_of(hash(level, low, high), self.buckets.len());
        let mut i = self.buckets[bucket];
        while i != NIL {
            let n = &self.nodes[i as usize];
            if n.level == level && n.low == low && n.high == high {
                return Ok(i);
            }
            i = n.next;
        }
        let id = self.alloc()?;
        let next = self.buckets[bucket];
        self.nodes[id as usize] = Node { level, low, high, next };
        self.buckets[bucket] = id;
        if self.nodes.len() > self.buckets.len() {
            self.grow_buckets();
        }
        Ok(id)
    }

    #[inline]
    fn alloc(&mut self) -> Result<u32, Full> {
        if let Some(id) = self.free.take() {
            return Ok(id);
        }
        if self.nodes.len() >= self.max_nodes {
            return Err(Full);
        }
        let id = self.nodes.len() as u32;
        reserve_one(&mut self.nodes);
        self.nodes.push(Node::TERMINAL);
        self.free.push_slot(id as usize);
        Ok(id)
    }

    /// One bucket per slot of the arena's capacity.
    fn grow_buckets(&mut self) {
        self.resize_buckets(self.nodes.capacity().max(self.nodes.len()), false);
    }

    /// `len` buckets, every chain rebuilt (with `parallel`, on the current
    /// rayon pool).
    fn resize_buckets(&mut self, len: usize, parallel: bool) {
        self.buckets = Vec::new();
        self.buckets = vec![NIL; len];
        if parallel {
            self.relink_parallel();
        } else {
            self.relink();
        }
    }

    /// Free every internal slot for which `keep` is false, then rebuild all
    /// hash chains and the free set. Returns the number of nodes freed.
    pub fn sweep(&mut self, keep: impl Fn(usize) -> bool + Sync, parallel: bool) -> usize {
        let free_chunk = |(k, chunk): (usize, &mut [Node])| -> usize {
            let mut freed = 0;
            for (j, n) in chunk.iter_mut().enumerate() {
                let i = k * SWEEP_CHUNK + j;
                if i >= 2 && n.level != FREE_LEVEL && !keep(i) {
                    n.level = FREE_LEVEL;
                    freed += 1;
                }
            }
            freed
        };
        let freed = if parallel {
            self.nodes.par_chunks_mut(SWEEP_CHUNK).enumerate().map(free_chunk).sum()
        } else {
            self.nodes.chunks_mut(SWEEP_CHUNK).enumerate().map(free_chunk).sum()
        };
        if parallel {
            self.relink_parallel();
        } else {
            self.relink();
        }
        freed
    }

    /// Rebuild hash chains and the free set from the slots' levels.
    fn relink(&mut self) {
        self.buckets.fill(NIL);
        self.free.reset(self.nodes.len());
        for i in (2..self.nodes.len()).rev() {
            let n = self.nodes[i];
            if n.level == FREE_LEVEL {
                self.free.mark(i);
            } else {
                let bucket = bucket_of(hash(n.level, n.low, n.high), self.buckets.len());
                self.nodes[i].next = self.buckets[bucket];
                self.buckets[bucket] = i as u32;
            }
        }
    }

    /// [`NodeTable::relink`] on the current rayon pool: the same free set,
    /// each live node pushed onto its chain by compare-and-swap (the order
    /// within a chain may differ).
    fn relink_parallel(&mut self) {
        self.buckets.par_iter_mut().for_each(|b| *b = NIL);
        let nodes = &self.nodes;
        self.free.rebuild_parallel(nodes.len(), |i| i >= 2 && nodes[i].level == FREE_LEVEL);
        // SAFETY: AtomicU32 has the layout of u32; the buckets are accessed
        // only through this view until the loop ends.
        let buckets = unsafe { &*(self.buckets.as_mut_slice() as *mut [u32] as *const [AtomicU32]) };
        let bucket_len = buckets.len();
        self.nodes.par_chunks_mut(SWEEP_CHUNK).enumerate().for_each(|(k, chunk)| {
            for (j, n) in chunk.iter_mut().enumerate() {
                let i = k * SWEEP_CHUNK + j;
                if i < 2 || n.level == FREE_LEVEL {
                    continue;
                }
                let bucket = &buckets[bucket_of(hash(n.level, n.low, n.high), bucket_len)];
                let mut head = bucket.load(Ordering::Relaxed);
                loop {
                    n.next = head;
                    match bucket.compare_exchange_weak(head, i as u32, Ordering::Relaxed, Ordering::Relaxed) {
                        Ok(_) => break,
                        Err(now) => head = now,
                    }
                }
            }
        });
    }

    /// Whether the live node `i` is reachable through its own hash chain.
    pub fn is_in_chain(&self, i: u32) -> bool {
        let n = self.nodes[i as usize];
        let mut j = self.buckets[bucket_of(hash(n.level, n.low, n.high), self.buckets.len())];
        while j != NIL {
            if j == i {
                return true;
            }
            j = self.nodes[j as usize].next;
        }
        false
    }

    /// Make room for `spare` more nodes: capacity for at least a quarter of
    /// the slots more and at least `spare` slots (growing as a full arena does,
    /// within the node limit) and buckets for every slot of that capacity, so
    /// that neither has to grow while they are added: before a parallel
    /// operation (its threads cannot grow the table) and before a file's nodes
    /// are loaded (each growth of the buckets relinks every node; with
    /// `parallel`, on the current rayon pool).
    pub fn reserve(&mut self, spare: usize, parallel: bool) {
        if let Some(target) = reserve_target(self.nodes.len(), self.nodes.capacity(), spare) {
            reserve_total(&mut self.nodes, target.min(self.max_nodes));
        }
        let cap = self.nodes.capacity().min(self.max_nodes);
        if self.buckets.len() < cap {
            self.resize_buckets(cap, parallel);
        }
    }

    /// Whether a parallel operation that ran out of slots can get more.
    pub fn can_grow(&self) -> bool {
        self.nodes.capacity() < self.max_nodes
    }

    /// The raw parts a parallel operation shares (see `par.rs`).
    pub fn parallel_parts(&mut self) -> ParallelParts {
        ParallelParts {
            nodes: self.nodes.as_mut_ptr(),
            cap: self.nodes.capacity().min(self.max_nodes).min(self.buckets.len()),
            len: self.nodes.len(),
            free: self.free.parallel_parts(),
            buckets: self.buckets.as_mut_ptr(),
            bucket_len: self.buckets.len(),
        }
    }

    /// Take back the table after a parallel operation: the arena holds `len`
    /// slots (every slot below it written); `taken` slots of the free set
    /// were handed out and `spare` ones are free again (see
    /// [`FreeSet::finish_parallel`]).
    pub fn finish_parallel(&mut self, len: usize, taken: usize, spare: &[u32]) {
        debug_assert!(len >= self.nodes.len() && len <= self.nodes.capacity());
        // SAFETY: every slot below `len` was written by the parallel
        // operation (a node, or a free slot given back) or before it.
        unsafe { self.nodes.set_len(len) };
        self.free.finish_parallel(len, taken, spare);
    }

    /// Whether the free set holds exactly the free slots.
    pub fn free_set_is_exact(&self) -> bool {
        self.free.is_exact(self.nodes.len(), |i| i >= 2 && self.nodes[i].level == FREE_LEVEL)
    }

    /// Number of free slots.
    pub fn free_count(&self) -> usize {
        self.free.count()
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
    /// grows (and relinks its buckets) a few dozen times from a thousand slots to a
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
