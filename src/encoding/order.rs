//! Variable orders: an arrangement of one frame's state variables (the two
//! frames are then interleaved variable by variable).
//!
//! Built-in orders place side to move first and arrange cell variables by
//! board geometry, so each works with every encoding:
//! - `column-wise`: column by column from the left, rows bottom up;
//! - `row-wise`: row by row from the bottom, columns from the left;
//! - `paper`: the paper's artifact setting: column-wise, except row-wise for
//!   the cellwise encoding on boards taller than wide (its Table 1 runs);
//! - `center-out` (ours): column-wise, but columns in order of distance from
//!   the centre (centre first, left before right), rows bottom up;
//! - `columns:P` (ours): column-wise with the columns in the order of the
//!   permutation P of `1..=w`, e.g. `columns:3,2,4,1,5` (centre-out on 5
//!   columns), rows bottom up;
//! - `custom:FILE`: the variable names listed in FILE (whitespace or comma
//!   separated), which must be a permutation of the encoding's variables.

use std::path::PathBuf;
use std::str::FromStr;

use super::{EncodingKind, StateVar};
use crate::error::{Error, Result};
use crate::game::{BoardSize, MAX_SIDE};

/// An arrangement of state variables; implement it to add an order.
pub trait VariableOrder {
    /// The name recorded in results.
    fn name(&self) -> String;

    /// State variable indices in level order (a permutation of `0..vars.len()`).
    fn arrange(&self, vars: &[StateVar], size: BoardSize) -> Result<Vec<usize>>;
}

/// Orders that sort variables by a key computed from their cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Geometric {
    ColumnWise,
    RowWise,
    CenterOut,
}

impl VariableOrder for Geometric {
    fn name(&self) -> String {
        match self {
            Geometric::ColumnWise => "column-wise",
            Geometric::RowWise => "row-wise",
            Geometric::CenterOut => "center-out",
        }
        .to_string()
    }

    fn arrange(&self, vars: &[StateVar], size: BoardSize) -> Result<Vec<usize>> {
        let w = size.width as i32;
        let key = |v: &StateVar| -> (u8, i32, i32, u8) {
            match v.cell {
                None => (0, 0, 0, 0),
                Some((c, r)) => {
                    let (c, r) = (c as i32, r as i32);
                    match self {
                        Geometric::ColumnWise => (1, c, r, v.slot),
                        Geometric::RowWise => (1, r, c, v.slot),
                        Geometric::CenterOut => (1, centre_distance(c, w), r, v.slot),
                    }
                }
            }
        };
        let mut idx: Vec<usize> = (0..vars.len()).collect();
        idx.sort_by_key(|&i| key(&vars[i]));
        Ok(idx)
    }
}

/// Column-wise with the columns permuted (1-based column numbers).
struct ColumnPermutation {
    columns: Vec<u32>,
}

impl VariableOrder for ColumnPermutation {
    fn name(&self) -> String {
        OrderSpec::Columns(self.columns.clone()).name()
    }

    fn arrange(&self, vars: &[StateVar], size: BoardSize) -> Result<Vec<usize>> {
        let w = size.width as u32;
        let mut sorted = self.columns.clone();
        sorted.sort_unstable();
        if !sorted.iter().copied().eq(1..=w) {
            let reason = format!("{}: not a permutation of the columns 1..={w}", self.name());
            return Err(Error::InvalidOrder { reason });
        }
        let rank = |c: u8| self.columns.iter().position(|&k| k == c as u32 + 1).unwrap_or(0);
        let key = |v: &StateVar| v.cell.map_or((0, 0, 0, 0), |(c, r)| (1, rank(c), r, v.slot));
        let mut idx: Vec<usize> = (0..vars.len()).collect();
        idx.sort_by_key(|&i| key(&vars[i]));
        Ok(idx)
    }
}

/// The centre-out rank of column `c` (0-based) on a board `w` wide: distance
/// from the centre, the left column of a pair first.
fn centre_distance(c: i32, w: i32) -> i32 {
    (2 * c - (w - 1)).abs() * 2 + (2 * c > w - 1) as i32
}

/// The columns (1-based) in centre-out order, e.g. 3,2,4,1,5 on 5 columns.
pub fn center_out_columns(width: u32) -> Vec<u32> {
    let mut columns: Vec<u32> = (1..=width).collect();
    columns.sort_by_key(|&c| centre_distance(c as i32 - 1, width as i32));
    columns
}

/// Every permutation of the columns `1..=width` up to mirror image (the
/// mirrored order gives BDDs of the same sizes: the game is symmetric), in
/// lexicographic order, each as the smaller of itself and its mirror image.
pub fn column_permutations(width: u32) -> Vec<Vec<u32>> {
    fn extend(prefix: &mut Vec<u32>, width: u32, out: &mut Vec<Vec<u32>>) {
        if prefix.len() == width as usize {
            let mirror: Vec<u32> = prefix.iter().map(|&c| width + 1 - c).collect();
            if *prefix <= mirror {
                out.push(prefix.clone());
            }
            return;
        }
        for c in 1..=width {
            if !prefix.contains(&c) {
                prefix.push(c);
                extend(prefix, width, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(&mut Vec::new(), width, &mut out);
    out
}

/// An order listed by variable names.
struct Custom {
    source: String,
    names: Vec<String>,
}

impl VariableOrder for Custom {
    fn name(&self) -> String {
        format!("custom:{}", self.source)
    }

    fn arrange(&self, vars: &[StateVar], _size: BoardSize) -> Result<Vec<usize>> {
        let invalid = |reason: String| Error::InvalidOrder { reason: format!("{}: {reason}", self.source) };
        let mut placed = vec![false; vars.len()];
        let mut out = Vec::with_capacity(vars.len());
        for name in &self.names {
            let Some(i) = vars.iter().position(|v| &v.name == name) else {
                return Err(invalid(format!("unknown variable '{name}'")));
            };
            if std::mem::replace(&mut placed[i], true) {
                return Err(invalid(format!("variable '{name}' is listed twice")));
            }
            out.push(i);
        }
        if let Some(i) = placed.iter().position(|&p| !p) {
            let missing = placed.iter().filter(|&&p| !p).count();
            return Err(invalid(format!("{missing} variables are missing, the first is '{}'", vars[i].name)));
        }
        Ok(out)
    }
}

/// An order as chosen on the command line or in a spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderSpec {
    ColumnWise,
    RowWise,
    Paper,
    CenterOut,
    /// Column-wise, columns in this order (1-based column numbers).
    Columns(Vec<u32>),
    /// Names read from a file.
    Custom {
        path: PathBuf,
        names: Vec<String>,
    },
}

impl OrderSpec {
    /// The built-in order names accepted by `from_str`.
    pub const BUILT_IN: [&'static str; 4] = ["column-wise", "row-wise", "paper", "center-out"];

    /// The name recorded in results (`paper` resolves per board in `resolve`).
    pub fn name(&self) -> String {
        match self {
            OrderSpec::Paper => "paper".into(),
            OrderSpec::Custom { path, .. } => format!("custom:{}", path.display()),
            OrderSpec::Columns(columns) => {
                format!("columns:{}", columns.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
            }
            other => other.resolve(BoardSize { width: 1, height: 1 }, EncodingKind::Compressed).name(),
        }
    }

    /// The order to use on a board with an encoding.
    pub fn resolve(&self, size: BoardSize, encoding: EncodingKind) -> Box<dyn VariableOrder> {
        match self {
            OrderSpec::ColumnWise => Box::new(Geometric::ColumnWise),
            OrderSpec::RowWise => Box::new(Geometric::RowWise),
            OrderSpec::CenterOut => Box::new(Geometric::CenterOut),
            OrderSpec::Columns(columns) => Box::new(ColumnPermutation { columns: columns.clone() }),
            OrderSpec::Paper if size.height > size.width && encoding == EncodingKind::Cellwise => {
                Box::new(Geometric::RowWise)
            }
            OrderSpec::Paper => Box::new(Geometric::ColumnWise),
            OrderSpec::Custom { path, names } => {
                Box::new(Custom { source: path.display().to_string(), names: names.clone() })
            }
        }
    }

    /// Arrange an encoding's variables for a board.
    pub fn arrange(&self, vars: &[StateVar], size: BoardSize, encoding: EncodingKind) -> Result<Vec<usize>> {
        self.resolve(size, encoding).arrange(vars, size)
    }
}

impl FromStr for OrderSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<OrderSpec, String> {
        match s {
            "column-wise" => Ok(OrderSpec::ColumnWise),
            "row-wise" => Ok(OrderSpec::RowWise),
            "paper" => Ok(OrderSpec::Paper),
            "center-out" => Ok(OrderSpec::CenterOut),
            _ if s.starts_with("columns:") => {
                let list = &s["columns:".len()..];
                let columns = list
                    .split(',')
                    .map(|t| t.trim().parse::<u32>().ok().filter(|&c| (1..=MAX_SIDE as u32).contains(&c)))
                    .collect::<Option<Vec<u32>>>()
                    .ok_or_else(|| {
                        format!("bad order '{s}': expected columns:C1,C2,... with columns 1..={MAX_SIDE}")
                    })?;
                Ok(OrderSpec::Columns(columns))
            }
            _ => {
                let Some(path) = s.strip_prefix("custom:") else {
                    return Err(format!(
                        "unknown order '{s}' (expected one of {}, columns:C1,C2,... or custom:FILE)",
                        OrderSpec::BUILT_IN.join(", ")
                    ));
                };
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read order file {path}: {e}"))?;
                let names = text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty());
                Ok(OrderSpec::Custom { path: PathBuf::from(path), names: names.map(String::from).collect() })
            }
        }
    }
}
