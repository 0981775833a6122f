//! Measured peak RSS against the memory model (each run's `model_bytes`,
//! [`RunRow::model`](crate::experiment::record::RunRow::model)): every
//! finished single-threaded run of the archive large enough for its tables
//! to dominate the process.

use std::fmt::Write as _;

use super::data::{Archive, Run};

/// The ratio of measured peak RSS to the model that the project aims to stay within.
pub const TARGET_RATIO: f64 = 1.5;

/// Runs below this many peak nodes are left out of `plots/memory.md`: the
/// process's own few megabytes dominate them.
pub const MIN_NODES: u64 = 1_000_000;

/// `plots/memory.md`: runs with at least `min_nodes` peak nodes, largest
/// first, with RSS, model and their ratio; `None` when there is none.
pub fn markdown(archive: &Archive, min_nodes: u64) -> Option<String> {
    let mut runs: Vec<&Run> = archive
        .runs
        .iter()
        .filter(|r| r.ok() && r.single_threaded() && r.row.peak_nodes >= min_nodes && r.row.peak_rss_bytes > 0)
        .collect();
    if runs.is_empty() {
        return None;
    }
    runs.sort_by(|a, b| (b.row.peak_nodes, &a.source, &a.row.run).cmp(&(a.row.peak_nodes, &b.source, &b.row.run)));
    let ratio = |r: &Run| r.row.peak_rss_bytes as f64 / r.row.model() as f64;
    let within = runs.iter().filter(|r| ratio(r) <= TARGET_RATIO).count();
    let mut s = format!(
        "Peak RSS (measured by the sweep, the kernel's account of the run's process) per peak live node, and \
against the memory model that each run records (`model_bytes`). The model of the paged node store: 8 bytes a node \
record and a bit of the free bitmap per slot; the unique table's index (64-byte groups of 12 tagged slots, at most \
90% full: it doubles up to 64 MiB, then grows by a quarter); the computed cache (a power of two of entries, at least \
the slots over the cache ratio and, up to the run's `min_cache_entries`, four entries a slot; at most the run's \
`max_cache_entries`; 16 bytes an entry). Beyond the model a run holds the pages only partly used (a page holds 4096 \
nodes of one level), the memo of counting (1.5 bits a slot and 8 bytes a counted node; a large count takes the \
computed cache's place), that of saving a checkpoint \
(1.5 bits a slot and 8 bytes a saved node), in solves the three-way split's table (32 bytes an entry, the \
cache's entries over the run's `split3_cache_ratio`) and the process itself (about 10 MB); a run breadth-first (its \
`traversal`; a one-thread solve's default) also holds the requests of an operation until it ends (about a hundred \
bytes a request, at most the run's `max_requests` of each kind; the most its tables held is the row's \
`bfs_peak_bytes`). Rows recorded without `model_bytes` ran on the chained node store (16-byte \
nodes, a 4-byte chain head per slot of the arena's capacity): their model is that store's, of their recorded \
settings. Finished single-threaded runs with at least {min_nodes} peak nodes, largest first.\n\n\
Within {TARGET_RATIO}x of the model: {within} of {} runs.\n\n\
| sweep | run | peak nodes | peak RSS MB | bytes per node | model MB | RSS / model |\n|---|---|---:|---:|---:|---:|---:|\n",
        runs.len()
    );
    for r in runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} | {:.1} | {:.0} | {:.2} |",
            r.source.display(),
            r.row.run,
            r.row.peak_nodes,
            r.row.peak_rss_bytes as f64 / 1e6,
            r.row.peak_rss_bytes as f64 / r.row.peak_nodes as f64,
            r.row.model() as f64 / 1e6,
            ratio(r)
        );
    }
    Some(s)
}
