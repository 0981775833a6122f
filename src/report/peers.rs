//! `plots/peers.md`: c4bdd beside other BDD packages (oxidd, BuDDy, CUDD,
//! Sylvan),
//! from the timings that `experiments/peers/compare.sh` archives under
//! `results/peers/<dir>/times.csv` (and `results/oxidd/`, the archives of
//! oxidd alone, without the peak RSS column).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use super::data::{archive_name, median, range, timing_archives};
use super::plots::Series;
use crate::experiment::record::read_rows;
use crate::experiment::Pass;

/// One timed run of `compare.sh`.
#[derive(Clone, Debug, Deserialize)]
pub struct Timing {
    pub round: u32,
    /// The pass timed (archives without the column counted).
    #[serde(default)]
    pub pass: Pass,
    pub board: String,
    pub program: String,
    pub image: String,
    /// Threads of the run (archives without the column ran on one).
    #[serde(default = "one")]
    pub threads: u32,
    pub positions: u128,
    pub wall_s: f64,
    pub cpu_s: f64,
    /// The process's peak RSS in KiB (`/usr/bin/time`'s `%M`), where recorded.
    #[serde(default)]
    pub max_rss_kb: Option<u64>,
    /// The peak of nodes by the program's own count (c4bdd's peak live
    /// nodes; a package's `figures:` line), where recorded.
    #[serde(default)]
    pub peak_nodes: Option<u64>,
    /// Seconds of garbage collection, where the program counts them.
    #[serde(default)]
    pub gc_s: Option<f64>,
}

fn one() -> u32 {
    1
}

/// The median of [`Timing::measure`] over `runs`.
fn median_time(runs: &[&Timing]) -> f64 {
    median(runs.iter().map(|t| t.measure()).collect())
}

impl Timing {
    /// The time a row is judged by: CPU seconds on one thread, wall
    /// seconds on more (where CPU time adds the threads up).
    pub fn measure(&self) -> f64 {
        if self.threads > 1 {
            self.wall_s
        } else {
            self.cpu_s
        }
    }
}

/// A pass, board, program, image and thread count: the runs that a row
/// sums up.
pub type Key<'a> = (Pass, &'a str, &'a str, &'a str, u32);

/// The archives of the comparison, oldest first.
pub fn archives(results: &Path) -> Vec<std::path::PathBuf> {
    [timing_archives(results, "oxidd"), timing_archives(results, "peers")].concat()
}

/// The table, or `None` when no archive holds timings; a malformed file is
/// an error naming it.
pub fn markdown(results: &Path) -> Result<Option<String>> {
    let mut s = String::from(
        "c4bdd beside other BDD packages, counting (or strongly solving) the same boards in the compressed \
encoding, column-wise order, one terminal BDD per frame: `experiments/peers/compare.sh` checks that each package \
builds c4bdd's BDDs (every ply's positions and nodes equal; in a solve, every ply's won, drawn and lost \
positions), then runs c4bdd's default in-place image, c4bdd with the \
paper's monolithic relation over alternating frames (`--image monolithic`), each package with that same \
strategy and Sylvan also with c4bdd's default (its `relnext`, the relational product that renames in place), \
round after round, on one thread and, for c4bdd and Sylvan, on more, and archives each run's wall and CPU time and \
peak RSS (of the whole process) under `results/peers/` (`results/oxidd/`: oxidd alone). Per pass, board, program, \
image and threads: the median time of the rounds with its range (CPU seconds on one thread; wall seconds on more, \
where CPU time adds the threads up), the median wall time, that median time over c4bdd's default and over c4bdd \
with the same image, both on as many threads (above 1: c4bdd is faster), the largest peak RSS, the largest peak \
of nodes by the program's own count (c4bdd and CUDD: live nodes at their most; Sylvan: its table's filled slots \
at their most, at the end of a ply or when a collection began; BuDDy and oxidd: the most nodes held at the end \
of a ply; all but CUDD's with garbage not yet collected), the bytes of peak RSS per node of that peak, the median \
seconds of garbage collection where the program counts them, and whether every run of the board counted the \
same positions. `peers.png` draws the counts: each program's median time against its peak RSS, per board, from the newest \
archive that has it.\n\n\
| archive | pass | board | program | image | threads | rounds | median time s | min - max s | median wall s | / c4bdd | / c4bdd same image | peak RSS MB | peak nodes | bytes / node | GC s | same positions |\n\
|---|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut rows = 0;
    for dir in archives(results) {
        let timings: Vec<Timing> = read_rows(&dir.join("times.csv"))?;
        let groups = runs_by_group(&timings);
        let source = archive_name(results, &dir);
        for (&(pass, board, program, image, threads), runs) in &groups {
            let m = median_time(runs);
            let over = |image| {
                let base = groups.get(&(pass, board, "c4bdd", image, threads));
                base.map_or("-".to_string(), |b| format!("{:.2}", m / median_time(b)))
            };
            let (lo, hi) = range(&runs.iter().map(|t| t.measure()).collect::<Vec<_>>());
            let wall = median(runs.iter().map(|t| t.wall_s).collect());
            let rss_kb = runs.iter().filter_map(|t| t.max_rss_kb).max();
            let peak = runs.iter().filter_map(|t| t.peak_nodes).max();
            let rss = rss_kb.map_or("-".to_string(), |kb| format!("{:.0}", kb as f64 * 1024.0 / 1e6));
            let per_node = match (rss_kb, peak) {
                (Some(kb), Some(n)) if n > 0 => format!("{:.1}", kb as f64 * 1024.0 / n as f64),
                _ => "-".to_string(),
            };
            let gc: Vec<f64> = runs.iter().filter_map(|t| t.gc_s).collect();
            let gc = if gc.is_empty() { "-".to_string() } else { format!("{:.2}", median(gc)) };
            let peak = peak.map_or("-".to_string(), |n| n.to_string());
            let mut counts =
                timings.iter().filter(|t| (t.pass, t.board.as_str()) == (pass, board)).map(|t| t.positions);
            let first = counts.next();
            let same = if counts.all(|p| Some(p) == first) { "yes" } else { "NO" };
            let _ = writeln!(
                s,
                "| {source} | {pass} | {board} | {program} | {image} | {threads} | {} | {m:.2} | {lo:.2} - {hi:.2} | {wall:.2} | {} | {} | {rss} | {peak} | {per_node} | {gc} | {same} |",
                runs.len(),
                over("in-place"),
                over(image),
            );
            rows += 1;
        }
    }
    Ok((rows > 0).then_some(s))
}

/// The runs of `timings` by pass, board, program, image and threads, in
/// that order.
pub fn runs_by_group(timings: &[Timing]) -> BTreeMap<Key<'_>, Vec<&Timing>> {
    let mut groups: BTreeMap<Key, Vec<&Timing>> = BTreeMap::new();
    for t in timings {
        groups.entry((t.pass, &t.board, &t.program, &t.image, t.threads)).or_default().push(t);
    }
    groups
}

/// Per program, image and threads, its median time of a count (CPU on one
/// thread, wall on more) against its largest peak RSS in bytes, a point a
/// board named by it, each (board, program, image, threads) from the newest
/// archive that records its peak RSS; empty when no archive does.
pub fn chart_series(results: &Path) -> Result<Vec<Series>> {
    let mut by_program: BTreeMap<(String, String, u32), Series> = BTreeMap::new();
    let mut drawn = std::collections::BTreeSet::new();
    for dir in timing_archives(results, "peers").iter().rev() {
        let timings: Vec<Timing> = read_rows(&dir.join("times.csv"))?;
        for (&(pass, board, program, image, threads), runs) in &runs_by_group(&timings) {
            if pass != Pass::Count {
                continue;
            }
            let Some(kb) = runs.iter().filter_map(|t| t.max_rss_kb).max() else { continue };
            if !drawn.insert((board.to_string(), program.to_string(), image.to_string(), threads)) {
                continue;
            }
            let key = (program.to_string(), image.to_string(), threads);
            let series = by_program.entry(key).or_insert_with(|| Series::new(program.to_string(), Vec::new()));
            series.points.push((kb as f64 * 1024.0, median_time(runs)));
            series.labels.push(board.to_string());
        }
    }
    // A program drawn in more than one way is named with its image (and
    // threads, timed on the wall).
    let mut ways: BTreeMap<String, usize> = BTreeMap::new();
    by_program.keys().for_each(|(program, _, _)| *ways.entry(program.clone()).or_default() += 1);
    for ((program, image, threads), series) in by_program.iter_mut() {
        if ways[program] > 1 {
            series.name = match threads {
                1 => format!("{program} {image}"),
                _ => format!("{program} {image} {threads} threads (wall)"),
            };
        }
    }
    Ok(by_program.into_values().collect())
}
