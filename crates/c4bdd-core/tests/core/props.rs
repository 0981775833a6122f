//! Properties with shrinking (proptest): formulas drawn as expression trees
//! over 6 variables, each built as a BDD and checked against its own truth
//! table; the algebraic laws as equal handles (canonicity); a collection
//! keeps the truth tables of the BDDs it is given as roots or that are pinned.
//! A failure shrinks to a smallest formula that shows it.

use c4bdd_core::{Bdd, Config, Manager, Var};
use proptest::prelude::*;

use crate::common::truth_table;

const N: usize = 6;

/// A Boolean formula over variables `0..N`.
#[derive(Clone, Debug)]
enum Expr {
    Var(usize),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = (0..N).prop_map(Expr::Var);
    leaf.prop_recursive(5, 48, 3, |e| {
        prop_oneof![
            e.clone().prop_map(|a| Expr::Not(Box::new(a))),
            (e.clone(), e.clone()).prop_map(|(a, b)| Expr::And(Box::new(a), Box::new(b))),
            (e.clone(), e.clone()).prop_map(|(a, b)| Expr::Or(Box::new(a), Box::new(b))),
            (e.clone(), e.clone()).prop_map(|(a, b)| Expr::Xor(Box::new(a), Box::new(b))),
            (e.clone(), e.clone(), e).prop_map(|(a, b, c)| Expr::Ite(Box::new(a), Box::new(b), Box::new(c))),
        ]
    })
}

impl Expr {
    /// The formula's value under assignment number `a` (variable `j` is bit `j`).
    fn eval(&self, a: usize) -> bool {
        match self {
            Expr::Var(j) => (a >> j) & 1 == 1,
            Expr::Not(x) => !x.eval(a),
            Expr::And(x, y) => x.eval(a) && y.eval(a),
            Expr::Or(x, y) => x.eval(a) || y.eval(a),
            Expr::Xor(x, y) => x.eval(a) != y.eval(a),
            Expr::Ite(x, y, z) => {
                if x.eval(a) {
                    y.eval(a)
                } else {
                    z.eval(a)
                }
            }
        }
    }

    fn table(&self) -> Vec<bool> {
        (0..1 << N).map(|a| self.eval(a)).collect()
    }

    /// The formula built with the manager's operations.
    fn build(&self, m: &mut Manager, x: &[Var]) -> Bdd {
        match self {
            Expr::Var(j) => m.literal(x[*j], true).unwrap(),
            Expr::Not(a) => {
                let a = a.build(m, x);
                m.not(a).unwrap()
            }
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Xor(a, b) => {
                let (f, g) = (a.build(m, x), b.build(m, x));
                match self {
                    Expr::And(..) => m.and(f, g),
                    Expr::Or(..) => m.or(f, g),
                    _ => m.xor(f, g),
                }
                .unwrap()
            }
            Expr::Ite(a, b, c) => {
                let (f, g, h) = (a.build(m, x), b.build(m, x), c.build(m, x));
                m.ite(f, g, h).unwrap()
            }
        }
    }
}

/// A manager of `N` variables in the order `order` (a permutation), or the identity.
fn manager(order: &[usize]) -> (Manager, Vec<Var>) {
    let mut m = Manager::new(Config::default());
    let x = m.add_vars(N).unwrap();
    let levels: Vec<Var> = order.iter().map(|&i| x[i]).collect();
    m.set_order(&levels).unwrap();
    (m, x)
}

fn order() -> impl Strategy<Value = Vec<usize>> {
    Just((0..N).collect::<Vec<_>>()).prop_shuffle()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A formula's BDD has the formula's truth table, under any variable order.
    #[test]
    fn a_formula_has_its_truth_table(e in expr(), order in order()) {
        let (mut m, x) = manager(&order);
        let f = e.build(&mut m, &x);
        prop_assert_eq!(truth_table(&m, f, N), e.table());
    }

    /// The laws hold as equal handles: commutativity, associativity, De
    /// Morgan, absorption, distributivity, double negation and ite's definition.
    #[test]
    fn the_laws_hold_as_equal_handles(a in expr(), b in expr(), c in expr()) {
        let (mut m, x) = manager(&(0..N).collect::<Vec<_>>());
        let (f, g, h) = (a.build(&mut m, &x), b.build(&mut m, &x), c.build(&mut m, &x));
        prop_assert_eq!(m.and(f, g).unwrap(), m.and(g, f).unwrap());
        prop_assert_eq!(m.or(f, g).unwrap(), m.or(g, f).unwrap());
        let (fg, gh) = (m.and(f, g).unwrap(), m.and(g, h).unwrap());
        prop_assert_eq!(m.and(fg, h).unwrap(), m.and(f, gh).unwrap());
        let (nf, ng, fog) = (m.not(f).unwrap(), m.not(g).unwrap(), m.or(f, g).unwrap());
        prop_assert_eq!(m.not(fog).unwrap(), m.and(nf, ng).unwrap());
        prop_assert_eq!(m.or(f, fg).unwrap(), f);
        let (goh, fh) = (m.or(g, h).unwrap(), m.and(f, h).unwrap());
        prop_assert_eq!(m.and(f, goh).unwrap(), m.or(fg, fh).unwrap());
        prop_assert_eq!(m.not(nf).unwrap(), f);
        let (nfh, ite) = (m.and(nf, h).unwrap(), m.ite(f, g, h).unwrap());
        prop_assert_eq!(ite, m.or(fg, nfh).unwrap());
        let (only_f, only_g) = (m.diff(f, g).unwrap(), m.diff(g, f).unwrap());
        prop_assert_eq!(m.xor(f, g).unwrap(), m.or(only_f, only_g).unwrap());
    }

    /// A collection keeps the truth tables of its roots and of the pinned
    /// BDDs, whatever else it frees; operations after it give the same handles.
    #[test]
    fn a_collection_keeps_its_roots_truth_tables(kept in expr(), pinned in expr(), dropped in expr()) {
        let (mut m, x) = manager(&(0..N).collect::<Vec<_>>());
        let (r, p) = (kept.build(&mut m, &x), pinned.build(&mut m, &x));
        dropped.build(&mut m, &x);
        m.pin(p);
        m.gc(&[r]);
        prop_assert_eq!(truth_table(&m, r, N), kept.table());
        prop_assert_eq!(truth_table(&m, p, N), pinned.table());
        m.check().unwrap();
        prop_assert_eq!(kept.build(&mut m, &x), r);
        prop_assert_eq!(pinned.build(&mut m, &x), p);
    }
}
