//! The speed goals (docs/performance.md, "Where the goals stand"), read from
//! the archive for the top of `plots/perf.md`: per goal its target, the figure the archive holds and
//! where that figure comes from. The ratios come from the latest archive of
//! each comparison script (programs side by side on one machine), the times
//! from the fastest finished run of the board, so that rerunning the scripts
//! and sweeps on any machine updates the table.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::BufRead as _;
use std::path::Path;

use anyhow::Result;

use super::data::{
    archive_dirs, archive_name, is_papers_order, is_sweep_dir, median, plies_by_run, timing_archives, Archive,
};
use super::{artifact, peers};
use crate::encoding::EncodingKind;
use crate::experiment::record::read_rows;
use crate::experiment::Pass;
use crate::game::BoardSize;
use crate::search::TerminalStrategy;

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
        reached: fastest(archive, results, Pass::Count, "7x6")?,
    });
    goals.push(Goal {
        name: "6x6 solve (compressed): the fastest finished run".into(),
        target: Target::SecondsAtMost(1800.0),
        reached: fastest(archive, results, Pass::Solve, "6x6")?,
    });
    if goals.iter().all(|g| g.reached.is_none()) {
        return Ok(None);
    }
    let mut s = String::from(
        "## The speed goals\n\n\
Each ratio is read from the latest archive of its comparison script (`experiments/artifact/compare.sh`, \
`experiments/peers/compare.sh`: the programs side by side on one machine, medians of the rounds), each time from \
the fastest finished run of the board, in a sweep or archived from a single command's `--csv`. docs/performance.md says what limits the goals not met.\n\n\
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
    let is_job = |j: &str| j == job || j.strip_prefix(job.as_str()).is_some_and(|rest| rest.starts_with(':'));
    for dir in timing_archives(results, "artifact").iter().rev() {
        let timings: Vec<artifact::Timing> = read_rows(&dir.join("times.csv"))?;
        let mut by_config: BTreeMap<(&str, u32, &str), Vec<&artifact::Timing>> = BTreeMap::new();
        for t in timings.iter().filter(|t| is_job(&t.job)) {
            by_config.entry((&t.program, t.threads, &t.order)).or_default().push(t);
        }
        let medians = |runs: &[&artifact::Timing]| {
            [median(runs.iter().map(|t| t.wall_s).collect()), median(runs.iter().map(|t| t.cpu_s).collect())]
        };
        let artifact_runs: Vec<_> = timings.iter().filter(|t| is_job(&t.job) && t.program == "artifact").collect();
        if artifact_runs.is_empty() {
            continue;
        }
        let theirs = medians(&artifact_runs);
        let source = archive_name(results, dir);
        // The fastest c4bdd configuration by time `k` (0 wall, 1 CPU) among those `keep` lets in.
        let best = |k: usize, keep: fn(u32) -> bool| {
            let ours = by_config.iter().filter(|((program, threads, _), _)| *program == "c4bdd" && keep(*threads));
            let (s, threads, order) = ours
                .map(|((_, threads, order), runs)| (medians(runs)[k], *threads, *order))
                .min_by(|a, b| a.0.total_cmp(&b.0))?;
            Some(Reached {
                value: theirs[k] / s,
                detail: format!("artifact {:.1} s, c4bdd {s:.1} s on {threads} thread(s), {order}", theirs[k]),
                source: source.clone(),
            })
        };
        return Ok([best(0, |_| true), best(1, |threads| threads == 1)]);
    }
    Ok([None, None])
}

/// The latest archive's count of `board` with oxidd (`results/peers/`, else `results/oxidd/`): oxidd's median CPU time over
/// c4bdd's default (in-place image).
fn oxidd_count(results: &Path, board: &str) -> Result<Option<Reached>> {
    for dir in peers::archives(results).iter().rev() {
        let timings: Vec<peers::Timing> = read_rows(&dir.join("times.csv"))?;
        let groups = peers::runs_by_group(&timings);
        let cpu_of = |program, image| {
            groups
                .get(&(Pass::Count, board, program, image, 1))
                .map(|runs| median(runs.iter().map(|t| t.cpu_s).collect()))
        };
        if let (Some(o), Some(c)) = (cpu_of("oxidd", "monolithic"), cpu_of("c4bdd", "in-place")) {
            let detail = format!("oxidd {o:.2} s, c4bdd {c:.2} s");
            return Ok(Some(Reached { value: o / c, detail, source: archive_name(results, dir) }));
        }
    }
    Ok(None)
}

/// The fastest finished run of `pass` on `board` in the compressed encoding
/// and the paper's order (see [`is_papers_order`]), terminal positions
/// handled (a run without termination counts other positions): of a sweep, or
/// of a single command archived with its `--csv` plies alone.
fn fastest(archive: &Archive, results: &Path, pass: Pass, board: &str) -> Result<Option<Reached>> {
    let sweep = archive
        .fastest(|r| {
            let row = &r.row;
            row.pass == pass
                && row.encoding == EncodingKind::Compressed
                && row.terminal != TerminalStrategy::Off
                && r.board().to_string() == board
                && r.papers_order()
        })
        .map(|run| Reached {
            value: run.row.time_s,
            detail: format!(
                "{} thread(s), {} order, peak RSS {:.2} GB",
                run.row.threads.unwrap_or(1),
                run.row.order,
                run.row.peak_rss_bytes as f64 / 1e9
            ),
            source: run.source.display().to_string(),
        });
    // A run key reads board/encoding/order/pass/terminal/...
    let (encoding, pass, off) =
        (EncodingKind::Compressed.to_string(), pass.to_string(), TerminalStrategy::Off.to_string());
    let size: Option<BoardSize> = board.parse().ok();
    let papers = |order: &str| size.is_some_and(|s| is_papers_order(order, s, EncodingKind::Compressed));
    let command = command_runs(results)?
        .into_iter()
        .filter(|c| {
            let parts: Vec<&str> = c.key.split('/').collect();
            parts.len() > 4
                && parts[0] == board
                && parts[1] == encoding
                && papers(parts[2])
                && parts[3] == pass
                && parts[4] != off
        })
        .map(|c| Reached {
            value: c.time_s,
            detail: format!("{}, peak RSS {:.2} GB", c.key, c.peak_rss_bytes as f64 / 1e9),
            source: c.source,
        });
    Ok(sweep.into_iter().chain(command).min_by(|a, b| a.value.total_cmp(&b.value)))
}

/// A run of a single command (`c4bdd count` or `solve` with `--csv`).
struct CommandRun {
    source: String,
    /// The run's key, e.g. `7x6/compressed/column-wise/count/whole/in-place/2-threads`.
    key: String,
    /// The plies' times summed: the time the command reports.
    time_s: f64,
    peak_rss_bytes: u64,
}

/// The complete runs (every ply of the board present) of the archive
/// directories that hold a `plies.csv` in the per-ply layout of `--csv` (its
/// header starts with the run key) and are not a sweep's.
fn command_runs(results: &Path) -> Result<Vec<CommandRun>> {
    let mut out = Vec::new();
    for dir in archive_dirs(results, |d| d.join("plies.csv").is_file() && !is_sweep_dir(d))? {
        let plies_path = dir.join("plies.csv");
        // Older commands wrote other per-ply layouts (no run key): not read.
        let mut header = String::new();
        std::io::BufReader::new(std::fs::File::open(&plies_path)?).read_line(&mut header)?;
        if !header.starts_with("run,") {
            continue;
        }
        for (key, plies) in plies_by_run(&plies_path)? {
            let cells = key.split('/').next().and_then(|b| b.parse::<BoardSize>().ok()).map(|b| b.cells());
            let distinct: BTreeSet<u32> = plies.iter().map(|p| p.ply).collect();
            if cells.is_none_or(|c| distinct != (0..=c).collect()) {
                continue;
            }
            out.push(CommandRun {
                source: archive_name(results, &dir),
                key,
                time_s: plies.iter().map(|p| p.time_s).sum(),
                peak_rss_bytes: plies.iter().filter_map(|p| p.peak_rss_bytes).max().unwrap_or(0),
            });
        }
    }
    Ok(out)
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
    fn a_command_archive_counts_when_all_its_plies_are_there() {
        let root = tempfile::tempdir().unwrap();
        let header = "run,ply,states,bdd_nodes,live_nodes,time_s,won,drawn,lost,terminal,rss_bytes,peak_rss_bytes,\
terminal_s,image_s,count_s,gc_s,split_s\n";
        let plies = |key: &str, last: u32, time: f64| {
            (0..=last)
                .map(|p| format!("{key},{p},1,1,0,{time},,,,,{},{},0,0,0,0,0\n", 10 * p, 20 * p))
                .collect::<String>()
        };
        let whole = "2x2/compressed/column-wise/count/whole/in-place/2-threads";
        let cut = "2x2/compressed/center-out/count/whole/in-place";
        let off = "2x2/compressed/column-wise/count/off/in-place";
        let dir = root.path().join("count_2x2/2026-01-01-a");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("plies.csv"),
            format!("{header}{}{}{}", plies(whole, 4, 1.5), plies(cut, 3, 0.1), plies(off, 4, 0.1)),
        )
        .unwrap();
        // An older layout, without the run key, is passed over.
        let old = root.path().join("full_bdd/2026-01-01-b");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("plies.csv"), "width,height,ply,states\n2,2,0,1\n").unwrap();
        let runs = command_runs(root.path()).unwrap();
        assert_eq!(runs.len(), 2, "the run without its last ply is left out");
        assert_eq!((runs[1].key.as_str(), runs[1].time_s, runs[1].peak_rss_bytes), (whole, 7.5, 80));
        let archive = Archive::load(root.path()).unwrap();
        let r = fastest(&archive, root.path(), Pass::Count, "2x2").unwrap().unwrap();
        // The faster run without termination counts other positions: not this goal's.
        assert_eq!((r.value, r.source.as_str()), (7.5, "count_2x2/2026-01-01-a"));
        assert_eq!(fastest(&archive, root.path(), Pass::Solve, "2x2").unwrap(), None);
    }

    #[test]
    fn targets() {
        assert!(Target::RatioAtLeast(2.0).met(2.0) && !Target::RatioAtLeast(2.0).met(1.9));
        assert!(Target::SecondsAtMost(900.0).met(900.0) && !Target::SecondsAtMost(900.0).met(901.0));
    }
}
