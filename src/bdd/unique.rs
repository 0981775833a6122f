//! Node arena and unique table.
//!
//! Invariants:
//! - slots 0 and 1 are the terminals FALSE and TRUE and are never freed;
//! - every other slot is either live (a variable level) or free
//!   (`level == FREE_LEVEL`, linked into the free list through `next`);
//! - every live internal node is in exactly one hash chain, the one of its
//!   bucket, and no two live nodes have the same `(level, low, high)`;
//! - `buckets.len()` is a power of two and at least the number of slots, so
//!   chains stay short (load factor at most 1);
//! - slots never move: a node keeps its index until it is freed by a GC.

use super::memory::{filled, reserve_one};
use super::node::{Node, FREE_LEVEL, NIL};

/// The table is at its configured node limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Full;

pub(crate) struct NodeTable {
    /// All slots, terminals included.
    pub nodes: Vec<Node>,
    /// Head of each hash chain, `NIL` when empty.
    buckets: Vec<u32>,
    /// `64 - log2(buckets.len())`: the hash keeps its top bits.
    shift: u32,
    /// Head of the free list.
    free_head: u32,
    /// Length of the free list.
    free_count: usize,
    /// Most slots the arena may hold (terminals included).
    max_nodes: usize,
}

#[inline(always)]
fn hash(level: u32, low: u32, high: u32) -> u64 {
    let key = ((high as u64) << 32) | low as u64;
    let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (level as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (mixed ^ (mixed >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

impl NodeTable {
    /// An arena with room reserved for `initial` slots that may grow to `max_nodes`.
    pub fn new(initial: usize, max_nodes: usize) -> NodeTable {
        let max_nodes = max_nodes.clamp(2, NIL as usize);
        let initial = initial.clamp(2, max_nodes);
        let bucket_len = initial.next_power_of_two().max(16);
        let mut nodes = filled(2, Node::TERMINAL);
        nodes.reserve_exact(initial);
        NodeTable {
            nodes,
            buckets: filled(bucket_len, NIL),
            shift: 64 - bucket_len.trailing_zeros(),
            free_head: NIL,
            free_count: 0,
            max_nodes,
        }
    }

    /// Slots in use (live nodes, terminals included).
    #[inline]
    pub fn live(&self) -> usize {
        self.nodes.len() - self.free_count
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

    /// Bytes held by the arena and the bucket array.
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.buckets.len() * 4
    }

    /// Raise or lower the node limit (never below the slots already in use).
    pub fn set_max_nodes(&mut self, max_nodes: usize) {
        self.max_nodes = max_nodes.clamp(self.nodes.len(), NIL as usize);
    }

    /// The index of the node `(level, low, high)`, created if absent.
    /// The caller has already applied the reduction rule `low != high`.
    #[inline]
    pub fn find_or_insert(&mut self, level: u32, low: u32, high: u32) -> Result<u32, Full> {
        let bucket = (hash(level, low, high) >> self.shift) as usize;
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

    fn alloc(&mut self) -> Result<u32, Full> {
        if self.free_head != NIL {
            let id = self.free_head;
            self.free_head = self.nodes[id as usize].next;
            self.free_count -= 1;
            return Ok(id);
        }
        if self.nodes.len() >= self.max_nodes {
            return Err(Full);
        }
        let id = self.nodes.len() as u32;
        reserve_one(&mut self.nodes);
        self.nodes.push(Node::TERMINAL);
        Ok(id)
    }

    fn grow_buckets(&mut self) {
        let len = self.buckets.len() * 2;
        self.buckets = Vec::new();
        self.buckets = filled(len, NIL);
        self.shift = 64 - len.trailing_zeros();
        self.relink();
    }

    /// Free every internal slot for which `keep` is false, then rebuild all
    /// hash chains and the free list. Returns the number of nodes freed.
    pub fn sweep(&mut self, keep: impl Fn(usize) -> bool) -> usize {
        let mut freed = 0;
        for i in 2..self.nodes.len() {
            let n = &mut self.nodes[i];
            if n.level != FREE_LEVEL && !keep(i) {
                n.level = FREE_LEVEL;
                freed += 1;
            }
        }
        self.relink();
        freed
    }

    /// Rebuild hash chains and the free list from the slots' levels. Free
    /// slots are linked so that the lowest index is handed out first.
    fn relink(&mut self) {
        self.buckets.fill(NIL);
        self.free_head = NIL;
        self.free_count = 0;
        for i in (2..self.nodes.len()).rev() {
            let n = self.nodes[i];
            if n.level == FREE_LEVEL {
                self.nodes[i].next = self.free_head;
                self.free_head = i as u32;
                self.free_count += 1;
            } else {
                let bucket = (hash(n.level, n.low, n.high) >> self.shift) as usize;
                self.nodes[i].next = self.buckets[bucket];
                self.buckets[bucket] = i as u32;
            }
        }
    }

    /// Whether the live node `i` is reachable through its own hash chain.
    pub fn is_in_chain(&self, i: u32) -> bool {
        let n = self.nodes[i as usize];
        let mut j = self.buckets[(hash(n.level, n.low, n.high) >> self.shift) as usize];
        while j != NIL {
            if j == i {
                return true;
            }
            j = self.nodes[j as usize].next;
        }
        false
    }

    /// Number of slots on the free list, counted by walking it.
    pub fn walk_free_list(&self) -> usize {
        let mut count = 0;
        let mut i = self.free_head;
        while i != NIL && count <= self.nodes.len() {
            count += 1;
            i = self.nodes[i as usize].next;
        }
        count
    }

    /// The free-list length the table believes it has.
    pub fn free_count(&self) -> usize {
        self.free_count
    }
}
