//! The sweep: expand a spec, skip finished runs, run the remaining runs in
//! child processes of this binary (one at a time, or `jobs` at once), and
//! record their plies and summaries.
//!
//! Invariants: only the sweep's own thread writes the archive (the runs'
//! threads send it their rows), so rows are whole and each run's summary row
//! follows all of its ply rows; a directory is written by one sweep at a time
//! (an exclusive lock on `sweep.lock`, which holds the sweep's process id;
//! released when the process ends, even by kill -9, and the file removed
//! when the sweep is done).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::child::run_child;
use super::meta::{now_utc, Invocation, Machine, Meta, Revision};
use super::record::{forget, repair, CsvLog, PlyRow, RunRow, Status};
use super::spec::{ExperimentSpec, Pass, RunSpec, SpecError};
use crate::encoding::EncodingKind;
use crate::game::BoardSize;

/// What to sweep and where.
pub struct SweepOptions {
    pub spec: PathBuf,
    /// `(i, n)`: run only the runs whose index is `i - 1` modulo `n`.
    pub shard: Option<(usize, usize)>,
    /// Run only the runs of these boards (all when empty); each must be in the spec.
    pub boards: Vec<BoardSize>,
    /// Run only the runs in these encodings (all when empty); each must be in the spec.
    pub encodings: Vec<EncodingKind>,
    /// Run only the runs in these variable orders, named as in the spec (all when empty); each must be in it.
    pub orders: Vec<String>,
    /// Run only the runs on these numbers of threads (all when empty); each must be in the spec.
    pub threads: Vec<usize>,
    /// Runs at once, each in its own child process (at least 1).
    pub jobs: usize,
    /// Write into this directory instead of `results/<experiment>/<run-id>/`.
    pub out: Option<PathBuf>,
    /// Root of the results archive.
    pub results: PathBuf,
    pub quiet: bool,
    /// Run again the selected runs that a limit stopped or that failed.
    pub retry: bool,
    /// Compute the selected runs' images on this image split instead of the
    /// spec's (their keys and checkpoints stay theirs); refused when the spec
    /// sweeps the split.
    pub image_split: Option<u8>,
    /// Cap the selected runs' computed cache at this many entries instead of
    /// the spec's (keys and checkpoints stay theirs); refused when the spec
    /// sweeps the cap.
    pub max_cache_entries: Option<usize>,
}

/// Counts of what a sweep did.
#[derive(Debug, Default)]
pub struct SweepReport {
    /// The spec's name: its report goes to `plots/<name>/`.
    pub name: String,
    /// The folder holding this sweep's archive.
    pub dir: PathBuf,
    pub skipped: usize,
    pub ran: usize,
    pub ok: usize,
}

/// Parse `i/n` with `1 <= i <= n`.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("invalid shard '{text}': expected i/n with 1 <= i <= n");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The directory of a sweep: an existing one of the same experiment, host,
/// commit and shard (to resume), else a new `<date>-<host>-<commit>`.
fn sweep_dir(opts: &SweepOptions, spec: &ExperimentSpec, host: &str, rev: &Revision) -> PathBuf {
    if let Some(out) = &opts.out {
        return out.clone();
    }
    let mut suffix = format!("-{host}-{}{}", rev.commit, if rev.dirty { "-dirty" } else { "" });
    if let Some((i, n)) = opts.shard {
        suffix += &format!("-shard{i}of{n}");
    }
    let parent = opts.results.join(&spec.name);
    let existing = std::fs::read_dir(&parent)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(&suffix) && name.len() == suffix.len() + 10)
        .max();
    let name = existing.unwrap_or_else(|| format!("{}{suffix}", &now_utc()[..10]));
    parent.join(name)
}

/// The runs of the spec that `opts` selects (shard, boards, encodings,
/// orders, threads), in spec order. A board, encoding, order or number of
/// threads the spec lacks, or a combination of them that selects no run, is an input error
/// naming the spec.
fn select(spec: &ExperimentSpec, opts: &SweepOptions) -> Result<Vec<RunSpec>> {
    let all = spec.runs().map_err(anyhow::Error::msg)?;
    let spec_error = |message: String| SpecError { path: opts.spec.clone(), message };
    let refuse = |message: String| Err(spec_error(message).into());
    if let Some(board) = opts.boards.iter().find(|b| !all.iter().any(|r| r.size() == **b)) {
        return refuse(format!("--boards {board}: the spec has no run of this board"));
    }
    if let Some(e) = opts.encodings.iter().find(|e| !all.iter().any(|r| r.encoding == **e)) {
        return refuse(format!("--encodings {}: the spec has no run in this encoding", e.name()));
    }
    if let Some(o) = opts.orders.iter().find(|o| !all.iter().any(|r| r.order == **o)) {
        return refuse(format!("--orders {o}: the spec has no run in this order"));
    }
    if let Some(t) = opts.threads.iter().find(|t| !all.iter().any(|r| r.threads == **t)) {
        return refuse(format!("--threads {t}: the spec has no run on this number of threads"));
    }
    let wanted = |r: &RunSpec| {
        (opts.boards.is_empty() || opts.boards.contains(&r.size()))
            && (opts.encodings.is_empty() || opts.encodings.contains(&r.encoding))
            && (opts.orders.is_empty() || opts.orders.contains(&r.order))
            && (opts.threads.is_empty() || opts.threads.contains(&r.threads))
    };
    if !all.iter().any(wanted) {
        return refuse("--boards, --encodings, --orders and --threads together select no run of the spec".into());
    }
    let mut runs: Vec<RunSpec> = match opts.shard {
        Some((i, n)) => all.into_iter().enumerate().filter(|(k, _)| k % n == i - 1).map(|(_, r)| r).collect(),
        None => all,
    }
    .into_iter()
    .filter(wanted)
    .collect();
    if let Some(k) = opts.image_split {
        override_runs(&mut runs, "image_split", k, |r| r.swept.image_split, |r| r.image_split = k)
            .map_err(spec_error)?;
    }
    if let Some(n) = opts.max_cache_entries {
        let swept = |r: &RunSpec| r.swept.max_cache_entries;
        override_runs(&mut runs, "max_cache_entries", n, swept, |r| r.manager.max_cache_entries = Some(n))
            .map_err(spec_error)?;
    }
    Ok(runs)
}

/// Set the runs' setting `key` to `value` from the command line (its flag
/// `--key value`, with dashes): refused, with a message naming the flag,
/// when the spec sweeps it (`swept`: its runs then differ by it) or when a
/// run is no longer valid.
fn override_runs(
    runs: &mut [RunSpec],
    key: &str,
    value: impl std::fmt::Display,
    swept: impl Fn(&RunSpec) -> bool,
    set: impl Fn(&mut RunSpec),
) -> std::result::Result<(), String> {
    let flag = format!("--{} {value}", key.replace('_', "-"));
    if runs.iter().any(&swept) {
        return Err(format!("{flag}: the spec sweeps {key} (its runs differ by it)"));
    }
    for run in runs.iter_mut() {
        set(run);
        run.validate().map_err(|e| format!("{flag}: {e}"))?;
    }
    Ok(())
}

/// How long a sweep waits for the lock of its directory before it gives up.
/// A sweep killed a moment ago can still hold it: a worker it was starting
/// holds a copy of the descriptor until that worker's program is loaded.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// Hold the exclusive lock of a sweep directory (`sweep.lock`, removed when
/// the sweep is done), or fail naming it.
fn lock(dir: &Path) -> Result<crate::search::files::DirLock> {
    match crate::search::files::take_lock(&dir.join("sweep.lock"), LOCK_WAIT)? {
        Ok(lock) => Ok(lock),
        Err(pid) => anyhow::bail!("{} is being written by another sweep (pid {pid})", dir.display()),
    }
}

/// Where a run of the sweep in `dir` keeps its checkpoint.
fn checkpoint_dir(dir: &Path, run: &RunSpec) -> PathBuf {
    dir.join("checkpoints").join(run.key().replace('/', "_"))
}

/// Where a solve of the sweep in `dir` stores its solution.
fn solution_dir(dir: &Path, run: &RunSpec) -> PathBuf {
    dir.join("solution").join(run.key().replace('/', "_"))
}

/// A run of a sweep and how far it is in the sweep's directory.
pub struct RunState {
    pub key: String,
    /// Its row, once finished (whatever the status).
    pub row: Option<RunRow>,
    /// What its checkpoint holds, if it has one and has not finished
    /// (a run a limit stopped keeps its checkpoint).
    pub checkpoint: Option<String>,
}

impl RunState {
    /// One line: the status with the positions or plies and the time, or
    /// `pending`; with what the checkpoint holds, if any.
    pub fn describe(&self) -> String {
        match (&self.row, &self.checkpoint) {
            (Some(r), held) => {
                let ended = match r.positions {
                    Some(p) => format!("{} {p} positions {:.1} s", r.status, r.time_s),
                    None => format!("{} after {} plies {:.1} s", r.status, r.plies, r.time_s),
                };
                match held {
                    Some(held) => format!("{ended} (checkpoint: {held}; --retry continues it)"),
                    None => ended,
                }
            }
            (None, Some(held)) => format!("pending (checkpoint: {held})"),
            (None, None) => "pending".to_string(),
        }
    }
}

/// The runs a sweep would run, in its order, and how far each is in its
/// directory. Reads only; a directory that does not exist yet has every run
/// pending.
pub fn list(opts: &SweepOptions) -> Result<(PathBuf, Vec<RunState>)> {
    let spec = ExperimentSpec::load(&opts.spec)?;
    let runs = select(&spec, opts)?;
    let dir = sweep_dir(opts, &spec, &Machine::current().host, &Revision::current());
    let path = dir.join("runs.csv");
    let rows: Vec<RunRow> = if path.exists() { super::record::read_rows(&path)? } else { Vec::new() };
    let states = runs
        .iter()
        .map(|run| {
            let key = run.key();
            let row = rows.iter().find(|r| r.run == key).cloned();
            let ck = checkpoint_dir(&dir, run);
            let checkpoint = match &row {
                Some(r) if r.status == Status::Ok => None,
                _ => crate::search::resume::forward::describe(&ck)
                    .or_else(|| crate::search::resume::solve::describe(&ck)),
            };
            RunState { key, row, checkpoint }
        })
        .collect();
    Ok((dir, states))
}

/// What the threads running children tell the sweep's thread.
enum Event {
    Ply(Box<PlyRow>),
    Finished(Box<(RunSpec, Result<RunRow>)>),
}

/// Run a sweep. Spec errors are returned before anything is written.
pub fn sweep(opts: &SweepOptions, argv: Vec<String>) -> Result<SweepReport> {
    let spec = ExperimentSpec::load(&opts.spec)?;
    let runs = select(&spec, opts)?;
    let rev = Revision::current();
    let machine = Machine::current();
    let machine_memory = machine.memory_bytes as f64;
    let dir = sweep_dir(opts, &spec, &machine.host, &rev);
    crate::search::files::writable_dir(&dir)?;
    let _lock = lock(&dir)?;
    let mut finished = repair(&dir)?;
    if opts.retry {
        // Runs stopped by a limit keep their checkpoints: they continue from
        // them under the spec's limits as they are now.
        let again: HashSet<String> =
            runs.iter().map(|r| r.key()).filter(|k| finished.get(k).is_some_and(|s| *s != Status::Ok)).collect();
        forget(&dir, &again)?;
        finished.retain(|k, _| !again.contains(k));
    }
    if spec.checkpoints {
        // A sweep stopped between recording a run and removing its checkpoint
        // (see `record`) left the checkpoint of a finished run: remove it now.
        for r in runs.iter().filter(|r| finished.get(&r.key()) == Some(&Status::Ok)) {
            let _ = std::fs::remove_dir_all(checkpoint_dir(&dir, r));
        }
    }
    record_invocation(&dir, &spec, machine, &rev, argv, opts.shard)?;

    let mut runs_log = CsvLog::open::<RunRow>(&dir.join("runs.csv"))?;
    let mut plies_log = CsvLog::open::<PlyRow>(&dir.join("plies.csv"))?;
    let todo: Vec<RunSpec> = runs
        .iter()
        .filter(|r| !finished.contains_key(&r.key()))
        .map(|r| {
            let mut run = r.clone();
            if spec.checkpoints {
                // Plies finished by an interrupted run are taken up from here.
                run.checkpoint = Some(checkpoint_dir(&dir, r));
            }
            if spec.solutions && run.pass == Pass::Solve {
                run.solution = Some(solution_dir(&dir, r));
            }
            run
        })
        .collect();
    let mut report = SweepReport {
        name: spec.name.clone(),
        dir: dir.clone(),
        skipped: runs.len() - todo.len(),
        ..Default::default()
    };
    let bar = if opts.quiet { ProgressBar::hidden() } else { ProgressBar::new(todo.len() as u64) };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}").unwrap());
    bar.enable_steady_tick(Duration::from_millis(500));
    if !opts.quiet && report.skipped > 0 {
        bar.suspend(|| println!("{}: {} runs already finished, skipped", dir.display(), report.skipped));
    }
    let jobs = opts.jobs.clamp(1, todo.len().max(1));
    warn_if_over_memory(&todo, jobs, machine_memory);
    let logs = Logs { runs: &mut runs_log, plies: &mut plies_log, bar: &bar, quiet: opts.quiet };
    let failure = run_all(todo, jobs, logs, &mut report);
    bar.finish_and_clear();
    match failure {
        Some(e) => Err(e),
        None => Ok(report),
    }
}

/// Where a sweep's events go.
struct Logs<'a> {
    runs: &'a mut CsvLog,
    plies: &'a mut CsvLog,
    bar: &'a ProgressBar,
    quiet: bool,
}

/// Run `todo` on `jobs` workers at once, logging each ply and run as it
/// arrives; the first failure to log stops handing out runs and is returned.
fn run_all(todo: Vec<RunSpec>, jobs: usize, logs: Logs, report: &mut SweepReport) -> Option<anyhow::Error> {
    let queue = Mutex::new(todo.into_iter());
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    let mut failure: Option<anyhow::Error> = None;
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let (tx, queue, stop) = (tx.clone(), &queue, &stop);
            s.spawn(move || loop {
                let next = if stop.load(Ordering::Relaxed) { None } else { queue.lock().unwrap().next() };
                let Some(run) = next else { break };
                let row = run_child(&run, |p| {
                    let _ = tx.send(Event::Ply(Box::new(p)));
                });
                if tx.send(Event::Finished(Box::new((run, row)))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Per running run, its last ply: the progress bar's message.
        let mut active: BTreeMap<String, u32> = BTreeMap::new();
        for event in rx {
            if failure.is_some() {
                continue;
            }
            let written = match event {
                Event::Ply(p) => {
                    active.insert(p.run.clone(), p.ply);
                    logs.plies.append(&p)
                }
                Event::Finished(finished) => {
                    let (run, row) = *finished;
                    active.remove(&run.key());
                    row.and_then(|row| record(&run, &row, logs.runs, logs.bar, logs.quiet, report))
                }
            };
            if let Err(e) = written {
                stop.store(true, Ordering::Relaxed);
                failure = Some(e);
            }
            let message: Vec<String> = active.iter().map(|(k, ply)| format!("{k} ply {ply}")).collect();
            logs.bar.set_message(message.join(" | "));
        }
    });
    failure
}

/// Add this invocation to the directory's `meta.json` (created with the
/// machine and revision on the first one); the spec is the one in force.
fn record_invocation(
    dir: &Path,
    spec: &ExperimentSpec,
    machine: Machine,
    rev: &Revision,
    argv: Vec<String>,
    shard: Option<(usize, usize)>,
) -> Result<()> {
    let path = dir.join("meta.json");
    let mut meta = if path.exists() {
        Meta::load(&path)?
    } else {
        Meta { experiment: spec.name.clone(), revision: rev.clone(), machine, spec: spec.clone(), invocations: vec![] }
    };
    meta.spec = spec.clone();
    meta.invocations.push(Invocation {
        date: now_utc(),
        command: argv,
        commit: rev.commit.clone(),
        dirty: rev.dirty,
        shard: shard.map(|(i, n)| format!("{i}/{n}")),
    });
    meta.save(&path)
}

/// Warn when `jobs` runs at once may together need more memory (by their
/// limits) than the machine has.
fn warn_if_over_memory(todo: &[RunSpec], jobs: usize, machine_memory: f64) {
    let limit = todo.iter().filter_map(|r| r.limits.memory_bytes).fold(0.0, f64::max);
    if jobs > 1 && limit * jobs as f64 > machine_memory {
        eprintln!(
            "warning: {jobs} jobs with memory limits of up to {:.1} GB may need more than this machine's {:.1} GB",
            limit / 1e9,
            machine_memory / 1e9
        );
    }
}

/// Write a finished run's row (durably) and drop the checkpoint of a run
/// that completed.
fn record(
    run: &RunSpec,
    row: &RunRow,
    runs_log: &mut CsvLog,
    bar: &ProgressBar,
    quiet: bool,
    report: &mut SweepReport,
) -> Result<()> {
    if !quiet {
        let positions = row.positions.map_or("-".into(), |p| p.to_string());
        bar.suspend(|| println!("{:<50} {:<10} {:>22} {:>9.2} s", row.run, row.status, positions, row.time_s));
    }
    report.ran += 1;
    report.ok += (row.status == Status::Ok) as usize;
    runs_log.append_durable(row)?;
    if let (Some(ck), Status::Ok) = (&run.checkpoint, row.status) {
        // The run is done; its checkpoint is not needed again. (A run stopped
        // by a limit keeps it: `--retry` continues it under other limits.)
        let _ = std::fs::remove_dir_all(ck);
    }
    bar.inc(1);
    Ok(())
}

/// Merge the result directories of sharded sweeps into `out`.
pub fn merge(sources: &[PathBuf], out: &Path) -> Result<usize> {
    use super::record::read_rows;
    if out.join("runs.csv").exists() {
        anyhow::bail!("{} already holds results; merge into a new directory", out.display());
    }
    let mut runs: Vec<RunRow> = Vec::new();
    let mut plies: Vec<PlyRow> = Vec::new();
    let mut metas = Vec::new();
    let mut origin = std::collections::HashMap::new();
    for src in sources {
        let src_runs: Vec<RunRow> = read_rows(&src.join("runs.csv"))?;
        let keys: std::collections::HashSet<String> = src_runs.iter().map(|r| r.run.clone()).collect();
        for r in src_runs {
            if let Some(first) = origin.insert(r.run.clone(), src.clone()) {
                anyhow::bail!("run {} appears in both {} and {}", r.run, first.display(), src.display());
            }
            runs.push(r);
        }
        let src_plies: Vec<PlyRow> = read_rows(&src.join("plies.csv"))?;
        plies.extend(src_plies.into_iter().filter(|p| keys.contains(&p.run)));
        metas.push(Meta::load(&src.join("meta.json"))?);
    }
    crate::search::files::writable_dir(out)?;
    let mut meta = metas.first().cloned().context("nothing to merge")?;
    meta.invocations = metas.iter().flat_map(|m| m.invocations.clone()).collect();
    meta.save(&out.join("meta.json"))?;
    let mut w = CsvLog::open::<RunRow>(&out.join("runs.csv"))?;
    for r in &runs {
        w.append(r)?;
    }
    let mut w = CsvLog::open::<PlyRow>(&out.join("plies.csv"))?;
    for p in &plies {
        w.append(p)?;
    }
    Ok(runs.len())
}
