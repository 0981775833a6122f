//! Seeded random formulas over 10 variables, checked against exhaustive
//! evaluation of the same formula as a plain Rust expression.

use c4bdd::bdd::{Bdd, Manager, Var};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::common::{assignment, manager, truth_table};

const N: usize = 10;

/// A random formula, built as a BDD and as its truth table side by side.
fn random_formula(rng: &mut StdRng, m: &mut Manager, x: &[Var], depth: u32) -> (Bdd, Vec<bool>) {
    if depth == 0 || rng.random_range(0..5) == 0 {
        let j = rng.random_range(0..N);
        let value = rng.random_bool(0.5);
        let f = m.literal(x[j], value).unwrap();
        let t = (0..1 << N).map(|a| ((a >> j) & 1 == 1) == value).collect();
        return (f, t);
    }
    let (f, tf) = random_formula(rng, m, x, depth - 1);
    let (g, tg) = random_formula(rng, m, x, depth - 1);
    let zip = |op: fn(bool, bool) -> bool| tf.iter().zip(&tg).map(|(&a, &b)| op(a, b)).collect::<Vec<_>>();
    match rng.random_range(0..6) {
        0 => (m.and(f, g).unwrap(), zip(|a, b| a && b)),
        1 => (m.or(f, g).unwrap(), zip(|a, b| a || b)),
        2 => (m.xor(f, g).unwrap(), zip(|a, b| a != b)),
        3 => (m.diff(f, g).unwrap(), zip(|a, b| a && !b)),
        4 => {
            let (h, th) = random_formula(rng, m, x, depth - 1);
            let t = (0..1 << N).map(|a| if tf[a] { tg[a] } else { th[a] }).collect();
            (m.ite(f, g, h).unwrap(), t)
        }
        _ => (m.not(f).unwrap(), tf.iter().map(|&a| !a).collect()),
    }
}

/// Existential quantification of a truth table over the variables in `mask`.
fn exists_table(t: &[bool], mask: usize) -> Vec<bool> {
    (0..t.len()).map(|a| (0..t.len()).filter(|&b| (a & !mask) == (b & !mask)).any(|b| t[b])).collect()
}

#[test]
fn random_formulas_match_exhaustive_evaluation() {
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let order: Vec<usize> = if seed % 2 == 0 { (0..N).collect() } else { (0..N).rev().collect() };
        let (mut m, x) = manager(N, Some(&order));
        let (f, tf) = random_formula(&mut rng, &mut m, &x, 7);
        let (g, tg) = random_formula(&mut rng, &mut m, &x, 7);
        assert_eq!(truth_table(&m, f, N), tf, "seed {seed}: formula f");
        assert_eq!(truth_table(&m, g, N), tg, "seed {seed}: formula g");

        let all = m.var_set(&x).unwrap();
        let ones = tf.iter().filter(|&&t| t).count() as u128;
        assert_eq!(m.sat_count(f, all), ones, "seed {seed}: sat_count");

        let mask: usize = rng.random_range(0..1 << N);
        let qvars: Vec<Var> = (0..N).filter(|j| (mask >> j) & 1 == 1).map(|j| x[j]).collect();
        let set = m.var_set(&qvars).unwrap();
        let ex = m.exists(f, set).unwrap();
        assert_eq!(truth_table(&m, ex, N), exists_table(&tf, mask), "seed {seed}: exists");
        let fg: Vec<bool> = tf.iter().zip(&tg).map(|(&a, &b)| a && b).collect();
        let rel = m.and_exists(f, g, set).unwrap();
        assert_eq!(truth_table(&m, rel, N), exists_table(&fg, mask), "seed {seed}: and_exists");
        let and = m.and(f, g).unwrap();
        assert_eq!(rel, m.exists(and, set).unwrap(), "seed {seed}: and_exists = exists(and)");

        // Swap the two halves of the variables (frames 0..5 and 5..10).
        let pairs: Vec<(Var, Var)> = (0..N).map(|j| (x[j], x[(j + N / 2) % N])).collect();
        let r = m.renaming(&pairs).unwrap();
        let renamed = m.rename(f, r).unwrap();
        let want: Vec<bool> = (0..1usize << N)
            .map(|a| {
                let b: usize = (0..N).map(|j| ((a >> ((j + N / 2) % N)) & 1) << j).sum();
                tf[b]
            })
            .collect();
        assert_eq!(truth_table(&m, renamed, N), want, "seed {seed}: rename");
        assert_eq!(m.rename(renamed, r).unwrap(), f, "seed {seed}: swapping twice is the identity");

        // Counting over a set that excludes quantified variables.
        let rest: Vec<Var> = (0..N).filter(|j| (mask >> j) & 1 == 0).map(|j| x[j]).collect();
        let rest_set = m.var_set(&rest).unwrap();
        let want = (0..1usize << N).filter(|&a| a & mask == 0 && exists_table(&tf, mask)[a]).count() as u128;
        assert_eq!(m.sat_count(ex, rest_set), want, "seed {seed}: sat_count over the free variables");
        m.check().unwrap();
    }
}

#[test]
fn eval_agrees_with_restrict_to_a_full_assignment() {
    let mut rng = StdRng::seed_from_u64(99);
    let (mut m, x) = manager(N, None);
    let (f, tf) = random_formula(&mut rng, &mut m, &x, 8);
    for a in (0..1usize << N).step_by(7) {
        let lits: Vec<(Var, bool)> = assignment(a, N).into_iter().enumerate().map(|(j, v)| (x[j], v)).collect();
        let r = m.restrict(f, &lits).unwrap();
        assert_eq!(r, if tf[a] { Bdd::TRUE } else { Bdd::FALSE }, "assignment {a}");
    }
}
