//! `c4bdd parts`: a solved ply split on variables of cells.

use anyhow::Result;

use crate::cli::{InputError, PartsArgs};
use c4bdd::search::stored::parts::{cut_positions, max_top, ply_parts, top_cells};
use c4bdd::search::Solution;

/// Split the ply (the largest file's by default) and print every part; the
/// arguments are checked before the ply is loaded.
pub fn parts(args: PartsArgs) -> Result<()> {
    let mut solution = Solution::open(&args.solution)?;
    let largest = solution.manifest.plies.iter().max_by_key(|p| p.bytes).map(|p| p.ply);
    let ply = args.ply.or(largest).expect("a solution holds at least one ply");
    let plies = solution.plies();
    if !plies.contains(&ply) {
        let msg = format!("--ply {ply}: the solution holds plies {}..={}", plies.start(), plies.end());
        return Err(InputError(msg).into());
    }
    let cut = match &args.cut {
        Some(names) => {
            cut_positions(&solution.space, names).map_err(|e| InputError(format!("--cut: {e}")))?;
            names.clone()
        }
        None => top_cells(&solution.space, args.top as usize),
    };
    let most = max_top(&solution);
    if cut.len() as u32 > most || (args.cut.is_none() && args.top > most) {
        let (flag, n) = if args.cut.is_some() { ("--cut", cut.len() as u32) } else { ("--top", args.top) };
        return Err(InputError(format!("{flag} {n}: this solution's plies take at most {most} variables")).into());
    }
    if let Some(dir) = args.csv.as_deref().and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
    {
        return Err(InputError(format!("--csv: no such directory {}", dir.display())).into());
    }
    let split = ply_parts(&mut solution, ply, &cut)?;
    println!("{} ply {ply}, split on {} ({} parts)", solution.size(), split.variables.join(", "), split.parts.len());
    println!("{:>8} {:>12} {:>12} {:>12} {:>18} {:>18}", "part", "won nodes", "lost nodes", "nodes", "won", "lost");
    for p in split.parts.iter().chain([&split.whole]) {
        let name = if p.values.is_empty() { "whole" } else { &p.values };
        println!("{name:>8} {:>12} {:>12} {:>12} {:>18} {:>18}", p.won_nodes, p.lost_nodes, p.nodes, p.won, p.lost);
    }
    let whole = split.whole.nodes.max(1) as f64;
    println!(
        "largest part {} nodes ({:.3} of the whole), all parts {} nodes ({:.3} of the whole)",
        split.largest(),
        split.largest() as f64 / whole,
        split.total(),
        split.total() as f64 / whole
    );
    if let Some(path) = &args.csv {
        split.write_csv(path)?;
        println!("{}: {} rows", path.display(), split.parts.len());
    }
    Ok(())
}
