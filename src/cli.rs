//! The command line: `c4bdd count`, with every choice a run-time option.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::bdd::Config;
use crate::encoding::{EncodingKind, OrderSpec, StateSpace};
use crate::game::BoardSize;
use crate::measure::peak_rss_bytes;
use crate::search::{forward_from, Checkpoint, ForwardOptions, ImageStrategy, PlyRecord, TerminalStrategy, Transition};

/// Invalid input found by the command line itself (exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Symbolic search on Connect Four with binary decision diagrams.
#[derive(Parser, Debug)]
#[command(name = "c4bdd", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count every reachable position of a board, ply by ply.
    Count(CountArgs),
    /// Strongly solve a board: win/draw/loss of every position, ply by ply (Table 2 form).
    Solve(SolveArgs),
    /// The value of a position in a stored solution.
    Query(QueryArgs),
    /// Exact value of every legal move (fastest win, slowest loss) by alpha-beta search.
    Best(BestArgs),
    /// Regenerate tables, plots and paper-repro.md from the results archive (no BDDs).
    Report(ReportArgs),
    /// Run an experiment spec (experiments/*.toml): every run in its own process,
    /// results to results/<experiment>/<run-id>/; a rerun skips finished runs.
    Sweep(SweepArgs),
    /// Combine the result directories of sharded sweeps into one.
    Merge(MergeArgs),
    /// Run one run of a sweep (used by `sweep`; prints JSON lines).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        run: String,
    },
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    #[command(flatten)]
    pub encoding: EncodingArgs,
    /// Image computation: one monolithic relation, or one relation per column.
    #[arg(long, value_enum, default_value_t = ImageStrategy::Monolithic)]
    pub image: ImageStrategy,
    /// Terminal states: one BDD of all lines (whole) or each line on its own (lines).
    #[arg(long, value_enum, default_value_t = TerminalStrategy::Whole)]
    pub terminal: TerminalStrategy,
    /// Store the solution here (per ply win and lost BDDs, manifest.json); checked before any work.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the per-ply table to this CSV file (rows from the last ply down, as they are solved).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Print per-operation statistics (recursive steps, cache hits) at the end.
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub manager: ManagerArgs,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// A directory written by `c4bdd solve --out`.
    #[arg(long)]
    pub solution: PathBuf,
    /// Moves from the empty board, columns numbered from 1 (10..13 as a..d), e.g. 4453.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// The board the moves are meant for; refused if the solution is of another board.
    #[arg(long, short = 'W', value_parser = clap::value_parser!(u32).range(1..=13), requires = "height")]
    pub width: Option<u32>,
    #[arg(long, short = 'H', value_parser = clap::value_parser!(u32).range(1..=13), requires = "width")]
    pub height: Option<u32>,
}

#[derive(Args, Debug)]
pub struct BestArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// Moves from the empty board, columns numbered from 1 (10..13 as a..d), e.g. 4453.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Probe this stored solution (of the same board) to skip moves that cannot win.
    #[arg(long)]
    pub solution: Option<PathBuf>,
    /// log2 of the transposition-table entries (32 bytes each).
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(4..=30))]
    pub table_bits: u32,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Root of the results archive.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Directory of the paper's tables (paper-table1.csv, paper-table2-7x6.csv).
    #[arg(long, default_value = "../shared/reference")]
    pub reference: PathBuf,
    /// Where tables and plots go.
    #[arg(long, default_value = "plots")]
    pub plots: PathBuf,
    /// Where the claim-by-claim account goes.
    #[arg(long, default_value = "paper-repro.md")]
    pub repro: PathBuf,
    /// Draw the per-ply figures for these boards (WxH, repeatable).
    #[arg(long, value_parser = parse_board)]
    pub board: Vec<BoardSize>,
}

fn parse_board(text: &str) -> std::result::Result<BoardSize, String> {
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(|| format!("'{text}' is not a board like 7x6"))?;
    let parse = |v: &str| v.trim().parse::<u32>().map_err(|_| format!("'{text}' is not a board like 7x6"));
    BoardSize::new(parse(w)?, parse(h)?).map_err(|e| e.to_string())
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The experiment spec (TOML).
    pub spec: PathBuf,
    /// Run only slice i of n of the grid (1 <= i <= n), e.g. for a Slurm array job.
    #[arg(long, value_parser = crate::experiment::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Write into this directory (and resume it) instead of results/<experiment>/<run-id>/.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Root of the results archive.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// No progress bar and no per-run lines.
    #[arg(long)]
    pub quiet: bool,
    /// Afterwards, regenerate plots/ and paper-repro.md from the whole archive (as `c4bdd report`).
    #[arg(long)]
    pub report: bool,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The directory to create with the merged results.
    #[arg(long)]
    pub out: PathBuf,
    /// Result directories of the shards.
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
}

/// The board, as `--width` and `--height`.
#[derive(Args, Debug, Clone)]
pub struct BoardArgs {
    /// Number of columns (1..=13).
    #[arg(long, short = 'W', value_parser = clap::value_parser!(u32).range(1..=13))]
    pub width: u32,
    /// Number of rows (1..=13).
    #[arg(long, short = 'H', value_parser = clap::value_parser!(u32).range(1..=13))]
    pub height: u32,
}

impl BoardArgs {
    pub fn size(&self) -> Result<BoardSize> {
        Ok(BoardSize::new(self.width, self.height)?)
    }
}

/// State encoding and variable order.
#[derive(Args, Debug, Clone)]
pub struct EncodingArgs {
    /// State encoding: cellwise (alias standard; 2 variables per cell) or compressed (bitboard-style).
    #[arg(long, value_enum, default_value_t = EncodingKind::Compressed)]
    pub encoding: EncodingKind,
    /// Variable order: column-wise, row-wise, paper (column-wise; row-wise for cellwise on boards taller than wide),
    /// center-out (columns from the centre outwards), or custom:FILE (variable names in level order).
    #[arg(long, default_value = "column-wise")]
    pub order: OrderSpec,
}

/// Limits and policies of the BDD manager.
#[derive(Args, Debug, Clone)]
pub struct ManagerArgs {
    /// Most BDD nodes alive at once; reaching it ends the run with exit status 3.
    #[arg(long, default_value_t = u32::MAX as usize - 1)]
    pub max_nodes: usize,
    /// Collect garbage once this many nodes are alive...
    #[arg(long, default_value_t = Config::default().gc_min_live)]
    pub gc_min_live: usize,
    /// ...or once the live nodes have grown by this factor since the last collection.
    #[arg(long, default_value_t = Config::default().gc_growth)]
    pub gc_growth: f64,
    /// Node slots per computed-cache entry (1 = as many entries as slots).
    #[arg(long, default_value_t = Config::default().cache_ratio as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub cache_ratio: u64,
}

impl ManagerArgs {
    pub fn config(&self) -> Result<Config> {
        if !(self.gc_growth.is_finite() && self.gc_growth >= 1.0) {
            let msg = format!("invalid value '{}' for '--gc-growth': must be a number >= 1", self.gc_growth);
            return Err(InputError(msg).into());
        }
        Ok(Config {
            max_nodes: self.max_nodes,
            gc_min_live: self.gc_min_live,
            gc_growth: self.gc_growth,
            cache_ratio: self.cache_ratio as usize,
            ..Config::default()
        })
    }
}

#[derive(Args, Debug)]
pub struct CountArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    #[command(flatten)]
    pub encoding: EncodingArgs,
    /// Image computation: one monolithic relation, or one relation per column.
    #[arg(long, value_enum, default_value_t = ImageStrategy::Monolithic)]
    pub image: ImageStrategy,
    /// Terminal states: subtract one BDD of all lines (whole), each line on its own (lines), or none (off).
    #[arg(long, value_enum, default_value_t = TerminalStrategy::Whole)]
    pub terminal: TerminalStrategy,
    /// Expand positions after a win too (same as --terminal off; Figure 2a's "without termination").
    #[arg(long)]
    pub no_termination: bool,
    /// Also write one CSV row per ply to this file (flushed after every ply).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Print per-operation statistics (recursive steps, cache hits) at the end.
    #[arg(long)]
    pub stats: bool,
    /// Save each finished ply here and, when the directory holds a checkpoint of the
    /// same count, continue from its last ply.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    #[command(flatten)]
    pub manager: ManagerArgs,
}

/// One CSV row of `count --csv`.
#[derive(serde::Serialize)]
struct CountRow<'a> {
    width: u8,
    height: u8,
    encoding: &'a str,
    order: &'a str,
    image: &'a str,
    terminal: &'a str,
    ply: u32,
    states: u128,
    bdd_nodes: u64,
    live_nodes: u64,
    time_s: f64,
}

/// The command-line name of a value-enum value.
pub fn value_name<T: clap::ValueEnum>(v: &T) -> String {
    v.to_possible_value().map(|p| p.get_name().to_string()).unwrap_or_default()
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Count(args) => count(args),
        Command::Solve(args) => solve(args),
        Command::Query(args) => query(args),
        Command::Best(args) => best(args),
        Command::Report(args) => {
            let opts = crate::report::ReportOptions {
                results: args.results,
                reference: args.reference,
                plots: args.plots.clone(),
                repro: args.repro.clone(),
                boards: args.board,
            };
            let written = crate::report::report(&opts)?;
            println!("{} files in {}, and {}", written.files.len(), args.plots.display(), args.repro.display());
            Ok(())
        }
        Command::Sweep(args) => {
            let opts = crate::experiment::SweepOptions {
                spec: args.spec,
                shard: args.shard,
                out: args.out,
                results: args.results,
                quiet: args.quiet,
            };
            let done = crate::experiment::sweep(&opts, std::env::args().collect())?;
            println!(
                "{}: {} runs ran ({} ok), {} already finished",
                done.dir.display(),
                done.ran,
                done.ok,
                done.skipped
            );
            if args.report {
                let opts = crate::report::ReportOptions {
                    results: opts.results,
                    reference: PathBuf::from("../shared/reference"),
                    plots: PathBuf::from("plots"),
                    repro: PathBuf::from("paper-repro.md"),
                    boards: Vec::new(),
                };
                let written = crate::report::report(&opts)?;
                println!("report: {} files in plots/, and paper-repro.md", written.files.len());
            }
            Ok(())
        }
        Command::Merge(args) => {
            let n = crate::experiment::merge(&args.sources, &args.out)?;
            println!("{}: {n} runs merged", args.out.display());
            Ok(())
        }
        Command::Worker { run } => crate::experiment::worker::run(&run),
    }
}

fn count(args: CountArgs) -> Result<()> {
    let size = args.board.size()?;
    let terminal = if args.no_termination { TerminalStrategy::Off } else { args.terminal };
    let opts = ForwardOptions { image: args.image, terminal };
    let config = args.manager.config()?;
    // Open the CSV before any work, so a bad path fails at once.
    let mut csv = match &args.csv {
        Some(path) => {
            let file = File::create(path)
                .map_err(|e| InputError(format!("cannot write --csv file {}: {e}", path.display())))?;
            Some(csv::Writer::from_writer(file))
        }
        None => None,
    };
    let mut space = StateSpace::new(args.encoding.encoding, size, &args.encoding.order, config)?;
    let order = space.order_name.clone();
    let (image, term) = (value_name(&opts.image), value_name(&opts.terminal));
    println!("board {size}, encoding {}, order {order}, image {image}, terminal {term}", args.encoding.encoding);
    println!("{:>4} {:>22} {:>12} {:>12} {:>9}", "ply", "states", "bdd_nodes", "live_nodes", "time_s");
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
        println!("{:>4} {:>22} {:>12} {:>12} {:>9.3}", r.ply, r.states, r.bdd_nodes, r.live_nodes, r.time_s);
        let _ = std::io::stdout().flush();
        if let (Some(w), None) = (csv.as_mut(), csv_error.as_ref()) {
            let row = CountRow {
                width: size.width,
                height: size.height,
                encoding: args.encoding.encoding.name(),
                order: &order,
                image: &image,
                terminal: &term,
                ply: r.ply,
                states: r.states,
                bdd_nodes: r.bdd_nodes,
                live_nodes: r.live_nodes,
                time_s: r.time_s,
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
    let result = forward_from(&mut space, &rules, resume, false, |space, r, states| {
        show(r);
        records.push(*r);
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
        return Err(e).context("cannot write the --csv file");
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

fn solve(args: SolveArgs) -> Result<()> {
    use crate::search::{solve, SolutionWriter};
    let size = args.board.size()?;
    if matches!(args.terminal, TerminalStrategy::Off | TerminalStrategy::Fused) {
        let name = value_name(&args.terminal);
        return Err(InputError(format!("invalid value '{name}' for '--terminal': solving needs whole or lines")).into());
    }
    let opts = ForwardOptions { image: args.image, terminal: args.terminal };
    let config = args.manager.config()?;
    let mut writer = match &args.out {
        Some(dir) => Some(SolutionWriter::create(dir).map_err(|e| InputError(e.to_string()))?),
        None => None,
    };
    let mut csv = match &args.csv {
        Some(path) => {
            let file = File::create(path)
                .map_err(|e| InputError(format!("cannot write --csv file {}: {e}", path.display())))?;
            Some(csv::Writer::from_writer(file))
        }
        None => None,
    };
    let mut space = StateSpace::new(args.encoding.encoding, size, &args.encoding.order, config)?;
    println!(
        "board {size}, encoding {}, order {}: forward pass, then plies from the last",
        args.encoding.encoding, space.order_name
    );
    println!("{:>4} {:>20} {:>20} {:>20} {:>20} {:>16}", "ply", "won", "drawn", "lost", "total", "terminal");
    let mut solved = None;
    let mut csv_error = None;
    let summary = solve(
        &mut space,
        &opts,
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
        return Err(e).context("cannot write the --csv file");
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
    if args.stats {
        print!("{}", space.manager.stats().op_table());
    }
    Ok(())
}

fn query(args: QueryArgs) -> Result<()> {
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

fn best(args: BestArgs) -> Result<()> {
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
    let values = search.move_values(&position);
    let best = values
        .iter()
        .max_by_key(|(c, v)| (rank(*v), std::cmp::Reverse((2 * *c as i32 - (size.width as i32 - 1)).abs())));
    for (c, v) in &values {
        println!("column {}: {v}", column_name(*c));
    }
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
