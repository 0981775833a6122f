//! `count --checkpoint`: killed at random moments, a rerun finishes with the
//! same rows as an uninterrupted count; damaged checkpoints are refused.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
        let mut child = Command::new(env!("CARGO_BIN_EXE_c4bdd"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs_f64(full.as_secs_f64() * fraction));
        child.kill().unwrap();
        child.wait().unwrap();
        let out = c4bdd(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        resumed_any |= String::from_utf8_lossy(&out.stdout).contains("resumed from the checkpoint");
        assert_eq!(rows(&csv), want, "kill at {fraction} of the run");
    }
    assert!(resumed_any, "at least one kill came after a finished ply");
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
