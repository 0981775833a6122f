//! Sets of node slots as bit vectors (bit `g % 64` of word `g / 64` for slot
//! `g`), filled with the nodes reachable from given roots: the marking of the
//! garbage collector and the memo of model counting.
//!
//! Invariant kept by both markers: a set bit's node has its children's bits
//! set too once marking ends, unless a child is a terminal whose bit was left
//! clear (terminals are never marked or traversed here; the collector sets
//! their bits itself).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::node::Node;
use super::par::SPAWN_DEPTH;

// The atomic view of a bit vector below relies on equal layouts.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// `bits` as atomics, for marking on several threads.
pub(crate) fn atomic(bits: &mut [u64]) -> &[AtomicU64] {
    // SAFETY: AtomicU64 has the size and (checked above) the alignment of
    // u64, and the exclusive borrow keeps every other access out while the
    // view lives.
    unsafe { &*(bits as *mut [u64] as *const [AtomicU64]) }
}

/// Words of a bit vector over `slots` slots.
pub(crate) fn words(slots: usize) -> usize {
    slots.div_ceil(64)
}

/// Mark every internal node reachable from `roots` whose bit is clear, and
/// return how many were marked. A node already marked is not entered again.
pub(crate) fn mark(nodes: &[Node], bits: &mut [u64], roots: &[u32]) -> usize {
    let mut marked = 0;
    let mut stack = roots.to_vec();
    while let Some(g) = stack.pop() {
        let (word, bit) = (g as usize / 64, 1u64 << (g % 64));
        if g > 1 && bits[word] & bit == 0 {
            bits[word] |= bit;
            marked += 1;
            let n = nodes[g as usize];
            stack.extend([n.low, n.high]);
        }
    }
    marked
}

/// [`mark`] from one root on the current rayon pool: both children of a
/// node near the top in parallel tasks, below them with an explicit stack.
/// A node is claimed by setting its bit atomically, so each is entered once.
pub(crate) fn mark_parallel(nodes: &[Node], bits: &[AtomicU64], f: u32, depth: u32) -> usize {
    let claim = |g: u32| {
        let (word, bit) = (&bits[g as usize / 64], 1u64 << (g % 64));
        g > 1 && word.load(Ordering::Relaxed) & bit == 0 && word.fetch_or(bit, Ordering::Relaxed) & bit == 0
    };
    if depth < SPAWN_DEPTH {
        if !claim(f) {
            return 0;
        }
        let n = nodes[f as usize];
        let (a, b) = rayon::join(
            || mark_parallel(nodes, bits, n.low, depth + 1),
            || mark_parallel(nodes, bits, n.high, depth + 1),
        );
        return 1 + a + b;
    }
    let mut marked = 0;
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        if claim(g) {
            marked += 1;
            let n = nodes[g as usize];
            stack.extend([n.low, n.high]);
        }
    }
    marked
}

/// [`mark`], or with `parallel` on the current rayon pool: the roots in
/// parallel, each by [`mark_parallel`].
pub(crate) fn mark_roots(nodes: &[Node], bits: &mut [u64], roots: &[u32], parallel: bool) -> usize {
    if !parallel {
        return mark(nodes, bits, roots);
    }
    let bits = atomic(bits);
    roots.par_iter().map(|&r| mark_parallel(nodes, bits, r, 0)).sum()
}

impl super::manager::Manager {
    /// [`mark_roots`] on the manager's pool if it has one, else on the calling thread.
    pub(crate) fn mark_from(&self, bits: &mut [u64], roots: &[u32]) -> usize {
        let nodes = &self.table.nodes;
        match &self.pool {
            Some(pool) => pool.install(|| mark_roots(nodes, bits, roots, true)),
            None => mark_roots(nodes, bits, roots, false),
        }
    }
}

/// Every set bit's slot, in increasing order.
pub(crate) fn for_each_set(bits: &[u64], mut f: impl FnMut(u32)) {
    for (w, &word) in bits.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            f((w * 64) as u32 + rest.trailing_zeros());
            rest &= rest - 1;
        }
    }
}

/// The `count` set bits' slots sorted by their nodes' levels, deepest level
/// first (so every node comes after its children), in increasing slot order
/// within a level: a counting sort over `levels` levels. Also returns each
/// level's range in that list.
pub(crate) fn by_level(nodes: &[Node], bits: &[u64], count: usize, levels: usize) -> (Vec<u32>, Vec<Range<usize>>) {
    let mut width = vec![0usize; levels];
    for_each_set(bits, |g| width[nodes[g as usize].level as usize] += 1);
    let mut ranges = vec![0..0; levels];
    let mut at = 0;
    for level in (0..levels).rev() {
        ranges[level] = at..at + width[level];
        at += width[level];
    }
    let mut ids = vec![0u32; count];
    let mut next: Vec<usize> = ranges.iter().map(|r| r.start).collect();
    for_each_set(bits, |g| {
        let level = nodes[g as usize].level as usize;
        ids[next[level]] = g;
        next[level] += 1;
    });
    (ids, ranges)
}

/// Dense positions of the set bits: `position(g)` is the number of set bits
/// below slot `g`. Invariant: `before[w]` counts the set bits of words
/// `0..w` of the vector it was built from, which must not change after.
pub(crate) struct Rank {
    before: Vec<u32>,
}

impl Rank {
    pub fn new(bits: &[u64]) -> Rank {
        let mut total = 0u32;
        let before = bits
            .iter()
            .map(|w| {
                let at = total;
                total += w.count_ones();
                at
            })
            .collect();
        Rank { before }
    }

    /// The position of slot `g` among the set bits of `bits` (the vector
    /// this rank was built from).
    #[inline(always)]
    pub fn position(&self, bits: &[u64], g: u32) -> usize {
        let (w, below) = (g as usize / 64, (1u64 << (g % 64)) - 1);
        self.before[w] as usize + (bits[w] & below).count_ones() as usize
    }
}
