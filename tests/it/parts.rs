//! `c4bdd parts`: every part of a split ply against the explicit solver.

use std::collections::HashMap;

use c4bdd::bdd::Level;
use c4bdd::encoding::{EncodingKind, OrderSpec};
use c4bdd::game::explicit::{ExplicitSolution, Outcome};
use c4bdd::game::BoardSize;
use c4bdd::search::stored::parts::ply_parts;
use c4bdd::search::Solution;

fn solution_dir(kind: EncodingKind, size: BoardSize) -> tempfile::TempDir {
    crate::solve::saved_solution(kind, size, &OrderSpec::PAPER)
}

/// Every part's won and lost positions are those the explicit solver gives
/// the positions whose cut variables have the part's values: cuts on the
/// top 0, 1 and 3 variables and on named cells of the middle columns.
#[test]
fn every_part_holds_the_explicit_solvers_positions_of_its_values() {
    let named = [("c2r1,c3r1,c3r2", EncodingKind::Compressed), ("c3r1p1,c3r2p2,c2r1p2", EncodingKind::Cellwise)];
    for (kind, size) in [(EncodingKind::Compressed, (4, 4)), (EncodingKind::Cellwise, (5, 3))] {
        let size = BoardSize::new(size.0, size.1).unwrap();
        let explicit = ExplicitSolution::solve(size).unwrap();
        let dir = solution_dir(kind, size);
        let mut solution = Solution::open(dir.path()).unwrap();
        for ply in [0, 5, 8, size.cells() - 1, size.cells()] {
            let names = named.iter().find(|n| n.1 == kind).unwrap().0.split(',').map(String::from).collect();
            let top_cuts = [0, 1, 3].map(|k| c4bdd::search::stored::parts::top_cells(&solution.space, k));
            for cut in top_cuts.into_iter().chain([names]) {
                let top = cut.len() as u32;
                let split = ply_parts(&mut solution, ply, &cut).unwrap();
                assert_eq!(split.variables, cut);
                assert_eq!(split.parts.len(), 1 << top);
                // The values of the cut's variables, as the explicit positions have them.
                let space = &solution.space;
                assert!(!split.variables.iter().any(|v| v == "stm"), "the side to move splits no ply");
                let top_vars: Vec<_> = split
                    .variables
                    .iter()
                    .map(|name| {
                        let j = space.arrangement.iter().position(|a| a == name).unwrap();
                        space.manager.var_at(Level(2 * j as u32))
                    })
                    .collect();
                let mut want: HashMap<String, (u128, u128)> = HashMap::new();
                for p in explicit.positions(ply) {
                    // The assignment gives both frames' variables the same values.
                    let values = space.assignment(&p);
                    let key: String = top_vars.iter().map(|v| if values[v.0 as usize] { '1' } else { '0' }).collect();
                    let e = want.entry(key).or_default();
                    match explicit.outcome(&p).unwrap() {
                        Outcome::Win => e.0 += 1,
                        Outcome::Loss => e.1 += 1,
                        Outcome::Draw => {}
                    }
                }
                for part in &split.parts {
                    let got = (part.won, part.lost);
                    assert_eq!(
                        got,
                        want.get(&part.values).copied().unwrap_or_default(),
                        "{size} ply {ply} part {}",
                        part.values
                    );
                    assert!(part.nodes <= part.won_nodes + part.lost_nodes);
                }
                assert_eq!(split.whole.won, split.parts.iter().map(|p| p.won).sum::<u128>());
                if top == 0 {
                    assert_eq!(split.parts[0].nodes, split.whole.nodes, "no split is the whole ply");
                }
            }
        }
    }
}

/// The command prints every part, writes the CSV, takes the largest ply by
/// default, and refuses a ply or a split it cannot make in one line.
#[test]
fn the_command_writes_every_part_and_refuses_bad_values() {
    let size = BoardSize::new(4, 4).unwrap();
    let dir = solution_dir(EncodingKind::Compressed, size);
    let sol = dir.path().to_str().unwrap();
    let csv = dir.path().join("parts.csv");
    let run = |args: &[&str]| std::process::Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().unwrap();
    let out = run(&["parts", "--solution", sol, "--top", "2", "--csv", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let solution = Solution::open(dir.path()).unwrap();
    let largest = solution.manifest.plies.iter().max_by_key(|p| p.bytes).unwrap().ply;
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(&format!("4x4 ply {largest}, split on ")), "{text}");
    let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&csv).unwrap().records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| (&r[0], &r[1], &r[2]) == ("4x4", "compressed", "paper")), "{rows:?}");
    assert!(rows.iter().all(|r| r[3] == largest.to_string() && &r[4] == "2"));
    let out = run(&["parts", "--solution", sol, "--cut", "c2r2,c3r1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("split on c2r2, c3r1 (4 parts)"), "{text}");
    let bad = [
        (["--ply", "17"], "--ply 17"),
        (["--top", "99"], "99"),
        (["--cut", "c2r2,c9r1"], "--cut: c9r1 is not a variable of a cell"),
        (["--cut", "c2r2,c2r2"], "--cut: c2r2 comes twice"),
    ];
    for (args, names) in bad {
        let mut all = vec!["parts", "--solution", sol];
        all.extend(args);
        let out = run(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(names), "{err}");
    }
}
