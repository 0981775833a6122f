//! Garbage collection at explicit safe points.
//!
//! `gc` takes `&mut self`, so no operation can be running while it collects:
//! the borrow checker enforces the safe-point rule. Marking starts from the
//! pinned BDDs and the roots given; every unmarked internal node is freed, and
//! the computed cache keeps exactly the entries whose nodes all survived, or
//! none (`Config::gc_cache`).
//! With more than one thread, marking, sweeping and the cache pass run on
//! the manager's pool.
//! Node indices of survivors do not change.

use std::time::Instant;

use crate::bits;
use crate::collect::reach;
use crate::config::GcCache;
use crate::manager::{run_on, Manager};
use crate::stats::GcReport;
use crate::store::node::Bdd;

impl Manager {
    /// Collect every node not reachable from a pinned BDD or from `roots`.
    pub fn gc(&mut self, roots: &[Bdd]) -> GcReport {
        self.debug_check(roots);
        let start = Instant::now();
        let live_before = self.live_nodes() as u64;
        let roots: Vec<u32> = self.pins.keys().copied().chain(roots.iter().map(|r| r.0)).collect();
        let keep_cache = self.config.gc_cache == GcCache::Keep;
        let (table, cache, split3) = (&mut self.table, &mut self.cache, &mut self.split3_cache);
        let collect = |parallel: bool| {
            let mut marked = vec![0u64; bits::words(table.slots())];
            marked[0] |= 0b11;
            reach::mark_roots(table.nodes(), &mut marked, &roots, parallel);
            // The three-way split's entries are not checked one by one: its
            // results are not reused across the retrograde steps it serves.
            split3.clear(parallel);
            let is_marked = |i: usize| marked[i / 64] & (1u64 << (i % 64)) != 0;
            let freed = table.sweep(is_marked, parallel) as u64;
            if keep_cache {
                (freed, cache.retain_live(|i| is_marked(i as usize), parallel) as u64)
            } else {
                cache.clear_with(parallel);
                (freed, 0)
            }
        };
        let (freed, cache_kept) = run_on(self.pool.as_deref(), collect);
        let live_after = self.live_nodes() as u64;
        let time = start.elapsed();
        self.stats.gc_runs += 1;
        self.stats.gc_freed += freed;
        self.stats.gc_time += time;
        self.gc_next = self.config.gc_min_live.max((live_after as f64 * self.config.gc_growth) as usize);
        GcReport { live_before, live_after, freed, cache_kept, time }
    }

    /// Collect if the live node count has reached the policy's threshold
    /// (`Config::gc_min_live`, then `gc_growth` times the count after the
    /// previous collection). Returns the report when it collected.
    pub fn maybe_gc(&mut self, roots: &[Bdd]) -> Option<GcReport> {
        (self.live_nodes() >= self.gc_next).then(|| self.gc(roots))
    }

    /// Live-node count at which `maybe_gc` will next collect.
    pub fn gc_threshold(&self) -> usize {
        self.gc_next
    }
}

impl Manager {
    /// [`reach::mark_roots`] on the manager's pool if it has one, else on the calling thread.
    pub(crate) fn mark_from(&self, bits: &mut [u64], roots: &[u32]) -> usize {
        let nodes = self.table.nodes();
        run_on(self.pool.as_deref(), |parallel| reach::mark_roots(nodes, bits, roots, parallel))
    }
}
