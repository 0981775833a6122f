//! The strong solution against the explicit retrograde solver.

use c4bdd::bdd::Config;
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::explicit::{ExplicitSolution, Outcome};
use c4bdd::game::BoardSize;
use c4bdd::search::{
    forward, solve, ForwardOptions, ImageStrategy, Solution, SolutionWriter, SolvePly, TerminalStrategy, Value,
};

fn bdd_solve(kind: EncodingKind, size: BoardSize, order: &OrderSpec, opts: ForwardOptions) -> (Vec<SolvePly>, Value) {
    let mut space = StateSpace::new(kind, size, order, Config::default()).unwrap();
    let summary = solve(&mut space, &opts, |_| Ok(()), |_, _, _, _| Ok(())).unwrap();
    space.manager.check().unwrap();
    assert_eq!(space.manager.gc(&[]).live_after, 0, "solve leaves nothing pinned");
    (summary.plies, summary.value.expect("a whole solve has a value"))
}

fn value_of(explicit: &ExplicitSolution, size: BoardSize) -> Value {
    match explicit.outcome(&c4bdd::game::Position::empty(size)).unwrap() {
        Outcome::Win => Value::FirstPlayerWins,
        Outcome::Draw => Value::Draw,
        Outcome::Loss => Value::SecondPlayerWins,
    }
}

#[test]
fn bdd_solve_matches_the_explicit_solver_ply_by_ply() {
    let mut boards = vec![BoardSize::new(5, 4).unwrap(), BoardSize::new(4, 5).unwrap()];
    for w in 1..=13 {
        for h in 1..=13 {
            if w * h <= 16 {
                boards.push(BoardSize::new(w, h).unwrap());
            }
        }
    }
    for size in boards {
        let explicit = ExplicitSolution::solve(size).unwrap();
        let table = explicit.table();
        // (image, terminal, image split, split in parts)
        let strategies = [
            (ImageStrategy::InPlace, TerminalStrategy::Whole, 0, 0),
            (ImageStrategy::Monolithic, TerminalStrategy::Whole, 0, 0),
            (ImageStrategy::InPlaceColumns, TerminalStrategy::Whole, 0, 0),
            (ImageStrategy::InPlace, TerminalStrategy::Lines, 0, 0),
            (ImageStrategy::InPlace, TerminalStrategy::Whole, 3, 0),
            (ImageStrategy::Monolithic, TerminalStrategy::Whole, 2, 0),
            (ImageStrategy::InPlace, TerminalStrategy::Whole, 0, 2),
            (ImageStrategy::Monolithic, TerminalStrategy::Whole, 2, 3),
            (ImageStrategy::InPlace, TerminalStrategy::Lines, 0, 1),
        ];
        for (kind, (image, terminal, image_split, split_parts)) in
            EncodingKind::all().flat_map(|k| strategies.map(|s| (k, s)))
        {
            let opts = ForwardOptions { image, terminal, image_split, split_parts };
            let (plies, value) = bdd_solve(kind, size, &OrderSpec::PAPER, opts);
            let got: Vec<(u64, u64, u64, u64, u64)> = plies
                .iter()
                .map(|p| (p.won as u64, p.drawn as u64, p.lost as u64, p.total as u64, p.terminal as u64))
                .collect();
            let what = format!("{size} {kind} {image:?} {terminal:?} split {image_split} parts {split_parts}");
            assert_eq!(got, table, "{what}");
            assert_eq!(value, value_of(&explicit, size), "{what}");
        }
    }
}

#[test]
fn outcomes_add_up_to_the_forward_count_in_every_strategy() {
    let size = BoardSize::new(4, 4).unwrap();
    for kind in EncodingKind::all() {
        let mut space = StateSpace::new(kind, size, &OrderSpec::ROW_WISE, Config::default()).unwrap();
        let (counted, _) = forward(&mut space, &ForwardOptions::default(), false, |_| {}).unwrap();
        for terminal in [TerminalStrategy::Whole, TerminalStrategy::Lines] {
            for image in ImageStrategy::all() {
                let (plies, _) = bdd_solve(
                    kind,
                    size,
                    &OrderSpec::ROW_WISE,
                    ForwardOptions { image, terminal, ..Default::default() },
                );
                for (p, c) in plies.iter().zip(&counted.plies) {
                    assert_eq!(p.won + p.drawn + p.lost, c.states, "{kind} ply {}", p.ply);
                    assert_eq!(p.total, c.states);
                }
            }
        }
    }
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap();
    let off = ForwardOptions { terminal: TerminalStrategy::Off, ..Default::default() };
    assert!(solve(&mut space, &off, |_| Ok(()), |_, _, _, _| Ok(())).is_err(), "solving needs termination");
}

/// Each ply's time split by phase: every phase fits in the ply's time, the
/// summary adds up both passes, and a phase is spent where the pass has work
/// of that kind (no pre-image at the last ply, no image before ply 0; the
/// forward pass splits off and counts the terminal states of every ply but
/// the last, the retrograde pass those of the last ply only).
#[test]
fn phases_fit_in_each_plys_time_and_add_up() {
    let size = BoardSize::new(5, 4).unwrap();
    // A small collection threshold, so that collections happen inside plies.
    let config = Config { gc_min_live: 1 << 12, ..Config::default() };
    let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap();
    let summary = solve(&mut space, &ForwardOptions::default(), |_| Ok(()), |_, _, _, _| Ok(())).unwrap();
    let forward: Vec<_> = summary.forward.plies.iter().map(|p| (p.ply, p.time_s, p.phases.unwrap())).collect();
    let retrograde: Vec<_> = summary.plies.iter().map(|p| (p.ply, p.time_s, p.phases.unwrap())).collect();
    for (pass, plies) in [("forward", &forward), ("retrograde", &retrograde)] {
        for &(ply, time_s, p) in plies {
            let parts = [p.terminal_s, p.image_s, p.count_s, p.gc_s, p.split_s];
            assert!(parts.iter().all(|&s| s >= 0.0), "{pass} ply {ply}: {p:?}");
            assert!(parts.iter().sum::<f64>() <= time_s + 1e-6, "{pass} ply {ply}: {p:?} in {time_s} s");
            assert!(p.count_s > 0.0, "{pass} ply {ply}: {p:?}");
        }
    }
    let last = size.cells();
    for &(ply, _, p) in &forward {
        assert_eq!(ply == 0, p.image_s == 0.0, "forward ply {ply}: {p:?}");
        assert_eq!(ply == last, p.terminal_s == 0.0, "forward ply {ply}: {p:?}");
        assert_eq!(p.split_s, 0.0, "forward ply {ply}: {p:?}");
    }
    for &(ply, _, p) in &retrograde {
        assert_eq!(ply == last, p.image_s == 0.0, "retrograde ply {ply}: {p:?}");
        assert_eq!(ply == last, p.split_s == 0.0, "retrograde ply {ply}: {p:?}");
        assert_eq!(ply == last, p.terminal_s > 0.0, "retrograde ply {ply}: {p:?}");
    }
    assert!(forward.iter().chain(&retrograde).any(|&(_, _, p)| p.gc_s > 0.0), "no collection inside a ply");
    let total = summary.phases.unwrap();
    let sum =
        |f: fn(&c4bdd::search::Phases) -> f64| forward.iter().chain(&retrograde).map(|(_, _, p)| f(p)).sum::<f64>();
    for (got, want) in [
        (total.terminal_s, sum(|p| p.terminal_s)),
        (total.image_s, sum(|p| p.image_s)),
        (total.count_s, sum(|p| p.count_s)),
        (total.gc_s, sum(|p| p.gc_s)),
        (total.split_s, sum(|p| p.split_s)),
    ] {
        assert!((got - want).abs() < 1e-9, "{total:?}");
    }
    assert_eq!(summary.forward.phases, c4bdd::search::Phases::total(summary.forward.plies.iter().map(|p| p.phases)));
}

/// Solve into a directory and return it.
pub(crate) fn saved_solution(kind: EncodingKind, size: BoardSize, order: &OrderSpec) -> tempfile::TempDir {
    saved_solution_with(kind, size, order, Config::default())
}

/// [`saved_solution`] with a manager of `config`.
pub(crate) fn saved_solution_with(
    kind: EncodingKind,
    size: BoardSize,
    order: &OrderSpec,
    config: Config,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut space = StateSpace::new(kind, size, order, config).unwrap();
    let mut writer = SolutionWriter::create(dir.path(), &space, order).unwrap();
    let summary =
        solve(&mut space, &ForwardOptions::default(), |_| Ok(()), |s, ply, win, lost| writer.store(s, ply, win, lost))
            .unwrap();
    writer.finish(&space, summary.value).unwrap();
    dir
}

#[test]
fn a_saved_solution_answers_every_position_like_the_explicit_solver() {
    for (kind, size) in [(EncodingKind::Compressed, (4, 4)), (EncodingKind::Cellwise, (5, 3))] {
        let size = BoardSize::new(size.0, size.1).unwrap();
        let explicit = ExplicitSolution::solve(size).unwrap();
        let dir = saved_solution(kind, size, &OrderSpec::CENTER_OUT);
        let mut solution = Solution::open(dir.path()).unwrap();
        assert_eq!(solution.manifest.value, Some(value_of(&explicit, size)));
        let mut checked = 0;
        for ply in 0..=size.cells() {
            let (win, lost) = solution.load_ply(ply).unwrap();
            for p in explicit.positions(ply) {
                assert_eq!(solution.classify(win, lost, &p), explicit.outcome(&p).unwrap(), "{size} ply {ply}");
                checked += 1;
            }
            solution.space.manager.gc(&[]);
        }
        assert!(checked > 10_000, "{checked} positions checked");
    }
}

#[test]
fn damaged_or_mismatched_solutions_are_rejected() {
    let size = BoardSize::new(4, 3).unwrap();
    let dir = saved_solution(EncodingKind::Compressed, size, &OrderSpec::COLUMN_WISE);
    let ply_file = dir.path().join("ply-06.bdd");
    let good = std::fs::read(&ply_file).unwrap();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x10;
    let mut label = good.clone();
    label[20] ^= 0x01;
    let mut tail = good.clone();
    tail[good.len() - 10] ^= 0x01;
    let p = c4bdd::game::Position::from_moves(size, "123412").unwrap();
    let cases =
        [("flipped", flipped), ("truncated", good[..good.len() - 7].to_vec()), ("label", label), ("tail", tail)];
    for (what, bytes) in cases {
        std::fs::write(&ply_file, &bytes).unwrap();
        let err = Solution::open(dir.path()).unwrap().load_ply(6).unwrap_err().to_string();
        assert!(err.contains("ply-06.bdd"), "{what}: {err}");
        let err = Solution::open(dir.path()).unwrap().outcome(&p).unwrap_err().to_string();
        assert!(err.contains("ply-06.bdd"), "{what}, read in place: {err}");
    }
    std::fs::write(&ply_file, &good).unwrap();
    assert!(Solution::open(dir.path()).unwrap().load_ply(6).is_ok());

    let manifest = dir.path().join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for (from, to) in
        [("\"width\": 4", "\"width\": 5"), ("\"version\": 3", "\"version\": 9"), ("\"plies\"", "\"plys\"")]
    {
        std::fs::write(&manifest, text.replace(from, to)).unwrap();
        let err = Solution::open(dir.path()).err().expect("a damaged manifest is refused").to_string();
        assert!(err.contains("manifest.json"), "{from}: {err}");
    }
    std::fs::write(&manifest, &text).unwrap();
    let mut solution = Solution::open(dir.path()).unwrap();
    let other = c4bdd::game::Position::empty(BoardSize::new(5, 3).unwrap());
    assert!(solution.outcome(&other).is_err(), "a position of another board is refused");
    assert!(
        SolutionWriter::create(dir.path(), &solution.space, &OrderSpec::PAPER).is_err(),
        "an existing solution is not overwritten"
    );
}

/// Every file of the solution in `dir`, by name.
pub(crate) fn files_of(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_solution_saved_on_two_threads_equals_one_saved_on_one() {
    let size = BoardSize::new(5, 4).unwrap();
    let one = saved_solution_with(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default());
    let want = files_of(one.path());
    assert_eq!(want.len(), size.cells() as usize + 2, "a file per ply and the manifest");
    let config = Config { threads: 2, ..Config::default() };
    let two = saved_solution_with(EncodingKind::Compressed, size, &OrderSpec::PAPER, config);
    assert!(files_of(two.path()) == want, "the files differ");
}
