//! Variable orders: an arrangement of one frame's state variables (the two
//! frames are then interleaved variable by variable).
//!
//! Named orders ([`ORDERS`]: `column-wise`, `row-wise`, `paper`,
//! `center-out`) place side to move first and arrange cell variables by a key
//! of their cell, so each works with every encoding. To add one, add an
//! entry to [`ORDERS`]: its name, a line about it, and its cell key; the
//! command line, specs and results pick it up by its name. Besides them:
//! - `columns:P`: column-wise with the columns in the order of the
//!   permutation P of `1..=w`, e.g. `columns:3,2,4,1,5` (centre-out on 5
//!   columns), rows bottom up;
//! - `custom:FILE`: the variable names listed in FILE (whitespace or comma
//!   separated), which must be a permutation of the encoding's variables;
//! - `levels:NAMES`: the same list inline, comma separated (the form order
//!   search records its candidates in);
//! - `rule:FILE`: an [`OrderRule`] (TOML): an order by relative positions,
//!   for any board, e.g. one read off an order found on a small board.

use std::path::PathBuf;
use std::str::FromStr;

use super::rule::OrderRule;
use super::{EncodingKind, StateVar};
use crate::error::{CoreError, Error, Result};
use crate::game::{BoardSize, MAX_SIDE};

/// How a named order ranks a cell (column and row, 0-based, on a board):
/// variables are sorted by side to move first, then by this key, then by
/// their slot within the cell.
pub type CellKey = fn(col: i32, row: i32, size: BoardSize) -> (i32, i32);

/// An order with a name: what `--order NAME` and a spec's `orders` accept.
#[derive(Debug)]
pub struct NamedOrder {
    /// The name on the command line and in results.
    pub name: &'static str,
    /// What it does, for `--help` and the documentation.
    pub about: &'static str,
    /// The cell key on a board in an encoding (most orders ignore both).
    key: fn(BoardSize, EncodingKind) -> CellKey,
}

impl PartialEq for NamedOrder {
    fn eq(&self, other: &NamedOrder) -> bool {
        self.name == other.name
    }
}

impl Eq for NamedOrder {}

/// Every named order. To add one, add an entry here with its cell key.
pub static ORDERS: [NamedOrder; 4] = [
    NamedOrder {
        name: "column-wise",
        about: "column by column from the left, rows bottom up",
        key: |_, _| column_wise,
    },
    NamedOrder { name: "row-wise", about: "row by row from the bottom, columns from the left", key: |_, _| row_wise },
    NamedOrder {
        name: "paper",
        about: "the paper's artifact: column-wise, but row-wise for the cellwise encoding on boards taller than wide",
        key: |size, encoding| {
            if size.height > size.width && encoding == EncodingKind::Cellwise {
                row_wise
            } else {
                column_wise
            }
        },
    },
    NamedOrder {
        name: "center-out",
        about: "column-wise, the columns by distance from the centre (centre first, left before right)",
        key: |_, _| center_out,
    },
];

fn column_wise(col: i32, row: i32, _: BoardSize) -> (i32, i32) {
    (col, row)
}

fn row_wise(col: i32, row: i32, _: BoardSize) -> (i32, i32) {
    (row, col)
}

fn center_out(col: i32, row: i32, size: BoardSize) -> (i32, i32) {
    (centre_distance(col, size.width as i32), row)
}

/// The help of `--order`: every named order with what it does, then the
/// column permutations and order files.
pub fn help() -> String {
    let named: Vec<String> = ORDERS.iter().map(|o| format!("{} ({})", o.name, o.about)).collect();
    format!(
        "Variable order: {}; columns:P (column-wise, the columns in the order P, e.g. columns:3,2,4,1,5); \
custom:FILE (variable names in level order); levels:NAME,NAME,... (the same list inline); \
or rule:FILE (an order rule for any board, as `c4bdd orders search` writes)",
        named.join(", ")
    )
}

/// The variables' indices sorted by side to move first, then `key` of their
/// cell, then their slot in the cell.
fn arrange_by(vars: &[StateVar], key: impl Fn(i32, i32) -> (i32, i32)) -> Vec<usize> {
    let rank = |v: &StateVar| v.cell.map_or((0, (0, 0), 0), |(c, r)| (1, key(c as i32, r as i32), v.slot));
    let mut idx: Vec<usize> = (0..vars.len()).collect();
    idx.sort_by_key(|&i| rank(&vars[i]));
    idx
}

/// Column-wise with the columns permuted (1-based column numbers).
fn arrange_columns(columns: &[u32], vars: &[StateVar], size: BoardSize) -> Result<Vec<usize>> {
    let w = size.width as u32;
    let mut sorted = columns.to_vec();
    sorted.sort_unstable();
    if !sorted.iter().copied().eq(1..=w) {
        let reason =
            format!("{}: not a permutation of the columns 1..={w}", OrderSpec::Columns(columns.to_vec()).name());
        return Err(CoreError::InvalidOrder { reason }.into());
    }
    let rank = |c: i32| columns.iter().position(|&k| k == c as u32 + 1).unwrap_or(0) as i32;
    Ok(arrange_by(vars, |c, r| (rank(c), r)))
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

/// The names of an encoding's variables, the first and last few, for messages.
fn names_of(vars: &[StateVar]) -> String {
    let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
    match names.len() {
        0..=8 => names.join(", "),
        n => format!("{}, ..., {}", names[..4].join(", "), names[n - 3..].join(", ")),
    }
}

/// The variables in the order of `names` (read from `source`).
fn arrange_named(source: &str, names: &[String], vars: &[StateVar]) -> Result<Vec<usize>> {
    let invalid = |reason: String| Error::from(CoreError::InvalidOrder { reason: format!("{source}: {reason}") });
    let mut placed = vec![false; vars.len()];
    let mut out = Vec::with_capacity(vars.len());
    for name in names {
        let Some(i) = vars.iter().position(|v| &v.name == name) else {
            return Err(invalid(format!("unknown variable '{name}' (this encoding's: {})", names_of(vars))));
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

/// An order as chosen on the command line or in a spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderSpec {
    /// One of [`ORDERS`].
    Named(&'static NamedOrder),
    /// Column-wise, columns in this order (1-based column numbers).
    Columns(Vec<u32>),
    /// Names read from a file.
    Custom { path: PathBuf, names: Vec<String> },
    /// Names given inline.
    Levels(Vec<String>),
    /// A rule read from a file.
    Rule { path: PathBuf, rule: OrderRule },
}

impl OrderSpec {
    pub const COLUMN_WISE: OrderSpec = OrderSpec::Named(&ORDERS[0]);
    pub const ROW_WISE: OrderSpec = OrderSpec::Named(&ORDERS[1]);
    pub const PAPER: OrderSpec = OrderSpec::Named(&ORDERS[2]);
    pub const CENTER_OUT: OrderSpec = OrderSpec::Named(&ORDERS[3]);

    /// The named order called `name`, if any.
    pub fn named(name: &str) -> Option<OrderSpec> {
        ORDERS.iter().find(|o| o.name == name).map(OrderSpec::Named)
    }

    /// The name recorded in results (`paper` resolves per board in `arrange`).
    pub fn name(&self) -> String {
        match self {
            OrderSpec::Named(order) => order.name.to_string(),
            OrderSpec::Custom { path, .. } => format!("custom:{}", path.display()),
            OrderSpec::Levels(names) => format!("levels:{}", names.join(",")),
            OrderSpec::Rule { path, .. } => format!("rule:{}", path.display()),
            OrderSpec::Columns(columns) => {
                format!("columns:{}", columns.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
            }
        }
    }

    /// Arrange an encoding's variables for a board: state variable indices in
    /// level order (a permutation of `0..vars.len()`).
    pub fn arrange(&self, vars: &[StateVar], size: BoardSize, encoding: EncodingKind) -> Result<Vec<usize>> {
        match self {
            OrderSpec::Named(order) => {
                let key = (order.key)(size, encoding);
                Ok(arrange_by(vars, |c, r| key(c, r, size)))
            }
            OrderSpec::Columns(columns) => arrange_columns(columns, vars, size),
            OrderSpec::Custom { path, names } => arrange_named(&path.display().to_string(), names, vars),
            OrderSpec::Levels(names) => arrange_named("levels", names, vars),
            OrderSpec::Rule { rule, .. } => Ok(rule.arrange(vars)),
        }
    }
}

impl FromStr for OrderSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<OrderSpec, String> {
        if let Some(order) = OrderSpec::named(s) {
            return Ok(order);
        }
        match s {
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
            _ if s.starts_with("levels:") => Ok(OrderSpec::Levels(names_in(&s["levels:".len()..]))),
            _ if s.starts_with("rule:") => {
                let path = &s["rule:".len()..];
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read order rule {path}: {e}"))?;
                let rule: OrderRule = toml::from_str(&text)
                    .map_err(|e| format!("{path}: not an order rule: {}", crate::error::toml_message(&text, &e)))?;
                rule.check().map_err(|e| format!("{path}: {e}"))?;
                Ok(OrderSpec::Rule { path: PathBuf::from(path), rule })
            }
            _ => {
                let Some(path) = s.strip_prefix("custom:") else {
                    return Err(format!(
                        "unknown order '{s}' (expected one of {}, columns:C1,C2,..., custom:FILE, levels:NAMES or rule:FILE)",
                        ORDERS.iter().map(|o| o.name).collect::<Vec<_>>().join(", ")
                    ));
                };
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read order file {path}: {e}"))?;
                Ok(OrderSpec::Custom { path: PathBuf::from(path), names: names_in(&text) })
            }
        }
    }
}

/// The variable names in a list separated by whitespace or commas.
fn names_in(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()).map(String::from).collect()
}
