//! Order rules: a variable order described by relative positions, so that an
//! order found on one board applies to any board (`--order rule:FILE`).
//!
//! A rule holds a key for each cell of the board it was read off (`cells`:
//! column by column from the left, each bottom up), the side-to-move
//! variable's relative level (`stm`: 0 first, 1 last), and the grouping
//! (`major`). On a board of any size, positions are taken relative (the
//! left and right columns, the bottom and top rows, map onto the rule's).
//! Grouped by column, the columns come in the order of the rule's column
//! keys (each column's mean, interpolated linearly between columns) and a
//! column's cells in the order of the keys of the rule's nearest column
//! (interpolated between rows), so a column read top down stays so;
//! grouped by row, likewise with rows and columns swapped; ungrouped
//! (`cells`), every cell by its key interpolated bilinearly. Lower keys come
//! first; equal keys go to the left column, then the lower row; a cell's
//! variables (two in the cellwise encoding) stay together in slot order.
//!
//! [`OrderRule::of_order`] reads a rule off any order of a board: each
//! cell's key is its (mean) level, and the grouping the first of column,
//! row and cells whose order is nearest the given one. A rule read off an
//! order that keeps a cell's variables together gives that order back on its
//! board; read off centre-out on 5 columns, it gives centre-out on 6 and 7
//! columns (on 9, the interpolated keys put both left neighbours of the
//! centre before the right ones: 5,4,3,6,...).

use serde::{Deserialize, Serialize};

use super::StateVar;

/// How a rule groups the cell variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Major {
    /// A column's cells together, the columns by their keys.
    Column,
    /// A row's cells together, the rows by their keys.
    Row,
    /// Every cell by its own key.
    Cells,
}

/// An order as keys over relative positions (see the module documentation).
/// Invariant (checked by [`OrderRule::check`]): `cells` holds at least one
/// column, every column the same number (at least one) of finite keys;
/// `stm` is within `0..=1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderRule {
    /// Where the rule came from (free text, for the reader).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
    /// Relative level of the side-to-move variable: 0 first, 1 last.
    pub stm: f64,
    pub major: Major,
    /// Cell keys, column by column from the left, each from the bottom row up.
    pub cells: Vec<Vec<f64>>,
}

impl Eq for OrderRule {}

impl OrderRule {
    /// The one-line reason a rule cannot be used, if any.
    pub fn check(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.stm) {
            return Err(format!("stm = {} must be from 0 (first) to 1 (last)", self.stm));
        }
        let Some(first) = self.cells.first().filter(|c| !c.is_empty()) else {
            return Err("cells has no keys".into());
        };
        if let Some(c) = self.cells.iter().position(|c| c.len() != first.len()) {
            return Err(format!(
                "cells: column {} has {} keys, column 1 has {}",
                c + 1,
                self.cells[c].len(),
                first.len()
            ));
        }
        if let Some(k) = self.cells.iter().flatten().find(|k| !k.is_finite()) {
            return Err(format!("cells holds {k}, not a number"));
        }
        Ok(())
    }

    /// The rule of an order: `levels` lists the indices of `vars` (an
    /// encoding's state variables) in level order.
    pub fn of_order(levels: &[usize], vars: &[StateVar]) -> OrderRule {
        let n = levels.len();
        let scale = (n.max(2) - 1) as f64;
        let (width, rows) = extent(vars);
        let mut sums = vec![vec![(0.0, 0usize); rows]; width];
        let mut stm = 0.0;
        for (l, &v) in levels.iter().enumerate() {
            match vars[v].cell {
                Some((c, r)) => {
                    let cell = &mut sums[c as usize][r as usize];
                    *cell = (cell.0 + l as f64 / scale, cell.1 + 1);
                }
                None => stm = l as f64 / scale,
            }
        }
        let cells = sums.iter().map(|col| col.iter().map(|&(s, k)| s / k.max(1) as f64).collect()).collect();
        let mut rule = OrderRule { about: None, stm, major: Major::Column, cells };
        let mut nearest = (usize::MAX, Major::Column);
        for major in [Major::Column, Major::Row, Major::Cells] {
            rule.major = major;
            let distance = kendall_distance(&rule.arrange(vars), levels);
            if distance < nearest.0 {
                nearest = (distance, major);
            }
        }
        rule.major = nearest.1;
        rule
    }

    /// The variables' indices in level order under this rule (a permutation
    /// of `0..vars.len()`).
    pub fn arrange(&self, vars: &[StateVar]) -> Vec<usize> {
        let (width, rows) = extent(vars);
        let (n_cols, n_rows) = (self.cells.len(), self.cells[0].len());
        let mean = |ks: &mut dyn Iterator<Item = f64>| {
            let (s, k) = ks.fold((0.0, 0), |(s, k), x| (s + x, k + 1));
            s / k as f64
        };
        let column_means: Vec<f64> = self.cells.iter().map(|col| mean(&mut col.iter().copied())).collect();
        let row_means: Vec<f64> = (0..n_rows).map(|r| mean(&mut self.cells.iter().map(|col| col[r]))).collect();
        let key = |v: &StateVar| {
            let (c, r) = v.cell.map(|(c, r)| (c as usize, r as usize)).expect("cell variables only");
            let (across, up) = (between(c, width, n_cols), between(r, rows, n_rows));
            match self.major {
                Major::Column => [lerp(&column_means, across), lerp(&self.cells[nearest(across)], up)],
                Major::Row => {
                    let row: Vec<f64> = self.cells.iter().map(|col| col[nearest(up)]).collect();
                    [lerp(&row_means, up), lerp(&row, across)]
                }
                Major::Cells => {
                    let column: Vec<f64> = self.cells.iter().map(|col| lerp(col, up)).collect();
                    [lerp(&column, across), 0.0]
                }
            }
        };
        // Each key once; the sort is stable, so a cell's variables keep
        // their slot order.
        let mut keyed: Vec<([f64; 2], usize)> =
            (0..vars.len()).filter(|&v| vars[v].cell.is_some()).map(|v| (key(&vars[v]), v)).collect();
        keyed.sort_by(|(ka, a), (kb, b)| {
            ka[0].total_cmp(&kb[0]).then(ka[1].total_cmp(&kb[1])).then(vars[*a].cell.cmp(&vars[*b].cell))
        });
        let mut cells: Vec<usize> = keyed.into_iter().map(|(_, v)| v).collect();
        if let Some(stm) = vars.iter().position(|v| v.cell.is_none()) {
            let at = (self.stm * (vars.len() - 1) as f64).round() as usize;
            cells.insert(at.min(cells.len()), stm);
        }
        cells
    }
}

/// The value between `keys[j]` and `keys[j + 1]` at fraction `t`.
fn lerp(keys: &[f64], (j, k, t): (usize, usize, f64)) -> f64 {
    keys[j] + t * (keys[k] - keys[j])
}

/// The nearer of the two neighbours (the first on a tie).
fn nearest((j, k, t): (usize, usize, f64)) -> usize {
    if t > 0.5 {
        k
    } else {
        j
    }
}

/// Where position `i` of `count` equally spaced positions falls among `n`
/// equally spaced over the same span: the neighbours and the fraction
/// between them.
fn between(i: usize, count: usize, n: usize) -> (usize, usize, f64) {
    if n == 1 {
        return (0, 0, 0.0);
    }
    let t = if count > 1 { i as f64 * (n - 1) as f64 / (count - 1) as f64 } else { 0.0 };
    let j = (t.floor() as usize).min(n - 2);
    (j, j + 1, t - j as f64)
}

/// Columns and rows of the cells the variables name.
fn extent(vars: &[StateVar]) -> (usize, usize) {
    let cells = vars.iter().filter_map(|v| v.cell);
    cells.fold((0, 0), |(w, h), (c, r)| (w.max(c as usize + 1), h.max(r as usize + 1)))
}

/// Pairs of variables that two orders (level lists of the same variables)
/// put the other way round.
pub fn kendall_distance(a: &[usize], b: &[usize]) -> usize {
    let mut pos = vec![0usize; b.len()];
    for (l, &v) in b.iter().enumerate() {
        pos[v] = l;
    }
    let mapped: Vec<usize> = a.iter().map(|&v| pos[v]).collect();
    let mut inversions = 0;
    for i in 0..mapped.len() {
        inversions += mapped[i + 1..].iter().filter(|&&m| m < mapped[i]).count();
    }
    inversions
}

#[cfg(test)]
mod tests {
    use super::{kendall_distance, OrderRule};
    use crate::encoding::{EncodingKind, OrderSpec};
    use crate::game::BoardSize;

    fn arrange(order: &OrderSpec, size: BoardSize, kind: EncodingKind) -> Vec<usize> {
        order.arrange(&kind.build(size).state_vars(), size, kind).unwrap()
    }

    #[test]
    fn a_rule_read_off_a_named_order_gives_it_back() {
        for kind in [EncodingKind::Compressed, EncodingKind::Cellwise] {
            for (w, h) in [(5, 4), (4, 5), (7, 6), (1, 3)] {
                let size = BoardSize::new(w, h).unwrap();
                let vars = kind.build(size).state_vars();
                for order in [OrderSpec::COLUMN_WISE, OrderSpec::ROW_WISE, OrderSpec::CENTER_OUT, OrderSpec::PAPER] {
                    let levels = arrange(&order, size, kind);
                    let rule = OrderRule::of_order(&levels, &vars);
                    assert_eq!(rule.arrange(&vars), levels, "{} on {size} {kind:?}", order.name());
                }
            }
        }
    }

    #[test]
    fn a_rule_read_off_any_order_gives_it_back() {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let size = BoardSize::new(4, 3).unwrap();
        let vars = EncodingKind::Compressed.build(size).state_vars();
        let columns = OrderSpec::COLUMN_WISE.arrange(&vars, size, EncodingKind::Compressed).unwrap();
        for _ in 0..20 {
            let mut any = columns.clone();
            any.shuffle(&mut rng);
            assert_eq!(OrderRule::of_order(&any, &vars).arrange(&vars), any);
            // Column-wise with some columns top down: still grouped by column.
            let mut flipped: Vec<Vec<usize>> = columns[1..].chunks(4).map(<[usize]>::to_vec).collect();
            flipped.iter_mut().filter(|_| rand::RngExt::random_bool(&mut rng, 0.5)).for_each(|c| c.reverse());
            flipped.shuffle(&mut rng);
            let flipped = [vec![columns[0]], flipped.concat()].concat();
            let rule = OrderRule::of_order(&flipped, &vars);
            assert_eq!((rule.major, rule.arrange(&vars)), (super::Major::Column, flipped));
        }
    }

    #[test]
    fn a_rule_carries_the_column_pattern_to_wider_boards() {
        let kind = EncodingKind::Compressed;
        let small = BoardSize::new(5, 5).unwrap();
        let levels = arrange(&OrderSpec::CENTER_OUT, small, kind);
        let rule = OrderRule::of_order(&levels, &kind.build(small).state_vars());
        // The boards of the order experiments; on much wider boards the
        // interpolated keys need not alternate sides as centre-out does.
        for (w, h) in [(7, 6), (7, 4), (6, 5), (5, 6)] {
            let size = BoardSize::new(w, h).unwrap();
            let vars = kind.build(size).state_vars();
            let columns = super::super::order::center_out_columns(w);
            // Centre-out, or its mirror image (the same BDD sizes).
            let mirror: Vec<u32> = columns.iter().map(|&c| w + 1 - c).collect();
            let got = rule.arrange(&vars);
            let as_columns = |cols: &[u32]| arrange(&OrderSpec::Columns(cols.to_vec()), size, kind);
            assert!(got == as_columns(&columns) || got == as_columns(&mirror), "on {size}");
        }
    }

    #[test]
    fn the_kendall_distance_counts_pairs_in_the_other_order() {
        assert_eq!(kendall_distance(&[0, 1, 2, 3], &[0, 1, 2, 3]), 0);
        assert_eq!(kendall_distance(&[0, 1, 2, 3], &[3, 2, 1, 0]), 6);
        assert_eq!(kendall_distance(&[1, 0, 2, 3], &[0, 1, 2, 3]), 1);
        assert_eq!(kendall_distance(&[2, 0, 1], &[0, 1, 2]), 2);
    }

    #[test]
    fn bad_rules_are_refused_with_the_value() {
        let rule = OrderRule { about: None, stm: 1.5, major: super::Major::Column, cells: vec![vec![0.0]] };
        assert_eq!(rule.check().unwrap_err(), "stm = 1.5 must be from 0 (first) to 1 (last)");
        let rule = OrderRule { stm: 0.0, cells: vec![], ..rule };
        assert_eq!(rule.check().unwrap_err(), "cells has no keys");
        let rule = OrderRule { cells: vec![vec![0.0, 1.0], vec![2.0]], ..rule };
        assert_eq!(rule.check().unwrap_err(), "cells: column 2 has 1 keys, column 1 has 2");
        let rule = OrderRule { cells: vec![vec![0.0, f64::NAN]], ..rule };
        assert_eq!(rule.check().unwrap_err(), "cells holds NaN, not a number");
    }
}
