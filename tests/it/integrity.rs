//! Stored files that cannot be passed off as others: every BDD file carries
//! its board, encoding, ply and sets inside its checksum, and the solution's
//! manifest has a checksum of its own. Each tampered file is refused with a
//! one-line error naming it (exit status 2), even where its own checksums were
//! recomputed.

use std::path::Path;
use std::process::{Command, Output};

use c4bdd::bdd::Config;
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::error::CoreError;
use c4bdd::game::explicit::ExplicitSolution;
use c4bdd::game::BoardSize;
use c4bdd::search::{solve, ForwardOptions, Manifest, Solution, SolutionWriter};

pub(crate) fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

/// The run failed with exit status 2 and one line that names `file` and
/// says `why`.
pub(crate) fn refused(out: &Output, file: &str, why: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(file) && err.contains(why), "{file}, {why}: {err}");
}

/// Solve `board` (`["-W", w, "-H", h]`) into `dir`.
pub(crate) fn solve_into(board: &[&str], dir: &Path) {
    let out = c4bdd(&[&["solve"][..], board, &["--out", dir.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

pub(crate) fn read_manifest(dir: &Path) -> Manifest {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

/// Write `manifest` with a checksum that matches it (as a careful forger
/// would).
pub(crate) fn write_manifest(dir: &Path, manifest: &Manifest) {
    let crc = crc32fast::hash(serde_json::to_string(manifest).unwrap().as_bytes());
    let mut value = serde_json::to_value(manifest).unwrap();
    value["crc32"] = crc.into();
    std::fs::write(dir.join("manifest.json"), serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

pub(crate) fn query(dir: &Path, moves: &str) -> Output {
    c4bdd(&["query", "--solution", dir.to_str().unwrap(), "--moves", moves])
}

#[test]
fn swapped_plies_of_a_solution_are_refused_even_with_a_recomputed_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sol");
    solve_into(&["-W", "5", "-H", "4"], &dir);
    assert!(query(&dir, "4544552254").status.success());
    let mut manifest = read_manifest(&dir);
    let good = manifest.clone();
    // The entries swapped: each names the other's file.
    manifest.plies.swap(10, 12);
    (manifest.plies[10].ply, manifest.plies[12].ply) = (10, 12);
    write_manifest(&dir, &manifest);
    refused(&query(&dir, "4544552254"), "manifest.json", "names the file \"ply-12.bdd\" for ply 10");
    // The files swapped, each entry given the other's size and checksum.
    let (ten, twelve) = (dir.join("ply-10.bdd"), dir.join("ply-12.bdd"));
    let (a, b) = (std::fs::read(&ten).unwrap(), std::fs::read(&twelve).unwrap());
    std::fs::write(&ten, &b).unwrap();
    std::fs::write(&twelve, &a).unwrap();
    let mut manifest = good;
    let (x, y) = (manifest.plies[10].clone(), manifest.plies[12].clone());
    (manifest.plies[10].bytes, manifest.plies[10].crc32) = (y.bytes, y.crc32);
    (manifest.plies[12].bytes, manifest.plies[12].crc32) = (x.bytes, x.crc32);
    write_manifest(&dir, &manifest);
    refused(&query(&dir, "4544552254"), "ply-10.bdd", "holds 5x4 compressed: win and lost of ply 12, not");
}

/// Solve 4x4 (compressed) and the board of `other_args`, then put the
/// other solution's ply 6 file under the 4x4 one's name, size and checksum,
/// with a recomputed manifest: a query at ply 6 must be refused with `why`.
fn planted_ply_is_refused(other_args: &[&str], why: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, other) = (tmp.path().join("sol"), tmp.path().join("other"));
    solve_into(&["-W", "4", "-H", "4"], &dir);
    solve_into(other_args, &other);
    let file = dir.join("ply-06.bdd");
    std::fs::copy(other.join("ply-06.bdd"), &file).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let mut manifest = read_manifest(&dir);
    manifest.plies[6].bytes = bytes.len() as u64;
    manifest.plies[6].crc32 = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
    manifest.total_bytes = manifest.plies.iter().map(|p| p.bytes).sum();
    write_manifest(&dir, &manifest);
    refused(&query(&dir, "123412"), "ply-06.bdd", why);
}

#[test]
fn a_ply_file_of_another_encoding_or_board_is_refused() {
    let encoding = "holds 4x4 cellwise: win and lost of ply 6, not 4x4 compressed";
    planted_ply_is_refused(&["-W", "4", "-H", "4", "--encoding", "cellwise"], encoding);
    planted_ply_is_refused(&["-W", "4", "-H", "3"], "holds 4x3 compressed: win and lost of ply 6, not 4x4 compressed");
}

#[test]
fn a_manifest_edited_in_any_field_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sol");
    solve_into(&["-W", "4", "-H", "3"], &dir);
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fields: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    assert_eq!(fields.len(), 11, "every field of the manifest is edited: {fields:?}");
    for field in fields {
        let mut edited = value.clone();
        edited[&field] = match &value[&field] {
            serde_json::Value::Number(n) => (n.as_u64().unwrap() + 1).into(),
            serde_json::Value::String(s) if field == "value" => {
                if s == "draw" { "first-player-wins" } else { "draw" }.into()
            }
            serde_json::Value::String(s) => format!("{s}x").into(),
            serde_json::Value::Array(a) => {
                let mut a = a.clone();
                a.swap(0, 1);
                a.into()
            }
            other => panic!("field {field}: {other}"),
        };
        std::fs::write(&path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
        refused(&query(&dir, "12"), "manifest.json", "");
    }
    std::fs::write(&path, &text).unwrap();
    assert!(query(&dir, "12").status.success());
}

#[test]
fn count_checkpoint_records_edited_with_a_new_checksum_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    let ck_s = ck.to_str().unwrap();
    let count = ["count", "-W", "4", "-H", "4", "--checkpoint", ck_s];
    // Stopped by its node limit after some plies, so that it resumes.
    let stopped = c4bdd(&[&count[..], &["--max-nodes", "5000"]].concat());
    assert_eq!(stopped.status.code(), Some(3), "{}", String::from_utf8_lossy(&stopped.stderr));
    let json = ck.join("checkpoint.json");
    let text = std::fs::read_to_string(&json).unwrap();
    let edited = text.replacen("\"states\":4,", "\"states\":5,", 1);
    assert_ne!(edited, text, "a record of ply 1 (4 states) is edited");
    std::fs::write(&json, &edited).unwrap();
    refused(&c4bdd(&count), "checkpoint.json", "does not match its checksum");
    std::fs::write(&json, crate::common::with_recomputed_crc(&edited)).unwrap();
    refused(&c4bdd(&count), ".bdd", "states of ply");
    std::fs::write(&json, text).unwrap();
    assert!(c4bdd(&count).status.success());
}

#[test]
fn swapped_layers_of_a_solve_checkpoint_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    let solve = ["solve", "-W", "4", "-H", "4", "--checkpoint", ck.to_str().unwrap()];
    let stopped = c4bdd(&[&solve[..], &["--max-nodes", "3000"]].concat());
    assert_eq!(stopped.status.code(), Some(3), "{}", String::from_utf8_lossy(&stopped.stderr));
    let (a, b) = (ck.join("layer-005.bdd"), ck.join("layer-006.bdd"));
    let (bytes_a, bytes_b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    std::fs::write(&a, &bytes_b).unwrap();
    std::fs::write(&b, &bytes_a).unwrap();
    refused(&c4bdd(&solve), "layer-005.bdd", "states of ply 6, setup ");
}

/// A run stopped before its first row leaves no `--csv` file and no
/// solution folder it made; a full disk is found before any work.
#[test]
fn stopped_runs_leave_no_half_written_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let (csv, sol) = (tmp.path().join("out.csv"), tmp.path().join("sol"));
    let (csv_s, sol_s) = (csv.to_str().unwrap(), sol.to_str().unwrap());
    let count = c4bdd(&["count", "-W", "4", "-H", "4", "--max-nodes", "20", "--csv", csv_s]);
    assert_eq!(count.status.code(), Some(3), "{}", String::from_utf8_lossy(&count.stderr));
    assert!(!csv.exists(), "a CSV without rows is removed");
    let solve = c4bdd(&["solve", "-W", "5", "-H", "4", "--max-nodes", "3000", "--out", sol_s, "--csv", csv_s]);
    assert_eq!(solve.status.code(), Some(3), "{}", String::from_utf8_lossy(&solve.stderr));
    assert!(!sol.exists() && !csv.exists(), "a solve stopped in its forward pass leaves nothing");
    if Path::new("/dev/full").exists() {
        // A full disk is not invalid input: exit status 1, one line.
        let full = c4bdd(&["solve", "-W", "4", "-H", "4", "--out", sol_s, "--csv", "/dev/full"]);
        let err = String::from_utf8_lossy(&full.stderr);
        assert_eq!(full.status.code(), Some(1), "{err}");
        assert!(err.trim_end().lines().count() == 1 && err.contains("cannot write --csv file /dev/full"), "{err}");
        assert!(!sol.exists(), "nothing is solved or stored before the CSV fails");
    }
    std::fs::write(&csv, "a file").unwrap();
    refused(&c4bdd(&["solve", "-W", "4", "-H", "4", "--out", csv_s]), "out.csv", "is a file, not a folder");
}

/// A solve stopped in its retrograde pass leaves a solution of the plies it
/// solved (no value), which answers their positions; rerun with its
/// checkpoint it finishes the solution, and rerun again it has nothing to do.
#[test]
fn a_stopped_solve_leaves_a_partial_solution_that_its_rerun_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let (sol, ck) = (tmp.path().join("sol"), tmp.path().join("ck"));
    let solve = ["solve", "-W", "5", "-H", "4", "--out", sol.to_str().unwrap(), "--checkpoint", ck.to_str().unwrap()];
    let stopped = c4bdd(&[&solve[..], &["--max-nodes", "100000"]].concat());
    let err = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(3), "{err}");
    assert!(err.contains("stopped at ply"), "stopped in the retrograde pass: {err}");
    let manifest = read_manifest(&sol);
    assert_eq!(manifest.value, None, "a partial solution has no value");
    assert_eq!(manifest.plies.last().unwrap().ply, 20, "it holds the last plies");
    let last = query(&sol, "31322323111254545445");
    assert!(last.status.success(), "ply 20 is held: {}", String::from_utf8_lossy(&last.stderr));
    refused(&query(&sol, "33"), "sol", "not ply 2");
    let done = c4bdd(&solve);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert!(read_manifest(&sol).value.is_some() && read_manifest(&sol).plies.len() == 21);
    let again = c4bdd(&solve);
    let out = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success() && out.contains("already holds this solve's whole solution"), "{out}");
    let other = c4bdd(&["solve", "-W", "5", "-H", "4", "--encoding", "cellwise", "--out", sol.to_str().unwrap()]);
    refused(&other, "sol", "already holds another solution");
}

/// A solve killed between plies (here its store callback fails after ply
/// 16, or after ply 0 before the value is written, and the writer is dropped
/// unfinished, as a killed process leaves it) leaves the manifest of the
/// plies it stored (never ply 0 without the value), each position of which
/// gets the answer of the whole solution, and which its rerun takes up.
#[test]
fn a_solve_killed_between_plies_leaves_the_plies_it_stored() {
    let size = BoardSize { width: 5, height: 4 };
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    solve_into(&["-W", "5", "-H", "4"], &whole);
    let mut all = Solution::open(&whole).unwrap();
    let explicit = ExplicitSolution::solve(size).unwrap();
    for (stop, lowest, not_held) in [(16, 16, ("33", "not ply 2")), (0, 1, ("", "not ply 0"))] {
        let cut = tmp.path().join(format!("cut-{stop}"));
        let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
        let mut writer = SolutionWriter::create(&cut, &space, &OrderSpec::PAPER).unwrap();
        let killed = solve(
            &mut space,
            &ForwardOptions::default(),
            |_| Ok(()),
            |s, ply, win, lost| {
                writer.store(s, ply, win, lost)?;
                match ply == stop {
                    true => Err(CoreError::NodeLimit { capacity: 0, live: 0 }.into()),
                    false => Ok(()),
                }
            },
        );
        assert!(killed.is_err());
        drop(writer);
        let manifest = read_manifest(&cut);
        assert_eq!(manifest.value, None, "a partial solution has no value");
        assert_eq!(manifest.plies.iter().map(|p| p.ply).collect::<Vec<_>>(), (lowest..=20).collect::<Vec<_>>());
        let mut part = Solution::open(&cut).unwrap();
        let mut checked = 0;
        for ply in 16..=20 {
            for p in explicit.positions(ply).into_iter().filter(|p| !p.is_terminal()) {
                assert_eq!(part.outcome(&p).unwrap(), all.outcome(&p).unwrap(), "{p:?}");
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked} positions");
        refused(&query(&cut, not_held.0), &format!("cut-{stop}"), not_held.1);
        assert!(SolutionWriter::create(&cut, &space, &OrderSpec::PAPER).is_ok(), "a rerun takes the solution up");
    }
}

/// `best --solution` with a ply file missing names it: a warning line (the
/// search goes on without that ply and finds the same values), or with
/// `--strict` an error.
#[test]
fn best_names_a_ply_file_it_cannot_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sol");
    solve_into(&["-W", "5", "-H", "4"], &dir);
    let best = ["best", "-W", "5", "-H", "4", "--moves", "3", "--solution", dir.to_str().unwrap()];
    let whole = c4bdd(&best);
    assert!(whole.status.success() && whole.stderr.is_empty(), "{}", String::from_utf8_lossy(&whole.stderr));
    std::fs::remove_file(dir.join("ply-02.bdd")).unwrap();
    let warned = c4bdd(&best);
    let err = String::from_utf8_lossy(&warned.stderr);
    assert!(warned.status.success(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.starts_with("warning: ") && err.contains("ply-02.bdd"), "{err}");
    let values = |out: &Output| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .filter(|l| l.starts_with("column ") || l.starts_with("value"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(values(&warned), values(&whole), "the same values without the ply");
    refused(&c4bdd(&[&best[..], &["--strict"]].concat()), "ply-02.bdd", "--strict");
}

/// One rule for exit statuses, as the README states it: a file given as
/// `--out` is invalid input (2) for every command that writes a folder, and
/// an order search whose start order reaches the node limit exits 3.
#[test]
fn exit_statuses_follow_one_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let f = file.to_str().unwrap();
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/experiments/smoke.toml");
    for args in [
        &["solve", "-W", "4", "-H", "4", "--out", f][..],
        &["sweep", spec, "--out", f, "--quiet"],
        &["orders", "search", "-W", "4", "-H", "4", "--out", f],
    ] {
        refused(&c4bdd(args), "a-file", "is a file, not a folder");
    }
    let out = tmp.path().join("search");
    let run = c4bdd(&["orders", "search", "-W", "4", "-H", "4", "--max-nodes", "16", "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    assert!(err.contains("node limit") && err.trim_end().lines().count() == 1, "{err}");
}
