//! Order search and order rules: the cost the search records for an order is
//! what a plain run under that order gives; sifting never ends worse than it
//! started; the bound changes no decision; a search repeats with its seed and
//! resumes in its folder; a rule read off an order on a small board orders a
//! larger one.

use std::path::Path;
use std::process::{Command, Output};

use c4bdd::encoding::{EncodingKind, OrderSpec};
use c4bdd::game::BoardSize;
use c4bdd::order_search::{
    search, Bound, CostKind, Evaluation, Grouping, Measure, Observer, Phase, SearchSettings, Strategy, Tried,
};
use c4bdd::run::Pass;

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = c4bdd(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The rows of a search's candidates.csv: (phase, cost, order).
fn candidates(dir: &Path) -> Vec<(String, String, String)> {
    let rows: Vec<c4bdd::order_search::output::CandidateRow> =
        c4bdd::experiment::record::read_rows(&dir.join("candidates.csv")).unwrap();
    let phase = |p: Phase| serde_json::to_value(p).unwrap().as_str().unwrap().to_string();
    rows.into_iter().map(|r| (phase(r.phase), r.cost.map_or(String::new(), |c| c.to_string()), r.order)).collect()
}

/// The plies' BDD nodes of a plain run (`count` or `solve`) written to a CSV.
fn ply_nodes(pass: &str, board: &[&str], order: &str, dir: &Path) -> Vec<u64> {
    let csv = dir.join(format!("{pass}-{}.csv", order.len()));
    ok(&[&[pass][..], board, &["--order", order, "--csv", csv.to_str().unwrap()]].concat());
    let mut rows: Vec<c4bdd::experiment::record::PlyRow> = c4bdd::experiment::record::read_rows(&csv).unwrap();
    rows.sort_by_key(|r| r.ply);
    rows.iter().map(|r| r.bdd_nodes).collect()
}

#[test]
fn the_cost_of_an_order_is_a_plain_run_under_it() {
    let tmp = tempfile::tempdir().unwrap();
    for (pass, cost, board) in [("count", "sum", ["-W", "4", "-H", "4"]), ("solve", "max", ["-W", "4", "-H", "3"])] {
        let out = tmp.path().join(pass);
        let o = out.to_str().unwrap();
        let args = ["orders", "search", "--pass", pass, "--cost", cost, "--evaluations", "12", "--jobs", "2"];
        let args = [&args[..], &["--bound", "off", "--out", o]].concat();
        ok(&[&args[..], &board].concat());
        let rows = candidates(&out);
        assert!(rows.len() == 12 + 1 || rows.len() == 12, "12 evaluations and the rule: {}", rows.len());
        let best = std::fs::read_to_string(out.join("best-1.order")).unwrap();
        let best_levels = format!("levels:{}", best.split_whitespace().collect::<Vec<_>>().join(","));
        let best_file = format!("custom:{}", out.join("best-1.order").display());
        let picked =
            [(rows[0].2.clone(), rows[0].2.clone()), (rows[5].2.clone(), rows[5].2.clone()), (best_file, best_levels)];
        for (order, as_levels) in picked {
            let nodes = ply_nodes(pass, &board, &order, tmp.path());
            let expected = if cost == "sum" { nodes.iter().sum::<u64>() } else { *nodes.iter().max().unwrap() };
            let row = rows.iter().find(|r| r.2 == as_levels).expect("the order is a candidate");
            assert_eq!(row.1, expected.to_string(), "{pass} {cost} under {order}");
        }
    }
}

/// An observer that keeps nothing.
struct Quiet;

impl Observer for Quiet {
    fn tried(&mut self, _: Phase, _: &str, _: &Tried) -> anyhow::Result<()> {
        Ok(())
    }
}

fn settings(start: OrderSpec, strategy: Strategy, grouping: Grouping, evaluations: usize) -> SearchSettings {
    let size = BoardSize::new(4, 4).unwrap();
    let measure =
        Measure { size, encoding: EncodingKind::Compressed, pass: Pass::Count, cost: CostKind::Sum, max_nodes: None };
    let (time, seed, jobs, node_factor, bound) = (None, 5, 2, 4, Bound::Off);
    SearchSettings { measure, start, strategy, grouping, evaluations, time, seed, jobs, node_factor, bound }
}

/// An observer that keeps every order tried.
#[derive(Default)]
struct Kept(Vec<Tried>);

impl Observer for Kept {
    fn tried(&mut self, _: Phase, _: &str, tried: &Tried) -> anyhow::Result<()> {
        self.0.push(tried.clone());
        Ok(())
    }
}

/// The bound stops candidates that can no longer be taken and changes no
/// decision: the same candidates in the same order, the finished ones at the
/// same cost, the same best and current orders; each stopped candidate had
/// passed the best cost before its last ply, and its full run costs more.
#[test]
fn a_bound_stops_hopeless_candidates_and_changes_no_decision() {
    let kinds = [(Pass::Count, CostKind::Sum, 16), (Pass::Solve, CostKind::Max, 0)];
    for ((pass, cost, last), strategy) in kinds.into_iter().flat_map(|k| [(k, Strategy::Sift), (k, Strategy::Random)]) {
        let run = |bound: Bound| {
            let mut s = SearchSettings { bound, ..settings(OrderSpec::COLUMN_WISE, strategy, Grouping::Keep, 60) };
            (s.measure.pass, s.measure.cost) = (pass, cost);
            let mut kept = Kept::default();
            let outcome = search(&s, Default::default(), &mut kept).unwrap();
            (kept.0, outcome)
        };
        let ((exact, full), (bounded, cut)) = (run(Bound::Off), run(Bound::Best));
        let case = format!("{pass} {cost:?} {strategy:?}");
        let orders = |t: &[Tried]| t.iter().map(|t| t.levels.clone()).collect::<Vec<_>>();
        assert_eq!(orders(&bounded), orders(&exact), "{case}: the same candidates");
        assert_eq!((&cut.ranked[0].0, cut.ranked[0].1.cost), (&full.ranked[0].0, full.ranked[0].1.cost));
        assert_eq!((&cut.current.0, cut.current.1.cost), (&full.current.0, full.current.1.cost));
        let best = full.ranked[0].1.cost.unwrap();
        let so_far = |e: &Evaluation| if cost == CostKind::Sum { e.sum_nodes } else { e.max_nodes };
        let mut stopped = 0;
        for (e, b) in exact.iter().map(|t| t.evaluation).zip(bounded.iter().map(|t| t.evaluation)) {
            match (b.cost, b.cut_at) {
                (Some(c), _) => assert_eq!(Some(c), e.cost, "{case}"),
                (None, Some(ply)) => {
                    stopped += 1;
                    assert!(ply != last, "{case}: stopped before its last ply");
                    assert!(best < so_far(&b) && so_far(&b) <= e.cost.unwrap(), "{case}: {b:?} {e:?}");
                }
                (None, None) => assert_eq!(e.cost, None, "{case}: the node limit stops both"),
            }
        }
        assert!(stopped > 0, "{case}: the bound stopped some candidate");
    }
}

#[test]
fn sifting_never_ends_worse_than_it_started() {
    for start in [OrderSpec::ROW_WISE, OrderSpec::COLUMN_WISE, OrderSpec::CENTER_OUT] {
        for (grouping, bound) in
            [(Grouping::Keep, Bound::Off), (Grouping::Break, Bound::Off), (Grouping::Break, Bound::Best)]
        {
            let s = SearchSettings { bound, ..settings(start.clone(), Strategy::Sift, grouping, 150) };
            let outcome = search(&s, Default::default(), &mut Quiet).unwrap();
            let (start_cost, end) = (outcome.start.1.cost.unwrap(), outcome.current.1.cost.unwrap());
            assert!(end <= start_cost, "{} {grouping:?} {bound:?}: {end} > {start_cost}", start.name());
            assert_eq!(Some(end), outcome.ranked[0].1.cost, "sifting ends at the cheapest order it saw");
            assert!(outcome.evaluations <= 150);
        }
    }
}

#[test]
fn a_search_repeats_with_its_seed_and_resumes_in_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, seed: &str, evaluations: &str| {
        let out = tmp.path().join(name);
        let args = ["orders", "search", "-W", "4", "-H", "4", "--strategy", "random", "--grouping", "break"];
        ok(&[&args[..], &["--seed", seed, "--evaluations", evaluations, "--out", out.to_str().unwrap()]].concat());
        candidates(&out)
    };
    let first = run("a", "9", "30");
    assert_eq!(run("b", "9", "30"), first, "the same seed: the same candidates and costs");
    assert_ne!(run("c", "10", "30"), first, "another seed: other candidates");
    // A search stopped after 12 evaluations, resumed with a budget of 30:
    // the candidates of one search of 30 (the first 12 read back).
    run("d", "9", "12");
    let resumed = run("d", "9", "30");
    let without_rules =
        |rows: &[(String, String, String)]| rows.iter().filter(|r| r.0 != "rule").cloned().collect::<Vec<_>>();
    assert_eq!(without_rules(&resumed), without_rules(&first));
    // Another search's folder is refused.
    let out = c4bdd(&[
        "orders",
        "search",
        "-W",
        "4",
        "-H",
        "4",
        "--seed",
        "1",
        "--out",
        tmp.path().join("d").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds a search with other settings (") && err.contains("seed 9 (asked: 1)"), "{err}");
}

#[test]
fn a_rule_read_off_a_small_board_orders_a_larger_one() {
    let tmp = tempfile::tempdir().unwrap();
    let rule = tmp.path().join("center-out.rule.toml");
    std::fs::write(&rule, ok(&["orders", "rule", "-W", "5", "-H", "5", "--order", "center-out"])).unwrap();
    let by_rule = format!("rule:{}", rule.display());
    for board in [["-W", "7", "-H", "4"], ["-W", "6", "-H", "4"]] {
        let nodes = ply_nodes("count", &board, &by_rule, tmp.path());
        assert_eq!(nodes, ply_nodes("count", &board, "center-out", tmp.path()), "{board:?}");
    }
}

#[test]
fn bad_orders_and_rules_are_refused_with_the_value() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.rule.toml");
    std::fs::write(&bad, "stm = 2.0\nmajor = \"column\"\ncells = [[0.0]]\n").unwrap();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["--order".into(), format!("rule:{}", bad.display())],
            "stm = 2 must be from 0 (first) to 1 (last)".into(),
        ),
        (vec!["--order".into(), "rule:/nonexistent.toml".into()], "cannot read order rule /nonexistent.toml".into()),
        (
            vec!["--order".into(), "levels:stm,c1r1".into()],
            "levels: 15 variables are missing, the first is 'c1r2'".into(),
        ),
    ];
    for (args, why) in cases {
        let args: Vec<&str> =
            ["count", "-W", "4", "-H", "3"].into_iter().chain(args.iter().map(String::as_str)).collect();
        let out = c4bdd(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&why) && err.trim_end().lines().count() == 1, "{why}: {err}");
    }
    let out = c4bdd(&["orders", "search", "-W", "4", "-H", "3", "--start", "columns:1,1,2,3", "--out", "x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--start: ") && err.contains("columns:1,1,2,3: not a permutation"), "{err}");
    assert!(!Path::new("x").exists(), "nothing written");
}

#[test]
fn the_orders_page_ranks_searched_orders_beside_the_papers() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let dir = results.join("order_search").join("an-archive").join("4x4");
    ok(&["orders", "search", "-W", "4", "-H", "4", "--evaluations", "20", "--out", dir.to_str().unwrap()]);
    let (plots, repro) = (tmp.path().join("plots"), tmp.path().join("repro.md"));
    let (r, p, m) = (results.to_str().unwrap(), plots.to_str().unwrap(), repro.to_str().unwrap());
    ok(&["report", "--results", r, "--plots", p, "--repro", m]);
    let page = std::fs::read_to_string(plots.join("orders.md")).unwrap();
    let rows = candidates(&dir);
    let cheapest = rows.iter().filter(|r| r.0 != "rule").filter_map(|r| r.1.parse::<u64>().ok()).min().unwrap();
    let start: u64 = rows[0].1.parse().unwrap();
    let ratio = format!("{:+.1}%", (cheapest as f64 / start as f64 - 1.0) * 100.0);
    let source = "order_search/an-archive/4x4";
    assert!(page.contains(&format!("| 1 | best-1.order | {source} | {cheapest} | {ratio} |")), "{page}");
    assert!(page.contains(&format!("| paper | {source} | {start} | +0.0% |")), "{page}");
}

/// A folder whose search.json has no bound and whose candidates.csv has no
/// cut_at column is a search that ran every candidate to the end: it resumes
/// with `--bound off` (the column added, empty) and is refused with the
/// default bound, which the message names.
#[test]
fn a_folder_without_the_bound_resumes_as_a_search_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("s");
    let o = out.to_str().unwrap();
    let search = |evaluations: &str, bound: &str| {
        let args = ["orders", "search", "-W", "4", "-H", "3", "--strategy", "random", "--bound", bound];
        c4bdd(&[&args[..], &["--evaluations", evaluations, "--out", o]].concat())
    };
    assert!(search("6", "off").status.success());
    let first = candidates(&out);
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("search.json")).unwrap()).unwrap();
    assert_eq!(meta["identity"].as_object_mut().unwrap().remove("bound"), Some("off".into()));
    std::fs::write(out.join("search.json"), meta.to_string()).unwrap();
    let table = std::fs::read_to_string(out.join("candidates.csv")).unwrap();
    let without_cut_at: String = table
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split(',').collect();
            fields.remove(4);
            fields.join(",") + "\n"
        })
        .collect();
    assert!(table.lines().next().unwrap().split(',').nth(4) == Some("cut_at"));
    std::fs::write(out.join("candidates.csv"), without_cut_at).unwrap();
    let refused = search("9", "best");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("bound off (asked: best)"), "{err}");
    assert!(search("9", "off").status.success());
    let resumed = candidates(&out);
    let header = std::fs::read_to_string(out.join("candidates.csv")).unwrap().lines().next().unwrap().to_string();
    assert!(header.split(',').nth(4) == Some("cut_at"), "{header}");
    let searched =
        |rows: &[(String, String, String)]| rows.iter().filter(|r| r.0 != "rule").cloned().collect::<Vec<_>>();
    assert_eq!(searched(&resumed)[..6], searched(&first)[..], "the first six read back");
    assert_eq!(searched(&resumed).len(), 9);
}

/// The search's summary line says how many candidates the bound stopped:
/// as many as `candidates.csv` records with a `cut_at` ply.
#[test]
fn the_summary_counts_the_candidates_the_bound_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("s");
    let args = ["orders", "search", "-W", "4", "-H", "4", "--strategy", "random", "--evaluations", "30", "--out"];
    let printed = ok(&[&args[..], &[out.to_str().unwrap()]].concat());
    let rows: Vec<c4bdd::order_search::output::CandidateRow> =
        c4bdd::experiment::record::read_rows(&out.join("candidates.csv")).unwrap();
    let cut = rows.iter().filter(|r| r.cut_at.is_some()).count();
    assert!(cut > 0, "the bound stopped some candidate");
    assert!(printed.contains(&format!("30 orders evaluated ({cut} stopped once past the best) in ")), "{printed}");
}
