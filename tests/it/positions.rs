//! Positions a user can paste (`--position`): a layout (a character a cell,
//! column by column from the bottom-left: the 42-character rows of 7x6
//! datasets) or a diagram (rows top to bottom). Each names the same position
//! as its moves; boards no game reaches are refused with the reason.

use std::process::{Command, Output};

use c4bdd::game::layout::parse;
use c4bdd::game::{BoardSize, Player, Position};

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn mark(p: &Position, col: u8, row: u8, blank: char) -> char {
    match p.cell(col, row) {
        Some(Player::First) => 'x',
        Some(Player::Second) => 'o',
        None => blank,
    }
}

/// The layout of a position: column by column, bottom up, `b` for blanks.
fn layout_of(p: &Position) -> String {
    let s = p.size();
    (0..s.width).flat_map(|c| (0..s.height).map(move |r| mark(p, c, r, 'b'))).collect()
}

/// The diagram of a position: rows top to bottom joined by `/`.
fn diagram_of(p: &Position) -> String {
    let s = p.size();
    let rows: Vec<String> = (0..s.height).rev().map(|r| (0..s.width).map(|c| mark(p, c, r, '.')).collect()).collect();
    rows.join("/")
}

/// Move strings of games on `size` that nobody has won yet, from a fixed
/// pseudo-random sequence.
fn games(size: BoardSize, count: usize) -> Vec<String> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut out = Vec::new();
    while out.len() < count {
        let (mut p, mut moves) = (Position::empty(size), String::new());
        loop {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let col = (x % size.width as u64) as u8;
            if x.is_multiple_of(9) || !p.can_play(col) {
                break;
            }
            let next = p.play(col);
            if next.is_terminal() {
                break;
            }
            (p, moves) = (next, moves + &(col + 1).to_string());
        }
        out.push(moves);
    }
    out
}

#[test]
fn layouts_and_diagrams_name_the_positions_of_their_moves() {
    for size in [BoardSize::new(7, 6).unwrap(), BoardSize::new(5, 4).unwrap(), BoardSize::new(3, 5).unwrap()] {
        for moves in games(size, 300) {
            let want = Position::from_moves(size, &moves).unwrap();
            let layout = layout_of(&want);
            assert_eq!(parse(&layout, Some(size)), Ok(want), "{moves}: {layout}");
            assert_eq!(parse(&diagram_of(&want).replace('/', "\n"), None), Ok(want), "{moves}");
            if size == BoardSize::new(7, 6).unwrap() {
                assert_eq!(parse(&layout, None), Ok(want), "a 42-character layout is of 7x6");
            }
        }
    }
}

#[test]
fn query_answers_a_pasted_board_as_its_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    let out = c4bdd(&["solve", "-W", "5", "-H", "4", "--out", sol.to_str().unwrap()]);
    assert!(out.status.success());
    let size = BoardSize::new(5, 4).unwrap();
    let answer = |out: Output| {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().rsplit(": ").next().unwrap().to_string()
    };
    for moves in games(size, 40) {
        let p = Position::from_moves(size, &moves).unwrap();
        let by_moves = answer(c4bdd(&["query", "--solution", sol.to_str().unwrap(), "--moves", &moves]));
        for text in [layout_of(&p), diagram_of(&p)] {
            let pasted = answer(c4bdd(&["query", "--solution", sol.to_str().unwrap(), "--position", &text]));
            assert_eq!(pasted, by_moves, "{moves} as {text}");
        }
    }
}

/// A game that is over is a position as its moves are: `query` answers
/// both alike; `best` refuses both (nothing to search).
#[test]
fn a_won_board_is_answered_as_its_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    assert!(c4bdd(&["solve", "-W", "5", "-H", "4", "--out", sol.to_str().unwrap()]).status.success());
    let (moves, board) = ("1122334", "...../...../ooo../xxxx.");
    let by_moves = c4bdd(&["query", "--solution", sol.to_str().unwrap(), "--moves", moves]);
    let pasted = c4bdd(&["query", "--solution", sol.to_str().unwrap(), "--position", board]);
    assert!(pasted.status.success(), "{}", String::from_utf8_lossy(&pasted.stderr));
    let tail = |out: &Output| String::from_utf8_lossy(&out.stdout).split_once("): ").unwrap().1.to_string();
    assert_eq!(tail(&pasted), tail(&by_moves));
    assert!(tail(&pasted).contains("the game is over"), "{}", tail(&pasted));
    for args in [["--moves", moves], ["--position", board]] {
        let out = c4bdd(&[&["best", "-W", "5", "-H", "4"][..], &args].concat());
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("already over"));
    }
}

#[test]
fn boards_no_game_reaches_are_refused_with_the_reason() {
    let cases = [
        ("...../...../x..../.x...", "column 1 has a disc in row 2 above an empty cell"),
        ("...../...../...../xxx..", "x has 3 discs and o 0"),
        ("...../...../...../oo...", "x has 0 discs and o 2"),
        ("...../...../oooo./xxxx.", "x has four in a row but o moved last"),
        ("...../...../ooox./xxxxo", "x has four in a row that no last move made"),
        ("...../...../x..../o....", "no order of play, x and o in turn, builds this board"),
        ("...../...../...../x.z..", "row 4, column 3 ('z') is not x, o or ."),
        ("...../...../..../x....", "row 3 of the diagram has 4 cells, the first has 5"),
        ("bbbbbbbbbbbbbbbbbbbbx", "a layout of 5x4 has 20 cells, not 21"),
        ("...../x..../o..", "row 3 of the diagram has 3 cells"),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    assert!(c4bdd(&["solve", "-W", "5", "-H", "4", "--out", sol.to_str().unwrap()]).status.success());
    for (text, why) in cases {
        let best = ["best", "-W", "5", "-H", "4", "--position", text];
        let query = ["query", "--solution", sol.to_str().unwrap(), "--position", text];
        for args in [&best[..], &query[..]] {
            let out = c4bdd(args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            assert!(err.contains(why), "{args:?}: {err}");
        }
    }
}

#[test]
fn best_prints_the_value_first_and_the_same_as_json() {
    let args = ["best", "-W", "5", "-H", "4", "--position", "...../...../...../..x..", "--all-moves"];
    let text = c4bdd(&args);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    let first = text.lines().next().unwrap();
    let json = c4bdd(&[&args[..], &["--json"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let value = json["value"].as_str().unwrap();
    assert_eq!(first, format!("value: {value} for the second player to move (5x4 after the given board)"));
    assert_eq!(json["ply"], 1);
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 5, "every column is playable");
    for m in moves {
        let line = format!("column {}: {}", m["column"], m["value"].as_str().unwrap());
        assert!(text.lines().any(|l| l == line), "{line} in {text}");
    }
    let best = json["best"].as_u64().unwrap();
    let best_value = moves.iter().find(|m| m["column"] == best).unwrap()["value"].as_str().unwrap();
    assert_eq!(best_value, value, "the position's value is its best move's");
}

/// Without `--all-moves`, `best` gives the position's value and one move that
/// keeps it: the same value as with every move's, and a move of that value.
#[test]
fn best_gives_the_value_and_one_move_unless_all_moves_are_asked() {
    let args = ["best", "-W", "5", "-H", "4", "--moves", "3", "--json"];
    let json = |args: &[&str]| -> serde_json::Value {
        let out = c4bdd(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (fast, all) = (json(&args), json(&[&args[..], &["--all-moves"]].concat()));
    assert!(fast.get("moves").is_none(), "{fast}");
    assert_eq!(fast["value"], all["value"]);
    let moves = all["moves"].as_array().unwrap();
    let kept = moves.iter().find(|m| m["column"] == fast["best"]).unwrap();
    assert_eq!(kept["value"], all["value"], "the move `best` names keeps the value");
    let text = String::from_utf8(c4bdd(&args[..args.len() - 1]).stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].starts_with(&format!("best move: column {} (", fast["best"])), "{text}");
}
