//! Parallel operations: the binary Boolean operations and the in-place image
//! and pre-image, on a pool of threads with work stealing (rayon), over the
//! manager's own node table and computed cache.
//!
//! A parallel operation holds the manager exclusively (`&mut self`, so no GC
//! and no other operation runs) and shares it among its threads as [`Shared`]:
//! - Nodes are only added. A thread claims slots in batches (a word of the
//!   free set, then 64 slots past the end of the arena, within the capacity
//!   reserved before the operation), writes a node into a slot it owns and publishes
//!   it with a compare-and-swap on its bucket's head (release). Lookups read
//!   bucket heads with acquire, so a node's fields are visible to every thread
//!   that finds it, and a published node is never written again. When two
//!   threads insert the same node, the loser frees its slot.
//! - A computed-cache entry (16 bytes, aligned) is read and written with one
//!   16-byte atomic access (`portable_atomic::AtomicU128`: a plain vector load
//!   or store on x86-64 processors with AVX, which Intel and AMD guarantee to
//!   be atomic), release on write and acquire on read: a read sees one whole
//!   entry, never parts of two writes, and the nodes its result names.
//! - The arena's capacity and the bucket array do not change during the
//!   operation. When the reserved slots run out the operation fails with
//!   `Full`; the manager reserves more and runs it again (the results already
//!   in the cache make the rerun cheap).
//!
//! Statistics are counted per thread and added up afterwards. The results are
//! the nodes the sequential operations give: the table is canonical.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use portable_atomic::AtomicU128;

use super::cache::{slot, Entry, Op};
use super::free::WORD_SLOTS;
use super::manager::{Manager, Step, Step2};
use super::node::{known_node, Node, FREE_LEVEL};
use super::pairing::{pair_split, PairingData};
use super::split3::{join3, place, Shortcut, Split3Cache, Step3};
use super::unique::{bucket_of, hash, Full};

/// Recursion depth below which both branches of a step become parallel tasks.
pub(crate) const SPAWN_DEPTH: u32 = 8;
/// Slots a thread claims at once.
const BATCH: usize = 64;

/// Per-thread state: statistics and the slots this thread has claimed.
#[repr(align(128))]
#[derive(Default)]
struct Local {
    steps: [u64; Op::COUNT],
    hits: [u64; Op::COUNT],
    /// Free slots of the claimed word `word` not yet handed out (lowest first).
    bits: u64,
    word: usize,
    /// Free slots this thread claimed (all bits of its claimed words).
    taken: usize,
    /// Claimed fresh slots `fresh_lo..fresh_hi`.
    fresh_lo: usize,
    fresh_hi: usize,
    /// Slots this thread claimed but gave back (lost insertion races).
    spare: Vec<u32>,
}

/// The manager's tables as shared by the threads of one parallel operation.
pub(crate) struct Shared<'a> {
    nodes: *mut Node,
    /// Slots usable in this operation (the reserved capacity, within the limit).
    cap: usize,
    /// The next fresh slot (may run past `cap`; clamped when finishing).
    len: AtomicUsize,
    /// The free set's words; `next_word..free_words` are not yet claimed.
    free: *mut u64,
    next_word: AtomicUsize,
    free_words: usize,
    buckets: &'a [AtomicU32],
    cache: *const AtomicU128,
    cache_shift: u32,
    split3_cache: &'a Split3Cache,
    pairings: &'a [PairingData],
    locals: Vec<UnsafeCell<Local>>,
}

// SAFETY: the raw pointers address the manager's node arena, free set and
// cache, which the operation holds exclusively; threads write only slots they
// claimed, publish them through atomics, and access cache entries through
// atomics only (see the module documentation). `locals[i]` is touched only by
// pool thread `i`, and never across a call that may run another task.
unsafe impl Sync for Shared<'_> {}

/// What a finished parallel operation leaves for the manager: its
/// statistics and the table's new extent (see `NodeTable::finish_parallel`).
pub(crate) struct Outcome {
    pub steps: [u64; Op::COUNT],
    pub hits: [u64; Op::COUNT],
    /// Slots in the arena; every slot below is written.
    pub len: usize,
    /// Free slots the threads took from the free set (claimed and handed out).
    pub taken: usize,
    /// Slots handed out and given back, or claimed past the end and not used: free again.
    pub spare: Vec<u32>,
}

impl<'a> Shared<'a> {
    /// Share `m`'s tables among `threads` threads. The table must have been
    /// reserved (`NodeTable::reserve`).
    pub(crate) fn new(m: &'a mut Manager, threads: usize) -> Shared<'a> {
        let parts = m.table.parallel_parts();
        let cache = &mut m.cache;
        Shared {
            nodes: parts.nodes,
            cap: parts.cap,
            len: AtomicUsize::new(parts.len),
            free: parts.free.words,
            next_word: AtomicUsize::new(parts.free.cursor),
            free_words: parts.free.len,
            // SAFETY: AtomicU32 has the size and alignment of u32; the buckets
            // are only accessed through this view until the operation ends.
            buckets: unsafe { std::slice::from_raw_parts(parts.buckets as *const AtomicU32, parts.bucket_len) },
            // AtomicU128 has the size (16) and alignment (16) of an Entry.
            cache: cache.entries.as_mut_ptr() as *const AtomicU128,
            cache_shift: cache.shift,
            split3_cache: &m.split3_cache,
            pairings: &m.pairings,
            locals: (0..threads).map(|_| UnsafeCell::new(Local::default())).collect(),
        }
    }

    /// Mark the unused claimed slots free and sum the statistics.
    pub(crate) fn finish(self) -> Outcome {
        let len = self.len.load(Ordering::Relaxed).min(self.cap);
        let mut outcome = Outcome { steps: [0; Op::COUNT], hits: [0; Op::COUNT], len, taken: 0, spare: Vec::new() };
        let spare = &mut outcome.spare;
        for cell in self.locals {
            let l = cell.into_inner();
            for k in 0..Op::COUNT {
                outcome.steps[k] += l.steps[k];
                outcome.hits[k] += l.hits[k];
            }
            if l.bits != 0 {
                // The claimed word's slots not handed out go back into it.
                // SAFETY: the word lies inside the free set and was claimed
                // by this thread, whose work has ended.
                unsafe { *self.free.add(l.word) |= l.bits };
            }
            outcome.taken += l.taken - l.bits.count_ones() as usize;
            for i in l.fresh_lo..l.fresh_hi.min(len) {
                // SAFETY: the slot lies inside the arena's capacity and was never published.
                unsafe { self.nodes.add(i).write(Node { level: FREE_LEVEL, ..Node::TERMINAL }) };
                spare.push(i as u32);
            }
            spare.extend(l.spare);
        }
        outcome
    }

    /// This thread's state. The reference must not live across a call that
    /// may run other tasks on this thread (a `join`).
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    fn local(&self) -> &mut Local {
        let i = rayon::current_thread_index().unwrap_or(0);
        // SAFETY: only pool thread `i` touches `locals[i]`, and callers drop
        // the reference before any call that could run another task.
        unsafe { &mut *self.locals[i].get() }
    }

    #[inline(always)]
    fn node(&self, f: u32) -> Node {
        // SAFETY: `f` is a published node (or a terminal): written before its
        // release and never written again during the operation.
        unsafe { *self.nodes.add(f as usize) }
    }

    #[inline(always)]
    fn level(&self, f: u32) -> u32 {
        self.node(f).level
    }

    #[inline(always)]
    fn cofactors(&self, f: u32, level: u32) -> (u32, u32) {
        self.node(f).cofactors(f, level)
    }

    /// A slot this thread owns, or `Full` when the reserved capacity is used up.
    fn alloc(&self) -> Result<u32, Full> {
        let l = self.local();
        // Claimed free slots first, then claimed fresh ones, then claim more.
        if l.bits == 0 && l.fresh_lo < l.fresh_hi {
            l.fresh_lo += 1;
            return Ok(l.fresh_lo as u32 - 1);
        }
        if l.bits != 0 || self.claim_word(l) {
            let bit = l.bits.trailing_zeros() as usize;
            l.bits &= l.bits - 1;
            return Ok((l.word * WORD_SLOTS + bit) as u32);
        }
        let start = self.len.fetch_add(BATCH, Ordering::Relaxed);
        if start >= self.cap {
            return Err(Full);
        }
        l.fresh_lo = start + 1;
        l.fresh_hi = (start + BATCH).min(self.cap);
        Ok(start as u32)
    }

    /// Claim free-set words until one holds a free slot: its bits become this
    /// thread's and the word is cleared. False when every word is claimed.
    fn claim_word(&self, l: &mut Local) -> bool {
        loop {
            let k = self.next_word.fetch_add(1, Ordering::Relaxed);
            if k >= self.free_words {
                return false;
            }
            // SAFETY: word `k` lies inside the free set and was claimed by
            // this thread alone (the counter hands out each index once).
            let w = unsafe { std::mem::replace(&mut *self.free.add(k), 0) };
            if w != 0 {
                (l.bits, l.word) = (w, k);
                l.taken += w.count_ones() as usize;
                return true;
            }
        }
    }

    /// [`Self::mk`], without the lookup when [`known_node`] knows the node.
    #[inline(always)]
    fn mk_known(&self, level: u32, low: u32, high: u32, operands: [(u32, (u32, u32)); 2]) -> Step {
        match known_node(low, high, operands) {
            Some(r) => Ok(r),
            None => self.mk(level, low, high),
        }
    }

    /// The node `(level, low, high)`, found or inserted.
    fn mk(&self, level: u32, low: u32, high: u32) -> Step {
        if low == high {
            return Ok(low);
        }
        let bucket = &self.buckets[bucket_of(hash(level, low, high), self.buckets.len())];
        let mut head = bucket.load(Ordering::Acquire);
        let mut seen = u32::MAX - 1; // no chain ends here: walk to the end
        let mut id = None;
        loop {
            let mut i = head;
            while i != super::node::NIL && i != seen {
                let n = self.node(i);
                if n.level == level && n.low == low && n.high == high {
                    if let Some(mine) = id {
                        self.give_back(mine);
                    }
                    return Ok(i);
                }
                i = n.next;
            }
            let mine = match id {
                Some(mine) => mine,
                None => self.alloc()?,
            };
            id = Some(mine);
            // SAFETY: the slot is owned by this thread and not yet published.
            unsafe { self.nodes.add(mine as usize).write(Node { level, low, high, next: head }) };
            match bucket.compare_exchange(head, mine, Ordering::Release, Ordering::Acquire) {
                Ok(_) => return Ok(mine),
                Err(now) => {
                    // Only the nodes inserted since `head` need checking.
                    seen = head;
                    head = now;
                }
            }
        }
    }

    fn give_back(&self, id: u32) {
        // SAFETY: the slot is owned by this thread and was never published.
        unsafe { self.nodes.add(id as usize).write(Node { level: FREE_LEVEL, ..Node::TERMINAL }) };
        self.local().spare.push(id);
    }

    #[inline(always)]
    fn entry(&self, op: Op, a: u32, b: u32, c: u32) -> &AtomicU128 {
        // SAFETY: `slot` is below the cache's length; entries are accessed
        // only atomically during the operation.
        unsafe { &*self.cache.add(slot(op as u32, a, b, c, self.cache_shift)) }
    }

    /// Count a step of `op` and look it up in the cache.
    #[inline]
    fn cached(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        let local = self.local();
        local.steps[op.index()] += 1;
        let hit = self.lookup(op, a, b, c);
        if hit.is_some() {
            local.hits[op.index()] += 1;
        }
        hit
    }

    /// The cached result of `op(a, b, c)`, if any.
    #[inline]
    fn lookup(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        Entry::from_bits(self.entry(op, a, b, c).load(Ordering::Acquire)).result_of(op, a, b, c)
    }

    #[inline]
    fn put(&self, op: Op, a: u32, b: u32, c: u32, r: u32) {
        if let Some(e) = Entry::new(op, a, b, c, r) {
            self.entry(op, a, b, c).store(e.to_bits(), Ordering::Release);
        }
    }

    /// Both halves of a step, in parallel near the top of the recursion.
    #[inline]
    fn both<A: Send, B: Send>(
        &self,
        depth: u32,
        a: impl FnOnce() -> Result<A, Full> + Send,
        b: impl FnOnce() -> Result<B, Full> + Send,
    ) -> (Result<A, Full>, Result<B, Full>) {
        if depth < SPAWN_DEPTH {
            rayon::join(a, b)
        } else {
            let x = a();
            if x.is_err() {
                return (x, Err(Full));
            }
            (x, b())
        }
    }

    pub(crate) fn not(&self, f: u32, depth: u32) -> Step {
        if f <= 1 {
            return Ok(1 - f);
        }
        if let Some(r) = self.cached(Op::Not, f, 0, 0) {
            return Ok(r);
        }
        let n = self.node(f);
        let (low, high) = self.both(depth, || self.not(n.low, depth + 1), || self.not(n.high, depth + 1));
        let r = self.mk(n.level, low?, high?)?;
        self.put(Op::Not, f, 0, 0, r);
        Ok(r)
    }

    /// `op(f, g)` for the binary operations of [`Manager::apply_rec`].
    pub(crate) fn apply(&self, op: Op, f: u32, g: u32, depth: u32) -> Step {
        if let Some(r) = Manager::apply_terminal_case(op, f, g) {
            return match r {
                Ok(r) => Ok(r),
                Err(x) => self.not(x, depth),
            };
        }
        let (f, g) = Manager::apply_operands(op, f, g);
        if let Some(r) = self.cached(op, f, g, 0) {
            return Ok(r);
        }
        let level = self.level(f).min(self.level(g));
        let (f0, f1) = self.cofactors(f, level);
        let (g0, g1) = self.cofactors(g, level);
        let (low, high) = self.both(depth, || self.apply(op, f0, g0, depth + 1), || self.apply(op, f1, g1, depth + 1));
        let r = self.mk_known(level, low?, high?, [(f, (f0, f1)), (g, (g0, g1))])?;
        self.put(op, f, g, 0, r);
        Ok(r)
    }

    /// The halves `(f ∧ g, f ∧ ¬g)` of [`Manager::split_rec`].
    pub(crate) fn split(&self, f: u32, g: u32, depth: u32) -> Step2 {
        if let Some(r) = Manager::split_terminal_case(f, g) {
            return Ok(r);
        }
        if f == 1 {
            return Ok((g, self.not(g, depth)?));
        }
        let (fa, ga) = Manager::apply_operands(Op::And, f, g);
        let (and, diff) = (self.lookup(Op::And, fa, ga, 0), self.lookup(Op::Diff, f, g, 0));
        self.local().steps[Op::Split.index()] += 1;
        match (and, diff) {
            (Some(a), Some(d)) => {
                self.local().hits[Op::Split.index()] += 1;
                return Ok((a, d));
            }
            (Some(a), None) => return Ok((a, self.apply(Op::Diff, f, g, depth)?)),
            (None, Some(d)) => return Ok((self.apply(Op::And, f, g, depth)?, d)),
            (None, None) => {}
        }
        let level = self.level(f).min(self.level(g));
        let (f0, f1) = self.cofactors(f, level);
        let (g0, g1) = self.cofactors(g, level);
        let (low, high) = self.both(depth, || self.split(f0, g0, depth + 1), || self.split(f1, g1, depth + 1));
        let ((a0, d0), (a1, d1)) = (low?, high?);
        let operands = [(f, (f0, f1)), (g, (g0, g1))];
        let a = self.mk_known(level, a0, a1, operands)?;
        let d = self.mk_known(level, d0, d1, operands)?;
        self.put(Op::And, fa, ga, 0, a);
        self.put(Op::Diff, f, g, 0, d);
        Ok((a, d))
    }

    /// The three results of [`Manager::split3_rec`].
    pub(crate) fn split3(&self, f: u32, g: u32, h: u32, depth: u32) -> Step3 {
        match Manager::split3_terminal_case(f, g, h) {
            Some(Shortcut::Done(r)) => return Ok(r),
            Some(Shortcut::Split(a, b, halves)) => return Ok(place(self.split(a, b, depth)?, halves)),
            None => {}
        }
        self.local().steps[Op::Split3.index()] += 1;
        if let Some(r) = self.split3_cache.get(f, g, h) {
            self.local().hits[Op::Split3.index()] += 1;
            return Ok(r);
        }
        let level = self.level(f).min(self.level(g)).min(self.level(h));
        let (f0, f1) = self.cofactors(f, level);
        let (g0, g1) = self.cofactors(g, level);
        let (h0, h1) = self.cofactors(h, level);
        let (low, high) =
            self.both(depth, || self.split3(f0, g0, h0, depth + 1), || self.split3(f1, g1, h1, depth + 1));
        let operands = [(f, (f0, f1)), (g, (g0, g1)), (h, (h0, h1))];
        let r = join3(low?, high?, operands, |low, high, ops| self.mk_known(level, low, high, ops))?;
        self.split3_cache.put(f, g, h, r);
        Ok(r)
    }

    /// The in-place image or pre-image of [`Manager::pair_rec`].
    pub(crate) fn pair(&self, op: Op, f: u32, t: u32, id: u32, depth: u32) -> Step {
        let x = match self.pairings[id as usize].step_start(f, t, |g| self.level(g)) {
            Ok(x) => x,
            Err(r) => return Ok(r),
        };
        if let Some(r) = self.cached(op, f, t, id) {
            return Ok(r);
        }
        let ((f0, f1), into0, into1) = pair_split(op, f, t, x, |g, level| self.cofactors(g, level));
        let join = |t: (u32, u32)| -> Step {
            let (a, b) =
                self.both(depth, || self.pair(op, f0, t.0, id, depth + 1), || self.pair(op, f1, t.1, id, depth + 1));
            self.apply(Op::Or, a?, b?, depth + 1)
        };
        let (low, high) = self.both(depth, || join(into0), || join(into1));
        let r = self.mk(x, low?, high?)?;
        self.put(op, f, t, id, r);
        Ok(r)
    }
}
