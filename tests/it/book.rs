//! Opening books (`c4bdd book`) against searches without tables and the
//! explicit enumerator, their resumption, and `best --book`.

use std::collections::HashSet;
use std::process::{Command, Output};

use c4bdd::game::alphabeta::{OutcomeProbe, Search};
use c4bdd::game::explicit::ExplicitSolution;
use c4bdd::game::{BoardSize, Position};
use c4bdd::search::book::{Book, BookProbe};

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

/// A solution of a board and a book of it at `ply`, in a temporary folder.
fn solved_with_book(size: BoardSize, ply: u32, jobs: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let sol = dir.path().join("sol");
    let (w, h) = (size.width.to_string(), size.height.to_string());
    assert!(c4bdd(&["solve", "-W", &w, "-H", &h, "--out", sol.to_str().unwrap()]).status.success());
    let book = dir.path().join("book.csv");
    let (ply, jobs) = (ply.to_string(), jobs.to_string());
    let args =
        ["book", "--solution", sol.to_str().unwrap(), "--ply", &ply, "--jobs", &jobs, "--out", book.to_str().unwrap()];
    let out = c4bdd(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (dir, book)
}

#[test]
fn every_book_value_is_the_search_without_tables_and_every_position_is_in_it() {
    for (w, h, ply) in [(4, 4, 4), (5, 4, 6)] {
        let size = BoardSize::new(w, h).unwrap();
        let (_dir, path) = solved_with_book(size, ply, 2);
        let book = Book::read(&path, size).unwrap();
        let explicit = ExplicitSolution::solve(size).unwrap();
        let want: HashSet<u128> =
            explicit.positions(ply).iter().filter(|p| !p.is_terminal()).map(|p| size.canonical(p.key())).collect();
        assert_eq!(book.len(), want.len(), "{size} ply {ply}: one row a position up to mirror");
        let mut plain = Search::new(size, 18, None);
        for p in explicit.positions(ply).iter().filter(|p| !p.is_terminal()) {
            assert_eq!(book.get(p), Some(plain.value(p)), "{size}: {p:?}");
        }
    }
}

#[test]
fn best_with_a_book_equals_best_without() {
    let size = BoardSize::new(5, 4).unwrap();
    let (_dir, path) = solved_with_book(size, 6, 1);
    for moves in ["", "3", "33", "332", "1122"] {
        let p = Position::from_moves(size, moves).unwrap();
        let want = Search::new(size, 18, None).move_values(&p);
        let mut probe = BookProbe { book: Some(Book::read(&path, size).unwrap()), table: None };
        let mut search = Search::new(size, 18, Some(&mut probe as &mut dyn OutcomeProbe));
        assert_eq!(search.move_values(&p), want, "{moves}");
        assert!(search.probes() > 0, "{moves}: the book was used");
    }
    let out = c4bdd(&["best", "-W", "5", "-H", "4", "--moves", "33", "--book", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want = Search::new(size, 18, None).value(&Position::from_moves(size, "33").unwrap());
    assert!(String::from_utf8(out.stdout).unwrap().starts_with(&format!("value: {want} ")));
}

/// A run that stopped leaves its rows in FILE.partial; the rerun keeps them
/// and writes the same book; a damaged partial row is refused by name, a
/// torn last row is found again.
#[test]
fn an_interrupted_book_is_finished_by_its_rerun() {
    let size = BoardSize::new(4, 4).unwrap();
    let (dir, path) = solved_with_book(size, 5, 1);
    let whole = std::fs::read_to_string(&path).unwrap();
    let partial = dir.path().join("book.csv.partial");
    let some: Vec<&str> = whole.lines().skip(1).step_by(3).collect();
    std::fs::write(&partial, some.join("\n") + "\n").unwrap();
    std::fs::remove_file(&path).unwrap();
    let sol = dir.path().join("sol");
    let args = ["book", "--solution", sol.to_str().unwrap(), "--ply", "5", "--out", path.to_str().unwrap()];
    assert!(c4bdd(&args).status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    assert!(!partial.exists(), "the partial file is gone once the book is written");

    std::fs::write(&partial, "xoxo,win,3\n").unwrap();
    let out = c4bdd(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("book.csv.partial") && err.contains("line 1"), "{err}");

    // A torn last row (a kill or a full disk in its write): dropped, found again.
    let torn = &some[1][..some[1].len() / 2];
    std::fs::write(&partial, format!("{}\n{}\n{torn}", some[0], some[2])).unwrap();
    assert!(c4bdd(&args).status.success(), "a torn last row is no error");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
}

/// An output path that cannot take a book (an existing folder, or a file in
/// a folder that does not exist) is refused before any work, in one line,
/// leaving nothing beside it.
#[test]
fn a_book_output_that_cannot_be_written_is_refused_before_the_work() {
    let (dir, _) = solved_with_book(BoardSize::new(4, 4).unwrap(), 3, 1);
    let sol = dir.path().join("sol");
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let missing = dir.path().join("no").join("book.csv");
    for (out, why) in [(&folder, "is a folder"), (&missing, "no such folder")] {
        let args = ["book", "--solution", sol.to_str().unwrap(), "--ply", "6", "--out", out.to_str().unwrap()];
        let run = c4bdd(&args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(err.contains(why) && err.trim().lines().count() == 1, "{err}");
    }
    let beside: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!beside.iter().any(|n| n.to_string_lossy().contains(".partial")), "{beside:?}");
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0, "nothing in the folder");
}
