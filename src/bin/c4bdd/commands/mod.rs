//! The bodies of the commands: each parses nothing (that is [`crate::cli`]),
//! runs the library and prints.

mod orders;
mod parts;
mod play;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cli::{Cli, Command, CountArgs, InputError, ReportArgs, SolveArgs, SweepArgs};
use c4bdd::experiment::record::{PlyRow, Status};
use c4bdd::experiment::SweepOptions;
use c4bdd::measure::peak_rss_bytes;
use c4bdd::report::ReportOptions;
use c4bdd::run::{execute, Pass, Resumed, RunSpec, Sink};
use c4bdd::search::partition::PartLine;
use c4bdd::search::{PlyRecord, SolvePly, Step, TerminalStrategy};

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Count(args) => count(args),
        Command::Solve(args) => solve(args),
        Command::Query(args) => play::query(args),
        Command::Best(args) => play::best(args),
        Command::Verify(args) => play::verify(args),
        Command::Parts(args) => parts::parts(args),
        Command::Export(args) => play::export(args),
        Command::Book(args) => play::book(args),
        Command::Report(args) => report(args),
        Command::Sweep(args) => sweep(args),
        Command::Merge(args) => {
            let n = c4bdd::experiment::merge(&args.sources, &args.out)?;
            println!("{}: {n} runs merged", args.out.display());
            Ok(())
        }
        Command::Orders { command } => orders::run(command),
        Command::Worker { run } => c4bdd::experiment::worker::run(&run),
    }
}

/// `c4bdd report`: the folders are checked first.
fn report(args: ReportArgs) -> Result<()> {
    for (flag, dir) in [("--results", &args.results), ("--reference", &args.reference)] {
        if !dir.is_dir() {
            let what = format!("{flag} {}: no such directory", dir.display());
            return Err(InputError(what).into());
        }
    }
    let opts = ReportOptions {
        results: args.results,
        reference: args.reference,
        plots: args.plots.clone(),
        repro: Some(args.repro.clone()),
        boards: args.board,
    };
    let written = c4bdd::report::report(&opts)?;
    println!("{} files written in {}, and {}", written.file_count(), args.plots.display(), args.repro.display());
    Ok(())
}

/// On Ctrl-C (SIGINT), end with one line saying that the archive keeps the
/// finished rows and how to go on, and exit status 130, as the shell's
/// default would (the workers, in the same process group, get the signal
/// too).
fn say_how_to_resume_when_interrupted() {
    extern "C" fn on_interrupt(_: libc::c_int) {
        const LINE: &[u8] = b"\ninterrupted: the finished runs and plies are kept; rerun the same command to resume\n";
        // SAFETY: write(2) of a static buffer and _exit(2): async-signal-safe.
        unsafe {
            libc::write(2, LINE.as_ptr().cast(), LINE.len());
            libc::_exit(130);
        }
    }
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe { libc::signal(libc::SIGINT, on_interrupt as *const () as libc::sighandler_t) };
}

/// `c4bdd sweep`: run (or with `--list`, list) a spec's runs, then report when asked.
fn sweep(args: SweepArgs) -> Result<()> {
    let opts = SweepOptions {
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
        retry: args.retry,
        image_split: args.image_split,
        max_cache_entries: args.max_cache_entries,
    };
    if args.list {
        return list(&opts);
    }
    say_how_to_resume_when_interrupted();
    let done = c4bdd::experiment::sweep(&opts, std::env::args().collect())?;
    println!("{}: {} runs ran ({} ok), {} already finished", done.dir.display(), done.ran, done.ok, done.skipped);
    if args.report {
        // The spec's own report, named after the spec: its archives
        // (results/NAME/, or the --out folder alone) into plots/NAME/.
        let inside = done.dir.starts_with(&opts.results);
        let experiment = done.dir.parent().filter(|_| inside).unwrap_or(&done.dir).to_path_buf();
        let opts = ReportOptions {
            results: experiment,
            reference: PathBuf::from("reference"),
            plots: Path::new("plots").join(&done.name),
            repro: None,
            boards: Vec::new(),
        };
        let written = c4bdd::report::report(&opts)?;
        println!("report: {} files written in {}", written.file_count(), opts.plots.display());
    }
    Ok(())
}

/// `c4bdd sweep --list`: each run and how far it is.
fn list(opts: &SweepOptions) -> Result<()> {
    let (dir, runs) = c4bdd::experiment::list(opts)?;
    println!("{}:", dir.display());
    for run in &runs {
        println!("{:<55} {}", run.key, run.describe());
    }
    let finished = runs.iter().filter(|r| r.row.is_some()).count();
    let ok = runs.iter().filter(|r| r.row.as_ref().is_some_and(|row| row.status == Status::Ok)).count();
    println!("{} runs: {finished} finished ({ok} ok), {} pending", runs.len(), runs.len() - finished);
    Ok(())
}

/// A `--csv` file, opened with its header written and flushed before any
/// work, so that a bad path or a full disk fails at once; rows are flushed
/// one by one, and the first write error is kept.
struct CsvOut {
    path: PathBuf,
    writer: csv::Writer<File>,
    error: Option<csv::Error>,
    rows: usize,
    /// A regular file (which a stopped run may remove), not a device or pipe.
    regular: bool,
}

impl CsvOut {
    fn open(path: Option<&Path>) -> Result<Option<CsvOut>> {
        let Some(path) = path else { return Ok(None) };
        let what = format!("cannot write --csv file {}", path.display());
        // A path that cannot be written is invalid input; a full disk is not.
        let cannot = |e: std::io::Error| match c4bdd::error::is_disk_full(&e) {
            true => anyhow::Error::new(e).context(what.clone()),
            false => InputError(format!("{what}: {e}")).into(),
        };
        let file = File::create(path).map_err(cannot)?;
        // Only a regular file is ever removed (never /dev/stdout or a pipe).
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        let header = writer.write_record(PlyRow::header()).map_err(std::io::Error::from).and_then(|_| writer.flush());
        if let Err(e) = header {
            if regular {
                let _ = std::fs::remove_file(path);
            }
            return Err(cannot(e));
        }
        Ok(Some(CsvOut { path: path.to_path_buf(), writer, error: None, rows: 0, regular }))
    }

    fn write(&mut self, row: impl serde::Serialize) {
        if self.error.is_none() {
            let w = &mut self.writer;
            self.error = w.serialize(row).and_then(|_| w.flush().map_err(csv::Error::from)).err();
            self.rows += 1;
        }
    }

    /// After a stopped run: a regular file with no row is removed (one with
    /// rows keeps them: each is a finished ply).
    fn abandon(out: Option<CsvOut>) {
        if let Some(o) = out.filter(|o| o.rows == 0 && o.regular) {
            let _ = std::fs::remove_file(&o.path);
        }
    }

    /// The first write error, if any.
    fn finish(out: Option<CsvOut>) -> Result<()> {
        match out.and_then(|o| o.error.map(|e| (o.path, e))) {
            Some((path, e)) => Err(e).context(format!("cannot write the --csv file {}", path.display())),
            None => Ok(()),
        }
    }
}

/// The console table of a run, and its `--csv` rows: those of a sweep's
/// `plies.csv` (the file is created once the run's checks have passed).
struct Console<'a> {
    spec: &'a RunSpec,
    csv_path: Option<&'a Path>,
    csv: Option<CsvOut>,
    /// The run's key, the `run` column of the CSV rows.
    key: String,
    /// The most resident bytes the plies' records saw: a resumed run's
    /// include those of the processes before this one.
    peak_rss_bytes: u64,
    /// A step's progress line is printed once this long has passed since
    /// the last line (`last_line`).
    progress_every: Duration,
    last_line: Instant,
}

impl Sink for Console<'_> {
    fn started(&mut self, order: &str, threads: usize) -> Result<()> {
        self.csv = CsvOut::open(self.csv_path)?;
        self.last_line = Instant::now();
        let s = self.spec;
        match s.pass {
            Pass::Count => {
                println!(
                    "board {}, encoding {}, order {order}, image {}, terminal {}, threads {threads}",
                    s.size(),
                    s.encoding,
                    s.image,
                    s.terminal
                );
                println!(
                    "{:>4} {:>22} {:>12} {:>12} {:>9} {:>8}",
                    "ply", "states", "bdd_nodes", "live_nodes", "time_s", "rss_MB"
                );
            }
            Pass::Solve => {
                println!(
                    "board {}, encoding {}, order {order}, threads {threads}: forward pass, then plies from the last",
                    s.size(),
                    s.encoding
                );
                println!(
                    "{:>4} {:>20} {:>20} {:>20} {:>20} {:>16}",
                    "ply", "won", "drawn", "lost", "total", "terminal"
                );
            }
        }
        Ok(())
    }

    fn resumed(&mut self, r: &Resumed) {
        let read = format!("read and checked in {:.0} s", r.seconds);
        match (self.spec.pass, r.took) {
            (Pass::Solve, Some(t)) => {
                let mut parts = format!("layers {:.0} s", t.layers_s);
                if t.solved_read_s > 0.0 {
                    let (read, check) = (t.solved_read_s, t.solved_check_s);
                    parts += &format!(", the lowest solved ply {read:.0} s to read and {check:.0} s to check");
                }
                if let Some(seconds) = t.solution_s.filter(|_| r.solved > 0) {
                    parts += &format!(", the solution's files {seconds:.0} s");
                }
                println!(
                    "(resumed from the checkpoint: {} forward layers, {} plies solved; {read}: {parts})",
                    r.layers, r.solved
                )
            }
            _ => println!("(resumed from the checkpoint after ply {}; {read})", r.layers - 1),
        }
    }

    fn counted(&mut self, r: &PlyRecord) -> c4bdd::Result<()> {
        self.peak_rss_bytes = self.peak_rss_bytes.max(r.peak_rss_bytes.unwrap_or(0));
        let rss = r.rss_bytes.map_or("-".to_string(), |b| format!("{:.0}", b as f64 / 1e6));
        println!("{:>4} {:>22} {:>12} {:>12} {:>9.3} {rss:>8}", r.ply, r.states, r.bdd_nodes, r.live_nodes, r.time_s);
        let _ = std::io::stdout().flush();
        self.last_line = Instant::now();
        if let Some(csv) = self.csv.as_mut() {
            csv.write(PlyRow::counted(&self.key, r));
        }
        Ok(())
    }

    fn solved(&mut self, p: &SolvePly) -> c4bdd::Result<()> {
        self.peak_rss_bytes = self.peak_rss_bytes.max(p.peak_rss_bytes.unwrap_or(0));
        println!("{:>4} {:>20} {:>20} {:>20} {:>20} {:>16}", p.ply, p.won, p.drawn, p.lost, p.total, p.terminal);
        let _ = std::io::stdout().flush();
        self.last_line = Instant::now();
        // Rows are written as plies are solved (from the last ply down), so
        // a run stopped by a limit keeps every finished ply.
        if let Some(csv) = self.csv.as_mut() {
            csv.write(PlyRow::solved(&self.key, p));
        }
        Ok(())
    }

    fn part(&mut self, line: &PartLine) {
        eprintln!("  ({line})");
        self.last_line = Instant::now();
    }

    fn waiting(&mut self, ply: u32) {
        eprintln!("  (ply {ply}: waiting for the other processes' parts)");
    }

    fn step(&mut self, step: &Step) {
        if self.last_line.elapsed() >= self.progress_every {
            eprintln!("  ({step})");
            self.last_line = Instant::now();
        }
    }
}

/// Run `spec`, printing its table (and writing `--csv`) and, at most every
/// `progress` seconds, its images' steps; then its totals.
fn run_on_console(spec: &RunSpec, csv: Option<&Path>, stats: bool, progress: u64) -> Result<()> {
    spec.validate().map_err(InputError)?;
    let mut console = Console {
        spec,
        csv_path: csv,
        csv: None,
        key: spec.key(),
        peak_rss_bytes: 0,
        progress_every: Duration::from_secs(progress),
        last_line: Instant::now(),
    };
    let fresh_solution = spec.solution.as_ref().filter(|d| !d.exists());
    let finished = match execute(spec, &mut console) {
        Ok(finished) => finished,
        Err(stopped) => {
            CsvOut::abandon(console.csv);
            // A solution folder this run made and left empty goes too.
            if let Some(dir) = fresh_solution {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(stopped.error);
        }
    };
    CsvOut::finish(console.csv)?;
    let t = &finished.totals;
    // The run's peak: this process's or, resumed, an earlier one's.
    let run_peak = peak_rss_bytes().map(|own| own.max(console.peak_rss_bytes));
    let rss = run_peak.map_or("unknown".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6));
    let gc = t.gc_s / t.time_s.max(1e-9) * 100.0;
    match spec.pass {
        Pass::Count => {
            println!("total positions: {}", t.positions.unwrap_or(0));
            let peak = t.peak_nodes;
            println!(
                "time {:.3} s, GC {gc:.1}% ({} runs), peak live nodes {peak}, peak RSS {rss}",
                t.time_s, t.gc_runs
            );
        }
        Pass::Solve => {
            let value = t.value.map_or("unknown", |v| v.name());
            println!("value of the empty board: {value}");
            // Every ply's positions, once the pass reached the empty board.
            if t.value.is_some() {
                println!("total positions: {}", t.positions.unwrap_or(0));
            }
            let stored = match (&spec.solution, t.solution_bytes) {
                (Some(dir), Some(bytes)) => format!(", solution {bytes} bytes in {}", dir.display()),
                _ => String::new(),
            };
            println!(
                "time {:.3} s (forward {:.3} s), GC {gc:.1}%, peak live nodes {}, peak RSS {rss}{stored}",
                t.time_s,
                t.forward_s.unwrap_or(0.0),
                t.peak_nodes
            );
        }
    }
    if let Some(phases) = t.phases {
        let passes = if spec.pass == Pass::Solve { " (both passes)" } else { "" };
        println!("time by phase{passes}: {}", phases.shares(t.plies_s));
    }
    if let Some((plain, with)) = t.complement_edges {
        let fewer = 100.0 * (plain - with) as f64 / plain.max(1) as f64;
        println!("with complement edges: {with} nodes over the plies counted, {plain} without ({fewer:.4}% fewer)");
    }
    if let Some(nodes) = t.full_bdd_nodes {
        println!("all positions in one BDD: {nodes} nodes, {} positions", t.positions.unwrap_or(0));
    }
    if stats {
        print!("{}", finished.stats.op_table());
    }
    Ok(())
}

pub fn count(args: CountArgs) -> Result<()> {
    let terminal = if args.no_termination { TerminalStrategy::Off } else { args.terminal };
    let spec = RunSpec {
        image: args.image.image,
        image_split: args.image.image_split,
        terminal,
        checkpoint: args.checkpoint,
        full_bdd: args.full_bdd,
        complement_edges: args.complement_edges,
        ..args.manager.run(Pass::Count, &args.board, &args.encoding)?
    };
    run_on_console(&spec, args.csv.as_deref(), args.stats, args.image.progress)
}

pub fn solve(args: SolveArgs) -> Result<()> {
    let spec = RunSpec {
        image: args.image.image,
        image_split: args.image.image_split,
        split_parts: args.split_parts,
        terminal: args.terminal,
        checkpoint: args.checkpoint,
        solution: args.out,
        down_to: args.down_to,
        parts: args.parts,
        part: args.part,
        solution_budget: match args.solution_budget {
            Some(gb) if !(gb.is_finite() && gb >= 0.0) => {
                return Err(
                    InputError(format!("--solution-budget: {gb} must be a number of gigabytes, 0 or more")).into()
                )
            }
            gb => gb.map(|gb| (gb * 1e9) as u64),
        },
        ..args.manager.run(Pass::Solve, &args.board, &args.encoding)?
    };
    if let Some(manifest) = finished_solution(&spec)? {
        let dir = spec.solution.as_deref().unwrap_or(Path::new("")).display();
        let value = manifest.value.map_or("unknown", |v| v.name());
        println!(
            "{dir} already holds this solve's whole solution (value {value}, {} bytes, every file checked, every \
             ply proven from the rules)",
            manifest.total_bytes
        );
        return Ok(());
    }
    run_on_console(&spec, args.csv.as_deref(), args.stats, args.image.progress)
}

/// The manifest of the run's solution folder when it already holds the whole
/// solution of this board, encoding and order, every file matching it and
/// every ply proven from the rules ([`c4bdd::search::pass::prove`]): a rerun of a
/// finished solve then has nothing to do.
fn finished_solution(spec: &RunSpec) -> Result<Option<c4bdd::search::Manifest>> {
    let Some(dir) = &spec.solution else { return Ok(None) };
    spec.validate().map_err(InputError)?;
    let Some(manifest) = c4bdd::search::stored::solution::existing(dir)? else { return Ok(None) };
    let order = spec.order_spec().map_err(InputError)?;
    let space = c4bdd::encoding::StateSpace::new(spec.encoding, spec.size(), &order, c4bdd::bdd::Config::default())?;
    if manifest.value.is_none() || !c4bdd::search::stored::solution::same_run(&manifest, &space) {
        return Ok(None);
    }
    let mut solution = c4bdd::search::Solution::open(dir)?;
    solution.verify(|_| {})?;
    c4bdd::search::stored::table::SolutionTable::prove(&mut solution, &mut |_| {})?;
    Ok(Some(manifest))
}
