//! Opening books: the exact value (win or loss in n plies, or draw) of every
//! position at one ply, up to mirror image, found by alpha-beta search that
//! probes a stored solution, and read back as exact values for `best`.
//!
//! A book is a CSV file with the columns `position` (the layout: a cell a
//! character, column by column from the bottom-left, `x`, `o` or `b`),
//! `value` (`win`, `draw` or `loss` for the player to move) and `plies` (how
//! many plies the game lasts from there with best play; empty for a draw).
//! Only positions that are not over are in it, one of each mirror pair.
//! While it is built, finished rows go to `FILE.partial` (one write a row),
//! which a rerun takes up (a torn last row is dropped and found again); the
//! book is then written sorted, atomically.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::files::{bad, io, write_atomic};
use super::table::{open_table, TableProbe};
use crate::error::Result;
use crate::game::alphabeta::{MoveValue, OutcomeProbe, Search};
use crate::game::explicit::Outcome;
use crate::game::{BoardSize, Player, Position};

/// A book read for searches: exact values by canonical key.
pub struct Book {
    pub size: BoardSize,
    pub ply: u32,
    values: HashMap<u128, MoveValue>,
}

/// The layout string of a position.
pub fn layout(p: &Position) -> String {
    let size = p.size();
    let mut s = String::with_capacity(size.cells() as usize);
    for col in 0..size.width {
        for row in 0..size.height {
            s.push(match p.cell(col, row) {
                Some(Player::First) => 'x',
                Some(Player::Second) => 'o',
                None => 'b',
            });
        }
    }
    s
}

/// The position of a book's layout string (its shape checked, not its
/// reachability: a book is c4bdd's own output).
fn from_layout(size: BoardSize, text: &str) -> Option<Position> {
    if text.len() != size.cells() as usize {
        return None;
    }
    let mut discs = [0u128; 2];
    for (i, c) in text.bytes().enumerate() {
        let (col, row) = (i as u32 / size.height as u32, i as u32 % size.height as u32);
        let bit = 1u128 << (col * size.column_bits() + row);
        match c {
            b'x' => discs[0] |= bit,
            b'o' => discs[1] |= bit,
            b'b' => {}
            _ => return None,
        }
    }
    Some(Position::from_discs(size, discs[0], discs[1]))
}

fn row_of(p: &Position, v: MoveValue) -> String {
    let (word, plies) = match v {
        MoveValue::Win(n) => ("win", n.to_string()),
        MoveValue::Draw => ("draw", String::new()),
        MoveValue::Loss(n) => ("loss", n.to_string()),
    };
    format!("{},{word},{plies}", layout(p))
}

/// Parse rows (`position,value,plies`) of a book of `size`.
fn parse_rows(size: BoardSize, path: &Path, text: impl BufRead) -> Result<Vec<(Position, MoveValue)>> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.map_err(io(path))?;
        if i == 0 && line.starts_with("position,") || line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let value = match fields[..] {
            [_, "win", n] => n.parse().ok().map(MoveValue::Win),
            [_, "loss", n] => n.parse().ok().map(MoveValue::Loss),
            [_, "draw", ""] => Some(MoveValue::Draw),
            _ => None,
        };
        match (from_layout(size, fields[0]), value) {
            (Some(p), Some(v)) => rows.push((p, v)),
            _ => return Err(bad(path, format!("line {} is not a book row for {size}: {line}", i + 1))),
        }
    }
    Ok(rows)
}

impl Book {
    /// Read a book of `size` (all its positions at one ply).
    pub fn read(path: &Path, size: BoardSize) -> Result<Book> {
        let file = std::fs::File::open(path).map_err(io(path))?;
        let rows = parse_rows(size, path, std::io::BufReader::new(file))?;
        let ply = rows.first().map_or(0, |(p, _)| p.ply());
        if let Some((p, _)) = rows.iter().find(|(p, _)| p.ply() != ply) {
            return Err(bad(path, format!("holds positions of plies {ply} and {}", p.ply())));
        }
        let values = rows.into_iter().map(|(p, v)| (size.canonical(p.key()), v)).collect();
        Ok(Book { size, ply, values })
    }

    /// The exact value of a position, if the book holds it (or its mirror).
    pub fn get(&self, p: &Position) -> Option<MoveValue> {
        (p.ply() == self.ply).then(|| self.values.get(&self.size.canonical(p.key())).copied()).flatten()
    }

    /// How many positions it holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A book and a stored solution's tables as one probe for a search.
pub struct BookProbe {
    pub book: Option<Book>,
    pub table: Option<TableProbe>,
}

impl OutcomeProbe for BookProbe {
    fn probe(&mut self, p: &Position) -> Option<Outcome> {
        self.table.as_mut().and_then(|t| t.probe(p))
    }

    fn exact(&mut self, p: &Position) -> Option<MoveValue> {
        self.book.as_ref().and_then(|b| b.get(p))
    }
}

/// Every position at ply `ply` that is not over, one of each mirror pair
/// (the one of the smaller key), reached by games that did not end before, in
/// key order.
pub fn positions_at(size: BoardSize, ply: u32) -> Vec<Position> {
    let mut layer = vec![Position::empty(size)];
    for _ in 0..ply {
        let mut next: HashMap<u128, Position> = HashMap::new();
        for p in layer.iter().filter(|p| !p.is_terminal()) {
            for c in (0..size.width).filter(|&c| p.can_play(c)) {
                let q = p.play(c);
                let key = size.canonical(q.key());
                next.entry(key).or_insert_with(|| if q.key() == key { q } else { q.mirror() });
            }
        }
        layer = next.into_values().collect();
    }
    layer.retain(|p| !p.is_terminal());
    layer.sort_by_key(|p| size.canonical(p.key()));
    layer
}

/// How `build` runs.
pub struct BookOptions {
    pub ply: u32,
    pub jobs: usize,
    pub table_bits: u32,
}

/// Build the book of the solution in `solution` at `opts.ply` into `out`:
/// each position's value from the tables (a draw at once), a win or loss by
/// a search that probes them; `jobs` threads, each with its own tables and
/// search. Rows found by an earlier, interrupted run in `out.partial` are
/// kept. `progress(done, total)` is called as rows are found. Returns the
/// rows written.
pub fn build(solution: &Path, out: &Path, opts: &BookOptions, progress: impl Fn(usize, usize)) -> Result<usize> {
    let size = open_table(solution)?.size();
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let mut done: HashMap<u128, String> = HashMap::new();
    if partial.exists() {
        for (p, v) in parse_rows(size, &partial, whole_rows(&partial)?.as_bytes())? {
            done.insert(size.canonical(p.key()), row_of(&p, v));
        }
    }
    let todo: Vec<Position> =
        positions_at(size, opts.ply).into_iter().filter(|p| !done.contains_key(&size.canonical(p.key()))).collect();
    let total = todo.len() + done.len();
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&partial).map_err(io(&partial))?;
    let next = AtomicUsize::new(0);
    let (send, receive) = std::sync::mpsc::channel::<Result<(u128, String)>>();
    let mut failed = None;
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            let (send, next, todo) = (send.clone(), &next, &todo);
            scope.spawn(move || {
                if let Err(e) = value_positions(solution, todo, next, opts.table_bits, &send) {
                    let _ = send.send(Err(e));
                }
            });
        }
        drop(send);
        for row in receive {
            let written = row.and_then(|(key, line)| {
                // One write a row: a kill or a full disk leaves at most a torn last row.
                file.write_all(format!("{line}\n").as_bytes()).map_err(io(&partial))?;
                done.insert(key, line);
                Ok(())
            });
            match written {
                Ok(()) => progress(done.len(), total),
                Err(e) => {
                    // The other jobs stop at their next position.
                    next.store(todo.len(), Ordering::Relaxed);
                    failed.get_or_insert(e);
                }
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let mut rows: Vec<(u128, String)> = done.into_iter().collect();
    rows.sort();
    let text: String = std::iter::once("position,value,plies".to_string())
        .chain(rows.into_iter().map(|(_, l)| l))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    write_atomic(out, &text)?;
    std::fs::remove_file(&partial).map_err(io(&partial))?;
    Ok(total)
}

/// The rows of an interrupted build's `partial` file that are whole: a
/// torn last row (no newline: the run stopped in its write) is cut off the
/// file and found again.
fn whole_rows(partial: &Path) -> Result<String> {
    let mut text = std::fs::read_to_string(partial).map_err(io(partial))?;
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    if whole < text.len() {
        let file = std::fs::OpenOptions::new().write(true).open(partial).map_err(io(partial))?;
        file.set_len(whole as u64).and_then(|_| file.sync_all()).map_err(io(partial))?;
        text.truncate(whole);
    }
    Ok(text)
}

/// One job of `build`: take positions by the shared counter until none is
/// left, send each one's row.
fn value_positions(
    solution: &Path,
    todo: &[Position],
    next: &AtomicUsize,
    table_bits: u32,
    send: &std::sync::mpsc::Sender<Result<(u128, String)>>,
) -> Result<()> {
    let table = open_table(solution)?;
    let size = table.size();
    let mut probe = TableProbe::new(table);
    // One search for all of this job's positions: its table's bounds hold
    // for every search (a drawn position ends at its probe).
    let mut search = Search::new(size, table_bits, Some(&mut probe as &mut dyn OutcomeProbe));
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(p) = todo.get(i) else { break };
        let value = search.value(p);
        if send.send(Ok((size.canonical(p.key()), row_of(p, value)))).is_err() {
            break;
        }
    }
    drop(search);
    match probe.failures().first() {
        Some((_, why)) => Err(crate::error::Error::BadFile { path: solution.to_path_buf(), reason: why.clone() }),
        None => Ok(()),
    }
}
