//! `plots/peers.md`: c4bdd beside other BDD packages (oxidd, BuDDy, CUDD),
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

/// One timed run of `compare.sh`.
#[derive(Clone, Debug, Deserialize)]
pub struct Timing {
    pub round: u32,
    pub board: String,
    pub program: String,
    pub image: String,
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

/// The archives of the comparison, oldest first.
pub fn archives(results: &Path) -> Vec<std::path::PathBuf> {
    [timing_archives(results, "oxidd"), timing_archives(results, "peers")].concat()
}

/// The table, or `None` when no archive holds timings; a malformed file is
/// an error naming it.
pub fn markdown(results: &Path) -> Result<Option<String>> {
    let mut s = String::from(
        "c4bdd beside other BDD packages (one thread), counting the same boards in the compressed encoding, \
column-wise order, one terminal BDD per frame: `experiments/peers/compare.sh` checks that each package builds \
c4bdd's BDDs (every ply's positions and nodes equal), then runs c4bdd's default in-place image, c4bdd with the \
paper's monolithic relation over alternating frames (`--image monolithic`) and each package with that same \
strategy, round after round, and archives each run's wall and CPU time and peak RSS (of the whole process) under \
`results/peers/` (`results/oxidd/`: oxidd alone). Per board and program: the median CPU time of the rounds with \
its range, that median over c4bdd's default and over c4bdd with the same strategy (above 1: c4bdd is faster), the \
largest peak RSS, the largest peak of nodes by the program's own count (c4bdd and CUDD: live nodes at their \
most; BuDDy and oxidd: the most nodes held at the end of a ply, garbage not yet collected included), the bytes of \
peak RSS per node of that peak, the median seconds of garbage collection where the program counts them, and \
whether every run of the board counted the same positions. `peers.png` draws each program's median CPU time \
against its peak RSS, per board, from the newest archive that has it.\n\n\
| archive | board | program | image | rounds | median CPU s | min - max CPU s | / c4bdd | / c4bdd monolithic | peak RSS MB | peak nodes | bytes / node | GC s | same positions |\n\
|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut rows = 0;
    for dir in archives(results) {
        let timings: Vec<Timing> = read_rows(&dir.join("times.csv"))?;
        let groups = cpu_by_group(&timings);
        let source = archive_name(results, &dir);
        for (&(board, program, image), cpu) in &groups {
            let m = median(cpu.clone());
            let over = |program, image| {
                let base = groups.get(&(board, program, image)).map(|c| median(c.clone()));
                base.map_or("-".to_string(), |b| format!("{:.2}", m / b))
            };
            let (lo, hi) = range(cpu);
            let runs = runs_of(&timings, (board, program, image));
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
            let mut counts = timings.iter().filter(|t| t.board == board).map(|t| t.positions);
            let first = counts.next();
            let same = if counts.all(|p| Some(p) == first) { "yes" } else { "NO" };
            let _ = writeln!(
                s,
                "| {source} | {board} | {program} | {image} | {} | {m:.2} | {lo:.2} - {hi:.2} | {} | {} | {rss} | {peak} | {per_node} | {gc} | {same} |",
                cpu.len(),
                over("c4bdd", "in-place"),
                over("c4bdd", "monolithic"),
            );
            rows += 1;
        }
    }
    Ok((rows > 0).then_some(s))
}

/// The runs of `timings` of one board, program and image.
fn runs_of<'a>(timings: &'a [Timing], key: (&str, &str, &str)) -> Vec<&'a Timing> {
    timings.iter().filter(|t| (t.board.as_str(), t.program.as_str(), t.image.as_str()) == key).collect()
}

/// The CPU seconds of `timings` by board, program and image, in that order.
pub fn cpu_by_group(timings: &[Timing]) -> BTreeMap<(&str, &str, &str), Vec<f64>> {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<f64>> = BTreeMap::new();
    for t in timings {
        groups.entry((&t.board, &t.program, &t.image)).or_default().push(t.cpu_s);
    }
    groups
}

/// Per program (and image), its median CPU seconds against its largest
/// peak RSS in bytes, a point a board named by it, each (board, program,
/// image) from the newest archive that records its peak RSS; empty when no
/// archive does.
pub fn chart_series(results: &Path) -> Result<Vec<Series>> {
    let mut by_program: BTreeMap<(String, String), Series> = BTreeMap::new();
    let mut drawn = std::collections::BTreeSet::new();
    for dir in timing_archives(results, "peers").iter().rev() {
        let timings: Vec<Timing> = read_rows(&dir.join("times.csv"))?;
        for (&(board, program, image), cpu) in &cpu_by_group(&timings) {
            let runs = runs_of(&timings, (board, program, image));
            let Some(kb) = runs.iter().filter_map(|t| t.max_rss_kb).max() else { continue };
            if !drawn.insert((board.to_string(), program.to_string(), image.to_string())) {
                continue;
            }
            let name = if program == "c4bdd" { format!("c4bdd {image}") } else { program.to_string() };
            let key = (program.to_string(), image.to_string());
            let series = by_program.entry(key).or_insert_with(|| Series::new(name, Vec::new()));
            series.points.push((kb as f64 * 1024.0, median(cpu.clone())));
            series.labels.push(board.to_string());
        }
    }
    Ok(by_program.into_values().collect())
}
