//! Alpha-beta against plain minimax, with and without probes of a solution.

use std::collections::HashMap;

use c4bdd::encoding::{EncodingKind, OrderSpec};
use c4bdd::game::alphabeta::{minimax_value, MoveValue, OutcomeProbe, Search};
use c4bdd::game::explicit::{ExplicitSolution, Outcome};
use c4bdd::game::BoardSize;
use c4bdd::search::{open_table, TableProbe, Value};

fn solution_dir(size: BoardSize) -> tempfile::TempDir {
    crate::solve::saved_solution(EncodingKind::Compressed, size, &OrderSpec::PAPER)
}

fn sign(v: MoveValue) -> Outcome {
    match v {
        MoveValue::Win(_) => Outcome::Win,
        MoveValue::Draw => Outcome::Draw,
        MoveValue::Loss(_) => Outcome::Loss,
    }
}

/// Every position up to `max_ply`: alpha-beta values (position and each move)
/// equal plain minimax, with and without the table.
fn check_board(size: BoardSize, max_ply: u32) {
    let explicit = ExplicitSolution::solve(size).unwrap();
    let dir = solution_dir(size);
    let mut solution = TableProbe::new(open_table(dir.path()).unwrap());
    let mut memo = HashMap::new();
    let mut checked = 0;
    for ply in 0..=max_ply {
        for p in explicit.positions(ply) {
            if p.is_terminal() {
                continue;
            }
            let want = minimax_value(&p, &mut memo);
            assert_eq!(sign(want), explicit.outcome(&p).unwrap(), "{size}: minimax and the explicit solver");
            let mut plain = Search::new(size, 16, None);
            assert_eq!(plain.value(&p), want, "{size} ply {ply}: alpha-beta without the table");
            let want_moves: Vec<(u8, MoveValue)> = (0..size.width)
                .filter(|&c| p.can_play(c))
                .map(|c| {
                    let q = p.play(c);
                    let v = if q.is_terminal_win() {
                        MoveValue::Win(1)
                    } else {
                        match minimax_value(&q, &mut memo) {
                            MoveValue::Win(n) => MoveValue::Loss(n + 1),
                            MoveValue::Draw => MoveValue::Draw,
                            MoveValue::Loss(n) => MoveValue::Win(n + 1),
                        }
                    };
                    (c, v)
                })
                .collect();
            assert_eq!(plain.move_values(&p), want_moves, "{size} ply {ply}: move values");
            let (value, best) = plain.value_and_move(&p).unwrap();
            assert_eq!(value, want, "{size} ply {ply}: the value with one move");
            assert!(want_moves.contains(&(best, want)), "{size} ply {ply}: column {best} does not keep {want}");
            let probe: &mut dyn OutcomeProbe = &mut solution;
            let mut probed = Search::new(size, 16, Some(probe));
            assert_eq!(probed.move_values(&p), want_moves, "{size} ply {ply}: move values with the table");
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} positions");
}

/// Boards whose whole game plain minimax takes a minute to value (10x2: no
/// vertical lines and a wide row make hardly any game end early).
const SLOW_MINIMAX: [(u32, u32); 1] = [(10, 2)];

/// The value and one best move of the first positions of each board up to
/// 20 cells but [`SLOW_MINIMAX`]'s (every ply while their number stays within
/// 300), by one search reused across the board's positions, equal plain
/// minimax and, up to 16 cells, the explicit solver.
#[test]
fn value_and_move_equal_minimax_on_every_board_up_to_20_cells() {
    let boards: Vec<_> = (1..=13u32)
        .flat_map(|w| (1..=13u32).map(move |h| (w, h)))
        .filter(|&(w, h)| w * h <= 20 && !SLOW_MINIMAX.contains(&(w, h)))
        .collect();
    assert_eq!(boards.len() + SLOW_MINIMAX.len(), 52, "boards of at most 20 cells");
    for (w, h) in boards {
        check_value_and_move(BoardSize::new(w, h).unwrap());
    }
}

#[test]
#[ignore = "a minute of plain minimax; run with --ignored"]
fn value_and_move_equal_minimax_on_the_slow_boards() {
    for (w, h) in SLOW_MINIMAX {
        check_value_and_move(BoardSize::new(w, h).unwrap());
    }
}

fn check_value_and_move(size: BoardSize) {
    let explicit = (size.cells() <= 16).then(|| ExplicitSolution::solve(size).unwrap());
    let (mut memo, mut search) = (HashMap::new(), Search::new(size, 16, None));
    let mut layer = vec![c4bdd::game::Position::empty(size)];
    let mut checked = 0;
    while !layer.is_empty() && checked + layer.len() <= 300 {
        for p in &layer {
            let want = minimax_value(p, &mut memo);
            if let Some(e) = &explicit {
                assert_eq!(sign(want), e.outcome(p).unwrap(), "{size}: minimax and the explicit solver");
            }
            let (value, best) = search.value_and_move(p).unwrap();
            assert_eq!(value, want, "{size} ply {}: the value", p.ply());
            assert_eq!(search.value_after(p, best), want, "{size} ply {}: column {best} keeps it", p.ply());
        }
        checked += layer.len();
        layer = layer
            .iter()
            .flat_map(|p| (0..size.width).filter(|&c| p.can_play(c)).map(|c| p.play(c)))
            .filter(|q| !q.is_terminal())
            .map(|q| (q.key(), q))
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_values()
            .collect();
    }
    assert!(checked > 0, "{size}: no position checked");
}

/// Positions of `size` at `ply` where the player to move cannot win at once,
/// each from a game of moves chosen by a fixed pseudo-random sequence among
/// the moves that neither end the game nor let the opponent win at once
/// (games with no such move are left out).
fn late_positions(size: BoardSize, ply: u32, games: u64) -> Vec<c4bdd::game::Position> {
    use c4bdd::game::Position;
    let wins_now = |p: &Position| (0..size.width).any(|c| p.can_play(c) && p.play(c).is_terminal_win());
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut out = Vec::new();
    'games: for _ in 0..games {
        let mut p = Position::empty(size);
        while p.ply() < ply {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let quiet: Vec<Position> = (0..size.width)
                .filter(|&c| p.can_play(c))
                .map(|c| p.play(c))
                .filter(|q| !q.is_terminal() && !wins_now(q))
                .collect();
            if quiet.is_empty() {
                continue 'games;
            }
            p = quiet[(state >> 33) as usize % quiet.len()];
        }
        out.push(p);
    }
    out
}

/// The search on `u128` bitboards with 16-byte entries (a table too small
/// for 8-byte entries' tags, or a board wider than 64 bits) and on `u64`
/// with 8-byte entries give plain minimax's value, move values and a move
/// that keeps the value, on late positions of 7x6 and 13x5.
#[test]
fn both_bitboard_words_equal_minimax_on_late_positions() {
    for (w, h, ply, words) in [(7, 6, 28, [16, 8]), (13, 5, 50, [16, 16])] {
        let size = BoardSize::new(w, h).unwrap();
        let positions = late_positions(size, ply, 40);
        assert!(positions.len() >= 6, "{size}: {} positions", positions.len());
        let mut memo = HashMap::new();
        for (log2, bytes) in [4, 16].into_iter().zip(words) {
            let mut search = Search::new(size, log2, None);
            assert_eq!(search.entry_bytes(), bytes, "{size} with 2^{log2} entries");
            for p in &positions {
                let want = minimax_value(p, &mut memo);
                let (value, best) = search.value_and_move(p).unwrap();
                assert_eq!(value, want, "{size} ply {ply}, 2^{log2} entries: the value");
                assert_eq!(search.value_after(p, best), want, "{size}: column {best} keeps it");
                for (c, v) in search.move_values(p) {
                    assert_eq!(v, search.value_after(p, c), "{size}: move {c}");
                }
            }
        }
    }
}

#[test]
fn alpha_beta_equals_minimax_on_4x4() {
    check_board(BoardSize::new(4, 4).unwrap(), 15);
}

#[test]
fn alpha_beta_equals_minimax_on_5x4_and_the_table_saves_work() {
    let size = BoardSize::new(5, 4).unwrap();
    check_board(size, 3);
    let dir = solution_dir(size);
    let mut solution = TableProbe::new(open_table(dir.path()).unwrap());
    let empty = c4bdd::game::Position::empty(size);
    let mut plain = Search::new(size, 20, None);
    let without = plain.move_values(&empty);
    let probe: &mut dyn OutcomeProbe = &mut solution;
    let mut probed = Search::new(size, 20, Some(probe));
    assert_eq!(probed.move_values(&empty), without);
    assert!(probed.nodes() * 3 < plain.nodes(), "probes cut the search: {} vs {}", probed.nodes(), plain.nodes());
}

/// Every board solved in the committed results archive (the `value` of each
/// solve run in `results/*/*/runs.csv`) has the value that alpha-beta search
/// finds from the empty board, with no BDD involved: an independent check of
/// the boards too large for the explicit solver. Boards up to `max_cells`
/// cells (alpha-beta needs about two minutes for 8x4 here, hours beyond).
#[test]
#[ignore = "minutes of alpha-beta search over the archived solves; run with --ignored"]
fn archived_solve_values_match_alpha_beta() {
    use c4bdd::experiment::record::{read_rows, RunRow, Status};
    use c4bdd::experiment::Pass;
    use c4bdd::game::Position;
    use std::collections::{BTreeMap, BTreeSet};
    let max_cells = 32;
    let mut values: BTreeMap<(u8, u8), BTreeSet<Value>> = BTreeMap::new();
    let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    for experiment in std::fs::read_dir(&results).unwrap() {
        for sweep in std::fs::read_dir(experiment.unwrap().path()).unwrap() {
            let runs = sweep.unwrap().path().join("runs.csv");
            if !runs.exists() {
                continue;
            }
            for r in read_rows::<RunRow>(&runs).unwrap() {
                if r.pass == Pass::Solve && r.status == Status::Ok {
                    let value = r.value.unwrap_or_else(|| panic!("{}: a finished solve without a value", r.run));
                    values.entry((r.width, r.height)).or_default().insert(value);
                }
            }
        }
    }
    let checked: Vec<_> = values.iter().filter(|((w, h), _)| (*w as u32) * (*h as u32) <= max_cells).collect();
    assert!(checked.len() >= 10, "only {} solved boards in the archive", checked.len());
    for (&(w, h), found) in checked {
        let size = BoardSize::new(w.into(), h.into()).unwrap();
        assert_eq!(found.len(), 1, "{size}: the archive's runs disagree: {found:?}");
        let mut search = Search::new(size, 24, None);
        let want = match sign(search.value(&Position::empty(size))) {
            Outcome::Win => Value::FirstPlayerWins,
            Outcome::Draw => Value::Draw,
            Outcome::Loss => Value::SecondPlayerWins,
        };
        assert_eq!(*found.first().unwrap(), want, "{size}: archived solve against alpha-beta");
    }
}

/// The values archived by `experiments/best/run.sh` (every `results/best/*/best.csv`
/// row of a finished search of at most 60 M positions, some written by earlier
/// builds of the search) are what the search finds now, with a move that keeps them.
#[test]
fn archived_best_values_are_found_again() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/best");
    let mut checked = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let file = dir.unwrap().path().join("best.csv");
        if !file.exists() {
            continue;
        }
        let mut reader = csv::Reader::from_path(&file).unwrap();
        let headers = reader.headers().unwrap().clone();
        for row in reader.records() {
            let row = row.unwrap();
            let field = |name: &str| &row[headers.iter().position(|h| h == name).unwrap()];
            let small = field("nodes").parse::<u64>().is_ok_and(|n| n <= 60_000_000);
            if field("status") != "ok" || field("all_moves") != "false" || !small {
                continue;
            }
            let size: BoardSize = field("board").parse().unwrap();
            let p = c4bdd::game::Position::from_moves(size, field("moves")).unwrap();
            let mut search = Search::new(size, c4bdd::game::alphabeta::default_table_bits(), None);
            let (value, best) = search.value_and_move(&p).unwrap();
            let at = format!("{} after \"{}\"", file.display(), field("moves"));
            assert_eq!(value.to_string(), field("value"), "{at}");
            assert_eq!(search.value_after(&p, best), value, "{at}: column {best} keeps it");
            checked += 1;
        }
    }
    assert!(checked >= 2, "{checked} archived searches checked");
}
