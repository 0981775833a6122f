//! `count --checkpoint`: killed at random moments, a rerun finishes with the
//! same rows as an uninterrupted count; damaged checkpoints are refused.

use std::process::Command;
use std::time::Instant;

use crate::common::kill_after;

fn c4bdd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

/// (ply, states, bdd_nodes) of a count CSV.
fn rows(path: &std::path::Path) -> Vec<(u32, u128, u64)> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let h = reader.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (p, s, n) = (col("ply"), col("states"), col("bdd_nodes"));
    reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r[p].parse().unwrap(), r[s].parse().unwrap(), r[n].parse().unwrap()))
        .collect()
}

const BOARD: [&str; 4] = ["-W", "5", "-H", "5"];

#[test]
fn killed_counts_resume_to_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference.csv");
    let started = Instant::now();
    let out = c4bdd(&[&["count"][..], &BOARD, &["--csv", reference.to_str().unwrap()]].concat());
    assert!(out.status.success());
    let full = started.elapsed();
    let want = rows(&reference);
    let mut resumed_any = false;
    for (i, fraction) in [0.15, 0.4, 0.6, 0.8, 0.95].into_iter().enumerate() {
        let ck = dir.path().join(format!("ck{i}"));
        let csv = dir.path().join(format!("run{i}.csv"));
        let args =
            [&["count"][..], &BOARD, &["--checkpoint", ck.to_str().unwrap(), "--csv", csv.to_str().unwrap()]].concat();
        kill_after(&args, full.as_secs_f64() * fraction);
        let out = c4bdd(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        resumed_any |= String::from_utf8_lossy(&out.stdout).contains("resumed from the checkpoint");
        assert_eq!(rows(&csv), want, "kill at {fraction} of the run");
    }
    assert!(resumed_any, "at least one kill came after a finished ply");
}

/// A resumed run's summary gives the run's peak RSS, at least that of every
/// process before it (from the checkpoint's records): here a rerun of a
/// finished count, whose own process only loads the last ply.
#[test]
fn a_resumed_count_reports_the_peak_rss_of_its_earlier_processes() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let args = [&["count"][..], &BOARD, &["--checkpoint", ck.to_str().unwrap()]].concat();
    assert!(c4bdd(&args).status.success());
    let text = std::fs::read_to_string(ck.join("checkpoint.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let records = file["records"].as_array().unwrap();
    let earlier = records.iter().map(|r| r["peak_rss_bytes"].as_u64().unwrap()).max().unwrap();
    let out = c4bdd(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let resumed = stdout.lines().find(|l| l.starts_with("(resumed from the checkpoint after ply ")).unwrap();
    assert!(resumed.contains("; read and checked in ") && resumed.ends_with(" s)"), "{resumed}");
    let mb: f64 = stdout
        .split("peak RSS ")
        .nth(1)
        .and_then(|rest| rest.split(" MB").next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in {stdout}"));
    // The summary rounds to 0.1 MB.
    assert!(mb >= earlier as f64 / 1e6 - 0.05, "peak RSS {mb} MB, an earlier process's {earlier} bytes");
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let ck_s = ck.to_str().unwrap();
    assert!(c4bdd(&["count", "-W", "4", "-H", "4", "--checkpoint", ck_s]).status.success());
    let bdd = std::fs::read_dir(&ck)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "bdd"))
        .unwrap()
        .path();
    let good = std::fs::read(&bdd).unwrap();
    let json = ck.join("checkpoint.json");
    let text = std::fs::read_to_string(&json).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 3] ^= 0x40;
    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        ("flipped byte", flipped, text.clone()),
        ("truncated", good[..good.len() / 2].to_vec(), text.clone()),
        ("json cut", good.clone(), text[..text.len() / 2].to_string()),
        ("wrong count", good.clone(), text.replacen("\"states\":1,", "\"states\":2,", 1)),
    ];
    for (what, bytes, json_text) in cases {
        std::fs::write(&bdd, &bytes).unwrap();
        std::fs::write(&json, &json_text).unwrap();
        let out = c4bdd(&["count", "-W", "4", "-H", "4", "--checkpoint", ck_s]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(ck_s) && err.trim_end().lines().count() == 1, "{what}: {err}");
    }
    std::fs::write(&bdd, &good).unwrap();
    std::fs::write(&json, &text).unwrap();
    let other = c4bdd(&["count", "-W", "4", "-H", "4", "--encoding", "cellwise", "--checkpoint", ck_s]);
    assert_eq!(other.status.code(), Some(2), "a checkpoint of another encoding is refused");
    assert!(c4bdd(&["count", "-W", "4", "-H", "4", "--checkpoint", ck_s]).status.success());
}

/// The rows of a solve CSV, sorted by ply: ply, total, won, drawn, lost,
/// terminal, nodes.
fn solve_rows(path: &std::path::Path) -> Vec<[u128; 7]> {
    let rows: Vec<c4bdd::experiment::record::PlyRow> = c4bdd::experiment::record::read_rows(path).unwrap();
    let n = |v: Option<u128>| v.expect("a solved ply's column");
    let mut rows: Vec<[u128; 7]> = rows
        .iter()
        .map(|r| [r.ply.into(), r.states, n(r.won), n(r.drawn), n(r.lost), n(r.terminal), r.bdd_nodes.into()])
        .collect();
    rows.sort();
    rows
}

/// The manifest without its directory-specific parts: value and per-ply files.
fn manifest(dir: &std::path::Path) -> (serde_json::Value, serde_json::Value) {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    (m["value"].clone(), m["plies"].clone())
}

/// How far a solve's checkpoint has come: its forward plies plus its solved
/// plies (0 while there is none or it cannot be read).
fn solve_stage(ck: &std::path::Path) -> usize {
    let Ok(text) = std::fs::read_to_string(ck.join("solve-checkpoint.json")) else { return 0 };
    let Ok(file) = serde_json::from_str::<serde_json::Value>(&text) else { return 0 };
    let len = |key: &str| file["progress"][key].as_array().map_or(0, Vec::len);
    len("forward") + len("solved")
}

/// Each run is killed twice, just after its checkpoint reaches a stage (a
/// moment inside the next ply's work) and again during the resumed run; the
/// kills follow the checkpoint, not the clock, so a loaded machine moves them
/// no more than a quiet one.
#[test]
fn killed_solves_resume_to_the_uninterrupted_solution() {
    let dir = tempfile::tempdir().unwrap();
    let board = ["-W", "5", "-H", "4"];
    let (ref_csv, ref_out) = (dir.path().join("reference.csv"), dir.path().join("reference"));
    let ref_ck = dir.path().join("reference-ck");
    let args = [&["solve"][..], &board, &["--csv", ref_csv.to_str().unwrap(), "--out", ref_out.to_str().unwrap()]];
    let args = [&args.concat()[..], &["--checkpoint", ref_ck.to_str().unwrap()]].concat();
    assert!(c4bdd(&args).status.success());
    let (want_rows, want_manifest) = (solve_rows(&ref_csv), manifest(&ref_out));
    // 21 forward plies and 21 solved ones; the last kill leaves ten plies to solve.
    assert_eq!(solve_stage(&ref_ck), 42);
    for (i, stage) in [1, 6, 12, 19, 25, 28].into_iter().enumerate() {
        let (ck, csv, out) = (
            dir.path().join(format!("ck{i}")),
            dir.path().join(format!("{i}.csv")),
            dir.path().join(format!("out{i}")),
        );
        let args = [
            &["solve"][..],
            &board,
            &["--checkpoint", ck.to_str().unwrap(), "--csv", csv.to_str().unwrap(), "--out", out.to_str().unwrap()],
        ]
        .concat();
        for at in [stage, stage + 4] {
            crate::common::kill_when(&args, || solve_stage(&ck) >= at, 120.0);
        }
        let done = c4bdd(&args);
        assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
        let stdout = String::from_utf8_lossy(&done.stdout);
        assert!(stdout.contains("resumed from the checkpoint"), "killed at stage {stage}: {stdout}");
        assert_eq!(solve_rows(&csv), want_rows, "killed at stage {stage}");
        assert_eq!(manifest(&out), want_manifest, "killed at stage {stage}: the same solution files");
    }
}

/// A solve checkpoint whose forward records lack the terminal counts (as the
/// forward pass wrote them before it counted them) resumes to the same rows:
/// the retrograde pass then splits the terminal states off to count them.
#[test]
fn solve_checkpoints_without_terminal_counts_resume_to_the_same_rows() {
    use c4bdd::search::{PlyRecord, SolvePly};
    /// The checksummed part of the checkpoint, its fields in the file's order.
    #[derive(serde::Serialize)]
    struct Progress {
        forward: Vec<PlyRecord>,
        solved: Vec<SolvePly>,
        solved_file: Option<String>,
    }
    let dir = tempfile::tempdir().unwrap();
    let board = ["solve", "-W", "5", "-H", "4"];
    let reference = dir.path().join("reference.csv");
    assert!(c4bdd(&[&board[..], &["--csv", reference.to_str().unwrap()]].concat()).status.success());
    let (ck, csv) = (dir.path().join("ck"), dir.path().join("resumed.csv"));
    let args = [&board[..], &["--checkpoint", ck.to_str().unwrap(), "--csv", csv.to_str().unwrap()]].concat();
    // The node limit stops the solve inside its retrograde pass.
    let stopped = c4bdd(&[&args[..], &["--max-nodes", "160000"]].concat());
    assert_eq!(stopped.status.code(), Some(3), "{}", String::from_utf8_lossy(&stopped.stderr));
    let path = ck.join("solve-checkpoint.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let part = |key: &str| file["progress"][key].clone();
    let mut progress = Progress {
        forward: serde_json::from_value(part("forward")).unwrap(),
        solved: serde_json::from_value(part("solved")).unwrap(),
        solved_file: serde_json::from_value(part("solved_file")).unwrap(),
    };
    let last = progress.forward.len() - 1;
    assert!(progress.forward[..last].iter().all(|r| r.terminal.is_some()), "a solve counts terminal states");
    assert!(!progress.solved.is_empty() && progress.solved.len() < last, "stopped inside the retrograde pass");
    for r in &mut progress.forward {
        r.terminal = None;
    }
    // The progress replaced in the text (the fields keep their order), the
    // checksum recomputed.
    let (start, end) = (text.find("\"progress\":").unwrap() + 11, text.rfind(",\"crc32\":").unwrap());
    let edited = format!("{}{}{}", &text[..start], serde_json::to_string(&progress).unwrap(), &text[end..]);
    std::fs::write(&path, crate::common::with_recomputed_crc(&edited)).unwrap();
    let done = c4bdd(&args);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let stdout = String::from_utf8_lossy(&done.stdout);
    let resumed = stdout.lines().find(|l| l.starts_with("(resumed from the checkpoint: ")).unwrap();
    // The take-up part by part (no solution folder, so no solution's files).
    let parts = [" plies solved; read and checked in ", " s: layers ", " s, the lowest solved ply ", " s to read and "];
    assert!(parts.iter().all(|p| resumed.contains(p)) && resumed.ends_with(" s to check)"), "{resumed}");
    assert_eq!(solve_rows(&csv), solve_rows(&reference));
}

#[test]
fn solve_checkpoints_of_another_setup_or_damaged_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let ck_s = ck.to_str().unwrap();
    assert!(c4bdd(&["solve", "-W", "4", "-H", "4", "--checkpoint", ck_s]).status.success());
    let other = c4bdd(&["solve", "-W", "4", "-H", "4", "--image", "monolithic", "--checkpoint", ck_s]);
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("other order or options"));
    let json = ck.join("solve-checkpoint.json");
    let text = std::fs::read_to_string(&json).unwrap();
    let solved = std::fs::read_dir(&ck)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with("solved-"));
    let solved = solved.expect("a solved-ply file");
    let good = std::fs::read(&solved).unwrap();
    let cases: Vec<(&str, std::path::PathBuf, Vec<u8>)> = vec![
        ("json truncated", json.clone(), text.as_bytes()[..text.len() / 2].to_vec()),
        ("record changed", json.clone(), text.replacen("\"won\":", "\"won\":1", 1).into_bytes()),
        ("bdd truncated", solved.clone(), good[..good.len() - 9].to_vec()),
        ("bdd flipped", solved.clone(), {
            let mut b = good.clone();
            b[good.len() / 2] ^= 0x10;
            b
        }),
    ];
    for (what, path, bytes) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let out = c4bdd(&["solve", "-W", "4", "-H", "4", "--checkpoint", ck_s]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.trim_end().lines().count() == 1, "{what}: {err}");
        std::fs::write(&json, &text).unwrap();
        std::fs::write(&solved, &good).unwrap();
    }
    assert!(c4bdd(&["solve", "-W", "4", "-H", "4", "--checkpoint", ck_s]).status.success(), "restored files resume");
}

/// Checkpoints and sweep rows store times as JSON numbers and check the
/// records by a checksum of their re-serialization: every f64 must read back
/// bit for bit (serde_json's default float parser is not exact).
#[test]
fn json_times_read_back_bit_for_bit() {
    use c4bdd::search::{Phases, PlyRecord};
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut records = Vec::new();
    for ply in 0..20_000u32 {
        // xorshift: times from microseconds to hours, with every digit used.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let time_s = (x >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((ply % 8) as i32 - 4);
        // Records made before the memory fields existed have neither.
        let rss = (ply % 3 != 0).then_some(x >> 24);
        // Nor the phases, which split the time (any digits again).
        let phases = (ply % 5 != 0).then_some(Phases {
            terminal_s: time_s / 3.0,
            image_s: time_s / 7.0,
            count_s: time_s * 1e-3,
            gc_s: time_s / 11.0,
            // Zero (not serialized) in count records, set in solve records.
            split_s: if ply % 2 == 0 { 0.0 } else { time_s / 13.0 },
        });
        records.push(PlyRecord {
            ply,
            states: x as u128,
            bdd_nodes: x >> 40,
            live_nodes: x >> 35,
            time_s,
            rss_bytes: rss,
            peak_rss_bytes: rss.map(|r| r + (x >> 50)),
            peak_nodes: rss.map(|_| x >> 33),
            phases,
            // Counted by a solve's forward pass, absent in a count's.
            terminal: (ply % 2 == 1).then_some(x as u128 >> 7),
        });
    }
    let text = serde_json::to_string(&records).unwrap();
    let back: Vec<PlyRecord> = serde_json::from_str(&text).unwrap();
    for (a, b) in records.iter().zip(&back) {
        assert_eq!(a.time_s.to_bits(), b.time_s.to_bits(), "{} read back as {}", a.time_s, b.time_s);
    }
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    assert_eq!(back, records);
}

/// A record written before the memory and phase fields existed reads back
/// without them and serializes to the same text, so the checksum of an older
/// checkpoint's records still holds.
#[test]
fn records_without_memory_fields_keep_their_text() {
    use c4bdd::search::{PlyRecord, SolvePly};
    let old = r#"[{"ply":0,"states":1,"bdd_nodes":14,"live_nodes":220,"time_s":0.25}]"#;
    let back: Vec<PlyRecord> = serde_json::from_str(old).unwrap();
    assert_eq!((back[0].rss_bytes, back[0].peak_rss_bytes, back[0].phases), (None, None, None));
    assert_eq!(serde_json::to_string(&back).unwrap(), old);
    let old = r#"[{"ply":3,"won":1,"drawn":2,"lost":3,"total":6,"terminal":1,"nodes":40,"time_s":0.5}]"#;
    let back: Vec<SolvePly> = serde_json::from_str(old).unwrap();
    assert_eq!((back[0].rss_bytes, back[0].phases), (None, None));
    assert_eq!(serde_json::to_string(&back).unwrap(), old);
}

/// A solve stopped inside a ply's pre-images (here by its node limit) keeps
/// the products joined so far, and its resume takes them up and ends with
/// the rows of the uninterrupted solve: with one relation, between the two
/// pre-images; with one relation per column, also inside a pre-image; with an
/// image split, the same rows.
#[test]
fn a_ply_stopped_inside_its_pre_images_resumes_from_the_products_saved() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::{resume::solve::describe, solve, ForwardOptions, ImageStrategy, SolveCheckpoint};
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let space = |max_nodes| {
        let config = Config { max_nodes, ..Config::default() };
        StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap()
    };
    let rows = |plies: &[c4bdd::search::SolvePly]| plies.iter().map(|p| (p.ply, p.won, p.drawn, p.lost)).collect();
    let opts = ForwardOptions::default();
    let want: Vec<_> =
        rows(&solve(&mut space(Config::default().max_nodes), &opts, |_| Ok(()), |_, _, _, _| Ok(())).unwrap().plies);
    let setups = [(ImageStrategy::InPlace, 0), (ImageStrategy::InPlaceColumns, 0), (ImageStrategy::InPlace, 2)];
    for (image, image_split) in setups {
        let opts = ForwardOptions { image, image_split, ..ForwardOptions::default() };
        // The stops that fell inside a ply, and the products joined of each
        // that fell inside a pre-image.
        let (mut inside, mut joined) = (0, Vec::new());
        for limit in (100_000..=160_000).step_by(10_000) {
            let dir = tempfile::tempdir().unwrap();
            let run = |max_nodes| {
                let mut space = space(max_nodes);
                let (mut ck, resume) = SolveCheckpoint::open(dir.path(), &mut space, &opts, true).unwrap();
                ck.set_partial_every(std::time::Duration::ZERO);
                let ck = Some((&mut ck, resume));
                c4bdd::search::pass::backward::solve_resumable(
                    &mut space,
                    &opts,
                    ck,
                    None,
                    |_| Ok(()),
                    |_, _, _, _| Ok(()),
                    |_| (),
                )
            };
            assert!(run(limit).is_err(), "{image} split {image_split} {limit} stops the solve");
            let held = describe(dir.path()).unwrap();
            inside += usize::from(held.contains(", the next "));
            if let Some((_, rest)) = held.split_once("part way (") {
                joined.push(rest.split(' ').next().unwrap().parse::<u32>().unwrap());
            }
            let saved = saved_so_far(dir.path());
            let resumed = run(Config::default().max_nodes).unwrap();
            assert_eq!(rows(&resumed.plies), want, "{image} split {image_split} limit {limit}: {held}");
            // The ply taken up part way goes on from the saved time, and so
            // does the summary's.
            if let Some((ply, time_s, image_s)) = saved {
                let record = resumed.plies.iter().find(|p| p.ply == ply).unwrap();
                let phases = record.phases.unwrap();
                assert!(record.time_s >= time_s && phases.image_s >= image_s, "ply {ply}: {record:?}, saved {time_s}");
                assert!(resumed.time_s >= time_s, "the summary's {} s, the saved {time_s} s", resumed.time_s);
            }
        }
        assert!(inside > 0, "{image} split {image_split}: some stop fell inside a ply's pre-images");
        // With the split, this board's stops fall between the pre-images (the
        // products of the parts are small); the saves are the same per step.
        if image == ImageStrategy::InPlaceColumns {
            let steps = u32::from(size.width) << image_split;
            assert!(
                joined.iter().any(|&k| k < steps),
                "{image} split {image_split}: some stop fell inside a pre-image: {joined:?}"
            );
        }
    }
}

/// A 5x4 solve (compressed, paper order) under `opts` with checkpoint `dir`
/// and node limit `max_nodes`, every layer held unless `down_to`; its
/// pre-images saved after every step with `every_step` (else finished
/// only, under the default interval); each step shown to `steps`.
fn solve_5x4_in(
    dir: &std::path::Path,
    opts: &c4bdd::search::ForwardOptions,
    (max_nodes, down_to, every_step): (usize, Option<u32>, bool),
    steps: &mut Vec<c4bdd::search::Step>,
) -> c4bdd::Result<c4bdd::search::SolveSummary> {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let config = Config { max_nodes, ..Config::default() };
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap();
    let (mut ck, resume) = c4bdd::search::SolveCheckpoint::open(dir, &mut space, opts, down_to.is_none()).unwrap();
    if every_step {
        ck.set_partial_every(std::time::Duration::ZERO);
    }
    let ck = Some((&mut ck, resume));
    let on_step = |s: &c4bdd::search::Step| steps.push(*s);
    let (on_ply, store) = (|_: &_| Ok(()), |_: &_, _, _, _| Ok(()));
    c4bdd::search::pass::backward::solve_resumable(&mut space, opts, ck, down_to, on_ply, store, on_step)
}

/// A finished pre-image is saved whatever the interval: a solve stopped
/// after a ply's first pre-image (in the second, or in the split after both)
/// resumes without building it again, with the rows of the uninterrupted
/// solve; after both, without reading the ply above (its file removed here).
/// Under the default ten-minute interval no save falls part way. Both with
/// every layer held and with the layers read back (`--down-to`).
#[test]
fn a_finished_pre_image_is_saved_and_not_built_again() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::ply::transition::Target;
    use c4bdd::search::{solve, ForwardOptions, Step, StepOf};
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let rows = |plies: &[c4bdd::search::SolvePly]| plies.iter().map(|p| (p.ply, p.won, p.drawn, p.lost)).collect();
    let opts = ForwardOptions::default();
    let run = |dir: &std::path::Path, down_to: Option<u32>, (max_nodes, split_parts), steps: &mut Vec<Step>| {
        solve_5x4_in(dir, &ForwardOptions { split_parts, ..opts }, (max_nodes, down_to, false), steps)
    };
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let want: Vec<_> = rows(&solve(&mut space, &opts, |_| Ok(()), |_, _, _, _| Ok(())).unwrap().plies);
    let (mut after_lost, mut after_both) = (0, 0);
    let limits = (100_000..=150_000).step_by(10_000);
    for (down_to, limit) in [None, Some(0)].into_iter().flat_map(|d| limits.clone().map(move |l| (d, l))) {
        let dir = tempfile::tempdir().unwrap();
        let mut before = Vec::new();
        let stopped = run(dir.path(), down_to, (limit, 0), &mut before).unwrap_err();
        let text = std::fs::read_to_string(dir.path().join("solve-checkpoint.json")).unwrap();
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let partial = file["progress"]["partial"].as_array().cloned().unwrap_or_default();
        // Every pre-image held is finished: its steps are all the steps.
        let last_steps = |target: Target| before.iter().rev().find(|s| s.of == StepOf::PreImage(target)).copied();
        for p in &partial {
            let target = if p["target"] == "lost" { Target::Lost } else { Target::Draw };
            let step = last_steps(target).unwrap();
            assert_eq!(p["relations"].as_u64().unwrap() as usize, step.steps, "limit {limit}: {p}");
            assert_eq!(p["ply"].as_u64().unwrap() as u32, step.ply, "limit {limit}: {p}");
        }
        let held = c4bdd::search::resume::solve::describe(dir.path()).unwrap();
        let says = match partial.len() {
            0 => !held.contains("pre-image"),
            n => held.ends_with(&format!("plies solved, the next with {n} of its 2 pre-images finished")),
        };
        assert!(says, "limit {limit}, {} held: {held}", partial.len());
        if partial.len() == 2 {
            for entry in std::fs::read_dir(dir.path()).unwrap() {
                let path = entry.unwrap().path();
                if path.file_name().unwrap().to_str().unwrap().starts_with("solved-") {
                    std::fs::remove_file(path).unwrap();
                }
            }
        }
        // Every other resume splits its plies in parts: the pre-images saved
        // without are its own.
        let (mut after, split_parts) = (Vec::new(), (limit / 10_000 % 2) as u8 * 3);
        let resumed = run(dir.path(), down_to, (Config::default().max_nodes, split_parts), &mut after).unwrap();
        assert_eq!(rows(&resumed.plies), want, "down to {down_to:?}, limit {limit}, parts {split_parts} ({stopped})");
        // A pre-image held is not built again: the resumed solve takes no
        // step of it.
        for p in &partial {
            let (ply, lost) = (p["ply"].as_u64().unwrap() as u32, p["target"] == "lost");
            let target = if lost { Target::Lost } else { Target::Draw };
            let again = after.iter().filter(|s| s.ply == ply && s.of == StepOf::PreImage(target)).count();
            assert_eq!(again, 0, "limit {limit}: ply {ply}'s {target:?} pre-image built again");
        }
        match partial.len() {
            1 => after_lost += 1,
            2 => after_both += 1,
            _ => {}
        }
    }
    assert!(after_lost > 0 && after_both > 0, "stops after one pre-image {after_lost}, after both {after_both}");
}

/// The ply, seconds and image seconds of the latest pre-image a solve
/// checkpoint holds part way, if any.
fn saved_so_far(dir: &std::path::Path) -> Option<(u32, f64, f64)> {
    let text = std::fs::read_to_string(dir.join("solve-checkpoint.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let partial = file["progress"]["partial"].as_array()?;
    let so_far = |p: &serde_json::Value| {
        let s = &p["so_far"];
        (p["ply"].as_u64().unwrap() as u32, s["time_s"].as_f64().unwrap(), s["phases"]["image_s"].as_f64().unwrap())
    };
    partial.iter().map(so_far).max_by(|a, b| a.1.total_cmp(&b.1))
}

/// A solve checkpoint is taken up by a solve that computes its pre-images
/// otherwise (one relation per column, an image split) with the rows of the
/// uninterrupted solve, however the stops fall: a pre-image saved part way
/// under other settings is started over (taken as theirs, a part of one
/// column's product would pass for the whole pre-image of one relation);
/// a checkpoint of other frames (monolithic images) is refused.
#[test]
fn a_solve_checkpoint_resumes_under_other_image_settings_of_the_same_frames() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::{resume::solve::describe, solve, ForwardOptions, ImageStrategy, SolveCheckpoint};
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let rows = |plies: &[c4bdd::search::SolvePly]| plies.iter().map(|p| (p.ply, p.won, p.drawn, p.lost)).collect();
    let run = |dir: &std::path::Path, opts: &ForwardOptions, max_nodes| {
        let config = Config { max_nodes, ..Config::default() };
        let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap();
        let (mut ck, resume) = SolveCheckpoint::open(dir, &mut space, opts, true)?;
        ck.set_partial_every(std::time::Duration::ZERO);
        let ck = Some((&mut ck, resume));
        c4bdd::search::pass::backward::solve_resumable(
            &mut space,
            opts,
            ck,
            None,
            |_| Ok(()),
            |_, _, _, _| Ok(()),
            |_| (),
        )
    };
    let max = Config::default().max_nodes;
    let one = ForwardOptions::default();
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let want: Vec<_> = rows(&solve(&mut space, &one, |_| Ok(()), |_, _, _, _| Ok(())).unwrap().plies);
    let columns = ForwardOptions { image: ImageStrategy::InPlaceColumns, ..one };
    let split = ForwardOptions { image_split: 2, ..one };
    let monolithic = ForwardOptions { image: ImageStrategy::Monolithic, ..one };
    let mut inside = Vec::new();
    for limit in (100_000..=160_000).step_by(10_000) {
        for (first, then) in [(&columns, &one), (&one, &split), (&split, &columns)] {
            let dir = tempfile::tempdir().unwrap();
            assert!(run(dir.path(), first, limit).is_err(), "{limit} stops the solve");
            let held = describe(dir.path()).unwrap();
            if let Some((_, rest)) = held.split_once("part way (") {
                inside.push(rest.split(' ').next().unwrap().parse::<u32>().unwrap());
            }
            let err = run(dir.path(), &monolithic, max).unwrap_err().to_string();
            assert!(err.contains("other order or options"), "{err}");
            // Stopped again under the new settings, then resumed under them.
            let _ = run(dir.path(), then, limit + 20_000);
            let resumed = run(dir.path(), then, max).unwrap();
            assert_eq!(rows(&resumed.plies), want, "{first:?} then {then:?}, limit {limit}: {held}");
        }
    }
    let columns_steps = u32::from(size.width);
    assert!(inside.iter().any(|&k| k < columns_steps), "some stop fell inside a pre-image per column: {inside:?}");
}

/// A pre-image under an image split, stopped after any of its steps and
/// taken up from the union saved there, equals the pre-image without a split.
#[test]
fn a_split_pre_image_taken_up_after_any_step_is_the_whole_pre_image() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::ply::transition::Joined;
    use c4bdd::search::{forward, ForwardOptions, Transition};
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let (_, layers) = forward(&mut space, &ForwardOptions::default(), true, |_| {}).unwrap();
    let (ply, target) = (9, layers[10]);
    let whole = Transition::build(&mut space, &ForwardOptions::default()).unwrap();
    let want = whole.preimage(&mut space, ply, target).unwrap();
    space.manager.pin(want);
    let split = Transition::build(&mut space, &ForwardOptions { image_split: 2, ..ForwardOptions::default() }).unwrap();
    for stop in 1..=4 {
        let mut saved = Joined::default();
        let stopped = split.preimage_from(&mut space, ply, target, Joined::default(), &mut |space, joined| {
            space.manager.pin(joined.union);
            saved = joined;
            if joined.steps == stop {
                Err(c4bdd::error::CoreError::NodeLimit { capacity: 0, live: 0 }.into())
            } else {
                space.manager.unpin(joined.union);
                Ok(())
            }
        });
        assert!(stopped.is_err() && saved.steps == stop, "stop after step {stop}");
        let taken_up = split.preimage_from(&mut space, ply, target, saved, &mut |_, _| Ok(())).unwrap();
        assert_eq!(taken_up, want, "taken up after step {stop} of 4");
        space.manager.unpin(saved.union);
    }
}

/// A count resumed in a new process (a new manager) keeps the peak of the
/// process before it: the summary's peak nodes are the larger of its own and
/// those its checkpoint's records saw, which the records carry ply by ply.
#[test]
fn a_resumed_count_keeps_the_peak_of_the_process_before_it() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::{forward_from, Checkpoint, ForwardOptions, PlyRecord, Transition};
    let size = c4bdd::game::BoardSize::new(5, 5).unwrap();
    let opts = ForwardOptions::default();
    let dir = tempfile::tempdir().unwrap();
    // Counts up to ply `stop` (all plies without it), saving each ply.
    let run = |stop: Option<u32>| {
        let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
        let rules = Transition::build(&mut space, &opts).unwrap();
        let (mut ck, resume) = Checkpoint::open(dir.path(), &mut space, &opts).unwrap();
        let mut records: Vec<PlyRecord> = resume.as_ref().map_or(Vec::new(), |r| r.records.clone());
        let result =
            forward_from(&mut space, &rules, resume, false, false, |space: &mut StateSpace, r: &PlyRecord, states| {
                records.push(*r);
                ck.save(space, &records, states)?;
                match stop == Some(r.ply) {
                    true => Err(c4bdd::error::Error::UnsupportedBoard { reason: "stopped".into() }),
                    false => Ok(()),
                }
            });
        (result.map(|(summary, _)| summary), space.manager.stats().peak_live, records)
    };
    let (whole, _, _) = run(None);
    let whole = whole.unwrap();
    let mut earlier_higher = 0;
    for stop in [8, 12, 16, 20, 23] {
        let _ = std::fs::remove_dir_all(dir.path());
        let (stopped, first_peak, records) = run(Some(stop));
        assert!(stopped.is_err());
        assert!(records.iter().all(|r| r.peak_nodes.is_some()), "every record carries the peak so far");
        assert_eq!(records.last().unwrap().peak_nodes, Some(first_peak));
        let (resumed, own_peak, _) = run(None);
        let resumed = resumed.unwrap();
        assert_eq!(resumed.peak_nodes, first_peak.max(own_peak), "stopped after ply {stop}");
        assert_eq!(resumed.positions, whole.positions);
        earlier_higher += (first_peak > own_peak) as usize;
    }
    assert!(earlier_higher > 0, "some resumed process alone peaked lower than the one before it");
}

/// Steps of a pre-image saved part way under an image split are taken up
/// only if their parts were cut as today's are (on variables of cells): a
/// checkpoint whose partial pre-images lack the mark (cut on the top state
/// variables with the side to move) has them built from their first step,
/// and a copy that keeps the mark goes on from them; both give the solve's
/// rows.
#[test]
fn pre_image_steps_cut_on_other_variables_are_built_again() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::ply::transition::Target;
    use c4bdd::search::{solve, ForwardOptions, Step, StepOf};
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let rows = |plies: &[c4bdd::search::SolvePly]| plies.iter().map(|p| (p.ply, p.won, p.drawn, p.lost)).collect();
    let opts = ForwardOptions { image_split: 2, ..ForwardOptions::default() };
    let run = |dir: &std::path::Path, max_nodes, steps: &mut Vec<Step>| {
        solve_5x4_in(dir, &opts, (max_nodes, None, true), steps)
    };
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let want: Vec<_> = rows(&solve(&mut space, &opts, |_| Ok(()), |_, _, _, _| Ok(())).unwrap().plies);
    let mut seen = 0;
    for limit in (100_000..=160_000).step_by(10_000) {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), limit, &mut Vec::new()).unwrap_err();
        let path = dir.path().join("solve-checkpoint.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let partial = file["progress"]["partial"].as_array().cloned().unwrap_or_default();
        let Some(p) = partial.iter().find(|p| p["finished"] != true) else { continue };
        assert_eq!(p["cells_cut"], true, "limit {limit}: {p}");
        seen += 1;
        let (ply, done) = (p["ply"].as_u64().unwrap() as u32, p["relations"].as_u64().unwrap() as usize);
        let target = if p["target"] == "lost" { Target::Lost } else { Target::Draw };
        let first_step = |steps: &[Step]| {
            steps.iter().find(|s| s.ply == ply && s.of == StepOf::PreImage(target)).map(|s| s.done).unwrap()
        };
        let kept = crate::common::copy_of(dir.path());
        std::fs::write(&path, crate::common::with_recomputed_crc(&text.replace(",\"cells_cut\":true", ""))).unwrap();
        for (folder, first) in [(dir.path(), 1), (kept.path(), done + 1)] {
            let mut after = Vec::new();
            let resumed = run(folder, Config::default().max_nodes, &mut after).unwrap();
            assert_eq!(rows(&resumed.plies), want, "limit {limit}");
            assert_eq!(first_step(&after), first, "limit {limit}: the first step taken after {done} saved");
        }
    }
    assert!(seen > 0, "some stop fell inside a pre-image");
}

/// Taking a solved ply up builds no node outside its three sets: the drawn
/// set is rebuilt from the ply's states by one three-way split that finds
/// the won and lost sets' own nodes, so a collection right after the take-up
/// frees nothing. The three sets partition the ply's states with the
/// record's counts.
#[test]
fn taking_a_solved_ply_up_builds_only_its_drawn_set() {
    use c4bdd::bdd::Config;
    use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
    use c4bdd::search::SolveCheckpoint;
    let dir = tempfile::tempdir().unwrap();
    let opts = c4bdd::search::ForwardOptions::default();
    solve_5x4_in(dir.path(), &opts, (usize::MAX, Some(12), false), &mut Vec::new()).unwrap();
    let size = c4bdd::game::BoardSize::new(5, 4).unwrap();
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let (_, resume) = SolveCheckpoint::open(dir.path(), &mut space, &opts, false).unwrap();
    let [win, draw, lost] = resume.lowest.expect("the lowest solved ply taken up");
    let record = resume.solved.last().unwrap();
    assert_eq!(record.ply, 12);
    let states = resume.layers[12].expect("its layer loaded");
    let live = space.manager.live_nodes() as u64;
    let report = space.manager.gc(&[]);
    assert_eq!((report.freed, report.live_after), (0, live), "the take-up left no node unreachable");
    let frame = opts.image.frame_of(12);
    let m = &mut space.manager;
    let all = m.or_all(&[win, draw, lost]).unwrap();
    assert_eq!(all, states, "the three sets cover the ply's states");
    for (a, b) in [(win, draw), (win, lost), (draw, lost)] {
        assert_eq!(m.and(a, b).unwrap(), c4bdd::bdd::Bdd::FALSE, "the three sets are disjoint");
    }
    let [w, d, l] = [win, draw, lost].map(|f| space.count(f, frame));
    assert_eq!((w, d, l), (record.won, record.drawn, record.lost), "ply 12: even, the first player to move");
}
