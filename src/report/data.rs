//! What the report reads: every sweep directory under `results/`, and the
//! paper's tables. Nothing here computes a BDD.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::encoding::{EncodingKind, OrderSpec};
use crate::experiment::record::{read_rows, PlyRow, RunRow, Status};
use crate::experiment::Pass;
use crate::game::BoardSize;
use crate::search::stored::parts::Part;
use crate::search::{ImageStrategy, TerminalStrategy};

use super::trace::RunTrace;

/// The named order that arranges the variables as the paper's does on a
/// board (column-wise, or row-wise for the cellwise encoding on a board
/// taller than wide), if any.
pub fn papers_twin(board: BoardSize, encoding: EncodingKind) -> Option<String> {
    let vars = encoding.build(board).state_vars();
    let arrange = |o: &OrderSpec| o.arrange(&vars, board, encoding).ok();
    let paper = arrange(&OrderSpec::PAPER)?;
    [OrderSpec::COLUMN_WISE, OrderSpec::ROW_WISE]
        .into_iter()
        .find(|o| arrange(o).as_ref() == Some(&paper))
        .map(|o| o.name())
}

/// Whether `order` arranges the variables of `board` in `encoding` as the
/// paper's does: `paper`, or its twin (see [`papers_twin`]).
pub fn is_papers_order(order: &str, board: BoardSize, encoding: EncodingKind) -> bool {
    order == OrderSpec::PAPER.name() || papers_twin(board, encoding).as_deref() == Some(order)
}

/// What the runs of one configuration share within a sweep: the sweep, pass,
/// encoding, board, order, terminal and image strategy and image split (ordered so,
/// for tables grouped by pass and encoding). Threads, manager settings and
/// repetitions are left to each table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Configuration<'a> {
    pub source: &'a Path,
    pub pass: Pass,
    pub encoding: EncodingKind,
    pub board: BoardSize,
    pub order: &'a str,
    pub terminal: TerminalStrategy,
    pub image: ImageStrategy,
    pub image_split: u8,
}

impl Configuration<'_> {
    /// The image strategy, with `/split-K` under an image split (as in the run's key).
    pub fn image_label(&self) -> String {
        match self.image_split {
            0 => self.image.to_string(),
            k => format!("{}/split-{k}", self.image),
        }
    }
}

/// One run of the archive with its plies.
#[derive(Clone, Debug)]
pub struct Run {
    /// The sweep directory it came from, relative to the results root.
    pub source: PathBuf,
    pub row: RunRow,
    /// Plies in ply order.
    pub plies: Vec<PlyRow>,
}

impl Run {
    pub fn board(&self) -> BoardSize {
        BoardSize { width: self.row.width, height: self.row.height }
    }

    pub fn ok(&self) -> bool {
        self.row.status == Status::Ok
    }

    /// Whether the run's variables are in the paper's order (see
    /// [`is_papers_order`]): the runs compared with the paper's tables.
    pub fn papers_order(&self) -> bool {
        is_papers_order(&self.row.order, self.board(), self.row.encoding)
    }

    /// BDD operations on one thread (archives before the column: always).
    pub fn single_threaded(&self) -> bool {
        self.row.threads.unwrap_or(1) <= 1
    }

    /// The run's configuration (see [`Configuration`]).
    pub fn configuration(&self) -> Configuration<'_> {
        let row = &self.row;
        Configuration {
            source: &self.source,
            pass: row.pass,
            encoding: row.encoding,
            board: self.board(),
            order: &row.order,
            terminal: row.terminal,
            image: row.image,
            image_split: row.image_split.unwrap_or(0),
        }
    }
}

/// The rows of every `file` (a CSV) in the archive under `root`, each with
/// its directory relative to `root`.
fn rows_of<T: for<'de> Deserialize<'de>>(root: &Path, file: &str) -> Result<Vec<(PathBuf, T)>> {
    let mut out = Vec::new();
    for dir in archive_dirs(root, |d| d.join(file).is_file())? {
        let source = dir.strip_prefix(root).unwrap_or(&dir).to_path_buf();
        let rows: Vec<T> = read_rows(&dir.join(file))?;
        out.extend(rows.into_iter().map(|row| (source.clone(), row)));
    }
    Ok(out)
}

/// Every run found under a results root.
pub struct Archive {
    pub runs: Vec<Run>,
    /// All positions in one BDD: the runs that recorded `full_bdd_nodes`.
    pub full_bdds: Vec<FullBdd>,
    /// Retrograde passes that stopped above ply 0 (`solve --down-to`).
    pub partial_solves: Vec<PartialRun>,
    /// Runs with per-ply rows but no row in `runs.csv`: still going, or
    /// stopped and to be resumed from their checkpoints.
    pub unfinished: Vec<PartialRun>,
    /// Timed `best` searches (`results/best/`).
    pub searches: Vec<Search>,
    /// Solved plies split on their top variables (`parts.csv`, written by
    /// `c4bdd parts --csv`), each row with the directory it came from.
    pub splits: Vec<(PathBuf, Part)>,
}

/// The rows of a run that has not finished: a retrograde pass from the last
/// ply down to some ply (`solve --down-to K`: the rows of an archive's
/// `down-to.csv`, written by `solve --csv`; such a pass is run in resumed
/// stages from the console, with no `runs.csv`, under a run key ending in
/// `/down-to-K`), or a sweep's run with rows in `plies.csv` and none yet in
/// `runs.csv`.
#[derive(Clone, Debug)]
pub struct PartialRun {
    /// The directory it came from, relative to the results root.
    pub source: PathBuf,
    /// The run's key (`WxH/encoding/order/pass/terminal/...`).
    pub key: String,
    pub board: BoardSize,
    /// Its plies in ply order.
    pub plies: Vec<PlyRow>,
    /// What its directory records of its memory from outside the process
    /// (empty where it records nothing).
    pub trace: RunTrace,
}

impl PartialRun {
    /// The rows of run `key` (whose first part names the board), if it does.
    fn of(source: &Path, key: String, mut plies: Vec<PlyRow>) -> Option<PartialRun> {
        let board: BoardSize = key.split('/').next()?.parse().ok()?;
        plies.sort_by_key(|p| p.ply);
        Some(PartialRun { source: source.to_path_buf(), key, board, plies, trace: RunTrace::default() })
    }

    /// The partial pass of `key`'s board, if the key is one: it stops at a
    /// ply (`WxH/.../down-to-K`, followed by `/partitioned-CUT` and
    /// `/part-I-of-N` for a pass in parts).
    fn down_to(source: &Path, key: String, plies: Vec<PlyRow>) -> Option<PartialRun> {
        let stops = |seg: &str| seg.strip_prefix("down-to-").is_some_and(|k| k.parse::<u32>().is_ok());
        key.split('/').any(stops).then(|| Self::of(source, key, plies))?
    }

    /// The cells a pass in parts cut each ply on (`c4r1-c4r2-...`), if it
    /// is one.
    pub fn partitioned(&self) -> Option<&str> {
        self.key.split('/').find_map(|seg| seg.strip_prefix("partitioned-"))
    }

    /// Whether it is a count with termination (the key's pass and terminal
    /// parts).
    pub fn is_count(&self) -> bool {
        let parts: Vec<&str> = self.key.split('/').collect();
        parts.get(3) == Some(&"count") && parts.get(4).is_some_and(|t| *t != "off")
    }
}

/// All positions of a board in one BDD, as a run recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct FullBdd {
    /// The run's sweep directory, relative to the results root.
    pub source: PathBuf,
    pub board: String,
    pub encoding: String,
    pub nodes: u64,
    pub positions: u128,
}

/// A timed `best` search: a row of `results/best/<dir>/best.csv`, as
/// `experiments/best/run.sh` writes it (`status` ok or time-limit).
#[derive(Clone, Debug, Deserialize)]
pub struct SearchRow {
    /// `WxH`.
    pub board: String,
    /// The move string of the position, from the empty board.
    pub moves: String,
    pub all_moves: bool,
    pub status: Status,
    pub value: Option<String>,
    /// The best move's column, from 1.
    pub best: Option<u8>,
    pub nodes: Option<u64>,
    /// The search's own time.
    pub time_s: Option<f64>,
}

/// A timed search and the archive directory it came from.
#[derive(Clone, Debug)]
pub struct Search {
    /// Relative to the results root.
    pub source: PathBuf,
    pub row: SearchRow,
}

/// The archive directories for which `keep` holds, sorted: those of the
/// form `root/<experiment>/<dir>` (a whole results root), or `root/<dir>`
/// (one experiment's folder), or `root` itself (one archive).
pub fn archive_dirs(root: &Path, keep: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    let subdirs = |dir: &Path| -> Result<Vec<PathBuf>> {
        let entries =
            std::fs::read_dir(dir).with_context(|| format!("cannot read results directory {}", dir.display()))?;
        Ok(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
    };
    let mut out = Vec::new();
    if keep(root) {
        out.push(root.to_path_buf());
    }
    for dir in subdirs(root)? {
        if keep(&dir) {
            out.push(dir);
            continue;
        }
        out.extend(subdirs(&dir)?.into_iter().filter(|d| keep(d)));
    }
    out.sort();
    Ok(out)
}

/// Whether `dir` is a sweep's archive (a `runs.csv`) or a partial solve's (a
/// `down-to.csv`).
pub fn is_sweep_dir(dir: &Path) -> bool {
    dir.join("runs.csv").is_file() || dir.join("down-to.csv").is_file()
}

/// The per-ply rows of a CSV file, grouped by their run key, each group in
/// the file's order.
pub fn plies_by_run(path: &Path) -> Result<BTreeMap<String, Vec<PlyRow>>> {
    let mut by_run: BTreeMap<String, Vec<PlyRow>> = BTreeMap::new();
    for p in read_rows::<PlyRow>(path)? {
        by_run.entry(p.run.clone()).or_default().push(p);
    }
    Ok(by_run)
}

/// An archive directory's name relative to the results root, as the pages
/// print it.
pub fn archive_name(results: &Path, dir: &Path) -> String {
    dir.strip_prefix(results).unwrap_or(dir).display().to_string()
}

impl Archive {
    /// Read every sweep directory below `root`; a malformed CSV is an error
    /// naming the file.
    pub fn load(root: &Path) -> Result<Archive> {
        let (mut runs, mut partial_solves, mut unfinished) = (Vec::new(), Vec::new(), Vec::new());
        for dir in archive_dirs(root, is_sweep_dir)? {
            let (runs_path, down_to_path) = (dir.join("runs.csv"), dir.join("down-to.csv"));
            let rows: Vec<RunRow> = if runs_path.exists() { read_rows(&runs_path)? } else { Vec::new() };
            let plies_path = dir.join("plies.csv");
            let mut by_run = if plies_path.exists() { plies_by_run(&plies_path)? } else { BTreeMap::new() };
            let source = dir.strip_prefix(root).unwrap_or(&dir).to_path_buf();
            for mut row in rows {
                let mut plies = by_run.remove(&row.run).unwrap_or_default();
                plies.sort_by_key(|p| p.ply);
                // A run resumed in several processes: rows written before
                // they took the records' peaks hold the last process's only.
                let plies_peak = plies.iter().filter_map(|p| p.peak_rss_bytes).max().unwrap_or(0);
                row.peak_rss_bytes = row.peak_rss_bytes.max(plies_peak);
                runs.push(Run { source: source.clone(), row, plies });
            }
            unfinished.extend(by_run.into_iter().filter_map(|(key, p)| PartialRun::of(&source, key, p)));
            if down_to_path.exists() {
                let by_run = plies_by_run(&down_to_path)?;
                let trace = RunTrace::load(&dir)?;
                partial_solves.extend(
                    by_run
                        .into_iter()
                        .filter_map(|(key, p)| PartialRun::down_to(&source, key, p))
                        .map(|p| PartialRun { trace: trace.clone(), ..p }),
                );
            }
        }
        // A run that also built the BDD of all plies held it beside the
        // plies: it stands only for that figure, not among the plain runs.
        let (built, runs): (Vec<Run>, Vec<Run>) = runs.into_iter().partition(|r| r.row.full_bdd_nodes.is_some());
        let mut full_bdds: Vec<FullBdd> = built
            .iter()
            .filter_map(|r| {
                Some(FullBdd {
                    source: r.source.clone(),
                    board: r.board().to_string(),
                    encoding: r.row.encoding.to_string(),
                    nodes: r.row.full_bdd_nodes?,
                    positions: r.row.positions?,
                })
            })
            .collect();
        full_bdds.sort_by(|a, b| a.source.cmp(&b.source));
        let searches = rows_of(root, "best.csv")?.into_iter().map(|(source, row)| Search { source, row }).collect();
        let splits = rows_of(root, "parts.csv")?;
        Ok(Archive { runs, full_bdds, partial_solves, unfinished, searches, splits })
    }

    /// Finished single-threaded runs matching a filter (the paper's figures
    /// are single-threaded; runs on more threads appear in the perf table only).
    pub fn ok_runs<'a>(&'a self, keep: impl Fn(&Run) -> bool + 'a) -> impl Iterator<Item = &'a Run> + 'a {
        self.runs.iter().filter(move |r| r.ok() && r.single_threaded() && keep(r))
    }

    /// The fastest finished run, on any number of threads, matching a filter.
    pub fn fastest(&self, keep: impl Fn(&Run) -> bool) -> Option<&Run> {
        self.runs.iter().filter(|r| r.ok() && keep(r)).min_by(|a, b| a.row.time_s.total_cmp(&b.row.time_s))
    }

    /// The fastest finished single-threaded run matching a filter.
    pub fn best(&self, keep: impl Fn(&Run) -> bool) -> Option<&Run> {
        self.fastest(|r| r.single_threaded() && keep(r))
    }

    /// [`Archive::best`], or where no single-threaded run matches, the fastest
    /// finished run on more threads: for results that do not depend on the
    /// threads, such as a solve's plies (`plots/threads.md` checks that).
    pub fn best_any_threads(&self, keep: impl Fn(&Run) -> bool) -> Option<&Run> {
        self.best(&keep).or_else(|| self.fastest(keep))
    }

    /// The plies of `board` solved so far: those of a finished solve, else
    /// those of the partial pass that reached lowest; with the directory they
    /// came from.
    pub fn solved_plies(&self, board: BoardSize) -> Option<(&Path, &[PlyRow])> {
        self.plies_where(board, |_| true)
    }

    /// [`Archive::solved_plies`] of passes that solved every ply whole: their
    /// nodes are each ply's own, where a pass in parts adds up parts that
    /// share nodes.
    pub fn whole_plies(&self, board: BoardSize) -> Option<(&Path, &[PlyRow])> {
        self.plies_where(board, |p| p.partitioned().is_none())
    }

    fn plies_where(&self, board: BoardSize, keep: impl Fn(&PartialRun) -> bool) -> Option<(&Path, &[PlyRow])> {
        let whole = self.best_any_threads(|r| r.row.pass == Pass::Solve && r.board() == board);
        if let Some(run) = whole {
            return Some((&run.source, &run.plies));
        }
        self.partial_solve_where(board, keep).map(|p| (p.source.as_path(), &p.plies[..]))
    }

    /// The partial pass of `board` that reached lowest (the latest archive
    /// among equals).
    pub fn partial_solve(&self, board: BoardSize) -> Option<&PartialRun> {
        self.partial_solve_where(board, |_| true)
    }

    /// [`Archive::partial_solve`] if its rows came from `source` (the
    /// directory [`Archive::solved_plies`] names).
    pub fn partial_solve_from(&self, board: BoardSize, source: &Path) -> Option<&PartialRun> {
        self.partial_solve(board).filter(|p| p.source == source)
    }

    fn partial_solve_where(&self, board: BoardSize, keep: impl Fn(&PartialRun) -> bool) -> Option<&PartialRun> {
        let partial = self.partial_solves.iter().filter(|p| p.board == board && !p.plies.is_empty() && keep(p));
        partial.max_by_key(|p| p.plies.len())
    }

    /// Boards with a finished solve, on any number of threads.
    pub fn solved_boards(&self) -> BTreeSet<BoardSize> {
        self.runs.iter().filter(|r| r.ok() && r.row.pass == Pass::Solve).map(|r| r.board()).collect()
    }

    /// The unfinished count of `board` (with termination) that got furthest.
    pub fn counting(&self, board: BoardSize) -> Option<&PartialRun> {
        self.unfinished.iter().filter(|p| p.board == board && p.is_count()).max_by_key(|p| p.plies.len())
    }

    /// The status of the last unfinished single-threaded run matching a filter, if any.
    pub fn failure(&self, keep: impl Fn(&Run) -> bool) -> Option<&str> {
        self.runs.iter().rev().find(|r| !r.ok() && r.single_threaded() && keep(r)).map(|r| r.row.status.name())
    }
}

/// `runs` grouped by `key`, in key order, each group in the runs' order.
pub fn group_by<'a, K: Ord>(
    runs: impl IntoIterator<Item = &'a Run>,
    key: impl Fn(&'a Run) -> K,
) -> BTreeMap<K, Vec<&'a Run>> {
    let mut groups: BTreeMap<K, Vec<&Run>> = BTreeMap::new();
    for r in runs {
        groups.entry(key(r)).or_default().push(r);
    }
    groups
}

/// The smallest and largest of a list (`(f64::MAX, 0)` when empty).
pub fn range(xs: &[f64]) -> (f64, f64) {
    xs.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// The directories under `results/<kind>` that hold a `times.csv` (the
/// archives of a comparison script), oldest first (by the date of their
/// meta.txt, else by name).
pub fn timing_archives(results: &Path, kind: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(results.join(kind))
        .into_iter()
        .flatten()
        .flatten()
        .map(|d| d.path())
        .filter(|d| d.join("times.csv").is_file())
        .collect();
    dirs.sort_by_cached_key(|d| (taken_at(d), d.clone()));
    dirs
}

/// When an archive was taken: the `date:` line of its meta.txt (ISO 8601),
/// else its folder's name (which starts with the day), so that archives of
/// one day sort by the hour they were taken.
fn taken_at(dir: &Path) -> String {
    let meta = std::fs::read_to_string(dir.join("meta.txt")).unwrap_or_default();
    let date = meta.lines().find_map(|l| l.strip_prefix("date: ")).map(str::trim);
    date.map_or_else(|| dir.file_name().unwrap_or_default().to_string_lossy().into_owned(), str::to_string)
}

/// The median of a non-empty list.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// What the repetitions of one configuration measured: their number, the
/// median wall time with its range, the median CPU time (of the runs that
/// record it), GC share and peak RSS, and the most peak nodes of any.
pub struct Repetitions {
    pub runs: usize,
    pub median_s: f64,
    pub min_s: f64,
    pub max_s: f64,
    pub cpu_s: Option<f64>,
    pub gc_percent: f64,
    pub rss_mb: f64,
    pub peak_nodes: u64,
}

impl Repetitions {
    /// The summary of a non-empty list of runs.
    pub fn of(runs: &[&Run]) -> Repetitions {
        let of = |f: &dyn Fn(&Run) -> f64| median(runs.iter().map(|r| f(r)).collect());
        let times = runs.iter().map(|r| r.row.time_s);
        let cpu: Vec<f64> = runs.iter().filter_map(|r| r.row.cpu_s).collect();
        Repetitions {
            runs: runs.len(),
            median_s: of(&|r| r.row.time_s),
            min_s: times.clone().fold(f64::MAX, f64::min),
            max_s: times.fold(0.0, f64::max),
            cpu_s: (!cpu.is_empty()).then(|| median(cpu)),
            gc_percent: of(&|r| r.row.gc_share * 100.0),
            rss_mb: of(&|r| r.row.peak_rss_bytes as f64 / 1e6),
            peak_nodes: runs.iter().map(|r| r.row.peak_nodes).max().unwrap_or(0),
        }
    }
}

/// One row of the paper's Table 1.
#[derive(Clone, Debug, Deserialize)]
pub struct PaperTable1Row {
    pub width: u8,
    pub height: u8,
    pub positions: u128,
    pub time_s: f64,
    pub gc_percent: f64,
    pub ram_gb: f64,
    pub peak_nodes: u64,
}

/// One row of the paper's Table 2 (7x6).
#[derive(Clone, Debug, Deserialize)]
pub struct PaperTable2Row {
    pub ply: u32,
    pub won: u128,
    pub drawn: u128,
    pub lost: u128,
    pub total: u128,
    pub terminal: u128,
}

/// One strong solution the paper's text reports (`paper-solves.csv`).
#[derive(Clone, Debug, Deserialize)]
pub struct PaperSolve {
    pub board: String,
    pub time_s: f64,
    pub ram_gb: f64,
    pub disk_gb: Option<f64>,
    /// The ply whose won and lost BDDs take the most storage, their nodes and
    /// their size on disk.
    pub largest_ply: Option<u32>,
    pub largest_ply_nodes: Option<u64>,
    pub largest_ply_gb: Option<f64>,
}

/// The paper's tables.
pub struct Paper {
    pub table1: Vec<PaperTable1Row>,
    pub table2: Vec<PaperTable2Row>,
    pub solves: Vec<PaperSolve>,
}

impl Paper {
    /// Read `paper-table1.csv`, `paper-table2-7x6.csv` and `paper-solves.csv`
    /// from a directory.
    pub fn load(dir: &Path) -> Result<Paper> {
        Ok(Paper {
            table1: read_rows(&dir.join("paper-table1.csv"))?,
            table2: read_rows(&dir.join("paper-table2-7x6.csv"))?,
            solves: read_rows(&dir.join("paper-solves.csv"))?,
        })
    }

    /// The paper's solve of `board`, if its text reports one.
    pub fn solve(&self, board: BoardSize) -> Option<&PaperSolve> {
        self.solves.iter().find(|s| s.board == board.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_lists() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![7.0]), 7.0);
    }
}
