//! `c4bdd verify`: every file of a solution read whole, and the upgrade of
//! solutions of format version 2 (tests/data/solution-v2-4x3, written by an
//! earlier c4bdd), which cannot be read in place.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::copy_of;

use c4bdd::game::explicit::{ExplicitSolution, Outcome};
use c4bdd::game::BoardSize;

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

#[test]
fn a_format_2_solution_is_refused_with_how_to_upgrade_it_and_answers_after() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/solution-v2-4x3");
    let dir = copy_of(&data);
    let sol = dir.path().to_str().unwrap();
    let out = c4bdd(&["query", "--solution", sol, "--moves", "12"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("version 2") && err.contains("--upgrade"), "{err}");

    let out = c4bdd(&["verify", "--solution", sol, "--upgrade"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("13 ply files rewritten") && text.contains("every file sound"), "{text}");
    let out = c4bdd(&["verify", "--solution", sol, "--upgrade"]);
    assert!(
        String::from_utf8(out.stdout).unwrap().contains("0 ply files rewritten"),
        "a second upgrade has nothing to do"
    );

    let size = BoardSize::new(4, 3).unwrap();
    let explicit = ExplicitSolution::solve(size).unwrap();
    for moves in ["", "1", "12", "2233", "123412", "1122334"] {
        let p = c4bdd::game::Position::from_moves(size, moves).unwrap();
        let want = match explicit.outcome(&p).unwrap() {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        };
        let out = c4bdd(&["query", "--solution", sol, "--moves", moves]);
        let line = String::from_utf8(out.stdout).unwrap();
        assert!(line.contains(&format!(": {want} for the")), "{moves}: {line}");
    }
}

#[test]
fn verify_names_the_damaged_file() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/artifact/compressed/solution_w4_h4");
    let dir = copy_of(&data);
    let sol = dir.path().to_str().unwrap();
    let out = c4bdd(&["verify", "--solution", sol]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = dir.path().join("bdd_w4_h4_11_draw.10.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 2 / 9 * 9 + 1; // the low child of a record in the middle
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let out = c4bdd(&["verify", "--solution", sol]);
    assert_eq!(out.status.code(), Some(2), "a damaged file is bad input");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bdd_w4_h4_11_draw.10.bin") && err.contains("failed its check"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    let own = tempfile::tempdir().unwrap();
    let own_s = own.path().join("s");
    assert!(c4bdd(&["solve", "-W", "4", "-H", "3", "--out", own_s.to_str().unwrap()]).status.success());
    let ply = own_s.join("ply-07.bdd");
    let mut bytes = std::fs::read(&ply).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x20;
    std::fs::write(&ply, &bytes).unwrap();
    let out = c4bdd(&["verify", "--solution", own_s.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("ply-07.bdd"), "{err}");
}
