//! `verify --rules`: stored solutions proven from the game's rules, and
//! forged ones (every checksum recomputed, as a careful forger would) that
//! the byte-level check passes and the proof refuses, naming the ply.

use std::path::Path;

use c4bdd::bdd::Bdd;
use c4bdd::encoding::{Frame, StateSpace};
use c4bdd::game::Position;
use c4bdd::search::stored::solution::ply_label;
use c4bdd::search::{Solution, Value};

use crate::common::copy_of;
use crate::integrity::{c4bdd, read_manifest, refused, solve_into, write_manifest};

fn verify(dir: &Path, rules: bool) -> std::process::Output {
    let mut args = vec!["verify", "--solution", dir.to_str().unwrap()];
    if rules {
        args.push("--rules");
    }
    c4bdd(&args)
}

fn stdout(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Ply `ply` of the solution in `dir` replaced by `edit(win, lost)`, saved
/// under its own label, its size and checksum written into the manifest
/// with the manifest's checksum recomputed.
fn forge(dir: &Path, ply: u32, edit: impl FnOnce(&mut StateSpace, Bdd, Bdd) -> (Bdd, Bdd)) {
    let mut solution = Solution::open(dir).unwrap();
    let (win, lost) = solution.load_ply(ply).unwrap();
    let (win, lost) = edit(&mut solution.space, win, lost);
    let label = ply_label(&solution.space, ply);
    let path = dir.join(format!("ply-{ply:02}.bdd"));
    let crc32 = solution.space.manager.save(&[win, lost], &label, &path).unwrap();
    let mut manifest = read_manifest(dir);
    let entry = manifest.plies.iter_mut().find(|p| p.ply == ply).unwrap();
    (entry.bytes, entry.crc32) = (std::fs::metadata(&path).unwrap().len(), crc32);
    write_manifest(dir, &manifest);
}

/// The set of the empty board alone, in frame A.
fn empty_board(space: &mut StateSpace) -> Bdd {
    let literals = space.encoding.literals(&Position::empty(space.size()));
    let cube: Vec<_> = literals.into_iter().map(|(k, v)| (space.layout.var(Frame::A, k), v)).collect();
    space.manager.cube(&cube).unwrap()
}

/// c4bdd's solutions (compressed in place, cellwise with frames that
/// alternate) and the artifact's (both encodings) are proven, with the value
/// of the empty board; without `--rules` the output says what the check
/// does not show.
#[test]
fn sound_solutions_are_proven_from_the_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    solve_into(&["-W", "5", "-H", "4"], &a);
    solve_into(&["-W", "4", "-H", "4", "--encoding", "cellwise", "--image", "monolithic"], &b);
    let artifact = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/artifact");
    let dirs = [a, b, artifact.join("compressed/solution_w5_h4"), artifact.join("standard/solution_w4_h4")];
    for (dir, last) in dirs.iter().zip([20, 16, 20, 16]) {
        let text = stdout(&verify(dir, true));
        let want = format!("plies 0..={last} proven from the rules");
        assert!(text.contains(&want) && text.contains("the empty board's value: draw"), "{text}");
        assert!(stdout(&verify(dir, false)).contains("`--rules` proves their values"));
    }
}

/// Each forgery passes the byte-level check and is refused by the proof
/// with one line naming the ply and the set: won and lost swapped, the won
/// set emptied, every decided position made a win, and a first-player win
/// at ply 0 with the manifest's value to match.
#[test]
fn forged_solutions_are_refused_by_the_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let sound = tmp.path().join("sound");
    solve_into(&["-W", "5", "-H", "4"], &sound);
    type Edit = fn(&mut StateSpace, Bdd, Bdd) -> (Bdd, Bdd);
    let cases: [(u32, Edit, &str); 4] = [
        (10, |_, w, l| (l, w), "ply 10: its won set is not the rules'"),
        (12, |_, _, l| (Bdd::FALSE, l), "ply 12: its won set is not the rules'"),
        (5, |s, w, l| (s.manager.or(w, l).unwrap(), Bdd::FALSE), "ply 5: its won set is not the rules'"),
        (0, |s, _, _| (empty_board(s), Bdd::FALSE), "ply 0: its won set is not the rules'"),
    ];
    for (ply, edit, why) in cases {
        let copy = copy_of(&sound);
        forge(copy.path(), ply, edit);
        if ply == 0 {
            let mut manifest = read_manifest(copy.path());
            manifest.value = Some(Value::FirstPlayerWins);
            write_manifest(copy.path(), &manifest);
        }
        assert!(verify(copy.path(), false).status.success(), "ply {ply}: the checksums pass");
        refused(&verify(copy.path(), true), copy.path().to_str().unwrap(), why);
        // A rerun into the folder does not call it finished.
        let rerun = c4bdd(&["solve", "-W", "5", "-H", "4", "--out", copy.path().to_str().unwrap()]);
        refused(&rerun, copy.path().to_str().unwrap(), why);
    }
}

/// The artifact's files carry no checksum: two files of ply 9 renamed into
/// each other's places, or a file cut short at a record's boundary, pass the
/// structural check and are refused by the proof.
#[test]
fn forged_artifact_folders_are_refused_by_the_rules() {
    let artifact = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/artifact/compressed/solution_w4_h4");
    let file = |dir: &Path, ply: u32, set: &str| dir.join(format!("bdd_w4_h4_{ply}_{set}.10.bin"));
    let swapped = copy_of(&artifact);
    let d = swapped.path();
    std::fs::rename(file(d, 9, "win"), d.join("tmp")).unwrap();
    std::fs::rename(file(d, 9, "loss"), file(d, 9, "win")).unwrap();
    std::fs::rename(d.join("tmp"), file(d, 9, "loss")).unwrap();
    assert!(verify(d, false).status.success());
    refused(&verify(d, true), d.to_str().unwrap(), "ply 9: its ");

    let cut = copy_of(&artifact);
    let path = file(cut.path(), 11, "loss");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
    assert!(verify(cut.path(), false).status.success());
    refused(&verify(cut.path(), true), cut.path().to_str().unwrap(), "ply 11: its ");
}

/// A probe whose outcomes and exact values are made up: a hash of the
/// position picks them.
struct Liar(u64);

impl c4bdd::game::alphabeta::OutcomeProbe for Liar {
    fn probe(&mut self, p: &Position) -> Option<c4bdd::game::explicit::Outcome> {
        use c4bdd::game::explicit::Outcome;
        let h = (p.key() as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61;
        Some([Outcome::Win, Outcome::Draw, Outcome::Loss][h as usize % 3])
    }

    /// An exact value for every other position, as a book whose rows were
    /// edited gives.
    fn exact(&mut self, p: &Position) -> Option<c4bdd::game::alphabeta::MoveValue> {
        use c4bdd::game::alphabeta::MoveValue;
        let h = (p.key() as u64 ^ self.0).wrapping_mul(0xD1B5_4A32_D192_ED03) >> 58;
        let plies = 1 + (h as u32 % 7);
        [None, Some(MoveValue::Win(plies)), Some(MoveValue::Draw), Some(MoveValue::Loss(plies))][h as usize % 4]
    }
}

/// Searches whose probe contradicts itself never panic: each answers or
/// finds no move that keeps the value it found; `best` over a book with
/// edited rows answers or refuses in one line, never panics.
#[test]
fn searches_over_lying_tables_are_refused_not_a_panic() {
    use c4bdd::game::alphabeta::{OutcomeProbe, Search};
    let size = c4bdd::game::BoardSize::new(4, 4).unwrap();
    let explicit = c4bdd::game::explicit::ExplicitSolution::solve(size).unwrap();
    let mut contradicted = 0;
    for seed in 0..20 {
        let mut liar = Liar(seed);
        for p in explicit.positions(4).into_iter().filter(|p| !p.is_terminal()).take(50) {
            let mut search = Search::new(size, 16, Some(&mut liar as &mut dyn OutcomeProbe));
            contradicted += usize::from(search.value_and_move(&p).is_none());
        }
    }
    assert!(contradicted > 0, "some search meets a contradiction");
    let tmp = tempfile::tempdir().unwrap();
    let (sol, book) = (tmp.path().join("sol"), tmp.path().join("book.csv"));
    solve_into(&["-W", "4", "-H", "4"], &sol);
    let out = c4bdd(&["book", "--solution", sol.to_str().unwrap(), "--ply", "6", "--out", book.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Every seventh row's value turned as the rules allow (a win in n into
    // a loss in n + 1, anything else into a win in 3), the checksum
    // recomputed, as a forger would.
    let text = std::fs::read_to_string(&book).unwrap();
    let edited: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, row)| {
            let fields: Vec<&str> = row.split(',').collect();
            match (i % 7, &fields[..]) {
                (3, [p, "win", n]) => format!("{p},loss,{}", n.parse::<u32>().unwrap() + 1),
                (3, [p, _, _]) if i > 1 => format!("{p},win,3"),
                _ => row.to_string(),
            }
        })
        .collect();
    std::fs::write(&book, crate::book::reseal(&(edited.join("\n") + "\n"))).unwrap();
    for p in explicit.positions(3).into_iter().chain(explicit.positions(4)).filter(|p| !p.is_terminal()).take(60) {
        let moves = layout(&p);
        let out = c4bdd(&["best", "-W", "4", "-H", "4", "--book", book.to_str().unwrap(), "--position", &moves]);
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(2) if err.contains("contradicts itself") && err.trim().lines().count() == 1 => {}
            code => panic!("{moves}: {code:?} {err}"),
        }
    }
}

/// A position as `--position` reads a layout: column by column from the
/// bottom-left, x/o/b.
fn layout(p: &Position) -> String {
    let size = p.size();
    (0..size.width)
        .flat_map(|c| (0..size.height).map(move |r| (c, r)))
        .map(|(c, r)| match p.cell(c, r) {
            Some(c4bdd::game::Player::First) => 'x',
            Some(c4bdd::game::Player::Second) => 'o',
            None => 'b',
        })
        .collect()
}
