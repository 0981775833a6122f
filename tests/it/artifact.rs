//! Solutions written by the paper's artifact (tests/data/artifact/, see its
//! README) read in place: every reachable position of 4x4 (both encodings),
//! 5x4 and 4x5 against the explicit solver and c4bdd's own solve, the
//! artifact's own answers, searches over them, and damaged files.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::copy_of;

use c4bdd::encoding::{EncodingKind, OrderSpec};
use c4bdd::game::alphabeta::{OutcomeProbe, Search};
use c4bdd::game::explicit::{ExplicitSolution, Outcome};
use c4bdd::game::{BoardSize, Position};
use c4bdd::search::{open_table, TableProbe};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/artifact").join(path)
}

/// The artifact's solutions at hand: folder, board, encoding.
fn artifact_solutions() -> Vec<(PathBuf, BoardSize, EncodingKind)> {
    let size = |w, h| BoardSize::new(w, h).unwrap();
    vec![
        (data("compressed/solution_w4_h4"), size(4, 4), EncodingKind::Compressed),
        (data("standard/solution_w4_h4"), size(4, 4), EncodingKind::Cellwise),
        (data("compressed/solution_w5_h4"), size(5, 4), EncodingKind::Compressed),
        (data("compressed/solution_w4_h5"), size(4, 5), EncodingKind::Compressed),
    ]
}

/// c4bdd's own solution of a board, written to a temporary folder.
fn own_solution(kind: EncodingKind, size: BoardSize) -> tempfile::TempDir {
    crate::solve::saved_solution(kind, size, &OrderSpec::PAPER)
}

#[test]
fn every_reachable_position_has_the_value_of_the_explicit_solver_and_of_our_solve() {
    for (dir, size, kind) in artifact_solutions() {
        let mut artifact = open_table(&dir).unwrap();
        assert_eq!((artifact.size(), artifact.plies()), (size, 0..=size.cells()));
        assert!(artifact.describe().contains(kind.name()), "{}", artifact.describe());
        let own_dir = own_solution(kind, size);
        let mut own = open_table(own_dir.path()).unwrap();
        let explicit = ExplicitSolution::solve(size).unwrap();
        let mut checked = 0;
        for ply in 0..=size.cells() {
            for p in explicit.positions(ply) {
                let want = explicit.outcome(&p).unwrap();
                assert_eq!(artifact.outcome(&p).unwrap(), want, "{} ply {ply}", dir.display());
                assert_eq!(own.outcome(&p).unwrap(), want, "{size} {kind} ply {ply}: our solution");
                checked += 1;
            }
        }
        assert!(checked > 150_000, "{}: {checked} positions", dir.display());
    }
}

/// The published solution holds only the win and loss files: a position in
/// neither is a draw.
#[test]
fn win_and_loss_files_alone_answer_draws_too() {
    let size = BoardSize::new(5, 4).unwrap();
    let full = data("compressed/solution_w5_h4");
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&full).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.contains("_draw.") {
            std::fs::copy(&path, dir.path().join(name)).unwrap();
        }
    }
    let mut two = open_table(dir.path()).unwrap();
    let explicit = ExplicitSolution::solve(size).unwrap();
    let mut draws = 0;
    for ply in 0..=size.cells() {
        for p in explicit.positions(ply) {
            let want = explicit.outcome(&p).unwrap();
            assert_eq!(two.outcome(&p).unwrap(), want, "ply {ply}");
            draws += (want == Outcome::Draw) as u32;
        }
    }
    assert!(draws > 100_000, "{draws} draws");
}

/// The answers the artifact's own query program (`wdl.c`) gave on 5x4, as
/// tests/data/artifact/README.md lists them (its columns from 0, value for
/// the side to move).
#[test]
fn query_gives_the_artifacts_own_answers() {
    let dir = data("compressed/solution_w5_h4");
    let readme = std::fs::read_to_string(data("README.md")).unwrap();
    let rows: Vec<(String, i32)> = readme
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            match cells[..] {
                [moves, value] => Some((moves.to_string(), value.parse().ok()?)),
                _ => None,
            }
        })
        .collect();
    assert!(rows.len() >= 6, "{rows:?}");
    for (moves, value) in rows {
        let ours: String = moves.chars().map(|c| char::from(c as u8 + 1)).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_c4bdd"))
            .args(["query", "--solution", dir.to_str().unwrap(), "--moves", &ours])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let word = ["loss", "draw", "win"][(value + 1) as usize];
        let line = String::from_utf8(out.stdout).unwrap();
        assert!(line.contains(&format!(": {word} for the")), "{moves} ({ours}): {line}");
    }
}

/// A search probing the artifact's tables finds the same values as one
/// without tables.
#[test]
fn best_over_the_artifacts_tables_equals_best_without() {
    let size = BoardSize::new(5, 4).unwrap();
    for moves in ["", "4", "44", "443", "2233", "42", "3311", "12345"] {
        let p = Position::from_moves(size, moves).unwrap();
        let mut plain = Search::new(size, 18, None);
        let want = plain.move_values(&p);
        let mut probe = TableProbe::new(open_table(&data("compressed/solution_w5_h4")).unwrap());
        let mut probed = Search::new(size, 18, Some(&mut probe as &mut dyn OutcomeProbe));
        assert_eq!(probed.move_values(&p), want, "{moves}");
        drop(probed);
        assert!(probe.failures().is_empty(), "{:?}", probe.failures());
    }
}

/// A damaged file gives an error naming it, never a wrong answer or a hang;
/// a position in none of a ply's three sets is refused.
#[test]
fn damaged_artifact_files_are_refused_by_name() {
    let size = BoardSize::new(4, 4).unwrap();
    let dir = copy_of(&data("compressed/solution_w4_h4"));
    let p = Position::from_moves(size, "12344321").unwrap();
    let file = dir.path().join("bdd_w4_h4_8_win.10.bin");
    let good = std::fs::read(&file).unwrap();
    let root = good.len() - 9;
    type Damage = Box<dyn Fn(&mut Vec<u8>)>;
    let damages: Vec<(&str, Damage)> = vec![
        (
            "root's low child is itself",
            Box::new(move |b| b[root + 1..root + 5].copy_from_slice(&((root / 9) as u32).to_le_bytes())),
        ),
        (
            "root's child beyond the file",
            Box::new(move |b| b[root + 5..root + 9].copy_from_slice(&u32::MAX.to_le_bytes())),
        ),
        ("root's variable out of range", Box::new(move |b| b[root] = 200)),
        ("terminal record changed", Box::new(|b| b[10] = 0)),
        ("not whole records", Box::new(|b| b.truncate(b.len() - 4))),
    ];
    for (what, damage) in damages {
        let mut bytes = good.clone();
        damage(&mut bytes);
        std::fs::write(&file, &bytes).unwrap();
        let err = open_table(dir.path()).unwrap().outcome(&p).expect_err(what).to_string();
        assert!(err.contains("bdd_w4_h4_8_win.10.bin"), "{what}: {err}");
    }
    std::fs::write(&file, &good).unwrap();
    assert!(open_table(dir.path()).unwrap().outcome(&p).is_ok());

    // Four in a row for the first player in column 1, then play goes on:
    // no ply's sets hold such a position.
    let over = Position::from_moves(size, "1212121").unwrap().play(2);
    let err = open_table(dir.path()).unwrap().outcome(&over).unwrap_err().to_string();
    assert!(err.contains("not reachable"), "{err}");

    std::fs::remove_file(dir.path().join("bdd_w4_h4_9_win.10.bin")).unwrap();
    std::fs::remove_file(dir.path().join("bdd_w4_h4_9_loss.10.bin")).unwrap();
    let err = open_table(dir.path()).err().expect("a ply with one file of three").to_string();
    assert!(err.contains("ply 9"), "{err}");
}

/// `best --solution` takes the board from the solution, and `query`
/// refuses a board it was not told.
#[test]
fn best_and_query_on_an_artifact_folder_as_a_user_runs_them() {
    let dir = data("compressed/solution_w5_h4");
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().unwrap();
    let out = run(&["best", "--solution", dir.to_str().unwrap(), "--moves", "443"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let size = BoardSize::new(5, 4).unwrap();
    let want = Search::new(size, 18, None).value(&Position::from_moves(size, "443").unwrap());
    assert!(text.starts_with(&format!("value: {want} for the second player")), "{text}");
    let out = run(&["query", "--solution", dir.to_str().unwrap(), "-W", "4", "-H", "5", "--moves", "4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("5x4"));
}

/// `export` writes c4bdd's solution (solved in the artifact's order) as the
/// artifact's files: each win and loss file byte for byte the artifact's own,
/// and the folder answers like the artifact's.
#[test]
fn exported_solutions_are_the_artifacts_files_byte_for_byte() {
    for (dir, size, kind) in artifact_solutions() {
        let sol = tempfile::tempdir().unwrap();
        let sol_dir = sol.path().join("s");
        let (w, h) = (size.width.to_string(), size.height.to_string());
        let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().unwrap();
        let solve = ["solve", "-W", &w, "-H", &h, "--encoding", kind.name(), "--order", "column-wise", "--out"];
        let out = run(&[&solve[..], &[sol_dir.to_str().unwrap()]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let exported = sol.path().join("e");
        let out = run(&["export", "--solution", sol_dir.to_str().unwrap(), "--out", exported.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut compared = 0;
        for entry in std::fs::read_dir(&exported).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_owned();
            let ours = std::fs::read(&path).unwrap();
            let theirs = std::fs::read(dir.join(&name)).unwrap();
            assert!(
                ours == theirs,
                "{}: {:?} differs ({} bytes, the artifact's {})",
                dir.display(),
                name,
                ours.len(),
                theirs.len()
            );
            compared += 1;
        }
        assert_eq!(compared, 2 * (size.cells() + 1), "{}", dir.display());
    }
}
