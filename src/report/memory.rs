//! Measured peak RSS against the memory model ([`crate::bdd::model_bytes`]):
//! every finished single-threaded run of the archive large enough for its
//! tables to dominate the process.

use std::fmt::Write as _;

use super::data::{Archive, Run};
use crate::bdd::{model_bytes_with, Config};

/// The ratio of measured peak RSS to the model that the project aims to stay within.
pub const TARGET_RATIO: f64 = 1.5;

/// Runs below this many peak nodes are left out of `plots/memory.md`: the
/// process's own few megabytes dominate them.
pub const MIN_NODES: u64 = 1_000_000;

/// Bytes of a cache entry in runs that did not record it (all made before commit 3820172).
const OLD_ENTRY_BYTES: u64 = 20;

/// The cap on cache entries of runs that did not record it (all made before the column existed).
const OLD_MAX_CACHE_ENTRIES: u64 = 1 << 26;

/// A run's model bytes (its recorded cache ratio, cap, floor and entry
/// size, the default configuration otherwise; no floor where the run
/// predates the column).
pub fn model_of(run: &Run) -> u64 {
    let config = Config {
        cache_ratio: run.row.cache_ratio.max(1) as usize,
        max_cache_entries: run.row.max_cache_entries.unwrap_or(OLD_MAX_CACHE_ENTRIES) as usize,
        min_cache_entries: run.row.min_cache_entries.unwrap_or(0) as usize,
        ..Config::default()
    };
    model_bytes_with(run.row.peak_nodes, &config, run.row.cache_entry_bytes.unwrap_or(OLD_ENTRY_BYTES) as usize)
}

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
    let ratio = |r: &Run| r.row.peak_rss_bytes as f64 / model_of(r) as f64;
    let within = runs.iter().filter(|r| ratio(r) <= TARGET_RATIO).count();
    let mut s = format!(
        "Peak RSS (measured by the sweep, the kernel's account of the run's process) against the memory model: \
16 bytes per peak live node, the unique table's buckets (4 bytes each, one per slot of the capacity the \
arena grows to for the peak: it doubles, then grows by a quarter from 1 GiB; before commit 033d269 the buckets \
were a power of two at least the slots, up to twice as many, which the model no longer charges) \
and the computed cache (16 bytes an entry, a power of two at least the slots over the cache ratio and, up to \
the run's `min_cache_entries` (none where the column is absent), at least four entries a slot; at most \
the run's `max_cache_entries`, 2^{} where the column is absent; 20 bytes in runs without the `cache_entry_bytes` column, all made before commit 3820172 but those of \
perf/2026-11-22-vm-7f166eb23441, whose 16-byte entries are charged as 20). Beyond the model a run also holds the free slots (a stack of 4 bytes a free slot before commit 1f8e24e, a \
bitmap of 1 bit a slot since), the memo of \
counting (4 bytes a slot and 16 a counted node before commit 3c76f69; since then 1.5 bits a slot and 12 bytes \
a counted node), that of saving a checkpoint (about 28 bytes a saved node before commit 1cf5af4, then 4 bytes a \
slot; since commit 0b5610c 1.5 bits a slot and 8 bytes a saved node), the old cache beside the new while it doubled (before commit \
3a9a126), a copy of the arena or cache while it grew (before commit 30d3ec9: its huge-page advice split the \
mapping, so it could not grow in place), in solves since commit c83cfcd the three-way split's table (32 bytes \
an entry, a sixteenth as many entries as the computed cache: an eighth of its bytes) and the process itself (about 10 MB). Finished single-threaded runs with at least {min_nodes} peak nodes, largest first.\n\n\
Within {TARGET_RATIO}x of the model: {within} of {} runs.\n\n\
| sweep | run | peak nodes | peak RSS MB | model MB | RSS / model |\n|---|---|---:|---:|---:|---:|\n",
        OLD_MAX_CACHE_ENTRIES.trailing_zeros(),
        runs.len()
    );
    for r in runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} | {:.0} | {:.2} |",
            r.source.display(),
            r.row.run,
            r.row.peak_nodes,
            r.row.peak_rss_bytes as f64 / 1e6,
            model_of(r) as f64 / 1e6,
            ratio(r)
        );
    }
    Some(s)
}
