//! The forward pass against the explicit enumerator and the paper's Table 1.

use c4bdd::bdd::Config;
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::explicit;
use c4bdd::game::BoardSize;
use c4bdd::search::{forward, ForwardOptions, ImageStrategy, TerminalStrategy};

use crate::common::paper_table1;

const ENCODINGS: [EncodingKind; 2] = [EncodingKind::Cellwise, EncodingKind::Compressed];
const ORDERS: [OrderSpec; 3] = [OrderSpec::ColumnWise, OrderSpec::RowWise, OrderSpec::CenterOut];

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
        for kind in ENCODINGS {
            for order in &ORDERS {
                for image in [ImageStrategy::InPlace, ImageStrategy::Monolithic] {
                    let got = bdd_counts(kind, size, order, ForwardOptions { image, terminal });
                    assert_eq!(got, oracle, "{size} {kind} {} {image:?} {terminal:?}", order.name());
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
        for kind in ENCODINGS {
            let reference = bdd_counts(kind, size, &OrderSpec::ColumnWise, ForwardOptions::default());
            for image in [ImageStrategy::InPlace, ImageStrategy::Monolithic, ImageStrategy::Columns] {
                for terminal in [TerminalStrategy::Whole, TerminalStrategy::Lines, TerminalStrategy::Fused] {
                    let got = bdd_counts(kind, size, &OrderSpec::Paper, ForwardOptions { image, terminal });
                    assert_eq!(got, reference, "{size} {kind} {image:?} {terminal:?}");
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
        for kind in ENCODINGS {
            let total: u128 = bdd_counts(kind, *size, &OrderSpec::Paper, ForwardOptions::default()).iter().sum();
            assert_eq!(total, *positions, "{size} {kind}");
        }
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} boards of the reference table were checked");
}
