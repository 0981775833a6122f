//! `c4bdd report`: the paper's tables and figures, regenerated from the
//! results archive alone (it computes no BDDs), with ours beside the paper's,
//! and `paper-repro.md`, the claim-by-claim account.

pub mod artifact;
pub mod data;
mod goals;
pub mod memory;
pub mod orders;
pub mod peers;
pub mod perf;
pub mod plots;
mod projection;
pub mod settings;
pub mod tables;
pub mod threads;
pub mod trace;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::encoding::EncodingKind;
use crate::experiment::record::PlyRow;
use crate::experiment::Pass;
use crate::game::BoardSize;
use crate::search::TerminalStrategy;
use data::{Archive, Paper, Run};
use plots::{Axes, Chart, Series};

/// Inputs and outputs of a report.
pub struct ReportOptions {
    pub results: PathBuf,
    pub reference: PathBuf,
    pub plots: PathBuf,
    /// Where paper-repro.md goes; `None` for the report of one
    /// experiment's archives (tables and charts only).
    pub repro: Option<PathBuf>,
    /// Boards to draw the per-ply figures for (default: 7x6, 7x7 and every
    /// board of at least 20 cells that has the runs a figure needs).
    pub boards: Vec<BoardSize>,
}

/// Files written, with the one-line description used in plots/README.md.
pub struct Written {
    /// One entry a table or chart: its files (comma separated, such as a
    /// chart's PNG and SVG) and what they hold.
    pub files: Vec<(String, String)>,
}

impl Written {
    /// How many files were written into plots/: every file of every entry
    /// and plots/README.md.
    pub fn file_count(&self) -> usize {
        self.files.iter().map(|(names, _)| names.split(", ").count()).sum::<usize>() + 1
    }
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Per-ply count runs of a board: the fastest finished one for an encoding
/// and terminal strategy, preferring column order (the paper's Figure 2), and
/// one thread where a run on one thread exists (a ply's states and nodes do
/// not depend on the threads).
fn ply_run(archive: &Archive, board: BoardSize, encoding: EncodingKind, terminal: TerminalStrategy) -> Option<&Run> {
    ply_run_where(archive, board, encoding, terminal, |_| true)
}

/// [`ply_run`] among the runs that also satisfy `keep`.
fn ply_run_where(
    archive: &Archive,
    board: BoardSize,
    encoding: EncodingKind,
    terminal: TerminalStrategy,
    keep: impl Fn(&Run) -> bool,
) -> Option<&Run> {
    let matches = |r: &Run, order: &str| {
        r.board() == board
            && r.row.pass == Pass::Count
            && r.row.encoding == encoding
            && r.row.terminal == terminal
            && r.row.order == order
            && !r.plies.is_empty()
            && keep(r)
    };
    let on = |order: &str| archive.best_any_threads(|r| matches(r, order));
    on("column-wise").or_else(|| on("paper"))
}

/// A series of `y` over the plies of `run`.
fn series(name: String, run: &Run, y: impl Fn(&PlyRow) -> f64) -> Series {
    plies_series(name, &run.plies, y)
}

/// A series of `y` over `plies`, leaving out points at zero (log axes).
fn plies_series(name: String, plies: &[PlyRow], y: impl Fn(&PlyRow) -> f64) -> Series {
    Series::new(name, plies.iter().map(|p| (p.ply as f64, y(p))).filter(|&(_, v)| v > 0.0).collect())
}

/// The files written so far, with what each holds (for plots/README.md).
struct Listing<'a> {
    plots: &'a Path,
    files: Vec<(String, String)>,
}

impl Listing<'_> {
    fn note(&mut self, file: String, what: &str) {
        self.files.push((file, what.to_string()));
    }

    /// Draw a chart as `name`.png and `name`.svg and list them.
    fn chart(&mut self, name: &str, chart: &Chart, what: &str) -> Result<()> {
        plots::write(&self.plots.join(name), chart)?;
        self.note(format!("{name}.png, {name}.svg"), what);
        Ok(())
    }
}

/// Write every table, figure and (when asked) paper-repro.md.
pub fn report(opts: &ReportOptions) -> Result<Written> {
    let archive = Archive::load(&opts.results)?;
    let paper = Paper::load(&opts.reference)?;
    std::fs::create_dir_all(&opts.plots).with_context(|| format!("cannot create {}", opts.plots.display()))?;
    let mut out = Listing { plots: &opts.plots, files: Vec::new() };
    let t1 = tables::table1(&archive, &paper);
    table1_files(&mut out, &t1)?;
    let solved = archive.solved_boards();
    table2_files(&mut out, &archive, &paper, &solved)?;
    let figure2_boards = per_ply_figures(&mut out, &archive, &opts.boards)?;
    order_charts(&mut out, &archive)?;
    let orders_tried = orders::tried(&archive, &opts.results)?;
    pages(&mut out, &archive, &opts.results, &orders_tried)?;
    table1_charts(&mut out, &paper, &t1)?;
    peers_chart(&mut out, &opts.results)?;
    let mut readme = match &opts.repro {
        Some(_) => String::from(
            "# plots/\n\nGenerated by `c4bdd report` from the CSVs under results/ (nothing here is edited by hand):\n\n\
```sh\ncargo run --release -- report\n```\n\nPer-ply figures for other boards: `cargo run --release -- report --board 6x5`.",
        ),
        None => format!(
            "# {plots}\n\nThe report of the archives under {results}, written by `c4bdd sweep SPEC --report` after each \
sweep of that spec (nothing here is edited by hand). The project's whole report, plots/ and paper-repro.md, is \
written by `c4bdd report`.",
            plots = opts.plots.display(),
            results = opts.results.display()
        ),
    };
    readme += "\n\n| file | what |\n|---|---|\n";
    for (file, what) in &out.files {
        let _ = writeln!(readme, "| {file} | {what} |");
    }
    write_file(&opts.plots.join("README.md"), &readme)?;
    if let Some(path) = &opts.repro {
        write_file(path, &repro::paper_repro(&archive, &paper, &t1, &solved, &figure2_boards, &orders_tried))?;
    }
    Ok(Written { files: out.files })
}

/// Table 1 as markdown and CSV.
fn table1_files(out: &mut Listing, t1: &[tables::Table1Row]) -> Result<()> {
    write_file(&out.plots.join("table1.md"), &tables::table1_markdown(t1))?;
    let mut w = csv::Writer::from_path(out.plots.join("table1.csv"))?;
    for row in t1 {
        w.serialize(row)?;
    }
    w.flush()?;
    out.note("table1.md".into(), "Table 1: the paper's positions, time, GC share, RAM and peak nodes beside ours");
    out.note("table1.csv".into(), "the same as CSV");
    Ok(())
}

/// Table 2 for every solved board, and 7x6 beside the paper.
fn table2_files(out: &mut Listing, archive: &Archive, paper: &Paper, solved: &BTreeSet<BoardSize>) -> Result<()> {
    for board in solved {
        let run = archive.best_any_threads(|r| r.row.pass == Pass::Solve && r.board() == *board).expect("a solved run");
        let name = format!("table2-{board}.md");
        write_file(&out.plots.join(&name), &tables::table2_markdown(run))?;
        out.note(name, "Table 2 form (won/drawn/lost/total/terminal per ply) of a board we solved");
    }
    // Only an archive with 7x6 rows has anything to set beside the paper's.
    if let Some((source, ours76)) = archive.solved_plies(B76) {
        write_file(&out.plots.join("table2-7x6-paper.md"), &tables::table2_7x6_markdown(paper, Some(ours76)))?;
        out.note("table2-7x6-paper.md".into(), "the paper's Table 2 (7x6) beside our plies");
        let trace = archive.partial_solve_from(B76, source).map(|p| &p.trace);
        solve_per_ply_7x6(out, ours76, trace)?;
    }
    Ok(())
}

/// The time and the memory of each 7x6 ply solved: its seconds, and its
/// process's peak RSS beside the nodes of its won and lost sets and, where
/// the run's directory traced it, the peak of all its processes together
/// during each ply solved in parts.
fn solve_per_ply_7x6(out: &mut Listing, plies: &[PlyRow], trace: Option<&trace::RunTrace>) -> Result<()> {
    let time = Chart {
        title: "7x6 solve: time per ply",
        x_label: "ply",
        y_label: "seconds",
        axes: Axes::PlyLog,
        series: vec![plies_series("time of the ply".into(), plies, |p| p.time_s)],
    };
    out.chart("table2-7x6-time", &time, "the time of each 7x6 ply solved (the rows of plots/table2-7x6-paper.md)")?;
    let mut memory = Chart {
        title: "7x6 solve: memory per ply",
        x_label: "ply",
        y_label: "bytes",
        axes: Axes::PlyLog,
        series: vec![
            plies_series("peak RSS of the ply's process so far".into(), plies, |p| {
                p.peak_rss_bytes.unwrap_or(0) as f64
            }),
            plies_series("won and lost nodes x 8 bytes".into(), plies, |p| p.bdd_nodes as f64 * 8.0),
        ],
    };
    let traced = trace.map(|t| t.ply_peaks()).unwrap_or_default();
    if !traced.is_empty() {
        let points = traced.iter().map(|(&ply, &bytes)| (ply as f64, bytes as f64)).collect();
        memory.series.push(Series::new("RSS of all the run's processes (trace, every 30 s)", points));
    }
    out.chart("table2-7x6-memory", &memory, "the peak RSS of each 7x6 ply solved, beside its won and lost sets' nodes")
}

/// The paper's board.
const B76: BoardSize = BoardSize { width: 7, height: 6 };
/// The largest board of the paper's Table 1, whose per-ply figure is drawn
/// like 7x6's.
const B77: BoardSize = BoardSize { width: 7, height: 7 };

/// Figure 2 (a and b) and the memory per ply, for `boards` (default: 7x6,
/// 7x7 and every board of at least 20 cells counted without termination);
/// returns the boards that got Figure 2a with and without termination.
fn per_ply_figures(out: &mut Listing, archive: &Archive, boards: &[BoardSize]) -> Result<Vec<BoardSize>> {
    let boards: Vec<BoardSize> = if boards.is_empty() {
        let mut set: BTreeSet<BoardSize> = archive
            .ok_runs(|r| r.board().cells() >= 20 && r.row.terminal == TerminalStrategy::Off && !r.plies.is_empty())
            .map(|r| r.board())
            .collect();
        set.extend([B76, B77]);
        set.into_iter().collect()
    } else {
        boards.to_vec()
    };
    let mut figure2_boards = Vec::new();
    for board in boards {
        if figure2a(out, archive, board)? {
            figure2_boards.push(board);
        }
        figure2b(out, archive, board)?;
        memory_per_ply(out, archive, board)?;
    }
    Ok(figure2_boards)
}

/// Figure 2a: states and nodes per ply, with and without termination, in
/// the first encoding that has both, or else with termination only (in the
/// first encoding that has it), or else the finished plies of a count still
/// running; whether it has both.
fn figure2a(out: &mut Listing, archive: &Archive, board: BoardSize) -> Result<bool> {
    let (whole, off) = (TerminalStrategy::Whole, TerminalStrategy::Off);
    let encodings = [EncodingKind::Cellwise, EncodingKind::Compressed];
    let both = encodings.into_iter().find_map(|e| {
        let on = ply_run(archive, board, e, whole)?;
        Some((e, on, Some(ply_run(archive, board, e, off)?)))
    });
    let runs = both.or_else(|| encodings.into_iter().find_map(|e| Some((e, ply_run(archive, board, e, whole)?, None))));
    // A finished count, or else the finished plies of one still running
    // (`counted_to`: the last of them).
    let (encoding, on, off, counted_to) = match runs {
        Some((enc, on, off)) => (enc.to_string(), &on.plies, off.map(|r| &r.plies), None),
        None => {
            let Some(run) = archive.counting(board) else { return Ok(false) };
            let Some(last) = run.plies.last() else { return Ok(false) };
            let encoding = run.key.split('/').nth(1).unwrap_or("?").to_string();
            (encoding, &run.plies, None, Some(last.ply))
        }
    };
    let running = counted_to.map_or(String::new(), |last| format!("; counting, plies 0..{last} of {}", board.cells()));
    let title = format!("{board}: states and BDD nodes per ply ({encoding} encoding{running})");
    let mut series_list = vec![
        plies_series("states".into(), on, |p| p.states as f64),
        plies_series("BDD nodes".into(), on, |p| p.bdd_nodes as f64),
    ];
    if let Some(off) = off {
        series_list.insert(1, plies_series("states, no termination".into(), off, |p| p.states as f64));
        series_list.push(plies_series("BDD nodes, no termination".into(), off, |p| p.bdd_nodes as f64));
    }
    let what = match (off, counted_to) {
        (Some(_), _) => "Figure 2a: states and BDD nodes per ply, with and without termination",
        (None, None) => "Figure 2a's form: states and BDD nodes per ply",
        (None, Some(_)) => "Figure 2a's form for a count still running: states and BDD nodes of its finished plies",
    };
    let chart = Chart { title: &title, x_label: "ply", y_label: "count", axes: Axes::PlyLog, series: series_list };
    out.chart(&format!("figure2a-{board}"), &chart, what)?;
    Ok(off.is_some())
}

/// Figure 2b: nodes per ply in both encodings.
fn figure2b(out: &mut Listing, archive: &Archive, board: BoardSize) -> Result<()> {
    let whole = TerminalStrategy::Whole;
    let (Some(std), Some(comp)) = (
        ply_run(archive, board, EncodingKind::Cellwise, whole),
        ply_run(archive, board, EncodingKind::Compressed, whole),
    ) else {
        return Ok(());
    };
    let name = format!("figure2b-{board}");
    let title = format!("{board}: BDD nodes per ply, compressed vs standard encoding");
    let chart = Chart {
        title: &title,
        x_label: "ply",
        y_label: "BDD nodes",
        axes: Axes::PlyLog,
        series: vec![
            series("standard (cellwise)".into(), std, |p| p.bdd_nodes as f64),
            series("compressed".into(), comp, |p| p.bdd_nodes as f64),
        ],
    };
    out.chart(&name, &chart, "Figure 2b: BDD nodes per ply, compressed versus standard encoding")
}

/// Resident memory per ply of a count, per encoding.
fn memory_per_ply(out: &mut Listing, archive: &Archive, board: BoardSize) -> Result<()> {
    for enc in [EncodingKind::Compressed, EncodingKind::Cellwise] {
        let has_memory = |r: &Run| r.plies.iter().any(|p| p.rss_bytes.is_some());
        let Some(run) = ply_run_where(archive, board, enc, TerminalStrategy::Whole, has_memory) else { continue };
        let name = format!("memory-plies-{board}-{enc}");
        let title = format!("{board}: memory per ply ({enc} encoding, {})", run.row.order);
        let chart = Chart {
            title: &title,
            x_label: "ply",
            y_label: "bytes",
            axes: Axes::PlyLog,
            series: vec![
                series("resident at the ply's end".into(), run, |p| p.rss_bytes.unwrap_or(0) as f64),
                series("peak resident so far".into(), run, |p| p.peak_rss_bytes.unwrap_or(0) as f64),
                series("live nodes x 16 bytes".into(), run, |p| p.live_nodes as f64 * 16.0),
            ],
        };
        out.chart(&name, &chart, "resident memory per ply of a count run, beside its live nodes' bytes")?;
    }
    Ok(())
}

/// Variable orders: nodes per ply on every board with count runs of three
/// orders or more; an order with no finished run shows the plies of its run
/// that a limit stopped.
fn order_charts(out: &mut Listing, archive: &Archive) -> Result<()> {
    let counted = |r: &Run, board: BoardSize| {
        r.board() == board && r.row.pass == Pass::Count && r.row.terminal == TerminalStrategy::Whole
    };
    // Runs on any number of threads: the nodes do not depend on them.
    let counts = |board: BoardSize| archive.runs.iter().filter(move |r| counted(r, board) && !r.plies.is_empty());
    let order_boards: BTreeSet<BoardSize> = archive.ok_runs(|r| r.row.pass == Pass::Count).map(|r| r.board()).collect();
    for board in order_boards {
        let mut keys: Vec<(EncodingKind, String)> =
            counts(board).map(|r| (r.row.encoding, r.row.order.clone())).collect();
        keys.sort();
        keys.dedup();
        let orders: BTreeSet<&String> = keys.iter().map(|(_, o)| o).collect();
        if orders.len() < 3 {
            continue;
        }
        let series = keys
            .iter()
            .filter_map(|(enc, order)| {
                let this = |r: &Run| counted(r, board) && r.row.encoding == *enc && &r.row.order == order;
                let label = format!("{enc}, {order}");
                if let Some(run) = archive.best_any_threads(this) {
                    return Some(self::series(label, run, |p| p.bdd_nodes as f64));
                }
                let stopped = counts(board).filter(|r| this(r)).max_by_key(|r| r.plies.len())?;
                let label = format!("{label} ({})", stopped.row.status);
                Some(self::series(label, stopped, |p| p.bdd_nodes as f64))
            })
            .collect();
        let name = format!("orders-{board}");
        let title = format!("{board}: BDD nodes per ply for each variable order");
        let chart = Chart { title: &title, x_label: "ply", y_label: "BDD nodes", axes: Axes::PlyLog, series };
        out.chart(&name, &chart, "BDD nodes per ply for every variable order run on the board")?;
    }
    Ok(())
}

/// The markdown pages, each written when the archive has its runs.
fn pages(out: &mut Listing, archive: &Archive, results: &Path, orders_tried: &[orders::OrderCost]) -> Result<()> {
    let pages = [
        (
            "threads.md",
            threads::threads_markdown(archive),
            "one thread against several: wall time, speed-up, CPU time, peak RSS",
        ),
        (
            "perf.md",
            perf::markdown(archive, results)?,
            "the speed goals reached, and the speed board set: median time, CPU, GC share, RSS per sweep",
        ),
        (
            "artifact.md",
            artifact::markdown(results)?,
            "c4bdd against the paper's C artifact on one machine: median wall time per job",
        ),
        (
            "peers.md",
            peers::markdown(results)?,
            "c4bdd beside other BDD packages (oxidd, BuDDy, CUDD) on the same counts: median CPU time per board",
        ),
        (
            "settings.md",
            settings::markdown(archive),
            "manager settings compared (cache ratio, cap and floor, GC): median time of repetitions",
        ),
        (
            "memory.md",
            memory::markdown(archive, memory::MIN_NODES),
            "measured peak RSS against the memory model (nodes, unique table, cache)",
        ),
        (
            "orders.md",
            orders::markdown(orders_tried),
            "every variable order tried per board (runs and order searches), ranked, beside the paper's",
        ),
        (
            "orders-solve.md",
            tables::orders_solve_markdown(archive),
            "variable orders for the strong solution: best, worst, column-wise, centre-out",
        ),
    ];
    for (name, text, what) in pages {
        if let Some(text) = text {
            write_file(&out.plots.join(name), &text)?;
            out.note(name.into(), what);
        }
    }
    Ok(())
}

/// c4bdd beside other BDD packages: time (CPU on one thread, wall on more)
/// against peak RSS, per board.
fn peers_chart(out: &mut Listing, results: &Path) -> Result<()> {
    let series = peers::chart_series(results)?;
    if series.is_empty() {
        return Ok(());
    }
    let chart = Chart {
        title: "c4bdd beside other BDD packages: time against peak RSS (per board)",
        x_label: "peak RSS (bytes)",
        y_label: "median time (s): CPU on one thread, wall on more",
        axes: Axes::LogLog,
        series,
    };
    out.chart(
        "peers",
        &chart,
        "c4bdd beside other BDD packages: median time against peak RSS per board (plots/peers.md)",
    )
}

/// Table 1 as pictures: time and peak nodes against positions, each of the
/// paper's points named by its board (ours lie at the same positions).
fn table1_charts(out: &mut Listing, paper: &Paper, t1: &[tables::Table1Row]) -> Result<()> {
    let paper_pts = |y: &dyn Fn(&data::PaperTable1Row) -> f64| Series {
        name: "paper".into(),
        points: paper.table1.iter().map(|p| (p.positions as f64, y(p))).collect(),
        labels: paper.table1.iter().map(|p| format!("{}x{}", p.width, p.height)).collect(),
    };
    let ours_pts = |name: &str, y: &dyn Fn(&tables::Table1Row) -> Option<f64>| {
        Series::new(
            name,
            t1.iter().filter_map(|r| Some((r.positions? as f64, y(r)?))).filter(|&(_, v)| v > 0.0).collect(),
        )
    };
    let chart = Chart {
        title: "Table 1: time against positions (standard: the paper's configuration)",
        x_label: "positions",
        y_label: "time (s)",
        axes: Axes::LogLog,
        series: vec![
            paper_pts(&|p| p.time_s),
            ours_pts("ours, standard", &|r| r.time_standard_s),
            ours_pts("ours, compressed", &|r| r.time_compressed_s),
        ],
    };
    out.chart("table1-time", &chart, "Table 1 as a picture: time against positions, ours and the paper's")?;
    let chart = Chart {
        title: "Table 1: peak BDD nodes against positions (standard: the paper's configuration)",
        x_label: "positions",
        y_label: "peak nodes",
        axes: Axes::LogLog,
        series: vec![
            paper_pts(&|p| p.peak_nodes as f64),
            ours_pts("ours, standard", &|r| r.peak_nodes_standard.map(|n| n as f64)),
            ours_pts("ours, compressed", &|r| r.peak_nodes_compressed.map(|n| n as f64)),
        ],
    };
    out.chart("table1-nodes", &chart, "Table 1 as a picture: peak nodes against positions")
}

mod repro;
mod solved76;
