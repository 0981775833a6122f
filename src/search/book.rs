//! Opening books: the exact value (win or loss in n plies, or draw) of every
//! position at one ply, up to mirror image, found by alpha-beta search that
//! probes a stored solution, and read back as exact values for `best`.
//!
//! A book is a CSV file whose first line is a comment naming what it is:
//! `# c4bdd-book v1 board=WxH ply=K rows=N solution=ID crc32=C`, with the
//! solution's identity ([`SolutionTable::identity`]) and the CRC-32 of every
//! byte after that line. Then the columns `position` (the layout: a cell a
//! character, column by column from the bottom-left, `x`, `o` or `b`),
//! `value` (`win`, `draw` or `loss` for the player to move) and `plies` (how
//! many plies the game lasts from there with best play; empty for a draw).
//! Only positions that are not over are in it, one of each mirror pair.
//! A book is read only if its first line matches the board and its rows,
//! and its rows are exactly the positions of its ply with values the rules
//! allow (a win in an odd number of plies, a loss in an even one, within
//! the cells left).
//! While it is built, finished rows go to `FILE.partial` (one write a row,
//! after a first line naming the board, ply and solution), which a rerun of
//! the same book takes up (a torn last row is dropped and found again); the
//! book is then written sorted, atomically.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::Result;
use crate::game::alphabeta::{MoveValue, OutcomeProbe, Search};
use crate::game::explicit::Outcome;
use crate::game::{BoardSize, Player, Position};
use crate::search::files::{bad, io, read_regular, write_atomic};
use crate::search::stored::open_table;
use crate::search::stored::table::{SolutionTable, TableProbe};

/// A book read for searches: exact values by canonical key.
pub struct Book {
    pub size: BoardSize,
    pub ply: u32,
    /// The identity of the solution it was built from.
    pub solution: String,
    values: HashMap<u128, MoveValue>,
}

/// The first word of a book's first line.
const MAGIC: &str = "# c4bdd-book v1";
/// The first word of a partial book's first line.
const PARTIAL_MAGIC: &str = "# c4bdd-book-partial v1";

/// What a book's (or a partial book's) first line says.
#[derive(Debug, PartialEq)]
struct Header {
    size: BoardSize,
    ply: u32,
    solution: String,
    /// In a finished book: its rows and the CRC-32 of the bytes after the line.
    rows: Option<(usize, u32)>,
}

impl Header {
    fn line(&self) -> String {
        let (magic, tail) = match self.rows {
            Some((rows, crc)) => (MAGIC, format!(" rows={rows} crc32={crc:08x}")),
            None => (PARTIAL_MAGIC, String::new()),
        };
        format!("{magic} board={} ply={} solution={}{tail}", self.size, self.ply, self.solution)
    }

    /// Parse a first line (without its newline); `None` if it is not one.
    fn parse(line: &str) -> Option<Header> {
        let (finished, rest) = match line.strip_prefix(MAGIC) {
            Some(rest) => (true, rest),
            None => (false, line.strip_prefix(PARTIAL_MAGIC)?),
        };
        let fields: HashMap<&str, &str> = rest.split_whitespace().filter_map(|f| f.split_once('=')).collect();
        let (w, h) = fields.get("board")?.split_once('x')?;
        let size = BoardSize::new(w.parse().ok()?, h.parse().ok()?).ok()?;
        let rows = match finished {
            true => Some((fields.get("rows")?.parse().ok()?, u32::from_str_radix(fields.get("crc32")?, 16).ok()?)),
            false => None,
        };
        Some(Header {
            size,
            ply: fields.get("ply")?.parse().ok()?,
            solution: fields.get("solution")?.to_string(),
            rows,
        })
    }
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
    /// Read a book of `size`: refused unless its first line names `size`
    /// and matches its rows' count and checksum, and its rows are exactly
    /// the positions of its ply (one of each mirror pair, none over) with
    /// values the rules allow.
    pub fn read(path: &Path, size: BoardSize) -> Result<Book> {
        let text = read_regular(path)?;
        let (first, body) = text.split_once('\n').unwrap_or((&text, ""));
        let header = Header::parse(first).filter(|h| h.rows.is_some()).ok_or_else(|| {
            bad(path, format!("is not a c4bdd book: its first line is not `{MAGIC} ...` (build one with `c4bdd book`)"))
        })?;
        let (count, crc) = header.rows.expect("a finished book's header");
        if header.size != size {
            return Err(bad(path, format!("is a book of board {}, not {size}", header.size)));
        }
        if header.ply >= size.cells() {
            return Err(bad(path, format!("is a book of ply {}, beyond the board's last move", header.ply)));
        }
        if crc32fast::hash(body.as_bytes()) != crc {
            return Err(bad(path, "its rows do not match the checksum of its first line (edited or damaged)"));
        }
        let rows = parse_rows(size, path, body.as_bytes())?;
        if rows.len() != count {
            return Err(bad(path, format!("holds {} rows, its first line says {count}", rows.len())));
        }
        let values = checked_rows(size, header.ply, rows).map_err(|reason| bad(path, reason))?;
        Ok(Book { size, ply: header.ply, solution: header.solution, values })
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

/// The values of a book's rows by canonical key, if they are exactly the
/// positions of ply `ply` not over (one of each mirror pair) with values
/// the rules allow: the mover's win takes an odd number of plies, a loss an
/// even one, both within the cells left.
fn checked_rows(
    size: BoardSize,
    ply: u32,
    rows: Vec<(Position, MoveValue)>,
) -> std::result::Result<HashMap<u128, MoveValue>, String> {
    let left = size.cells() - ply;
    let mut values = HashMap::with_capacity(rows.len());
    for (p, v) in rows {
        let allowed = match v {
            MoveValue::Win(n) => n % 2 == 1 && n <= left,
            MoveValue::Loss(n) => n % 2 == 0 && (2..=left).contains(&n),
            MoveValue::Draw => true,
        };
        let row = || row_of(&p, v);
        if p.ply() != ply || p.is_terminal() {
            return Err(format!("row {} is not a position of ply {ply} that is not over", row()));
        }
        if !allowed {
            return Err(format!("row {} has a value no game allows ({left} plies left)", row()));
        }
        if values.insert(size.canonical(p.key()), v).is_some() {
            return Err(format!("holds the position of row {} (or its mirror) twice", row()));
        }
    }
    let want = positions_at(size, ply);
    if let Some(p) = want.iter().find(|p| !values.contains_key(&size.canonical(p.key()))) {
        return Err(format!("lacks the position {} of ply {ply}", layout(p)));
    }
    if values.len() != want.len() {
        return Err(format!("holds {} positions, ply {ply} has {} (up to mirror image)", values.len(), want.len()));
    }
    Ok(values)
}

/// A book and a stored solution's tables as one probe for a search. Where
/// both hold a position, the book's value must agree with the tables'
/// outcome: the first row that does not is kept in
/// [`BookProbe::contradiction`] and not used.
pub struct BookProbe {
    book: Option<Book>,
    table: Option<TableProbe>,
    contradiction: Option<String>,
}

impl BookProbe {
    pub fn new(book: Option<Book>, table: Option<TableProbe>) -> BookProbe {
        BookProbe { book, table, contradiction: None }
    }

    /// The tables' probe, if a solution was given.
    pub fn table(&self) -> Option<&TableProbe> {
        self.table.as_ref()
    }

    /// The first book row the tables contradicted, if any.
    pub fn contradiction(&self) -> Option<&str> {
        self.contradiction.as_deref()
    }
}

impl OutcomeProbe for BookProbe {
    fn probe(&mut self, p: &Position) -> Option<Outcome> {
        self.table.as_mut().and_then(|t| t.probe(p))
    }

    fn exact(&mut self, p: &Position) -> Option<MoveValue> {
        let value = self.book.as_ref()?.get(p)?;
        let told = self.table.as_mut().and_then(|t| t.probe(p));
        match told {
            Some(outcome) if outcome != outcome_of(value) => {
                let row = row_of(p, value);
                self.contradiction
                    .get_or_insert_with(|| format!("its row {row} contradicts the solution ({outcome:?})"));
                None
            }
            _ => Some(value),
        }
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
/// search. Rows found by an earlier, interrupted run of the same book in
/// `out.partial` are kept. `progress(done, total)` is called as rows are
/// found. Returns the rows written.
pub fn build(solution: &Path, out: &Path, opts: &BookOptions, progress: impl Fn(usize, usize)) -> Result<usize> {
    let mut table = open_table(solution)?;
    let size = table.size();
    let header = Header { size, ply: opts.ply, solution: table.identity()?, rows: None };
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let mut done = take_up(&partial, &header, table.as_mut())?;
    drop(table);
    let todo: Vec<Position> =
        positions_at(size, opts.ply).into_iter().filter(|p| !done.contains_key(&size.canonical(p.key()))).collect();
    let total = todo.len() + done.len();
    let mut file = std::fs::OpenOptions::new().append(true).open(&partial).map_err(io(&partial))?;
    let next = AtomicUsize::new(0);
    let (send, receive) = std::sync::mpsc::channel::<Result<(Position, MoveValue)>>();
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
            let written = row.and_then(|(p, v)| {
                // One write a row: a kill or a full disk leaves at most a torn last row.
                file.write_all(format!("{}\n", row_of(&p, v)).as_bytes()).map_err(io(&partial))?;
                done.insert(size.canonical(p.key()), (p, v));
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
    write_book(out, header, done.into_values().collect())?;
    std::fs::remove_file(&partial).map_err(io(&partial))?;
    Ok(total)
}

/// The rows an interrupted build of the book `header` left in `partial`,
/// each checked against `table` (a partial file of another book, or a row
/// the table contradicts, is refused); a new partial file, with its first
/// line, when there is none.
fn take_up(
    partial: &Path,
    header: &Header,
    table: &mut dyn SolutionTable,
) -> Result<HashMap<u128, (Position, MoveValue)>> {
    let text = if partial.exists() { whole_rows(partial)? } else { String::new() };
    let Some((first, body)) = text.split_once('\n') else {
        let mut file = crate::bdd::create_fresh(partial).map_err(io(partial))?;
        file.write_all(format!("{}\n", header.line()).as_bytes()).map_err(io(partial))?;
        return Ok(HashMap::new());
    };
    if Header::parse(first).as_ref() != Some(header) {
        let reason = format!("holds the rows of another book (its first line: {first:?}): remove it to start again");
        return Err(bad(partial, reason));
    }
    let mut done = HashMap::new();
    for (p, v) in parse_rows(header.size, partial, body.as_bytes())? {
        let told = table.outcome(&p)?;
        if told != outcome_of(v) {
            let reason = format!("its row {} contradicts {} ({told:?})", row_of(&p, v), table.describe());
            return Err(bad(partial, reason));
        }
        done.insert(header.size.canonical(p.key()), (p, v));
    }
    Ok(done)
}

/// Write the book of `header` (a partial one's) with `rows`, after checking
/// them as [`Book::read`] does: its first line with their count and
/// checksum, then the rows sorted by key.
fn write_book(out: &Path, header: Header, rows: Vec<(Position, MoveValue)>) -> Result<()> {
    let values = checked_rows(header.size, header.ply, rows.clone()).map_err(|reason| bad(out, reason))?;
    let mut rows: Vec<(u128, String)> =
        rows.iter().map(|(p, v)| (header.size.canonical(p.key()), row_of(p, *v))).collect();
    rows.sort();
    let body: String = std::iter::once("position,value,plies".to_string())
        .chain(rows.into_iter().map(|(_, l)| l))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let header = Header { rows: Some((values.len(), crc32fast::hash(body.as_bytes()))), ..header };
    write_atomic(out, &format!("{}\n{body}", header.line()))
}

/// The outcome for the player to move of an exact value.
fn outcome_of(v: MoveValue) -> Outcome {
    match v {
        MoveValue::Win(_) => Outcome::Win,
        MoveValue::Draw => Outcome::Draw,
        MoveValue::Loss(_) => Outcome::Loss,
    }
}

/// The rows of an interrupted build's `partial` file that are whole: a
/// torn last row (no newline: the run stopped in its write) is cut off the
/// file and found again.
fn whole_rows(partial: &Path) -> Result<String> {
    let mut text = read_regular(partial)?;
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
    send: &std::sync::mpsc::Sender<Result<(Position, MoveValue)>>,
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
        if send.send(Ok((*p, value))).is_err() {
            break;
        }
    }
    drop(search);
    match probe.failures().first() {
        Some((_, why)) => {
            Err(crate::error::CoreError::BadFile { path: solution.to_path_buf(), reason: why.clone() }.into())
        }
        None => Ok(()),
    }
}
