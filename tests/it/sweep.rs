//! `c4bdd sweep` and `c4bdd merge` through the binary: results, resume after
//! kill -9, limits, shards, and bad specs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use c4bdd::experiment::record::{read_rows, PlyRow, RunRow, Status};
use c4bdd::search::TerminalStrategy;

use crate::common::paper_table1;

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
fn kill_9_and_resume_gives_the_uninterrupted_rows() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "resume", RESUME_SPEC);
    let reference = dir.path().join("reference");
    assert!(sweep(&spec, &reference, &[]).status.success());
    let lines = |d: &Path, file: &str| std::fs::read_to_string(d.join(file)).map_or(0, |t| t.lines().count());
    let total = lines(&reference, "plies.csv");
    // Kill points spread over the sweep by its progress (ply rows written,
    // whatever the machine's speed), each wherever the poll finds it.
    for (i, (num, den)) in [(1, 20), (1, 5), (2, 5), (3, 5)].into_iter().enumerate() {
        let at = total * num / den;
        let out = dir.path().join(format!("killed{i}"));
        let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
        crate::common::kill_when(&args, || lines(&out, "plies.csv") >= at, 120.0);
        let finished = lines(&out, "runs.csv").saturating_sub(1);
        assert!(finished < stable_runs(&reference).len(), "the kill at {at} ply rows came after the sweep ended");
        let resumed = sweep(&spec, &out, &[]);
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        assert_eq!(stable_runs(&out), stable_runs(&reference), "runs after a kill at {at} ply rows");
        assert_eq!(stable_plies(&out), stable_plies(&reference), "plies after a kill at {at} ply rows");
    }
}

#[test]
fn limits_are_recorded_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "limits", "[grid]\nboards = [\"5x4\", \"3x3\"]\n[limits]\nmax_nodes = 20000\n");
    let out = dir.path().join("out");
    assert!(sweep(&spec, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].status, Status::NodeLimit, "{:?}", runs[0]);
    assert!(runs[0].message.contains("20000") && runs[0].positions.is_none() && runs[0].plies > 0);
    assert_eq!(runs[0].max_nodes, 20000);
    assert_eq!(runs[1].status, Status::Ok);
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    assert_eq!(plies.iter().filter(|p| p.run == runs[0].run).count() as u32, runs[0].plies);

    let spec = write_spec(dir.path(), "slow", "[grid]\nboards = [\"6x5\", \"3x3\"]\n[limits]\ntime_s = 1.5\n");
    let out = dir.path().join("slow");
    assert!(sweep(&spec, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(runs[0].status, Status::TimeLimit, "{:?}", runs[0]);
    assert!(runs[0].time_s < 10.0);
    assert_eq!(runs[1].status, Status::Ok);
}

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
fn a_directory_with_other_columns_is_not_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "schema", "[grid]\nboards = [\"3x3\"]\n");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let old = "run,width,height\n3x3/x,3,3\n";
    std::fs::write(out.join("runs.csv"), old).unwrap();
    let result = sweep(&spec, &out, &[]);
    assert_ne!(result.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&result.stderr).contains("other columns"));
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap(), old, "the file is left as it was");
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
fn further_grids_append_their_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"4x4\", \"5x3\"]\n[[also]]\nboards = [\"4x4\"]\nencodings = [\"cellwise\"]\n\
                [[also]]\nboards = [\"4x4\"]\npasses = [\"solve\", \"count\"]\n";
    let spec = c4bdd::experiment::ExperimentSpec::load(&write_spec(dir.path(), "grids", body)).unwrap();
    let keys: Vec<String> = spec.runs().unwrap().iter().map(|r| r.key()).collect();
    assert_eq!(
        keys,
        [
            "4x4/compressed/paper/count/whole/in-place",
            "5x3/compressed/paper/count/whole/in-place",
            "4x4/cellwise/paper/count/whole/in-place",
            "4x4/compressed/paper/solve/whole/in-place",
        ]
    );
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

/// Threads are a grid axis: both runs count the same positions ply by ply,
/// each row records its threads, and a bad thread count names the key.
/// Without `[manager]` settings, counts and solves take their own defaults
/// for the collection threshold and the cache's floor, recorded in their rows.
#[test]
fn threads_are_a_grid_axis_recorded_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"5x4\"]\npasses = [\"count\", \"solve\"]\nthreads = [1, 2]\n";
    let out = dir.path().join("out");
    let rows = sweep_rows(dir.path(), "threads", body, &out);
    let keys: Vec<(&str, Option<u64>)> = rows.iter().map(|r| (r.run.as_str(), r.threads)).collect();
    assert_eq!(
        keys,
        [
            ("5x4/compressed/paper/count/whole/in-place", Some(1)),
            ("5x4/compressed/paper/count/whole/in-place/2-threads", Some(2)),
            ("5x4/compressed/paper/solve/whole/in-place", Some(1)),
            ("5x4/compressed/paper/solve/whole/in-place/2-threads", Some(2)),
        ]
    );
    assert!(rows.iter().all(|r| r.status == Status::Ok && r.positions == rows[0].positions));
    assert_eq!(rows[2].value, rows[3].value);
    let defaults: Vec<(u64, Option<u64>)> = rows.iter().map(|r| (r.gc_min_live, r.min_cache_entries)).collect();
    let for_count = c4bdd::bdd::Config::for_count();
    let count = (for_count.gc_min_live as u64, Some(for_count.min_cache_entries as u64));
    let solve = (c4bdd::bdd::Config::default().gc_min_live as u64, Some(256));
    assert_eq!(defaults, [count, count, solve, solve]);
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    let of = |run: &str| -> Vec<(u32, u128, Option<u128>)> {
        plies.iter().filter(|p| p.run == run).map(|p| (p.ply, p.states, p.won)).collect()
    };
    assert_eq!(of(&rows[0].run), of(&rows[1].run));
    assert_eq!(of(&rows[2].run), of(&rows[3].run));
    let bad = "[grid]\nboards = [\"4x4\"]\nthreads = [0]\n";
    let err = c4bdd::experiment::ExperimentSpec::load(&write_spec(dir.path(), "bad", bad)).unwrap_err().to_string();
    assert!(err.contains("bad.toml") && err.contains("grid.threads") && err.contains('0'), "{err}");
}

/// The cache ratio, the GC growth factor, the cap and floor on cache
/// entries and what collections do with the cache are grid axes too
/// (collections run: the spec's threshold is low): each value
/// is a run named in its key and recorded in its row, every run counts the
/// same positions, a spec without them keeps its keys, and a bad value names
/// the grid and the key.
#[test]
fn manager_settings_are_grid_axes_named_in_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        "[grid]\nboards = [\"5x4\"]\ncache_ratio = [1, 4]\n\n[[also]]\nboards = [\"4x4\"]\ngc_growth = [1.5]\n\n\
                [[also]]\nboards = [\"4x4\"]\n\n[[also]]\nboards = [\"4x4\"]\nmax_cache_entries = [256, 1024]\n\n\
                [[also]]\nboards = [\"4x4\"]\ngc_cache = [\"keep\", \"clear\"]\n\n\
                [[also]]\nboards = [\"4x4\"]\nmin_cache_entries = [256, 65536]\n\n\
                [manager]\ncache_ratio = 2\ngc_min_live = 1000\n";
    let out = dir.path().join("out");
    let rows = sweep_rows(dir.path(), "manager_axes", body, &out);
    // (key, cache ratio, GC growth, cap on cache entries, GC cache, floor on cache entries)
    use c4bdd::bdd::GcCache;
    type Settings<'a> = (&'a str, u64, f64, Option<u64>, Option<GcCache>, Option<u64>);
    let keys: Vec<Settings> = rows
        .iter()
        .map(|r| (r.run.as_str(), r.cache_ratio, r.gc_growth, r.max_cache_entries, r.gc_cache, r.min_cache_entries))
        .collect();
    let default_cap = Some(c4bdd::bdd::Config::default().max_cache_entries as u64);
    let floor = Some(c4bdd::bdd::COUNT_MIN_CACHE_ENTRIES as u64);
    let keep = Some(GcCache::Keep);
    assert_eq!(
        keys,
        [
            ("5x4/compressed/paper/count/whole/in-place/cache-1", 1, 2.0, default_cap, keep, floor),
            ("5x4/compressed/paper/count/whole/in-place/cache-4", 4, 2.0, default_cap, keep, floor),
            ("4x4/compressed/paper/count/whole/in-place/gc-1.5", 2, 1.5, default_cap, keep, floor),
            ("4x4/compressed/paper/count/whole/in-place", 2, 2.0, default_cap, keep, floor),
            ("4x4/compressed/paper/count/whole/in-place/max-cache-256", 2, 2.0, Some(256), keep, floor),
            ("4x4/compressed/paper/count/whole/in-place/max-cache-1024", 2, 2.0, Some(1024), keep, floor),
            ("4x4/compressed/paper/count/whole/in-place/gc-cache-keep", 2, 2.0, default_cap, keep, floor),
            (
                "4x4/compressed/paper/count/whole/in-place/gc-cache-clear",
                2,
                2.0,
                default_cap,
                Some(GcCache::Clear),
                floor
            ),
            ("4x4/compressed/paper/count/whole/in-place/min-cache-256", 2, 2.0, default_cap, keep, Some(256)),
            ("4x4/compressed/paper/count/whole/in-place/min-cache-65536", 2, 2.0, default_cap, keep, Some(65536)),
        ]
    );
    assert!(rows.iter().all(|r| r.status == Status::Ok));
    assert_eq!(rows[0].positions, rows[1].positions);
    assert!(rows[2..].iter().all(|r| r.positions == rows[2].positions));
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    let of =
        |run: &str| -> Vec<(u32, u128)> { plies.iter().filter(|p| p.run == run).map(|p| (p.ply, p.states)).collect() };
    assert_eq!(of(&rows[0].run), of(&rows[1].run));
    let board = "[grid]\nboards = [\"4x4\"]\n";
    for (bad, key) in [
        (format!("{board}cache_ratio = [0]"), "grid.cache_ratio"),
        (format!("{board}gc_growth = [0.5]"), "grid.gc_growth"),
        (format!("{board}max_cache_entries = [1000]"), "grid.max_cache_entries: 1000"),
        (format!("{board}max_cache_entries = [128]"), "grid.max_cache_entries: 128"),
        (format!("{board}[manager]\nmax_cache_entries = 3"), "manager.max_cache_entries: 3"),
        (format!("{board}min_cache_entries = [1000]"), "grid.min_cache_entries: 1000"),
        (format!("{board}[manager]\nmin_cache_entries = 0"), "manager.min_cache_entries: 0"),
        (format!("{board}gc_cache = [\"drop\"]"), "drop"),
    ] {
        let spec = write_spec(dir.path(), "bad", &format!("{bad}\n"));
        let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
        assert!(err.contains("bad.toml") && err.contains(key), "{err}");
    }
}

/// The three-way split table's size is an axis of solves: each ratio is a
/// run named in its key, recorded in its row, and every ratio solves each
/// ply alike (the same won, drawn and lost positions and BDD nodes); a bad
/// ratio names the key.
#[test]
fn the_split_table_ratio_is_an_axis_that_changes_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"5x4\"]\npasses = [\"solve\"]\nsplit3_cache_ratio = [1, 1024]\n";
    let out = dir.path().join("out");
    let rows = sweep_rows(dir.path(), "split3_axis", body, &out);
    let keys: Vec<(&str, Option<u64>)> = rows.iter().map(|r| (r.run.as_str(), r.split3_cache_ratio)).collect();
    assert_eq!(
        keys,
        [
            ("5x4/compressed/paper/solve/whole/in-place/split3-cache-1", Some(1)),
            ("5x4/compressed/paper/solve/whole/in-place/split3-cache-1024", Some(1024)),
        ]
    );
    assert!(rows.iter().all(|r| r.status == Status::Ok && r.value == rows[0].value && r.value.is_some()));
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    type Solved = (u32, u128, u64, Option<u128>, Option<u128>, Option<u128>);
    let of = |run: &str| -> Vec<Solved> {
        plies.iter().filter(|p| p.run == run).map(|p| (p.ply, p.states, p.bdd_nodes, p.won, p.drawn, p.lost)).collect()
    };
    assert_eq!(of(&rows[0].run).len(), 21);
    assert_eq!(of(&rows[0].run), of(&rows[1].run));
    for (bad, key) in [
        ("split3_cache_ratio = [0]", "grid.split3_cache_ratio: 0"),
        ("[manager]\nsplit3_cache_ratio = 2000", "manager.split3_cache_ratio: 2000"),
    ] {
        let spec = write_spec(dir.path(), "bad", &format!("[grid]\nboards = [\"4x4\"]\n{bad}\n"));
        let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
        assert!(err.contains("bad.toml") && err.contains(key), "{err}");
    }
}

#[test]
fn repeats_run_the_list_round_after_round_and_the_report_compares_settings() {
    let dir = tempfile::tempdir().unwrap();
    let body = "repeats = 2\n[grid]\nboards = [\"4x4\"]\nmax_cache_entries = [256, 67108864]\n";
    let out = dir.path().join("results/rep/one");
    let rows = sweep_rows(dir.path(), "rep", body, &out);
    let base = "4x4/compressed/paper/count/whole/in-place/max-cache-";
    let keys: Vec<String> = rows.iter().map(|r| r.run.clone()).collect();
    let want = ["256", "67108864", "256/repeat-2", "67108864/repeat-2"].map(|k| format!("{base}{k}"));
    assert_eq!(keys, want);
    assert!(rows.iter().all(|r| r.status == Status::Ok && r.positions == rows[0].positions));

    // The report groups the four runs by setting: two rows of two runs each.
    let plots = dir.path().join("plots");
    let report = Command::new(env!("CARGO_BIN_EXE_c4bdd"))
        .args(["report", "--results", dir.path().join("results").to_str().unwrap()])
        .args(["--plots", plots.to_str().unwrap(), "--repro", dir.path().join("repro.md").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let text = std::fs::read_to_string(plots.join("settings.md")).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("| rep/one | 4x4 |")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("| 256 |") && lines[1].contains("| 67108864 |"), "{text}");
    assert!(lines.iter().all(|l| l.contains("| 2 |") && l.ends_with("| yes |")), "{text}");

    for bad in ["repeats = 0", "repeats = 101"] {
        let spec = write_spec(dir.path(), "bad", &format!("{bad}\n[grid]\nboards = [\"4x4\"]\n"));
        let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
        assert!(err.contains("bad.toml") && err.contains("repeats"), "{err}");
    }
}

#[test]
fn all_column_orders_expand_per_board_up_to_mirror_image() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"4x3\", \"3x3\"]\norders = [\"columns:all\", \"paper\"]\n";
    let spec = c4bdd::experiment::ExperimentSpec::load(&write_spec(dir.path(), "perms", body)).unwrap();
    let orders: Vec<String> =
        spec.runs().unwrap().iter().map(|r| format!("{}x{} {}", r.width, r.height, r.order)).collect();
    // 4!/2 = 12 orders for 4 columns, 3!/2 = 3 for 3, each board also with "paper".
    assert_eq!(orders.len(), 12 + 1 + 3 + 1, "{orders:?}");
    assert_eq!(orders[0], "4x3 columns:1,2,3,4");
    assert!(
        orders.contains(&"4x3 columns:2,1,3,4".to_string()) && !orders.contains(&"4x3 columns:3,4,2,1".to_string())
    );
    assert_eq!(orders[13..], ["3x3 columns:1,2,3", "3x3 columns:1,3,2", "3x3 columns:2,1,3", "3x3 paper"]);
    let wide = "[grid]\nboards = [\"9x2\"]\norders = [\"columns:all\"]\n";
    let err = c4bdd::experiment::ExperimentSpec::load(&write_spec(dir.path(), "wide", wide)).unwrap_err().to_string();
    assert!(err.contains("wide.toml") && err.contains("grid.orders") && err.contains("9x2"), "{err}");
}

#[test]
fn a_full_disk_stops_the_sweep_clearly_and_loses_no_finished_row() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "full", RESUME_SPEC);
    let reference = dir.path().join("reference");
    assert!(sweep(&spec, &reference, &[]).status.success());
    let limit = (std::fs::metadata(reference.join("plies.csv")).unwrap().len() / 3).max(8192);
    let out = dir.path().join("out");
    let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let stopped = crate::common::c4bdd_with_limit(&args, libc::RLIMIT_FSIZE, limit);
    let err = String::from_utf8_lossy(&stopped.stderr);
    assert!(!stopped.status.success(), "the sweep must fail when its files cannot grow");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("plies.csv") && err.contains("too large"), "{err}");
    // What was written is whole rows of the uninterrupted sweep...
    let partial: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    let want = stable_runs(&reference);
    for r in &partial {
        assert!(want.contains(&(r.run.clone(), r.positions, r.plies, r.peak_nodes, r.status)), "{}", r.run);
    }
    // ...and a rerun with room finishes with exactly its rows.
    assert!(sweep(&spec, &out, &[]).status.success());
    assert_eq!(stable_runs(&out), want);
    assert_eq!(stable_plies(&out), stable_plies(&reference));

    // A --csv file on a full disk: a clear error before any work (its header
    // is flushed first), not a panic, and not exit status 2 (invalid input).
    for cmd in [["count", "-W", "4", "-H", "4"], ["solve", "-W", "4", "-H", "4"]] {
        let run = c4bdd(&[&cmd[..], &["--csv", "/dev/full"]].concat());
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{cmd:?}: {err}");
        assert!(err.contains("--csv file /dev/full") && err.trim_end().lines().count() == 1, "{cmd:?}: {err}");
    }
}

#[test]
fn runs_with_checkpoints_resume_inside_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let body = "checkpoints = true\n[grid]\nboards = [\"5x5\"]\n[[also]]\nboards = [\"5x4\"]\npasses = [\"solve\"]\n";
    let spec = write_spec(dir.path(), "ck", body);
    let reference = dir.path().join("reference");
    let started = std::time::Instant::now();
    assert!(sweep(&spec, &reference, &[]).status.success());
    let full_ms = started.elapsed().as_millis() as u64;
    assert!(!reference.join("checkpoints").join("5x5_compressed_paper_count_whole_in-place").exists());
    // Rows without what depends on which process did the work (times, peaks).
    let rows = |d: &Path| -> Vec<RunRow> {
        let mut rows: Vec<RunRow> = read_rows(&d.join("runs.csv")).unwrap();
        rows.sort_by(|a, b| a.run.cmp(&b.run));
        // Every ply of a resumed run has its phases, whichever process did it.
        assert!(rows.iter().all(|r| r.image_s.is_some() && r.terminal_s.is_some() && r.count_s.is_some()));
        let clear = |r: RunRow| RunRow {
            time_s: 0.0,
            cpu_s: None,
            gc_share: 0.0,
            peak_rss_bytes: 0,
            peak_nodes: 0,
            terminal_s: None,
            image_s: None,
            count_s: None,
            split_s: None,
            // The model of the last process's peak nodes.
            model_bytes: None,
            ..r
        };
        rows.into_iter().map(clear).collect()
    };
    let mut took_up = 0;
    // Kills as soon as the count, then the solve, has saved a ply (whatever
    // the machine's load), and once at a fixed moment.
    let saved = [
        "5x5_compressed_paper_count_whole_in-place/checkpoint.json",
        "5x4_compressed_paper_solve_whole_in-place/solve-checkpoint.json",
        "",
    ];
    for (i, file) in saved.into_iter().enumerate() {
        let out = dir.path().join(format!("killed{i}"));
        let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
        let delay_ms = if file.is_empty() { full_ms * 3 / 4 } else { 0 };
        let marker = out.join("checkpoints").join(file);
        if file.is_empty() {
            kill_sweep_after(&spec, &out, delay_ms);
        } else {
            crate::common::kill_when(&args, || marker.exists(), 60.0);
        }
        // The worker may outlive its parent for a moment; let it go first.
        std::thread::sleep(Duration::from_millis(200));
        took_up += out.join("checkpoints").read_dir().is_ok_and(|mut d| d.next().is_some()) as u32;
        if !file.is_empty() {
            // --list shows what the killed run's checkpoint holds, and writes nothing.
            let before = std::fs::read_to_string(out.join("plies.csv")).unwrap();
            let listed = c4bdd(&["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list"]);
            let text = String::from_utf8_lossy(&listed.stdout);
            let (key, holds) = match i {
                0 => ("5x5/compressed/paper/count/whole/in-place", "plies counted)"),
                _ => ("5x4/compressed/paper/solve/whole/in-place", "plies solved)"),
            };
            let line = text.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key} not listed: {text}"));
            assert!(line.contains("pending (checkpoint: ") && line.ends_with(holds), "{line}");
            assert_eq!(std::fs::read_to_string(out.join("plies.csv")).unwrap(), before);
        }
        let resumed = sweep(&spec, &out, &[]);
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        assert_eq!(rows(&out), rows(&reference), "runs after kill {i}");
        assert_eq!(stable_plies(&out), stable_plies(&reference), "plies after kill {i}");
        assert!(out.join("checkpoints").read_dir().map_or(true, |mut d| d.next().is_none()), "checkpoints are removed");
    }
    assert!(took_up >= 2, "only {took_up} of 3 kills left a checkpoint to take up");
}

#[test]
fn a_run_stopped_by_a_limit_keeps_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let body = "checkpoints = true\n[grid]\nboards = [\"5x4\", \"3x3\"]\n[limits]\nmax_nodes = 20000\n";
    let spec = write_spec(dir.path(), "kept", body);
    let out = dir.path().join("out");
    assert!(sweep(&spec, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!((runs[0].status, runs[1].status), (Status::NodeLimit, Status::Ok));
    let kept = out.join("checkpoints").join(runs[0].run.replace('/', "_"));
    assert!(kept.join("checkpoint.json").exists(), "the stopped run's finished plies stay");
    let finished = out.join("checkpoints").join(runs[1].run.replace('/', "_"));
    assert!(!finished.exists(), "a finished run's go");
    // A sweep stopped after recording a run but before removing its
    // checkpoint left one behind: the next sweep removes it, and only it.
    std::fs::create_dir_all(&finished).unwrap();
    std::fs::write(finished.join("checkpoint.json"), "{}").unwrap();
    assert!(sweep(&spec, &out, &[]).status.success());
    assert!(!finished.exists(), "a finished run's leftover checkpoint is removed");
    assert!(kept.join("checkpoint.json").exists(), "the stopped run's checkpoint stays");
    assert_eq!(read_rows::<RunRow>(&out.join("runs.csv")).unwrap().len(), 2, "nothing ran again");
}

/// `--retry` runs a run that a limit stopped again: it continues from its
/// checkpoint under the spec's limits as they are now (its first plies are the
/// stopped run's own rows, to the time) and ends with the rows of a sweep never
/// stopped; a finished run is not run again, and without `--retry` nothing is.
#[test]
fn retry_continues_a_run_stopped_by_a_limit_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let grid = "checkpoints = true\n[grid]\nboards = [\"5x4\", \"3x3\"]\n";
    let reference = dir.path().join("reference");
    assert!(sweep(&write_spec(dir.path(), "open", grid), &reference, &[]).status.success());
    let out = dir.path().join("out");
    let limited = write_spec(dir.path(), "limited", &format!("{grid}[limits]\nmax_nodes = 20000\n"));
    assert!(sweep(&limited, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!((runs[0].status, runs[1].status), (Status::NodeLimit, Status::Ok));
    let (stopped, finished) = (runs[0].clone(), runs[1].clone());
    let plies = |d: &Path, run: &str| -> Vec<PlyRow> {
        read_rows::<PlyRow>(&d.join("plies.csv")).unwrap().into_iter().filter(|p| p.run == run).collect()
    };
    let before = plies(&out, &stopped.run);
    assert!(!before.is_empty() && before.len() == stopped.plies as usize, "{} plies before the stop", before.len());

    // --list names the stopped run's checkpoint and how to continue it.
    let listed = c4bdd(&["sweep", limited.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    let line = text.lines().find(|l| l.starts_with(&stopped.run)).unwrap_or_else(|| panic!("not listed: {text}"));
    let held = format!("node-limit after {} plies", stopped.plies);
    assert!(line.contains(&held) && line.ends_with("plies counted; --retry continues it)"), "{line}");

    // The spec without the limit, in the same directory: nothing runs without --retry.
    let open = write_spec(dir.path(), "limited", grid);
    assert!(sweep(&open, &out, &[]).status.success());
    assert_eq!(read_rows::<RunRow>(&out.join("runs.csv")).unwrap()[0].status, Status::NodeLimit);
    let retried = sweep(&open, &out, &["--retry"]);
    assert!(retried.status.success(), "{}", String::from_utf8_lossy(&retried.stderr));

    // The peak nodes are the last process's: they are not compared.
    let results =
        |d: &Path| stable_runs(d).into_iter().map(|(run, n, plies, _, s)| (run, n, plies, s)).collect::<Vec<_>>();
    assert_eq!(results(&out), results(&reference));
    assert_eq!(stable_plies(&out), stable_plies(&reference));
    let after: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    let again = after.iter().find(|r| r.run == stopped.run).unwrap();
    assert_eq!(again.max_nodes, read_rows::<RunRow>(&reference.join("runs.csv")).unwrap()[0].max_nodes);
    let resumed = plies(&out, &stopped.run);
    for (b, a) in before.iter().zip(&resumed) {
        assert_eq!((b.ply, b.time_s, b.bdd_nodes), (a.ply, a.time_s, a.bdd_nodes), "ply {} is the checkpoint's", b.ply);
    }
    let kept = after.iter().find(|r| r.run == finished.run).unwrap();
    assert_eq!(kept.time_s, finished.time_s, "the finished run was not run again");
    assert!(!out.join("checkpoints").join(stopped.run.replace('/', "_")).exists(), "a finished run's checkpoint goes");
    // --retry with --list is refused: listing writes nothing.
    let listed = c4bdd(&["sweep", open.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list", "--retry"]);
    assert_eq!(listed.status.code(), Some(2));
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
    let after = std::fs::read_to_string(two.join("runs.csv")).unwrap();
    assert!(after.starts_with(&before), "the refused sweep wrote nothing");
    assert!(stable_runs(&two).len() < stable_runs(&one).len(), "the sweep was killed before its end");
    let resumed = sweep(&spec, &two, &["--jobs", "2"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert_eq!(stable_runs(&two), stable_runs(&one));
    assert_eq!(stable_plies(&two), stable_plies(&one));
}

/// `--boards` runs only the spec's runs of those boards; a board the spec
/// lacks is an input error that writes nothing.
#[test]
fn boards_select_the_runs_of_a_spec() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"4x4\", \"5x3\", \"3x3\"]\nencodings = [\"compressed\", \"cellwise\"]\n";
    let spec = write_spec(dir.path(), "some", body);
    let out = dir.path().join("out");
    let done = sweep(&spec, &out, &["--boards", "3x3,4x4"]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let runs: Vec<String> = stable_runs(&out).into_iter().map(|r| r.0).collect();
    assert_eq!(
        runs,
        [
            "3x3/cellwise/paper/count/whole/in-place",
            "3x3/compressed/paper/count/whole/in-place",
            "4x4/cellwise/paper/count/whole/in-place",
            "4x4/compressed/paper/count/whole/in-place",
        ]
    );
    // --list: the finished runs with their status, the others pending; nothing written.
    let listed = c4bdd(&["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    let state = |key: &str| text.lines().find(|l| l.starts_with(key)).map(|l| l[key.len()..].trim().to_string());
    let paper = paper_table1().iter().find(|(b, _)| (b.width, b.height) == (3, 3)).unwrap().1;
    let ok = format!("ok {paper} positions");
    assert!(state("3x3/cellwise/paper/count/whole/in-place").unwrap().starts_with(&ok), "{text}");
    assert_eq!(state("5x3/compressed/paper/count/whole/in-place").as_deref(), Some("pending"), "{text}");
    assert!(text.trim_end().ends_with("6 runs: 4 finished (4 ok), 2 pending"), "{text}");
    assert_eq!(stable_runs(&out).len(), 4);
    let absent = dir.path().join("absent");
    let refused = sweep(&spec, &absent, &["--boards", "3x3,6x6"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("some.toml") && err.contains("6x6"), "{err}");
    assert!(!absent.exists(), "nothing may be written");
}

/// `--encodings` narrows a selection to the runs in those encodings (with
/// `--boards`: the runs of those boards in those encodings), `--orders` and
/// `--threads` to the runs in those orders and on those numbers of threads; an
/// encoding, order or number of threads the spec lacks, or a combination that selects nothing, is an input error that
/// writes nothing.
#[test]
fn encodings_select_the_runs_of_a_spec() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"4x3\", \"3x3\"]\nencodings = [\"compressed\", \"cellwise\"]\n\n\
                [[also]]\nboards = [\"3x4\"]\nencodings = [\"compressed\"]\n";
    let spec = write_spec(dir.path(), "both", body);
    let out = dir.path().join("out");
    let done = sweep(&spec, &out, &["--boards", "3x3,3x4", "--encodings", "compressed"]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let runs: Vec<String> = stable_runs(&out).into_iter().map(|r| r.0).collect();
    assert_eq!(runs, ["3x3/compressed/paper/count/whole/in-place", "3x4/compressed/paper/count/whole/in-place"]);
    let standard = dir.path().join("standard");
    let done = sweep(&spec, &standard, &["--encodings", "cellwise"]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let runs: Vec<String> = stable_runs(&standard).into_iter().map(|r| r.0).collect();
    assert_eq!(runs, ["3x3/cellwise/paper/count/whole/in-place", "4x3/cellwise/paper/count/whole/in-place"]);
    let refused = |spec: &Path, args: &[&str], named: &str, absent: &str| {
        let absent = dir.path().join(absent);
        let refused = sweep(spec, &absent, args);
        let err = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(".toml") && err.contains(named), "{args:?}: {err}");
        assert!(!absent.exists(), "{args:?}: nothing may be written");
    };
    refused(&spec, &["--boards", "3x4", "--encodings", "cellwise"], "select no run", "absent1");
    let compressed_only = write_spec(dir.path(), "one", "[grid]\nboards = [\"3x3\"]\n");
    refused(&compressed_only, &["--encodings", "cellwise"], "cellwise", "absent2");
    // --orders and --threads: the runs in those orders and on those numbers of threads only.
    let body = "[grid]\nboards = [\"3x3\", \"4x3\"]\norders = [\"paper\", \"center-out\"]\nthreads = [1, 2]\n";
    let grid = write_spec(dir.path(), "grid", body);
    let two = dir.path().join("two");
    let done = sweep(&grid, &two, &["--boards", "4x3", "--orders", "center-out", "--threads", "2"]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let runs: Vec<String> = stable_runs(&two).into_iter().map(|r| r.0).collect();
    assert_eq!(runs, ["4x3/compressed/center-out/count/whole/in-place/2-threads"]);
    refused(&grid, &["--threads", "3"], "--threads 3", "absent3");
    refused(&grid, &["--orders", "row-wise"], "--orders row-wise", "absent4");
    refused(&compressed_only, &["--boards", "3x3", "--threads", "2"], "--threads 2", "absent5");
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

/// A run whose allocation fails under its memory limit stops cleanly with
/// the status memory-limit and says so, in which phase; a worker killed by a
/// signal (here kill -9, with a memory limit set) is an error that names the
/// signal.
#[test]
fn memory_stops_and_killed_workers_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"6x5\", \"3x3\"]\n[limits]\nmemory_bytes = 150e6\n";
    let rows = sweep_rows(dir.path(), "memory", body, &dir.path().join("memory"));
    assert_eq!(rows[0].status, Status::MemoryLimit, "{:?}", rows[0]);
    // The message names the phase the allocation failed in, and the limit.
    let m = &rows[0].message;
    assert!(crate::common::names_a_phase(m, "out of memory"), "{m}");
    assert!(m.ends_with(" bytes failed under the memory limit (150000000 bytes)"), "{m}");
    assert_eq!(rows[1].status, Status::Ok);

    let body = "[grid]\nboards = [\"7x5\"]\n[limits]\nmemory_bytes = 20e9\n";
    let spec = write_spec(dir.path(), "killed", body);
    let out = dir.path().join("killed");
    let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let mut running = Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).spawn().unwrap();
    // The worker is a child of one of the sweep's threads.
    let tasks = format!("/proc/{}/task", running.id());
    let worker = loop {
        let children = std::fs::read_dir(&tasks).unwrap().flatten().map(|t| t.path().join("children"));
        let text: String = children.map(|c| std::fs::read_to_string(c).unwrap_or_default()).collect();
        if let Some(pid) = text.split_whitespace().next() {
            break pid.parse::<libc::pid_t>().unwrap();
        }
        assert!(running.try_wait().unwrap().is_none(), "the sweep ended before its worker was seen");
        std::thread::sleep(Duration::from_millis(5));
    };
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a signal to the worker of a sweep this test spawned.
    assert_eq!(unsafe { libc::kill(worker, libc::SIGKILL) }, 0);
    assert!(running.wait().unwrap().success());
    let rows: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(rows[0].status, Status::Error, "{:?}", rows[0]);
    assert_eq!(rows[0].message, "worker killed by signal 9");
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
    let out = Command::new(env!("CARGO_BIN_EXE_c4bdd"))
        .args(["sweep", spec.to_str().unwrap(), "--report", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("files written in plots/tiny"), "{stdout}");
    let table = std::fs::read_to_string(dir.path().join("plots/tiny/table1.md")).unwrap();
    let row: Vec<&str> = table.lines().find(|l| l.starts_with("| 4x3 |")).unwrap().split(" | ").collect();
    assert_eq!((row[1], row[3]), (row[2], "yes"), "4x3 counted, equal to the paper's row: {row:?}");
    let readme = std::fs::read_to_string(dir.path().join("plots/tiny/README.md")).unwrap();
    assert!(readme.contains("results/tiny") && readme.contains("`c4bdd report`"), "{readme}");
    assert!(!dir.path().join("paper-repro.md").exists() && !dir.path().join("plots/README.md").exists());
}
