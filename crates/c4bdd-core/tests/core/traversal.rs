//! The breadth-first traversal against the depth-first one and against the
//! definitions: random formulas (every binary operation) against exhaustive
//! evaluation, a breadth-first operation at the node limit, the tables
//! given back, and the steps counted past the bound (the images against
//! their definition: `random.rs`).

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

/// A breadth-first `xor` that meets the node limit while it expands (in the
/// negation of a cofactor, with requests waiting on the levels below) leaves
/// no request behind: every operation after it, at every limit tried, has
/// the truth table of its formula.
#[test]
fn a_failed_expansion_leaves_no_request_behind() {
    let mut failures = 0;
    for seed in 0..12u64 {
        let (mut m, x) = manager(Traversal::BreadthFirst, Config::default());
        let mut rng = StdRng::seed_from_u64(3000 + seed);
        let (f, tf) = random_formula(&mut rng, &mut m, &x, 8);
        // g = x3 or (x5 and x7): below x3, one cofactor is a request, the other a negation.
        let (x3, x5, x7) =
            (m.literal(x[3], true).unwrap(), m.literal(x[5], true).unwrap(), m.literal(x[7], true).unwrap());
        let low = m.and(x5, x7).unwrap();
        let g = m.or(x3, low).unwrap();
        for h in [f, g] {
            m.pin(h);
        }
        let tg: Vec<bool> = (0..1usize << N).map(|a| m.eval(g, &assignment(a, N))).collect();
        m.gc(&[]);
        m.release_caches();
        for room in 0..12 {
            m.set_max_nodes(m.live_nodes() + 2 + room);
            failures += usize::from(m.xor(f, g).is_err());
            m.set_max_nodes(1 << 20);
            let xor = m.xor(f, g).unwrap();
            let or = m.or(g, f).unwrap();
            let want_xor: Vec<bool> = tf.iter().zip(&tg).map(|(&a, &b)| a != b).collect();
            let want_or: Vec<bool> = tf.iter().zip(&tg).map(|(&a, &b)| a || b).collect();
            assert_eq!(truth_table(&m, xor, N), want_xor, "seed {seed}, room {room}: f xor g");
            assert_eq!(truth_table(&m, or, N), want_or, "seed {seed}, room {room}: g or f");
            m.check().unwrap();
            m.gc(&[]);
            m.release_caches();
        }
    }
    assert!(failures > 0, "some xor met the limit");
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

/// A breadth-first walk that holds its most requests makes each further
/// child depth-first: for every bound from none on, random formulas and
/// their `or` and `xor` have the truth tables of their formulas and the
/// nodes of the depth-first ones, and the tables hold memory between walks
/// exactly when a walk held requests, at most their largest walk's.
#[test]
fn a_walk_past_its_most_requests_goes_on_depth_first() {
    let mut past = std::collections::BTreeMap::<usize, u64>::new();
    for seed in 0..20u64 {
        let mut sizes = Vec::new();
        for (traversal, max_requests) in
            [(Traversal::DepthFirst, Config::default().max_requests), (Traversal::BreadthFirst, 0)]
                .into_iter()
                .chain([1, 2, 5, 17, 60].map(|k| (Traversal::BreadthFirst, k)))
        {
            let (mut m, x) = manager(traversal, Config { max_requests, ..Config::default() });
            let mut rng = StdRng::seed_from_u64(6000 + seed);
            let (f, tf) = random_formula(&mut rng, &mut m, &x, 8);
            let (g, tg) = random_formula(&mut rng, &mut m, &x, 8);
            let (or, xor) = (m.or(f, g).unwrap(), m.xor(f, g).unwrap());
            let at =
                |op: fn(bool, bool) -> bool| -> Vec<bool> { tf.iter().zip(&tg).map(|(&a, &b)| op(a, b)).collect() };
            let tables = [(f, tf.clone()), (g, tg.clone()), (or, at(|a, b| a || b)), (xor, at(|a, b| a != b))];
            for (k, (h, want)) in tables.iter().enumerate() {
                assert_eq!(&truth_table(&m, *h, N), want, "seed {seed}, {traversal}, at most {max_requests}: {k}");
            }
            m.check().unwrap();
            sizes.push([f, g, or, xor].map(|h| m.node_count(h)));
            let stats = m.stats();
            if traversal == Traversal::BreadthFirst {
                assert!(stats.bfs_peak_requests <= max_requests as u64, "seed {seed}: {}", stats.bfs_peak_requests);
                let kept =
                    stats.bfs_bytes <= stats.bfs_peak_bytes && (stats.bfs_bytes > 0) == (stats.bfs_peak_requests > 0);
                assert!(kept, "seed {seed}, at most {max_requests}: {stats:?}");
                *past.entry(max_requests).or_default() += stats.bfs_past_bound;
            }
        }
        assert!(sizes.iter().all(|s| *s == sizes[0]), "seed {seed}: sizes {sizes:?}");
    }
    // Every bound up to 5 was met; the depth-first walks past it did the rest.
    assert!([0, 1, 2, 5].iter().all(|k| past[k] > 0), "steps past each bound: {past:?}");
}

/// A breadth-first walk that may hold no request runs each step by the
/// depth-first body, and counts it once: the binary operations and the
/// in-place products count the steps and cache hits of a depth-first
/// manager doing the same work.
#[test]
fn a_walk_past_its_bound_counts_each_step_once() {
    for seed in 0..10u64 {
        let counted: Vec<_> = [(Traversal::DepthFirst, Config::default().max_requests), (Traversal::BreadthFirst, 0)]
            .into_iter()
            .map(|(traversal, max_requests)| {
                let (mut m, x) = manager(traversal, Config { max_requests, ..Config::default() });
                let mut rng = StdRng::seed_from_u64(7000 + seed);
                let (g, _) = random_formula(&mut rng, &mut m, &x, 8);
                let (rel, _) = random_formula(&mut rng, &mut m, &x, 8);
                m.or(g, rel).unwrap();
                m.xor(g, rel).unwrap();
                let pairs: Vec<(Var, Var)> = (0..N / 2).map(|p| (x[2 * p], x[2 * p + 1])).collect();
                let pairing = m.pairing(&pairs).unwrap();
                let lower = m.var_set(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()).unwrap();
                let f = m.exists(g, lower).unwrap();
                m.image(f, rel, pairing).unwrap();
                m.preimage(f, rel, pairing).unwrap();
                let s = m.stats();
                (s.steps, s.cache_hits, s.bfs_past_bound)
            })
            .collect();
        let [(steps, hits, _), (bfs_steps, bfs_hits, past)] = counted[..] else { unreachable!() };
        assert!(past > 0, "seed {seed}: every step past the bound");
        assert_eq!(bfs_steps, steps, "seed {seed}: steps");
        assert_eq!(bfs_hits, hits, "seed {seed}: cache hits");
    }
}
