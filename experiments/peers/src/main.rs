//! The forward count and the strong solution of c4bdd (`c4bdd count` and
//! `c4bdd solve`, compressed encoding, column-wise order) on other BDD
//! packages: the reference points of c4bdd's speed. The strategy is the
//! paper's (`--image monolithic`): one monolithic relation per player (or
//! one per column), frames A and B alternating per ply, the image and the
//! pre-image by the package's combined conjunction and quantification, and
//! one BDD of all winning lines per frame (or each line) subtracted before
//! each image. Or, where the package has it (Sylvan), c4bdd's default
//! (`--image in-place`): every ply's states in frame A and the relational
//! products that rename in place. Sylvan runs on as many worker threads as
//! `--threads` says; the others on one.
//!
//! Prints one line per ply (a count: ply, positions, BDD nodes without
//! complement edges; a solve: ply, won, drawn, lost), the total positions,
//! the time and the package's own figures, so that every ply can be checked
//! against c4bdd's; then `figures: peak nodes N, GC s S`: the package's
//! peak of live nodes where it keeps one (CUDD, Sylvan), else the most
//! nodes it held at the end of a ply (its own count: BuDDy's and oxidd's
//! include garbage not yet collected, as c4bdd's peak does), and its
//! seconds of collection where it counts them ("-" for oxidd).

mod board;
#[cfg(feature = "buddy")]
mod buddy;
#[cfg(feature = "cudd")]
mod cudd;
#[cfg(feature = "oxidd")]
mod oxidd;
mod package;
mod pass;
#[cfg(feature = "sylvan")]
mod sylvan;

use std::time::Instant;

use clap::Parser;

use board::Board;
use package::Package;
use pass::Rules;

#[derive(Parser)]
#[command(about = "Count every position of a Connect Four board, or solve it, ply by ply, on another BDD package")]
struct Args {
    /// The pass: the forward count, or the strong solution.
    #[arg(long, value_enum, default_value_t = Pass::Count)]
    pass: Pass,
    /// The package (those this build has: see --help).
    #[arg(long, value_enum)]
    package: Name,
    /// Number of columns.
    #[arg(short = 'W', long, value_parser = clap::value_parser!(u32).range(1..=13))]
    width: u32,
    /// Number of rows.
    #[arg(short = 'H', long, value_parser = clap::value_parser!(u32).range(1..=13))]
    height: u32,
    /// Nodes the package starts with (default: oxidd 2^24, all it may hold;
    /// BuDDy 2^24, its first table, doubled when a collection frees too
    /// little; CUDD its own default, 256 unique-table slots a variable,
    /// grown as they fill).
    #[arg(long)]
    nodes: Option<usize>,
    /// Entries of the operation cache (default: oxidd 2^24, its best on
    /// 7x4; BuDDy 2^20 for each of its caches, which hold 4 to 16 bytes an
    /// entry: 2^24 took 2.7 GB and no less time on 6x4; CUDD its own
    /// default, 2^18, grown while it hits).
    #[arg(long)]
    cache: Option<usize>,
    /// Image computation, as c4bdd's `--image`: one relation per player, or
    /// one per column whose images are joined, over alternating frames; or
    /// in place.
    #[arg(long, value_enum, default_value_t = Image::Monolithic)]
    image: Image,
    /// Terminal states, as c4bdd's `--terminal`: one BDD of all lines, or
    /// each line subtracted on its own.
    #[arg(long, value_enum, default_value_t = Terminal::Whole)]
    terminal: Terminal,
    /// Worker threads (Sylvan's Lace workers; the other packages run on one).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Nodes Sylvan's table may grow to by doubling at collections (its
    /// cache grows in step).
    #[arg(long, default_value_t = 1 << 28)]
    max_nodes: usize,
}

/// The packages this build links.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Name {
    #[cfg(feature = "oxidd")]
    Oxidd,
    #[cfg(feature = "buddy")]
    Buddy,
    #[cfg(feature = "cudd")]
    Cudd,
    #[cfg(feature = "sylvan")]
    Sylvan,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Pass {
    Count,
    Solve,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Image {
    Monolithic,
    Columns,
    /// Every ply's states in frame A, one relation per player applied by
    /// the package's in-place relational products (Sylvan's `relnext` and
    /// `relprev`).
    InPlace,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Terminal {
    Whole,
    Lines,
}

fn main() {
    let args = Args::parse();
    let board = Board { w: args.width, h: args.height };
    let vars = 2 * board.state_vars();
    let start = Instant::now();
    let (nodes, cache) = (args.nodes, args.cache);
    let done = match args.package {
        #[cfg(feature = "oxidd")]
        Name::Oxidd => {
            let p = oxidd::Oxidd::new(nodes.unwrap_or(1 << 24), cache.unwrap_or(1 << 24), vars);
            run(&p, &board, &args, start)
        }
        #[cfg(feature = "buddy")]
        Name::Buddy => {
            run(&buddy::Buddy::new(nodes.unwrap_or(1 << 24), cache.unwrap_or(1 << 20), vars), &board, &args, start)
        }
        #[cfg(feature = "cudd")]
        Name::Cudd => {
            let p = cudd::Cudd::new(nodes.unwrap_or(256 * vars as usize), cache.unwrap_or(1 << 18), vars);
            run(&p, &board, &args, start)
        }
        #[cfg(feature = "sylvan")]
        Name::Sylvan => {
            let p =
                sylvan::Sylvan::new(args.threads, nodes.unwrap_or(1 << 22), args.max_nodes, cache.unwrap_or(1 << 22));
            p.run(|| run(&p, &board, &args, start))
        }
    };
    if let Err(message) = done {
        eprintln!("error: {message}");
        std::process::exit(2);
    }
}

/// Run the pass `args` ask on `p`, printing as the module says; an error
/// when `p` cannot run it.
fn run<P: Package>(p: &P, board: &Board, args: &Args, start: Instant) -> Result<(), String> {
    if args.image == Image::InPlace && !P::IN_PLACE {
        return Err("--image in-place needs a package with in-place relational products (sylvan)".into());
    }
    if args.threads > 1 && !P::THREADED {
        return Err(format!("--threads {}: this package runs on one thread", args.threads));
    }
    let rules = Rules::new(p, board, args.image, args.terminal);
    let mut held = 0;
    let total = match args.pass {
        Pass::Count => pass::count(p, board, &rules, &mut held),
        Pass::Solve => pass::solve(p, board, &rules, &mut held),
    };
    println!("total positions: {total}");
    println!("time {:.3} s, {}", start.elapsed().as_secs_f64(), p.report());
    let gc = p.gc_seconds().map_or("-".to_string(), |s| format!("{s:.3}"));
    println!("figures: peak nodes {}, GC s {gc}", p.peak_nodes().unwrap_or(held));
    Ok(())
}
