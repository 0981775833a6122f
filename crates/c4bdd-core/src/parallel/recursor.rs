//! The context a recursive operation runs in.
//!
//! Each recursive operation (`not`, the binary operations, `split`,
//! `split3`, the in-place image and pre-image) is written once, generic over
//! a [`Recursor`]: the tables it reads and writes, and how it runs the two
//! halves of a step. There are two:
//! - [`Seq`], the manager itself on the calling thread: the node table grows
//!   during the operation, and both halves run one after the other;
//! - `par::Shared`, the manager's tables shared by the threads of a pool: the
//!   capacity is reserved beforehand, and near the top of the recursion the
//!   two halves run as parallel tasks.
//!
//! Both give the same nodes: the table is canonical. A body never holds a
//! reference into the tables across a call of the recursor.

use std::marker::PhantomData;

use crate::cache::computed::Op;
use crate::cache::split3::Split3Cache;
use crate::manager::{Manager, Step};
use crate::pairs::PairingData;
use crate::store::node::{known_node, Node};
use crate::store::unique::Full;

/// What a recursive operation needs of its tables (see the module documentation).
pub(crate) trait Recursor: Copy + Send + Sync {
    /// The node behind an index (published: its fields never change during the operation).
    fn node(&self, f: u32) -> Node;

    /// The reduced node `(level, low, high)`, found or inserted; `Full` when
    /// no slot is left (at the node limit, or, in parallel, the reserve).
    fn mk(&self, level: u32, low: u32, high: u32) -> Step;

    /// The computed cache's result for `op(a, b, c)`, if any, not counted.
    fn lookup(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32>;

    /// Remember `op(a, b, c) = r` in the computed cache.
    fn put(&self, op: Op, a: u32, b: u32, c: u32, r: u32);

    /// Count one recursive step of `op`, and a cache hit when `hit`.
    fn count(&self, op: Op, hit: bool);

    /// The three-way split's computed table.
    fn split3_cache(&self) -> &Split3Cache;

    /// A registered pairing of the in-place products.
    fn pairing(&self, id: u32) -> &PairingData;

    /// Both halves of a step, `a` first; `depth` is the step's depth in the
    /// recursion (the parallel context runs shallow steps' halves as tasks).
    /// When `a` fails, `b` may be skipped.
    fn both<A: Send, B: Send>(
        &self,
        depth: u32,
        a: impl FnOnce() -> Result<A, Full> + Send,
        b: impl FnOnce() -> Result<B, Full> + Send,
    ) -> Result<(A, B), Full>;

    /// The level of a node (terminals: `TERMINAL_LEVEL`).
    #[inline(always)]
    fn level(&self, f: u32) -> u32 {
        self.node(f).level
    }

    /// The cofactors of `f` with respect to the variable at `level <= level(f)`.
    #[inline(always)]
    fn cofactors(&self, f: u32, level: u32) -> (u32, u32) {
        self.node(f).cofactors(f, level)
    }

    /// [`Self::mk`], without the lookup when [`known_node`] knows the node.
    #[inline(always)]
    fn mk_known(&self, level: u32, low: u32, high: u32, operands: [(u32, (u32, u32)); 2]) -> Step {
        match known_node(low, high, operands) {
            Some(r) => Ok(r),
            None => self.mk(level, low, high),
        }
    }

    /// Hint that the computed cache's entry of `op(a, b, c)` is read soon.
    fn prefetch_entry(&self, op: Op, a: u32, b: u32, c: u32);

    /// Hint that node `f`'s record is read soon.
    fn prefetch_node(&self, f: u32);

    /// Hint that the step `op(a, b, c)`, whose `a` and `b` are nodes, runs
    /// soon: its cache entry and both operands' records (see `prefetch.rs`).
    #[inline(always)]
    fn prefetch(&self, op: Op, a: u32, b: u32, c: u32) {
        self.prefetch_entry(op, a, b, c);
        self.prefetch_node(a);
        self.prefetch_node(b);
    }

    /// Count a step of `op` and look it up in the cache.
    #[inline(always)]
    fn cached(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        let hit = self.lookup(op, a, b, c);
        self.count(op, hit.is_some());
        hit
    }
}

/// The sequential context: the manager, borrowed exclusively for the
/// operation, on the calling thread.
#[derive(Clone, Copy)]
pub(crate) struct Seq<'a> {
    m: *mut Manager,
    _borrow: PhantomData<&'a mut Manager>,
}

// SAFETY: a `Seq` is only used on the thread that made it: its `both` runs
// both halves on the calling thread, and no code sends it (or a reference to
// it) to another thread. `Send` and `Sync` are needed only because the
// bodies are shared with the parallel context, whose halves must be `Send`.
unsafe impl Send for Seq<'_> {}
// SAFETY: as for `Send`: it never leaves the thread that made it.
unsafe impl Sync for Seq<'_> {}

impl<'a> Seq<'a> {
    /// The manager as a sequential context, for the duration of `'a`, with
    /// its cache at the size the arena asks for.
    #[inline(always)]
    pub(crate) fn new(m: &'a mut Manager) -> Seq<'a> {
        m.grow_cache_if_due();
        Seq { m, _borrow: PhantomData }
    }

    /// The manager, for reading.
    #[inline(always)]
    fn get(&self) -> &Manager {
        // SAFETY: `m` is borrowed exclusively for `'a`; no mutable reference
        // made by `get_mut` outlives the method that made it.
        unsafe { &*self.m }
    }

    /// The manager, for one update. The reference must not outlive the
    /// calling method, nor overlap a reference from `get` that is used later.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    fn get_mut(&self) -> &mut Manager {
        // SAFETY: as in `get`; every caller drops the reference before it returns.
        unsafe { &mut *self.m }
    }
}

impl Recursor for Seq<'_> {
    #[inline(always)]
    fn node(&self, f: u32) -> Node {
        self.get().table.nodes().get(f)
    }

    #[inline(always)]
    fn mk(&self, level: u32, low: u32, high: u32) -> Step {
        self.get_mut().mk(level, low, high)
    }

    #[inline(always)]
    fn lookup(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        self.get().cache.get(op, a, b, c)
    }

    #[inline(always)]
    fn put(&self, op: Op, a: u32, b: u32, c: u32, r: u32) {
        self.get_mut().cache.put(op, a, b, c, r)
    }

    #[inline(always)]
    fn prefetch_entry(&self, op: Op, a: u32, b: u32, c: u32) {
        self.get().cache.prefetch(op, a, b, c);
    }

    #[inline(always)]
    fn prefetch_node(&self, f: u32) {
        self.get().table.nodes().prefetch(f);
    }

    #[inline(always)]
    fn count(&self, op: Op, hit: bool) {
        let stats = &mut self.get_mut().stats;
        stats.steps[op.index()] += 1;
        stats.cache_hits[op.index()] += hit as u64;
    }

    #[inline(always)]
    fn split3_cache(&self) -> &Split3Cache {
        &self.get().split3_cache
    }

    #[inline(always)]
    fn pairing(&self, id: u32) -> &PairingData {
        &self.get().pairings[id as usize]
    }

    #[inline(always)]
    fn both<A: Send, B: Send>(
        &self,
        _depth: u32,
        a: impl FnOnce() -> Result<A, Full> + Send,
        b: impl FnOnce() -> Result<B, Full> + Send,
    ) -> Result<(A, B), Full> {
        Ok((a()?, b()?))
    }
}
