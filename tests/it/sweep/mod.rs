//! `c4bdd sweep` and `c4bdd merge` through the binary: results, shards, jobs,
//! archives and bad specs; resuming and the grid's axes in the submodules.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use c4bdd::experiment::record::{read_rows, PlyRow, RunRow, Status};
use c4bdd::search::TerminalStrategy;

use crate::common::paper_table1;

mod axes;
mod resume;

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn repo_file(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel).display().to_string()
}

fn write_spec(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, format!("name = \"{name}\"\n{body}")).unwrap();
    path
}

fn sweep(spec: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    args.extend(extra);
    c4bdd(&args)
}

/// Write the spec `name` with `body` in `dir`, sweep it into `out` (it must
/// succeed) and return its rows.
fn sweep_rows(dir: &Path, name: &str, body: &str, out: &Path) -> Vec<RunRow> {
    let done = sweep(&write_spec(dir, name, body), out, &[]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    read_rows(&out.join("runs.csv")).unwrap()
}

/// Start a sweep of `spec` into `out` and kill it (SIGKILL) after `delay_ms`.
fn kill_sweep_after(spec: &Path, out: &Path, delay_ms: u64) {
    let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    crate::common::kill_after(&args, delay_ms as f64 / 1000.0);
}

/// Rows without the columns that differ between two runs of the same work.
fn stable_runs(dir: &Path) -> Vec<(String, Option<u128>, u32, u64, Status)> {
    let mut rows: Vec<RunRow> = read_rows(&dir.join("runs.csv")).unwrap();
    rows.sort_by(|a, b| a.run.cmp(&b.run));
    rows.into_iter().map(|r| (r.run, r.positions, r.plies, r.peak_nodes, r.status)).collect()
}

fn stable_plies(dir: &Path) -> Vec<(String, u32, u128, u64)> {
    let mut rows: Vec<PlyRow> = read_rows(&dir.join("plies.csv")).unwrap();
    rows.sort_by(|a, b| (&a.run, a.ply).cmp(&(&b.run, b.ply)));
    rows.into_iter().map(|p| (p.run, p.ply, p.states, p.bdd_nodes)).collect()
}

#[test]
fn smoke_spec_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("smoke");
    let result = sweep(Path::new(&repo_file("experiments/smoke.toml")), &out, &[]);
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(runs.len(), 16, "4 boards x 2 encodings x 2 terminal strategies");
    let table = paper_table1();
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    for r in &runs {
        assert_eq!(r.status, Status::Ok, "{}", r.run);
        assert!(r.peak_rss_bytes > 1 << 20 && r.peak_rss_bytes < 200 << 20, "{}: RSS {}", r.run, r.peak_rss_bytes);
        assert!(r.peak_nodes > 0 && r.time_s >= 0.0 && (0.0..=1.0).contains(&r.gc_share));
        assert!(r.cpu_s.is_some_and(|c| c > 0.0 && c < r.time_s + 5.0), "{}: CPU {:?}", r.run, r.cpu_s);
        assert_eq!(r.plies as u64, r.width as u64 * r.height as u64 + 1);
        let mine: Vec<&PlyRow> = plies.iter().filter(|p| p.run == r.run).collect();
        assert_eq!(mine.len() as u32, r.plies);
        assert_eq!(Some(mine.iter().map(|p| p.states).sum::<u128>()), r.positions, "{}", r.run);
        // Each ply records the process's memory: resident now, and the peak
        // so far, which never falls and agrees with the run's peak as the
        // parent measured it (the kernel batches each thread's page counts,
        // up to 64 pages a thread, so the two accounts differ by a few pages).
        let peaks: Vec<u64> = mine.iter().map(|p| p.peak_rss_bytes.unwrap()).collect();
        assert!(mine.iter().all(|p| p.rss_bytes.is_some_and(|b| b > 1 << 20 && b <= p.peak_rss_bytes.unwrap())));
        assert!(peaks.windows(2).all(|w| w[0] <= w[1]), "{}: {peaks:?}", r.run);
        let last = *peaks.last().unwrap();
        assert!(last.abs_diff(r.peak_rss_bytes) < 1 << 20, "{}: {peaks:?} against {}", r.run, r.peak_rss_bytes);
        // Where the time went: each ply's phases fit in its time, and the
        // run's are their sums; without termination none is spent on it.
        for p in &mine {
            let phases = [p.terminal_s, p.image_s, p.count_s, p.gc_s, p.split_s].map(|s| s.unwrap());
            assert!(phases.iter().all(|&s| s >= 0.0), "{} ply {}: {phases:?}", r.run, p.ply);
            assert!(phases.iter().sum::<f64>() <= p.time_s + 1e-6, "{} ply {}: {phases:?}", r.run, p.ply);
            assert!(r.terminal == TerminalStrategy::Whole || p.terminal_s == Some(0.0), "{} ply {}", r.run, p.ply);
        }
        let total = |f: fn(&PlyRow) -> Option<f64>| mine.iter().map(|p| f(p).unwrap()).sum::<f64>();
        let sums = [
            (r.terminal_s, total(|p| p.terminal_s)),
            (r.image_s, total(|p| p.image_s)),
            (r.split_s, total(|p| p.split_s)),
        ];
        for (run, sum) in sums {
            assert!((run.unwrap() - sum).abs() < 1e-6, "{}: {run:?} against {sum}", r.run);
        }
        assert!(total(|p| p.image_s) > 0.0 && (r.count_s.unwrap() - total(|p| p.count_s)).abs() < 1e-6);
        if r.terminal == TerminalStrategy::Whole {
            let paper = table.iter().find(|(s, _)| s.width == r.width && s.height == r.height).unwrap().1;
            assert_eq!(r.positions, Some(paper), "{} against the paper's Table 1", r.run);
        }
    }
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("meta.json")).unwrap()).unwrap();
    for key in ["commit", "dirty", "rustc"] {
        assert!(meta["revision"][key] != serde_json::Value::Null, "meta.json lacks revision.{key}");
    }
    for key in ["cpu", "cores", "memory_bytes"] {
        assert!(meta["machine"][key] != serde_json::Value::Null, "meta.json lacks machine.{key}");
    }
    assert_eq!(meta["spec"]["name"], "smoke");
    assert!(meta["invocations"][0]["command"].as_array().unwrap().iter().any(|a| a == "sweep"));

    // A rerun skips everything and changes no row.
    let before = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let again = sweep(Path::new(&repo_file("experiments/smoke.toml")), &out, &[]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 runs ran"));
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap(), before);

    // An archive written before the cpu_s (runs.csv), memory (plies.csv)
    // and phase columns existed is upgraded on resume: the columns are added
    // empty and every other value stays.
    let runs_path = out.join("runs.csv");
    let plies_path = out.join("plies.csv");
    drop_columns(&runs_path, &["cpu_s", "terminal_s", "image_s", "count_s", "split_s"]);
    drop_columns(&plies_path, &["rss_bytes", "peak_rss_bytes", "terminal_s", "image_s", "count_s", "gc_s", "split_s"]);
    let upgraded = sweep(Path::new(&repo_file("experiments/smoke.toml")), &out, &[]);
    assert!(upgraded.status.success(), "{}", String::from_utf8_lossy(&upgraded.stderr));
    assert!(String::from_utf8_lossy(&upgraded.stdout).contains("0 runs ran"));
    let after: Vec<RunRow> = read_rows(&runs_path).unwrap();
    assert_eq!(after.len(), runs.len());
    for (a, r) in after.iter().zip(&runs) {
        assert_eq!([a.cpu_s, a.terminal_s, a.image_s, a.count_s, a.split_s], [None; 5], "{}", a.run);
        let restored = RunRow {
            cpu_s: r.cpu_s,
            terminal_s: r.terminal_s,
            image_s: r.image_s,
            count_s: r.count_s,
            split_s: r.split_s,
            ..a.clone()
        };
        assert_eq!(restored, *r);
    }
    let after: Vec<PlyRow> = read_rows(&plies_path).unwrap();
    assert_eq!(after.len(), plies.len());
    for (a, p) in after.iter().zip(&plies) {
        let memory = [a.rss_bytes, a.peak_rss_bytes].map(|b| b.map(|b| b as f64));
        let added = [memory[0], memory[1], a.terminal_s, a.image_s, a.count_s, a.gc_s, a.split_s];
        assert_eq!(added, [None; 7], "{} ply {}", a.run, a.ply);
        let restored = PlyRow {
            rss_bytes: p.rss_bytes,
            peak_rss_bytes: p.peak_rss_bytes,
            terminal_s: p.terminal_s,
            image_s: p.image_s,
            count_s: p.count_s,
            gc_s: p.gc_s,
            split_s: p.split_s,
            ..a.clone()
        };
        assert_eq!(restored, *p);
    }
}

/// Rewrite a CSV file without the given columns (as an older version wrote it).
fn drop_columns(path: &Path, columns: &[&str]) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    let keep: Vec<usize> = (0..header.len()).filter(|&i| !columns.contains(&&header[i])).collect();
    assert_eq!(keep.len() + columns.len(), header.len(), "{} lacks one of {columns:?}", path.display());
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let mut w = csv::Writer::from_path(path).unwrap();
    w.write_record(keep.iter().map(|&i| &header[i])).unwrap();
    for row in &rows {
        w.write_record(keep.iter().map(|&i| &row[i])).unwrap();
    }
    w.flush().unwrap();
}

const RESUME_SPEC: &str = r#"
[grid]
boards = ["4x4", "5x3", "3x5", "5x4", "4x5", "6x3", "3x6"]
encodings = ["compressed", "cellwise"]
terminal = ["whole", "off"]
"#;

#[test]
fn shards_merge_to_the_unsharded_result() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(
        dir.path(),
        "sharded",
        "[grid]\nwidths = [2, 3, 4]\nheights = [3, 4]\nencodings = [\"compressed\", \"cellwise\"]\n",
    );
    let whole = dir.path().join("whole");
    assert!(sweep(&spec, &whole, &[]).status.success());
    let halves: Vec<PathBuf> = (1..=2).map(|i| dir.path().join(format!("half{i}"))).collect();
    for (i, half) in halves.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        assert!(sweep(&spec, half, &["--shard", &shard]).status.success());
        assert!(!stable_runs(half).is_empty() && stable_runs(half).len() < stable_runs(&whole).len());
    }
    let merged = dir.path().join("merged");
    let out =
        c4bdd(&["merge", "--out", merged.to_str().unwrap(), halves[0].to_str().unwrap(), halves[1].to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stable_runs(&merged), stable_runs(&whole));
    assert_eq!(stable_plies(&merged), stable_plies(&whole));
    let twice = c4bdd(&[
        "merge",
        "--out",
        dir.path().join("m2").to_str().unwrap(),
        halves[0].to_str().unwrap(),
        halves[0].to_str().unwrap(),
    ]);
    assert_eq!(twice.status.code(), Some(1), "a run in two sources is refused");
}

#[test]
fn bad_specs_get_one_line_status_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("unknown", "[grid]\nboards = [\"4x4\"]\nwidht = [3]\n", "widht"),
        ("zero", "[grid]\nwidths = [0, 4]\nheights = [4]\n", "grid.widths"),
        ("empty", "[grid]\nboards = [\"4x4\"]\nencodings = []\n", "grid.encodings"),
        ("noboards", "[grid]\nencodings = [\"compressed\"]\n", "grid.boards"),
        ("order", "[grid]\nboards = [\"4x4\"]\norders = [\"spiral\"]\n", "spiral"),
        ("board", "[grid]\nboards = [\"4by4\"]\n", "4by4"),
        ("also", "[grid]\nboards = [\"4x4\"]\n[[also]]\nboards = [\"4x4\"]\nterminal = []\n", "also[1].terminal"),
        (
            "heights",
            "[grid]\nwidths = [4]\nheights = []\n",
            "grid.heights is empty or missing while grid.widths is not",
        ),
    ];
    for (name, body, needle) in cases {
        let spec = write_spec(dir.path(), name, body);
        let out_dir = dir.path().join(format!("out-{name}"));
        let out = sweep(&spec, &out_dir, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&format!("{name}.toml")) && err.contains(needle), "{name}: {err}");
        assert!(!out_dir.exists(), "{name}: nothing may be written");
    }
    let missing = c4bdd(&["sweep", "/no/such/spec.toml", "--results", dir.path().to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/no/such/spec.toml"));
}

#[test]
fn shipped_specs_load_and_table1_covers_the_paper_cheaper_encoding_first() {
    for entry in std::fs::read_dir(repo_file("experiments")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let spec = c4bdd::experiment::ExperimentSpec::load(&path).unwrap();
            assert!(!spec.runs().unwrap().is_empty(), "{}", path.display());
        }
    }
    let spec = c4bdd::experiment::ExperimentSpec::load(Path::new(&repo_file("experiments/table1.toml"))).unwrap();
    let runs = spec.runs().unwrap();
    let mut paper: Vec<(u8, u8)> = paper_table1().iter().map(|(b, _)| (b.width, b.height)).collect();
    paper.sort();
    // Compressed for boards at least as wide as tall, standard (row order) for taller ones.
    let cheaper = |r: &c4bdd::experiment::RunSpec| (r.width >= r.height) == (r.encoding.name() == "compressed");
    let (first, then) = runs.split_at(paper.len());
    assert!(first.iter().all(cheaper) && !then.iter().any(cheaper), "every board in its cheaper encoding first");
    for half in [first, then] {
        assert!(half.iter().all(|r| r.key().ends_with("/paper/count/whole/in-place")));
        let mut boards: Vec<(u8, u8)> = half.iter().map(|r| (r.width, r.height)).collect();
        boards.sort();
        assert_eq!(boards, paper, "every board of the paper's Table 1 once");
    }
}

/// Two runs at once (`--jobs 2`) record the rows of one run at a time, also
/// when killed (-9) and resumed; a second sweep into a directory that is being
/// written (by a sweep that is stopped meanwhile) is refused and changes nothing.
#[test]
fn jobs_at_once_record_the_rows_of_one_at_a_time_and_lock_their_directory() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "jobs", RESUME_SPEC);
    let one = dir.path().join("one");
    assert!(sweep(&spec, &one, &[]).status.success());
    let two = dir.path().join("two");
    let args = ["sweep", spec.to_str().unwrap(), "--out", two.to_str().unwrap(), "--quiet", "--jobs", "2"];
    let mut running = Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).spawn().unwrap();
    let rows = || std::fs::read_to_string(two.join("runs.csv")).map_or(0, |t| t.lines().count().saturating_sub(1));
    while rows() < 2 && running.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(2));
    }
    // Stopped (it keeps its lock) so that it cannot finish while the second
    // sweep starts, then killed.
    // SAFETY: a signal to a child process this test spawned and has not reaped.
    assert_eq!(unsafe { libc::kill(running.id() as libc::pid_t, libc::SIGSTOP) }, 0);
    let before = std::fs::read_to_string(two.join("runs.csv")).unwrap();
    let second = sweep(&spec, &two, &[]);
    let err = String::from_utf8_lossy(&second.stderr);
    running.kill().unwrap();
    running.wait().unwrap();
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains("another sweep") && err.contains(two.to_str().unwrap()), "{err}");
    assert!(err.contains(&format!("pid {}", running.id())), "the holder is named: {err}");
    let after = std::fs::read_to_string(two.join("runs.csv")).unwrap();
    assert!(after.starts_with(&before), "the refused sweep wrote nothing");
    assert!(stable_runs(&two).len() < stable_runs(&one).len(), "the sweep was killed before its end");
    let resumed = sweep(&spec, &two, &["--jobs", "2"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert!(!one.join("sweep.lock").exists() && !two.join("sweep.lock").exists(), "a finished sweep leaves no lock");
    assert_eq!(stable_runs(&two), stable_runs(&one));
    assert_eq!(stable_plies(&two), stable_plies(&one));
}

/// Runs at once whose memory limits add up to more than the machine has get
/// a warning (the sweep still runs them).
#[test]
fn jobs_over_the_machine_memory_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"3x3\", \"4x3\"]\n[limits]\nmemory_bytes = 1e15\n";
    let spec = write_spec(dir.path(), "big", body);
    let two = sweep(&spec, &dir.path().join("two"), &["--jobs", "2"]);
    let err = String::from_utf8_lossy(&two.stderr);
    assert!(two.status.success(), "{err}");
    assert!(err.contains("warning: 2 jobs") && err.contains("1000000.0 GB"), "{err}");
    assert_eq!(stable_runs(&dir.path().join("two")).len(), 2);
    let one = sweep(&spec, &dir.path().join("one"), &[]);
    assert!(one.status.success() && one.stderr.is_empty(), "one job at a time: no warning");
}

#[test]
fn a_sweep_records_the_size_of_all_plies_in_one_bdd() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results/fb/one");
    let body = "[grid]\nboards = [\"4x4\"]\nencodings = [\"compressed\", \"cellwise\"]\norders = [\"column-wise\"]\nfull_bdd = true\n";
    let rows = sweep_rows(dir.path(), "fb", body, &out);
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert!(r.run.ends_with("/full-bdd") && r.status == Status::Ok, "{}", r.run);
        // The same figure as `count --full-bdd` prints for the run.
        let enc = r.encoding.to_string();
        let args = ["count", "-W", "4", "-H", "4", "--order", "column-wise", "--encoding", &enc, "--full-bdd"];
        let text = String::from_utf8(c4bdd(&args).stdout).unwrap();
        let want = format!(
            "all positions in one BDD: {} nodes, {} positions",
            r.full_bdd_nodes.unwrap(),
            r.positions.unwrap()
        );
        assert!(text.contains(&want), "{want}: {text}");
    }
    let nodes: Vec<u64> = rows.iter().map(|r| r.full_bdd_nodes.unwrap()).collect();
    assert_ne!(nodes[0], nodes[1], "the encodings' BDDs differ in size");
    let spec = write_spec(dir.path(), "fbck", &format!("checkpoints = true\n{body}"));
    let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
    assert!(err.contains("grid.full_bdd"), "{err}");
}

/// With `solutions = true` each solve keeps its solution in the sweep's
/// `solution/` folder (beside its checkpoint), and that solution answers
/// every position like the explicit solver; counts keep none.
#[test]
fn a_sweep_keeps_the_solutions_of_its_solves() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results/sol/one");
    let body = "checkpoints = true\nsolutions = true\n[grid]\nboards = [\"4x4\"]\npasses = [\"solve\", \"count\"]\n";
    let rows = sweep_rows(dir.path(), "sol", body, &out);
    assert!(rows.len() == 2 && rows.iter().all(|r| r.status == Status::Ok));
    let kept: Vec<String> =
        out.join("solution").read_dir().unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert_eq!(kept, ["4x4_compressed_paper_solve_whole_in-place"]);
    let size = c4bdd::game::BoardSize::new(4, 4).unwrap();
    let explicit = c4bdd::game::explicit::ExplicitSolution::solve(size).unwrap();
    let mut solution = c4bdd::search::Solution::open(&out.join("solution").join(&kept[0])).unwrap();
    let mut checked = 0;
    for ply in 0..=size.cells() {
        for p in explicit.positions(ply) {
            assert_eq!(solution.outcome(&p).unwrap(), explicit.outcome(&p).unwrap(), "ply {ply}");
            checked += 1;
        }
    }
    assert!(checked > 100_000, "{checked} positions checked");
    assert!(out.join("checkpoints").read_dir().map_or(true, |mut d| d.next().is_none()), "checkpoints are removed");
}

#[test]
fn bad_specs_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let cases = [
        ("name = \"orders\"\n[grid]\nboards = [\"4x4\"]\norders = [\"columns:1,1,2\"]\n", "columns:1,1,2"),
        ("name = \"../../escape\"\n[grid]\nboards = [\"4x4\"]\n", "'../../escape'"),
        ("name = \"/abs\"\n[grid]\nboards = [\"4x4\"]\n", "'/abs'"),
        ("name = \"a/b\"\n[grid]\nboards = [\"4x4\"]\n", "'a/b'"),
        ("name = \"x\"\n[grid]\nboards = [\"4x4\"]\n[limits]\nmemory_bytes = 5e6\n", "memory_bytes: 5000000 must be"),
        ("name = \"x\"\n[grid]\nboards = [\"4x4\"]\n[limits]\nmemory_bytes = inf\n", "memory_bytes: inf must be"),
        ("name = \"x\"\n[grid]\nboards = [\"4x4\"]\n[limits]\ntime_s = inf\n", "time_s: inf must be"),
        // TOML errors name the line of the offending key, not of its table's header.
        ("name = \"x\"\n[grid]\nboards = [\"4x4\"]\nbogus = 3\n", "line 4: unknown field `bogus`"),
        ("name = \"x\"\n[grid]\nboards = [\"4x4\"]\n[limits]\ntime_s = 3\ntime_s = 4\n", "line 6: duplicate key"),
    ];
    for (body, needle) in cases {
        let spec = dir.path().join("spec.toml");
        std::fs::write(&spec, body).unwrap();
        let out = c4bdd(&["sweep", spec.to_str().unwrap(), "--results", results.to_str().unwrap(), "--quiet"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{body}: {err}");
        assert!(err.contains(needle) && err.trim_end().lines().count() == 1, "{body}: {err}");
        assert!(!results.exists(), "{body}: nothing is written");
        assert!(!dir.path().join("escape").exists() && !Path::new("/abs").exists());
    }
}

/// `sweep SPEC --report` writes the report of the spec's archives
/// (results/NAME/) into plots/NAME/ and leaves the project's whole report
/// (plots/*, paper-repro.md) alone.
#[test]
fn a_sweep_reports_its_own_archives_beside_the_project_report() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference");
    std::fs::create_dir(&reference).unwrap();
    for file in ["paper-table1.csv", "paper-table2-7x6.csv", "paper-solves.csv"] {
        std::fs::copy(repo_file(&format!("reference/{file}")), reference.join(file)).unwrap();
    }
    let spec = write_spec(dir.path(), "tiny", "[grid]\nboards = [\"3x3\", \"4x3\"]\n");
    // `sweep SPEC --report ARGS` in the folder: its report is in plots/tiny.
    let report = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_c4bdd"))
            .args(["sweep", spec.to_str().unwrap(), "--report", "--quiet"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("files written in plots/tiny"), "{args:?}: {stdout}");
    };
    report(&[]);
    let table = std::fs::read_to_string(dir.path().join("plots/tiny/table1.md")).unwrap();
    let row: Vec<&str> = table.lines().find(|l| l.starts_with("| 4x3 |")).unwrap().split(" | ").collect();
    assert_eq!((row[1], row[3]), (row[2], "yes"), "4x3 counted, equal to the paper's row: {row:?}");
    let readme = std::fs::read_to_string(dir.path().join("plots/tiny/README.md")).unwrap();
    assert!(readme.contains("results/tiny") && readme.contains("`c4bdd report`"), "{readme}");
    assert!(!dir.path().join("paper-repro.md").exists() && !dir.path().join("plots/README.md").exists());

    // With --out the archive is that folder alone; the report is still named after the spec.
    report(&["--out", "elsewhere/run1"]);
    assert!(!dir.path().join("plots/run1").exists() && !dir.path().join("plots/elsewhere").exists());
}
