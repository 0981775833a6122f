//! A solved ply split on variables of cells (by default the first `k` in
//! the order): for every assignment of them, the won and lost sets of the
//! positions that have it. A solve by case split would hold one such part at
//! a time (with the parts of the next ply its pre-images read), so the
//! largest part against the whole ply is the memory such a split saves, and
//! all parts together against the whole is what it costs in nodes that the
//! parts no longer share.

use serde::{Deserialize, Serialize};

use crate::bdd::{Bdd, Manager, Var};
use crate::encoding::{EncodingKind, Frame, StateSpace};
use crate::error::Result;
use crate::search::stored::solution::Solution;

/// Most top variables a split takes (2^16 parts).
pub const MAX_TOP: u32 = 16;

/// One part of a ply: the positions whose cut variables have `values`;
/// also a row of a split's CSV (`parts.csv`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// The solution's board, `WxH`.
    pub board: String,
    pub encoding: EncodingKind,
    pub order: String,
    pub ply: u32,
    /// How many variables the ply is split on (the first `top` of the
    /// order's cells unless `variables` names others).
    pub top: u32,
    /// Their names, in the order they were given, separated by spaces.
    pub variables: String,
    /// This part's values of them, first first, as `0`/`1`.
    pub values: String,
    /// Nodes of the part's won set (view of the player to move).
    pub won_nodes: u64,
    /// Nodes of the part's lost set.
    pub lost_nodes: u64,
    /// Nodes of both sets together (shared nodes once).
    pub nodes: u64,
    /// Positions won and lost for the player to move.
    pub won: u128,
    pub lost: u128,
    /// Nodes of the whole ply's won and lost sets.
    pub whole_nodes: u64,
}

/// A ply and its parts.
#[derive(Clone, Debug)]
pub struct PlyParts {
    pub ply: u32,
    /// The names of the cut's variables, as given.
    pub variables: Vec<String>,
    /// The whole ply: the one part of a split on no variable.
    pub whole: Part,
    /// Every assignment of the cut's variables, in binary order of `values`.
    pub parts: Vec<Part>,
}

impl PlyParts {
    /// Nodes of the largest part.
    pub fn largest(&self) -> u64 {
        self.parts.iter().map(|p| p.nodes).max().unwrap_or(0)
    }

    /// Nodes of all parts added.
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.nodes).sum()
    }

    /// Write the parts as CSV rows to `path`, atomically.
    pub fn write_csv(&self, path: &std::path::Path) -> Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for part in &self.parts {
            w.serialize(part).expect("a row of numbers and names serializes");
        }
        let bytes = w.into_inner().expect("writing to memory does not fail");
        crate::search::files::write_atomic(path, &String::from_utf8(bytes).expect("the CSV is UTF-8"))
    }
}

/// The most variables a split of `solution`'s plies can take.
pub fn max_top(solution: &Solution) -> u32 {
    MAX_TOP.min(cell_positions(&solution.space).len() as u32)
}

/// The names of the first `k` variables of cells in `space`'s order (the
/// side to move, the same for a whole ply, is skipped).
pub fn top_cells(space: &StateSpace, k: usize) -> Vec<String> {
    cell_positions(space).into_iter().take(k).map(|j| space.arrangement[j].clone()).collect()
}

/// The positions in the order of the cells' variables named `names`; an
/// error names the first that is not a cell's variable or comes twice.
pub fn cut_positions(space: &StateSpace, names: &[String]) -> std::result::Result<Vec<usize>, String> {
    let cells = cell_positions(space);
    let mut positions = Vec::with_capacity(names.len());
    for name in names {
        let j = cells.iter().copied().find(|&j| space.arrangement[j] == *name);
        match j {
            Some(j) if !positions.contains(&j) => positions.push(j),
            Some(_) => return Err(format!("{name} comes twice")),
            None => return Err(format!("{name} is not a variable of a cell of this board and encoding")),
        }
    }
    Ok(positions)
}

/// Split ply `ply` of `solution` on the variables of cells named `cut` (the
/// ply file is loaded whole). Every part is checked: the parts' positions
/// add up to the whole ply's. Panics if `cut` holds more than [`max_top`]
/// names or a name [`cut_positions`] refuses.
pub fn ply_parts(solution: &mut Solution, ply: u32, cut: &[String]) -> Result<PlyParts> {
    assert!(cut.len() as u32 <= max_top(solution), "at most {} variables", max_top(solution));
    let positions = cut_positions(&solution.space, cut).expect("the cut names variables of cells");
    let top = cut.len() as u32;
    let (win, lost) = solution.load_ply(ply)?;
    let variables = cut.to_vec();
    let top_vars: Vec<[Var; 2]> = positions.iter().map(|&j| both_frames(&solution.space, j)).collect();
    let frame = frame_of(&solution.space.manager, win, lost);
    let row = Part {
        board: solution.size().to_string(),
        encoding: solution.manifest.encoding,
        order: solution.manifest.order.clone(),
        ply,
        top: 0,
        variables: String::new(),
        values: String::new(),
        won_nodes: 0,
        lost_nodes: 0,
        nodes: 0,
        won: 0,
        lost: 0,
        whole_nodes: 0,
    };
    let space = &mut solution.space;
    let mut whole = measure(space, frame, row.clone(), win, lost);
    whole.whole_nodes = whole.nodes;
    let row = Part { top, variables: variables.join(" "), whole_nodes: whole.nodes, ..row };
    let mut parts = Vec::with_capacity(1 << top);
    for bits in 0..1u32 << top {
        let values: String = (0..top).map(|j| if bits >> (top - 1 - j) & 1 == 1 { '1' } else { '0' }).collect();
        let literals: Vec<(Var, bool)> =
            values.chars().zip(&top_vars).flat_map(|(c, vars)| vars.map(|v| (v, c == '1'))).collect();
        let w = space.manager.restrict(win, &literals)?;
        let l = space.manager.restrict(lost, &literals)?;
        parts.push(measure(space, frame, Part { values, ..row.clone() }, w, l));
        // Only the ply's own sets are kept across parts.
        space.manager.gc(&[win, lost]);
    }
    let (won, lost_n) = (parts.iter().map(|p| p.won).sum::<u128>(), parts.iter().map(|p| p.lost).sum::<u128>());
    assert_eq!((won, lost_n), (whole.won, whole.lost), "ply {ply}: the parts' positions add up to the whole's");
    Ok(PlyParts { ply, variables, whole, parts })
}

/// The frame a ply's sets are stored in (the frame of their top variable;
/// frame A for constant sets).
fn frame_of(m: &Manager, win: Bdd, lost: Bdd) -> Frame {
    match m.support_of(&[win, lost]).first() {
        Some(v) if v.0 % 2 == 1 => Frame::B,
        _ => Frame::A,
    }
}

/// The indices in the order (state variable `j` at levels `2j`, `2j + 1`)
/// of the state variables of cells, first first: the side to move is the
/// same for every position of a ply, so it splits nothing.
fn cell_positions(space: &StateSpace) -> Vec<usize> {
    let cells: std::collections::HashSet<String> =
        space.encoding.state_vars().into_iter().filter(|v| v.cell.is_some()).map(|v| v.name).collect();
    (0..space.arrangement.len()).filter(|&j| cells.contains(&space.arrangement[j])).collect()
}

/// The variables of the `j`-th state variable of the order, in both frames
/// (variable `2k` is state variable `k` of frame A, `2k + 1` of B).
fn both_frames(space: &StateSpace, j: usize) -> [Var; 2] {
    let var = space.manager.var_at(crate::bdd::Level(2 * j as u32));
    [var, Var(var.0 ^ 1)]
}

/// `part` with the sizes and counts of its sets `win` and `lost`, which do
/// not depend on its `top` fixed variables (so each position is counted
/// `2^top` times over the frame).
fn measure(space: &StateSpace, frame: Frame, part: Part, win: Bdd, lost: Bdd) -> Part {
    let m = &space.manager;
    Part {
        won_nodes: m.node_count(win) as u64,
        lost_nodes: m.node_count(lost) as u64,
        nodes: m.node_count_many(&[win, lost]) as u64,
        won: space.count(win, frame) >> part.top,
        lost: space.count(lost, frame) >> part.top,
        ..part
    }
}
