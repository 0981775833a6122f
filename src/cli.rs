//! The command line (clap derive): every choice is a run-time option. The
//! interactive commands' bodies are in [`crate::commands`].

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use crate::bdd::Config;
use crate::encoding::{EncodingKind, OrderSpec};
use crate::game::BoardSize;
use crate::search::{ImageStrategy, TerminalStrategy};

/// Invalid input found by the command line itself (exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// The version `--version` prints: the package's, and the revision built
/// (`-dirty` when the sources differed from it).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("C4BDD_REVISION"), ")");

/// Symbolic search on Connect Four with binary decision diagrams.
#[derive(Parser, Debug)]
#[command(name = "c4bdd", version = VERSION, about)]
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
    /// results to results/EXPERIMENT/RUN-ID/; a rerun skips finished runs.
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
    /// Image computation: one relation per player applied in place (all plies in one frame), or the
    /// paper's alternating frames with one monolithic relation or one relation per column.
    #[arg(long, value_enum, default_value_t = ImageStrategy::InPlace)]
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
    /// Save each forward layer and each solved ply here and, when the directory holds a checkpoint
    /// of the same solve, continue from it (resume with the same --out, which then already holds
    /// the solved plies' files).
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
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
    #[arg(long, default_value = "reference")]
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
    /// Run only the runs of these boards, e.g. --boards 4x11,5x9 (each must be in the spec).
    #[arg(long, value_delimiter = ',', value_parser = parse_board)]
    pub boards: Vec<BoardSize>,
    /// Run only the runs in these encodings, e.g. --encodings compressed (each must be in the spec).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub encodings: Vec<EncodingKind>,
    /// Run only the runs in these variable orders, named as in the spec, e.g. --orders center-out (each must be in the spec).
    #[arg(long, value_delimiter = ',')]
    pub orders: Vec<String>,
    /// Run only the runs on these numbers of threads, e.g. --threads 2 (each must be in the spec).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Runs at once, each in its own process (each gets the spec's per-run limits,
    /// so the memory limit times JOBS should fit the machine).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// Write into this directory (and resume it) instead of results/EXPERIMENT/RUN-ID/.
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
    /// Only list the runs and how far each is in the directory (finished with its status,
    /// or pending, with what its checkpoint holds); run and write nothing.
    #[arg(long, conflicts_with_all = ["report", "jobs"])]
    pub list: bool,
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
    /// Variable order (the help lists the named orders).
    #[arg(long, default_value = "column-wise", help = crate::encoding::order::help())]
    pub order: OrderSpec,
}

/// Limits and policies of the BDD manager.
#[derive(Args, Debug, Clone)]
pub struct ManagerArgs {
    /// Most BDD nodes alive at once; reaching it ends the run with exit status 3.
    #[arg(long, default_value_t = u32::MAX as usize - 1)]
    pub max_nodes: usize,
    /// Collect garbage once this many nodes are alive (default: 4194304 for count, 1048576 for solve)...
    #[arg(long)]
    pub gc_min_live: Option<usize>,
    /// ...or once the live nodes have grown by this factor since the last collection.
    #[arg(long, default_value_t = Config::default().gc_growth)]
    pub gc_growth: f64,
    /// What a garbage collection does with the computed cache: keep the entries whose nodes survive, or clear it.
    #[arg(long, value_enum, default_value_t = Config::default().gc_cache)]
    pub gc_cache: crate::bdd::GcCache,
    /// Node slots per computed-cache entry (1 = as many entries as slots).
    #[arg(long, default_value_t = Config::default().cache_ratio as u64, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub cache_ratio: u64,
    /// Most computed-cache entries (a power of two; 16 bytes each): the cache stops growing with the node table there.
    #[arg(long, default_value_t = Config::default().max_cache_entries)]
    pub max_cache_entries: usize,
    /// The computed cache's floor (a power of two; default: 4194304 for count, none (256) for solve): below it the cache holds up to four entries per node slot, beyond it one per slot (or --cache-ratio's share).
    #[arg(long)]
    pub min_cache_entries: Option<usize>,
    /// Threads of the Boolean operations and images (1 = none; more run them in parallel with work stealing).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=crate::bdd::MAX_THREADS as u64))]
    pub threads: u64,
}

impl ManagerArgs {
    /// The manager's configuration; `defaults`' values where `--gc-min-live`
    /// or `--min-cache-entries` is not given.
    pub fn config(&self, defaults: Config) -> Result<Config> {
        if !(self.gc_growth.is_finite() && self.gc_growth >= 1.0) {
            let msg = format!("invalid value '{}' for '--gc-growth': must be a number >= 1", self.gc_growth);
            return Err(InputError(msg).into());
        }
        if let Err(e) = crate::bdd::check_cache_entries(self.max_cache_entries) {
            return Err(InputError(format!("invalid value for '--max-cache-entries': {e}")).into());
        }
        if let Some(Err(e)) = self.min_cache_entries.map(crate::bdd::check_cache_entries) {
            return Err(InputError(format!("invalid value for '--min-cache-entries': {e}")).into());
        }
        Ok(Config {
            max_nodes: self.max_nodes,
            gc_min_live: self.gc_min_live.unwrap_or(defaults.gc_min_live),
            gc_growth: self.gc_growth,
            gc_cache: self.gc_cache,
            cache_ratio: self.cache_ratio as usize,
            max_cache_entries: self.max_cache_entries,
            min_cache_entries: self.min_cache_entries.unwrap_or(defaults.min_cache_entries),
            threads: self.threads as usize,
            ..defaults
        })
    }
}

#[derive(Args, Debug)]
pub struct CountArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    #[command(flatten)]
    pub encoding: EncodingArgs,
    /// Image computation: one relation per player applied in place (all plies in one frame), or the
    /// paper's alternating frames with one monolithic relation or one relation per column.
    #[arg(long, value_enum, default_value_t = ImageStrategy::InPlace)]
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
    /// Also put the positions of all plies into one BDD (frame B renamed onto frame A)
    /// and report its node count (the paper's "all 7x6 positions in one BDD").
    #[arg(long, conflicts_with = "checkpoint")]
    pub full_bdd: bool,
    /// Also report how many nodes the plies' BDDs would have with complement edges
    /// (a sub-function and its negation sharing one node), beside their plain sizes.
    #[arg(long)]
    pub complement_edges: bool,
    #[command(flatten)]
    pub manager: ManagerArgs,
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Count(args) => crate::commands::count(args),
        Command::Solve(args) => crate::commands::solve(args),
        Command::Query(args) => crate::commands::query(args),
        Command::Best(args) => crate::commands::best(args),
        Command::Report(args) => {
            for (flag, dir) in [("--results", &args.results), ("--reference", &args.reference)] {
                if !dir.is_dir() {
                    let what = format!("{flag} {}: no such directory", dir.display());
                    return Err(InputError(what).into());
                }
            }
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
                boards: args.boards,
                encodings: args.encodings,
                orders: args.orders,
                threads: args.threads,
                jobs: args.jobs as usize,
                out: args.out,
                results: args.results,
                quiet: args.quiet,
            };
            if args.list {
                let (dir, runs) = crate::experiment::list(&opts)?;
                println!("{}:", dir.display());
                for run in &runs {
                    println!("{:<55} {}", run.key, run.describe());
                }
                let finished = runs.iter().filter(|r| r.row.is_some()).count();
                let ok = runs
                    .iter()
                    .filter(|r| r.row.as_ref().is_some_and(|row| row.status == crate::experiment::record::Status::Ok))
                    .count();
                println!("{} runs: {finished} finished ({ok} ok), {} pending", runs.len(), runs.len() - finished);
                return Ok(());
            }
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
                    reference: PathBuf::from("reference"),
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
