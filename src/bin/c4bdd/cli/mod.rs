//! The command line (clap derive): every choice is a run-time option.
//! [`crate::commands`] runs what it parses.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use c4bdd::encoding::{EncodingKind, OrderSpec};
use c4bdd::game::BoardSize;
use c4bdd::order_search::{Bound, CostKind, Grouping, Strategy};
use c4bdd::run::Pass;
use c4bdd::search::{ImageStrategy, TerminalStrategy};

pub use c4bdd::error::InputError;
pub use manager::ManagerArgs;
use values::{named, parse_board};

mod manager;
mod values;

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
    /// Write a c4bdd solution in the format of the paper's artifact (its win and loss files).
    Export(ExportArgs),
    /// An opening book: the exact value of every position at one ply, by searches that probe a
    /// stored solution (resumable: rerun the same command).
    Book(BookArgs),
    /// Check a stored solution (c4bdd's or the paper's artifact's): every file read whole.
    Verify(VerifyArgs),
    /// A solved ply split on its top state variables: the nodes of every part, against the
    /// whole ply (what a solve by case split would hold at once).
    Parts(PartsArgs),
    /// Exact value of every legal move (fastest win, slowest loss) by alpha-beta search.
    Best(BestArgs),
    /// Regenerate tables, plots and paper-repro.md from the results archive (no BDDs).
    Report(ReportArgs),
    /// Run an experiment spec (experiments/*.toml): every run in its own process,
    /// results to results/EXPERIMENT/RUN-ID/; a rerun skips finished runs.
    Sweep(SweepArgs),
    /// Combine the result directories of sharded sweeps into one.
    Merge(MergeArgs),
    /// Variable orders: search for cheaper ones, or read an order's rule.
    Orders {
        #[command(subcommand)]
        command: OrdersCommand,
    },
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
    #[command(flatten)]
    pub image: ImageArgs,
    /// Terminal states: one BDD of all lines (whole) or each line on its own (lines); a solve
    /// takes these two only.
    #[arg(long, value_parser = named::<TerminalStrategy>(), default_value_t = TerminalStrategy::Whole, hide_possible_values = true)]
    pub terminal: TerminalStrategy,
    /// Once a ply's won states are split off, cut its states and the drawn set's pre-image on its
    /// top K variables of cells into 2^K parts and split them into drawn and lost part by part, each
    /// part's inputs released once split (0: the whole ply at once; at most 8). The same sets, a
    /// lower peak of live nodes.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub split_parts: u8,
    /// Store the solution here (per ply win and lost BDDs, manifest.json rewritten after each ply); checked before any work.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the per-ply table to this CSV file (rows from the last ply down, as they are solved).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Save each forward layer and each solved ply here and, when the directory holds a checkpoint
    /// of the same solve, continue from it (resume with the same --out, which then already holds
    /// the solved plies' files). The resume may change --image between in-place and
    /// in-place-columns (or between monolithic and columns), --image-split and --split-parts.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Solve from the last ply down to this ply only, reading each ply's states back from the
    /// checkpoint (which the forward pass fills) instead of holding them all in memory;
    /// 0 solves the whole board that way. Needs --checkpoint.
    #[arg(long, value_name = "PLY", requires = "checkpoint")]
    pub down_to: Option<u32>,
    /// Solve the plies below the checkpoint's lowest solved ply (after the last ply, solved whole
    /// if none is) part by part, each ply cut on K variables of cells into 2^K parts, each part from
    /// the parts of the ply above that its moves reach, saved in the checkpoint's parts/ folder as
    /// it is done. K: the top K variables of the order (0: whole plies; at most 12), or the cells'
    /// names, comma-separated (compressed: cCrR, column C and row R from 1; cellwise: cCrRpP; e.g.
    /// c4r1,c4r2,c4r3,c4r4,c4r5, the middle column of 7x6, whose parts share far fewer nodes than
    /// those of a cut on the first column). Needs
    /// --checkpoint; a rerun goes on with the parts not yet saved.
    #[arg(long, value_name = "K|CELLS", default_value = "0")]
    pub parts: c4bdd::search::partition::Cut,
    /// With --parts: solve only part I of every N of each ply (I from 1 to N), then wait until the
    /// other processes (on this machine or sharing the folder) have saved theirs before the ply
    /// below.
    #[arg(long, value_name = "I/N")]
    pub part: Option<c4bdd::search::partition::Share>,
    /// With --parts: the gigabytes the won and lost sets of the plies solved in parts may keep on
    /// disk; once a ply is done, the ply above loses them if the plies kept would take more (the
    /// rows stay).
    #[arg(long, value_name = "GB")]
    pub solution_budget: Option<f64>,
    /// Print per-operation statistics (recursive steps, cache hits) at the end.
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub manager: ManagerArgs,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// A directory written by `c4bdd solve --out`, or a solution folder of the paper's artifact
    /// (its bdd_w{W}_h{H}_{ply}_{win|draw|loss}.{C}{R}.bin files, draw files optional).
    #[arg(long)]
    pub solution: PathBuf,
    /// Moves from the empty board, columns numbered from 1 (10..13 as a..d), e.g. 4453.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// The position as a board instead: a layout (a cell a character, column by column from the
    /// bottom-left, x/o/b; the 42-character rows of 7x6 datasets) or a diagram (rows top to
    /// bottom, ./x/o, separated by / or newlines).
    #[arg(long, conflicts_with = "moves")]
    pub position: Option<String>,
    /// The board the moves are meant for; refused if the solution is of another board.
    #[arg(long, short = 'W', value_parser = clap::value_parser!(u32).range(1..=13), requires = "height")]
    pub width: Option<u32>,
    #[arg(long, short = 'H', value_parser = clap::value_parser!(u32).range(1..=13), requires = "width")]
    pub height: Option<u32>,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A directory written by `c4bdd solve --out`, solved in the artifact's variable order
    /// (`--order column-wise`, or row-wise on the cellwise encoding of a board taller than wide).
    #[arg(long)]
    pub solution: PathBuf,
    /// Where the files bdd_w{W}_h{H}_{ply}_{win|loss}.{C}{R}.bin go (created if needed).
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct BookArgs {
    /// The stored solution the searches probe (as for `c4bdd query`).
    #[arg(long)]
    pub solution: PathBuf,
    /// The ply of the book's positions.
    #[arg(long, default_value_t = 8)]
    pub ply: u32,
    /// The book (CSV: position layout, value, plies); FILE.partial holds the rows of an
    /// interrupted run, which a rerun takes up.
    #[arg(long)]
    pub out: PathBuf,
    /// Searches at once, each with its own tables and transposition table.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    #[command(flatten)]
    pub table: TableArgs,
}

/// The size of a search's transposition table.
#[derive(Args, Debug)]
pub struct TableArgs {
    /// log2 of each search's transposition-table entries (8 bytes each, 16 on boards of more
    /// than 64 bitboard bits or with keys too wide for so few entries); by default twice one
    /// core's level-2 cache (2^19 with 2 MiB).
    #[arg(long, value_parser = clap::value_parser!(u32).range(4..=30))]
    pub table_bits: Option<u32>,
}

impl TableArgs {
    /// log2 of the entries: the option, or the machine's default.
    pub fn log2_entries(&self) -> u32 {
        self.table_bits.unwrap_or_else(c4bdd::game::alphabeta::default_table_bits)
    }
}

#[derive(Args, Debug)]
pub struct PartsArgs {
    /// A directory written by `c4bdd solve --out`.
    #[arg(long)]
    pub solution: PathBuf,
    /// The ply to split; default: the ply of the largest file.
    #[arg(long)]
    pub ply: Option<u32>,
    /// Split on the first this many variables of cells in the order (2^top parts; the side to
    /// move, the same for a whole ply, is skipped).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=16), conflicts_with = "cut")]
    pub top: u32,
    /// Split on these variables of cells instead, by name, comma-separated (compressed: cCrR,
    /// column C and row R from 1; cellwise: cCrRpP; e.g. c4r1,c4r2,c4r3); at most 16.
    #[arg(long, value_delimiter = ',')]
    pub cut: Option<Vec<String>>,
    /// Also write the parts to this CSV file (a row a part).
    #[arg(long)]
    pub csv: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The solution folder (as for `c4bdd query`).
    #[arg(long)]
    pub solution: PathBuf,
    /// Rewrite a c4bdd solution of format version 2 in the current format (each ply file loaded,
    /// checked and saved again with block checksums), then check it.
    #[arg(long)]
    pub upgrade: bool,
    /// Also prove every ply from the game's rules: the reachable states recomputed from the empty
    /// board, each ply's won, drawn and lost sets checked to be exactly what the rules give from
    /// the ply above (the last ply from its terminal states), and the value from ply 0. Takes about
    /// as long as a solve; the checksums alone show only that the files are those written.
    #[arg(long)]
    pub rules: bool,
}

#[derive(Args, Debug)]
pub struct BestArgs {
    /// Number of columns (1..=13); with --solution, the solution's board unless given.
    #[arg(long, short = 'W', value_parser = clap::value_parser!(u32).range(1..=13), requires = "height",
          required_unless_present = "solution")]
    pub width: Option<u32>,
    /// Number of rows (1..=13).
    #[arg(long, short = 'H', value_parser = clap::value_parser!(u32).range(1..=13), requires = "width",
          required_unless_present = "solution")]
    pub height: Option<u32>,
    /// Moves from the empty board, columns numbered from 1 (10..13 as a..d), e.g. 4453.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// The position as a board instead (see `c4bdd query --help`).
    #[arg(long, conflicts_with = "moves")]
    pub position: Option<String>,
    /// Print one JSON object (value, each move's value, the best move, search figures).
    #[arg(long)]
    pub json: bool,
    /// A ply of --solution that cannot be read (missing, damaged, not held) is an error; without
    /// it, a warning line names the file and the search goes on without that ply.
    #[arg(long, requires = "solution")]
    pub strict: bool,
    /// Probe this stored solution (c4bdd's or the paper's artifact's, of the same board) to skip
    /// moves that cannot win.
    #[arg(long)]
    pub solution: Option<PathBuf>,
    /// An opening book (`c4bdd book`) of the same board: its positions' exact values end the
    /// search there.
    #[arg(long)]
    pub book: Option<PathBuf>,
    /// Every legal move's exact value too (one exact search per move); without it, the
    /// position's value and one move that keeps it.
    #[arg(long)]
    pub all_moves: bool,
    #[command(flatten)]
    pub table: TableArgs,
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

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The experiment spec (TOML).
    pub spec: PathBuf,
    /// Run only slice i of n of the grid (1 <= i <= n), e.g. for a Slurm array job.
    #[arg(long, value_parser = c4bdd::experiment::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Run only the runs of these boards, e.g. --boards 4x11,5x9 (each must be in the spec).
    #[arg(long, value_delimiter = ',', value_parser = parse_board)]
    pub boards: Vec<BoardSize>,
    /// Run only the runs in these encodings, e.g. --encodings compressed (each must be in the spec).
    #[arg(long, value_delimiter = ',', value_parser = named::<EncodingKind>())]
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
    /// Afterwards, write the report of this spec's archives (results/NAME/, or the --out folder) into plots/NAME/:
    /// tables and charts (the project's whole report, plots/ and paper-repro.md, is `c4bdd report`'s).
    #[arg(long)]
    pub report: bool,
    /// Run again the selected runs that a limit stopped or that failed: their rows are taken out
    /// of runs.csv and plies.csv, and each continues from its checkpoint (if the spec keeps
    /// them) under the spec's limits as they are now.
    #[arg(long)]
    pub retry: bool,
    /// Compute the selected runs' images on an image split of K top variables (0 to 8) instead of
    /// the spec's: how images are computed, not what they are, so each run keeps its key and its
    /// checkpoint, which it takes up; the rows record K. For a run whose plies outlast a session:
    /// its checkpoint then saves each image part way. Refused when the spec sweeps the split.
    #[arg(long, value_name = "K")]
    pub image_split: Option<u8>,
    /// Cap the selected runs' computed cache at N entries (a power of two; 16 bytes each) instead
    /// of the spec's: the cache's size, not the results, so each run keeps its key and its
    /// checkpoint, which it takes up; the rows record N. For a long run resumed with memory to
    /// spare. Refused when the spec sweeps max_cache_entries.
    #[arg(long, value_name = "N")]
    pub max_cache_entries: Option<usize>,
    /// Only list the runs and how far each is in the directory (finished with its status,
    /// or pending, with what its checkpoint holds); run and write nothing.
    #[arg(long, conflicts_with_all = ["report", "jobs", "retry"])]
    pub list: bool,
}

#[derive(Subcommand, Debug)]
pub enum OrdersCommand {
    /// Improve a variable order by sifting and random moves, each candidate measured on a real
    /// run of the board; writes every candidate with its cost, the best orders and their rule.
    Search(OrderSearchArgs),
    /// Print the rule (TOML, for --order rule:FILE on any board) read off an order on a board.
    Rule {
        #[command(flatten)]
        board: BoardArgs,
        #[command(flatten)]
        encoding: EncodingArgs,
    },
}

#[derive(Args, Debug)]
pub struct OrderSearchArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    /// State encoding.
    #[arg(long, value_parser = named::<EncodingKind>(), default_value_t = EncodingKind::Compressed)]
    pub encoding: EncodingKind,
    /// The order to start from (any --order value).
    #[arg(long, default_value = "paper")]
    pub start: OrderSpec,
    /// Measure each candidate on a count (the plies' BDD nodes) or a solve (the won and lost sets' nodes).
    #[arg(long, value_parser = named::<Pass>(), default_value_t = Pass::Count)]
    pub pass: Pass,
    /// The cost of a candidate: its plies' nodes summed, or the largest ply's.
    #[arg(long, value_parser = named::<CostKind>(), default_value_t = CostKind::Sum)]
    pub cost: CostKind,
    /// Sifting rounds, random moves, or sifting then random moves.
    #[arg(long, value_parser = named::<Strategy>(), default_value_t = Strategy::Both)]
    pub strategy: Strategy,
    /// Keep each column's run of variables together, or move single variables.
    #[arg(long, value_parser = named::<Grouping>(), default_value_t = Grouping::Keep)]
    pub grouping: Grouping,
    /// Most orders to evaluate, the start's included.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub evaluations: u64,
    /// Most wall time, e.g. 10m (the search is then no longer repeatable).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub time: Option<std::time::Duration>,
    /// Seed of the random moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Candidates evaluated at once, each on one thread.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: u64,
    /// A candidate may use this many times the start's peak live nodes (then it ranks last).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub node_factor: u64,
    /// Stop a candidate's run once its cost passes the current order's (best: the same decisions
    /// as full runs, sooner), or run every candidate to the end (off: every cost exact).
    #[arg(long, value_parser = named::<Bound>(), default_value_t = Bound::Best)]
    pub bound: Bound,
    /// Most node slots of any run (the start's included).
    #[arg(long)]
    pub max_nodes: Option<usize>,
    /// Best orders to write as best-K.order.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub keep: u64,
    /// The search's folder: search.json, candidates.csv, best-K.order, best.rule.toml (a rerun
    /// with the same settings resumes it).
    #[arg(long)]
    pub out: PathBuf,
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

/// How the passes compute images (count and solve).
#[derive(Args, Debug, Clone)]
pub struct ImageArgs {
    /// Image computation: relations applied in place (all plies in one frame), one per player or one
    /// per column, or the paper's alternating frames with one monolithic relation or one per column.
    #[arg(long, value_parser = named::<ImageStrategy>(), default_value_t = ImageStrategy::InPlace)]
    pub image: ImageStrategy,
    /// Split each image's (and pre-image's) operand on its top K variables of cells into 2^K parts,
    /// one product per part, the products joined (0: no split; at most 8). The same results; a
    /// lower peak on some boards, and a checkpointed count or solve saves its images or pre-images
    /// after each part.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub image_split: u8,
    /// Print a progress line to stderr after a step of an image (count, a solve's forward pass) or
    /// pre-image (solve) once this many seconds have passed since the last line of output (0: after
    /// every step).
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub progress: u64,
}

/// State encoding and variable order.
#[derive(Args, Debug, Clone)]
pub struct EncodingArgs {
    /// State encoding: cellwise (alias standard; 2 variables per cell) or compressed (bitboard-style).
    #[arg(long, value_parser = named::<EncodingKind>(), default_value_t = EncodingKind::Compressed)]
    pub encoding: EncodingKind,
    /// Variable order (the help lists the named orders).
    #[arg(long, default_value = "column-wise", help = c4bdd::encoding::order::help())]
    pub order: OrderSpec,
}

#[derive(Args, Debug)]
pub struct CountArgs {
    #[command(flatten)]
    pub board: BoardArgs,
    #[command(flatten)]
    pub encoding: EncodingArgs,
    #[command(flatten)]
    pub image: ImageArgs,
    /// Terminal states: subtract one BDD of all lines (whole), each line on its own (lines), fold the
    /// non-terminal sources into the relation (fused), or none (off).
    #[arg(long, value_parser = named::<TerminalStrategy>(), default_value_t = TerminalStrategy::Whole)]
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
