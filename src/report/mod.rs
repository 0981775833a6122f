//! `c4bdd report`: the paper's tables and figures, regenerated from the
//! results archive alone (it computes no BDDs), with ours beside the paper's,
//! and `paper-repro.md`, the claim-by-claim account.

pub mod artifact;
pub mod data;
pub mod memory;
pub mod oxidd;
pub mod perf;
pub mod plots;
pub mod settings;
pub mod tables;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::encoding::EncodingKind;
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
    pub repro: PathBuf,
    /// Boards to draw the per-ply figures for (default: 7x6 and every board
    /// of at least 20 cells that has the runs a figure needs).
    pub boards: Vec<BoardSize>,
}

/// Files written, with the one-line description used in plots/README.md.
pub struct Written {
    pub files: Vec<(String, String)>,
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Per-ply count runs of a board: the fastest finished one for an encoding
/// and terminal strategy, preferring column order (the paper's Figure 2).
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
    archive.best(|r| matches(r, "column-wise")).or_else(|| archive.best(|r| matches(r, "paper")))
}

fn series(name: String, run: &Run, y: impl Fn(&crate::experiment::record::PlyRow) -> f64) -> Series {
    Series { name, points: run.plies.iter().map(|p| (p.ply as f64, y(p))).filter(|&(_, v)| v > 0.0).collect() }
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

/// Write every table, figure and paper-repro.md.
pub fn report(opts: &ReportOptions) -> Result<Written> {
    let archive = Archive::load(&opts.results)?;
    let paper = Paper::load(&opts.reference)?;
    std::fs::create_dir_all(&opts.plots).with_context(|| format!("cannot create {}", opts.plots.display()))?;
    let mut out = Listing { plots: &opts.plots, files: Vec::new() };

    // Table 1.
    let t1 = tables::table1(&archive, &paper);
    write_file(&opts.plots.join("table1.md"), &tables::table1_markdown(&t1))?;
    let mut w = csv::Writer::from_path(opts.plots.join("table1.csv"))?;
    for row in &t1 {
        w.serialize(row)?;
    }
    w.flush()?;
    out.note("table1.md".into(), "Table 1: the paper's positions, time, GC share, RAM and peak nodes beside ours");
    out.note("table1.csv".into(), "the same as CSV");

    // Table 2 for every solved board, and 7x6 beside the paper.
    let solved = archive.solved_boards();
    for board in &solved {
        let run = archive.best_any_threads(|r| r.row.pass == Pass::Solve && r.board() == *board).expect("a solved run");
        let name = format!("table2-{board}.md");
        write_file(&opts.plots.join(&name), &tables::table2_markdown(run))?;
        out.note(name, "Table 2 form (won/drawn/lost/total/terminal per ply) of a board we solved");
    }
    let b76 = BoardSize { width: 7, height: 6 };
    let ours76 = archive.best(|r| r.row.pass == Pass::Solve && r.board() == b76);
    write_file(&opts.plots.join("table2-7x6-paper.md"), &tables::table2_7x6_markdown(&paper, ours76))?;
    out.note("table2-7x6-paper.md".into(), "the paper's Table 2 (7x6) beside our plies");

    // Figure 2 for the chosen boards.
    let boards: Vec<BoardSize> = if opts.boards.is_empty() {
        let mut set: BTreeSet<BoardSize> = archive
            .ok_runs(|r| r.board().cells() >= 20 && r.row.terminal == TerminalStrategy::Off && !r.plies.is_empty())
            .map(|r| r.board())
            .collect();
        set.insert(b76);
        set.into_iter().collect()
    } else {
        opts.boards.clone()
    };
    let mut figure2_boards = Vec::new();
    for board in &boards {
        let (whole, off) = (TerminalStrategy::Whole, TerminalStrategy::Off);
        let encoding = [EncodingKind::Cellwise, EncodingKind::Compressed]
            .into_iter()
            .find(|&e| ply_run(&archive, *board, e, whole).is_some() && ply_run(&archive, *board, e, off).is_some());
        if let Some(enc) = encoding {
            let (on, off) =
                (ply_run(&archive, *board, enc, whole).unwrap(), ply_run(&archive, *board, enc, off).unwrap());
            let name = format!("figure2a-{board}");
            let title = format!("{board}: states and BDD nodes per ply ({enc} encoding)");
            let chart = Chart {
                title: &title,
                x_label: "ply",
                y_label: "count",
                axes: Axes::PlyLog,
                series: vec![
                    series("states".into(), on, |p| p.states as f64),
                    series("states, no termination".into(), off, |p| p.states as f64),
                    series("BDD nodes".into(), on, |p| p.bdd_nodes as f64),
                    series("BDD nodes, no termination".into(), off, |p| p.bdd_nodes as f64),
                ],
            };
            out.chart(&name, &chart, "Figure 2a: states and BDD nodes per ply, with and without termination")?;
            figure2_boards.push(*board);
        }
        if let (Some(std), Some(comp)) = (
            ply_run(&archive, *board, EncodingKind::Cellwise, whole),
            ply_run(&archive, *board, EncodingKind::Compressed, whole),
        ) {
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
            out.chart(&name, &chart, "Figure 2b: BDD nodes per ply, compressed versus standard encoding")?;
        }
        for enc in [EncodingKind::Compressed, EncodingKind::Cellwise] {
            let has_memory = |r: &Run| r.plies.iter().any(|p| p.rss_bytes.is_some());
            if let Some(run) = ply_run_where(&archive, *board, enc, whole, has_memory) {
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
        }
    }

    // Variable orders: every board with count runs of several orders.
    let order_boards: BTreeSet<BoardSize> = archive.ok_runs(|r| r.row.pass == Pass::Count).map(|r| r.board()).collect();
    for board in order_boards {
        let mut keys: Vec<(EncodingKind, String)> = archive
            .ok_runs(|r| {
                r.board() == board
                    && r.row.pass == Pass::Count
                    && r.row.terminal == TerminalStrategy::Whole
                    && !r.plies.is_empty()
            })
            .map(|r| (r.row.encoding, r.row.order.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        let orders: BTreeSet<&String> = keys.iter().map(|(_, o)| o).collect();
        if orders.len() < 3 {
            continue;
        }
        let series = keys
            .iter()
            .filter_map(|(enc, order)| {
                let run = archive.best(|r| {
                    r.board() == board
                        && r.row.pass == Pass::Count
                        && r.row.terminal == TerminalStrategy::Whole
                        && r.row.encoding == *enc
                        && &r.row.order == order
                })?;
                Some(self::series(format!("{enc}, {order}"), run, |p| p.bdd_nodes as f64))
            })
            .collect();
        let name = format!("orders-{board}");
        let title = format!("{board}: BDD nodes per ply for each variable order");
        let chart = Chart { title: &title, x_label: "ply", y_label: "BDD nodes", axes: Axes::PlyLog, series };
        out.chart(&name, &chart, "BDD nodes per ply for every variable order run on the board")?;
    }

    if let Some(text) = tables::threads_markdown(&archive) {
        write_file(&opts.plots.join("threads.md"), &text)?;
        out.note("threads.md".into(), "one thread against several: wall time, speed-up, CPU time, peak RSS");
    }

    if let Some(text) = perf::markdown(&archive) {
        write_file(&opts.plots.join("perf.md"), &text)?;
        out.note("perf.md".into(), "the speed board set: median time, CPU, GC share, RSS of repetitions per sweep");
    }

    if let Some(text) = artifact::markdown(&opts.results)? {
        write_file(&opts.plots.join("artifact.md"), &text)?;
        out.note("artifact.md".into(), "c4bdd against the paper's C artifact on one machine: median wall time per job");
    }

    if let Some(text) = oxidd::markdown(&opts.results)? {
        write_file(&opts.plots.join("oxidd.md"), &text)?;
        out.note("oxidd.md".into(), "c4bdd against the oxidd crate on the same counts: median CPU time per board");
    }

    if let Some(text) = settings::markdown(&archive) {
        write_file(&opts.plots.join("settings.md"), &text)?;
        out.note(
            "settings.md".into(),
            "manager settings compared (cache ratio, cap and floor, GC): median time of repetitions",
        );
    }

    if let Some(text) = memory::markdown(&archive, memory::MIN_NODES) {
        write_file(&opts.plots.join("memory.md"), &text)?;
        out.note("memory.md".into(), "measured peak RSS against the memory model (nodes, unique table, cache)");
    }

    if let Some(text) = tables::orders_solve_markdown(&archive) {
        write_file(&opts.plots.join("orders-solve.md"), &text)?;
        out.note(
            "orders-solve.md".into(),
            "variable orders for the strong solution: best, worst, column-wise, centre-out",
        );
    }

    // Table 1 as pictures.
    let paper_pts = |y: &dyn Fn(&data::PaperTable1Row) -> f64| Series {
        name: "paper".into(),
        points: paper.table1.iter().map(|p| (p.positions as f64, y(p))).collect(),
    };
    let ours_pts = |name: &str, y: &dyn Fn(&tables::Table1Row) -> Option<f64>| Series {
        name: name.into(),
        points: t1.iter().filter_map(|r| Some((r.positions? as f64, y(r)?))).filter(|&(_, v)| v > 0.0).collect(),
    };
    let chart = Chart {
        title: "Table 1: time against positions",
        x_label: "positions",
        y_label: "time (s; under 1 ms drawn at 1 ms)",
        axes: Axes::LogLog,
        series: vec![
            paper_pts(&|p| p.time_s),
            ours_pts("ours, standard (paper's configuration)", &|r| r.time_standard_s.map(|t| t.max(1e-3))),
            ours_pts("ours, compressed", &|r| r.time_compressed_s.map(|t| t.max(1e-3))),
        ],
    };
    out.chart("table1-time", &chart, "Table 1 as a picture: time against positions, ours and the paper's")?;
    let chart = Chart {
        title: "Table 1: peak BDD nodes against positions",
        x_label: "positions",
        y_label: "peak nodes",
        axes: Axes::LogLog,
        series: vec![
            paper_pts(&|p| p.peak_nodes as f64),
            ours_pts("ours, standard (paper's configuration)", &|r| r.peak_nodes_standard.map(|n| n as f64)),
            ours_pts("ours, compressed", &|r| r.peak_nodes_compressed.map(|n| n as f64)),
        ],
    };
    out.chart("table1-nodes", &chart, "Table 1 as a picture: peak nodes against positions")?;

    let mut readme = String::from(
        "# plots/\n\nGenerated by `c4bdd report` from the CSVs under results/ (nothing here is edited by hand):\n\n\
```sh\ncargo run --release -- report\n```\n\nPer-ply figures for other boards: `cargo run --release -- report --board 6x5`.\n\n| file | what |\n|---|---|\n",
    );
    for (file, what) in &out.files {
        let _ = writeln!(readme, "| {file} | {what} |");
    }
    write_file(&opts.plots.join("README.md"), &readme)?;
    write_file(&opts.repro, &repro::paper_repro(&archive, &paper, &t1, &solved, &figure2_boards))?;
    Ok(Written { files: out.files })
}

mod repro;
