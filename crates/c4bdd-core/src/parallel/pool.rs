//! The parallel context of the recursive operations ([`Recursor`]): the
//! manager's own node table and computed cache shared by a pool of threads
//! with work stealing (rayon). The operations' bodies are in their own files
//! (`apply.rs`, `split3.rs`, `pairing.rs`), written once for both contexts.
//!
//! A parallel operation holds the manager exclusively (`&mut self`, so no GC
//! and no other operation runs) and shares it among its threads as [`Shared`]:
//! - Nodes are only added. A thread claims slots in batches (a word of the
//!   free set, then 64 slots past the end of the arena, within the capacity
//!   reserved before the operation), writes a node into a slot it owns and
//!   publishes it with a compare-and-swap on the first empty slot of the
//!   index's probe sequence (release; `index_table.rs`). Lookups read the
//!   index with acquire, so a node's fields are visible to every thread that
//!   finds it, and a published node is never written again. When two threads
//!   insert the same node, the loser sees the winner's node in the slot it
//!   lost and frees its own.
//! - A computed-cache entry (16 bytes, aligned) is read and written with one
//!   16-byte atomic access (`portable_atomic::AtomicU128`: a plain vector load
//!   or store on x86-64 processors with AVX, which Intel and AMD guarantee to
//!   be atomic), release on write and acquire on read: a read sees one whole
//!   entry, never parts of two writes, and the nodes its result names.
//! - The arena's capacity and the index do not change during the
//!   operation. When the reserved slots run out the operation fails with
//!   `Full`; the manager reserves more and runs it again (the results already
//!   in the cache make the rerun cheap).
//!
//! Statistics are counted per thread and added up afterwards. The results are
//! the nodes the sequential operations give: the table is canonical.

use std::cell::UnsafeCell;
use std::sync::atomic::Ordering;

use portable_atomic::AtomicU128;

use crate::cache::computed::{slot, Entry, Op};
use crate::cache::split3::Split3Cache;
use crate::config::SPAWN_DEPTH;
use crate::manager::{Manager, Step};
use crate::pairs::PairingData;
use crate::parallel::recursor::Recursor;
use crate::store::index_table::{IndexTable, Vacancy};
use crate::store::node::Node;
use crate::store::pages::{Rec, PAGE};
use crate::store::shared_pages::{Part, Returned, SharedArena};
use crate::store::unique::{hash, Full};

/// Per-thread state: statistics and this thread's part of the arena.
#[repr(align(128))]
#[derive(Default)]
struct Local {
    steps: [u64; Op::COUNT],
    hits: [u64; Op::COUNT],
    part: Part,
}

/// The manager's tables as shared by the threads of one parallel operation.
pub(crate) struct Shared<'a> {
    arena: SharedArena<'a>,
    index: &'a IndexTable,
    cache: *const AtomicU128,
    cache_shift: u32,
    split3_cache: &'a Split3Cache,
    pairings: &'a [PairingData],
    locals: Vec<UnsafeCell<Local>>,
}

// SAFETY: the arena's shared view and the index are made for sharing
// (`shared_pages.rs`, `index_table.rs`); cache entries are accessed through
// atomics only (see the module documentation). `locals[i]` is touched only
// by pool thread `i`, and never across a call that may run another task.
unsafe impl Sync for Shared<'_> {}

/// What a finished parallel operation leaves for the manager: its
/// statistics and what the arena takes back.
pub(crate) struct Outcome {
    pub steps: [u64; Op::COUNT],
    pub hits: [u64; Op::COUNT],
    pub arena: Returned,
}

impl<'a> Shared<'a> {
    /// Share `m`'s tables among `threads` threads. The table must have been
    /// reserved (`NodeTable::reserve`).
    pub(crate) fn new(m: &'a mut Manager, threads: usize) -> Shared<'a> {
        let levels = m.var_count();
        let (arena, index) = m.table.share(levels);
        let cache = &mut m.cache;
        Shared {
            arena,
            index,
            // AtomicU128 has the size (16) and alignment (16) of an Entry.
            cache: cache.entries.as_mut_ptr() as *const AtomicU128,
            cache_shift: cache.shift,
            split3_cache: &m.split3_cache,
            pairings: &m.pairings,
            locals: (0..threads).map(|_| UnsafeCell::new(Local::default())).collect(),
        }
    }

    /// Sum the statistics and hand back the threads' parts of the arena.
    pub(crate) fn finish(self) -> Outcome {
        let (mut steps, mut hits) = ([0; Op::COUNT], [0; Op::COUNT]);
        let mut parts = Vec::with_capacity(self.locals.len());
        for cell in self.locals {
            let l = cell.into_inner();
            for k in 0..Op::COUNT {
                steps[k] += l.steps[k];
                hits[k] += l.hits[k];
            }
            parts.push(l.part);
        }
        Outcome { steps, hits, arena: self.arena.finish(parts) }
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

    /// The node `(level, low, high)`, found or inserted.
    fn mk(&self, level: u32, low: u32, high: u32) -> Step {
        if low == high {
            return Ok(low);
        }
        let h = hash(level, low, high);
        let is_key = |i: u32| {
            let r = self.arena.rec(i);
            r.low == low && r.high == high && self.arena.level(i) == level
        };
        let (mut from, mut id) = (Vacancy::default(), None);
        loop {
            let at = match self.index.find(h, from, is_key) {
                Ok(i) => {
                    if let Some(mine) = id {
                        self.arena.give_back(&mut self.local().part, mine);
                    }
                    return Ok(i);
                }
                Err(at) => at,
            };
            let mine = match id {
                Some(mine) => mine,
                None => self.arena.alloc(&mut self.local().part, level).ok_or(Full)?,
            };
            id = Some(mine);
            self.arena.write(mine, Rec { low, high });
            match self.index.claim(h, at, mine) {
                Ok(()) => return Ok(mine),
                Err(winner) if is_key(winner) => {
                    self.arena.give_back(&mut self.local().part, mine);
                    return Ok(winner);
                }
                Err(_) => from = at.next(),
            }
        }
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
        let r = self.arena.rec(f);
        Node { level: self.arena.level(f), low: r.low, high: r.high }
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
    fn prefetch_entry(&self, op: Op, a: u32, b: u32, c: u32) {
        crate::prefetch::prefetch(self.entry(op, a, b, c));
    }

    #[inline(always)]
    fn prefetch_node(&self, f: u32) {
        self.arena.prefetch(f);
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
            let threads = pool.current_num_threads();
            // Room for the spare nodes, and for a new page per level and thread.
            let (nodes, slots) = (self.config.parallel_spare, self.var_count() * threads * PAGE);
            pool.install(|| self.table.reserve(nodes, nodes + slots, true));
            // The threads share the cache at the size the arena asks for.
            self.grow_cache_if_due();
            let live_before = self.table.live();
            let shared = Shared::new(self, threads);
            let r = pool.install(|| op(&shared));
            let outcome = shared.finish();
            self.pool = Some(pool);
            let spent = self.table.finish_parallel(outcome.arena);
            for k in 0..outcome.steps.len() {
                self.stats.steps[k] += outcome.steps[k];
                self.stats.cache_hits[k] += outcome.hits[k];
            }
            let live = self.table.live();
            self.stats.nodes_created += live.saturating_sub(live_before) as u64;
            self.stats.peak_live = self.stats.peak_live.max(live as u64 - 2);
            self.grow_cache_if_due();
            match r {
                Err(Full) if !spent && self.table.can_grow() => {
                    self.stats.parallel_reruns += 1;
                    self.stats.parallel_rerun_time += started.elapsed();
                }
                r => return r,
            }
        }
    }
}
