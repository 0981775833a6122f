//! Manager settings compared: per sweep and configuration, the runs that
//! differ only in the computed cache's ratio, cap and floor, the three-way
//! split table's ratio, the GC policy or the traversal, each
//! setting with the median and range of its repetitions' times (a spec's
//! `repeats` runs them round after round, so the machine's drift meets every
//! setting alike).

use std::fmt::Write as _;

use super::data::{group_by, Archive, Repetitions, Run};
use crate::experiment::record::{GcCache, Traversal};

/// What it varies, as the row records it: cache ratio, cap and floor on
/// cache entries (0 where the row predates the column), three-way split
/// table's ratio (16 where the row predates the column), GC growth, what
/// collections do with the cache (`keep` where the row predates the column)
/// GC threshold and traversal (depth-first where the row predates the
/// column).
#[derive(Clone, Debug, PartialEq, PartialOrd)]
struct Setting {
    cache_ratio: u64,
    max_cache_entries: u64,
    min_cache_entries: u64,
    split3_cache_ratio: u64,
    gc_growth: f64,
    gc_cache: GcCache,
    gc_min_live: u64,
    traversal: Traversal,
}

fn setting(r: &Run) -> Setting {
    Setting {
        cache_ratio: r.row.cache_ratio,
        max_cache_entries: r.row.max_cache_entries.unwrap_or(0),
        min_cache_entries: r.row.min_cache_entries.unwrap_or(0),
        split3_cache_ratio: r.row.split3_cache_ratio.unwrap_or(crate::bdd::split3_cache_ratio() as u64),
        gc_growth: r.row.gc_growth,
        gc_cache: r.row.gc_cache.unwrap_or_default(),
        gc_min_live: r.row.gc_min_live,
        traversal: r.row.traversal.unwrap_or_default(),
    }
}

/// `plots/settings.md`, or `None` when no sweep ran a configuration with
/// more than one setting.
pub fn markdown(archive: &Archive) -> Option<String> {
    let groups = group_by(archive.runs.iter().filter(|r| r.ok()), |r| (r.configuration(), r.row.threads.unwrap_or(1)));
    let mut s = String::from(
        "Manager settings compared: per sweep, the runs of one configuration (board, pass, encoding, order, \
terminal and image strategy, threads) that differ in the computed cache's ratio (node slots per entry), cap \
(most entries; - where the run predates the column) or floor (up to which the cache holds four entries a node slot; \
- where the run predates the column), the three-way split table's ratio (cache entries per entry; solves), the GC policy \
or the traversal (depth-first where the run predates the column). Per setting: its runs (repetitions, \
made round after round with `repeats` in the spec), the median and range of their wall times, the median \
peak RSS, peak nodes, and whether every run counted the same positions as the group's first. Compare \
settings within a row group only: the machine's speed drifts between sweeps.\n\n\
| sweep | board | pass | encoding | order | threads | cache ratio | max cache entries | min cache entries | split3 ratio | GC growth | GC cache | traversal | runs | median s | min - max s | peak RSS MB | peak nodes | same positions |\n\
|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|---:|---:|---|\n",
    );
    let mut rows = 0;
    for ((c, threads), runs) in groups {
        let mut by_setting: Vec<(Setting, Vec<&Run>)> = Vec::new();
        for r in &runs {
            let set = setting(r);
            match by_setting.iter_mut().find(|(s, _)| *s == set) {
                Some((_, rs)) => rs.push(r),
                None => by_setting.push((set, vec![r])),
            }
        }
        if by_setting.len() < 2 {
            continue;
        }
        by_setting.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        let first = runs[0].row.positions;
        for (set, rs) in by_setting {
            rows += 1;
            let m = Repetitions::of(&rs);
            let entries = |n: u64| if n == 0 { "-".to_string() } else { n.to_string() };
            let (cap, floor) = (entries(set.max_cache_entries), entries(set.min_cache_entries));
            let same = rs.iter().all(|r| r.row.positions == first);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {threads} | {} | {cap} | {floor} | {} | {} | {} | {} | {} | {:.2} | {:.2} - {:.2} | {:.0} | {} | {} |",
                c.source.display(),
                c.board,
                c.pass,
                c.encoding,
                c.order,
                set.cache_ratio,
                set.split3_cache_ratio,
                set.gc_growth,
                set.gc_cache,
                set.traversal,
                m.runs,
                m.median_s,
                m.min_s,
                m.max_s,
                m.rss_mb,
                m.peak_nodes,
                if same { "yes" } else { "NO" },
            );
        }
    }
    (rows > 0).then_some(s)
}
