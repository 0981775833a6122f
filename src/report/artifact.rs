//! `plots/artifact.md`: c4bdd against the paper's C artifact on the same
//! machine, from the timings that `experiments/artifact/compare.sh` archives
//! under `results/artifact/<dir>/times.csv`.

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
    /// `PASS:ENCODING:BOARD[:LOG2]`, e.g. `solve:compressed:6x4`.
    pub job: String,
    /// `artifact` or `c4bdd`.
    pub program: String,
    pub threads: u32,
    pub order: String,
    /// Positions of all plies (a count's total; a solve's won + drawn + lost).
    pub positions: u128,
    pub wall_s: f64,
    pub cpu_s: f64,
    pub peak_rss_kb: u64,
    /// The time the program reports itself: the artifact's leaves out the
    /// initialisation of its preallocated tables.
    pub own_s: f64,
}

/// The table, or `None` when `results/artifact` holds no timings; a
/// malformed file is an error naming it.
pub fn markdown(results: &Path) -> Result<Option<String>> {
    let mut s = String::from(
        "c4bdd against the paper's C artifact on one machine: `experiments/artifact/compare.sh` builds the \
artifact as its makefile does and runs, round after round, the artifact, c4bdd in the artifact's variable order on \
one thread, and c4bdd's best configuration (two threads; a solve orders the columns centre-out), each alone on the \
machine, and archives each run's wall and CPU time and peak RSS (of the whole process, start-up and the artifact's \
preallocated tables included) under `results/artifact/`. The script stops if a count's total or a solve's won / \
drawn / lost table differs. Per job and program: the median wall time of the rounds with its range, the median CPU \
time, the median time the program reports itself (the artifact's leaves out the initialisation of its \
preallocated tables, which the machine's page faults can make cost more than the work), the median peak RSS, the \
artifact's median over this program's, of the wall times and of the own times (above 1: c4bdd is faster), and \
whether every run of the job found the same number of positions.\n\n\
| archive | job | program | threads | order | rounds | median wall s | min - max wall s | median CPU s | own s | peak RSS MB | artifact / this, wall | artifact / this, own | same positions |\n\
|---|---|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n",
    );
    let mut rows = 0;
    for dir in timing_archives(results, "artifact") {
        let timings: Vec<Timing> = read_rows(&dir.join("times.csv"))?;
        let mut groups: BTreeMap<(&str, &str, u32, &str), Vec<&Timing>> = BTreeMap::new();
        for t in &timings {
            groups.entry((&t.job, &t.program, t.threads, &t.order)).or_default().push(t);
        }
        let jobs = by_job(&timings);
        let ratio = |a: Option<f64>, this: f64| a.map_or("-".to_string(), |a| format!("{:.1}", a / this));
        let source = archive_name(results, &dir);
        for (&(job, program, threads, order), runs) in &groups {
            let walls: Vec<f64> = runs.iter().map(|t| t.wall_s).collect();
            let wall = median(walls.clone());
            let (lo, hi) = range(&walls);
            let cpu = median(runs.iter().map(|t| t.cpu_s).collect());
            let own = median(runs.iter().map(|t| t.own_s).collect());
            let rss_mb = median(runs.iter().map(|t| t.peak_rss_kb as f64 / 1024.0).collect());
            let of_job = &jobs[job];
            let (by_wall, by_own) = (ratio(of_job.artifact_wall, wall), ratio(of_job.artifact_own, own));
            let same = if of_job.same_positions { "yes" } else { "NO" };
            let _ = writeln!(
                s,
                "| {source} | {job} | {program} | {threads} | {order} | {} | {wall:.2} | {lo:.2} - {hi:.2} | {cpu:.2} \
| {own:.2} | {rss_mb:.0} | {by_wall} | {by_own} | {same} |",
                runs.len()
            );
            rows += 1;
        }
    }
    Ok((rows > 0).then_some(s))
}

/// What a job's rows share: the artifact's median wall and own times (if it
/// ran) and whether every run found the same positions.
struct Job {
    artifact_wall: Option<f64>,
    artifact_own: Option<f64>,
    same_positions: bool,
}

fn by_job(timings: &[Timing]) -> BTreeMap<&str, Job> {
    let mut jobs: BTreeMap<&str, Vec<&Timing>> = BTreeMap::new();
    for t in timings {
        jobs.entry(&t.job).or_default().push(t);
    }
    let artifact_median = |runs: &[&Timing], time: fn(&Timing) -> f64| {
        let times: Vec<f64> = runs.iter().filter(|t| t.program == "artifact").map(|t| time(t)).collect();
        (!times.is_empty()).then(|| median(times))
    };
    jobs.into_iter()
        .map(|(job, runs)| {
            let job_summary = Job {
                artifact_wall: artifact_median(&runs, |t| t.wall_s),
                artifact_own: artifact_median(&runs, |t| t.own_s),
                same_positions: runs.iter().all(|t| t.positions == runs[0].positions),
            };
            (job, job_summary)
        })
        .collect()
}
