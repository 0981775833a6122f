//! `plots/orders.md`: every variable order tried on a board, ranked by the
//! sum over plies of its count's BDD nodes, beside the paper's order. The
//! orders come from count runs in the archive (built-in orders, enumerated
//! column permutations, rules) and from order searches
//! (`results/order_search/ARCHIVE/SEARCH/`: the start and the cheapest
//! candidates of each).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use super::data::{is_papers_order, papers_twin, Archive, Run};
use crate::bdd::Traversal;
use crate::encoding::EncodingKind;
use crate::experiment::record::Status;
use crate::experiment::Pass;
use crate::game::BoardSize;
use crate::order_search::output::{CandidateRow, SearchMeta};
use crate::search::TerminalStrategy;

/// Cheapest candidates of each search shown.
const SEARCH_SHOWN: usize = 3;

/// Orders shown per board (the paper's is shown besides).
const SHOWN: usize = 15;

/// One order's count on a board.
#[derive(Clone, Debug)]
pub struct OrderCost {
    pub board: BoardSize,
    pub encoding: EncodingKind,
    pub order: String,
    /// Where it was measured: a sweep or a search folder, under results/.
    pub source: String,
    pub sum: u64,
    pub max: u64,
    pub peak: u64,
    /// Wall time of the count (a search's candidates ran two at a time or
    /// more: their times are of a loaded machine).
    pub time_s: f64,
    /// Threads of the run's BDD operations (the nodes do not depend on them).
    pub threads: u64,
    /// How one thread walked the operations (runs from before the setting,
    /// and a search's candidates, were depth-first).
    pub traversal: Traversal,
    /// How the run ended. A run a limit stopped is not ranked: its sums are
    /// over the plies it counted, compared with the paper's over the same.
    pub status: Status,
    /// The nodes of each ply counted, for the archive's runs (empty for a
    /// search's candidates).
    pub per_ply: Vec<u64>,
}

impl OrderCost {
    /// Fewer nodes first; for equal nodes, the run on fewer threads, then
    /// the faster: so that orders compare on one thread where they can.
    fn cheaper(&self, other: &OrderCost) -> std::cmp::Ordering {
        (self.sum, self.threads).cmp(&(other.sum, other.threads)).then(self.time_s.total_cmp(&other.time_s))
    }

    fn finished(&self) -> bool {
        self.status == Status::Ok
    }

    /// The percentage by which this order's nodes exceed `paper`'s over the
    /// plies this order counted, if the paper's run has them all.
    fn over_same_plies(&self, paper: &OrderCost) -> Option<f64> {
        let plies = paper.per_ply.get(..self.per_ply.len())?;
        Some((self.sum as f64 / plies.iter().sum::<u64>() as f64 - 1.0) * 100.0)
    }
}

/// Every order tried, from the archive's count runs and the searches.
pub fn tried(archive: &Archive, results: &Path) -> Result<Vec<OrderCost>> {
    // Runs on any number of threads (their nodes are the same), and runs a
    // limit stopped (with the plies they counted).
    let counted =
        |r: &&Run| r.row.pass == Pass::Count && r.row.terminal == TerminalStrategy::Whole && !r.plies.is_empty();
    let mut all: Vec<OrderCost> = archive
        .runs
        .iter()
        .filter(counted)
        .map(|r| {
            let per_ply: Vec<u64> = r.plies.iter().map(|p| p.bdd_nodes).collect();
            OrderCost {
                board: r.board(),
                encoding: r.row.encoding,
                order: r.row.order.clone(),
                source: r.source.display().to_string(),
                sum: per_ply.iter().sum(),
                max: per_ply.iter().copied().max().unwrap_or(0),
                // A run a limit stopped may not know its peak: its plies' live
                // nodes bound it from below.
                peak: r.row.peak_nodes.max(r.plies.iter().map(|p| p.live_nodes).max().unwrap_or(0)),
                time_s: r.row.time_s,
                threads: r.row.threads.unwrap_or(1),
                traversal: r.row.traversal.unwrap_or(Traversal::DepthFirst),
                status: r.row.status,
                per_ply,
            }
        })
        .collect();
    for dir in search_dirs(results) {
        all.extend(from_search(&dir, results)?);
    }
    Ok(all)
}

/// The folders of order searches of a count: `order_search/*/*/`.
fn search_dirs(results: &Path) -> Vec<std::path::PathBuf> {
    let children = |d: &Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(d).into_iter().flatten().flatten().map(|e| e.path()).collect();
        v.sort();
        v
    };
    let archives = children(&results.join("order_search"));
    archives.iter().flat_map(|a| children(a)).filter(|d| d.join("search.json").is_file()).collect()
}

/// A search's start and cheapest finished candidates.
fn from_search(dir: &Path, results: &Path) -> Result<Vec<OrderCost>> {
    let meta_path = dir.join("search.json");
    let text = std::fs::read_to_string(&meta_path).with_context(|| format!("cannot read {}", meta_path.display()))?;
    let meta: SearchMeta =
        serde_json::from_str(&text).with_context(|| format!("{}: not a search", meta_path.display()))?;
    let id = &meta.identity;
    if id.pass != Pass::Count {
        return Ok(vec![]);
    }
    let board: BoardSize =
        id.board.parse().map_err(|e: String| anyhow::anyhow!("{}: board: {e}", meta_path.display()))?;
    let rows: Vec<CandidateRow> = crate::experiment::record::read_rows(&dir.join("candidates.csv"))?;
    let source = dir.strip_prefix(results).unwrap_or(dir).display().to_string();
    let cost = |r: &CandidateRow, order: String| OrderCost {
        board,
        encoding: id.encoding,
        order,
        source: source.clone(),
        sum: r.sum_nodes,
        max: r.max_nodes,
        peak: r.peak_nodes,
        time_s: r.time_s,
        threads: 1,
        traversal: Traversal::DepthFirst,
        status: Status::Ok,
        per_ply: Vec::new(),
    };
    let start = rows.iter().find(|r| r.phase == crate::order_search::Phase::Start);
    let mut out: Vec<OrderCost> = start.iter().map(|r| cost(r, id.start.clone())).collect();
    // The best orders the search wrote, found among its candidates.
    for k in 1..=SEARCH_SHOWN {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("best-{k}.order"))) else { break };
        let levels = format!("levels:{}", text.split_whitespace().collect::<Vec<_>>().join(","));
        if let Some(r) = rows.iter().find(|r| r.order == levels) {
            out.push(cost(r, format!("best-{k}.order")));
        }
    }
    Ok(out)
}

/// The page, when some board has two orders or more.
pub fn markdown(tried: &[OrderCost]) -> Option<String> {
    // One entry per order (a search's candidates per search): its source of
    // the fewest nodes (see `OrderCost::cheaper`).
    let mut groups: BTreeMap<(BoardSize, EncodingKind), Vec<&OrderCost>> = BTreeMap::new();
    let same =
        |a: &OrderCost, b: &OrderCost| a.order == b.order && (!a.order.starts_with("best-") || a.source == b.source);
    for t in tried.iter().filter(|t| t.finished()) {
        let group = groups.entry((t.board, t.encoding)).or_default();
        match group.iter_mut().find(|o| same(o, t)) {
            Some(o) if t.cheaper(o).is_lt() => *o = t,
            Some(_) => {}
            None => group.push(t),
        }
    }
    groups.retain(|_, g| g.len() >= 2);
    if groups.is_empty() {
        return None;
    }
    let mut s = String::from(
        "Every variable order tried, per board and encoding, ranked by the sum over plies of its count's BDD nodes \
(deterministic), beside the paper's order (`paper`, or the order it arranges like: column-wise, or row-wise for the \
cellwise encoding on a board taller than wide). Sources: count runs of the archive's sweeps, and order searches \
(`c4bdd orders search`: its start and the cheapest orders it wrote to its folder, best-K.order, which `--order \
custom:FILE` takes). Time: the count's wall seconds (a search runs its candidates `--jobs` at a time: theirs are \
of a loaded machine; a run on more threads says so).\n",
    );
    for ((board, encoding), mut group) in groups {
        group.sort_by(|a, b| (a.sum, &a.order, &a.source).cmp(&(b.sum, &b.order, &b.source)));
        let twin = papers_twin(board, encoding);
        let paper = group
            .iter()
            .find(|o| o.order == "paper")
            .or_else(|| group.iter().find(|o| twin.as_deref() == Some(o.order.as_str())));
        let _ = write!(
            s,
            "\n## {board} {encoding}\n\n{} orders measured.\n\n| rank | order | from | sum of nodes | against the paper's \
| largest ply | peak nodes | time s |\n|---:|---|---|---:|---:|---:|---:|---:|\n",
            group.len()
        );
        for (i, o) in group.iter().enumerate() {
            if i >= SHOWN && !paper.is_some_and(|p| std::ptr::eq(*p, *o)) {
                continue;
            }
            let ratio = paper.map_or("-".into(), |p| format!("{:+.1}%", (o.sum as f64 / p.sum as f64 - 1.0) * 100.0));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {ratio} | {} | {} | {:.2}{} |",
                i + 1,
                o.order,
                o.source,
                o.sum,
                o.max,
                o.peak,
                o.time_s,
                if o.threads > 1 { format!(" ({} threads)", o.threads) } else { String::new() }
            );
        }
        let stopped = tried.iter().filter(|o| !o.finished() && (o.board, o.encoding) == (board, encoding));
        stopped_table(&mut s, stopped, paper.copied());
    }
    Some(s)
}

/// The runs of a board that a limit stopped, each against the paper's order
/// over the plies it counted.
fn stopped_table<'a>(s: &mut String, stopped: impl Iterator<Item = &'a OrderCost>, paper: Option<&OrderCost>) {
    let mut stopped = stopped.peekable();
    if stopped.peek().is_none() {
        return;
    }
    s.push_str(
        "\nStopped by a limit before the last ply (not ranked; sums over the plies counted, against the paper's order \
over the same plies):\n\n| order | from | status | plies counted | sum of nodes | against the paper's | largest ply \
| peak nodes, at least | time s |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for o in stopped {
        let ratio = paper.and_then(|p| o.over_same_plies(p)).map_or("-".into(), |r| format!("{r:+.1}%"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {ratio} | {} | {} | {:.2} |",
            o.order,
            o.source,
            o.status,
            o.per_ply.len(),
            o.sum,
            o.max,
            o.peak,
            o.time_s
        );
    }
}

/// One line for paper-repro.md: the cheapest order against the paper's on
/// `board` (compressed), and how many orders cost more than the paper's and
/// the costliest; `None` when the board has no two orders.
pub fn against_paper(tried: &[OrderCost], board: BoardSize) -> Option<String> {
    let (on, stopped): (Vec<&OrderCost>, Vec<&OrderCost>) =
        tried.iter().filter(|o| o.board == board && o.encoding == EncodingKind::Compressed).partition(|o| o.finished());
    let best = on.iter().min_by(|a, b| a.sum.cmp(&b.sum).then_with(|| a.order.cmp(&b.order)).then(a.cheaper(b)))?;
    // The paper's order at its cheapest run, on the threads and traversal of `best`'s where it has one, so
    // that the times compare like with like.
    let unlike = |o: &OrderCost| (o.threads, o.traversal) != (best.threads, best.traversal);
    let paper = on
        .iter()
        .filter(|o| is_papers_order(&o.order, board, EncodingKind::Compressed))
        .min_by(|a, b| unlike(a).cmp(&unlike(b)).then(a.cheaper(b)))?;
    let mut line = cheapest_line(board, on.len(), best, paper);
    // Each order at its cheapest run.
    let mut by_order: BTreeMap<&str, u64> = BTreeMap::new();
    for o in &on {
        let sum = by_order.entry(o.order.as_str()).or_insert(o.sum);
        *sum = (*sum).min(o.sum);
    }
    let worse: Vec<(&str, u64)> = by_order.into_iter().filter(|&(_, sum)| sum > paper.sum).collect();
    if let Some(&(order, sum)) = worse.iter().max_by_key(|&&(_, sum)| sum) {
        let up = (sum as f64 / paper.sum as f64 - 1.0) * 100.0;
        let _ = write!(line, "; {} order(s) have more than the paper's, up to {up:+.1}% ({order})", worse.len());
    }
    for o in stopped {
        let over = o.over_same_plies(paper).map_or(String::new(), |r| format!(", {r:+.1}% over them"));
        let _ = write!(line, "; {} stopped ({}) after {} plies{over}", o.order, o.status, o.per_ply.len());
    }
    Some(line)
}

/// [`against_paper`]'s first part: the cheapest of `runs` runs against the paper's.
fn cheapest_line(board: BoardSize, runs: usize, best: &OrderCost, paper: &OrderCost) -> String {
    if best.sum >= paper.sum {
        return format!(
            "no order measured on {board} (compressed, {runs} runs) has fewer nodes summed over the plies than the \
paper's ({})",
            paper.sum
        );
    }
    format!(
        "{} ({}) has {:.1}% fewer nodes summed over the plies than the paper's order on {board} (compressed): {} against \
{}; largest ply {} against {}, peak live nodes {} against {}, time {:.0} s on {} thread(s), {}, against {:.0} s on {}, \
{}",
        best.order,
        best.source,
        (1.0 - best.sum as f64 / paper.sum as f64) * 100.0,
        best.sum,
        paper.sum,
        best.max,
        paper.max,
        best.peak,
        paper.peak,
        best.time_s,
        best.threads,
        best.traversal,
        paper.time_s,
        paper.threads,
        paper.traversal
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(order: &str, sum: u64) -> OrderCost {
        let board = BoardSize { width: 7, height: 6 };
        let (encoding, source) = (EncodingKind::Compressed, "a/b".to_string());
        OrderCost {
            board,
            encoding,
            order: order.into(),
            source,
            sum,
            max: sum / 4,
            peak: sum,
            time_s: 1.0,
            threads: 1,
            traversal: Traversal::DepthFirst,
            status: Status::Ok,
            per_ply: vec![sum / 4, sum / 4, sum / 2],
        }
    }

    /// A run of `order` that a limit stopped after the plies `per_ply`.
    fn stopped(order: &str, per_ply: &[u64]) -> OrderCost {
        let sum = per_ply.iter().sum();
        OrderCost { status: Status::MemoryLimit, per_ply: per_ply.to_vec(), max: sum, ..cost(order, sum) }
    }

    #[test]
    fn a_stopped_run_is_not_ranked_but_compared_over_the_plies_it_counted() {
        let board = BoardSize { width: 7, height: 6 };
        // The paper's plies: 250, 250, 500; the stopped run's first two: 300, 450 (+50%).
        let tried = [cost("paper", 1000), cost("a", 1100), stopped("s", &[300, 450])];
        let line = against_paper(&tried, board).unwrap();
        assert!(line.starts_with("no order measured on 7x6 (compressed, 2 runs)"), "{line}");
        assert!(line.ends_with("up to +10.0% (a); s stopped (memory-limit) after 2 plies, +50.0% over them"), "{line}");
        let page = markdown(&tried).unwrap();
        assert!(page.contains("2 orders measured."), "{page}");
        assert!(page.contains("| s | a/b | memory-limit | 2 | 750 | +50.0% | 750 | 750 | 1.00 |"), "{page}");
        // Without a paper's run that has those plies, no comparison.
        let line = against_paper(&[cost("paper", 1000), cost("a", 900), stopped("s", &[1, 2, 3, 4])], board);
        assert!(line.unwrap().ends_with("; s stopped (memory-limit) after 4 plies"));
    }

    #[test]
    fn the_line_names_the_cheapest_order_and_the_costliest_above_the_papers() {
        let board = BoardSize { width: 7, height: 6 };
        let tried = [cost("paper", 1000), cost("paper", 990), cost("a", 980), cost("b", 1500), cost("c", 1200)];
        let line = against_paper(&tried, board).unwrap();
        assert!(
            line.starts_with("a (a/b) has 1.0% fewer nodes summed over the plies than the paper's order"),
            "{line}"
        );
        assert!(line.ends_with("; 2 order(s) have more than the paper's, up to +51.5% (b)"), "{line}");
        let line = against_paper(&tried[..3], board).unwrap();
        assert!(!line.contains("have more"), "{line}");
        let line = against_paper(&[cost("paper", 990), cost("b", 1500)], board).unwrap();
        assert!(line.starts_with("no order measured on 7x6 (compressed, 2 runs) has fewer"), "{line}");
        assert!(line.ends_with("up to +51.5% (b)"), "{line}");
        assert_eq!(against_paper(&tried, BoardSize { width: 6, height: 5 }), None);
    }

    #[test]
    fn the_papers_time_is_taken_on_the_cheapest_orders_threads_and_traversal() {
        let board = BoardSize { width: 7, height: 6 };
        let run = |order: &str, sum: u64, time_s: f64, traversal: Traversal| OrderCost {
            time_s,
            traversal,
            ..cost(order, sum)
        };
        let tried = [
            run("paper", 1000, 9.0, Traversal::BreadthFirst),
            run("paper", 1000, 60.0, Traversal::DepthFirst),
            run("a", 900, 50.0, Traversal::DepthFirst),
        ];
        let line = against_paper(&tried, board).unwrap();
        assert!(line.ends_with("time 50 s on 1 thread(s), depth-first, against 60 s on 1, depth-first"), "{line}");
        // Where the paper's order has no run like it, its cheapest run, named.
        let line = against_paper(&tried[..1].iter().chain(&tried[2..]).cloned().collect::<Vec<_>>(), board).unwrap();
        assert!(line.ends_with("time 50 s on 1 thread(s), depth-first, against 9 s on 1, breadth-first"), "{line}");
    }
}
