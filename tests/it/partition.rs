//! The partitioned retrograde pass against the explicit solver, the whole
//! pass (rows, and each ply's sets part by part), and its resumes, shares
//! and refusals.

use std::path::Path;

use c4bdd::bdd::{Bdd, Config};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::explicit::ExplicitSolution;
use c4bdd::game::BoardSize;
use c4bdd::search::partition::{solve_partitioned, Cut, PartLine, PartitionOptions, Report, Share};
use c4bdd::search::{ForwardOptions, ImageStrategy, SolvePly, TerminalStrategy, Value};

/// A partitioned solve of `size` in the checkpoint folder `dir`: its rows
/// (last ply first), its value, and the parts it saved.
fn solve_in(
    dir: &Path,
    (kind, size, order): (EncodingKind, BoardSize, &OrderSpec),
    opts: &ForwardOptions,
    popts: &PartitionOptions,
) -> (Vec<SolvePly>, Option<Value>, Vec<PartLine>) {
    let mut space = StateSpace::new(kind, size, order, Config::default()).unwrap();
    let mut lines = Vec::new();
    let report = Report { ply: &mut |_| Ok(()), part: &mut |l| lines.push(*l), waiting: &mut |_| () };
    let summary = solve_partitioned(&mut space, opts, dir, popts, report).unwrap();
    space.manager.check().unwrap();
    assert_eq!(space.manager.gc(&[]).live_after, 0, "the pass leaves nothing pinned");
    assert_eq!(files_in(dir, "states-"), Vec::<std::path::PathBuf>::new(), "a part's states go once it is done");
    (summary.plies, summary.value, lines)
}

/// The files of the parts folder in `dir` whose names begin with `prefix`.
fn files_in(dir: &Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for ply in std::fs::read_dir(dir.join("parts")).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(ply.path()).into_iter().flatten().flatten() {
            if f.file_name().to_string_lossy().starts_with(prefix) {
                found.push(f.path());
            }
        }
    }
    found.sort();
    found
}

fn every_part(cut: Cut) -> PartitionOptions {
    PartitionOptions { cut, share: Share::ALL, down_to: 0, budget_bytes: None }
}

/// The names of the variables of the lowest `rows` cells of the middle
/// column (the left one of two), as `kind` names them.
fn middle_cells(kind: EncodingKind, size: BoardSize, rows: u32) -> Vec<String> {
    let col = u32::from(size.width).div_ceil(2);
    let rows = 1..=rows.min(u32::from(size.height));
    match kind {
        EncodingKind::Compressed => rows.map(|r| format!("c{col}r{r}")).collect(),
        EncodingKind::Cellwise => rows.map(|r| format!("c{col}r{r}p1")).collect(),
    }
}

fn table_of(plies: &[SolvePly]) -> Vec<(u64, u64, u64, u64, u64)> {
    let mut rows: Vec<_> = plies.to_vec();
    rows.sort_by_key(|p| p.ply);
    rows.iter().map(|p| (p.won as u64, p.drawn as u64, p.lost as u64, p.total as u64, p.terminal as u64)).collect()
}

/// Every board up to 16 cells and 5x4, 4x5: the rows and value of the
/// explicit solver, under both encodings, in-place and monolithic images
/// (frames that alternate), an image split, and cuts on 1 to 4 top
/// variables (more than a narrow board has: its cut takes what there is) or
/// on cells of the middle column by name; each board and encoding under two
/// of the five, in turn.
#[test]
fn partitioned_solves_match_the_explicit_solver_ply_by_ply() {
    let mut boards = vec![BoardSize::new(5, 4).unwrap(), BoardSize::new(4, 5).unwrap()];
    for (w, h) in [(1, 4), (4, 1), (2, 4), (3, 3), (3, 4), (4, 3), (4, 4), (2, 7), (5, 3)] {
        boards.push(BoardSize::new(w, h).unwrap());
    }
    let strategies = [
        (ImageStrategy::InPlace, 0, 3),
        (ImageStrategy::Monolithic, 0, 2),
        (ImageStrategy::InPlaceColumns, 2, 4),
        (ImageStrategy::InPlace, 0, 1),
        (ImageStrategy::InPlace, 0, 0),
    ];
    for (b, size) in boards.into_iter().enumerate() {
        let explicit = ExplicitSolution::solve(size).unwrap();
        let table = explicit.table();
        let value = Value::for_first_player(explicit.outcome(&c4bdd::game::Position::empty(size)).unwrap());
        for (e, kind) in EncodingKind::all().enumerate() {
            // Two strategies a board and encoding, each in turn.
            for (image, image_split, top) in [strategies[(b + e) % 5], strategies[(b + e + 2) % 5]] {
                // 0: the middle column's lowest cells (at most 3 rows), by name.
                let cut = match top {
                    0 => Cut::Cells(middle_cells(kind, size, 3)),
                    k => Cut::Top(k),
                };
                let dir = tempfile::tempdir().unwrap();
                let opts = ForwardOptions { image, image_split, terminal: TerminalStrategy::Whole, split_parts: 0 };
                let board = (kind, size, &OrderSpec::PAPER);
                let what = format!("{size} {kind} {image:?} split {image_split} cut {cut}");
                let (plies, got, _) = solve_in(dir.path(), board, &opts, &every_part(cut));
                assert_eq!(table_of(&plies), table, "{what}");
                assert_eq!(got, Some(value), "{what}");
            }
        }
    }
}

/// The sets of each ply solved in parts are the whole pass's, part by
/// part: the union of a ply's won (lost) parts is the whole ply's won
/// (lost) set, and each part lies in its cube. 5x4 and 4x5 (compressed and
/// cellwise, the paper's order), cut on the top 3 variables and on 3 cells
/// of the middle column.
#[test]
fn each_ply_solved_in_parts_is_the_whole_ply_cut() {
    for (kind, (w, h)) in [(EncodingKind::Compressed, (5, 4)), (EncodingKind::Cellwise, (4, 5))] {
        let size = BoardSize::new(w, h).unwrap();
        for cut in [Cut::Top(3), Cut::Cells(middle_cells(kind, size, 3))] {
            parts_are_the_whole_ply_cut(kind, size, cut);
        }
    }
}

fn parts_are_the_whole_ply_cut(kind: EncodingKind, size: BoardSize, cut: Cut) {
    use c4bdd::search::partition::store::Set;
    let dir = tempfile::tempdir().unwrap();
    let opts = ForwardOptions::default();
    let names = cut.names(&StateSpace::new(kind, size, &OrderSpec::PAPER, Config::default()).unwrap()).unwrap();
    solve_in(dir.path(), (kind, size, &OrderSpec::PAPER), &opts, &every_part(cut));
    let mut space = StateSpace::new(kind, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let whole = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let store = |s: &StateSpace, ply: u32, win: Bdd, lost: Bdd| {
        let path = whole.path().join(format!("{ply}.bdd"));
        s.manager.save(&[win, lost], "whole", &path)?;
        files.push((ply, path));
        Ok(())
    };
    c4bdd::search::solve(&mut space, &opts, |_| Ok(()), store).unwrap();
    let ck = c4bdd::search::SolveCheckpoint::open_records(dir.path(), &space, &opts).unwrap().unwrap();
    let parts = c4bdd::search::partition::PartStore::open_existing(dir.path(), ck.setup_crc()).unwrap();
    assert_eq!(parts.cut(), names, "{size} {kind}: the cut's variables");
    let vars = c4bdd::search::partition::cell_vars(&space, c4bdd::encoding::Frame::A, parts.cut()).unwrap();
    for (ply, path) in files.into_iter().filter(|(ply, _)| *ply <= parts.top()) {
        let [win, lost] = space.manager.load(&path, "whole").unwrap()[..] else { panic!("two roots") };
        let records = parts.complete(ply).unwrap().unwrap();
        for (set, whole_set) in [(Set::Won, win), (Set::Lost, lost)] {
            let mut union = Bdd::FALSE;
            for r in &records {
                let f = parts.load(&mut space, r, set, c4bdd::encoding::Frame::A).unwrap();
                let literals: Vec<_> = vars.iter().enumerate().map(|(k, &v)| (v, r.part >> k & 1 == 1)).collect();
                let cube = space.manager.cube(&literals).unwrap();
                assert_eq!(space.manager.and(f, cube).unwrap(), f, "{size} ply {ply} part {}: in its cube", r.part);
                union = space.manager.or(union, f).unwrap();
            }
            assert_eq!(union, whole_set, "{size} ply {ply} {set:?}: the parts' union is the whole set");
        }
    }
}

fn c4bdd(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().unwrap()
}

fn records_in(ck: &Path) -> Vec<std::path::PathBuf> {
    files_in(ck, "part-").into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")).collect()
}

/// A partitioned solve killed (SIGKILL) after some parts resumes to the
/// uninterrupted rows, and no part saved before the kill is computed again
/// (its record's file is untouched).
#[test]
fn a_killed_partitioned_solve_resumes_without_solving_a_saved_part_again() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let csv = dir.path().join("rows.csv");
    let args = ["solve", "-W", "5", "-H", "4", "--checkpoint", ck.to_str().unwrap(), "--parts", "3"];
    crate::common::kill_when(&args, || records_in(&ck).len() >= 40, 120.0);
    let before: Vec<_> = records_in(&ck).iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect();
    assert!(before.len() >= 40 && before.len() < 21 * 8, "killed part way: {} parts saved", before.len());
    let mtimes: Vec<_> = before.iter().map(|(p, _)| std::fs::metadata(p).unwrap().modified().unwrap()).collect();
    let out = c4bdd(&[&args[..], &["--csv", csv.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for ((path, text), mtime) in before.iter().zip(mtimes) {
        assert_eq!(&std::fs::read(path).unwrap(), text, "{}", path.display());
        assert_eq!(std::fs::metadata(path).unwrap().modified().unwrap(), mtime, "{} written again", path.display());
    }
    assert_eq!(files_in(&ck, "states-"), Vec::<std::path::PathBuf>::new(), "no part's states are left");
    let whole = dir.path().join("whole.csv");
    let out = c4bdd(&["solve", "-W", "5", "-H", "4", "--csv", whole.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(crate::common::table2_rows(&csv), crate::common::table2_rows(&whole));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("value of the empty board: draw"), "{stdout}");
}

/// Two processes sharing the parts (`--part 1/2`, `--part 2/2`, started
/// together on one checkpoint folder) each end with the whole pass's rows;
/// each part is saved once, by its own process.
#[test]
fn two_processes_sharing_the_parts_give_the_whole_rows() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let spawn = |share: &str| {
        let csv = dir.path().join(format!("rows-{}.csv", &share[..1]));
        let args = ["solve", "-W", "4", "-H", "5", "--checkpoint", ck.to_str().unwrap(), "--parts", "2"];
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_c4bdd"))
            .args(args)
            .args(["--part", share, "--csv", csv.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        (child, csv)
    };
    let (first, second) = (spawn("1/2"), spawn("2/2"));
    let whole = dir.path().join("whole.csv");
    assert!(c4bdd(&["solve", "-W", "4", "-H", "5", "--csv", whole.to_str().unwrap()]).status.success());
    for (child, csv) in [first, second] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(crate::common::table2_rows(&csv), crate::common::table2_rows(&whole));
        let err = String::from_utf8_lossy(&out.stderr);
        // Part p is written by the process of share p % 2 only.
        for line in err.lines().filter(|l| l.contains(" part ")) {
            let part: u32 = line.split(" part ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
            let mine = if csv.ends_with("rows-1.csv") { 1 } else { 0 };
            assert_eq!(part % 2, mine, "{line}");
        }
    }
}

/// Settings a partitioned solve cannot take are refused before any work,
/// with one line naming them and exit status 2.
#[test]
fn partitioned_settings_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let ck = ck.to_str().unwrap();
    let out_dir = dir.path().join("out");
    let cases: [(&[&str], &str); 9] = [
        (&["--checkpoint", ck, "--parts", "13"], "13 must be 0 to 12"),
        (&["--parts", "2"], "parts: 2 cuts the plies of a solve with a checkpoint"),
        (&["--checkpoint", ck, "--part", "1/2"], "part and solution_budget"),
        (&["--checkpoint", ck, "--parts", "2", "--part", "3/2"], "expected I/N"),
        (&["--checkpoint", ck, "--parts", "2", "--out", out_dir.to_str().unwrap()], "parts/ folder"),
        (&["--checkpoint", ck, "--parts", "2", "--solution-budget=-1"], "--solution-budget: -1"),
        (&["--checkpoint", ck, "--parts", "c2r1,c5r1"], "--parts: c5r1 is not a variable of a cell"),
        (&["--checkpoint", ck, "--parts", "c2r1,c2r1"], "--parts: c2r1 comes twice"),
        (&["--checkpoint", ck, "--parts", "c2r1,,c2r2"], "names of cells such as c4r1,c4r2"),
    ];
    for (extra, message) in cases {
        let out = c4bdd(&[&["solve", "-W", "4", "-H", "4"], extra].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(message) && err.trim().lines().count() == 1, "{extra:?}: {err}");
        assert!(!dir.path().join("ck").join("parts").exists(), "{extra:?}: no work before the refusal");
    }
}

/// A part's record edited, its checksum recomputed (a count changed, or
/// two parts' records swapped), is refused when the ply below reads the
/// part: the count its file gives, or its label, no longer matches.
#[test]
fn a_forged_part_record_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let args = ["solve", "-W", "4", "-H", "4", "--checkpoint", ck.to_str().unwrap(), "--parts", "2", "--down-to", "10"];
    assert!(c4bdd(&args).status.success());
    let part = ck.join("parts/ply-010/part-0001.json");
    let text = std::fs::read_to_string(&part).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let lost = json["record"]["lost"].as_u64().unwrap();
    let forged = text.replace(&format!("\"lost\":{lost}"), &format!("\"lost\":{}", lost + 1));
    std::fs::write(&part, crate::common::with_recomputed_crc(&forged)).unwrap();
    let out = c4bdd(&[&args[..7], &["--parts", "2", "--down-to", "9"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a forged record is refused");
    assert!(err.contains("ply-010") && err.contains("0001"), "{err}");
}

/// A part's states file (cut from the ply's layer when the ply's parts
/// begin) is refused when it is another part's, of another count, or
/// labelled with a count its sets do not have; a good one loads as saved.
#[test]
fn a_swapped_or_forged_states_file_is_refused() {
    use c4bdd::search::partition::PartStore;
    use c4bdd::search::SolveCheckpoint;
    let dir = tempfile::tempdir().unwrap();
    let size = BoardSize::new(4, 4).unwrap();
    let opts = ForwardOptions::default();
    solve_in(dir.path(), (EncodingKind::Compressed, size, &OrderSpec::PAPER), &opts, &every_part(Cut::Top(2)));
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let ck = SolveCheckpoint::open_records(dir.path(), &space, &opts).unwrap().unwrap();
    let store = PartStore::open_existing(dir.path(), ck.setup_crc()).unwrap();
    let (ply, frame) = (6, opts.image.frame_of(6));
    let layer = ck.load_layer(&mut space, ply).unwrap();
    let n = ck.forward()[ply as usize].states;
    store.save_states(&space, (ply, 0), n, layer).unwrap();
    store.save_states(&space, (ply, 1), 0, Bdd::FALSE).unwrap();
    store.save_states(&space, (ply, 2), n + 1, layer).unwrap();
    let good = store.load_states(&mut space, (ply, 0), n, frame).unwrap();
    assert_eq!(good, layer, "saved and loaded");
    let refused = |space: &mut StateSpace, part: u32, count: u128| {
        let err = store.load_states(space, (ply, part), count, frame).unwrap_err().to_string();
        assert!(err.contains("ply-006") && err.contains(&format!("states-{part:04}")), "{err}");
    };
    refused(&mut space, 0, n + 1);
    refused(&mut space, 2, n + 1);
    let part = |p: u32| dir.path().join(format!("parts/ply-006/states-{p:04}.bdd"));
    std::fs::copy(part(1), part(0)).unwrap();
    refused(&mut space, 0, n);
    store.remove_states(ply, 0).unwrap();
    assert!(!part(0).exists());
    store.remove_states(ply, 0).unwrap();
}

/// Every position of 4x4 and 5x4 (compressed and cellwise; 5x4 on plies 0
/// to 9) read from the parts in place (`open_table` on the checkpoint
/// folder) has the explicit solver's outcome; the plies held are those
/// below the partition's top; `query` answers from it as from the whole
/// solution of the same board.
#[test]
fn a_partitioned_solution_is_read_in_place_like_a_whole_one() {
    use c4bdd::search::open_table;
    for (kind, (w, h), plies) in [(EncodingKind::Compressed, (4, 4), 16), (EncodingKind::Cellwise, (5, 4), 10)] {
        let size = BoardSize::new(w, h).unwrap();
        let dir = tempfile::tempdir().unwrap();
        solve_in(dir.path(), (kind, size, &OrderSpec::PAPER), &ForwardOptions::default(), &every_part(Cut::Top(3)));
        let mut table = open_table(dir.path()).unwrap();
        assert_eq!(table.plies(), 0..=size.cells() - 1, "{size}: every ply below the whole last one");
        let explicit = ExplicitSolution::solve(size).unwrap();
        for ply in 0..plies {
            for p in explicit.positions(ply) {
                assert_eq!(table.outcome(&p).unwrap(), explicit.outcome(&p).unwrap(), "{size} {kind}: {p:?}");
            }
        }
        table.verify(&mut |_| ()).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    assert!(c4bdd(&["solve", "-W", "5", "-H", "4", "--checkpoint", ck.to_str().unwrap(), "--parts", "2"])
        .status
        .success());
    let whole = dir.path().join("whole");
    assert!(c4bdd(&["solve", "-W", "5", "-H", "4", "--out", whole.to_str().unwrap()]).status.success());
    for moves in ["", "3", "44123", "12345123"] {
        let [parts, whole] =
            [&ck, &whole].map(|d| c4bdd(&["query", "--solution", d.to_str().unwrap(), "--moves", moves]));
        assert!(parts.status.success(), "{moves}: {}", String::from_utf8_lossy(&parts.stderr));
        assert_eq!(parts.stdout, whole.stdout, "{moves}");
    }
}
