//! The whole 7x6 solve as measured, once the archive holds every ply of it:
//! the section of paper-repro.md that takes the projection's place.

use std::fmt::Write as _;

use c4bdd_core::{BLOCK_NODES, NODE_BYTES};

use super::data::{Archive, Paper};
use super::repro::hms;
use super::trace::KeptPly;
use super::B76;
use crate::experiment::record::PlyRow;

/// Bytes a node takes in a c4bdd BDD file: its record and its share of its
/// block's checksum (headers and roots aside).
pub fn file_bytes_per_node() -> f64 {
    NODE_BYTES as f64 + 4.0 / BLOCK_NODES as f64
}

/// The value of the empty board from ply 0's row (the view of the first
/// player, who moves at ply 0), if the row is there and holds one position.
pub fn empty_board_value(plies: &[PlyRow]) -> Option<&'static str> {
    let p = plies.iter().find(|p| p.ply == 0)?;
    match (p.won, p.drawn, p.lost) {
        (Some(1), Some(0), Some(0)) => Some("the first player wins"),
        (Some(0), Some(1), Some(0)) => Some("a draw"),
        (Some(0), Some(0), Some(1)) => Some("the second player wins"),
        _ => None,
    }
}

/// The won and lost nodes of `plies` added, and the gigabytes they take as
/// c4bdd files.
pub(super) fn solution_disk(plies: &[PlyRow]) -> (u64, f64) {
    let stored: u64 = plies.iter().map(|p| p.bdd_nodes).sum();
    (stored, stored as f64 * file_bytes_per_node() / 1e9)
}

/// The measured section, or `None` until the archive's 7x6 plies reach ply 0
/// (or without the paper's figures for 7x6).
pub fn measured_7x6(archive: &Archive, paper: &Paper) -> Option<String> {
    let (source, plies) = archive.solved_plies(B76)?;
    let p76 = paper.solve(B76)?;
    if plies.first()?.ply != 0 {
        return None;
    }
    let largest = plies.iter().max_by_key(|p| p.bdd_nodes)?;
    let time: f64 = plies.iter().map(|p| p.time_s).sum();
    let process_peak = plies.iter().filter_map(|p| p.peak_rss_bytes).max().unwrap_or(0);
    let partial = archive.partial_solve_from(B76, source);
    let traced = partial.and_then(|p| p.trace.peak_bytes());
    let peak = traced.unwrap_or(process_peak).max(process_peak) as f64 / 1e9;
    let (stored, disk_gb) = solution_disk(plies);
    let mut s = String::from("## The whole 7x6 solve with c4bdd: measured\n\n");
    let _ = writeln!(
        s,
        "Ours ({}): all {} plies, each row equal to the paper's where Table 2 above says so; {} of plies in all \
(the paper: {:.0} h on one core), the largest ply {} with {} won and lost nodes{}, a peak of {:.1} GB of RSS{} (the \
paper: {:.0} GB, {:.1} times ours).\n",
        source.display(),
        plies.len(),
        hms(time),
        p76.time_s / 3600.0,
        largest.ply,
        largest.bdd_nodes,
        if partial.is_some_and(|p| p.partitioned().is_some()) { " (its parts' added)" } else { "" },
        peak,
        if traced.is_some() { " (all the run's processes together, sampled every 30 s)" } else { "" },
        p76.ram_gb,
        p76.ram_gb / peak.max(f64::MIN_POSITIVE),
    );
    let _ = writeln!(
        s,
        "On disk, every ply's won and lost sets as c4bdd files would take about {disk_gb:.1} GB ({stored} nodes at \
{:.3} bytes a node; the paper: {} GB).\n",
        file_bytes_per_node(),
        p76.disk_gb.map_or("?".into(), |d| d.to_string()),
    );
    if let Some(kept) = partial.and_then(|p| p.trace.kept.as_deref()) {
        s += &kept_plies(kept);
    }
    Some(s)
}

/// Which plies' won and lost sets the run left on disk (`solution-kept.csv`).
pub(super) fn kept_plies(kept: &[KeptPly]) -> String {
    if kept.is_empty() {
        return "Kept on disk when the archive was collected: no ply's won and lost sets (the rows above are the \
run's result; `solve --parts --solution-budget` sets how many bytes of them a run keeps).\n\n"
            .into();
    }
    let plies: Vec<String> = kept.iter().map(|k| k.ply.to_string()).collect();
    let bytes: u64 = kept.iter().map(|k| k.bytes).sum();
    let files: u32 = kept.iter().map(|k| k.files).sum();
    format!(
        "Kept on disk when the archive was collected: the won and lost sets of plies {} ({files} files, {:.1} GB; \
`solve --parts --solution-budget` sets how many bytes of them a run keeps).\n\n",
        plies.join(", "),
        bytes as f64 / 1e9
    )
}
