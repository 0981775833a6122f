//! The axes of a spec's grid and the selection of its runs: threads, manager
//! settings, the split table's ratio, the traversal, repeats, column orders, `--boards` and `--encodings`.

use super::*;

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

/// Threads are a grid axis: both runs count the same positions ply by ply,
/// each row records its threads, and a bad thread count names the key.
/// Without `[manager]` settings, counts and solves take their own defaults
/// for the collection threshold, the cache's floor and ratio and the
/// traversal, recorded in their rows.
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
    let for_count = c4bdd::run::count_config();
    let count = (for_count.gc_min_live as u64, Some(for_count.min_cache_entries as u64));
    let solve = (c4bdd::bdd::Config::default().gc_min_live as u64, Some(256));
    assert_eq!(defaults, [count, count, solve, solve]);
    // A solve on one thread walks breadth-first with an eighth of the cache
    // (a quarter of its cap) and the split's table as large; on two (which
    // walk depth-first), and counts, keep the full cache and a sixteenth.
    // Every row records the bound on a breadth-first walk's requests, and
    // the most bytes its tables held.
    use c4bdd::bdd::Traversal::{BreadthFirst, DepthFirst};
    use c4bdd::run::{
        SOLVE_BREADTH_FIRST_CACHE_RATIO as CACHE, SOLVE_BREADTH_FIRST_MAX_CACHE_ENTRIES as CAP,
        SOLVE_BREADTH_FIRST_SPLIT3_CACHE_RATIO as SPLIT3,
    };
    let walks: Vec<_> =
        rows.iter().map(|r| (r.traversal, r.cache_ratio, r.max_cache_entries, r.split3_cache_ratio)).collect();
    let d = c4bdd::bdd::Config::default();
    let full = (Some(DepthFirst), 1, Some(d.max_cache_entries as u64), Some(d.split3_cache_ratio as u64));
    let one_thread_solve = (Some(BreadthFirst), CACHE as u64, Some(CAP as u64), Some(SPLIT3 as u64));
    assert_eq!(walks, [full, full, one_thread_solve, full]);
    let bound = Some(c4bdd::bdd::Config::default().max_requests as u64);
    assert!(rows.iter().all(|r| r.max_requests == bound), "{rows:?}");
    // Only the breadth-first run's tables held memory.
    let held: Vec<_> = rows.iter().map(|r| r.bfs_peak_bytes.map(|b| b > 0)).collect();
    assert_eq!(held, [Some(false), Some(false), Some(true), Some(false)]);
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
    let floor = Some(c4bdd::run::COUNT_MIN_CACHE_ENTRIES as u64);
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

/// A ply of a solve in a sweep's `plies.csv`: ply, states, BDD nodes, won,
/// drawn and lost.
type Solved = (u32, u128, u64, Option<u128>, Option<u128>, Option<u128>);

/// The plies of run `run` in the `plies.csv` of sweep output `out`.
fn solved_plies(out: &std::path::Path, run: &str) -> Vec<Solved> {
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    plies.iter().filter(|p| p.run == run).map(|p| (p.ply, p.states, p.bdd_nodes, p.won, p.drawn, p.lost)).collect()
}

/// The three-way split table's size is an axis of solves (of those that
/// walk depth-first: a breadth-first split makes no table): each ratio is a
/// run named in its key, recorded in its row, and every ratio solves each
/// ply alike (the same won, drawn and lost positions and BDD nodes); a bad
/// ratio names the key.
#[test]
fn the_split_table_ratio_is_an_axis_that_changes_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"5x4\"]\npasses = [\"solve\"]\ntraversal = [\"depth-first\"]\nsplit3_cache_ratio = [1, 1024]\n";
    let out = dir.path().join("out");
    let rows = sweep_rows(dir.path(), "split3_axis", body, &out);
    let keys: Vec<(&str, Option<u64>)> = rows.iter().map(|r| (r.run.as_str(), r.split3_cache_ratio)).collect();
    assert_eq!(
        keys,
        [
            ("5x4/compressed/paper/solve/whole/in-place/split3-cache-1/depth-first", Some(1)),
            ("5x4/compressed/paper/solve/whole/in-place/split3-cache-1024/depth-first", Some(1024)),
        ]
    );
    assert!(rows.iter().all(|r| r.status == Status::Ok && r.value == rows[0].value && r.value.is_some()));
    let of = |run: &str| solved_plies(&out, run);
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

/// The traversal is an axis: each value a run named in its key, recorded
/// in its row, with the same won, drawn and lost positions and BDD nodes in
/// every ply; an unknown traversal names the value.
#[test]
fn the_traversal_is_an_axis_that_changes_no_result() {
    use c4bdd::bdd::Traversal;
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"5x4\"]\npasses = [\"solve\"]\ntraversal = [\"depth-first\", \"breadth-first\"]\n";
    let out = dir.path().join("out");
    let rows = sweep_rows(dir.path(), "traversal_axis", body, &out);
    let keys: Vec<(&str, Option<Traversal>)> = rows.iter().map(|r| (r.run.as_str(), r.traversal)).collect();
    assert_eq!(
        keys,
        [
            ("5x4/compressed/paper/solve/whole/in-place/depth-first", Some(Traversal::DepthFirst)),
            ("5x4/compressed/paper/solve/whole/in-place/breadth-first", Some(Traversal::BreadthFirst)),
        ]
    );
    assert!(rows.iter().all(|r| r.status == Status::Ok && r.value == rows[0].value && r.value.is_some()));
    let of = |run: &str| solved_plies(&out, run);
    assert_eq!(of(&rows[0].run).len(), 21);
    assert_eq!(of(&rows[0].run), of(&rows[1].run));
    let spec = write_spec(dir.path(), "bad", "[grid]\nboards = [\"4x4\"]\ntraversal = [\"sideways\"]\n");
    let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
    assert!(err.contains("bad.toml") && err.contains("sideways"), "{err}");
}

/// The split in parts is an axis of solves: each K a run named in its key
/// (`/parts-K`, none for 0), recorded in its row, with the same won, drawn
/// and lost positions and BDD nodes in every ply; a count in the same grid
/// runs once, unsplit; a K above 8 names the key.
#[test]
fn the_split_in_parts_is_an_axis_of_solves_that_changes_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"5x4\"]\npasses = [\"count\", \"solve\"]\nsplit_parts = [0, 3]\n";
    let out = dir.path().join("out");
    let rows = sweep_rows(dir.path(), "parts_axis", body, &out);
    let keys: Vec<(&str, Option<u8>)> = rows.iter().map(|r| (r.run.as_str(), r.split_parts)).collect();
    let base = "5x4/compressed/paper";
    let want = [
        (format!("{base}/count/whole/in-place"), Some(0)),
        (format!("{base}/solve/whole/in-place"), Some(0)),
        (format!("{base}/solve/whole/in-place/parts-3"), Some(3)),
    ];
    assert_eq!(keys, want.iter().map(|(k, p)| (k.as_str(), *p)).collect::<Vec<_>>());
    assert!(rows.iter().all(|r| r.status == Status::Ok));
    assert!(rows[1].value.is_some() && rows[1].value == rows[2].value);
    let of = |run: &str| solved_plies(&out, run);
    assert_eq!(of(&rows[1].run).len(), 21);
    assert_eq!(of(&rows[1].run), of(&rows[2].run));
    let spec = write_spec(dir.path(), "bad", "[grid]\nboards = [\"4x4\"]\npasses = [\"solve\"]\nsplit_parts = [9]\n");
    let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
    assert!(err.contains("bad.toml") && err.contains("split_parts: 9"), "{err}");
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
