//! Seeded random formulas over 10 variables, checked against exhaustive
//! evaluation of the same formula as a plain Rust expression.

use c4bdd_core::{Bdd, Config, Manager, Traversal, Var};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::common::{assignment, manager, truth_table};

const N: usize = 10;

/// A random formula, built as a BDD and as its truth table side by side.
pub(crate) fn random_formula(rng: &mut StdRng, m: &mut Manager, x: &[Var], depth: u32) -> (Bdd, Vec<bool>) {
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

        // A counter shared by several BDDs: each count as from the truth
        // table, and the nodes visited are the union of their nodes.
        let or = m.or(f, g).unwrap();
        let to = tf.iter().zip(&tg).filter(|(&a, &b)| a || b).count() as u128;
        let tand = fg.iter().filter(|&&t| t).count() as u128;
        let mut counter = m.counter(all);
        assert_eq!([counter.count(and), counter.count(f)], [tand, ones], "seed {seed}: shared counter");
        assert_eq!(counter.visited(), m.node_count_many(&[and, f]), "seed {seed}: shared counter nodes");
        assert_eq!(counter.count(or), to, "seed {seed}: shared counter, third BDD");
        assert_eq!(counter.visited(), m.node_count_many(&[and, f, or]), "seed {seed}: shared counter nodes");
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

/// The 5-bit state held by the upper variables (even bits) of an assignment.
fn upper_state(a: usize) -> usize {
    (0..N / 2).map(|p| ((a >> (2 * p)) & 1) << p).sum()
}

/// The assignment with state `x` on the upper and `y` on the lower variables.
fn paired(x: usize, y: usize) -> usize {
    (0..N / 2).map(|p| (((x >> p) & 1) << (2 * p)) | (((y >> p) & 1) << (2 * p + 1))).sum()
}

/// In-place image and preimage over 5 pairs (x_p directly above y_p) against
/// the definition evaluated on all 32 x 32 state pairs, for random state sets
/// and relations, and for relations that are the identity on a suffix of the
/// pairs (the shortcut that returns the input's own sub-BDD), depth-first,
/// breadth-first, and breadth-first with room for a few requests only (the
/// walk going on depth-first past them).
#[test]
fn in_place_image_and_preimage_match_their_definition() {
    let states = 1usize << (N / 2);
    let walks = [
        (Traversal::DepthFirst, Config::default().max_requests),
        (Traversal::BreadthFirst, Config::default().max_requests),
        (Traversal::BreadthFirst, 3),
    ];
    for (seed, (traversal, max_requests)) in (0..120u64).map(|k| (k / 3, walks[k as usize % 3])) {
        let mut rng = StdRng::seed_from_u64(1000 + seed);
        let mut m = Manager::new(Config { traversal, max_requests, ..Config::default() });
        let x = m.add_vars(N).unwrap();
        let pairs: Vec<(Var, Var)> = (0..N / 2).map(|p| (x[2 * p], x[2 * p + 1])).collect();
        let pairing = m.pairing(&pairs).unwrap();
        let lower = m.var_set(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()).unwrap();
        let (g, _) = random_formula(&mut rng, &mut m, &x, 6);
        let f = m.exists(g, lower).unwrap();
        let tf: Vec<bool> = (0..states).map(|s| m.eval(f, &assignment(paired(s, 0), N))).collect();
        let (mut rel, _) = random_formula(&mut rng, &mut m, &x, 7);
        if seed % 2 == 1 {
            // Identity on the pairs from `keep` on: the relation changes only a prefix.
            let keep = rng.random_range(0..N / 2);
            for &(a, b) in &pairs[keep..] {
                let (la, lb) = (m.literal(a, true).unwrap(), m.literal(b, true).unwrap());
                let same = m.iff(la, lb).unwrap();
                rel = m.and(rel, same).unwrap();
            }
        }
        let tr: Vec<bool> = (0..1usize << N).map(|a| m.eval(rel, &assignment(a, N))).collect();
        let image = m.image(f, rel, pairing).unwrap();
        let preimage = m.preimage(f, rel, pairing).unwrap();
        for a in 0..1usize << N {
            let s = upper_state(a);
            let succ = (0..states).any(|z| tf[z] && tr[paired(z, s)]);
            let pred = (0..states).any(|z| tf[z] && tr[paired(s, z)]);
            assert_eq!(m.eval(image, &assignment(a, N)), succ, "seed {seed}, {traversal}: image at {a}");
            assert_eq!(m.eval(preimage, &assignment(a, N)), pred, "seed {seed}, {traversal}: preimage at {a}");
        }
        m.check().unwrap();
    }
}

#[test]
fn pairing_rejects_variables_that_are_not_adjacent() {
    let (mut m, x) = manager(4, None);
    let err = m.pairing(&[(x[0], x[2])]).unwrap_err().to_string();
    assert!(err.contains("not directly below"), "{err}");
    let err = m.pairing(&[(x[0], x[1]), (x[1], x[2])]).unwrap_err().to_string();
    assert!(err.contains("paired twice"), "{err}");
    let err = m.pairing(&[(x[0], Var(9))]).unwrap_err().to_string();
    assert!(err.contains("unknown variable 9"), "{err}");
}

#[test]
fn minimize_agrees_on_the_care_set_and_adds_no_variable() {
    for seed in 0..200u64 {
        let mut rng = StdRng::seed_from_u64(1000 + seed);
        let (mut m, x) = manager(N, None);
        let (f, tf) = random_formula(&mut rng, &mut m, &x, 6);
        let (care, tc) = random_formula(&mut rng, &mut m, &x, 6);
        // Also a care set containing f, as in the retrograde solve.
        let (wide, tw) = (m.or(f, care).unwrap(), tf.iter().zip(&tc).map(|(&a, &b)| a || b).collect::<Vec<_>>());
        for (c, tc) in [(care, &tc), (wide, &tw), (Bdd::TRUE, &vec![true; 1 << N])] {
            let r = m.minimize(f, c).unwrap();
            let tr = truth_table(&m, r, N);
            for a in 0..1 << N {
                if tc[a] {
                    assert_eq!(tr[a], tf[a], "seed {seed}: minimize differs from f on the care set at {a}");
                }
            }
            let support = m.support(f);
            assert!(m.support(r).iter().all(|v| support.contains(v)), "seed {seed}: minimize added a variable");
        }
        assert_eq!(m.minimize(f, Bdd::TRUE).unwrap(), f, "seed {seed}: nothing to minimize");
        m.check().unwrap();
    }
}
