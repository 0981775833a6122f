//! `plots/oxidd.md`: c4bdd against the oxidd crate, from the timings that
//! `experiments/peers/compare.sh` archives under `results/peers/<dir>/times.csv`
//! (and `results/oxidd/`, the archives of oxidd alone).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use super::data::{archive_name, median, range, timing_archives};
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
}

/// The table, or `None` when `results/oxidd` and `results/peers` hold no
/// timings; a malformed file is an error naming it.
pub fn markdown(results: &Path) -> Result<Option<String>> {
    let dirs = [timing_archives(results, "oxidd"), timing_archives(results, "peers")].concat();
    let mut s = String::from(
        "c4bdd against the oxidd crate (0.13, complement edges, one thread), counting the same boards in the \
compressed encoding, column-wise order, one terminal BDD per frame: `experiments/peers/compare.sh` runs c4bdd's \
default in-place image, c4bdd with the paper's monolithic relation over alternating frames (`--image monolithic`) \
and each package with that same strategy, round after round, and archives each run's wall and CPU time (of the \
whole process) under `results/peers/` (`results/oxidd/`: oxidd alone). Per board and program: the median CPU time of the rounds with its range, \
oxidd's median over it (above 1: c4bdd is faster), and whether every run of the board counted the same positions.\n\n\
| archive | board | program | image | rounds | median CPU s | min - max CPU s | oxidd / this | same positions |\n\
|---|---|---|---|---:|---:|---|---:|---|\n",
    );
    let mut rows = 0;
    for dir in &dirs {
        let timings: Vec<Timing> = read_rows(&dir.join("times.csv"))?;
        let groups = cpu_by_group(&timings);
        let source = archive_name(results, dir);
        for (&(board, program, image), cpu) in &groups {
            let oxidd = groups.get(&(board, "oxidd", "monolithic")).map(|c| median(c.clone()));
            let m = median(cpu.clone());
            let (lo, hi) = range(cpu);
            let ratio = oxidd.map_or("-".to_string(), |o| format!("{:.2}", o / m));
            let mut counts = timings.iter().filter(|t| t.board == board).map(|t| t.positions);
            let first = counts.next();
            let same = if counts.all(|p| Some(p) == first) { "yes" } else { "NO" };
            let _ = writeln!(
                s,
                "| {source} | {board} | {program} | {image} | {} | {m:.2} | {lo:.2} - {hi:.2} | {ratio} | {same} |",
                cpu.len()
            );
            rows += 1;
        }
    }
    Ok((rows > 0).then_some(s))
}

/// The CPU seconds of `timings` by board, program and image, in that order.
pub fn cpu_by_group(timings: &[Timing]) -> BTreeMap<(&str, &str, &str), Vec<f64>> {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<f64>> = BTreeMap::new();
    for t in timings {
        groups.entry((&t.board, &t.program, &t.image)).or_default().push(t.cpu_s);
    }
    groups
}
