//! The second speed round's goals, read from the archive (the top of
//! `plots/perf.md`): per goal its target, the figure the archive holds and
//! where that figure comes from. The ratios come from the latest archive of
//! each comparison script (programs side by side on one machine), the times
//! from the fastest finished run of the board, so that rerunning the scripts
//! and sweeps on any machine updates the table.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use super::data::{median, timing_archives, Archive};
use super::{artifact, oxidd};
use crate::encoding::EncodingKind;
use crate::experiment::record::read_rows;
use crate::experiment::Pass;

/// What a goal asks of its figure.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// A speed ratio (other program's time over c4bdd's) of at least this.
    RatioAtLeast(f64),
    /// A wall time of at most this many seconds.
    SecondsAtMost(f64),
}

impl Target {
    fn met(self, value: f64) -> bool {
        match self {
            Target::RatioAtLeast(t) => value >= t,
            Target::SecondsAtMost(t) => value <= t,
        }
    }

    fn show(self) -> String {
        match self {
            Target::RatioAtLeast(t) => format!(">= {t}x"),
            Target::SecondsAtMost(t) => format!("<= {t} s"),
        }
    }
}

/// A figure the archive holds for a goal.
#[derive(Debug, PartialEq)]
struct Reached {
    value: f64,
    /// The figures the value comes from, e.g. both programs' times.
    detail: String,
    /// The archive directory, relative to the results root.
    source: String,
}

struct Goal {
    name: String,
    target: Target,
    reached: Option<Reached>,
}

/// The goals' table, or `None` when the archive holds none of their figures.
pub fn markdown(archive: &Archive, results: &Path) -> Result<Option<String>> {
    let mut goals = Vec::new();
    for board in ["6x4", "6x5"] {
        let [wall, cpu] = artifact_solve(results, board)?;
        goals.push(Goal {
            name: format!("{board} solve: the artifact's wall time over c4bdd's best"),
            target: Target::RatioAtLeast(20.0),
            reached: wall,
        });
        goals.push(Goal {
            name: format!("{board} solve: the artifact's CPU time over c4bdd's on one thread"),
            target: Target::RatioAtLeast(10.0),
            reached: cpu,
        });
    }
    for board in ["7x4", "6x5"] {
        goals.push(Goal {
            name: format!("{board} count, one thread: oxidd's CPU time over c4bdd's"),
            target: Target::RatioAtLeast(2.0),
            reached: oxidd_count(results, board)?,
        });
    }
    goals.push(Goal {
        name: "7x6 count (compressed): the fastest finished run".into(),
        target: Target::SecondsAtMost(900.0),
        reached: fastest(archive, Pass::Count, "7x6"),
    });
    goals.push(Goal {
        name: "6x6 solve (compressed): the fastest finished run".into(),
        target: Target::SecondsAtMost(1800.0),
        reached: fastest(archive, Pass::Solve, "6x6"),
    });
    if goals.iter().all(|g| g.reached.is_none()) {
        return Ok(None);
    }
    let mut s = String::from(
        "## The second speed round's goals\n\n\
Each ratio is read from the latest archive of its comparison script (`experiments/artifact/compare.sh`, \
`experiments/oxidd/compare.sh`: the programs side by side on one machine, medians of the rounds), each time from \
the fastest finished run of the board in any sweep. docs/performance.md says what limits the goals not met.\n\n\
| goal | target | reached | met | from |\n|---|---|---|---|---|\n",
    );
    for g in &goals {
        let (value, met, detail, source) = match &g.reached {
            Some(r) => {
                let value = match g.target {
                    Target::RatioAtLeast(_) => format!("{:.1}x", r.value),
                    Target::SecondsAtMost(_) => format!("{:.0} s", r.value),
                };
                let met = if g.target.met(r.value) { "yes" } else { "no" };
                (value, met, format!(" ({})", r.detail), r.source.as_str())
            }
            None => ("-".into(), "not measured", String::new(), "-"),
        };
        let _ = writeln!(s, "| {} | {} | {value}{detail} | {met} | {source} |", g.name, g.target.show());
    }
    Ok(Some(s))
}

/// The latest artifact archive's solve of `board`, compressed: the
/// artifact's median wall time over the fastest c4bdd configuration's, and
/// its median CPU time over c4bdd's on one thread (the faster order).
fn artifact_solve(results: &Path, board: &str) -> Result<[Option<Reached>; 2]> {
    let job = format!("solve:compressed:{board}");
    for dir in timing_archives(results, "artifact").iter().rev() {
        let timings: Vec<artifact::Timing> = read_rows(&dir.join("times.csv"))?;
        let of_job: Vec<_> = timings.iter().filter(|t| t.job == job || t.job.starts_with(&format!("{job}:"))).collect();
        let median_of = |keep: &dyn Fn(&artifact::Timing) -> bool, time: fn(&artifact::Timing) -> f64| {
            let xs: Vec<f64> = of_job.iter().filter(|t| keep(t)).map(|t| time(t)).collect();
            (!xs.is_empty()).then(|| median(xs))
        };
        let is_artifact = |t: &artifact::Timing| t.program == "artifact";
        let (Some(a_wall), Some(a_cpu)) = (median_of(&is_artifact, |t| t.wall_s), median_of(&is_artifact, |t| t.cpu_s))
        else {
            continue;
        };
        let mut configs: Vec<(u32, &str)> =
            of_job.iter().filter(|t| t.program == "c4bdd").map(|t| (t.threads, t.order.as_str())).collect();
        configs.sort();
        configs.dedup();
        let of = |(threads, order): (u32, &str), time: fn(&artifact::Timing) -> f64| {
            median_of(&|t| t.program == "c4bdd" && t.threads == threads && t.order == order, time)
        };
        let source = dir.strip_prefix(results).unwrap_or(dir).display().to_string();
        let best = |keep: fn(u32) -> bool, time: fn(&artifact::Timing) -> f64, artifact_s: f64| {
            let fastest = configs
                .iter()
                .filter(|c| keep(c.0))
                .filter_map(|&c| of(c, time).map(|s| (s, c)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            fastest.map(|(s, (threads, order))| Reached {
                value: artifact_s / s,
                detail: format!("artifact {artifact_s:.1} s, c4bdd {s:.1} s on {threads} thread(s), {order}"),
                source: source.clone(),
            })
        };
        return Ok([best(|_| true, |t| t.wall_s, a_wall), best(|threads| threads == 1, |t| t.cpu_s, a_cpu)]);
    }
    Ok([None, None])
}

/// The latest oxidd archive's count of `board`: oxidd's median CPU time over
/// c4bdd's default (in-place image).
fn oxidd_count(results: &Path, board: &str) -> Result<Option<Reached>> {
    for dir in timing_archives(results, "oxidd").iter().rev() {
        let timings: Vec<oxidd::Timing> = read_rows(&dir.join("times.csv"))?;
        let cpu_of = |program: &str, image: &str| {
            let xs: Vec<f64> = timings
                .iter()
                .filter(|t| t.board == board && t.program == program && t.image == image)
                .map(|t| t.cpu_s)
                .collect();
            (!xs.is_empty()).then(|| median(xs))
        };
        if let (Some(o), Some(c)) = (cpu_of("oxidd", "monolithic"), cpu_of("c4bdd", "in-place")) {
            let source = dir.strip_prefix(results).unwrap_or(dir).display().to_string();
            let detail = format!("oxidd {o:.2} s, c4bdd {c:.2} s");
            return Ok(Some(Reached { value: o / c, detail, source }));
        }
    }
    Ok(None)
}

/// The fastest finished run of `pass` on `board` in the compressed encoding.
fn fastest(archive: &Archive, pass: Pass, board: &str) -> Option<Reached> {
    let run = archive.fastest(|r| {
        r.row.pass == pass && r.row.encoding == EncodingKind::Compressed && r.board().to_string() == board
    })?;
    let detail = format!(
        "{} thread(s), {} order, peak RSS {:.2} GB",
        run.row.threads.unwrap_or(1),
        run.row.order,
        run.row.peak_rss_bytes as f64 / 1e9
    );
    Some(Reached { value: run.row.time_s, detail, source: run.source.display().to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("times.csv"), text).unwrap();
    }

    #[test]
    fn ratios_come_from_the_latest_archive_with_the_job() {
        let root = tempfile::tempdir().unwrap();
        let header = "round,job,program,threads,order,positions,wall_s,cpu_s,peak_rss_kb,own_s\n";
        let rows = |art: f64, one: f64, two: f64| {
            format!(
                "{header}1,solve:compressed:6x4,artifact,1,column-wise,9,{art},{art},1,{art}\n\
1,solve:compressed:6x4,c4bdd,1,column-wise,9,{one},{one},1,{one}\n\
1,solve:compressed:6x4,c4bdd,2,center-out,9,{two},{},1,{two}\n",
                2.0 * two
            )
        };
        write(&root.path().join("artifact/2026-01-01-a"), &rows(80.0, 20.0, 8.0));
        write(&root.path().join("artifact/2026-01-02-b"), &rows(90.0, 18.0, 6.0));
        // The latest archive without the job is passed over.
        write(
            &root.path().join("artifact/2026-01-03-c"),
            &format!("{header}1,count:compressed:7x4,artifact,1,c,9,1,1,1,1\n"),
        );
        let [wall, cpu] = artifact_solve(root.path(), "6x4").unwrap();
        let (wall, cpu) = (wall.unwrap(), cpu.unwrap());
        assert_eq!(wall.value, 15.0);
        assert_eq!(wall.source, "artifact/2026-01-02-b");
        assert!(wall.detail.contains("on 2 thread(s), center-out"), "{}", wall.detail);
        assert_eq!(cpu.value, 5.0);
        assert!(cpu.detail.contains("on 1 thread(s), column-wise"), "{}", cpu.detail);
        let [none, _] = artifact_solve(root.path(), "6x5").unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn oxidd_ratio_is_of_the_medians() {
        let root = tempfile::tempdir().unwrap();
        let mut text = String::from("round,board,program,image,positions,wall_s,cpu_s\n");
        for (round, o, c) in [(1, 5.0, 2.0), (2, 6.0, 3.0), (3, 7.0, 2.5)] {
            let _ = writeln!(text, "{round},7x4,oxidd,monolithic,9,{o},{o}");
            let _ = writeln!(text, "{round},7x4,c4bdd,in-place,9,{c},{c}");
            let _ = writeln!(text, "{round},7x4,c4bdd,monolithic,9,1,1");
        }
        write(&root.path().join("oxidd/2026-01-01-a"), &text);
        let r = oxidd_count(root.path(), "7x4").unwrap().unwrap();
        assert_eq!(r.value, 6.0 / 2.5);
        assert_eq!(oxidd_count(root.path(), "6x5").unwrap(), None);
    }

    #[test]
    fn targets() {
        assert!(Target::RatioAtLeast(2.0).met(2.0) && !Target::RatioAtLeast(2.0).met(1.9));
        assert!(Target::SecondsAtMost(900.0).met(900.0) && !Target::SecondsAtMost(900.0).met(901.0));
    }
}
