//! `plots/perf.md`: the speed goals reached (the `goals` module), then the
//! speed board set (`experiments/perf.toml`), per sweep and configuration, the
//! median of its repetitions (a spec's `repeats` runs the whole list round
//! after round, so the machine's drift meets every configuration alike): the
//! figures docs/performance.md quotes.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use super::data::{group_by, Archive, Repetitions};
use super::goals;
use super::tables::secs;

/// The experiment whose sweeps the table reads.
pub const EXPERIMENT: &str = "perf";

/// `plots/perf.md`, or `None` when the archive holds neither a goal's figure
/// nor a finished run of the perf experiment.
pub fn markdown(archive: &Archive, results: &Path) -> Result<Option<String>> {
    let parts: Vec<String> = [goals::markdown(archive, results)?, board_set(archive)].into_iter().flatten().collect();
    Ok((!parts.is_empty()).then(|| parts.join("\n")))
}

/// The speed board set's table, or `None` when the archive holds no finished
/// run of the perf experiment.
fn board_set(archive: &Archive) -> Option<String> {
    let perf = archive.runs.iter().filter(|r| r.ok() && r.source.starts_with(EXPERIMENT));
    let groups = group_by(perf, |r| (r.configuration(), r.row.threads.unwrap_or(1)));
    if groups.is_empty() {
        return None;
    }
    let mut s = String::from(
        "## The speed board set\n\nThe speed board set (`c4bdd sweep experiments/perf.toml`), one run at a time: per sweep and \
configuration, its finished runs (repetitions, made round after round) and the median of their wall time \
(with the range), CPU time, GC share and peak RSS; the most peak nodes of any of them, and whether all \
counted the same positions. The machine and commit of each sweep are in its `meta.json`. docs/performance.md \
sets these beside the paper's artifact and the oxidd crate.\n\n\
| sweep | pass | encoding | board | order | terminal | image | threads | runs | median s | min - max s | CPU s | GC % | peak RSS MB | peak nodes | same positions |\n\
|---|---|---|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|\n",
    );
    for ((c, threads), runs) in groups {
        let m = Repetitions::of(&runs);
        let same = runs.iter().all(|r| r.row.positions == runs[0].row.positions);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {threads} | {} | {:.2} | {:.2} - {:.2} | {} | {:.1} | {:.0} | {} | {} |",
            c.source.display(),
            c.pass,
            c.encoding,
            c.board,
            c.order,
            c.terminal,
            c.image_label(),
            m.runs,
            m.median_s,
            m.min_s,
            m.max_s,
            secs(m.cpu_s),
            m.gc_percent,
            m.rss_mb,
            m.peak_nodes,
            if same { "yes" } else { "NO" },
        );
    }
    Some(s)
}
