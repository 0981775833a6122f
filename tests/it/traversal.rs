//! The breadth-first traversal (`--traversal breadth-first`) against the
//! oracles: counts against the enumerator, and the same stored solution,
//! byte for byte, as depth-first (solves against the explicit solver:
//! `parallel.rs`).

use c4bdd::bdd::{Config, Traversal};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::explicit;
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

#[test]
fn a_solution_saved_breadth_first_equals_one_saved_depth_first() {
    let size = BoardSize::new(5, 4).unwrap();
    let depth = saved_solution_with(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default());
    let want = files_of(depth.path());
    assert_eq!(want.len(), size.cells() as usize + 2, "a file per ply and the manifest");
    let breadth = saved_solution_with(EncodingKind::Compressed, size, &OrderSpec::PAPER, breadth_first());
    assert!(files_of(breadth.path()) == want, "the files differ");
}

/// A breadth-first solve, its plies split whole or part by part
/// (`split_parts`), has the per-ply positions and BDD nodes of a
/// depth-first one.
#[test]
fn a_breadth_first_solve_whole_or_in_parts_gives_the_depth_first_sets() {
    let size = BoardSize::new(5, 4).unwrap();
    let plies = |config: Config, split_parts: u8| {
        let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap();
        let opts = ForwardOptions { split_parts, ..ForwardOptions::default() };
        let summary = solve(&mut space, &opts, |_| Ok(()), |_, _, _, _| Ok(())).unwrap();
        space.manager.check().unwrap();
        summary.plies.iter().map(|p| (p.ply, p.won, p.drawn, p.lost, p.nodes)).collect::<Vec<_>>()
    };
    let want = plies(Config::default(), 0);
    assert_eq!(want.len(), size.cells() as usize + 1, "a row per ply");
    for split_parts in [0, 3] {
        assert_eq!(plies(breadth_first(), split_parts), want, "split_parts {split_parts}");
    }
}
