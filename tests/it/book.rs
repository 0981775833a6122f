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
        let mut probe = BookProbe::new(Some(Book::read(&path, size).unwrap()), None);
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
    // The partial file's first line names the board, ply and solution.
    let first = partial_line(&whole);
    let some: Vec<&str> = whole.lines().skip(2).step_by(3).collect();
    std::fs::write(&partial, format!("{first}\n{}\n", some.join("\n"))).unwrap();
    std::fs::remove_file(&path).unwrap();
    let sol = dir.path().join("sol");
    let args = ["book", "--solution", sol.to_str().unwrap(), "--ply", "5", "--out", path.to_str().unwrap()];
    assert!(c4bdd(&args).status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    assert!(!partial.exists(), "the partial file is gone once the book is written");

    std::fs::write(&partial, format!("{first}\nxoxo,win,3\n")).unwrap();
    let out = c4bdd(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("book.csv.partial") && err.contains("line 1"), "{err}");

    // A partial file of another book (another ply) is refused, not mixed in.
    std::fs::write(&partial, format!("{}\n{}\n", first.replace("ply=5", "ply=6"), some[0])).unwrap();
    let out = c4bdd(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds the rows of another book"), "{err}");
    // A partial row whose value the solution contradicts is refused.
    let (pos, _) = some[0].split_once(',').unwrap();
    let lie = if some[0].contains(",draw,") { format!("{pos},win,3") } else { format!("{pos},draw,") };
    std::fs::write(&partial, format!("{first}\n{lie}\n")).unwrap();
    let out = c4bdd(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("contradicts"), "{err}");
    std::fs::remove_file(&partial).unwrap();

    // A torn last row (a kill or a full disk in its write): dropped, found again.
    let torn = &some[1][..some[1].len() / 2];
    std::fs::write(&partial, format!("{first}\n{}\n{}\n{torn}", some[0], some[2])).unwrap();
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

/// The first line of the partial file of the book whose text is `book`.
fn partial_line(book: &str) -> String {
    let first = book.lines().next().unwrap();
    let kept: Vec<&str> = first.split(' ').filter(|f| !f.starts_with("rows=") && !f.starts_with("crc32=")).collect();
    kept.join(" ").replace("c4bdd-book v1", "c4bdd-book-partial v1")
}

/// A book's text with its first line's count and checksum made to fit its
/// rows again, as a forger would.
pub fn reseal(book: &str) -> String {
    let (first, body) = book.split_once('\n').unwrap();
    let rows = body.lines().count() - 1;
    let kept: Vec<&str> = first.split(' ').filter(|f| !f.starts_with("rows=") && !f.starts_with("crc32=")).collect();
    format!("{} rows={rows} crc32={:08x}\n{body}", kept.join(" "), crc32fast::hash(body.as_bytes()))
}

/// `best --book` with one more argument list, its exit code and stderr.
fn best_with(book: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["best", "--moves", "33", "--book", book.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = c4bdd(&all);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A book names its board, its solution and its rows' checksum: a book of
/// another board, an edited row, a row the rules forbid (checksum
/// recomputed), a missing position, a book without its first line and a
/// book of another solution beside `--solution` are each refused in one
/// line; a value the solution contradicts is refused where both are given.
#[test]
fn a_book_that_does_not_match_is_refused() {
    let size = BoardSize::new(5, 4).unwrap();
    let (dir, path) = solved_with_book(size, 6, 2);
    let sol = dir.path().join("sol");
    let text = std::fs::read_to_string(&path).unwrap();
    let refused = |book: &str, args: &[&str], why: &str| {
        let forged = dir.path().join("forged.csv");
        std::fs::write(&forged, book).unwrap();
        let (code, err) = best_with(&forged, args);
        assert_eq!(code, Some(2), "{why}: {err}");
        assert!(err.contains(why) && err.trim().lines().count() == 1, "{why}: {err}");
    };
    let board = ["-W", "5", "-H", "4"];
    assert_eq!(best_with(&path, &board).0, Some(0));
    refused(&text, &["-W", "4", "-H", "5"], "is a book of board 5x4, not 4x5");
    let (win_row, n) = text
        .lines()
        .find_map(|l| l.split_once(",win,").map(|(p, n)| (l, (p, n.parse::<u32>().unwrap()))))
        .map(|(l, (p, n))| (l.to_string(), (p.to_string(), n)))
        .unwrap();
    let (pos, plies) = n;
    let left = size.cells() - 6;
    let other = if plies + 2 <= left { plies + 2 } else { plies - 2 };
    let edited = text.replace(&win_row, &format!("{pos},win,{other}"));
    refused(&edited, &board, "do not match the checksum");
    refused(&reseal(&text.replace(&win_row, &format!("{pos},win,{}", plies + 1))), &board, "no game allows");
    refused(&reseal(&text.replace(&format!("{win_row}\n"), "")), &board, "lacks the position");
    refused(text.split_once('\n').unwrap().1, &board, "is not a c4bdd book");
    refused(&text.replacen("ply=6", "ply=99", 1), &board, "beyond the board's last move");
    // Resealed, a win turned into a loss passes the book's own checks; the
    // solution contradicts it.
    let swapped = reseal(&text.replace(&win_row, &format!("{pos},loss,{}", plies + 1)));
    let mut from_solution = vec!["--solution", sol.to_str().unwrap()];
    let forged = dir.path().join("forged.csv");
    std::fs::write(&forged, &swapped).unwrap();
    let layout_of = |s: &str| s.to_string();
    let (code, err) = c4bdd_best_position(&forged, &layout_of(&pos), &from_solution);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("contradicts the solution") && err.trim().lines().count() == 1, "{err}");
    // A book of another solution of the same board beside --solution.
    let cellwise = dir.path().join("cellwise");
    let out = c4bdd(&["solve", "-W", "5", "-H", "4", "--encoding", "cellwise", "--out", cellwise.to_str().unwrap()]);
    assert!(out.status.success());
    from_solution[1] = cellwise.to_str().unwrap();
    refused(&text, &from_solution, "built from the solution");
}

/// `best --book BOOK --position P ARGS`: its exit code and stderr.
fn c4bdd_best_position(book: &std::path::Path, position: &str, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["best", "--position", position, "--book", book.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = c4bdd(&all);
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}
