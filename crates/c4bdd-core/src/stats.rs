//! Statistics, always on: plain counters that cost one increment each.

use std::time::Duration;

use crate::cache::computed::Op;

/// Counters of one manager since it was created. `Copy`, so a caller can take
/// a snapshot before and after a phase and subtract.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Stats {
    /// Recursive steps per operation that reached the cache (indexed by `Op::index`).
    pub steps: [u64; Op::COUNT],
    /// Of those steps, how many the computed cache answered.
    pub cache_hits: [u64; Op::COUNT],
    /// Internal nodes created (unique-table misses).
    pub nodes_created: u64,
    /// Most internal nodes alive at once (allocated and not yet freed by a GC).
    pub peak_live: u64,
    /// Internal nodes alive now.
    pub live: u64,
    /// Node slots the arena holds now (live or free).
    pub slots: u64,
    /// The node limit in force.
    pub max_nodes: u64,
    /// Computed-cache entries.
    pub cache_entries: u64,
    /// Bytes held by nodes, unique table and cache.
    pub table_bytes: u64,
    /// Garbage collections run.
    pub gc_runs: u64,
    /// Nodes freed by all collections.
    pub gc_freed: u64,
    /// Time spent in collections.
    #[cfg_attr(feature = "serde", serde(serialize_with = "as_secs"))]
    pub gc_time: Duration,
    /// Parallel operations that ran out of the slots reserved for them and
    /// were run again with more, and the time of those unfinished attempts
    /// (an upper bound of the time lost: the rerun finds most of their work
    /// in the computed cache and the table).
    pub parallel_reruns: u64,
    #[cfg_attr(feature = "serde", serde(serialize_with = "as_secs"))]
    pub parallel_rerun_time: Duration,
    /// Most requests one breadth-first walk held at once (of one kind; at
    /// most [`Config::max_requests`](crate::Config::max_requests)).
    pub bfs_peak_requests: u64,
    /// Steps a breadth-first walk holding its most requests made
    /// depth-first instead, each with all of its own steps.
    pub bfs_past_bound: u64,
    /// Most bytes the breadth-first tables held at the end of a walk (the
    /// room every level kept, at least what any walk needed at once).
    pub bfs_peak_bytes: u64,
    /// Bytes the breadth-first tables hold now (between walks).
    pub bfs_bytes: u64,
}

#[cfg(feature = "serde")]
fn as_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Stats {
    /// Recursive steps of one operation.
    pub fn steps_of(&self, op: Op) -> u64 {
        self.steps[op.index()]
    }

    /// Cache hits of one operation.
    pub fn hits_of(&self, op: Op) -> u64 {
        self.cache_hits[op.index()]
    }

    /// Cache misses of one operation (steps the cache did not answer).
    pub fn misses_of(&self, op: Op) -> u64 {
        self.steps_of(op) - self.hits_of(op)
    }

    /// One line per operation that ran: name, steps, hits, hit rate.
    pub fn op_table(&self) -> String {
        let mut out = String::new();
        for op in Op::ALL {
            let steps = self.steps_of(op);
            if steps > 0 {
                let rate = self.hits_of(op) as f64 / steps as f64 * 100.0;
                out += &format!("{:<11} steps {:>12} hits {:>12} ({rate:.1}%)\n", op.name(), steps, self.hits_of(op));
            }
        }
        out += &format!(
            "nodes created {}, garbage collections {} ({} nodes freed)\n",
            self.nodes_created, self.gc_runs, self.gc_freed
        );
        if self.bfs_peak_requests > 0 {
            out += &format!(
                "breadth-first: most requests held {}, steps made depth-first past the bound {}, most table bytes {}\n",
                self.bfs_peak_requests, self.bfs_past_bound, self.bfs_peak_bytes
            );
        }
        if self.parallel_reruns > 0 {
            let (runs, secs) = (self.parallel_reruns, self.parallel_rerun_time.as_secs_f64());
            out +=
                &format!("parallel operations run again after running out of reserved slots: {runs} ({secs:.3} s)\n");
        }
        out
    }
}

/// What one garbage collection did.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GcReport {
    /// Internal nodes alive before the collection.
    pub live_before: u64,
    /// Internal nodes alive after it (reachable from pins and roots).
    pub live_after: u64,
    /// Nodes freed.
    pub freed: u64,
    /// Computed-cache entries kept because everything they mention survived.
    pub cache_kept: u64,
    /// Wall time of the collection.
    #[cfg_attr(feature = "serde", serde(serialize_with = "as_secs"))]
    pub time: Duration,
}
