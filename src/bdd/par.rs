//! The parallel context of the recursive operations ([`Recursor`]): the
//! manager's own node table and computed cache shared by a pool of threads
//! with work stealing (rayon). The operations' bodies are in their own files
//! (`apply.rs`, `split3.rs`, `pairing.rs`), written once for both contexts.
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
use super::manager::{Manager, Step};
use super::node::{Node, FREE_LEVEL};
use super::pairs::PairingData;
use super::recursor::Recursor;
use super::split3_cache::Split3Cache;
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
}

impl Recursor for &Shared<'_> {
    #[inline(always)]
    fn node(&self, f: u32) -> Node {
        // SAFETY: `f` is a published node (or a terminal): written before its
        // release and never written again during the operation.
        unsafe { *self.nodes.add(f as usize) }
    }

    #[inline]
    fn mk(&self, level: u32, low: u32, high: u32) -> Step {
        Shared::mk(self, level, low, high)
    }

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

    #[inline(always)]
    fn count(&self, op: Op, hit: bool) {
        let local = self.local();
        local.steps[op.index()] += 1;
        local.hits[op.index()] += hit as u64;
    }

    #[inline(always)]
    fn split3_cache(&self) -> &Split3Cache {
        self.split3_cache
    }

    #[inline(always)]
    fn pairing(&self, id: u32) -> &PairingData {
        &self.pairings[id as usize]
    }

    /// Both halves in parallel near the top of the recursion (below
    /// [`SPAWN_DEPTH`]), else one after the other.
    #[inline]
    fn both<A: Send, B: Send>(
        &self,
        depth: u32,
        a: impl FnOnce() -> Result<A, Full> + Send,
        b: impl FnOnce() -> Result<B, Full> + Send,
    ) -> Result<(A, B), Full> {
        if depth < SPAWN_DEPTH {
            let (x, y) = rayon::join(a, b);
            Ok((x?, y?))
        } else {
            Ok((a()?, b()?))
        }
    }
}

impl Manager {
    /// Run a parallel operation (see `par.rs`), reserving more slots and
    /// running it again while it runs out of reserved slots below the limit.
    pub(crate) fn parallel<T: Send>(
        &mut self,
        op: impl Fn(&Shared) -> std::result::Result<T, Full> + Sync,
    ) -> std::result::Result<T, Full> {
        loop {
            let started = std::time::Instant::now();
            let pool = self.pool.take().expect("a pool when threads > 1");
            pool.install(|| self.table.reserve(self.config.parallel_spare, true));
            // The threads share the cache at the size the arena asks for.
            self.grow_cache_if_due();
            let live_before = self.table.live();
            let threads = pool.current_num_threads();
            let shared = Shared::new(self, threads);
            let r = pool.install(|| op(&shared));
            let outcome = shared.finish();
            self.pool = Some(pool);
            self.table.finish_parallel(outcome.len, outcome.taken, &outcome.spare);
            for k in 0..outcome.steps.len() {
                self.stats.steps[k] += outcome.steps[k];
                self.stats.cache_hits[k] += outcome.hits[k];
            }
            let live = self.table.live();
            self.stats.nodes_created += live.saturating_sub(live_before) as u64;
            self.stats.peak_live = self.stats.peak_live.max(live as u64 - 2);
            self.grow_cache_if_due();
            match r {
                Err(Full) if self.table.can_grow() => {
                    self.stats.parallel_reruns += 1;
                    self.stats.parallel_rerun_time += started.elapsed();
                }
                r => return r,
            }
        }
    }
}
