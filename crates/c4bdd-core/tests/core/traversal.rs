//! The breadth-first traversal against the depth-first one and against the
//! definitions: random formulas (every binary operation) against exhaustive
//! evaluation, in-place images and pre-images against their definition, a
//! breadth-first operation at the node limit, and the tables given back.

use c4bdd_core::{Bdd, Config, Error, Manager, Traversal, Var};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::common::{assignment, truth_table};
use crate::random::random_formula;

/// Variables of the random formulas (as in `random.rs`).
const N: usize = 10;

fn manager(traversal: Traversal, config: Config) -> (Manager, Vec<Var>) {
    let mut m = Manager::new(Config { traversal, ..config });
    let x = m.add_vars(N).unwrap();
    (m, x)
}

/// Random formulas built breadth-first have the truth tables of their
/// formulas, and the same sizes as those built depth-first.
#[test]
fn breadth_first_formulas_match_exhaustive_evaluation() {
    for seed in 0..40u64 {
        let mut sizes = Vec::new();
        for traversal in Traversal::ALL {
            let (mut m, x) = manager(traversal, Config::default());
            let mut rng = StdRng::seed_from_u64(2000 + seed);
            let (f, tf) = random_formula(&mut rng, &mut m, &x, 8);
            let (g, tg) = random_formula(&mut rng, &mut m, &x, 8);
            assert_eq!(truth_table(&m, f, N), tf, "seed {seed}, {traversal}: f");
            assert_eq!(truth_table(&m, g, N), tg, "seed {seed}, {traversal}: g");
            let or = m.or(f, g).unwrap();
            let want: Vec<bool> = tf.iter().zip(&tg).map(|(&a, &b)| a || b).collect();
            assert_eq!(truth_table(&m, or, N), want, "seed {seed}, {traversal}: f or g");
            // Canonical: the same function again is the same node.
            let again = m.or(g, f).unwrap();
            assert_eq!(again, or, "seed {seed}, {traversal}: or commutes to the same node");
            m.check().unwrap();
            sizes.push([f, g, or].map(|h| m.node_count(h)));
        }
        assert_eq!(sizes[0], sizes[1], "seed {seed}: sizes depth-first and breadth-first");
    }
}

/// The pairing's state of an assignment of the upper variables (`x_p` at `2p`).
fn upper_state(a: usize) -> usize {
    (0..N / 2).map(|p| ((a >> (2 * p)) & 1) << p).sum()
}

/// The assignment of pairs `(x_p, y_p)` that puts state `x` on the upper
/// variables and `y` on the lower ones.
fn paired(x: usize, y: usize) -> usize {
    (0..N / 2).map(|p| (((x >> p) & 1) << (2 * p)) | (((y >> p) & 1) << (2 * p + 1))).sum()
}

/// In-place images and pre-images breadth-first against the definition on
/// all 32 x 32 state pairs, for random sets and relations, half of them the
/// identity on a suffix of the pairs.
#[test]
fn breadth_first_images_match_their_definition() {
    let states = 1usize << (N / 2);
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(3000 + seed);
        let (mut m, x) = manager(Traversal::BreadthFirst, Config::default());
        let pairs: Vec<(Var, Var)> = (0..N / 2).map(|p| (x[2 * p], x[2 * p + 1])).collect();
        let pairing = m.pairing(&pairs).unwrap();
        let lower = m.var_set(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()).unwrap();
        let (g, _) = random_formula(&mut rng, &mut m, &x, 6);
        let f = m.exists(g, lower).unwrap();
        let tf: Vec<bool> = (0..states).map(|s| m.eval(f, &assignment(paired(s, 0), N))).collect();
        let (mut rel, _) = random_formula(&mut rng, &mut m, &x, 7);
        if seed % 2 == 1 {
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
            assert_eq!(m.eval(image, &assignment(a, N)), succ, "seed {seed}: image at {a}");
            assert_eq!(m.eval(preimage, &assignment(a, N)), pred, "seed {seed}: preimage at {a}");
        }
        m.check().unwrap();
    }
}

/// A breadth-first operation that meets the node limit fails with the
/// limit's error and leaves the manager whole; after a collection and with
/// room, the join of all the cubes has the truth table of their union.
#[test]
fn a_breadth_first_operation_at_the_node_limit_fails_cleanly() {
    let (mut m, x) = manager(Traversal::BreadthFirst, Config { initial_nodes: 64, ..Config::default() });
    let mut rng = StdRng::seed_from_u64(7);
    let cubes: Vec<Bdd> = (0..120)
        .map(|_| {
            let literals: Vec<(Var, bool)> = x.iter().map(|&v| (v, rng.random_bool(0.5))).take(N - 2).collect();
            let c = m.cube(&literals).unwrap();
            m.pin(c);
            c
        })
        .collect();
    // Room for a few joins only: the limit is met in an `or`.
    let limit = m.live_nodes() + 2 + 150;
    m.set_max_nodes(limit);
    let mut built = Vec::new();
    let failure = loop {
        let group = &cubes[12 * built.len()..12 * (built.len() + 1)];
        match m.or_all(group) {
            Ok(f) => {
                m.pin(f);
                built.push(f);
            }
            Err(e) => break e,
        }
    };
    assert!(matches!(failure, Error::NodeLimit { capacity, .. } if capacity == limit as u64), "got {failure:?}");
    assert!(!built.is_empty(), "some joins succeeded before the limit");
    m.check().unwrap();
    m.gc(&[]);
    m.set_max_nodes(1 << 20);
    let joined = m.or_all(&cubes).unwrap();
    let want: Vec<bool> = (0..1usize << N).map(|a| cubes.iter().any(|&c| m.eval(c, &assignment(a, N)))).collect();
    assert_eq!(truth_table(&m, joined, N), want, "the join of all cubes once the limit is raised");
    m.check().unwrap();
}

/// The breadth-first tables given back with the caches change no result.
#[test]
fn released_tables_change_no_breadth_first_result() {
    let (mut m, x) = manager(Traversal::BreadthFirst, Config::default());
    let mut rng = StdRng::seed_from_u64(11);
    let (f, _) = random_formula(&mut rng, &mut m, &x, 8);
    let (g, _) = random_formula(&mut rng, &mut m, &x, 8);
    let (and, diff) = (m.and(f, g).unwrap(), m.diff(f, g).unwrap());
    m.release_caches();
    assert_eq!((m.and(f, g).unwrap(), m.diff(f, g).unwrap()), (and, diff));
    m.check().unwrap();
}
