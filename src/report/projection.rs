//! What the whole 7x6 solve would need with c4bdd, projected from archived
//! runs: our 6x6 solves beside the paper's (the time of the fastest on one
//! thread; the memory per node and the working set over the largest ply of
//! the one with the fewest bytes per node), the paper's figures for 7x6, the
//! 7x6 plies we solved (how fast the won and lost sets grow per ply), the
//! splits of the 6x6 solution's largest ply on its top variables, and solves
//! whose pre-images were computed in parts (per column, or on an image
//! split) beside the same solves with one relation.

use std::fmt::Write as _;

use super::data::{Archive, Configuration, Paper, Run};
use super::B76;
use crate::encoding::EncodingKind;
use crate::experiment::Pass;
use crate::game::BoardSize;
use crate::search::{ImageStrategy, TerminalStrategy};

const B66: BoardSize = BoardSize { width: 6, height: 6 };

/// Memory sizes a machine is sold with, in GB.
const MACHINES_GB: [f64; 6] = [32.0, 64.0, 128.0, 256.0, 512.0, 1024.0];

/// The projection section of paper-repro.md (empty without a 6x6 solve and
/// the paper's figures).
pub fn projection_7x6(archive: &Archive, paper: &Paper) -> String {
    let is_solve66 = |r: &Run| r.row.pass == Pass::Solve && r.board() == B66;
    // Time from the fastest single-threaded solve (the paper's ran on one
    // thread); memory from the solve with the fewest bytes per peak node
    // (the node store as it is now).
    let timed = archive.best_any_threads(is_solve66);
    let lean = archive
        .runs
        .iter()
        .filter(|r| r.ok() && is_solve66(r))
        .min_by(|a, b| bytes_per_node(a).total_cmp(&bytes_per_node(b)));
    let (Some(t66), Some(r66), Some(p66), Some(p76)) = (timed, lean, paper.solve(B66), paper.solve(B76)) else {
        return String::new();
    };
    let (Some(largest), Some(ply), Some(ply_gb)) = (p76.largest_ply_nodes, p76.largest_ply, p76.largest_ply_gb) else {
        return String::new();
    };
    let largest66 = r66.plies.iter().map(|p| p.bdd_nodes).max().unwrap_or(1).max(1);
    let stored66: u64 = r66.plies.iter().map(|p| p.bdd_nodes).sum();
    let time_factor = t66.row.time_s / p66.time_s;
    let working_set = r66.row.peak_nodes as f64 / largest66 as f64;
    let bytes_per_node = bytes_per_node(r66);
    let disk_per_node = r66.row.solution_bytes.unwrap_or(0) as f64 / stored66.max(1) as f64;
    let peak = working_set * largest as f64;
    let ram_gb = peak * bytes_per_node / 1e9;
    let hours = time_factor * p76.time_s / 3600.0;
    let paper_disk_per_node = ply_gb * 1e9 / largest as f64;
    let disk_gb = p76.disk_gb.map(|d| d * disk_per_node / paper_disk_per_node);
    let machine =
        MACHINES_GB.iter().find(|&&gb| gb >= ram_gb * 1.1).map_or("more than 1 TB".into(), |gb| format!("{gb:.0} GB"));
    let mut s = String::from("## The whole 7x6 solve with c4bdd: a projection\n\n");
    let _ = writeln!(
        s,
        "From our 6x6 solves beside the paper's: {:.2} of its time ({:.0} s against {:.0} s; {}, threads: {}); \
{bytes_per_node:.1} bytes of RSS per peak live node, a peak of {working_set:.1} times the largest ply's won and lost \
nodes ({} against {largest66}) and {disk_per_node:.1} bytes on disk per stored node ({}, threads: {}). The paper's \
7x6 solve: {:.0} h, {:.0} GB, {} GB on disk; its largest ply, {ply}, holds over {largest} nodes in {ply_gb} GB \
({paper_disk_per_node:.1} bytes a node).\n",
        time_factor,
        t66.row.time_s,
        p66.time_s,
        t66.source.display(),
        t66.row.threads.unwrap_or(1),
        r66.row.peak_nodes,
        r66.source.display(),
        r66.row.threads.unwrap_or(1),
        p76.time_s / 3600.0,
        p76.ram_gb,
        p76.disk_gb.map_or("?".into(), |d| d.to_string()),
    );
    let _ = writeln!(
        s,
        "Projected for c4bdd on 7x6 (the same ratios): a peak of about {:.1e} live nodes, so about {ram_gb:.0} GB of \
memory (the paper: {:.0} GB), about {hours:.0} h on a machine like this one (the paper: {:.0} h), and {} on disk \
(the paper: {} GB). A machine with {machine} of memory would do it; this one (24 GiB) cannot hold the middle plies. \
The figures are lower bounds as far as the paper's \"over 1.1 billion\" is one.\n",
        peak,
        p76.ram_gb,
        p76.time_s / 3600.0,
        disk_gb.map_or("?".into(), |d| format!("about {d:.0} GB")),
        p76.disk_gb.map_or("?".into(), |d| d.to_string()),
    );
    if let Some(text) = measured_growth(archive, largest, ply) {
        s += &text;
    }
    s += &held_layers(archive, r66, bytes_per_node);
    s += &case_split(archive, ram_gb);
    s += &preimages_in_parts(archive, ram_gb);
    s
}

/// The nodes of a board's layers (every ply's states), added, from its
/// count in the solve's encoding (compressed) and `order`, with termination
/// and every ply recorded, of the fewest peak nodes, and that count.
fn layer_nodes<'a>(archive: &'a Archive, board: BoardSize, order: &'a str) -> Option<(u64, &'a Run)> {
    let counts = archive.ok_runs(move |r| {
        r.row.pass == Pass::Count
            && r.board() == board
            && r.row.encoding == EncodingKind::Compressed
            && r.row.terminal == TerminalStrategy::Whole
            && r.row.order == order
            && r.plies.len() as u32 == board.cells() + 1
    });
    let run = counts.min_by_key(|r| r.row.peak_nodes)?;
    Some((run.plies.iter().map(|p| p.bdd_nodes).sum(), run))
}

/// What keeping the plies on disk between steps saves: the layers a solve
/// would otherwise hold, on 6x6 against the peak of the solve `r66` and on
/// 7x6 in memory at `bytes_per_node`; empty without both counts.
fn held_layers(archive: &Archive, r66: &Run, bytes_per_node: f64) -> String {
    let (order, peak66) = (r66.row.order.as_str(), r66.row.peak_nodes);
    let (Some((n66, c66)), Some((n76, c76))) = (layer_nodes(archive, B66, order), layer_nodes(archive, B76, order))
    else {
        return String::new();
    };
    format!(
        "Plies kept on disk between steps (`solve --down-to`, how our 7x6 plies were solved): the forward pass's layers \
are then not held beside the retrograde pass. Held, they would add at most their nodes summed (layers share some): \
{n66} on 6x6 ({:.2} of the solve's peak above; {}), {n76} on 7x6 ({}), about {:.0} GB at {bytes_per_node:.1} bytes \
a node.\n\n",
        n66 as f64 / peak66.max(1) as f64,
        c66.source.display(),
        c76.source.display(),
        n76 as f64 * bytes_per_node / 1e9,
    )
}

/// Bytes of peak RSS per peak live node of a run.
fn bytes_per_node(r: &Run) -> f64 {
    r.row.peak_rss_bytes as f64 / r.row.peak_nodes.max(1) as f64
}

/// What splitting each ply on its top variables would do to the projected
/// memory (`ram_gb`), from the splits of our 6x6 solution's largest ply
/// (`c4bdd parts`); empty without them.
fn case_split(archive: &Archive, ram_gb: f64) -> String {
    let rows: Vec<_> = archive.splits.iter().filter(|(_, r)| r.board == B66.to_string()).collect();
    let Some(whole) = rows.iter().map(|(_, r)| r.whole_nodes).max() else {
        return String::new();
    };
    let rows: Vec<_> = rows.into_iter().filter(|(_, r)| r.whole_nodes == whole).collect();
    let (source, first) = &rows[0];
    let mut s = format!(
        "Split on its top state variables (`c4bdd parts`, {}), the 6x6 solution's largest ply (ply {}, {whole} \
nodes of won and lost, {} encoding, order {}) falls into parts of these shares of its nodes; a solve that held one \
part at a time, with the parts of the next ply its moves reach, would need about the largest part's share of the \
memory above, if the working set shrinks as the ply's sets do:\n\n",
        source.display(),
        first.ply,
        first.encoding,
        first.order
    );
    s += "| top variables | parts | largest part | all parts | memory at the largest part's share |\n|---|---:|---:|---:|---:|\n";
    let tops: std::collections::BTreeSet<u32> = rows.iter().map(|(_, r)| r.top).collect();
    for top in tops {
        let parts: Vec<_> = rows.iter().filter(|(_, r)| r.top == top).map(|(_, r)| r).collect();
        let largest = parts.iter().map(|r| r.nodes).max().unwrap_or(0) as f64 / whole.max(1) as f64;
        let total = parts.iter().map(|r| r.nodes).sum::<u64>() as f64 / whole.max(1) as f64;
        let _ = writeln!(
            s,
            "| {} ({}) | {} | {largest:.3} | {total:.3} | {:.0} GB |",
            top,
            parts[0].variables,
            parts.len(),
            ram_gb * largest
        );
    }
    s + "\n"
}

/// How the won and lost sets of our 7x6 plies (solved whole) grow per ply
/// down from the last, and where that growth would reach the paper's largest ply.
fn measured_growth(archive: &Archive, largest: u64, largest_ply: u32) -> Option<String> {
    let (_, plies) = archive.whole_plies(B76)?;
    let last3: Vec<_> = plies.iter().take(3).collect();
    if last3.len() < 2 {
        return None;
    }
    let (low, high) = (last3[0], last3[last3.len() - 1]);
    let steps = (high.ply - low.ply) as f64;
    let growth = (low.bdd_nodes as f64 / high.bdd_nodes.max(1) as f64).powf(1.0 / steps);
    let time_growth = (low.time_s / high.time_s.max(1e-9)).powf(1.0 / steps);
    let to_largest = (largest as f64 / low.bdd_nodes.max(1) as f64).ln() / growth.ln();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Our 7x6 plies {} to {}: the won and lost sets grow {growth:.2} times a ply down ({} nodes at ply {}), the time \
{time_growth:.2} times a ply. At that rate they would reach the paper's largest ply ({largest} nodes) about \
{to_largest:.0} plies further down, near ply {:.0} (the paper's is ply {largest_ply}); the growth slows towards the \
middle plies, so this is where the memory runs out first, not how large the middle plies get.\n",
        high.ply,
        low.ply,
        low.bdd_nodes,
        low.ply,
        low.ply as f64 - to_largest,
    );
    Some(s)
}

/// The one relation over all moves whose products `image` computes in parts
/// (one relation per column); `image` itself for a strategy of one relation.
fn one_relation(image: ImageStrategy) -> ImageStrategy {
    match image {
        ImageStrategy::InPlaceColumns => ImageStrategy::InPlace,
        ImageStrategy::Columns => ImageStrategy::Monolithic,
        one => one,
    }
}

/// What computing each pre-image in parts and joining them (per column, or
/// on an image split) does to a solve's peak live nodes and time, and to the
/// projected memory (`ram_gb`): every single-threaded solve in parts beside
/// its twin of the same sweep with one relation and no split; empty without
/// such a pair.
fn preimages_in_parts(archive: &Archive, ram_gb: f64) -> String {
    let solves = || archive.ok_runs(|r| r.row.pass == Pass::Solve && r.single_threaded());
    let pairs: Vec<(&Run, &Run)> = solves()
        .filter(|parts| parts.configuration().image_split > 0 || one_relation(parts.row.image) != parts.row.image)
        .filter_map(|parts| {
            let c = parts.configuration();
            let key = Configuration { image: one_relation(c.image), image_split: 0, ..c };
            solves().find(|whole| whole.configuration() == key).map(|whole| (whole, parts))
        })
        .collect();
    if pairs.is_empty() {
        return String::new();
    }
    let sources: std::collections::BTreeSet<String> =
        pairs.iter().map(|(_, p)| p.source.display().to_string()).collect();
    let mut s = format!(
        "Pre-images computed in parts and joined with or (`--image in-place-columns` and `columns`: one relational \
product per move; `--image-split K`: one product per part of the operand cut on K top variables; {}), \
against one product over all moves (`in-place`, `monolithic`), solves on one thread:\n\n",
        sources.into_iter().collect::<Vec<_>>().join(", ")
    );
    s += "| board | whole | in parts | peak live nodes, whole | in parts | ratio | time (s), whole | in parts \
|\n|---|---|---|---:|---:|---:|---:|---:|\n";
    let mut ratios = Vec::new();
    for (whole, parts) in &pairs {
        let ratio = parts.row.peak_nodes as f64 / whole.row.peak_nodes.max(1) as f64;
        if whole.row.image == ImageStrategy::InPlace {
            ratios.push(ratio);
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {ratio:.2} | {:.1} | {:.1} |",
            whole.board(),
            whole.configuration().image_label(),
            parts.configuration().image_label(),
            whole.row.peak_nodes,
            parts.row.peak_nodes,
            whole.row.time_s,
            parts.row.time_s
        );
    }
    let (low, high) = ratios.iter().fold((f64::MAX, f64::MIN), |(l, h), &r| (l.min(r), h.max(r)));
    if !ratios.is_empty() {
        let _ = writeln!(
            s,
            "\nAt the in-place ratios measured ({low:.2} to {high:.2}), the projected memory above would be about \
{:.0} to {:.0} GB, at the time ratios above. Parts also let a ply's checkpoint keep its pre-images after \
each part's product (at most every ten minutes), not only once each is finished; a resumed solve may \
switch to them.",
            ram_gb * low,
            ram_gb * high
        );
    }
    s + "\n"
}
