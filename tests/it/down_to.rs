//! `solve --down-to K`: the retrograde pass from the last ply down to ply K,
//! each ply's states read back from the checkpoint. Run in stages (each
//! stage resuming the one before and extending its solution), it gives the
//! full solve's rows ply for ply, and its solution answers the plies it holds.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::table2_rows;

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The solution's answer for a position, as `query` prints it.
fn answer(solution: &Path, moves: &str) -> Output {
    c4bdd(&["query", "--solution", solution.to_str().unwrap(), "--moves", moves])
}

/// Solve `board` whole, then in stages down to each ply of `stages` and
/// finally 0; every stage's rows are the full solve's rows of its plies.
fn staged_solve_equals_the_full_solve(board: [&str; 4], stages: &[u32], positions: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let (full_csv, full_out) = (tmp.path().join("full.csv"), tmp.path().join("full"));
    let full = [&["solve"][..], &board, &["--csv", full_csv.to_str().unwrap(), "--out", full_out.to_str().unwrap()]];
    let value_line = |printed: &str| printed.lines().find(|l| l.starts_with("value of")).unwrap().to_string();
    let full_value = value_line(&ok(c4bdd(&full.concat())));
    let want = table2_rows(&full_csv);
    let (ck, out) = (tmp.path().join("ck"), tmp.path().join("sol"));
    let (ck_s, out_s) = (ck.to_str().unwrap(), out.to_str().unwrap());
    for &k in stages.iter().chain([&0]) {
        let csv = tmp.path().join(format!("down-to-{k}.csv"));
        let k_s = k.to_string();
        let args = ["--checkpoint", ck_s, "--down-to", &k_s, "--out", out_s, "--csv", csv.to_str().unwrap()];
        let printed = ok(c4bdd(&[&["solve"][..], &board, &args].concat()));
        let rows = table2_rows(&csv);
        assert_eq!(rows[..], want[k as usize..], "{board:?} down to {k}");
        let value = if k == 0 { full_value.clone() } else { "value of the empty board: unknown".into() };
        assert_eq!(value_line(&printed), value, "{board:?} down to {k}");
        for moves in positions {
            let ply = moves.len() as u32;
            let got = answer(&out, moves);
            if ply >= k {
                assert_eq!(ok(got), ok(answer(&full_out, moves)), "{board:?} down to {k}: {moves}");
            } else {
                let err = String::from_utf8_lossy(&got.stderr);
                assert_eq!(got.status.code(), Some(2), "ply {ply} is not held below {k}: {err}");
                assert!(err.contains(&format!("not ply {ply}")), "{err}");
            }
        }
    }
    let value = |dir: &Path| std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let field = |text: String| text.lines().find(|l| l.contains("\"value\"")).unwrap().to_string();
    assert_eq!(field(value(&out)), field(value(&full_out)), "the staged solution has the full one's value");
}

#[test]
fn a_staged_solve_of_4x4_equals_the_full_solve() {
    staged_solve_equals_the_full_solve(["-W", "4", "-H", "4"], &[16, 12, 5], &["", "1234", "12341234", "1122334"]);
}

#[test]
fn a_staged_solve_of_5x4_equals_the_full_solve() {
    staged_solve_equals_the_full_solve(["-W", "5", "-H", "4"], &[18, 9], &["3", "4544552254", "1234512345123"]);
}

#[test]
fn a_staged_solve_of_4x5_equals_the_full_solve() {
    staged_solve_equals_the_full_solve(["-W", "4", "-H", "5"], &[14], &["22", "12341234123"]);
}

#[test]
fn down_to_needs_a_checkpoint_and_a_ply_of_the_board() {
    let out = c4bdd(&["solve", "-W", "4", "-H", "4", "--down-to", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--checkpoint"), "{}", String::from_utf8_lossy(&out.stderr));
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    let out = c4bdd(&["solve", "-W", "4", "-H", "4", "--checkpoint", ck.to_str().unwrap(), "--down-to", "17"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("down_to: 17 is beyond the last ply of 4x4 (16)"), "{err}");
    assert!(!ck.exists(), "nothing is written for a refused run");
}

#[test]
fn a_resumed_stage_checks_every_ply_file_its_solution_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let (ck, out) = (tmp.path().join("ck"), tmp.path().join("sol"));
    let stage = |k: &str| {
        let (ck, out) = (ck.to_str().unwrap(), out.to_str().unwrap());
        c4bdd(&["solve", "-W", "4", "-H", "4", "--checkpoint", ck, "--down-to", k, "--out", out])
    };
    ok(stage("10"));
    let file = out.join("ply-12.bdd");
    let intact = std::fs::read(&file).unwrap();
    let mut damaged = intact.clone();
    damaged[intact.len() / 2] ^= 0x10;
    for (bytes, reason) in [(&damaged[..], "does not match its checksum"), (&intact[..3], "not a c4bdd BDD file")] {
        std::fs::write(&file, bytes).unwrap();
        let refused = stage("6");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success() && !err.contains("panicked"), "{err}");
        assert!(
            err.contains("ply 12 was solved before") && err.contains("ply-12.bdd") && err.contains(reason),
            "{err}"
        );
    }
    std::fs::write(&file, &intact).unwrap();
    ok(stage("6"));
}
