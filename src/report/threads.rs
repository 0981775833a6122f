//! The page of thread speed-ups (plots/threads.md): per sweep, each
//! configuration run on one thread and on more, whole runs and phase by phase.

use std::fmt::Write as _;

use super::data::{group_by, median, Archive, Repetitions, Run};
use super::tables::secs;
use crate::experiment::record::{PlyRow, RunRow};

/// The swept settings a run's key names after its image strategy (e.g.
/// `gc-cache-clear`), without its threads and repetition; `-` for none. The
/// key's first six parts are read off the row's own columns, so an order
/// whose name holds a `/` (`rule:PATH`) is not taken for a setting.
fn variant(row: &RunRow) -> String {
    let base = format!(
        "{}x{}/{}/{}/{}/{}/{}",
        row.width, row.height, row.encoding, row.order, row.pass, row.terminal, row.image
    );
    let rest = row.run.strip_prefix(&base).unwrap_or("");
    let parts: Vec<&str> =
        rest.split('/').filter(|p| !p.is_empty() && !p.ends_with("-threads") && !p.starts_with("repeat-")).collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("/")
    }
}

/// One thread against several: per sweep, every configuration run with more
/// than one thread count, each speed-up taken within its own sweep (the same
/// machine, one run at a time) between the medians of the repetitions.
pub fn threads_markdown(archive: &Archive) -> Option<String> {
    let groups = group_by(archive.runs.iter().filter(|r| r.ok()), |r| (r.configuration(), variant(&r.row)));
    let mut phases = String::new();
    let mut s = String::from(
        "The BDD operations on one thread and on several (`threads` in the spec, `--threads`), per sweep, \
one run at a time: per configuration (with the settings its sweep varies, e.g. `gc-cache-clear`) the runs \
on one thread and on more (repetitions, made round after round with `repeats` in the spec), the median wall \
time of each, the speed-up between the medians, the median CPU time and peak RSS, and whether every ply \
(positions, BDD nodes, won/drawn/lost) of every run equals the first one-thread run's.\n\n\
| sweep | board | pass | encoding | order | settings | runs, 1 / threads | 1 thread s | threads | s | speed-up | CPU s | peak RSS MB, 1 / threads | peak nodes | same plies |\n\
|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut rows = 0;
    for ((c, variant), runs) in groups {
        let (one, more): (Vec<&Run>, Vec<&Run>) = runs.iter().partition(|r| r.single_threaded());
        let Some(first) = one.first() else { continue };
        let by_threads = group_by(more, |r| r.row.threads.unwrap_or(1));
        let single = Repetitions::of(&one);
        let (source, board, pass, encoding, order) = (c.source.display(), c.board, c.pass, c.encoding, c.order);
        let lead = format!("| {source} | {board} | {pass} | {encoding} | {order} | {variant} |");
        for (threads, many) in by_threads {
            rows += 1;
            let multi = Repetitions::of(&many);
            let same = one.iter().chain(&many).all(|r| same_plies(first, r));
            let _ = writeln!(
                s,
                "{lead} {} / {} | {:.2} | {threads} | {:.2} | {:.2}x | {} | {:.0} / {:.0} | {} | {} |",
                single.runs,
                multi.runs,
                single.median_s,
                multi.median_s,
                single.median_s / multi.median_s.max(1e-9),
                secs(multi.cpu_s),
                single.rss_mb,
                multi.rss_mb,
                first.row.peak_nodes,
                if same { "yes" } else { "NO" },
            );
            if let Some(row) = phase_row(&one, &many) {
                let _ = writeln!(phases, "{lead} {threads} | {row} |");
            }
        }
    }
    if !phases.is_empty() {
        s += PHASES_HEAD;
        s += &phases;
    }
    (rows > 0).then_some(s)
}

/// A ply's time in each phase, in the order of the per-phase table's
/// columns: image, terminal, split, count, GC.
type PhaseOf = fn(&PlyRow) -> Option<f64>;
const PHASES: [PhaseOf; 5] = [|p| p.image_s, |p| p.terminal_s, |p| p.split_s, |p| p.count_s, |p| p.gc_s];

const PHASES_HEAD: &str = "\nPhase by phase: each phase's seconds summed over the plies of a run (the median of the \
repetitions), on one thread and on more, and the speed-up between them (`image`: images and pre-images; `terminal`: \
splitting off the terminal states; `split`: sorting a ply into won, drawn and lost; `count`: counting, and writing \
a solution's files; `GC`: collections). Only runs that record their phases, and phases that took at least \
0.01 s on one thread.\n\n\
| sweep | board | pass | encoding | order | settings | threads | image | terminal | split | count | GC |\n\
|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|\n";

/// The cells of the per-phase table for runs on one thread and on more:
/// `1-thread s / more s = speed-up` per phase; `None` when a run lacks its phases.
fn phase_row(one: &[&Run], many: &[&Run]) -> Option<String> {
    let mut cells = Vec::new();
    for phase in PHASES {
        let median_of = |runs: &[&Run]| -> Option<f64> {
            let sums: Option<Vec<f64>> = runs.iter().map(|r| r.plies.iter().map(phase).sum::<Option<f64>>()).collect();
            sums.filter(|s| !s.is_empty()).map(median)
        };
        let (a, b) = (median_of(one)?, median_of(many)?);
        cells.push(if a < 0.01 { "-".to_string() } else { format!("{a:.2} / {b:.2} s = {:.2}x", a / b.max(1e-9)) });
    }
    Some(cells.join(" | "))
}

/// Whether two runs recorded the same plies: positions, BDD nodes and, for
/// solves, won, drawn, lost and terminal positions.
fn same_plies(a: &Run, b: &Run) -> bool {
    let key = |r: &Run| -> Vec<_> {
        r.plies.iter().map(|p| (p.ply, p.states, p.bdd_nodes, p.won, p.drawn, p.lost, p.terminal)).collect()
    };
    !a.plies.is_empty() && key(a) == key(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run whose plies spent `image` and `split` seconds (split and image
    /// halved over two plies; no terminal, count or GC time to speak of).
    fn run(image: f64, split: f64) -> Run {
        let ply = PlyRow { image_s: Some(image / 2.0), split_s: Some(split / 2.0), ..PlyRow::default() };
        let ply = PlyRow { terminal_s: Some(0.0), count_s: Some(0.001), gc_s: Some(0.0), ..ply };
        Run { source: Default::default(), row: RunRow::default(), plies: vec![ply.clone(), ply] }
    }

    #[test]
    fn phases_take_the_median_of_the_repetitions() {
        let one = [run(3.0, 8.0), run(1.0, 9.0), run(7.0, 10.0)];
        let two = [run(2.0, 4.0), run(4.0, 5.0), run(0.5, 6.0)];
        let row = phase_row(&one.iter().collect::<Vec<_>>(), &two.iter().collect::<Vec<_>>());
        assert_eq!(row.as_deref(), Some("3.00 / 2.00 s = 1.50x | - | 9.00 / 5.00 s = 1.80x | - | -"));
    }

    #[test]
    fn runs_without_phases_have_no_row() {
        let old = Run { plies: vec![PlyRow::default()], ..run(1.0, 1.0) };
        assert_eq!(phase_row(&[&old], &[&run(1.0, 1.0)]), None);
    }
}
