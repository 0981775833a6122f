//! The parallel operations (`threads > 1`) against the sequential ones and
//! the oracles: the same functions, the same counts, the same solutions.

use c4bdd::bdd::{Config, Manager, Var};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::error::Error;
use c4bdd::game::explicit::{self, ExplicitSolution};
use c4bdd::game::BoardSize;
use c4bdd::search::{forward, solve, ForwardOptions, ImageStrategy};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::bdd_random::random_formula;
use crate::common::truth_table;

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

/// Counting on two threads matches the enumerator ply by ply, in both
/// encodings and both image strategies; the arena grows during operations
/// (it starts at 2^14 slots, an operation gets few spare ones), so some
/// operations run out of slots and run again.
#[test]
fn parallel_counts_match_the_enumerator() {
    let mut reruns = 0;
    for (w, h) in [(4, 4), (5, 4), (4, 5)] {
        let size = BoardSize::new(w, h).unwrap();
        let oracle: Vec<u128> = explicit::count_plies(size, true).unwrap().into_iter().map(u128::from).collect();
        for kind in [EncodingKind::Cellwise, EncodingKind::Compressed] {
            for image in [ImageStrategy::InPlace, ImageStrategy::InPlaceColumns, ImageStrategy::Monolithic] {
                let mut space = StateSpace::new(kind, size, &OrderSpec::PAPER, threads(2)).unwrap();
                let opts = ForwardOptions { image, ..ForwardOptions::default() };
                let (summary, _) = forward(&mut space, &opts, false, |_| {}).unwrap();
                space.manager.check().unwrap();
                assert!(space.manager.stats().gc_runs > 0, "{size} {kind} {image:?}: no collection ran");
                reruns += space.manager.stats().parallel_reruns;
                let got: Vec<u128> = summary.plies.iter().map(|p| p.states).collect();
                assert_eq!(got, oracle, "{size} {kind} {image:?}");
            }
        }
    }
    assert!(reruns > 0, "no operation ran out of slots");
}

/// Solving on two threads matches the explicit solver ply by ply, and the
/// one-thread solve down to the stored nodes of every ply.
#[test]
fn parallel_solves_match_the_explicit_solver() {
    for (w, h) in [(4, 4), (5, 3), (3, 5)] {
        let size = BoardSize::new(w, h).unwrap();
        let table = ExplicitSolution::solve(size).unwrap().table();
        for kind in [EncodingKind::Cellwise, EncodingKind::Compressed] {
            let mut nodes = Vec::new();
            for t in [1, 2] {
                let mut space = StateSpace::new(kind, size, &OrderSpec::PAPER, threads(t)).unwrap();
                let summary = solve(&mut space, &ForwardOptions::default(), |_| Ok(()), |_, _, _, _| Ok(())).unwrap();
                space.manager.check().unwrap();
                let got: Vec<(u64, u64, u64, u64, u64)> = summary
                    .plies
                    .iter()
                    .map(|p| (p.won as u64, p.drawn as u64, p.lost as u64, p.total as u64, p.terminal as u64))
                    .collect();
                assert_eq!(got, table, "{size} {kind} {t} threads");
                nodes.push(summary.plies.iter().map(|p| p.nodes).collect::<Vec<_>>());
            }
            assert_eq!(nodes[0], nodes[1], "{size} {kind}: stored nodes per ply");
        }
    }
}

/// Counting and solving run on a thread of the manager's pool when it has
/// one (their parallel operations then start on it) and on the caller's
/// thread otherwise; work started on the pool's thread stays on that thread.
#[test]
fn passes_run_on_the_pool_when_there_is_one() {
    let size = BoardSize::new(4, 4).unwrap();
    for t in [1, 2] {
        let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, threads(t)).unwrap();
        let mut counted = Vec::new();
        forward(&mut space, &ForwardOptions::default(), false, |_| counted.push(rayon::current_thread_index()))
            .unwrap();
        let mut solved = Vec::new();
        let mut stored = Vec::new();
        solve(
            &mut space,
            &ForwardOptions::default(),
            |_| {
                solved.push(rayon::current_thread_index());
                Ok(())
            },
            |_, _, _, _| {
                stored.push(rayon::current_thread_index());
                Ok(())
            },
        )
        .unwrap();
        for (what, seen) in [("count", &counted), ("solve", &solved), ("store", &stored)] {
            assert_eq!(seen.len(), 17, "{what}: one call per ply");
            assert!(seen.iter().all(|i| i.is_some() == (t > 1)), "{what} on {t} threads: {seen:?}");
        }
        let (outer, inner) =
            space.on_pool(|s| (rayon::current_thread_index(), s.on_pool(|_| rayon::current_thread_index())));
        assert_eq!(outer, inner, "a nested call stays on its thread");
        assert_eq!(outer.is_some(), t > 1);
    }
}

/// A parallel operation that reaches the node limit reports it, and the
/// manager stays consistent.
#[test]
fn a_parallel_operation_at_the_node_limit_reports_it() {
    let size = BoardSize::new(5, 4).unwrap();
    let config = Config { max_nodes: 20_000, ..threads(2) };
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap();
    match forward(&mut space, &ForwardOptions::default(), false, |_| {}) {
        Err(Error::NodeLimit { capacity, live }) => assert!(capacity == 20_000 && live <= 20_000, "{live}"),
        other => panic!("expected a node-limit error, got {:?}", other.map(|(s, _)| s.positions)),
    }
    space.manager.check().unwrap();
}
