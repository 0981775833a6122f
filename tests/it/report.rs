//! `c4bdd report` on a small results folder made by a real sweep.

use std::path::Path;
use std::process::Command;

use c4bdd::experiment::record::{read_rows, PlyRow, RunRow, Status};
use c4bdd::experiment::Pass;

fn c4bdd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn reference() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("reference").display().to_string()
}

#[test]
fn report_writes_tables_plots_and_the_account() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let spec = dir.path().join("fixture.toml");
    std::fs::write(
        &spec,
        "name = \"fixture\"\n[grid]\nboards = [\"4x4\", \"5x4\"]\nencodings = [\"cellwise\", \"compressed\"]\n\
orders = [\"paper\", \"row-wise\", \"center-out\"]\nterminal = [\"whole\", \"off\"]\n",
    )
    .unwrap();
    let solve = dir.path().join("solve.toml");
    std::fs::write(&solve, "name = \"solved\"\n[grid]\nboards = [\"4x4\"]\npasses = [\"solve\"]\norders = [\"paper\", \"center-out\", \"columns:2,4,1,3\"]\nthreads = [1, 2]\n").unwrap();
    // A speed set with repetitions: plots/perf.md and threads.md take medians.
    let perf = dir.path().join("perf.toml");
    std::fs::write(&perf, "name = \"perf\"\nrepeats = 3\n[grid]\nboards = [\"4x4\"]\nthreads = [1, 2]\n").unwrap();
    for s in [&spec, &solve, &perf] {
        let out = c4bdd(&["sweep", s.to_str().unwrap(), "--results", results.to_str().unwrap(), "--quiet"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // The speed set's times, set so that the medians are known: one thread
    // 3, 1 and 7 s, two threads 2, 4 and 0.5 s, in the order the rounds ran.
    let perf_dir = std::fs::read_dir(results.join("perf")).unwrap().next().unwrap().unwrap().path();
    let runs_csv = perf_dir.join("runs.csv");
    let mut reader = csv::Reader::from_path(&runs_csv).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (run_col, time_col) = (col("run"), col("time_s"));
    let mut times = [vec![7.0, 1.0, 3.0], vec![0.5, 4.0, 2.0]];
    let mut writer = csv::Writer::from_path(dir.path().join("runs.csv")).unwrap();
    writer.write_record(&headers).unwrap();
    for record in reader.records() {
        let record = record.unwrap();
        let two = record[run_col].contains("/2-threads");
        let time = times[two as usize].pop().unwrap().to_string();
        let fields = record.iter().enumerate().map(|(i, f)| if i == time_col { time.as_str() } else { f });
        writer.write_record(fields.collect::<Vec<_>>()).unwrap();
    }
    writer.flush().unwrap();
    assert!(times.iter().all(|t| t.is_empty()), "three rounds of two runs");
    std::fs::copy(dir.path().join("runs.csv"), &runs_csv).unwrap();
    let plots = dir.path().join("plots");
    let repro = dir.path().join("paper-repro.md");
    let (r, p, q, f) = (results.to_str().unwrap(), plots.to_str().unwrap(), repro.to_str().unwrap(), reference());
    let out = c4bdd(&["report", "--results", r, "--plots", p, "--repro", q, "--reference", &f, "--board", "5x4"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let table1 = std::fs::read_to_string(plots.join("table1.md")).unwrap();
    assert!(table1.contains("| 4x4 | 161029 | 161029 | yes |"), "{table1}");
    assert!(table1.contains("| 5x4 | 3945711 | 3945711 | yes |"), "{table1}");
    assert!(table1.contains("| 7x6 | 4531985219092 | – |  |"), "boards not run say so");
    assert!(table1.contains("inflated"), "the caption warns about the paper's times");
    assert!(!plots.join("table2-7x6-paper.md").exists(), "no 7x6 rows, no table of them beside the paper's");
    let csv = std::fs::read_to_string(plots.join("table1.csv")).unwrap();
    assert_eq!(csv.lines().count(), 104, "header and 103 boards");
    let table2 = std::fs::read_to_string(plots.join("table2-4x4.md")).unwrap();
    assert!(table2.contains("| 0 | 0 | 1 | 0 | 1 | 0 |"), "4x4 is a draw: {table2}");
    assert!(table2.contains("draw"));
    let stems = ["figure2a-5x4", "figure2b-5x4", "orders-5x4", "orders-4x4", "table1-time", "table1-nodes"];
    let memory_plots = ["memory-plies-5x4-compressed", "memory-plies-5x4-cellwise"];
    for stem in stems.into_iter().chain(memory_plots) {
        for ext in ["png", "svg"] {
            let file = plots.join(format!("{stem}.{ext}"));
            let len = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
            assert!(len > 5_000, "{} is missing or empty ({len} bytes)", file.display());
        }
    }
    for stem in ["table1-time", "table1-nodes"] {
        let svg = std::fs::read_to_string(plots.join(format!("{stem}.svg"))).unwrap();
        for board in ["13x4", "7x7", "12x4"] {
            assert!(svg.contains(&format!("\n{board}\n")), "{stem}: the paper's point of {board} is named");
        }
    }
    let orders = std::fs::read_to_string(plots.join("orders-solve.md")).unwrap();
    for order in ["| paper |", "| center-out |", "| columns:2,4,1,3 |"] {
        assert!(orders.contains(order), "every solve order of the 4x4 sweep is ranked: {orders}");
    }
    assert!(
        orders.contains("| 4x4 | compressed | 3 |") && orders.contains("| draw |"),
        "two-thread runs are not ranked: {orders}"
    );
    let threads = std::fs::read_to_string(plots.join("threads.md")).unwrap();
    for order in ["paper", "center-out", "columns:2,4,1,3"] {
        let row = format!("| 4x4 | solve | compressed | {order} |");
        assert!(
            threads.lines().any(|l| l.contains(&row) && l.contains("| 2 |") && l.ends_with("| yes |")),
            "{row}: {threads}"
        );
    }
    // plots/perf.md and threads.md: per configuration the median of its
    // three repetitions, whose times were set by hand above.
    let perf_md = std::fs::read_to_string(plots.join("perf.md")).unwrap();
    for row in [
        "| 4x4 | paper | whole | in-place | 1 | 3 | 3.00 | 1.00 - 7.00 |",
        "| 4x4 | paper | whole | in-place | 2 | 3 | 2.00 | 0.50 - 4.00 |",
    ] {
        let line = perf_md.lines().find(|l| l.contains(row));
        assert!(line.is_some_and(|l| l.ends_with("| yes |")), "{row}: {perf_md}");
    }
    assert_eq!(perf_md.lines().filter(|l| l.starts_with("| perf/")).count(), 2, "{perf_md}");
    let row = "| 4x4 | count | compressed | paper | - | 3 / 3 | 3.00 | 2 | 2.00 | 1.50x |";
    assert!(threads.lines().any(|l| l.contains(row) && l.ends_with("| yes |")), "{row}: {threads}");
    let archive = c4bdd::report::data::Archive::load(&results).unwrap();
    // The memory model beside each run's measured RSS (these small runs are
    // below the report's cut-off, so the table is made here without it).
    let memory = c4bdd::report::memory::markdown(&archive, 0).unwrap();
    let single = archive.runs.iter().filter(|r| r.ok() && r.single_threaded()).count();
    assert_eq!(
        memory.lines().filter(|l| ["| fixture/", "| solved/", "| perf/"].iter().any(|p| l.starts_with(p))).count(),
        single
    );
    for r in archive.runs.iter().filter(|r| r.ok() && r.single_threaded()) {
        let model = r.row.model();
        assert!(model >= 8 * r.row.peak_nodes, "{}: the model holds every peak node's record", r.row.run);
        assert_eq!(r.row.model_bytes, Some(model), "{}: a run records its model", r.row.run);
        // A row without its model ran on the chained store: 16 bytes a node
        // and a 4-byte bucket per slot, beyond the same cache.
        let unrecorded = c4bdd::experiment::record::RunRow { model_bytes: None, ..r.row.clone() };
        assert!(unrecorded.model() >= 20 * r.row.peak_nodes, "{}", r.row.run);
        let row = format!("| {} | {} |", r.row.run, r.row.peak_nodes);
        assert!(memory.contains(&row), "{row}: {memory}");
    }
    let readme = std::fs::read_to_string(plots.join("README.md")).unwrap();
    assert!(readme.contains("figure2a-5x4.png") && readme.contains("c4bdd report"));
    let account = std::fs::read_to_string(&repro).unwrap();
    assert!(account.contains("2 boards counted, 2 equal to the paper's count"), "{account}");
    assert!(account.contains("| 4x4 | draw |"), "{account}");
}

#[test]
fn a_malformed_or_missing_csv_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("results/broken/run1");
    std::fs::create_dir_all(&sweep).unwrap();
    std::fs::write(sweep.join("runs.csv"), "run,width\nx,notanumber\n").unwrap();
    let args = |results: &str| {
        c4bdd(&[
            "report",
            "--results",
            results,
            "--plots",
            dir.path().join("p").to_str().unwrap(),
            "--reference",
            &reference(),
        ])
    };
    let out = args(dir.path().join("results").to_str().unwrap());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("runs.csv") && err.trim_end().lines().count() == 1, "{err}");
    let out = args("/no/such/results");
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/results"));
    assert_ne!(out.status.code(), Some(0));
}

/// A sweep's runs with `full_bdd` are read back as the board's positions in
/// one BDD: every position of the board (the explicit enumerator's total).
#[test]
fn full_bdd_runs_are_read_back() {
    use c4bdd::game::{explicit, BoardSize};
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let spec = dir.path().join("fb.toml");
    let body =
        "name = \"fb\"\n[grid]\nboards = [\"4x4\"]\nencodings = [\"compressed\", \"cellwise\"]\nfull_bdd = true\n";
    std::fs::write(&spec, body).unwrap();
    let out = c4bdd(&["sweep", spec.to_str().unwrap(), "--results", results.to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let archive = c4bdd::report::data::Archive::load(&results).unwrap();
    let total: u128 =
        explicit::count_plies(BoardSize::new(4, 4).unwrap(), true).unwrap().iter().map(|&c| c as u128).sum();
    let mut got: Vec<(&str, &str, u128)> =
        archive.full_bdds.iter().map(|f| (f.board.as_str(), f.encoding.as_str(), f.positions)).collect();
    got.sort();
    assert_eq!(got, [("4x4", "cellwise", total), ("4x4", "compressed", total)]);
    assert!(archive.full_bdds.iter().all(|f| f.nodes > 0 && f.source.starts_with("fb")));
}

/// Run `c4bdd report` on `root/results` (plots to `root/plots`) and return
/// the account it writes (`root/repro.md`).
fn repro_of(root: &Path) -> String {
    let out = c4bdd(&[
        "report",
        "--results",
        root.join("results").to_str().unwrap(),
        "--plots",
        root.join("plots").to_str().unwrap(),
        "--repro",
        root.join("repro.md").to_str().unwrap(),
        "--reference",
        &reference(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(root.join("repro.md")).unwrap()
}

/// The 6x6 claim of paper-repro.md names the fastest one-thread run and the
/// fastest run on more threads, from any sweep: here the archive's two 6x6
/// solve sweeps (their runs.csv only), copied into a fresh results folder.
#[test]
fn the_6x6_account_names_the_one_thread_and_the_fastest_multi_thread_run() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/solve_6x6");
    let mut rows = Vec::new();
    for sweep in std::fs::read_dir(&archive).unwrap().map(|e| e.unwrap().path()) {
        let to = dir.path().join("results/solve_6x6").join(sweep.file_name().unwrap());
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(sweep.join("runs.csv"), to.join("runs.csv")).unwrap();
        let mut reader = csv::Reader::from_path(sweep.join("runs.csv")).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        for r in reader.records().map(Result::unwrap) {
            let threads: u64 = r[col("threads")].parse().unwrap_or(1);
            rows.push((threads, r[col("time_s")].parse::<f64>().unwrap(), sweep.file_name().unwrap().to_owned()));
        }
    }
    let hms = |t: f64| {
        let s = t.round() as u64;
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    };
    let fastest = |many: bool| rows.iter().filter(|r| (r.0 > 1) == many).min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    let (one, more) = (fastest(false), fastest(true));
    let root = dir.path();
    let account = repro_of(root);
    let section = account.split("## 6x6 solved").nth(1).unwrap().split("\n## ").next().unwrap();
    assert!(section.contains(&format!("second-player-wins in {} on one thread", hms(one.1))), "{section}");
    let multi = format!(
        "Fastest on more threads: second-player-wins in {} on {} threads (solve_6x6/{})",
        hms(more.1),
        more.0,
        more.2.to_string_lossy()
    );
    assert!(section.contains(&multi), "{multi}: {section}");
    assert!(section.contains("Status: reproduced."), "{section}");
}

/// Run `c4bdd report` on a tree whose only archive is
/// `results/<kind>/2026-01-01-a/times.csv` holding `csv`: the text of
/// `plots/<kind>.md` (`peers.md` for `oxidd`), or the report's error output.
fn report_timings(kind: &str, csv: &str) -> Result<String, String> {
    report_timings_in(tempfile::tempdir().unwrap().path(), kind, csv)
}

/// [`report_timings`] in the folder `dir`.
fn report_timings_in(dir: &std::path::Path, kind: &str, csv: &str) -> Result<String, String> {
    let archive = dir.join("results").join(kind).join("2026-01-01-a");
    std::fs::create_dir_all(&archive).unwrap();
    std::fs::write(archive.join("times.csv"), csv).unwrap();
    let (results, plots) = (dir.join("results"), dir.join("plots"));
    let repro = dir.join("repro.md");
    let args = ["report", "--results", results.to_str().unwrap(), "--plots", plots.to_str().unwrap()];
    let out = c4bdd(&[&args[..], &["--repro", repro.to_str().unwrap(), "--reference", &reference()]].concat());
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    // The archives of oxidd alone are read by the peers' page.
    let page = if kind == "oxidd" { "peers" } else { kind };
    Ok(std::fs::read_to_string(plots.join(format!("{page}.md"))).unwrap())
}

/// The line of `text` that starts with `head`.
fn row_of<'a>(text: &'a str, head: &str) -> &'a str {
    text.lines().find(|l| l.starts_with(head)).unwrap_or_else(|| panic!("no row {head}: {text}"))
}

/// `plots/peers.md` of a tree whose only archive is `results/peers/2026-01-01-a`
/// holding `csv`, and whether `plots/peers.png` was drawn.
fn report_peers(csv: &str) -> Result<(String, bool), String> {
    let dir = tempfile::tempdir().unwrap();
    let text = report_timings_in(dir.path(), "peers", csv)?;
    Ok((text, dir.path().join("plots/peers.png").exists()))
}

/// `plots/peers.md` from the timings `experiments/peers/compare.sh` archives:
/// per board, program, image and threads the median time of its rounds (CPU
/// on one thread, wall on more), its range, the median wall time, that
/// median over c4bdd's default and over c4bdd with the same image on as many
/// threads, the largest peak RSS and peak nodes, RSS bytes per node, the
/// median GC seconds, and whether the board's runs agreed on the positions;
/// the chart of time against RSS; archives without the threads, node and GC
/// columns, and of oxidd alone (no RSS column), are read too; a malformed
/// file is an error naming it.
#[test]
fn report_compares_the_archived_peer_timings() {
    let mut csv = String::from("round,board,program,image,positions,wall_s,cpu_s,max_rss_kb,peak_nodes,gc_s\n");
    for (round, [in_place, monolithic, cudd]) in [(1, [1.0, 4.0, 5.0]), (2, [5.0, 3.0, 6.0]), (3, [2.0, 2.0, 4.0])] {
        csv += &format!("{round},7x4,c4bdd,in-place,2265792710,{in_place},{in_place},120000,6000000,0\n");
        csv += &format!("{round},7x4,c4bdd,monolithic,2265792710,{monolithic},{monolithic},190000,8000000,0.5\n");
        csv += &format!(
            "{round},7x4,cudd,monolithic,2265792710,{cudd},{cudd},{},{},{cudd}\n",
            400000 + round,
            999999 + round
        );
    }
    csv += "1,4x4,c4bdd,in-place,161029,0.1,0.1,20000,1000,0\n1,4x4,oxidd,monolithic,161028,0.2,0.2,30000,2000,\n";
    let (text, chart) = report_peers(&csv).unwrap_or_else(|err| panic!("{err}"));
    let row = |board: &str, program: &str, image: &str| {
        let head = format!("| peers/2026-01-01-a | count | {board} | {program} | {image} |");
        text.lines().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("no row {head}: {text}")).to_string()
    };
    let ends = |board, program, image, tail: &str| {
        let r = row(board, program, image);
        assert!(r.ends_with(tail), "{r} should end with {tail}");
    };
    ends(
        "7x4",
        "c4bdd",
        "in-place",
        "| 1 | 3 | 2.00 | 1.00 - 5.00 | 2.00 | 1.00 | 1.00 | 123 | 6000000 | 20.5 | 0.00 | yes |",
    );
    ends(
        "7x4",
        "c4bdd",
        "monolithic",
        "| 1 | 3 | 3.00 | 2.00 - 4.00 | 3.00 | 1.50 | 1.00 | 195 | 8000000 | 24.3 | 0.50 | yes |",
    );
    ends(
        "7x4",
        "cudd",
        "monolithic",
        "| 1 | 3 | 5.00 | 4.00 - 6.00 | 5.00 | 2.50 | 1.67 | 410 | 1000002 | 409.6 | 5.00 | yes |",
    );
    ends(
        "4x4",
        "oxidd",
        "monolithic",
        "| 1 | 1 | 0.20 | 0.20 - 0.20 | 0.20 | 2.00 | - | 31 | 2000 | 15360.0 | - | NO |",
    );
    assert!(chart, "peers.png drawn from an archive with peak RSS");

    let before =
        "round,board,program,image,positions,wall_s,cpu_s,max_rss_kb\n1,7x4,c4bdd,in-place,2265792710,2.0,2.0,120000\n";
    let (text, _) = report_peers(before).unwrap_or_else(|err| panic!("{err}"));
    let r = row_of(&text, "| peers/2026-01-01-a | count | 7x4 | c4bdd | in-place |");
    assert!(r.ends_with("| 1 | 1 | 2.00 | 2.00 - 2.00 | 2.00 | 1.00 | 1.00 | 123 | - | - | - | yes |"), "{r}");

    let oxidd = "round,board,program,image,positions,wall_s,cpu_s\n1,7x4,c4bdd,in-place,2265792710,2.0,2.0\n\
1,7x4,oxidd,monolithic,2265792710,5.0,5.0\n";
    let text = report_timings("oxidd", oxidd).unwrap_or_else(|err| panic!("{err}"));
    let head = "| oxidd/2026-01-01-a | count | 7x4 | oxidd | monolithic |";
    let row = row_of(&text, head);
    assert!(row.ends_with("| 1 | 1 | 5.00 | 5.00 - 5.00 | 5.00 | 2.50 | - | - | - | - | - | yes |"), "{row}");

    // Threads: one thread judged by CPU time, more by wall time, each over
    // c4bdd on as many threads (its default, and the same image); a solve
    // over c4bdd's solve of the board, its positions apart from the count's.
    let threads = "round,pass,board,program,image,threads,positions,wall_s,cpu_s,max_rss_kb,peak_nodes,gc_s\n\
1,count,6x5,c4bdd,in-place,1,9000,10.0,9.0,100000,500,1\n1,count,6x5,c4bdd,in-place,2,9000,6.0,11.0,110000,500,1\n\
1,count,6x5,c4bdd,monolithic,2,9000,8.0,15.0,120000,600,1\n1,count,6x5,sylvan,in-place,1,9000,30.0,27.0,200000,800,2\n\
1,count,6x5,sylvan,monolithic,2,9000,24.0,44.0,210000,900,3\n\
1,solve,6x5,c4bdd,in-place,1,9000,40.0,40.0,300000,700,4\n1,solve,6x5,cudd,monolithic,1,9000,90.0,100.0,400000,800,5\n";
    let (text, chart) = report_peers(threads).unwrap_or_else(|err| panic!("{err}"));
    for (key, tail) in [
        (
            "solve | 6x5 | cudd | monolithic | 1",
            "| 1 | 100.00 | 100.00 - 100.00 | 90.00 | 2.50 | - | 410 | 800 | 512000.0 | 5.00 |",
        ),
        (
            "count | 6x5 | sylvan | in-place | 1",
            "| 1 | 27.00 | 27.00 - 27.00 | 30.00 | 3.00 | 3.00 | 205 | 800 | 256000.0 | 2.00 |",
        ),
        (
            "count | 6x5 | sylvan | monolithic | 2",
            "| 1 | 24.00 | 24.00 - 24.00 | 24.00 | 4.00 | 3.00 | 215 | 900 | 238933.3 | 3.00 |",
        ),
        (
            "count | 6x5 | c4bdd | in-place | 2",
            "| 1 | 6.00 | 6.00 - 6.00 | 6.00 | 1.00 | 1.00 | 113 | 500 | 225280.0 | 1.00 |",
        ),
    ] {
        let r = row_of(&text, &format!("| peers/2026-01-01-a | {key} |"));
        assert!(r.ends_with(&format!("{tail} yes |")), "{r} should end with {tail} yes |");
    }
    assert!(chart, "peers.png drawn");

    let err = report_timings("peers", "round,board,program,image,positions,wall_s,cpu_s\n1,7x4,c4bdd\n").unwrap_err();
    assert!(err.contains("times.csv"), "{err}");
}

/// `plots/artifact.md` from the timings `experiments/artifact/compare.sh`
/// archives: per job, program and configuration the median wall time of its
/// rounds, its range, CPU time, peak RSS and the artifact's median over it,
/// and whether the job's runs agreed on the positions; a malformed file is an
/// error naming it.
#[test]
fn report_compares_the_archived_artifact_timings() {
    let header = "round,job,program,threads,order,positions,wall_s,cpu_s,peak_rss_kb,own_s\n";
    let mut csv = String::from(header);
    for (round, [artifact, one, two]) in [(1, [40.0, 4.0, 2.0]), (2, [30.0, 6.0, 3.0]), (3, [35.0, 5.0, 1.0])] {
        csv += &format!(
            "{round},solve:compressed:6x4,artifact,1,column-wise,95000,{artifact},{artifact},870400,{}\n",
            artifact / 2.0
        );
        csv += &format!("{round},solve:compressed:6x4,c4bdd,1,column-wise,95000,{one},{one},102400,{one}\n");
        csv +=
            &format!("{round},solve:compressed:6x4,c4bdd,2,center-out,95000,{two},{},51200,{}\n", two * 1.5, two + 0.5);
    }
    csv += "1,count:standard:4x4,artifact,1,column-wise,161029,8,8,3343892,2\n";
    csv += "1,count:standard:4x4,c4bdd,1,column-wise,161028,0.5,0.5,8380,0.25\n";
    let text = report_timings("artifact", &csv).unwrap_or_else(|err| panic!("{err}"));
    let row = |job: &str, program: &str, threads: u32| {
        let head = format!("| artifact/2026-01-01-a | {job} | {program} | {threads} |");
        text.lines().find(|l| l.starts_with(&head)).unwrap_or_else(|| panic!("no row {head}: {text}")).to_string()
    };
    let solve = "solve:compressed:6x4";
    assert!(
        row(solve, "artifact", 1)
            .ends_with("| column-wise | 3 | 35.00 | 30.00 - 40.00 | 35.00 | 17.50 | 850 | 1.0 | 1.0 | yes |"),
        "{text}"
    );
    let c4bdd_one = "| column-wise | 3 | 5.00 | 4.00 - 6.00 | 5.00 | 5.00 | 100 | 7.0 | 3.5 | yes |";
    assert!(row(solve, "c4bdd", 1).ends_with(c4bdd_one), "{text}");
    let c4bdd_two = "| center-out | 3 | 2.00 | 1.00 - 3.00 | 3.00 | 2.50 | 50 | 17.5 | 7.0 | yes |";
    assert!(row(solve, "c4bdd", 2).ends_with(c4bdd_two), "{text}");
    assert!(row("count:standard:4x4", "c4bdd", 1).ends_with("| 0.50 | 0.25 | 8 | 16.0 | 8.0 | NO |"), "{text}");

    let err = report_timings("artifact", &format!("{header}1,solve:compressed:6x4,c4bdd\n")).unwrap_err();
    assert!(err.contains("times.csv"), "{err}");
}

#[test]
fn coinciding_series_are_drawn_once_and_named_by_all() {
    use c4bdd::report::plots::{merge_coinciding, Series};
    let line = |name: &str, ys: &[f64]| Series::new(name, ys.iter().enumerate().map(|(x, &y)| (x as f64, y)).collect());
    let merged = merge_coinciding(&[
        line("cellwise, column-wise", &[1.0, 5.0, 9.0]),
        line("cellwise, row-wise", &[1.0, 6.0, 9.0]),
        line("cellwise, paper", &[1.0, 5.0, 9.0]),
    ]);
    let names: Vec<&str> = merged.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["cellwise, column-wise = cellwise, paper", "cellwise, row-wise"]);
    assert_eq!(merged[0].points, [(0.0, 1.0), (1.0, 5.0), (2.0, 9.0)]);
}

#[test]
fn report_names_a_missing_directory_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nonexistent");
    let plots = dir.path().join("plots");
    let out = c4bdd(&["report", "--results", missing.to_str().unwrap(), "--plots", plots.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--results") && err.contains("nonexistent") && err.contains("no such directory"), "{err}");
    assert!(!plots.exists(), "nothing written");
}

/// A partial 7x6 solve (`down-to.csv`, as `solve --down-to K --csv` writes
/// it) is compared with the paper's Table 2 row by row: here the paper's own
/// last rows, then the same with one figure changed.
#[test]
fn partial_7x6_rows_are_compared_with_the_papers_table_2() {
    let dir = tempfile::tempdir().unwrap();
    let (results, plots) = (dir.path().join("results"), dir.path().join("plots"));
    let archive = results.join("table2_7x6").join("run");
    std::fs::create_dir_all(&archive).unwrap();
    let mut paper = csv::Reader::from_path(Path::new(&reference()).join("paper-table2-7x6.csv")).unwrap();
    let rows: Vec<Vec<String>> = paper.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
    let key = "7x6/compressed/paper/solve/whole/in-place/2-threads/down-to-40";
    let down_to = |changed: bool| {
        let mut text = String::from("run,ply,states,bdd_nodes,live_nodes,time_s,won,drawn,lost,terminal\n");
        for r in rows.iter().filter(|r| r[0].parse::<u32>().unwrap() >= 40) {
            let won = if changed && r[0] == "41" { "1".to_string() } else { r[1].clone() };
            text += &format!("{key},{},{},100,0,1.0,{won},{},{},{}\n", r[0], r[4], r[2], r[3], r[5]);
        }
        text
    };
    let repro = dir.path().join("repro.md");
    let args = ["report", "--results", results.to_str().unwrap(), "--plots", plots.to_str().unwrap()];
    let reference = reference();
    let args = [&args[..], &["--reference", &reference, "--repro", repro.to_str().unwrap()]].concat();
    for (changed, status) in [
        (false, "Status: reproduced for plies 40..42: every row equals the paper's."),
        (true, "DIFFERS from the paper at plies [41]"),
    ] {
        std::fs::write(archive.join("down-to.csv"), down_to(changed)).unwrap();
        let out = c4bdd(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&repro).unwrap();
        assert!(text.contains("Ours: plies 42 down to 40 (table2_7x6/run)") && text.contains(status), "{text}");
        let left = "Left: plies 39 down to 0. The lowest ply solved, 40, took 0:00:01; the 2 plies above it took 0:00:02 in all.";
        assert!(text.contains(left), "{text}");
        assert!(text.contains("The plies solved so far would take about 0.0 GB as c4bdd files (300 nodes)."), "{text}");
        assert!(!text.contains("Kept on disk"), "no solution-kept.csv, nothing said: {text}");
        let table = std::fs::read_to_string(plots.join("table2-7x6-paper.md")).unwrap();
        let row41 = table.lines().find(|l| l.starts_with("| 41 |")).unwrap();
        assert!(row41.ends_with(if changed { "| NO |" } else { "| yes |" }), "{row41}");
    }
}

/// Each ply's states, won, drawn, lost and terminal positions, in ply order.
type PlyTable = Vec<(u32, u128, Option<u128>, Option<u128>, Option<u128>, Option<u128>)>;

fn ply_table(rows: &[c4bdd::experiment::record::PlyRow]) -> PlyTable {
    let mut t: PlyTable = rows.iter().map(|r| (r.ply, r.states, r.won, r.drawn, r.lost, r.terminal)).collect();
    t.sort();
    t
}

/// A 4x4 solve down to ply `down_to` with `extra` arguments, its rows in
/// `results/partial/NAME/down-to.csv` under `dir`; returns the results
/// root, that file and the full solve's table.
fn partial_4x4(
    dir: &Path,
    name: &str,
    down_to: &str,
    extra: &[&str],
) -> (std::path::PathBuf, std::path::PathBuf, PlyTable) {
    let results = dir.join("results");
    let archive = results.join("partial").join(name);
    std::fs::create_dir_all(&archive).unwrap();
    let (full, ck) = (dir.join("full.csv"), dir.join("ck"));
    assert!(c4bdd(&["solve", "-W", "4", "-H", "4", "--csv", full.to_str().unwrap()]).status.success());
    let csv = archive.join("down-to.csv");
    let args = ["solve", "-W", "4", "-H", "4", "--checkpoint", ck.to_str().unwrap(), "--down-to", down_to];
    let out = c4bdd(&[&args[..], extra, &["--csv", csv.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (results, csv, ply_table(&c4bdd::experiment::record::read_rows(&full).unwrap()))
}

/// A partial solve's rows are read back as the board's solved plies, equal
/// to the full solve's rows of those plies.
#[test]
fn partial_solves_are_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _, want) = partial_4x4(dir.path(), "run", "10", &[]);
    let loaded = c4bdd::report::data::Archive::load(&results).unwrap();
    let board = c4bdd::game::BoardSize::new(4, 4).unwrap();
    let (source, plies) = loaded.solved_plies(board).expect("the partial solve");
    assert_eq!(source, Path::new("partial/run"));
    assert_eq!(ply_table(plies), want[10..]);
}

/// A partial solve in parts (`solve --parts`: its run key ends in
/// `/partitioned-CUT`) is read back like a whole pass, equal to the full
/// solve's rows of those plies; the account names the cut, and the 7x6
/// figures of time and memory per ply are drawn from such rows.
#[test]
fn partitioned_partial_solves_are_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let (results, csv, want) = partial_4x4(dir.path(), "parts", "6", &["--parts", "c2r1,c3r1"]);
    let loaded = c4bdd::report::data::Archive::load(&results).unwrap();
    let board = c4bdd::game::BoardSize::new(4, 4).unwrap();
    let partial = loaded.partial_solve(board).expect("the partial solve in parts");
    assert_eq!(partial.partitioned(), Some("c2r1-c3r1"));
    assert_eq!(ply_table(&partial.plies), want[6..]);
    // The same rows as 7x6's: the account names the cut, the figures are drawn.
    let text = std::fs::read_to_string(&csv).unwrap().replace("4x4/", "7x6/");
    std::fs::write(&csv, text).unwrap();
    let (plots, repro) = (dir.path().join("plots"), dir.path().join("repro.md"));
    let args = ["report", "--results", results.to_str().unwrap(), "--plots", plots.to_str().unwrap()];
    let out = c4bdd(&[&args[..], &["--reference", &reference(), "--repro", repro.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&repro).unwrap();
    assert!(text.contains("Ours: plies 16 down to 6 (partial/parts, the plies below those solved whole in parts cut on the cells c2r1,c3r1"), "{text}");
    for figure in ["table2-7x6-time.svg", "table2-7x6-memory.svg"] {
        let svg = std::fs::read_to_string(plots.join(figure)).unwrap();
        assert!(svg.contains("ply"), "{figure}");
    }
}

/// A count with per-ply rows and no row in runs.csv yet (stopped, to be
/// resumed) is Table 1's status of its board: how many plies it counted and
/// where; the account lists it among the boards not yet counted, and its
/// per-ply figure draws the plies counted so far.
#[test]
fn an_unfinished_count_is_its_boards_status() {
    let dir = tempfile::tempdir().unwrap();
    let (root, spec) = (dir.path(), dir.path().join("giant.toml"));
    std::fs::write(&spec, "name = \"giant\"\n[grid]\nboards = [\"4x4\"]\n").unwrap();
    let out = c4bdd(&["sweep", spec.to_str().unwrap(), "--results", root.join("results").to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sweep = std::fs::read_dir(root.join("results/giant")).unwrap().next().unwrap().unwrap().path();
    // As if stopped after ply 9: its first ten plies' rows, no run row.
    let plies = std::fs::read_to_string(sweep.join("plies.csv")).unwrap();
    std::fs::write(sweep.join("plies.csv"), plies.lines().take(11).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let runs = std::fs::read_to_string(sweep.join("runs.csv")).unwrap();
    std::fs::write(sweep.join("runs.csv"), runs.lines().next().unwrap().to_string() + "\n").unwrap();
    let account = repro_of(root);
    let status = format!("counting: 10 of 17 plies in giant/{}", sweep.file_name().unwrap().to_string_lossy());
    assert!(account.contains(&format!(" 4x4 ({status}; the paper's peak")), "{account}");
    let table1 = std::fs::read_to_string(root.join("plots/table1.md")).unwrap();
    assert!(table1.lines().any(|l| l.starts_with("| 4x4 |") && l.ends_with(&format!("| {status} |"))), "{table1}");
    let (r, p, q, f) = (root.join("results"), root.join("plots"), root.join("repro.md"), reference());
    let (r, q) = (r.to_str().unwrap(), q.to_str().unwrap());
    let out = c4bdd(&[
        "report",
        "--results",
        r,
        "--plots",
        p.to_str().unwrap(),
        "--repro",
        q,
        "--reference",
        &f,
        "--board",
        "4x4",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(p.join("figure2a-4x4.png").is_file() && p.join("figure2a-4x4.svg").is_file());
    let svg = std::fs::read_to_string(p.join("figure2a-4x4.svg")).unwrap();
    assert!(svg.contains("counting, plies 0..9 of 16"), "{svg}");
    let readme = std::fs::read_to_string(p.join("README.md")).unwrap();
    assert!(readme.contains("| figure2a-4x4.png, figure2a-4x4.svg | Figure 2a's form for a count still running"));
}

/// A board counted on two threads only counts in Table 1, marked with its
/// threads; its peak RSS is the largest its plies' records saw (a run
/// resumed in several processes).
#[test]
fn a_board_counted_on_two_threads_only_is_in_table_1_with_its_peak() {
    let dir = tempfile::tempdir().unwrap();
    let (root, spec) = (dir.path(), dir.path().join("giant.toml"));
    std::fs::write(&spec, "name = \"giant\"\n[grid]\nboards = [\"4x4\"]\nencodings = [\"cellwise\"]\nthreads = [2]\n")
        .unwrap();
    let out = c4bdd(&["sweep", spec.to_str().unwrap(), "--results", root.join("results").to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sweep = std::fs::read_dir(root.join("results/giant")).unwrap().next().unwrap().unwrap().path();
    // An earlier process's peak in one ply's record: 5 GB.
    let mut plies: Vec<PlyRow> = read_rows(&sweep.join("plies.csv")).unwrap();
    plies[3].peak_rss_bytes = Some(5_000_000_000);
    let mut writer = csv::Writer::from_path(sweep.join("plies.csv")).unwrap();
    plies.iter().for_each(|p| writer.serialize(p).unwrap());
    writer.flush().unwrap();
    let account = repro_of(root);
    assert!(account.contains("Ours: 1 boards counted, 1 equal"), "{account}");
    let table1 = std::fs::read_to_string(root.join("plots/table1.md")).unwrap();
    let row = table1.lines().find(|l| l.starts_with("| 4x4 |")).unwrap();
    assert!(row.ends_with("| ok (2 threads) |") && row.contains("| 5000.0 |"), "{row}");
}

/// Table 1's times and the solved boards' table name the traversal and
/// cache ratio of runs not made with a count's defaults.
#[test]
fn table_1_and_the_solved_boards_name_the_runs_settings() {
    let dir = tempfile::tempdir().unwrap();
    let (root, spec) = (dir.path(), dir.path().join("bfs.toml"));
    let text =
        "name = \"bfs\"\n[grid]\nboards = [\"4x4\"]\nencodings = [\"compressed\"]\npasses = [\"count\", \"solve\"]\n\
traversal = [\"breadth-first\"]\ncache_ratio = [4]\n";
    std::fs::write(&spec, text).unwrap();
    let out = c4bdd(&["sweep", spec.to_str().unwrap(), "--results", root.join("results").to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let account = repro_of(root);
    let table1 = std::fs::read_to_string(root.join("plots/table1.md")).unwrap();
    let row = table1.lines().find(|l| l.starts_with("| 4x4 |")).unwrap();
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!(cells[5], "–", "no standard run: {row}");
    assert!(cells[6].ends_with(" (breadth-first, cache ratio 4)"), "{row}");
    let solved = account.lines().find(|l| l.starts_with("| 4x4 | draw |")).unwrap();
    assert!(solved.contains("| compressed | paper | breadth-first, cache ratio 4 |"), "{solved}");
}

/// paper-repro.md states the fastest archived search of the empty 7x6 board
/// (`experiments/best/run.sh`'s `best.csv`), leaving out searches of other
/// positions, every-move searches and those a time limit stopped.
#[test]
fn the_account_states_the_fastest_search_of_the_empty_7x6_board() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let header = "board,moves,all_moves,status,value,best,nodes,time_s,wall_s,max_rss_kb\n";
    let rows = [
        ("2026-01-01-a", "7x6,\"\",false,ok,win in 41 plies,4,977030232,167.450,167.45,71072\n"),
        (
            "2026-01-02-b",
            "7x6,\"\",false,time-limit,,,,,900.00,71000\n7x6,\"4\",false,ok,loss in 40 plies,4,5,1.0,1.0,1\n",
        ),
        ("2026-01-03-c", "7x6,\"\",true,ok,win in 41 plies,4,2638912694,99.0,99.0,70664\n"),
    ];
    for (name, csv) in rows {
        let archive = results.join("best").join(name);
        std::fs::create_dir_all(&archive).unwrap();
        std::fs::write(archive.join("best.csv"), format!("{header}{csv}")).unwrap();
    }
    let (plots, repro) = (dir.path().join("plots"), dir.path().join("repro.md"));
    let args = ["report", "--results", results.to_str().unwrap(), "--plots", plots.to_str().unwrap()];
    let out = c4bdd(&[&args[..], &["--repro", repro.to_str().unwrap(), "--reference", &reference()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(repro).unwrap();
    let line = text.lines().find(|l| l.starts_with("By search without tables:")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        line,
        "By search without tables: `c4bdd best -W 7 -H 6` (best/2026-01-01-a): win in 41 plies for the first player, \
best move column 4, in 167.4 s (977030232 positions)."
    );
}

/// A board counted with termination only (as the 6x8 and 7x7 counts are)
/// still gets its per-ply figure of states and nodes.
#[test]
fn a_count_without_its_no_termination_twin_gets_its_per_ply_figure() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let spec = dir.path().join("whole.toml");
    std::fs::write(&spec, "name = \"whole\"\n[grid]\nboards = [\"4x3\"]\n").unwrap();
    let out = c4bdd(&["sweep", spec.to_str().unwrap(), "--results", results.to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plots = dir.path().join("plots");
    let (r, p, f) = (results.to_str().unwrap(), plots.to_str().unwrap(), reference());
    let repro = dir.path().join("paper-repro.md");
    let args = ["report", "--results", r, "--plots", p, "--repro", repro.to_str().unwrap(), "--reference", &f];
    let out = c4bdd(&[&args[..], &["--board", "4x3"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(plots.join("figure2a-4x3.png").is_file() && plots.join("figure2a-4x3.svg").is_file());
    let readme = std::fs::read_to_string(plots.join("README.md")).unwrap();
    assert!(readme.contains("| figure2a-4x3.png, figure2a-4x3.svg | Figure 2a's form"), "{readme}");
}

/// The 7x6 projection takes the memory per node from the 6x6 solve with the
/// fewest bytes per peak node and shows the splits of a 6x6 ply from a
/// `parts.csv` (largest part and all parts against the whole ply), and each
/// archived solve with pre-images per column beside its one-relation twin.
#[test]
fn the_projection_takes_the_leanest_6x6_solve_and_shows_the_splits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let mut leanest: Option<(f64, String)> = None;
    // The layers of each board's count (compressed, paper order, with termination) of the fewest peak nodes.
    let mut layers: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
    // Each solve with one in-place relation beside its twin in parts (per column, or on an image split).
    let mut in_parts = Vec::new();
    for exp in ["solve_6x6", "lean_store", "table1", "orders_7x6", "preimage_parts", "image_split"] {
        for sweep in std::fs::read_dir(results.join(exp)).unwrap().map(|e| e.unwrap().path()) {
            let to = root.join("results").join(exp).join(sweep.file_name().unwrap());
            std::fs::create_dir_all(&to).unwrap();
            for file in ["runs.csv", "plies.csv"] {
                std::fs::copy(sweep.join(file), to.join(file)).unwrap();
            }
            let rows: Vec<RunRow> = read_rows(&sweep.join("runs.csv")).unwrap();
            let plies: Vec<PlyRow> = read_rows(&sweep.join("plies.csv")).unwrap();
            for (board, cells) in [("6x6", 36), ("7x6", 42)] {
                let counts = rows.iter().filter(|r| {
                    r.run.starts_with(&format!("{board}/compressed/paper/count/whole/")) && r.status == Status::Ok
                });
                for r in counts {
                    let own: Vec<&PlyRow> = plies.iter().filter(|p| p.run == r.run).collect();
                    let best = layers.entry(board).or_insert((u64::MAX, 0));
                    if own.len() == cells + 1 && r.peak_nodes < best.0 {
                        *best = (r.peak_nodes, own.iter().map(|p| p.bdd_nodes).sum());
                    }
                }
            }
            let solved = |image: String| {
                rows.iter().filter(move |r| r.pass == Pass::Solve && r.status == Status::Ok && r.run.ends_with(&image))
            };
            for label in ["in-place-columns", "in-place/split-3"] {
                for parts in solved(format!("/{label}")) {
                    let whole = solved("/in-place".into()).find(|w| w.run == parts.run.replace(label, "in-place"));
                    in_parts.extend(whole.map(|w| (parts.width, parts.height, label, w.peak_nodes, parts.peak_nodes)));
                }
            }
            for r in
                rows.iter().filter(|r| r.run.starts_with("6x6/") && r.pass == Pass::Solve && r.status == Status::Ok)
            {
                let bytes = r.peak_rss_bytes as f64 / r.peak_nodes as f64;
                let name = format!("{exp}/{}", sweep.file_name().unwrap().to_string_lossy());
                if leanest.as_ref().is_none_or(|(b, _)| bytes < *b) {
                    leanest = Some((bytes, name));
                }
            }
        }
    }
    let (bytes, source) = leanest.expect("a 6x6 solve is archived");
    let parts = root.join("results/parts/2026-01-01-a");
    std::fs::create_dir_all(&parts).unwrap();
    let header = "board,encoding,order,ply,top,variables,values,won_nodes,lost_nodes,nodes,won,lost,whole_nodes\n";
    let rows = "6x6,compressed,paper,25,1,c1r1,0,20,22,40,5,6,100\n6x6,compressed,paper,25,1,c1r1,1,30,35,60,7,8,100\n\
                6x6,compressed,paper,25,2,c1r1 c1r2,00,1,2,3,1,1,100\n6x6,compressed,paper,25,2,c1r1 c1r2,01,20,20,35,1,1,100\n\
                6x6,compressed,paper,25,2,c1r1 c1r2,10,20,20,30,1,1,100\n6x6,compressed,paper,25,2,c1r1 c1r2,11,10,10,20,1,1,100\n";
    std::fs::write(parts.join("parts.csv"), format!("{header}{rows}")).unwrap();
    let account = repro_of(root);
    let section = account.split("## The whole 7x6 solve").nth(1).unwrap().split("\n## ").next().unwrap();
    assert!(section.contains(&format!("{bytes:.1} bytes of RSS per peak live node")), "{bytes}: {section}");
    assert!(section.contains(&format!("({source}, threads: ")), "{source}: {section}");
    assert!(section.contains("(ply 25, 100 nodes of won and lost"), "{section}");
    let held = format!("{} on 6x6 (", layers["6x6"].1);
    assert!(section.contains(&held) && section.contains(&format!("{} on 7x6 (", layers["7x6"].1)), "{held}: {section}");
    assert!(section.contains("| 1 (c1r1) | 2 | 0.600 | 1.000 |"), "{section}");
    assert!(section.contains("| 2 (c1r1 c1r2) | 4 | 0.350 | 0.880 |"), "{section}");
    for label in ["in-place-columns", "in-place/split-3"] {
        assert!(in_parts.iter().any(|p| p.2 == label), "a solve {label} is archived beside its twin");
    }
    for (w, h, label, whole, parts) in in_parts {
        let ratio = parts as f64 / whole as f64;
        let row = format!("| {w}x{h} | in-place | {label} | {whole} | {parts} | {ratio:.2} |");
        assert!(section.contains(&row), "{row}: {section}");
    }
}

/// Once a 7x6 pass reaches ply 0, the account reads the empty board's value
/// from ply 0's row and sets the measured run (time, the trace's peak of all
/// the run's processes, the disk the solution would take) in the
/// projection's place: here the paper's own 43 rows as a pass in parts.
#[test]
fn a_7x6_pass_down_to_ply_0_replaces_the_projection_by_its_measures() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("results").join("table2_7x6").join("run");
    std::fs::create_dir_all(&archive).unwrap();
    let mut paper = csv::Reader::from_path(Path::new(&reference()).join("paper-table2-7x6.csv")).unwrap();
    let rows: Vec<Vec<String>> = paper.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
    assert_eq!(rows.len(), 43, "the paper's Table 2 has a row per ply");
    let key = "7x6/compressed/paper/solve/whole/in-place/2-threads/down-to-0/partitioned-c4r1-c4r2";
    let mut text = String::from("run,ply,states,bdd_nodes,live_nodes,time_s,won,drawn,lost,terminal\n");
    for r in &rows {
        let nodes = if r[0] == "27" { 20_000_000 } else { 10_000_000 };
        text += &format!("{key},{},{},{nodes},0,3600.0,{},{},{},{}\n", r[0], r[4], r[1], r[2], r[3], r[5]);
    }
    std::fs::write(archive.join("down-to.csv"), text).unwrap();
    std::fs::write(archive.join("rss-trace-part1.csv"), "unix_time,rss_kb,vsz_kb\n1000,1000000,1\n1100,9765625,1\n")
        .unwrap();
    std::fs::write(
        archive.join("part-records.csv"),
        "ply,part,win,draw,lost,nodes,time_s,peak_rss_bytes,peak_nodes,saved_unix\n5,0,1,1,1,500,200.0,1,1,1150.0\n",
    )
    .unwrap();
    std::fs::write(archive.join("solution-kept.csv"), "ply,files,bytes\n1,64,300000000\n0,2,200000000\n").unwrap();
    let text = repro_of(dir.path());
    assert!(text.contains("Status: reproduced.\n"), "{text}");
    assert!(text.contains("The value of the empty board, read from ply 0's row: the first player wins."), "{text}");
    let traced =
        "All the run's processes together (their RSS summed every 30 s, `rss-trace-*.csv`): at most 10.0 GB in \
the samples (which can miss a process's own peak, above).";
    assert!(text.contains(traced), "{text}");
    assert!(!text.contains("a projection"), "{text}");
    let measured = text.split("## The whole 7x6 solve with c4bdd: measured\n\n").nth(1).expect("the measured section");
    let expected = "Ours (table2_7x6/run): all 43 plies, each row equal to the paper's where Table 2 above says so; \
43:00:00 of plies in all (the paper: 47 h on one core), the largest ply 27 with 20000000 won and lost nodes (its parts' \
added), a peak of 10.0 GB of RSS (all the run's processes together, sampled every 30 s) (the paper: 128 GB, 12.8 times ours).";
    assert!(measured.starts_with(expected), "{measured}");
    assert!(
        measured.contains("about 5.3 GB (440000000 nodes at 12.008 bytes a node; the paper: 89.6 GB)"),
        "{measured}"
    );
}
