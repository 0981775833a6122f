//! What the whole 7x6 solve would need with c4bdd, projected from archived
//! runs: our 6x6 solve beside the paper's (time, memory per node, the
//! working set over the largest ply), the paper's figures for 7x6, and the
//! 7x6 plies we solved (how fast the won and lost sets grow per ply).

use std::fmt::Write as _;

use super::data::{Archive, Paper};
use super::B76;
use crate::experiment::Pass;
use crate::game::BoardSize;

const B66: BoardSize = BoardSize { width: 6, height: 6 };

/// Memory sizes a machine is sold with, in GB.
const MACHINES_GB: [f64; 6] = [32.0, 64.0, 128.0, 256.0, 512.0, 1024.0];

/// The projection section of paper-repro.md (empty without a 6x6 solve and
/// the paper's figures).
pub fn projection_7x6(archive: &Archive, paper: &Paper) -> String {
    let solve66 = archive.best_any_threads(|r| r.row.pass == Pass::Solve && r.board() == B66);
    let (Some(r66), Some(p66), Some(p76)) = (solve66, paper.solve(B66), paper.solve(B76)) else {
        return String::new();
    };
    let (Some(largest), Some(ply), Some(ply_gb)) = (p76.largest_ply_nodes, p76.largest_ply, p76.largest_ply_gb) else {
        return String::new();
    };
    let largest66 = r66.plies.iter().map(|p| p.bdd_nodes).max().unwrap_or(1).max(1);
    let stored66: u64 = r66.plies.iter().map(|p| p.bdd_nodes).sum();
    let time_factor = r66.row.time_s / p66.time_s;
    let working_set = r66.row.peak_nodes as f64 / largest66 as f64;
    let bytes_per_node = r66.row.peak_rss_bytes as f64 / r66.row.peak_nodes.max(1) as f64;
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
        "From our 6x6 solve ({}, threads: {}) beside the paper's: {:.2} of its time ({:.0} s against {:.0} s), \
{bytes_per_node:.0} bytes of RSS per peak live node, a peak of {working_set:.1} times the largest ply's won and lost \
nodes ({} against {largest66}), and {disk_per_node:.1} bytes on disk per stored node. The paper's 7x6 solve: \
{:.0} h, {:.0} GB, {} GB on disk; its largest ply, {ply}, holds over {largest} nodes in {ply_gb} GB \
({paper_disk_per_node:.1} bytes a node).\n",
        r66.source.display(),
        r66.row.threads.unwrap_or(1),
        time_factor,
        r66.row.time_s,
        p66.time_s,
        r66.row.peak_nodes,
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
    s
}

/// How the won and lost sets of our 7x6 plies grow per ply down from the
/// last, and where that growth would reach the paper's largest ply.
fn measured_growth(archive: &Archive, largest: u64, largest_ply: u32) -> Option<String> {
    let (_, plies) = archive.solved_plies(B76)?;
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
