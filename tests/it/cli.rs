//! The `c4bdd` binary as a user runs it: output, CSV, exit statuses, errors.

use std::process::{Command, Output};

use c4bdd::game::{explicit, BoardSize};

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The `states` column of a count CSV, in ply order.
fn csv_states(path: &std::path::Path) -> Vec<u128> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = headers.iter().position(|h| h == "states").expect("a states column");
    reader.records().map(|r| r.unwrap()[col].parse().unwrap()).collect()
}

#[test]
fn count_prints_plies_and_writes_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("plies.csv");
    let out = c4bdd(
        &["count", "-W", "4", "-H", "4", "--encoding", "cellwise", "--order", "row-wise", "--csv"]
            .into_iter()
            .chain([csv.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let oracle = explicit::count_plies(BoardSize::new(4, 4).unwrap(), true).unwrap();
    let total: u64 = oracle.iter().sum();
    assert!(text.contains(&format!("total positions: {total}")), "{text}");
    assert!(text.contains("peak live nodes") && text.contains("GC"), "{text}");
    let states = csv_states(&csv);
    assert_eq!(states, oracle.iter().map(|&c| c as u128).collect::<Vec<_>>());
}

#[test]
fn bad_input_gets_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("partial-order.txt");
    std::fs::write(&partial, "stm c1r1 c1r2").unwrap();
    let partial_order = format!("custom:{}", partial.display());
    let missing_dir = dir.path().join("no/such/dir/out.csv");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["count", "-W", "0", "-H", "4"], "0"),
        (vec!["count", "-W", "14", "-H", "4"], "14"),
        (vec!["count", "-W", "4", "-H", "4", "--order", "zigzag"], "zigzag"),
        (vec!["count", "-W", "4", "-H", "4", "--encoding", "bits"], "bits"),
        (vec!["count", "-W", "4", "-H", "4", "--order", &partial_order], "missing"),
        (vec!["count", "-W", "4", "-H", "4", "--order", "custom:/no/such/file"], "/no/such/file"),
        (vec!["count", "-W", "4", "-H", "4", "--order", "columns:1,2,3"], "columns:1,2,3"),
        (vec!["count", "-W", "4", "-H", "4", "--order", "columns:1,2,3,3"], "columns:1,2,3,3"),
        (vec!["count", "-W", "4", "-H", "4", "--order", "columns:1,x"], "columns:1,x"),
        (vec!["count", "-W", "4", "-H", "4", "--gc-growth", "0.5"], "0.5"),
        (vec!["count", "-W", "4", "-H", "4", "--max-cache-entries", "1000"], "1000"),
        (vec!["solve", "-W", "4", "-H", "4", "--max-cache-entries", "128"], "128"),
        (vec!["count", "-W", "4", "-H", "4", "--min-cache-entries", "3000"], "3000"),
        (vec!["solve", "-W", "4", "-H", "4", "--gc-cache", "drop"], "drop"),
        (vec!["solve", "-W", "4", "-H", "4", "--traversal", "sideways"], "sideways"),
        (vec!["count", "-W", "4", "-H", "4", "--csv", missing_dir.to_str().unwrap()], "out.csv"),
        // Clap's own errors keep the missing argument and the valid values.
        (vec!["count"], "--width <WIDTH> --height <HEIGHT>"),
        (vec!["query", "--solution", "x", "-W", "4"], "--height <HEIGHT>"),
        (vec!["count", "-W", "4", "-H", "4", "--terminal", "nope"], "[possible values: whole, lines, fused, off]"),
    ];
    for (args, needle) in cases {
        let out = c4bdd(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line expected, got {err:?}");
        assert!(err.contains(needle), "{args:?}: the message should name '{needle}': {err}");
        assert!(out.stdout.is_empty() || !String::from_utf8_lossy(&out.stdout).contains("total"), "{args:?}");
    }
    assert!(!missing_dir.exists());
}

#[test]
fn a_bare_command_prints_its_usage_with_status_2() {
    let out = c4bdd(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("Usage: c4bdd <COMMAND>"), "{err}");
    for command in ["count", "solve", "query", "best", "report", "sweep", "merge"] {
        assert!(err.contains(&format!("  {command} ")), "{command} listed: {err}");
    }
}

/// Manager settings change no result: a 256-entry cache, a cache that grows
/// with the arena from 256 entries (no floor), and a cache emptied by each
/// of many collections (a low GC threshold), each give the
/// enumerator's counts per ply (5x4) and the explicit solver's table on two
/// threads (5x3).
#[test]
fn manager_settings_give_the_same_counts_and_values() {
    let explicit = c4bdd::game::explicit::ExplicitSolution::solve(BoardSize::new(5, 3).unwrap()).unwrap();
    let want: Vec<Vec<u64>> = explicit
        .table()
        .into_iter()
        .enumerate()
        .map(|(ply, (a, b, c, d, e))| vec![ply as u64, a, b, c, d, e])
        .collect();
    let oracle = explicit::count_plies(BoardSize::new(5, 4).unwrap(), true).unwrap();
    let settings = [
        &["--max-cache-entries", "256"][..],
        &["--min-cache-entries", "256"],
        &["--gc-cache", "clear", "--gc-min-live", "2000"],
    ];
    for setting in settings {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("plies.csv");
        let out = c4bdd(&[&["count", "-W", "5", "-H", "4", "--csv", csv.to_str().unwrap()], setting].concat());
        assert!(out.status.success(), "{setting:?}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(setting[0] != "--gc-cache" || !text.contains("(0 runs)"), "{setting:?}: no collection ran: {text}");
        assert_eq!(csv_states(&csv), oracle.iter().map(|&c| c as u128).collect::<Vec<_>>(), "{setting:?}");
        let table = dir.path().join("table2.csv");
        let args = ["solve", "-W", "5", "-H", "3", "--threads", "2", "--csv", table.to_str().unwrap()];
        let out = c4bdd(&[&args[..], setting].concat());
        assert!(out.status.success(), "{setting:?}: {}", stderr(&out));
        let rows: Vec<Vec<u64>> = crate::common::table2_rows(&table).iter().map(|r| r.to_vec()).collect();
        assert_eq!(rows, want, "{setting:?}: solve --csv holds the explicit solver's table");
    }
}

#[test]
fn node_limit_stops_with_status_3_and_keeps_finished_plies() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("plies.csv");
    let out = c4bdd(&["count", "-W", "5", "-H", "4", "--max-nodes", "20000", "--csv", csv.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("node limit") && err.contains("20000") && err.contains("5x4") && err.contains("ply"), "{err}");
    let states = csv_states(&csv);
    let oracle = explicit::count_plies(BoardSize::new(5, 4).unwrap(), true).unwrap();
    assert!(!states.is_empty() && states.len() < oracle.len(), "some plies finished, not all: {}", states.len());
    for (ply, &s) in states.iter().enumerate() {
        assert_eq!(s, oracle[ply] as u128, "ply {ply} in the CSV is exact");
    }
}

#[test]
fn solve_at_its_node_limit_keeps_the_finished_plies() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("solve.csv");
    let out = c4bdd(&["solve", "-W", "4", "-H", "4", "--max-nodes", "15000", "--csv", csv.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("node limit") && err.contains("15000") && err.contains("ply"), "{err}");
    let table = c4bdd::game::explicit::ExplicitSolution::solve(BoardSize::new(4, 4).unwrap()).unwrap().table();
    let rows = crate::common::table2_rows(&csv);
    assert!(!rows.is_empty() && rows.len() < 17, "some plies finished before the limit: {}", rows.len());
    for r in rows {
        let ply = r[0] as usize;
        let (won, drawn, lost, total, _) = table[ply];
        assert_eq!(r[1..5], [won, drawn, lost, total], "ply {ply}");
    }
}

#[test]
fn help_explains_every_option() {
    let out = c4bdd(&["count", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for option in [
        "--width",
        "--height",
        "--encoding",
        "--order",
        "--image",
        "--terminal",
        "--no-termination",
        "--csv",
        "--stats",
        "--max-nodes",
        "--gc-min-live",
        "--gc-growth",
        "--cache-ratio",
        "--max-cache-entries",
        "--min-cache-entries",
    ] {
        assert!(text.contains(option), "--help lacks {option}");
    }
    for order in &c4bdd::encoding::order::ORDERS {
        assert!(text.contains(&format!("{} ({})", order.name, order.about)), "--help lacks the order {}", order.name);
    }
}

#[test]
fn solve_query_and_best_as_a_user_runs_them() {
    use c4bdd::game::explicit::{ExplicitSolution, Outcome};
    let dir = tempfile::tempdir().unwrap();
    let sol = dir.path().join("sol");
    let csv = dir.path().join("table2.csv");
    let (sol_s, csv_s) = (sol.to_str().unwrap(), csv.to_str().unwrap());
    let out = c4bdd(&["solve", "-W", "4", "-H", "4", "--out", sol_s, "--csv", csv_s]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let size = BoardSize::new(4, 4).unwrap();
    let explicit = ExplicitSolution::solve(size).unwrap();
    assert!(text.contains("value of the empty board: draw"), "{text}");
    let rows: Vec<Vec<u64>> = crate::common::table2_rows(&csv).iter().map(|r| r[1..].to_vec()).collect();
    let table: Vec<Vec<u64>> = explicit.table().into_iter().map(|(a, b, c, d, e)| vec![a, b, c, d, e]).collect();
    assert_eq!(rows, table, "solve --csv holds the Table 2 columns of the explicit solver");
    let total: u64 = explicit::count_plies(size, true).unwrap().iter().sum();
    assert!(text.contains(&format!("total positions: {total}")), "a solve prints every ply's positions: {text}");

    for moves in ["", "1", "23", "2323", "1111", "3434343"] {
        let p = c4bdd::game::Position::from_moves(size, moves).unwrap();
        let want = match explicit.outcome(&p).unwrap() {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        };
        let out = c4bdd(&["query", "--solution", sol_s, "--moves", moves]);
        assert!(out.status.success(), "{moves}: {}", stderr(&out));
        let line = String::from_utf8(out.stdout).unwrap();
        assert!(line.contains(&format!(": {want} for the")), "{moves}: {line}");
    }

    let out = c4bdd(&["best", "-W", "4", "-H", "4", "--moves", "2323", "--solution", sol_s, "--all-moves"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("column ")).count(), 4, "{text}");
    assert!(text.contains("best move: column"), "{text}");

    let other = dir.path().join("other");
    assert!(c4bdd(&["solve", "-W", "3", "-H", "3", "--out", other.to_str().unwrap()]).status.success());
    let bad: Vec<(Vec<&str>, &str)> = vec![
        (vec!["query", "--solution", sol_s, "--moves", "5"], "'5'"),
        (vec!["query", "--solution", sol_s, "--moves", "11111"], "full"),
        (vec!["query", "--solution", sol_s, "--moves", "12121212"], "won"),
        (vec!["query", "--solution", sol_s, "-W", "5", "-H", "4"], "4x4"),
        (vec!["query", "--solution", "/no/such/dir"], "/no/such/dir"),
        (vec!["best", "-W", "4", "-H", "4", "--solution", other.to_str().unwrap()], "3x3"),
        (vec!["best", "-W", "4", "-H", "4", "--moves", "1212121"], "over"),
        (vec!["solve", "-W", "4", "-H", "4", "--terminal", "off"], "off"),
        (vec!["solve", "-W", "4", "-H", "4", "--encoding", "cellwise", "--out", sol_s], "another solution"),
    ];
    for (args, needle) in bad {
        let out = c4bdd(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: '{needle}' missing in {err}");
    }
}

#[test]
fn all_positions_in_one_bdd_count_the_total() {
    for (w, h) in [(4, 4), (5, 3), (3, 5)] {
        let total: u64 = explicit::count_plies(BoardSize::new(w, h).unwrap(), true).unwrap().iter().sum();
        for encoding in ["compressed", "cellwise"] {
            let (ws, hs) = (w.to_string(), h.to_string());
            let out = c4bdd(&["count", "-W", &ws, "-H", &hs, "--encoding", encoding, "--full-bdd"]);
            assert!(out.status.success(), "{}", stderr(&out));
            let text = String::from_utf8(out.stdout).unwrap();
            let line = text.lines().find(|l| l.starts_with("all positions in one BDD")).expect("a full-BDD line");
            assert!(line.ends_with(&format!(" {total} positions")), "{w}x{h} {encoding}: {line}");
        }
    }
}

/// `--complement-edges` sets the plies' sizes with complement edges beside
/// their plain sizes, which are the sum of the CSV's `bdd_nodes` (the size
/// itself is checked against truth tables in `bdd_laws`).
#[test]
fn complement_edge_sizes_stand_beside_the_plain_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("plies.csv");
    let out = c4bdd(&["count", "-W", "4", "-H", "4", "--complement-edges", "--csv", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("with complement edges: ")).expect("a complement-edge line");
    let numbers: Vec<u64> = line.split(' ').filter_map(|w| w.parse().ok()).collect();
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let col = reader.headers().unwrap().iter().position(|h| h == "bdd_nodes").unwrap();
    let plain: u64 = reader.records().map(|r| r.unwrap()[col].parse::<u64>().unwrap()).sum();
    assert_eq!(numbers.len(), 2, "{line}");
    assert_eq!(numbers[1], plain, "{line}");
    assert!(0 < numbers[0] && numbers[0] <= plain, "{line}");
}

#[test]
fn a_run_is_checked_once_whichever_door_it_comes_in_by() {
    use c4bdd::encoding::EncodingKind;
    use c4bdd::run::{Pass, RunSpec};
    use c4bdd::search::TerminalStrategy;
    let dir = tempfile::tempdir().unwrap();
    let size = BoardSize::new(4, 4).unwrap();
    let base = |pass| RunSpec::new(pass, size, EncodingKind::Compressed, "paper".into());
    // (a run the library refuses, the same run from the command line, and in a spec)
    let cases: Vec<(RunSpec, Vec<&str>, &str)> = vec![
        (
            RunSpec { limits: c4bdd::run::Limits { max_nodes: Some(1), ..Default::default() }, ..base(Pass::Count) },
            vec!["count", "--max-nodes", "1"],
            "[limits]\nmax_nodes = 1",
        ),
        (RunSpec { threads: 0, ..base(Pass::Count) }, vec!["count", "--threads", "0"], "threads = [0]"),
        (
            RunSpec { terminal: TerminalStrategy::Fused, ..base(Pass::Solve) },
            vec!["solve", "--terminal", "fused"],
            "passes = [\"solve\"]\nterminal = [\"fused\"]",
        ),
        (
            RunSpec {
                manager: c4bdd::run::ManagerSettings { gc_growth: 0.5, ..Default::default() },
                ..base(Pass::Count)
            },
            vec!["count", "--gc-growth", "0.5"],
            "gc_growth = [0.5]",
        ),
    ];
    for (run, args, toml) in cases {
        let message = run.validate().expect_err("the library refuses the run");
        let mut cli = args.clone();
        cli.extend(["-W", "4", "-H", "4", "--order", "paper"]);
        let out = c4bdd(&cli);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end(), format!("error: {message}"), "{args:?}");
        let spec = dir.path().join("door.toml");
        std::fs::write(&spec, format!("name = \"door\"\n[grid]\nboards = [\"4x4\"]\n{toml}\n")).unwrap();
        let err = c4bdd::experiment::ExperimentSpec::load(&spec).unwrap_err().to_string();
        assert!(err.ends_with(&message), "{toml}: {err} should end with {message}");
    }
}

/// A command whose allocation fails (here under an address-space limit too
/// small for the 6x5 count) ends with one line naming the phase and the size,
/// and status 3, as at a node limit; the plies finished before it are in the
/// CSV.
#[test]
fn out_of_memory_stops_with_one_line_and_status_3() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("plies.csv");
    let args = ["count", "-W", "6", "-H", "5", "--csv", csv.to_str().unwrap()];
    let out = crate::common::c4bdd_with_limit(&args, libc::RLIMIT_AS, 150_000_000);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let last = err.lines().rfind(|l| !l.is_empty()).unwrap_or("");
    // The line names the phase the allocation failed in.
    let named = crate::common::names_a_phase(last, "error: out of memory");
    assert!(named && last.contains(" bytes failed"), "{err}");
    let states = csv_states(&csv);
    assert!(!states.is_empty() && states.len() < 31, "some plies finished, not all: {}", states.len());
    // The finished plies, against positions enumerated one by one (the
    // first plies of 6x5 are few enough).
    let mut layer = std::collections::HashSet::from([c4bdd::game::Position::empty(BoardSize::new(6, 5).unwrap())]);
    for (ply, &count) in states.iter().enumerate().take(9) {
        assert_eq!(count, layer.len() as u128, "ply {ply} in the CSV is exact");
        let alive = layer.iter().filter(|p| !p.has_four(p.to_move().other()));
        layer = alive.flat_map(|p| (0..6).filter(|&c| p.can_play(c)).map(|c| p.play(c))).collect();
    }
}

/// The progress lines of a run's stderr without their seconds: (ply, what, step, steps).
fn progress_lines(out: &Output) -> Vec<(u32, String, usize, usize)> {
    let parse = |line: &str| {
        let line = line.trim().strip_prefix("(ply ")?.strip_suffix(" s into the ply)")?;
        let (ply, rest) = line.split_once(": ")?;
        let (what, rest) = rest.split_once(", step ")?;
        let (step, rest) = rest.split_once(" of ")?;
        let (steps, _seconds) = rest.split_once(", ")?;
        Some((ply.parse().ok()?, what.to_string(), step.parse().ok()?, steps.parse().ok()?))
    };
    stderr(out).lines().map(|l| parse(l).unwrap_or_else(|| panic!("not a progress line: {l}"))).collect()
}

#[test]
fn progress_shows_every_step_of_each_image_and_pre_image() {
    // A count: each ply's image below the last, in parts on the top variable.
    let out = c4bdd(&["count", "-W", "4", "-H", "3", "--image-split", "1", "--progress", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let images: Vec<_> = (0..12).flat_map(|ply| (1..=2).map(move |k| (ply, "image".to_string(), k, 2))).collect();
    assert_eq!(progress_lines(&out), images);
    // A solve: its forward pass's images, then both pre-images of every ply
    // below the last, from the last ply down.
    let out = c4bdd(&["solve", "-W", "4", "-H", "3", "--image-split", "2", "--progress", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let images = (0..12).flat_map(|ply| (1..=4).map(move |k| (ply, "image".to_string(), k, 4)));
    let pre = |ply: u32, of: &'static str| (1..=4).map(move |k| (ply, format!("pre-image of the {of} set"), k, 4));
    let pre_images = (0..12).rev().flat_map(|ply| pre(ply, "lost").chain(pre(ply, "drawn")));
    assert_eq!(progress_lines(&out), images.chain(pre_images).collect::<Vec<_>>());
    // By default a line waits a minute: a small board's run prints none.
    let out = c4bdd(&["solve", "-W", "4", "-H", "3", "--image-split", "2"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{}", stderr(&out));
}

/// A long move string is shown cut in its error, with its length; a win in
/// one ply is said so.
#[test]
fn long_moves_are_cut_in_errors_and_one_ply_is_singular() {
    let long = "1".repeat(10_000);
    let out = c4bdd(&["best", "-W", "4", "-H", "4", "--moves", &long]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.len() < 300 && err.contains("(10000 characters)"), "{err}");
    let out = c4bdd(&["best", "-W", "4", "-H", "4", "--moves", "112233"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("value: win in 1 ply for the first player"), "{text}");
}
