//! Flat result rows (their field order is the CSV schema) and the CSV files
//! of a sweep directory.
//!
//! Crash safety: rows are appended and flushed one at a time; a run's summary
//! row in `runs.csv` is written (and synced) only after all its ply rows. On
//! resume, `repair` cuts a torn last line from both files and drops the ply
//! rows of runs without a summary row, so a sweep killed at any moment
//! continues without losing or duplicating a finished row.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The type of the `gc_cache` column.
pub use crate::bdd::GcCache;
/// The type of the `traversal` column.
pub use crate::bdd::Traversal;
use crate::encoding::EncodingKind;
use crate::run::Pass;
use crate::search::{ImageStrategy, Phases, TerminalStrategy, Value};

/// How a run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Finished: every ply recorded.
    Ok,
    /// Stopped by its node limit (`max_nodes`).
    NodeLimit,
    /// Killed after its wall-time limit (`time_s`).
    TimeLimit,
    /// Stopped by its memory limit (`memory_bytes`).
    MemoryLimit,
    /// Any other failure; the row's `message` says what.
    #[default]
    Error,
}

impl Status {
    /// The name written in `runs.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NodeLimit => "node-limit",
            Status::TimeLimit => "time-limit",
            Status::MemoryLimit => "memory-limit",
            Status::Error => "error",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One row of `runs.csv`: a finished run (whatever its status).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    pub run: String,
    pub width: u8,
    pub height: u8,
    pub encoding: EncodingKind,
    pub order: String,
    pub pass: Pass,
    pub terminal: TerminalStrategy,
    pub image: ImageStrategy,
    /// Total positions over all plies; empty unless the pass finished.
    pub positions: Option<u128>,
    /// Plies finished (their rows are in `plies.csv`).
    pub plies: u32,
    pub time_s: f64,
    /// CPU time (user + system) of the run's process, measured by the parent;
    /// empty in archives written before the column existed.
    #[serde(default)]
    pub cpu_s: Option<f64>,
    pub gc_share: f64,
    /// Peak resident set size of the run's process, measured by the parent.
    pub peak_rss_bytes: u64,
    /// Most BDD nodes alive at once.
    pub peak_nodes: u64,
    pub status: Status,
    pub message: String,
    /// Solve passes: the value of the empty board.
    pub value: Option<Value>,
    /// Solve passes: bytes of the stored solution (all plies' win and lost BDDs).
    pub solution_bytes: Option<u64>,
    pub max_nodes: u64,
    pub time_limit_s: Option<f64>,
    pub memory_limit_bytes: Option<f64>,
    pub gc_min_live: u64,
    pub gc_growth: f64,
    pub cache_ratio: u64,
    /// Threads of the BDD operations; empty in archives written before the
    /// column existed (they ran on one).
    #[serde(default)]
    pub threads: Option<u64>,
    /// Seconds spent removing terminal states, in images and pre-images, and
    /// counting, over all plies (each without garbage collection, which is
    /// `gc_share`); empty unless the run finished with every ply's phases
    /// recorded (older archives and checkpoints have none).
    #[serde(default)]
    pub terminal_s: Option<f64>,
    #[serde(default)]
    pub image_s: Option<f64>,
    #[serde(default)]
    pub count_s: Option<f64>,
    /// Seconds sorting states into won, drawn and lost (solve passes; 0 for
    /// counts), as the other phases; empty in archives written before the
    /// column existed (that time was then outside every phase).
    #[serde(default)]
    pub split_s: Option<f64>,
    /// Bytes of a computed-cache entry in the build that ran it; empty in
    /// archives written before the column existed (20 bytes then).
    #[serde(default)]
    pub cache_entry_bytes: Option<u64>,
    /// The cap on computed-cache entries; empty in archives written before
    /// the column existed (2^26 then).
    #[serde(default)]
    pub max_cache_entries: Option<u64>,
    /// What collections did with the computed cache (`keep` or `clear`);
    /// empty in archives written before the column existed (`keep` then).
    #[serde(default)]
    pub gc_cache: Option<GcCache>,
    /// The floor of computed-cache entries; empty in archives written before
    /// the column existed (none then: the cache grew with the arena).
    #[serde(default)]
    pub min_cache_entries: Option<u64>,
    /// The memory model's bytes at the run's peak of live nodes
    /// ([`crate::bdd::model_bytes`]); empty in archives written before the
    /// column existed, all by builds of the chained node store
    /// ([`RunRow::model`] computes that store's model for them).
    #[serde(default)]
    pub model_bytes: Option<u64>,
    /// Nodes of the BDD of all plies, for a count that built it.
    #[serde(default)]
    pub full_bdd_nodes: Option<u64>,
    /// Cache entries per entry of the three-way split's table (used by
    /// solves); empty in archives written before the column existed (16 then).
    #[serde(default)]
    pub split3_cache_ratio: Option<u64>,
    /// Top variables each image's operand was split on
    /// ([`crate::search::ForwardOptions::image_split`]); empty in archives
    /// written before the column existed (no split then).
    #[serde(default)]
    pub image_split: Option<u8>,
    /// Top variables a solve's plies were split in parts on
    /// ([`crate::search::ForwardOptions::split_parts`]); empty in archives
    /// written before the column existed (each ply split whole then).
    #[serde(default)]
    pub split_parts: Option<u8>,
    /// Plies the run's last process took up from a checkpoint of earlier
    /// processes (0: the run ran in one process). When above 0, `cpu_s` is
    /// the last process's alone, `time_s` the plies' times added, and
    /// `peak_rss_bytes` and `peak_nodes` the most over the plies' records of
    /// every process and the last process. Empty where not recorded (a
    /// partitioned solve) and in archives written before the column existed.
    #[serde(default)]
    pub resumed_plies: Option<u32>,
    /// How one thread walked the operations; empty in archives written
    /// before the column existed (depth-first then).
    #[serde(default)]
    pub traversal: Option<Traversal>,
    /// Most requests a breadth-first operation held at once; empty in
    /// archives written before the column existed (no bound then).
    #[serde(default)]
    pub max_requests: Option<u64>,
    /// Most bytes the breadth-first tables held at the end of a walk, in
    /// the run's last process (0 where every walk was depth-first); empty in
    /// archives written before the column existed.
    #[serde(default)]
    pub bfs_peak_bytes: Option<u64>,
}

/// Bytes of a cache entry in rows without `cache_entry_bytes`.
const UNRECORDED_ENTRY_BYTES: u64 = 20;

/// The cap on cache entries in rows without `max_cache_entries`.
const UNRECORDED_MAX_CACHE_ENTRIES: u64 = 1 << 26;

impl RunRow {
    /// The memory model's bytes for this run: its `model_bytes`, or for a
    /// row without it, the chained store's model (the store those builds
    /// had) of its recorded settings (20-byte cache entries, a cap of 2^26
    /// entries and no floor where those columns are empty, as in the builds
    /// that wrote such rows).
    pub fn model(&self) -> u64 {
        self.model_bytes.unwrap_or_else(|| {
            let config = crate::bdd::Config {
                cache_ratio: self.cache_ratio.max(1) as usize,
                max_cache_entries: self.max_cache_entries.unwrap_or(UNRECORDED_MAX_CACHE_ENTRIES) as usize,
                min_cache_entries: self.min_cache_entries.unwrap_or(0) as usize,
                ..crate::bdd::Config::default()
            };
            let entry_bytes = self.cache_entry_bytes.unwrap_or(UNRECORDED_ENTRY_BYTES) as usize;
            super::chained_model::chained_model_bytes(self.peak_nodes, &config, entry_bytes)
        })
    }
}

/// One row of `plies.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlyRow {
    pub run: String,
    pub ply: u32,
    pub states: u128,
    /// Count passes: nodes of the ply's states; solve passes: of its win and lost BDDs.
    pub bdd_nodes: u64,
    pub live_nodes: u64,
    pub time_s: f64,
    /// Solve passes, first player's view (the paper's Table 2).
    pub won: Option<u128>,
    pub drawn: Option<u128>,
    pub lost: Option<u128>,
    pub terminal: Option<u128>,
    /// Resident bytes of the run's process when the ply's record was made
    /// (after its count), and the most it had held so far: the ply where the
    /// second jumps is where the run's peak RSS was reached. Empty in archives
    /// written before the columns existed, and off Linux.
    #[serde(default)]
    pub rss_bytes: Option<u64>,
    #[serde(default)]
    pub peak_rss_bytes: Option<u64>,
    /// The ply's time by phase (see [`Phases`]); empty in archives written
    /// before the columns existed.
    #[serde(default)]
    pub terminal_s: Option<f64>,
    #[serde(default)]
    pub image_s: Option<f64>,
    #[serde(default)]
    pub count_s: Option<f64>,
    #[serde(default)]
    pub gc_s: Option<f64>,
    #[serde(default)]
    pub split_s: Option<f64>,
}

impl PlyRow {
    /// These phase columns filled from `p`.
    fn with_phases(self, p: Option<Phases>) -> PlyRow {
        PlyRow {
            terminal_s: p.map(|p| p.terminal_s),
            image_s: p.map(|p| p.image_s),
            count_s: p.map(|p| p.count_s),
            gc_s: p.map(|p| p.gc_s),
            split_s: p.map(|p| p.split_s),
            ..self
        }
    }

    /// The row of a counted ply of run `run`.
    /// The column names, as the first line of a CSV of these rows.
    pub fn header() -> Vec<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(PlyRow::default()).expect("a row serializes");
        let bytes = w.into_inner().expect("a buffer takes the row");
        let mut reader = csv::Reader::from_reader(&bytes[..]);
        reader.headers().expect("the header reads back").iter().map(String::from).collect()
    }

    pub fn counted(run: &str, p: &crate::search::PlyRecord) -> PlyRow {
        PlyRow {
            run: run.to_string(),
            ply: p.ply,
            states: p.states,
            bdd_nodes: p.bdd_nodes,
            live_nodes: p.live_nodes,
            time_s: p.time_s,
            rss_bytes: p.rss_bytes,
            peak_rss_bytes: p.peak_rss_bytes,
            ..Default::default()
        }
        .with_phases(p.phases)
    }

    /// The row of a solved ply of run `run` (its states are the ply's total).
    pub fn solved(run: &str, p: &crate::search::SolvePly) -> PlyRow {
        PlyRow {
            run: run.to_string(),
            ply: p.ply,
            states: p.total,
            bdd_nodes: p.nodes,
            live_nodes: 0,
            time_s: p.time_s,
            won: Some(p.won),
            drawn: Some(p.drawn),
            lost: Some(p.lost),
            terminal: Some(p.terminal),
            rss_bytes: p.rss_bytes,
            peak_rss_bytes: p.peak_rss_bytes,
            ..Default::default()
        }
        .with_phases(p.phases)
    }
}

/// An append-only CSV file with a fixed header.
pub struct CsvLog {
    path: PathBuf,
    writer: csv::Writer<File>,
}

impl CsvLog {
    /// Open `path` for appending rows of `T`, writing the header if the file
    /// is new and refusing a file whose header differs (written by another
    /// version of the row schema).
    pub fn open<T: Serialize + Default>(path: &Path) -> Result<CsvLog> {
        check_header::<T>(path)?;
        let exists = path.exists() && std::fs::metadata(path)?.len() > 0;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let writer = csv::WriterBuilder::new().has_headers(!exists).from_writer(file);
        Ok(CsvLog { path: path.to_path_buf(), writer })
    }

    /// Append one row and flush it to the operating system.
    pub fn append<T: Serialize>(&mut self, row: &T) -> Result<()> {
        self.writer.serialize(row).with_context(|| format!("cannot write {}", self.path.display()))?;
        self.writer.flush().with_context(|| format!("cannot write {}", self.path.display()))
    }

    /// Append one row, flush it and wait until it is on disk.
    pub fn append_durable<T: Serialize>(&mut self, row: &T) -> Result<()> {
        self.append(row)?;
        self.writer.get_ref().sync_data().with_context(|| format!("cannot sync {}", self.path.display()))
    }
}

/// Columns added to the row schemas after archives were first written. They
/// are optional, so an older file is upgraded by inserting them empty.
const ADDED_COLUMNS: [&str; 23] = [
    "cpu_s",
    "threads",
    "rss_bytes",
    "peak_rss_bytes",
    "terminal_s",
    "image_s",
    "count_s",
    "gc_s",
    "cache_entry_bytes",
    "max_cache_entries",
    "gc_cache",
    "split_s",
    "min_cache_entries",
    "model_bytes",
    "full_bdd_nodes",
    "split3_cache_ratio",
    "cut_at",
    "image_split",
    "split_parts",
    "resumed_plies",
    "traversal",
    "max_requests",
    "bfs_peak_bytes",
];

/// Refuse an existing, non-empty CSV file whose header is not the one rows
/// of `T` have (it was written by another version of the row schema), except
/// an older file that lacks only some of the columns added since: that one is
/// rewritten (atomically) with the missing columns left empty.
pub fn check_header<T: Serialize + Default>(path: &Path) -> Result<()> {
    if !path.exists() || std::fs::metadata(path)?.len() == 0 {
        return Ok(());
    }
    let mut probe = csv::Writer::from_writer(Vec::new());
    probe.serialize(T::default())?;
    let bytes = probe.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    let header = String::from_utf8_lossy(&bytes).lines().next().unwrap_or("").to_string();
    let expected: Vec<&str> = header.split(',').collect();
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let found = reader.headers().with_context(|| format!("cannot read {}", path.display()))?.clone();
    if found.iter().eq(expected.iter().copied()) {
        return Ok(());
    }
    let missing: Vec<&str> = expected.iter().copied().filter(|c| !found.iter().any(|f| f == *c)).collect();
    let older = expected.iter().copied().filter(|c| !missing.contains(c));
    if !missing.iter().all(|c| ADDED_COLUMNS.contains(c)) || !found.iter().eq(older) {
        anyhow::bail!(
            "{} has other columns than this version writes; resume it with the version that wrote it, or use a new --out",
            path.display()
        );
    }
    upgrade(path, &mut reader, &expected, &missing)
        .with_context(|| format!("cannot add the new columns to {}", path.display()))
}

/// Rewrite a CSV file with the header `expected`, the `missing` columns empty.
fn upgrade(path: &Path, reader: &mut csv::Reader<File>, expected: &[&str], missing: &[&str]) -> Result<()> {
    let rows = reader.records().collect::<std::result::Result<Vec<_>, _>>()?;
    let rows = rows.iter().map(|record| {
        let mut old = record.iter();
        expected.iter().map(|c| if missing.contains(c) { "" } else { old.next().unwrap_or("") }).collect()
    });
    write_csv(path, expected.iter().copied(), rows)
}

/// Write the CSV file `path` whole or not at all: `header`, then `rows`.
fn write_csv<'a>(
    path: &Path,
    header: impl IntoIterator<Item = &'a str>,
    rows: impl Iterator<Item = Vec<&'a str>>,
) -> Result<()> {
    crate::bdd::replace_file(path, |file| {
        let mut w = csv::Writer::from_writer(file);
        w.write_record(header)?;
        for row in rows {
            w.write_record(&row)?;
        }
        w.flush()
    })?;
    Ok(())
}

/// Read every row of a CSV file.
pub fn read_rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize().enumerate() {
        rows.push(row.with_context(|| format!("{}: malformed row {}", path.display(), i + 2))?);
    }
    Ok(rows)
}

/// Cut a torn last line (no final newline) from a file, if any.
pub(crate) fn cut_torn_line(path: &Path) -> Result<()> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(());
    };
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(());
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(keep as u64)?;
    file.sync_data()?;
    Ok(())
}

/// Make a sweep directory consistent after an interruption; returns the
/// finished runs: each key with its status.
pub fn repair(dir: &Path) -> Result<HashMap<String, Status>> {
    let runs_path = dir.join("runs.csv");
    let plies_path = dir.join("plies.csv");
    check_header::<RunRow>(&runs_path)?;
    check_header::<PlyRow>(&plies_path)?;
    cut_torn_line(&runs_path)?;
    cut_torn_line(&plies_path)?;
    let finished: HashMap<String, Status> = if runs_path.exists() {
        read_rows::<RunRow>(&runs_path)?.into_iter().map(|r| (r.run, r.status)).collect()
    } else {
        HashMap::new()
    };
    // Keep the header and the ply rows of finished runs.
    keep_rows(&plies_path, |run| finished.contains_key(run))?;
    Ok(finished)
}

/// Take the runs `forget` out of a sweep directory: their rows in `runs.csv`
/// and `plies.csv` go, so that the next sweep runs them again (from their
/// checkpoints, if kept).
pub fn forget(dir: &Path, forget: &HashSet<String>) -> Result<()> {
    keep_rows(&dir.join("runs.csv"), |run| !forget.contains(run))?;
    keep_rows(&dir.join("plies.csv"), |run| !forget.contains(run))
}

/// Rewrite the CSV file at `path` (if any) with its header and the rows
/// whose first field (the run's key) `keep` accepts; the file is replaced
/// at once (written beside it, synced, renamed), and left alone when every
/// row is kept.
fn keep_rows(path: &Path, keep: impl Fn(&str) -> bool) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let mut reader = csv::Reader::from_path(path)?;
    let header = reader.headers()?.clone();
    let mut kept = Vec::new();
    let mut dropped = false;
    for record in reader.records() {
        let record = record.with_context(|| format!("{}: malformed row", path.display()))?;
        if keep(record.get(0).unwrap_or("")) {
            kept.push(record);
        } else {
            dropped = true;
        }
    }
    if dropped {
        write_csv(path, header.iter(), kept.iter().map(|r| r.iter().collect()))?;
    }
    Ok(())
}
