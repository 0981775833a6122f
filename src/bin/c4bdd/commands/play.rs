//! The commands that take a position: `query` (its value in a stored
//! solution) and `best` (each move's exact value by search).

use anyhow::Result;
use serde::Serialize;

use crate::cli::{BestArgs, BookArgs, ExportArgs, InputError, QueryArgs, VerifyArgs};
use c4bdd::game::alphabeta::{MoveValue, OutcomeProbe, Search, MAX_KEY_BITS};
use c4bdd::game::explicit::Outcome;
use c4bdd::game::{BoardSize, Player, Position};
use c4bdd::search::book::{Book, BookOptions, BookProbe};
use c4bdd::search::{open_table, SolutionTable, TableProbe};

/// The position of `moves` or of a pasted board (`position`) on `size`, and
/// how to name it in output.
fn position_of(size: BoardSize, moves: &str, position: Option<&str>) -> Result<(Position, String)> {
    match position {
        Some(text) => {
            let p = c4bdd::game::layout::parse(text, Some(size)).map_err(|e| InputError(format!("position: {e}")))?;
            Ok((p, "the given board".to_string()))
        }
        None => Ok((Position::from_moves(size, moves)?, format!("\"{moves}\""))),
    }
}

fn mover_name(position: &Position) -> &'static str {
    if position.to_move() == Player::First {
        "first"
    } else {
        "second"
    }
}

pub fn query(args: QueryArgs) -> Result<()> {
    let mut solution = open_table(&args.solution)?;
    if let (Some(w), Some(h)) = (args.width, args.height) {
        let wanted = BoardSize::new(w, h)?;
        if wanted != solution.size() {
            let msg = format!("solution {} is for board {}, not {wanted}", args.solution.display(), solution.size());
            return Err(InputError(msg).into());
        }
    }
    let (position, name) = position_of(solution.size(), &args.moves, args.position.as_deref())?;
    let outcome = solution.outcome(&position)?;
    let mover = mover_name(&position);
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
        "{} after {name} (ply {}, {mover} player to move): {word} for the {mover} player{note}",
        solution.size(),
        position.ply()
    );
    Ok(())
}

/// `c4bdd verify`: upgrade when asked, then read every file of the solution.
pub fn verify(args: VerifyArgs) -> Result<()> {
    let dir = &args.solution;
    if args.upgrade && dir.join("manifest.json").exists() {
        let n = c4bdd::search::stored::solution::upgrade(dir, |ply| progress(&format!("upgraded ply {ply}")))?;
        progress("");
        println!("{}: {n} ply files rewritten in the current format", dir.display());
    }
    let mut table = open_table(dir)?;
    let plies = table.plies();
    let start = std::time::Instant::now();
    table.verify(&mut |ply| progress(&format!("checked ply {ply} of {}..={}", plies.start(), plies.end())))?;
    progress("");
    let time_s = start.elapsed().as_secs_f64();
    let (low, high) = (plies.start(), plies.end());
    println!("{}: plies {low}..={high} checked, every file sound ({time_s:.1} s)", table.describe());
    if !args.rules {
        println!("(the files are those written, whole and well formed; `--rules` proves their values)");
        return Ok(());
    }
    let start = std::time::Instant::now();
    let proof = table.prove(&mut |ply| progress(&format!("proved ply {ply} of {low}..={high}")))?;
    progress("");
    let value = proof.value.map_or(String::new(), |v| format!("; the empty board's value: {}", v.name()));
    println!(
        "plies {}..={} proven from the rules: each ply's won, drawn and lost sets are those the rules give from \
         the ply above{value} ({:.1} s)",
        proof.plies.start(),
        proof.plies.end(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `c4bdd export`: a c4bdd solution as the artifact's files.
pub fn export(args: ExportArgs) -> Result<()> {
    let n = c4bdd::search::stored::artifact::export(&args.solution, &args.out, |ply| {
        progress(&format!("exported ply {ply}"))
    })?;
    progress("");
    println!("{}: {n} files in the format of the paper's artifact", args.out.display());
    Ok(())
}

/// `c4bdd book`: build (or finish) an opening book, with a progress bar.
pub fn book(args: BookArgs) -> Result<()> {
    let size = open_table(&args.solution)?.size();
    if args.ply >= size.cells() {
        return Err(InputError(format!(
            "--ply {}: a book's ply is below the board's {} cells",
            args.ply,
            size.cells()
        ))
        .into());
    }
    let out = &args.out;
    if out.is_dir() {
        return Err(InputError(format!("--out {}: is a folder; a book is a file", out.display())).into());
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
        return Err(InputError(format!("--out {}: no such folder {}", out.display(), dir.display())).into());
    }
    let bar = indicatif::ProgressBar::new(0);
    let style =
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} positions, eta {eta}");
    bar.set_style(style.expect("a valid template"));
    let opts = BookOptions { ply: args.ply, jobs: args.jobs as usize, table_bits: args.table.log2_entries() };
    let start = std::time::Instant::now();
    let n = c4bdd::search::book::build(&args.solution, &args.out, &opts, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    let time_s = start.elapsed().as_secs_f64();
    println!(
        "{}: {n} positions of {size} at ply {} valued in {time_s:.1} s (one of each mirror pair; values for the player to move)",
        args.out.display(),
        args.ply
    );
    Ok(())
}

/// A progress line on a terminal's stderr, overwritten by the next one (an
/// empty one ends it); nothing when stderr is not a terminal.
fn progress(line: &str) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K{line}");
    }
}

/// What `best --json` prints.
#[derive(Serialize)]
struct BestJson {
    board: String,
    ply: u32,
    to_move: &'static str,
    /// The value for the player to move, e.g. `win in 13 plies`.
    value: String,
    /// Each legal move's value (with `--all-moves` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveJson>>,
    best: u8,
    nodes: u64,
    probes: u64,
    /// Bytes of the transposition table.
    table_bytes: usize,
    time_s: f64,
}

#[derive(Serialize)]
struct MoveJson {
    /// From 1 at the left.
    column: u8,
    value: String,
    /// `win`, `draw` or `loss` for the player to move, and in how many plies
    /// the game ends (none for a draw).
    result: &'static str,
    plies: Option<u32>,
}

fn result_of(v: MoveValue) -> (&'static str, Option<u32>) {
    match v {
        MoveValue::Win(n) => ("win", Some(n)),
        MoveValue::Draw => ("draw", None),
        MoveValue::Loss(n) => ("loss", Some(n)),
    }
}

pub fn best(args: BestArgs) -> Result<()> {
    let table = args.solution.as_deref().map(open_table).transpose()?;
    let size = match (args.width, args.height, &table) {
        (Some(w), Some(h), _) => BoardSize::new(w, h)?,
        (_, _, Some(table)) => table.size(),
        _ => unreachable!("clap requires -W and -H without --solution"),
    };
    if size.width as u32 * size.column_bits() > MAX_KEY_BITS {
        let why = format!("board {size} is too large for the search (width*(height+1) > {MAX_KEY_BITS})");
        return Err(InputError(why).into());
    }
    let (position, name) = position_of(size, &args.moves, args.position.as_deref())?;
    if position.is_terminal() {
        return Err(InputError(format!("the game after {name} is already over")).into());
    }
    let mut solution = probes(&args, table, size, &position)?;
    let start = std::time::Instant::now();
    let probe = solution.as_mut().map(|s| s as &mut dyn OutcomeProbe);
    let mut search = Search::new(size, args.table.log2_entries(), probe);
    let (values, (best, value)) = if args.all_moves {
        let values = search.move_values(&position);
        let best = values
            .iter()
            .max_by_key(|(c, v)| (rank(*v), std::cmp::Reverse((2 * *c as i32 - (size.width as i32 - 1)).abs())))
            .copied()
            .expect("a position that is not over has a legal move");
        (Some(values), best)
    } else {
        let (value, best) = search.value_and_move(&position).ok_or_else(|| {
            let what = match (&args.solution, &args.book) {
                (Some(dir), _) => format!("the solution {}", dir.display()),
                (_, Some(book)) => format!("the book {}", book.display()),
                _ => unreachable!("a plain search's scores are consistent"),
            };
            InputError(format!(
                "{what} contradicts itself: no move keeps the value the search found from it (forged or damaged; \
                 `verify --rules` proves a solution)"
            ))
        })?;
        (None, (best, value))
    };
    let time_s = start.elapsed().as_secs_f64();
    let (nodes, probes, table_bytes) = (search.nodes(), search.probes(), search.table_bytes());
    drop(search);
    if let Some(solution) = &solution {
        probed(&args, solution)?;
    }
    if args.json {
        let moves = values.as_ref().map(|values| {
            values
                .iter()
                .map(|&(c, v)| {
                    let (result, plies) = result_of(v);
                    MoveJson { column: c + 1, value: v.to_string(), result, plies }
                })
                .collect()
        });
        let out = BestJson {
            board: size.to_string(),
            ply: position.ply(),
            to_move: mover_name(&position),
            value: value.to_string(),
            moves,
            best: best + 1,
            nodes,
            probes,
            table_bytes,
            time_s,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    println!("value: {value} for the {} player to move ({size} after {name})", mover_name(&position));
    for (c, v) in values.iter().flatten() {
        println!("column {}: {v}", column_name(*c));
    }
    println!("best move: column {} ({value})", column_name(best));
    let rate = (nodes as f64 / time_s.max(1e-9)).round();
    let table = table_bytes as f64 / f64::from(1 << 20);
    println!("searched {nodes} positions in {time_s:.3} s ({rate} a second, transposition table {table} MiB), {probes} table probes");
    Ok(())
}

/// What `best` probes: the solution's tables and the book it was given, the
/// book of the same board and (with both) built from that solution.
fn probes(
    args: &BestArgs,
    table: Option<Box<dyn SolutionTable>>,
    size: BoardSize,
    position: &Position,
) -> Result<Option<BookProbe>> {
    let dir = args.solution.as_deref().unwrap_or(std::path::Path::new(""));
    let table = table.map(|t| probe_of(t, dir, size, position)).transpose()?;
    let book = args.book.as_deref().map(|path| Book::read(path, size)).transpose()?;
    if let (Some(book), Some(table), Some(path)) = (&book, &table, &args.book) {
        let identity = table.table.identity()?;
        if book.solution != identity {
            let (built, given) = (&book.solution, table.table.describe());
            let msg = format!("book {}: built from the solution {built}, not {given} ({identity})", path.display());
            return Err(InputError(msg).into());
        }
    }
    Ok((table.is_some() || book.is_some()).then(|| BookProbe::new(book, table)))
}

/// After the search: a book row the tables contradicted is an error; a ply
/// the tables could not be read at is a warning (an error with --strict).
fn probed(args: &BestArgs, solution: &BookProbe) -> Result<()> {
    if let (Some(why), Some(book)) = (solution.contradiction(), &args.book) {
        return Err(InputError(format!("book {}: {why} (forged or damaged)", book.display())).into());
    }
    for (_, why) in solution.table().map_or(&[][..], |t| t.failures()) {
        if args.strict {
            return Err(InputError(format!("{why} (--strict)")).into());
        }
        eprintln!("warning: {why}; the search went on without that ply");
    }
    Ok(())
}

/// The probe of the solution `best` was given: of the same board, and its
/// ply of `position` readable where it holds that ply (a damaged solution is
/// an error, not a quiet search without it).
fn probe_of(
    mut table: Box<dyn SolutionTable>,
    dir: &std::path::Path,
    size: BoardSize,
    position: &Position,
) -> Result<TableProbe> {
    if table.size() != size {
        let msg = format!("solution {} is for board {}, not {size}", dir.display(), table.size());
        return Err(InputError(msg).into());
    }
    if table.plies().contains(&position.ply()) {
        table.outcome(position)?;
    }
    Ok(TableProbe::new(table))
}

/// Order of move values for choosing: faster wins first, slower losses last.
fn rank(v: MoveValue) -> i64 {
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
