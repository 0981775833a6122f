//! Tables in the paper's form, ours beside the paper's, as Markdown and CSV.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::data::{Archive, Paper, PaperTable2Row, Run};
use crate::encoding::order::center_out_columns;
use crate::encoding::{EncodingKind, OrderSpec};
use crate::experiment::record::{PlyRow, Traversal};
use crate::experiment::Pass;
use crate::game::BoardSize;
use crate::search::{TerminalStrategy, Value};

/// Our shortest time that a time ratio is given for: the table shows times to
/// two decimals, and a shorter run is all fixed costs (starting the process).
pub const RATIO_MIN_TIME_S: f64 = 0.01;

/// One row of the side-by-side Table 1 (also its CSV schema).
#[derive(Clone, Debug, Serialize)]
pub struct Table1Row {
    pub width: u8,
    pub height: u8,
    pub paper_positions: u128,
    pub positions: Option<u128>,
    /// "yes", "NO", or empty when not run.
    pub positions_match: String,
    pub paper_time_s: f64,
    /// Our time in the paper's configuration (standard encoding, paper order).
    pub time_standard_s: Option<f64>,
    pub time_compressed_s: Option<f64>,
    /// The settings of the runs timed, where they are not a count's
    /// defaults ([`setting_tag`]): empty for the defaults.
    pub setting_standard: String,
    pub setting_compressed: String,
    /// paper time / our time in the paper's configuration; none when our
    /// time is below [`RATIO_MIN_TIME_S`].
    pub time_ratio: Option<f64>,
    pub paper_gc_percent: f64,
    pub gc_percent_standard: Option<f64>,
    pub paper_ram_gb: f64,
    pub peak_rss_mb_standard: Option<f64>,
    pub peak_rss_mb_compressed: Option<f64>,
    pub paper_peak_nodes: u64,
    pub peak_nodes_standard: Option<u64>,
    pub peak_nodes_compressed: Option<u64>,
    pub peak_nodes_match: String,
    /// "ok" (with the threads of a board counted on more than one only),
    /// or how far an unfinished count got, or the status of a stopped run,
    /// or "not run".
    pub status: String,
}

fn is_board(r: &Run, w: u8, h: u8) -> bool {
    r.row.width == w && r.row.height == h && r.row.pass == Pass::Count && r.row.terminal != TerminalStrategy::Off
}

/// The side-by-side Table 1 for every board of the paper's Table 1.
pub fn table1(archive: &Archive, paper: &Paper) -> Vec<Table1Row> {
    paper
        .table1
        .iter()
        .map(|p| {
            let (w, h) = (p.width, p.height);
            // Single-threaded runs where there are any (the paper's ran on
            // one thread); the boards counted on more threads only (the
            // largest) are marked in their status and get no time ratio.
            let standard = archive.best_any_threads(|r| {
                is_board(r, w, h) && r.row.encoding == EncodingKind::Cellwise && r.row.order == "paper"
            });
            let compressed = archive.best_any_threads(|r| {
                is_board(r, w, h) && r.row.encoding == EncodingKind::Compressed && r.papers_order()
            });
            let any = archive.best_any_threads(|r| is_board(r, w, h));
            let positions = any.and_then(|r| r.row.positions);
            let board = BoardSize { width: w, height: h };
            let status = match (any, archive.counting(board)) {
                (Some(r), _) if !r.single_threaded() => format!("ok ({} threads)", r.row.threads.unwrap_or(1)),
                (Some(_), _) => "ok".to_string(),
                (None, Some(p)) => {
                    format!("counting: {} of {} plies in {}", p.plies.len(), board.cells() + 1, p.source.display())
                }
                (None, None) => archive.failure(|r| is_board(r, w, h)).unwrap_or("not run").to_string(),
            };
            let mark = |ours: Option<bool>| match ours {
                Some(true) => "yes".to_string(),
                Some(false) => "NO".to_string(),
                None => String::new(),
            };
            Table1Row {
                width: w,
                height: h,
                paper_positions: p.positions,
                positions,
                positions_match: mark(positions.map(|x| x == p.positions)),
                paper_time_s: p.time_s,
                time_standard_s: standard.map(|r| r.row.time_s),
                time_compressed_s: compressed.map(|r| r.row.time_s),
                setting_standard: standard.map(setting_tag).unwrap_or_default(),
                setting_compressed: compressed.map(setting_tag).unwrap_or_default(),
                time_ratio: standard
                    .filter(|r| r.single_threaded() && r.row.time_s >= RATIO_MIN_TIME_S)
                    .map(|r| p.time_s / r.row.time_s),
                paper_gc_percent: p.gc_percent,
                gc_percent_standard: standard.map(|r| r.row.gc_share * 100.0),
                paper_ram_gb: p.ram_gb,
                peak_rss_mb_standard: standard.map(|r| r.row.peak_rss_bytes as f64 / 1e6),
                peak_rss_mb_compressed: compressed.map(|r| r.row.peak_rss_bytes as f64 / 1e6),
                paper_peak_nodes: p.peak_nodes,
                peak_nodes_standard: standard.map(|r| r.row.peak_nodes),
                peak_nodes_compressed: compressed.map(|r| r.row.peak_nodes),
                peak_nodes_match: mark(standard.map(|r| r.row.peak_nodes == p.peak_nodes)),
                status,
            }
        })
        .collect()
}

/// The traversal and computed-cache ratio a run was made with, such as
/// `breadth-first, cache ratio 4` (depth-first where the row predates the
/// column).
pub fn traversal_and_cache(r: &Run) -> String {
    format!("{}, cache ratio {}", r.row.traversal.unwrap_or_default(), r.row.cache_ratio)
}

/// [`traversal_and_cache`] where it is not a count's default (depth-first,
/// the full computed cache); empty for the default.
pub fn setting_tag(r: &Run) -> String {
    let default = r.row.traversal.unwrap_or_default() == Traversal::DepthFirst && r.row.cache_ratio <= 1;
    if default {
        String::new()
    } else {
        traversal_and_cache(r)
    }
}

/// A time to two decimals, with the settings it was taken with in
/// parentheses where they are not the defaults.
fn secs_with(v: Option<f64>, tag: &str) -> String {
    match (v, tag) {
        (Some(_), "") | (None, _) => secs(v),
        (Some(_), _) => format!("{} ({tag})", secs(v)),
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("–".into(), |x| x.to_string())
}

pub(crate) fn secs(v: Option<f64>) -> String {
    v.map_or("–".into(), |x| format!("{x:.2}"))
}

/// Table 1 as Markdown, with its caption.
pub fn table1_markdown(rows: &[Table1Row]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "Table 1, the paper's numbers beside ours. *std* is the paper's configuration (standard, i.e. cellwise, \
encoding; column order, row order when the board is taller than wide), *compr.* the compressed encoding. Our times \
are single runs of one process each (at most two at once on a 2-core machine); the paper's times were taken with many \
jobs running at once on one machine and are inflated, so the ratio paper/ours is indicative only (given where our time is at least {RATIO_MIN_TIME_S} s). The paper's RAM was \
derived from its preallocated node table; ours is the measured peak RSS. Peak nodes depend on the garbage-collection \
schedule, so equality is not expected. Each time is that of the fastest run of any manager settings; where they are \
not a count's defaults (depth-first, the full computed cache), the time names them.\n\n"
    );
    s += "| board | positions (paper) | positions (ours) | = | time s (paper) | time s (std) | time s (compr.) \
| paper/ours | GC % (paper) | GC % (std) | RAM GB (paper) | RSS MB (std) | RSS MB (compr.) | peak nodes (paper) \
| peak nodes (std) | peak nodes (compr.) | status |\n";
    s += "|---|---:|---:|:-:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for r in rows {
        let _ = writeln!(
            s,
            "| {}x{} | {} | {} | {} | {:.2} | {} | {} | {} | {:.1} | {} | {:.2} | {} | {} | {} | {} | {} | {} |",
            r.width,
            r.height,
            r.paper_positions,
            opt(r.positions),
            r.positions_match,
            r.paper_time_s,
            secs_with(r.time_standard_s, &r.setting_standard),
            secs_with(r.time_compressed_s, &r.setting_compressed),
            r.time_ratio.map_or("–".into(), |x| format!("{x:.1}")),
            r.paper_gc_percent,
            r.gc_percent_standard.map_or("–".into(), |x| format!("{x:.1}")),
            r.paper_ram_gb,
            r.peak_rss_mb_standard.map_or("–".into(), |x| format!("{x:.1}")),
            r.peak_rss_mb_compressed.map_or("–".into(), |x| format!("{x:.1}")),
            r.paper_peak_nodes,
            opt(r.peak_nodes_standard),
            opt(r.peak_nodes_compressed),
            r.status
        );
    }
    s
}

/// A solved board's table in the paper's Table 2 form (first player's view).
pub fn table2_markdown(run: &Run) -> String {
    let mut s = format!(
        "Table 2 form for {} ({} encoding, {} order): positions per ply won, drawn and lost from the first \
player's view. Value of the empty board: {}.\n\n| ply | won | drawn | lost | total | terminal |\n|---:|---:|---:|---:|---:|---:|\n",
        run.board(),
        run.row.encoding,
        run.row.order,
        run.row.value.map_or("unknown", Value::name)
    );
    for p in &run.plies {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            p.ply,
            opt(p.won),
            opt(p.drawn),
            opt(p.lost),
            p.states,
            opt(p.terminal)
        );
    }
    s
}

/// Whether our row of a ply equals the paper's Table 2 row (won, drawn,
/// lost, total and terminal).
pub fn same_as_paper(ours: &PlyRow, paper: &PaperTable2Row) -> bool {
    let counts = (ours.won, ours.drawn, ours.lost, ours.terminal);
    ours.ply == paper.ply
        && ours.states == paper.total
        && counts == (Some(paper.won), Some(paper.drawn), Some(paper.lost), Some(paper.terminal))
}

/// The paper's 7x6 Table 2 beside whatever plies we have solved for 7x6.
pub fn table2_7x6_markdown(paper: &Paper, ours: Option<&[PlyRow]>) -> String {
    let mut s = String::from(
        "The paper's Table 2 (7x6) beside ours: the plies a 7x6 solve has reached (`solve --down-to` solves from \
the last ply down). The last column says whether all five of our figures equal the paper's.\n\n\
| ply | won (paper) | drawn (paper) | lost (paper) | total (paper) | terminal (paper) | won | drawn | lost | total | = |\n\
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|\n",
    );
    for p in &paper.table2 {
        let mine = ours.and_then(|plies| plies.iter().find(|q| q.ply == p.ply));
        let same = mine.map(|q| same_as_paper(q, p));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.ply,
            p.won,
            p.drawn,
            p.lost,
            p.total,
            p.terminal,
            opt(mine.and_then(|q| q.won)),
            opt(mine.and_then(|q| q.drawn)),
            opt(mine.and_then(|q| q.lost)),
            opt(mine.map(|q| q.states)),
            same.map_or("", |b| if b { "yes" } else { "NO" })
        );
    }
    s
}

/// Variable orders for the strong solution: per sweep, board and encoding
/// with solve runs of at least two orders, the best and worst orders by peak
/// nodes and where the column-wise and centre-out orders rank (under their
/// names or as `columns:` permutations).
pub fn orders_solve_markdown(archive: &Archive) -> Option<String> {
    let mut groups: BTreeMap<(&std::path::Path, BoardSize, EncodingKind), Vec<&Run>> = BTreeMap::new();
    for r in archive.ok_runs(|r| r.row.pass == Pass::Solve) {
        let runs = groups.entry((r.source.as_path(), r.board(), r.row.encoding)).or_default();
        if !runs.iter().any(|o| o.row.order == r.row.order) {
            runs.push(r);
        }
    }
    groups.retain(|_, runs| runs.len() >= 2);
    if groups.is_empty() {
        return None;
    }
    let mut s = String::from(
        "Variable orders for the strong solution, ranked by peak BDD nodes (deterministic; CPU seconds depend \
on the machine's load when the run was made). Rank 1 = fewest peak nodes; orders compared within one sweep.\n\n\
| sweep | board | encoding | orders | order | rank | peak nodes | CPU s | value |\n|---|---|---|---:|---|---:|---:|---:|---|\n",
    );
    for ((source, board, encoding), mut runs) in groups {
        runs.sort_by_key(|r| (r.row.peak_nodes, r.row.order.clone()));
        let n = runs.len();
        let w = board.width as u32;
        let spelled = |columns: Vec<u32>| OrderSpec::Columns(columns).name();
        let landmarks = [
            "column-wise".to_string(),
            spelled((1..=w).collect()),
            "center-out".to_string(),
            spelled(center_out_columns(w)),
        ];
        let mut shown: Vec<usize> = vec![0, 1, 2, n - 1];
        shown.extend((0..n).filter(|&i| landmarks.contains(&runs[i].row.order)));
        shown.sort_unstable();
        shown.dedup();
        for i in shown.into_iter().filter(|&i| i < n) {
            let r = runs[i];
            let _ = writeln!(
                s,
                "| {} | {board} | {encoding} | {n} | {} | {} | {} | {} | {} |",
                source.display(),
                r.row.order,
                i + 1,
                r.row.peak_nodes,
                secs(r.row.cpu_s),
                r.row.value.map_or("-", Value::name)
            );
        }
    }
    Some(s)
}
