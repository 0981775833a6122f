//! The parallel operations (`threads > 1`) against the sequential ones and
//! the truth tables: the same functions, as the same nodes.

use c4bdd_core::{Config, Manager, Var};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::common::truth_table;
use crate::random::random_formula;

const N: usize = 10;

/// `n` threads, collecting garbage from 4096 live nodes on (so that
/// collections, parallel with more than one thread, run between operations);
/// parallel operations start with few spare slots, so that some run out of
/// them and run again.
fn threads(n: usize) -> Config {
    Config { threads: n, gc_min_live: 1 << 12, parallel_spare: 64, ..Config::default() }
}

fn manager(config: Config) -> (Manager, Vec<Var>) {
    let mut m = Manager::new(config);
    let x = m.add_vars(N).unwrap();
    (m, x)
}

/// The same random formulas (the same operations in the same order) built
/// sequentially and on two and three threads have the same truth tables and
/// sizes, and the parallel manager keeps every table invariant.
#[test]
fn parallel_operations_build_the_same_functions_as_sequential_ones() {
    for seed in 0..30u64 {
        let mut built = Vec::new();
        for t in [1, 2, 3] {
            let (mut m, x) = manager(threads(t));
            assert_eq!(m.threads(), t);
            let mut rng = StdRng::seed_from_u64(seed);
            let (f, tf) = random_formula(&mut rng, &mut m, &x, 9);
            assert_eq!(truth_table(&m, f, N), tf, "seed {seed}, {t} threads");
            let all = m.var_set(&x).unwrap();
            let ones = tf.iter().filter(|&&v| v).count() as u128;
            assert_eq!(m.sat_count_and_size(f, all), (ones, m.node_count(f)), "seed {seed}, {t} threads");
            m.check().unwrap();
            built.push((tf, m.node_count(f)));
        }
        assert!(built.windows(2).all(|w| w[0] == w[1]), "seed {seed}");
    }
}

/// `split` on two and three threads gives the halves the truth tables
/// give, as the same nodes as `and` and `diff`.
#[test]
fn parallel_split_gives_both_halves() {
    for seed in 0..20u64 {
        for t in [2, 3] {
            let (mut m, x) = manager(threads(t));
            let mut rng = StdRng::seed_from_u64(seed);
            let (f, tf) = random_formula(&mut rng, &mut m, &x, 9);
            let (g, tg) = random_formula(&mut rng, &mut m, &x, 9);
            let (a, d) = m.split(f, g).unwrap();
            let and: Vec<bool> = tf.iter().zip(&tg).map(|(&p, &q)| p && q).collect();
            let diff: Vec<bool> = tf.iter().zip(&tg).map(|(&p, &q)| p && !q).collect();
            assert_eq!(truth_table(&m, a, N), and, "seed {seed}, {t} threads: the and half");
            assert_eq!(truth_table(&m, d, N), diff, "seed {seed}, {t} threads: the diff half");
            m.clear_cache();
            assert_eq!((m.and(f, g).unwrap(), m.diff(f, g).unwrap()), (a, d), "seed {seed}, {t} threads: canonical");
            m.check().unwrap();
        }
    }
}

/// `split3` on two and three threads gives the results the truth tables
/// give, as the same nodes as the binary operations.
#[test]
fn parallel_split3_gives_won_drawn_and_lost() {
    for seed in 0..20u64 {
        for t in [2, 3] {
            let (mut m, x) = manager(threads(t));
            let mut rng = StdRng::seed_from_u64(900 + seed);
            let (f, tf) = random_formula(&mut rng, &mut m, &x, 9);
            let (g, tg) = random_formula(&mut rng, &mut m, &x, 9);
            let (h, th) = random_formula(&mut rng, &mut m, &x, 9);
            let (w, d, l) = m.split3(f, g, h).unwrap();
            let want = |p: fn(bool, bool, bool) -> bool| -> Vec<bool> {
                (0..tf.len()).map(|a| p(tf[a], tg[a], th[a])).collect()
            };
            assert_eq!(truth_table(&m, w, N), want(|f, g, _| f && g), "seed {seed}, {t} threads: won");
            assert_eq!(truth_table(&m, d, N), want(|f, g, h| f && !g && h), "seed {seed}, {t} threads: drawn");
            assert_eq!(truth_table(&m, l, N), want(|f, g, h| f && !g && !h), "seed {seed}, {t} threads: lost");
            m.clear_cache();
            let rest = m.diff(f, g).unwrap();
            let by_two = (m.and(f, g).unwrap(), m.and(rest, h).unwrap(), m.diff(rest, h).unwrap());
            assert_eq!(by_two, (w, d, l), "seed {seed}, {t} threads: canonical");
            m.check().unwrap();
        }
    }
}

/// Computed tables given back between operations (as before a large
/// count) regrow to their size at the next operation, on one thread and on
/// two, and the operations give the same nodes as before.
#[test]
fn released_caches_regrow_and_change_no_result() {
    for t in [1, 2] {
        let (mut m, x) = manager(Config { gc_min_live: usize::MAX, initial_nodes: 1 << 8, ..threads(t) });
        let mut rng = StdRng::seed_from_u64(40 + t as u64);
        let [(f, _), (g, _), (h, _)] = [0; 3].map(|_| random_formula(&mut rng, &mut m, &x, 9));
        let split = m.split3(f, g, h).unwrap();
        let rest = m.diff(f, g).unwrap();
        let grown = m.stats().cache_entries;
        m.release_caches();
        assert!(m.stats().cache_entries < grown, "{t} threads: the cache was given back");
        assert_eq!(m.split3(f, g, h).unwrap(), split, "{t} threads: the split after the release");
        assert_eq!(m.diff(f, g).unwrap(), rest, "{t} threads: diff after the release");
        assert_eq!(m.stats().cache_entries, grown, "{t} threads: the cache regrew");
        m.check().unwrap();
    }
}

/// In-place image and pre-image on two threads equal the sequential ones.
#[test]
fn parallel_images_equal_the_sequential_ones() {
    for seed in 0..30u64 {
        let mut results = Vec::new();
        for t in [1, 2] {
            let (mut m, x) = manager(threads(t));
            let pairs: Vec<(Var, Var)> = (0..N / 2).map(|p| (x[2 * p], x[2 * p + 1])).collect();
            let pairing = m.pairing(&pairs).unwrap();
            let lower = m.var_set(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()).unwrap();
            let mut rng = StdRng::seed_from_u64(500 + seed);
            let (g, _) = random_formula(&mut rng, &mut m, &x, 6);
            let f = m.exists(g, lower).unwrap();
            let (rel, _) = random_formula(&mut rng, &mut m, &x, 8);
            let image = m.image(f, rel, pairing).unwrap();
            let preimage = m.preimage(f, rel, pairing).unwrap();
            m.check().unwrap();
            results.push((truth_table(&m, image, N), truth_table(&m, preimage, N)));
        }
        assert_eq!(results[0], results[1], "seed {seed}");
    }
}
