//! Sets of node slots as bit vectors (bit `g % 64` of word `g / 64` for slot
//! `g`), filled with the nodes reachable from given roots: the marking of the
//! garbage collector and the memo of model counting.
//!
//! Invariant kept by both markers: a set bit's node has its children's bits
//! set too once marking ends, unless a child is a terminal whose bit was left
//! clear (terminals are never marked or traversed here; the collector sets
//! their bits itself).

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::pages::Nodes;
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
pub(crate) fn mark(nodes: Nodes, bits: &mut [u64], roots: &[u32]) -> usize {
    let mut marked = 0;
    let mut stack = roots.to_vec();
    while let Some(g) = stack.pop() {
        let (word, bit) = (g as usize / 64, 1u64 << (g % 64));
        if g > 1 && bits[word] & bit == 0 {
            bits[word] |= bit;
            marked += 1;
            let n = nodes.get(g);
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

impl super::manager::Manager {
    /// [`mark_roots`] on the manager's pool if it has one, else on the calling thread.
    pub(crate) fn mark_from(&self, bits: &mut [u64], roots: &[u32]) -> usize {
        let nodes = self.table.nodes();
        super::manager::run_on(self.pool.as_deref(), |parallel| mark_roots(nodes, bits, roots, parallel))
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

/// Words of a bit vector per task of [`by_level`] (2^18 slots).
const LEVEL_CHUNK_WORDS: usize = 1 << 12;

/// The `count` set bits' slots sorted by their nodes' levels, deepest level
/// first (so every node comes after its children), in increasing slot order
/// within a level: a counting sort over `levels` levels, with `parallel` on
/// the current rayon pool (each chunk of the bit vector counts its nodes per
/// level, then writes them at its own positions). Also returns each level's
/// range in that list.
pub(crate) fn by_level(
    nodes: Nodes,
    bits: &[u64],
    count: usize,
    levels: usize,
    parallel: bool,
) -> (Vec<u32>, Vec<Range<usize>>) {
    // Each chunk with the slot of its first bit.
    let chunks: Vec<(usize, &[u64])> =
        bits.chunks(LEVEL_CHUNK_WORDS).enumerate().map(|(k, words)| (k * LEVEL_CHUNK_WORDS * 64, words)).collect();
    let level_of = |base: usize, g: u32| nodes.level(base as u32 + g) as usize;
    let histogram = |&(base, words): &(usize, &[u64])| {
        let mut width = vec![0usize; levels];
        for_each_set(words, |g| width[level_of(base, g)] += 1);
        width
    };
    let widths: Vec<Vec<usize>> =
        if parallel { chunks.par_iter().map(histogram).collect() } else { chunks.iter().map(histogram).collect() };
    let mut ranges = vec![0..0; levels];
    let mut at = 0;
    for level in (0..levels).rev() {
        let width: usize = widths.iter().map(|w| w[level]).sum();
        ranges[level] = at..at + width;
        at += width;
    }
    debug_assert_eq!(at, count);
    // Each chunk's widths become the positions of its first node of each level.
    let mut next: Vec<usize> = ranges.iter().map(|r| r.start).collect();
    let mut starts = widths;
    for chunk in &mut starts {
        for (width, n) in chunk.iter_mut().zip(&mut next) {
            (*width, *n) = (*n, *n + *width);
        }
    }
    let mut ids = vec![0u32; count];
    let out = Disjoint::new(&mut ids);
    let scatter = |(&(base, words), mut next): (&(usize, &[u64]), Vec<usize>)| {
        for_each_set(words, |g| {
            let level = level_of(base, g);
            // SAFETY: the positions of a chunk's nodes of one level are its
            // own range of that level's (from `starts`), so no two writes
            // meet, and nothing reads `ids` until every chunk is done.
            unsafe { out.set(next[level], (base + g as usize) as u32) };
            next[level] += 1;
        });
    };
    if parallel {
        chunks.par_iter().zip(starts).for_each(scatter);
    } else {
        chunks.iter().zip(starts).for_each(scatter);
    }
    (ids, ranges)
}

/// A slice shared by tasks that write distinct positions: a raw pointer,
/// so that no reference to the whole slice exists while they write; it
/// borrows the slice exclusively for its lifetime, so nothing else touches
/// the slice meanwhile.
#[derive(Clone, Copy)]
pub(crate) struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    slice: PhantomData<&'a mut [T]>,
}

// SAFETY: the callers of `get` and `set` keep the contract stated there.
unsafe impl<T: Send> Send for Disjoint<'_, T> {}
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T: Copy> Disjoint<'a, T> {
    pub fn new(slice: &'a mut [T]) -> Disjoint<'a, T> {
        Disjoint { ptr: slice.as_mut_ptr(), len: slice.len(), slice: PhantomData }
    }

    /// The value at position `i`.
    ///
    /// # Safety
    /// No task writes position `i` meanwhile, and its last write happened
    /// before this read (e.g. in an earlier parallel section).
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> T {
        assert!(i < self.len);
        // SAFETY: in bounds; the caller rules out a concurrent write.
        unsafe { self.ptr.add(i).read() }
    }

    /// Write `v` at position `i`.
    ///
    /// # Safety
    /// No other task reads or writes position `i` meanwhile.
    #[inline(always)]
    pub unsafe fn set(&self, i: usize, v: T) {
        assert!(i < self.len);
        // SAFETY: in bounds; the caller rules out any concurrent access.
        unsafe { self.ptr.add(i).write(v) }
    }
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

#[cfg(test)]
mod tests {
    use super::{by_level, words, LEVEL_CHUNK_WORDS};
    use crate::bdd::pages::{Nodes, Rec, PAGE};

    /// Over several chunks, on one thread and on two, the counting sort gives
    /// the order it promises: deepest level first, slots increasing within a
    /// level, each level's range holding exactly its nodes.
    #[test]
    fn by_level_sorts_deepest_level_first_on_any_number_of_threads() {
        let (slots, levels) = ((3 * LEVEL_CHUNK_WORDS * 64 + 1000).next_multiple_of(PAGE), 7);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let page_levels: Vec<u32> = (0..slots / PAGE).map(|_| (next() % levels as u64) as u32).collect();
        let recs = vec![Rec::FREE; slots];
        let nodes = Nodes::new(&recs, &page_levels);
        let mut bits = vec![0u64; words(slots)];
        let marked: Vec<u32> = (2..slots as u32).filter(|_| next() % 3 == 0).collect();
        for &g in &marked {
            bits[g as usize / 64] |= 1 << (g % 64);
        }
        let mut want = marked.clone();
        want.sort_by_key(|&g| (std::cmp::Reverse(nodes.level(g)), g));
        let one = by_level(nodes, &bits, marked.len(), levels, false);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let two = pool.install(|| by_level(nodes, &bits, marked.len(), levels, true));
        assert_eq!(one.0, want);
        assert_eq!(two, one);
        for (level, range) in one.1.iter().enumerate() {
            let of_level = want.iter().filter(|&&g| nodes.level(g) as usize == level).count();
            assert_eq!(range.len(), of_level, "level {level}");
            assert!(one.0[range.clone()].iter().all(|&g| nodes.level(g) as usize == level));
        }
    }
}
