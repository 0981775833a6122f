//! What a rerun, an edit or a forger cannot do: a rerun that stops earlier
//! keeps the plies stored before; every setting a resume trusts is under a
//! checksum; a file name read from a stored file stays inside its folder; the
//! empty board's value and each ply file's ply are checked against the
//! files themselves; limits a worker cannot start under are refused.

use std::path::Path;

use crate::common::{copy_of, with_recomputed_crc};
use crate::integrity::{c4bdd, query, read_manifest, refused, solve_into, write_manifest};

/// The plies a solution's manifest lists.
fn plies(dir: &Path) -> Vec<u32> {
    read_manifest(dir).plies.iter().map(|p| p.ply).collect()
}

#[test]
fn a_rerun_that_stops_earlier_keeps_the_plies_stored_before() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    let solve = ["solve", "-W", "5", "-H", "4", "--out", sol.to_str().unwrap(), "--max-nodes"];
    let first = c4bdd(&[&solve[..], &["150000"]].concat());
    assert_eq!(first.status.code(), Some(3), "{}", String::from_utf8_lossy(&first.stderr));
    assert_eq!(plies(&sol), [18, 19, 20]);
    let answer = query(&sol, "445143251311225354");
    assert!(answer.status.success(), "{}", String::from_utf8_lossy(&answer.stderr));
    // A lower limit stops at ply 19: ply 20 is stored again, 18 and 19 stay.
    let second = c4bdd(&[&solve[..], &["100000"]].concat());
    assert!(String::from_utf8_lossy(&second.stderr).contains("stopped at ply 19"));
    assert_eq!(plies(&sol), [18, 19, 20]);
    assert_eq!(query(&sol, "445143251311225354").stdout, answer.stdout);
    // A held ply whose file no longer matches its entry ends what is kept.
    std::fs::write(sol.join("ply-19.bdd"), b"damaged").unwrap();
    let third = c4bdd(&[&solve[..], &["105000"]].concat());
    assert!(String::from_utf8_lossy(&third.stderr).contains("stopped at ply 19"));
    assert_eq!(plies(&sol), [20]);
}

/// Run `before` (a count or solve with `--checkpoint CK`) until its node
/// limit stops it, replace `from` by `to` in CK's `json` file with its
/// checksum recomputed, and check that `after` (the run of the edited
/// setting) is refused naming a BDD file of CK, while `before` resumes.
fn edited_setting_is_refused(before: &[&str], after: &[&str], limit: &str, json: &str, edit: (&str, &str)) {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    let ck_s = ck.to_str().unwrap().to_string();
    let with_ck = |args: &[&str]| -> Vec<String> {
        args.iter().map(|a| a.to_string()).chain(["--checkpoint".to_string(), ck_s.clone()]).collect()
    };
    let run = |args: Vec<String>| c4bdd(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stopped = run([with_ck(before), vec!["--max-nodes".into(), limit.into()]].concat());
    assert_eq!(stopped.status.code(), Some(3), "{}", String::from_utf8_lossy(&stopped.stderr));
    let path = ck.join(json);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(edit.0), "{} in {text}", edit.0);
    std::fs::write(&path, with_recomputed_crc(&text.replace(edit.0, edit.1))).unwrap();
    refused(&run(with_ck(after)), ".bdd", "states of ply");
    // A checkpoint of the format before (no checksum over its settings).
    let version = text.split("\"version\":").nth(1).and_then(|t| t.split(',').next()).unwrap();
    std::fs::write(&path, text.replace(&format!("\"version\":{version}"), "\"version\":2")).unwrap();
    refused(&run(with_ck(before)), json, "resume it with the build that wrote it");
    std::fs::write(&path, &text).unwrap();
    assert!(run(with_ck(before)).status.success(), "the checkpoint itself resumes");
}

#[test]
fn a_checkpoint_setting_edited_with_a_new_checksum_is_refused() {
    let count = ["count", "-W", "5", "-H", "4"];
    let off = [&count[..], &["--terminal", "off"]].concat();
    let terminal = ("\"terminal\":\"off\"", "\"terminal\":\"whole\"");
    edited_setting_is_refused(&off, &count, "5000", "checkpoint.json", terminal);
    let solve = ["solve", "-W", "4", "-H", "4"];
    let monolithic = [&solve[..], &["--image", "monolithic"]].concat();
    let image = ("\"image\":\"in-place\"", "\"image\":\"monolithic\"");
    edited_setting_is_refused(&solve, &monolithic, "3000", "solve-checkpoint.json", image);
}

#[test]
fn file_names_in_stored_files_stay_inside_their_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for ck in [&a, &b] {
        let out = c4bdd(&["count", "-W", "4", "-H", "4", "--max-nodes", "5000", "--checkpoint", ck.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let name = std::fs::read_dir(&a).unwrap().flatten().map(|e| e.file_name().into_string().unwrap());
    let name = name.into_iter().find(|n| n.ends_with(".bdd")).unwrap();
    let text = std::fs::read_to_string(b.join("checkpoint.json")).unwrap();
    let absolute = a.join(&name).display().to_string();
    for planted in [format!("../a/{name}"), absolute] {
        let forged = text.replace(&format!("\"file\":\"{name}\""), &format!("\"file\":\"{planted}\""));
        assert_ne!(forged, text);
        std::fs::write(b.join("checkpoint.json"), with_recomputed_crc(&forged)).unwrap();
        let out = c4bdd(&["count", "-W", "4", "-H", "4", "--checkpoint", b.to_str().unwrap()]);
        refused(&out, "checkpoint.json", &format!("names the file \"{planted}\""));
        assert!(a.join(&name).exists(), "the other checkpoint's file is neither read nor removed");
    }
    // A solution manifest's ply file.
    let sol = tmp.path().join("sol");
    solve_into(&["-W", "4", "-H", "3"], &sol);
    let mut manifest = read_manifest(&sol);
    manifest.plies[3].file = "../sol/ply-03.bdd".into();
    write_manifest(&sol, &manifest);
    refused(&query(&sol, "123"), "manifest.json", "names the file \"../sol/ply-03.bdd\" for ply 3");
}

#[test]
fn a_forged_value_of_the_empty_board_is_caught() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    solve_into(&["-W", "4", "-H", "3"], &sol);
    let mut manifest = read_manifest(&sol);
    let held = manifest.value.unwrap();
    manifest.value = Some(match held {
        c4bdd::search::Value::Draw => c4bdd::search::Value::FirstPlayerWins,
        _ => c4bdd::search::Value::Draw,
    });
    write_manifest(&sol, &manifest);
    let why = format!("the file of ply 0 says {}", held.name());
    refused(&c4bdd(&["solve", "-W", "4", "-H", "3", "--out", sol.to_str().unwrap()]), "manifest.json", &why);
    refused(&query(&sol, ""), "manifest.json", &why);
}

#[test]
fn a_ply_file_relabelled_as_another_ply_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    solve_into(&["-W", "4", "-H", "4"], &sol);
    // Ply 5's BDDs saved as ply 6's file, under ply 6's label, with every
    // checksum and the manifest recomputed: only its content tells.
    let mut solution = c4bdd::search::Solution::open(&sol).unwrap();
    let (win, lost) = solution.load_ply(5).unwrap();
    let label = c4bdd::search::stored::solution::ply_label(&solution.space, 6);
    let path = sol.join("ply-06.bdd");
    let crc32 = solution.space.manager.save(&[win, lost], &label, &path).unwrap();
    let mut manifest = read_manifest(&sol);
    (manifest.plies[6].bytes, manifest.plies[6].crc32) = (std::fs::metadata(&path).unwrap().len(), crc32);
    write_manifest(&sol, &manifest);
    refused(&query(&sol, "123412"), "ply-06.bdd", "holds states that are not positions of ply 6");
    assert!(query(&sol, "12341").status.success(), "the other plies still answer");

    // The same in the artifact's format, whose files carry no checksum.
    let artifact = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/artifact/compressed/solution_w4_h4");
    let copy = copy_of(&artifact);
    let file = |ply: u32| copy.path().join(format!("bdd_w4_h4_{ply}_win.10.bin"));
    std::fs::copy(file(5), file(6)).unwrap();
    refused(&query(copy.path(), "123412"), "bdd_w4_h4_6_win.10.bin", "not positions of ply 6");
}

#[test]
fn a_memory_limit_a_worker_cannot_start_under_is_refused() {
    use c4bdd::run::Limits;
    for (bytes, needle) in [(5e6, "memory_bytes: 5000000 must be"), (f64::INFINITY, "memory_bytes: inf must be")] {
        let limits = Limits { memory_bytes: Some(bytes), ..Limits::default() };
        assert!(limits.check().unwrap_err().contains(needle));
    }
    assert!(Limits { memory_bytes: Some(1e8), ..Limits::default() }.check().is_ok());
}

/// A solve checkpoint's solved ply forged under its own label (every
/// checksum recomputed) with the record's counts kept is refused on resume:
/// a lost set that overlaps the win, or that holds a state of another ply.
/// The file as it was resumes.
#[test]
fn a_solved_ply_forged_with_its_counts_kept_is_refused() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::game::{BoardSize, Position};
    use c4bdd::search::{pass::backward::solve_resumable, ForwardOptions, SolveCheckpoint};
    let size = BoardSize::new(4, 4).unwrap();
    let opts = ForwardOptions::default();
    let space = || StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let run = |dir: &Path, down_to: u32| {
        let mut space = space();
        let (mut ck, resume) = SolveCheckpoint::open(dir, &mut space, &opts, false)?;
        let (on_ply, store) = (|_: &_| Ok(()), |_: &_, _, _, _| Ok(()));
        solve_resumable(&mut space, &opts, Some((&mut ck, resume)), Some(down_to), on_ply, store, |_| ())
    };
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 8).unwrap();
    let file = dir.path().join("solved-008.bdd");
    let original = std::fs::read(&file).unwrap();
    let len = u32::from_le_bytes(original[12..16].try_into().unwrap()) as usize;
    let label = std::str::from_utf8(&original[16..16 + len]).unwrap().to_string();
    let mut space = space();
    let [win, lost] = space.manager.load(&file, &label).unwrap()[..] else { panic!("win and lost") };
    // Positions by a fixed walk of moves: one lost and one won at ply 8, and
    // one of ply 10.
    let walk = |seed: u64, plies: u32| {
        let (mut p, mut x) = (Position::empty(size), seed);
        while p.ply() < plies {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let col = ((x >> 33) % 4) as u8;
            if p.can_play(col) {
                p = p.play(col);
            }
        }
        p
    };
    let find = |f| (0..).map(|seed| walk(seed, 8)).find(|p| space.contains(f, p)).unwrap();
    let (a, b, c) = (find(lost), find(win), walk(0, 10));
    let frame = opts.image.frame_of(8);
    for (added, why) in [(b, "a won state"), (c, "a state of ply 10")] {
        let m = &mut space;
        let (a_bdd, added_bdd) = (m.encode(&a, frame).unwrap(), m.encode(&added, frame).unwrap());
        let less = m.manager.diff(lost, a_bdd).unwrap();
        let forged = m.manager.or(less, added_bdd).unwrap();
        assert_eq!(m.count(forged, frame), m.count(lost, frame), "{why}: the lost count is kept");
        m.manager.save(&[win, forged], &label, &file).unwrap();
        let err = run(dir.path(), 0).unwrap_err().to_string();
        let reason = "do not match the record of ply 8: the won and lost sets overlap or leave its states";
        assert!(err.contains("solved-008.bdd") && err.contains(reason), "{why}: {err}");
    }
    std::fs::write(&file, original).unwrap();
    assert_eq!(run(dir.path(), 0).unwrap().plies.len(), 17, "the file as it was resumes");
}

/// A record of a solved ply above the lowest, edited in the solve
/// checkpoint with its checksum recomputed, is refused on resume: one that
/// no longer adds up to its ply's states by the record's sums, one with
/// won and drawn moved (the sum kept) by the label of the lowest solved
/// ply's file, which holds a checksum of the records above it. A forger
/// who also relabels that file passes the checkpoint; a solution folder
/// (`--out`) then refuses it, each stored ply's sets counted against its
/// record. The checkpoint as it was resumes.
#[test]
fn a_solved_record_edited_with_its_checksum_recomputed_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (ck, sol) = (tmp.path().join("ck"), tmp.path().join("sol"));
    let solve = |down_to: &str| {
        let (ck, sol) = (ck.to_str().unwrap(), sol.to_str().unwrap());
        c4bdd(&["solve", "-W", "4", "-H", "4", "--checkpoint", ck, "--down-to", down_to, "--out", sol])
    };
    assert!(solve("8").status.success());
    let saved = copy_of(&ck);
    let path = ck.join("solve-checkpoint.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let row = json["progress"]["solved"].as_array().unwrap().iter().find(|r| r["ply"] == 12).unwrap().clone();
    let (won, drawn) = (row["won"].as_u64().unwrap(), row["drawn"].as_u64().unwrap());
    assert!(won > 0, "ply 12 has won positions");
    let was = format!("\"ply\":12,\"won\":{won},\"drawn\":{drawn},");
    assert!(text.contains(&was), "{text}");
    let edit = |won: u64, drawn: u64| text.replace(&was, &format!("\"ply\":12,\"won\":{won},\"drawn\":{drawn},"));
    std::fs::write(&path, with_recomputed_crc(&edit(won - 1, drawn))).unwrap();
    refused(&solve("0"), "solve-checkpoint.json", "does not add up to the ply's");
    let forged = with_recomputed_crc(&edit(won - 1, drawn + 1));
    std::fs::write(&path, &forged).unwrap();
    refused(&solve("0"), "solved-008.bdd", "plies above");

    // The forger relabels the lowest solved ply's file with the checksum of
    // the edited records above it.
    let file = ck.join("solved-008.bdd");
    let bytes = std::fs::read(&file).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let label = std::str::from_utf8(&bytes[16..16 + len]).unwrap().to_string();
    let records: Vec<c4bdd::search::SolvePly> = serde_json::from_value(
        serde_json::from_str::<serde_json::Value>(&forged).unwrap()["progress"]["solved"].clone(),
    )
    .unwrap();
    let above = crc32fast::hash(serde_json::to_string(&records[..records.len() - 1]).unwrap().as_bytes());
    let at = label.find("plies above ").expect("the label names the records above") + "plies above ".len();
    let relabelled = format!("{}{above:08x}{}", &label[..at], &label[at + 8..]);
    let mut space = c4bdd::encoding::StateSpace::new(
        c4bdd::encoding::EncodingKind::Compressed,
        c4bdd::game::BoardSize::new(4, 4).unwrap(),
        &c4bdd::encoding::OrderSpec::COLUMN_WISE,
        c4bdd::bdd::Config::default(),
    )
    .unwrap();
    let roots = space.manager.load(&file, &label).unwrap();
    space.manager.save(&roots, &relabelled, &file).unwrap();
    refused(&solve("0"), "ply-12.bdd", "the record of ply 12 says");

    std::fs::remove_dir_all(&ck).unwrap();
    std::fs::rename(saved.path(), &ck).unwrap();
    assert!(solve("0").status.success(), "the checkpoint as it was resumes");
}

/// A second process writing into a solution or checkpoint folder that a
/// running solve holds is refused in one line naming the holder; the first
/// solve's result is whole.
#[test]
fn a_second_writer_of_a_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for flag in ["--out", "--checkpoint"] {
        let dir = tmp.path().join(flag.trim_start_matches('-'));
        let d = dir.to_str().unwrap();
        let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_c4bdd"))
            .args(["solve", "-W", "5", "-H", "5", flag, d])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let lock = dir.join(".c4bdd.lock");
        while !std::fs::read_to_string(&lock).is_ok_and(|pid| pid == first.id().to_string()) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let second = c4bdd(&["solve", "-W", "4", "-H", "5", flag, d]);
        let why = format!("is being written by another c4bdd process (pid {})", first.id());
        refused(&second, d, &why);
        assert!(first.wait().unwrap().success(), "{flag}: the first solve finishes");
    }
    let out = query(&tmp.path().join("out"), "33");
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("5x5"), "the first solve's solution");
}

/// Links planted in an output folder under the names of the temporary
/// files a solve writes (`.write-test`, `ply-NN.bdd.tmp`,
/// `manifest.json.tmp`, `checkpoint.json.tmp`) are replaced, never followed:
/// the files they point at are untouched, and the solve is whole.
#[test]
fn planted_links_in_an_output_folder_are_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let (sol, ck, target) = (tmp.path().join("sol"), tmp.path().join("ck"), tmp.path().join("target.txt"));
    std::fs::write(&target, "keep me").unwrap();
    std::fs::create_dir_all(&sol).unwrap();
    std::fs::create_dir_all(&ck).unwrap();
    let names = [".write-test", "ply-16.bdd.tmp", "manifest.json.tmp", "ply-03.bdd.tmp"];
    for name in names {
        std::os::unix::fs::symlink(&target, sol.join(name)).unwrap();
    }
    for name in [".write-test", "solve-checkpoint.json.tmp", "layer-005.bdd.tmp", ".c4bdd.lock"] {
        std::os::unix::fs::symlink(&target, ck.join(name)).unwrap();
    }
    let out =
        c4bdd(&["solve", "-W", "4", "-H", "4", "--out", sol.to_str().unwrap(), "--checkpoint", ck.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() || err.contains(".c4bdd.lock"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me", "the link's target is untouched");
    // The lock's link is refused (O_NOFOLLOW); without it the solve is whole.
    std::fs::remove_file(ck.join(".c4bdd.lock")).unwrap();
    let out =
        c4bdd(&["solve", "-W", "4", "-H", "4", "--out", sol.to_str().unwrap(), "--checkpoint", ck.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me", "the link's target is untouched");
    assert!(query(&sol, "1234").status.success());
}

/// Stored files are read only as regular files: a ply file or a manifest
/// replaced by a link (to a copy of itself outside the folder) or a FIFO
/// is refused in one line naming it, at once (a FIFO never blocks).
#[test]
fn linked_or_special_stored_files_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let sol = tmp.path().join("sol");
    solve_into(&["-W", "4", "-H", "4"], &sol);
    let outside = tmp.path().join("outside.bdd");
    std::fs::rename(sol.join("ply-05.bdd"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, sol.join("ply-05.bdd")).unwrap();
    refused(&query(&sol, "12341"), "ply-05.bdd", "a link");
    std::fs::remove_file(sol.join("ply-06.bdd")).unwrap();
    let fifo = std::ffi::CString::new(sol.join("ply-06.bdd").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path this test owns.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let start = std::time::Instant::now();
    refused(&query(&sol, "123412"), "ply-06.bdd", "not a regular file");
    assert!(start.elapsed() < std::time::Duration::from_secs(10), "no wait on the FIFO");
    let manifest = tmp.path().join("manifest.json");
    std::fs::rename(sol.join("manifest.json"), &manifest).unwrap();
    std::os::unix::fs::symlink(&manifest, sol.join("manifest.json")).unwrap();
    refused(&query(&sol, "1"), "manifest.json", "a link");

    // A checkpoint's JSON files: a link is not followed, a FIFO not waited on.
    for (command, json) in [("count", "checkpoint.json"), ("solve", "solve-checkpoint.json")] {
        let ck = tmp.path().join(format!("ck-{command}"));
        let run = || c4bdd(&[command, "-W", "4", "-H", "4", "--checkpoint", ck.to_str().unwrap()]);
        assert!(run().status.success());
        let moved = tmp.path().join(json);
        std::fs::rename(ck.join(json), &moved).unwrap();
        std::os::unix::fs::symlink(&moved, ck.join(json)).unwrap();
        refused(&run(), json, "a link");
        std::fs::remove_file(ck.join(json)).unwrap();
        let fifo = std::ffi::CString::new(ck.join(json).to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path this test owns.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let start = std::time::Instant::now();
        refused(&run(), json, "not a regular file");
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "no wait on the FIFO");
    }
}

/// A disk that fills up (a file size limit: writes fail with EFBIG) at any
/// point of a solve leaves no temporary file in its solution or checkpoint
/// folder, and the run says so in one line with exit status 1.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_no_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failed = 0;
    for limit in [100u64, 300, 700, 1500, 3000, 6000, 12000, 25000] {
        let (sol, ck) = (tmp.path().join(format!("sol-{limit}")), tmp.path().join(format!("ck-{limit}")));
        let args =
            ["solve", "-W", "4", "-H", "4", "--out", sol.to_str().unwrap(), "--checkpoint", ck.to_str().unwrap()];
        let out = crate::common::c4bdd_with_limit(&args, libc::RLIMIT_FSIZE, limit);
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            failed += 1;
            assert_eq!(out.status.code(), Some(1), "limit {limit}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "limit {limit}: {err}");
        }
        for dir in [&sol, &ck] {
            let left: Vec<String> = std::fs::read_dir(dir)
                .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
                .unwrap_or_default();
            assert!(!left.iter().any(|n| n.ends_with(".tmp")), "limit {limit}: {left:?}");
        }
    }
    assert!(failed >= 4, "most limits stop the solve ({failed})");
}
