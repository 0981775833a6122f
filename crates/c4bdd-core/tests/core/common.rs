//! Helpers shared by the core's tests: functions given by truth tables.

use c4bdd_core::{Bdd, Config, Manager, Var};

/// A manager with `n` variables, in the given order (identity when `None`).
pub fn manager(n: usize, order: Option<&[usize]>) -> (Manager, Vec<Var>) {
    let mut m = Manager::new(Config::default());
    let vars = m.add_vars(n).unwrap();
    if let Some(order) = order {
        let order: Vec<Var> = order.iter().map(|&i| vars[i]).collect();
        m.set_order(&order).unwrap();
    }
    (m, vars)
}

/// Assignment number `i` of `n` variables: variable `j` is bit `j` of `i`.
pub fn assignment(i: usize, n: usize) -> Vec<bool> {
    (0..n).map(|j| (i >> j) & 1 == 1).collect()
}

/// The truth table of `f` over the first `n` variables (bit `i` = value at assignment `i`).
pub fn truth_table(m: &Manager, f: Bdd, n: usize) -> Vec<bool> {
    (0..1usize << n).map(|i| m.eval(f, &assignment(i, n))).collect()
}

/// The BDD whose truth table over `vars` is `table`, built as a disjunction of minterms.
pub fn from_table(m: &mut Manager, vars: &[Var], table: &[bool]) -> Bdd {
    let mut f = Bdd::FALSE;
    for (i, _) in table.iter().enumerate().filter(|(_, &t)| t) {
        let lits: Vec<(Var, bool)> = vars.iter().enumerate().map(|(j, &v)| (v, (i >> j) & 1 == 1)).collect();
        let cube = m.cube(&lits).unwrap();
        f = m.or(f, cube).unwrap();
    }
    f
}

/// The 8-entry truth table of a 3-variable function number `k` (0..256).
pub fn table3(k: usize) -> Vec<bool> {
    (0..8).map(|i| (k >> i) & 1 == 1).collect()
}

/// All 256 functions of 3 variables, index = function number.
pub fn all3(m: &mut Manager, vars: &[Var]) -> Vec<Bdd> {
    (0..256).map(|k| from_table(m, vars, &table3(k))).collect()
}

/// The function number of a 3-variable truth table.
pub fn number3(table: &[bool]) -> usize {
    table.iter().enumerate().filter(|(_, &t)| t).map(|(i, _)| 1 << i).sum()
}
