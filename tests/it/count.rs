//! The forward pass against the explicit enumerator and the paper's Table 1.

use c4bdd::bdd::Config;
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::explicit;
use c4bdd::game::BoardSize;
use c4bdd::search::{forward, ForwardOptions, ImageStrategy, TerminalStrategy};

use crate::common::paper_table1;

const ORDERS: [OrderSpec; 3] = [OrderSpec::COLUMN_WISE, OrderSpec::ROW_WISE, OrderSpec::CENTER_OUT];

/// Per-ply counts of a BDD forward pass.
fn bdd_counts(kind: EncodingKind, size: BoardSize, order: &OrderSpec, opts: ForwardOptions) -> Vec<u128> {
    let mut space = StateSpace::new(kind, size, order, Config::default()).unwrap();
    let (summary, _) = forward(&mut space, &opts, false, |_| {}).unwrap();
    space.manager.check().unwrap();
    summary.plies.iter().map(|p| p.states).collect()
}

/// Every board with w*h <= `max_cells` (and both sides at most 13).
fn boards(max_cells: u32) -> Vec<BoardSize> {
    let mut out = Vec::new();
    for w in 1..=13 {
        for h in 1..=13 {
            if w * h <= max_cells {
                out.push(BoardSize::new(w, h).unwrap());
            }
        }
    }
    out
}

fn check_against_oracle(terminal: TerminalStrategy) {
    for size in boards(20) {
        let oracle: Vec<u128> = explicit::count_plies(size, terminal != TerminalStrategy::Off)
            .unwrap()
            .into_iter()
            .map(u128::from)
            .collect();
        for kind in EncodingKind::all() {
            for order in &ORDERS {
                let images = [(ImageStrategy::InPlace, 0), (ImageStrategy::Monolithic, 0), (ImageStrategy::InPlace, 3)];
                for (image, image_split) in images {
                    let got =
                        bdd_counts(kind, size, order, ForwardOptions { image, terminal, image_split, split_parts: 0 });
                    let what = format!("{size} {kind} {} {image:?} split {image_split} {terminal:?}", order.name());
                    assert_eq!(got, oracle, "{what}");
                }
            }
        }
    }
}

#[test]
fn every_encoding_and_order_matches_the_enumerator_with_termination() {
    check_against_oracle(TerminalStrategy::Whole);
}

#[test]
fn every_encoding_and_order_matches_the_enumerator_without_termination() {
    check_against_oracle(TerminalStrategy::Off);
}

#[test]
fn strategies_agree_with_each_other() {
    for size in [BoardSize::new(4, 4).unwrap(), BoardSize::new(5, 3).unwrap(), BoardSize::new(3, 5).unwrap()] {
        for kind in EncodingKind::all() {
            let reference = bdd_counts(kind, size, &OrderSpec::COLUMN_WISE, ForwardOptions::default());
            for image in ImageStrategy::all() {
                for terminal in [TerminalStrategy::Whole, TerminalStrategy::Lines, TerminalStrategy::Fused] {
                    for image_split in [0, 2] {
                        let opts = ForwardOptions { image, terminal, image_split, split_parts: 0 };
                        let got = bdd_counts(kind, size, &OrderSpec::PAPER, opts);
                        assert_eq!(got, reference, "{size} {kind} {image:?} {terminal:?} split {image_split}");
                    }
                }
            }
        }
    }
}

#[test]
fn totals_match_the_papers_table_1_for_boards_up_to_25_cells() {
    let table = paper_table1();
    let mut checked = 0;
    for (size, positions) in table.iter().filter(|(s, _)| s.cells() <= 25) {
        for kind in EncodingKind::all() {
            let total: u128 = bdd_counts(kind, *size, &OrderSpec::PAPER, ForwardOptions::default()).iter().sum();
            assert_eq!(total, *positions, "{size} {kind}");
        }
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} boards of the reference table were checked");
}

#[test]
fn column_permutations_match_the_enumerator() {
    for size in boards(16).into_iter().filter(|s| s.width >= 2) {
        let oracle: Vec<u128> = explicit::count_plies(size, true).unwrap().into_iter().map(u128::from).collect();
        let w = size.width as u32;
        // Reversed, and rotated by one (column 2 first, column 1 last).
        let orders = [(1..=w).rev().collect(), (2..=w).chain([1]).collect::<Vec<u32>>()];
        for columns in orders {
            for kind in EncodingKind::all() {
                let order = OrderSpec::Columns(columns.clone());
                let got = bdd_counts(kind, size, &order, ForwardOptions::default());
                assert_eq!(got, oracle, "{size} {kind} {}", order.name());
            }
        }
    }
}

#[test]
fn column_permutation_orders_levels_as_listed() {
    let size = BoardSize::new(5, 3).unwrap();
    for kind in EncodingKind::all() {
        let centre: OrderSpec = "columns:3,2,4,1,5".parse().unwrap();
        assert_eq!(centre.name(), "columns:3,2,4,1,5");
        let a = StateSpace::new(kind, size, &centre, Config::default()).unwrap();
        let b = StateSpace::new(kind, size, &OrderSpec::CENTER_OUT, Config::default()).unwrap();
        assert_eq!(a.arrangement, b.arrangement, "{kind}: columns:3,2,4,1,5 is centre-out on 5 columns");
        let plain = StateSpace::new(kind, size, &"columns:1,2,3,4,5".parse().unwrap(), Config::default()).unwrap();
        let cols = StateSpace::new(kind, size, &OrderSpec::COLUMN_WISE, Config::default()).unwrap();
        assert_eq!(plain.arrangement, cols.arrangement, "{kind}: the identity permutation is column-wise");
    }
    let bad = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::Columns(vec![1, 2, 3, 4]), Config::default());
    assert!(matches!(bad, Err(c4bdd::Error::Core(c4bdd::error::CoreError::InvalidOrder { .. }))));
}
