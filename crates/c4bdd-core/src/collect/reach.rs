//! Sets of node slots as bit vectors (bit `g % 64` of word `g / 64` for slot
//! `g`), filled with the nodes reachable from given roots: the marking of the
//! garbage collector and the memo of model counting.
//!
//! Invariant kept by both markers: a set bit's node has its children's bits
//! set too once marking ends, unless a child is a terminal whose bit was left
//! clear (terminals are never marked or traversed here; the collector sets
//! their bits itself).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::bits::atomic;
use crate::config::SPAWN_DEPTH;
use crate::store::pages::Nodes;

/// Mark every internal node reachable from `roots` whose bit is clear, and
/// return how many were marked. A node already marked is not entered again.
pub(crate) fn mark(nodes: Nodes, bits: &mut [u64], roots: &[u32]) -> usize {
    let mut marked = 0;
    let mut stack = roots.to_vec();
    while let Some(g) = stack.pop() {
        let (word, bit) = (g as usize / 64, 1u64 << (g % 64));
        if g > 1 && bits[word] & bit == 0 {
            bits[word] |= bit;
            marked += 1;
            let n = nodes.get(g);
            nodes.prefetch(n.low);
            nodes.prefetch(n.high);
            stack.extend([n.low, n.high]);
        }
    }
    marked
}

/// [`mark`] from one root on the current rayon pool: both children of a
/// node near the top in parallel tasks, below them with an explicit stack.
/// A node is claimed by setting its bit atomically, so each is entered once.
pub(crate) fn mark_parallel(nodes: Nodes, bits: &[AtomicU64], f: u32, depth: u32) -> usize {
    let claim = |g: u32| {
        let (word, bit) = (&bits[g as usize / 64], 1u64 << (g % 64));
        g > 1 && word.load(Ordering::Relaxed) & bit == 0 && word.fetch_or(bit, Ordering::Relaxed) & bit == 0
    };
    if depth < SPAWN_DEPTH {
        if !claim(f) {
            return 0;
        }
        let n = nodes.get(f);
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
            let n = nodes.get(g);
            nodes.prefetch(n.low);
            nodes.prefetch(n.high);
            stack.extend([n.low, n.high]);
        }
    }
    marked
}

/// [`mark`], or with `parallel` on the current rayon pool: the roots in
/// parallel, each by [`mark_parallel`].
pub(crate) fn mark_roots(nodes: Nodes, bits: &mut [u64], roots: &[u32], parallel: bool) -> usize {
    if !parallel {
        return mark(nodes, bits, roots);
    }
    let bits = atomic(bits);
    roots.par_iter().map(|&r| mark_parallel(nodes, bits, r, 0)).sum()
}
