//! The breadth-first traversal (`--traversal breadth-first`) against the
//! oracles: counts against the enumerator, solves against the explicit
//! solver, and the same stored solution, byte for byte, as depth-first.

use c4bdd::bdd::{Config, Traversal};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::explicit::{self, ExplicitSolution};
use c4bdd::game::BoardSize;
use c4bdd::search::{forward, solve, ForwardOptions, ImageStrategy};

use crate::solve::{files_of, saved_solution_with};

/// Breadth-first, with frequent collections (as the parallel tests).
fn breadth_first() -> Config {
    Config { traversal: Traversal::BreadthFirst, gc_min_live: 1 << 12, ..Config::default() }
}

/// Counting breadth-first matches the enumerator ply by ply, in both
/// encodings and every image strategy.
#[test]
fn breadth_first_counts_match_the_enumerator() {
    for (w, h) in [(4, 4), (5, 4), (4, 5)] {
        let size = BoardSize::new(w, h).unwrap();
        let oracle: Vec<u128> = explicit::count_plies(size, true).unwrap().into_iter().map(u128::from).collect();
        for kind in [EncodingKind::Cellwise, EncodingKind::Compressed] {
            for image in [ImageStrategy::InPlace, ImageStrategy::InPlaceColumns, ImageStrategy::Monolithic] {
                let mut space = StateSpace::new(kind, size, &OrderSpec::PAPER, breadth_first()).unwrap();
                let opts = ForwardOptions { image, ..ForwardOptions::default() };
                let (summary, _) = forward(&mut space, &opts, false, |_| {}).unwrap();
                space.manager.check().unwrap();
                let got: Vec<u128> = summary.plies.iter().map(|p| p.states).collect();
                assert_eq!(got, oracle, "{size} {kind} {image:?}");
            }
        }
    }
}

/// Solving breadth-first matches the explicit solver ply by ply, and the
/// depth-first solve down to the stored nodes of every ply.
#[test]
fn breadth_first_solves_match_the_explicit_solver() {
    for (w, h) in [(4, 4), (5, 3), (3, 5)] {
        let size = BoardSize::new(w, h).unwrap();
        let table = ExplicitSolution::solve(size).unwrap().table();
        for kind in [EncodingKind::Cellwise, EncodingKind::Compressed] {
            let mut nodes = Vec::new();
            for traversal in Traversal::ALL {
                let config = Config { traversal, ..breadth_first() };
                let mut space = StateSpace::new(kind, size, &OrderSpec::CENTER_OUT, config).unwrap();
                let summary = solve(&mut space, &ForwardOptions::default(), |_| Ok(()), |_, _, _, _| Ok(())).unwrap();
                space.manager.check().unwrap();
                let got: Vec<(u64, u64, u64, u64, u64)> = summary
                    .plies
                    .iter()
                    .map(|p| (p.won as u64, p.drawn as u64, p.lost as u64, p.total as u64, p.terminal as u64))
                    .collect();
                assert_eq!(got, table, "{size} {kind} {traversal}");
                nodes.push(summary.plies.iter().map(|p| p.nodes).collect::<Vec<_>>());
            }
            assert_eq!(nodes[0], nodes[1], "{size} {kind}: stored nodes per ply");
        }
    }
}

#[test]
fn a_solution_saved_breadth_first_equals_one_saved_depth_first() {
    let size = BoardSize::new(5, 4).unwrap();
    let depth = saved_solution_with(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default());
    let want = files_of(depth.path());
    assert_eq!(want.len(), size.cells() as usize + 2, "a file per ply and the manifest");
    let breadth = saved_solution_with(EncodingKind::Compressed, size, &OrderSpec::PAPER, breadth_first());
    assert!(files_of(breadth.path()) == want, "the files differ");
}
