//! The bodies of the interactive commands: `count`, `solve`, `query`, `best`.

use std::fs::File;
use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::{BestArgs, CountArgs, InputError, QueryArgs, SolveArgs};
use crate::encoding::{EncodingKind, Frame, StateSpace};
use crate::game::BoardSize;
use crate::measure::peak_rss_bytes;
use crate::search::{forward_from, Checkpoint, ForwardOptions, ImageStrategy, PlyRecord, TerminalStrategy, Transition};

/// One CSV row of `count --csv`.
#[derive(serde::Serialize)]
struct CountRow<'a> {
    width: u8,
    height: u8,
    encoding: EncodingKind,
    order: &'a str,
    image: ImageStrategy,
    terminal: TerminalStrategy,
    ply: u32,
    states: u128,
    bdd_nodes: u64,
    live_nodes: u64,
    time_s: f64,
    rss_bytes: Option<u64>,
    peak_rss_bytes: Option<u64>,
}

/// Open a `--csv` file before any work, so that a bad path fails at once.
fn open_csv(path: Option<&std::path::Path>) -> Result<Option<csv::Writer<File>>> {
    let Some(path) = path else { return Ok(None) };
    let file =
        File::create(path).map_err(|e| InputError(format!("cannot write --csv file {}: {e}", path.display())))?;
    Ok(Some(csv::Writer::from_writer(file)))
}

pub fn count(args: CountArgs) -> Result<()> {
    let size = args.board.size()?;
    let terminal = if args.no_termination { TerminalStrategy::Off } else { args.terminal };
    let opts = ForwardOptions { image: args.image, terminal };
    let config = args.manager.config(crate::bdd::Config::for_count())?;
    let mut csv = open_csv(args.csv.as_deref())?;
    let mut space = StateSpace::new(args.encoding.encoding, size, &args.encoding.order, config)?;
    let order = space.order_name.clone();
    let (image, term) = (opts.image, opts.terminal);
    println!(
        "board {size}, encoding {}, order {order}, image {image}, terminal {term}, threads {}",
        args.encoding.encoding,
        space.manager.threads()
    );
    println!("{:>4} {:>22} {:>12} {:>12} {:>9} {:>8}", "ply", "states", "bdd_nodes", "live_nodes", "time_s", "rss_MB");
    let rules = Transition::build(&mut space, &opts)?;
    let (mut checkpoint, resume) = match &args.checkpoint {
        Some(dir) => {
            let (c, r) = Checkpoint::open(dir, &mut space, &opts)?;
            (Some(c), r)
        }
        None => (None, None),
    };
    let mut records: Vec<PlyRecord> = Vec::new();
    let mut csv_error = None;
    let mut show = |r: &PlyRecord| {
        let rss = r.rss_bytes.map_or("-".to_string(), |b| format!("{:.0}", b as f64 / 1e6));
        println!("{:>4} {:>22} {:>12} {:>12} {:>9.3} {rss:>8}", r.ply, r.states, r.bdd_nodes, r.live_nodes, r.time_s);
        let _ = std::io::stdout().flush();
        if let (Some(w), None) = (csv.as_mut(), csv_error.as_ref()) {
            let row = CountRow {
                width: size.width,
                height: size.height,
                encoding: args.encoding.encoding,
                order: &order,
                image,
                terminal: term,
                ply: r.ply,
                states: r.states,
                bdd_nodes: r.bdd_nodes,
                live_nodes: r.live_nodes,
                time_s: r.time_s,
                rss_bytes: r.rss_bytes,
                peak_rss_bytes: r.peak_rss_bytes,
            };
            if let Err(e) = w.serialize(row).and_then(|_| w.flush().map_err(csv::Error::from)) {
                csv_error = Some(e);
            }
        }
    };
    if let Some(r) = &resume {
        println!("(resumed from the checkpoint after ply {})", r.records.len() - 1);
        for record in &r.records {
            show(record);
        }
        records = r.records.clone();
    }
    let to_a = if args.full_bdd { Some(space.b_to_a()?) } else { None };
    let mut full = crate::bdd::Bdd::FALSE;
    // Summed over the plies counted here: (plain nodes, nodes with complement edges).
    let mut complement = (0u64, 0u64);
    let result = forward_from(&mut space, &rules, resume, false, false, |space, r, states| {
        show(r);
        records.push(*r);
        if args.complement_edges {
            complement.0 += r.bdd_nodes;
            complement.1 += space.manager.complement_edge_size(states) as u64;
        }
        if let Some(renaming) = to_a {
            // full := full ∨ states (over frame A); pinned across later collections.
            let m = &mut space.manager;
            let in_a = if rules.frame_of(r.ply) == Frame::B { m.rename(states, renaming)? } else { states };
            let union = m.or(full, in_a)?;
            m.pin(union);
            m.unpin(full);
            full = union;
        }
        match checkpoint.as_mut() {
            Some(c) => c.save(space, &records, states),
            None => Ok(()),
        }
    });
    let finished = records.last().map(|r| r.ply);
    let (summary, _) = result.with_context(|| match finished {
        Some(ply) => format!("count of board {size} stopped at ply {}", ply + 1),
        None => format!("count of board {size} stopped while building the transition relations"),
    })?;
    rules.release(&mut space.manager);
    if let Some(e) = csv_error {
        let path = args.csv.as_deref().unwrap_or(std::path::Path::new("")).display().to_string();
        return Err(e).context(format!("cannot write the --csv file {path}"));
    }
    let rss = peak_rss_bytes().map_or("unknown".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6));
    println!("total positions: {}", summary.positions);
    println!(
        "time {:.3} s, GC {:.1}% ({} runs), peak live nodes {}, peak RSS {rss}",
        summary.time_s,
        summary.gc_share() * 100.0,
        summary.gc_runs,
        summary.peak_nodes
    );
    if let Some(phases) = summary.phases {
        println!("time by phase: {}", phases.shares(summary.plies.iter().map(|p| p.time_s).sum()));
    }
    if args.complement_edges {
        let (plain, with) = complement;
        let fewer = 100.0 * (plain - with) as f64 / plain.max(1) as f64;
        println!("with complement edges: {with} nodes over the plies counted, {plain} without ({fewer:.4}% fewer)");
    }
    if args.full_bdd {
        let (count, nodes) = space.count_and_size(full, Frame::A);
        println!("all positions in one BDD: {nodes} nodes, {count} positions");
        if count != summary.positions {
            anyhow::bail!("the union of all plies counts {count} positions, the plies {}", summary.positions);
        }
    }
    if args.stats {
        print!("{}", space.manager.stats().op_table());
    }
    Ok(())
}

/// One CSV row of `solve --csv` (the paper's Table 2 columns).
#[derive(serde::Serialize)]
struct SolveRow {
    width: u8,
    height: u8,
    ply: u32,
    won: u128,
    drawn: u128,
    lost: u128,
    total: u128,
    terminal: u128,
}

pub fn solve(args: SolveArgs) -> Result<()> {
    use crate::search::{backward::solve_resumable, SolutionWriter, SolveCheckpoint};
    let size = args.board.size()?;
    if matches!(args.terminal, TerminalStrategy::Off | TerminalStrategy::Fused) {
        let name = args.terminal;
        return Err(InputError(format!("invalid value '{name}' for '--terminal': solving needs whole or lines")).into());
    }
    let opts = ForwardOptions { image: args.image, terminal: args.terminal };
    let config = args.manager.config(crate::bdd::Config::default())?;
    let mut writer = match &args.out {
        Some(dir) => Some(SolutionWriter::create(dir).map_err(|e| InputError(e.to_string()))?),
        None => None,
    };
    let mut csv = open_csv(args.csv.as_deref())?;
    let mut space = StateSpace::new(args.encoding.encoding, size, &args.encoding.order, config)?;
    println!(
        "board {size}, encoding {}, order {}, threads {}: forward pass, then plies from the last",
        args.encoding.encoding,
        space.order_name,
        space.manager.threads()
    );
    let mut checkpoint = match &args.checkpoint {
        Some(dir) => Some(SolveCheckpoint::open(dir, &mut space, &opts)?),
        None => None,
    };
    if let Some((_, resume)) = &checkpoint {
        if !resume.forward.is_empty() {
            let (layers, solved) = (resume.forward.len(), resume.solved.len());
            println!("(resumed from the checkpoint: {layers} forward layers, {solved} plies solved)");
        }
        if let Some(w) = writer.as_mut() {
            for p in &resume.solved {
                w.adopt(p.ply)
                    .with_context(|| format!("ply {} was solved before; resume with the same --out", p.ply))?;
            }
        }
    }
    println!("{:>4} {:>20} {:>20} {:>20} {:>20} {:>16}", "ply", "won", "drawn", "lost", "total", "terminal");
    let mut solved = None;
    let mut csv_error = None;
    let summary = solve_resumable(
        &mut space,
        &opts,
        checkpoint.as_mut().map(|(c, r)| (c, std::mem::take(r))),
        |p| {
            solved = Some(p.ply);
            println!("{:>4} {:>20} {:>20} {:>20} {:>20} {:>16}", p.ply, p.won, p.drawn, p.lost, p.total, p.terminal);
            // Rows are written as plies are solved (from the last ply down), so
            // a run stopped by a limit keeps every finished ply.
            if let (Some(w), None) = (csv.as_mut(), csv_error.as_ref()) {
                let row = SolveRow {
                    width: size.width,
                    height: size.height,
                    ply: p.ply,
                    won: p.won,
                    drawn: p.drawn,
                    lost: p.lost,
                    total: p.total,
                    terminal: p.terminal,
                };
                csv_error = w.serialize(row).and_then(|_| w.flush().map_err(csv::Error::from)).err();
            }
        },
        |space, ply, win, lost| writer.as_mut().map_or(Ok(()), |w| w.store(space, ply, win, lost)),
    )
    .with_context(|| match solved {
        Some(ply) => format!("solve of board {size} stopped at ply {}", ply.saturating_sub(1)),
        None => format!("solve of board {size} stopped in the forward pass"),
    })?;
    if let Some(e) = csv_error {
        let path = args.csv.as_deref().unwrap_or(std::path::Path::new("")).display().to_string();
        return Err(e).context(format!("cannot write the --csv file {path}"));
    }
    let stored = match writer {
        Some(w) => {
            let manifest = w.finish(&space, &args.encoding.order, summary.value)?;
            format!(", solution {} bytes in {}", manifest.total_bytes, args.out.as_ref().unwrap().display())
        }
        None => String::new(),
    };
    let rss = peak_rss_bytes().map_or("unknown".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6));
    println!("value of the empty board: {}", summary.value.name());
    println!(
        "time {:.3} s (forward {:.3} s), GC {:.1}%, peak live nodes {}, peak RSS {rss}{stored}",
        summary.time_s,
        summary.forward.time_s,
        summary.gc_s / summary.time_s.max(1e-9) * 100.0,
        summary.peak_nodes
    );
    if let Some(phases) = summary.phases {
        let plies_s: f64 = summary.forward.plies.iter().map(|p| p.time_s).sum::<f64>()
            + summary.plies.iter().map(|p| p.time_s).sum::<f64>();
        println!("time by phase (both passes): {}", phases.shares(plies_s));
    }
    if args.stats {
        print!("{}", space.manager.stats().op_table());
    }
    Ok(())
}

pub fn query(args: QueryArgs) -> Result<()> {
    use crate::game::explicit::Outcome;
    use crate::game::Position;
    let mut solution = crate::search::Solution::open(&args.solution)?;
    if let (Some(w), Some(h)) = (args.width, args.height) {
        let wanted = BoardSize::new(w, h)?;
        if wanted != solution.size() {
            let msg = format!("solution {} is for board {}, not {wanted}", args.solution.display(), solution.size());
            return Err(InputError(msg).into());
        }
    }
    let position = Position::from_moves(solution.size(), &args.moves)?;
    let outcome = solution.outcome(&position)?;
    let mover = if position.to_move() == crate::game::Player::First { "first" } else { "second" };
    let word = match outcome {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    };
    let note = if position.is_terminal_win() {
        " (the game is over: the previous move made four in a row)"
    } else if position.ply() == solution.size().cells() {
        " (the board is full)"
    } else {
        ""
    };
    println!(
        "{} after \"{}\" (ply {}, {mover} player to move): {word} for the {mover} player{note}",
        solution.size(),
        args.moves,
        position.ply()
    );
    Ok(())
}

pub fn best(args: BestArgs) -> Result<()> {
    use crate::game::alphabeta::{OutcomeProbe, Search};
    use crate::game::Position;
    let size = args.board.size()?;
    if !size.fits_bitboard() {
        return Err(
            InputError(format!("board {size} is too large for the explicit search (width*(height+1) > 128)")).into()
        );
    }
    let position = Position::from_moves(size, &args.moves)?;
    if position.is_terminal() {
        return Err(InputError(format!("the game after \"{}\" is already over", args.moves)).into());
    }
    let mut solution = match &args.solution {
        Some(dir) => {
            let s = crate::search::Solution::open(dir)?;
            if s.size() != size {
                let msg = format!("solution {} is for board {}, not {size}", dir.display(), s.size());
                return Err(InputError(msg).into());
            }
            Some(s)
        }
        None => None,
    };
    if let Some(s) = solution.as_mut() {
        // Surface a damaged solution here rather than searching without it.
        s.probe(&position)?;
    }
    let start = std::time::Instant::now();
    let probe = solution.as_mut().map(|s| s as &mut dyn OutcomeProbe);
    let mut search = Search::new(size, args.table_bits, probe);
    let values = search.move_values_with(&position, |c, v| println!("column {}: {v}", column_name(c)));
    let best = values
        .iter()
        .max_by_key(|(c, v)| (rank(*v), std::cmp::Reverse((2 * *c as i32 - (size.width as i32 - 1)).abs())));
    if let Some((c, v)) = best {
        println!("best move: column {} ({v})", column_name(*c));
    }
    println!(
        "searched {} positions, {} table probes, in {:.3} s",
        search.nodes,
        search.probes,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Order of move values for choosing: faster wins first, slower losses last.
fn rank(v: crate::game::alphabeta::MoveValue) -> i64 {
    use crate::game::alphabeta::MoveValue;
    match v {
        MoveValue::Win(n) => 1_000 - n as i64,
        MoveValue::Draw => 0,
        MoveValue::Loss(n) => -1_000 + n as i64,
    }
}

/// Columns as typed in move strings: 1..9, then a..d.
fn column_name(c: u8) -> char {
    std::char::from_digit(c as u32 + 1, 36).unwrap_or('?')
}
