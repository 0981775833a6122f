//! Counts and solutions on two threads (and solutions breadth-first)
//! against the oracles: the same counts, the same solutions, as the
//! one-thread depth-first runs.

use c4bdd::bdd::{Config, Traversal};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::error::{CoreError, Error};
use c4bdd::game::explicit::{self, ExplicitSolution};
use c4bdd::game::BoardSize;
use c4bdd::search::{forward, solve, ForwardOptions, ImageStrategy};

/// `n` threads, with frequent collections and few spare slots (as the core's tests).
fn threads(n: usize) -> Config {
    Config { threads: n, gc_min_live: 1 << 12, parallel_spare: 64, ..Config::default() }
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

/// Solving on two threads, and on one breadth-first, matches the explicit
/// solver ply by ply, and the one-thread depth-first solve down to the
/// stored nodes of every ply.
#[test]
fn parallel_and_breadth_first_solves_match_the_explicit_solver() {
    let breadth_first = Config { traversal: Traversal::BreadthFirst, ..threads(1) };
    for (w, h) in [(4, 4), (5, 3), (3, 5)] {
        let size = BoardSize::new(w, h).unwrap();
        let table = ExplicitSolution::solve(size).unwrap().table();
        for kind in [EncodingKind::Cellwise, EncodingKind::Compressed] {
            let mut nodes = Vec::new();
            for config in [threads(1), threads(2), breadth_first.clone()] {
                let what = format!("{} threads, {}", config.threads, config.traversal);
                let mut space = StateSpace::new(kind, size, &OrderSpec::PAPER, config).unwrap();
                let summary = solve(&mut space, &ForwardOptions::default(), |_| Ok(()), |_, _, _, _| Ok(())).unwrap();
                space.manager.check().unwrap();
                let got: Vec<(u64, u64, u64, u64, u64)> = summary
                    .plies
                    .iter()
                    .map(|p| (p.won as u64, p.drawn as u64, p.lost as u64, p.total as u64, p.terminal as u64))
                    .collect();
                assert_eq!(got, table, "{size} {kind} {what}");
                nodes.push(summary.plies.iter().map(|p| p.nodes).collect::<Vec<_>>());
            }
            assert!(nodes.iter().all(|n| *n == nodes[0]), "{size} {kind}: stored nodes per ply");
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
        Err(Error::Core(CoreError::NodeLimit { capacity, live })) => {
            assert!(capacity == 20_000 && live <= 20_000, "{live}")
        }
        other => panic!("expected a node-limit error, got {:?}", other.map(|(s, _)| s.positions)),
    }
    space.manager.check().unwrap();
}
