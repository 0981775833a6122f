//! Alpha-beta (negamax, fail-soft) on explicit bitboards (`u64` where the
//! board fits, `bits.rs`) with an exact transposition table (two-entry
//! buckets of one-word entries, a position and its mirror image under one
//! key, `table.rs`), every child's entry fetched and checked before any
//! child is searched, moves that lose at once left out, move ordering by the
//! winning cells a move makes (then centre first), and optional probes of a
//! win/draw/loss table, giving the exact distance to the end of the game by
//! null-window searches (the sign first, then from the slow end outward); the
//! loop itself is in `negamax.rs`.
//!
//! Scores are absolute, from the view of the player to move: a win that ends
//! the game at ply `t` scores `cells + 1 - t` (earlier wins score higher), a
//! loss at ply `t` scores `-(cells + 1 - t)` (later losses score higher), a
//! draw 0. A probe that knows a position is won, drawn or lost narrows the
//! window (a draw ends the search of that position), which skips every move
//! into a position the opponent does not lose when a win is known; one that
//! knows its exact value (an opening book) ends its search.

use super::board::{BoardSize, Position};
use super::explicit::Outcome;
use super::negamax::{Engine, Negamax};
use super::table::Table;

/// A source of win/draw/loss values (e.g. a stored BDD solution).
pub trait OutcomeProbe {
    /// The outcome for the player to move, if known.
    fn probe(&mut self, position: &Position) -> Option<Outcome>;

    /// The exact value for the player to move, if known (an opening book).
    fn exact(&mut self, _position: &Position) -> Option<MoveValue> {
        None
    }
}

/// The exact value of a position or move for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveValue {
    /// The player to move wins; the game ends after this many more plies.
    Win(u32),
    Draw,
    /// The player to move loses; the game ends after this many more plies.
    Loss(u32),
}

impl std::fmt::Display for MoveValue {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            MoveValue::Win(1) => write!(f, "win in 1 ply"),
            MoveValue::Win(n) => write!(f, "win in {n} plies"),
            MoveValue::Draw => write!(f, "draw"),
            MoveValue::Loss(n) => write!(f, "loss in {n} plies"),
        }
    }
}

/// The widest position key a table entry holds (a `u128` word less its
/// 24 bits of work and bounds).
pub const MAX_KEY_BITS: u32 = Table::<u128>::TAG_BITS;

/// A search with its transposition table; reuse it for several positions of
/// one board.
pub struct Search<'a> {
    size: BoardSize,
    big: i32,
    engine: Box<dyn Engine + 'a>,
}

impl<'a> Search<'a> {
    /// A search with a table of `2^log2_entries` entries in two-entry
    /// buckets (`log2_entries` taken within 4..=30): `u64` bitboards and
    /// 8-byte entries when the board's keys fit them, else `u128` and 16 bytes.
    ///
    /// # Panics
    /// If the board's position keys are wider than [`MAX_KEY_BITS`].
    pub fn new(size: BoardSize, log2_entries: u32, probe: Option<&'a mut dyn OutcomeProbe>) -> Search<'a> {
        let key_bits = size.width as u32 * size.column_bits();
        assert!(key_bits <= MAX_KEY_BITS, "board {size} is too large for the search");
        let log2 = log2_entries.clamp(4, 30);
        let engine: Box<dyn Engine + 'a> = if Table::<u64>::fits(key_bits, log2) {
            Box::new(Negamax::<u64>::new(size, log2, probe))
        } else {
            Box::new(Negamax::<u128>::new(size, log2, probe))
        };
        Search { size, big: size.cells() as i32 + 1, engine }
    }

    /// Positions visited so far.
    pub fn nodes(&self) -> u64 {
        self.engine.counts().0
    }

    /// Probes answered so far.
    pub fn probes(&self) -> u64 {
        self.engine.counts().1
    }

    /// Bytes of the transposition table.
    pub fn table_bytes(&self) -> usize {
        self.engine.table_bytes().0
    }

    /// Bytes of one table entry: 8 with `u64` bitboards, 16 with `u128`.
    pub fn entry_bytes(&self) -> usize {
        self.engine.table_bytes().1
    }

    /// The exact value of each legal move of `p` (in column order), for the
    /// player to move. `p` must not be over.
    pub fn move_values(&mut self, p: &Position) -> Vec<(u8, MoveValue)> {
        let moves: Vec<u8> = (0..self.size.width).filter(|&c| p.can_play(c)).collect();
        moves.into_iter().map(|c| (c, self.value_after(p, c))).collect()
    }

    /// The exact value of playing `col` in `p`, for the player who plays it.
    pub fn value_after(&mut self, p: &Position, col: u8) -> MoveValue {
        let q = p.play(col);
        let score = if q.is_terminal_win() {
            self.big - q.ply() as i32
        } else if q.ply() == self.size.cells() {
            0
        } else {
            -self.exact(&q)
        };
        self.to_value(score, p.ply())
    }

    /// The exact value of a position for the player to move (a position that
    /// is already over is a loss in 0 or a draw).
    pub fn value(&mut self, p: &Position) -> MoveValue {
        let score = if p.is_terminal_win() {
            -(self.big - p.ply() as i32)
        } else if p.ply() == self.size.cells() {
            0
        } else {
            self.exact(p)
        };
        self.to_value(score, p.ply())
    }

    /// The exact value of a position that is not over, for the player to
    /// move, and a move that keeps it (the first in search order that does):
    /// one exact search, then one null-window search per move tried, where
    /// [`Search::move_values`] needs an exact search per move. `None` when
    /// no move keeps the score: a position's score is the best of its
    /// moves', so only a probe whose outcomes contradict each other (a
    /// forged or damaged table) gets there.
    pub fn value_and_move(&mut self, p: &Position) -> Option<(MoveValue, u8)> {
        let score = self.exact(p);
        let best = self.engine.ordered_moves(p).into_iter().find(|&c| self.keeps(p, c, score))?;
        Some((self.to_value(score, p.ply()), best))
    }

    /// Whether playing `col` in `p` scores at least `score` for its player.
    fn keeps(&mut self, p: &Position, col: u8, score: i32) -> bool {
        let q = p.play(col);
        if q.is_terminal_win() {
            return self.big - q.ply() as i32 >= score;
        }
        if q.ply() == self.size.cells() {
            return 0 >= score;
        }
        // Fail-soft: a result at most -score bounds the opponent's score by it.
        self.engine.negamax(&q, -score, -score + 1) <= -score
    }

    /// The exact score of a position that is not over, by null-window
    /// searches `(m, m + 1)`, each of which tells whether the score is above
    /// `m` (and, failing soft, returns a bound beyond `m`). First whether the
    /// position is won (`m = 0`), then drawn or lost (`m = -1`); then, as
    /// games from early positions end late, from the slowest end known
    /// outward in steps that double, until a search fails and the score is
    /// bracketed, which is then halved. Each search narrows the bounds the
    /// table keeps for the next.
    fn exact(&mut self, p: &Position) -> i32 {
        let ply = p.ply() as i32;
        // Invariant: lo <= score <= hi.
        let (mut lo, mut hi) = (-(self.big - (ply + 2)), self.big - (ply + 1));
        let (mut step, mut bracketed) = (1, false);
        while lo < hi {
            let m = match (lo, hi) {
                (..=0, 1..) => 0,
                (..=-1, 0) => -1,
                _ if bracketed => lo + (hi - lo) / 2,
                (1.., _) => (lo + step - 1).min(hi - 1),
                _ => (hi - step).max(lo),
            };
            let r = self.engine.negamax(p, m, m + 1);
            if r <= m {
                bracketed |= lo > 0;
                hi = r;
            } else {
                bracketed |= hi < 0;
                lo = r;
            }
            step *= 2;
        }
        lo
    }

    fn to_value(&self, score: i32, ply: u32) -> MoveValue {
        match score {
            0 => MoveValue::Draw,
            s if s > 0 => MoveValue::Win((self.big - s) as u32 - ply),
            s => MoveValue::Loss((self.big + s) as u32 - ply),
        }
    }
}

/// The table's default size, log2 of its entries: twice one core's level-2
/// cache in 8-byte entries (2^19 with 2 MiB; the cache's size from Linux's
/// sysfs, 2 MiB when it cannot be read), within 2^16..=2^24. A table load
/// that misses that cache waits on memory, which costs more than the
/// positions a larger table saves: on 7x6 a table of 2^19 entries searched
/// the most positions a second and the fewest seconds (docs/performance.md).
pub fn default_table_bits() -> u32 {
    let bytes = level2_cache_bytes().unwrap_or(2 << 20);
    (2 * bytes / 8).max(1).ilog2().clamp(16, 24)
}

/// One core's level-2 data (or unified) cache, from Linux's sysfs.
fn level2_cache_bytes() -> Option<u64> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let read = |index: &std::path::Path, name: &str| std::fs::read_to_string(index.join(name)).ok();
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let index = entry.path();
        let level2 = read(&index, "level")?.trim() == "2" && read(&index, "type")?.trim() != "Instruction";
        let size = read(&index, "size")?;
        let size = size.trim();
        let (digits, unit) = size.split_at(size.find(|c: char| !c.is_ascii_digit()).unwrap_or(size.len()));
        let scale = match unit {
            "" => 1,
            "K" => 1 << 10,
            "M" => 1 << 20,
            _ => return None,
        };
        level2.then(|| digits.parse::<u64>().ok().map(|d| d * scale)).flatten()
    })
}

/// The score of `value` at ply `ply` on a board of `big - 1` cells (the
/// inverse of [`Search::to_value`]).
pub(super) fn score_of(big: i32, value: MoveValue, ply: u32) -> i32 {
    match value {
        MoveValue::Draw => 0,
        MoveValue::Win(n) => big - (ply + n) as i32,
        MoveValue::Loss(n) => -(big - (ply + n) as i32),
    }
}

/// Exact scores by plain minimax over every reachable position (memoised, no
/// pruning): the oracle for the alpha-beta search on small boards.
pub fn minimax_value(p: &Position, memo: &mut std::collections::HashMap<u128, i32>) -> MoveValue {
    fn score(p: &Position, big: i32, memo: &mut std::collections::HashMap<u128, i32>) -> i32 {
        if p.is_terminal_win() {
            return -(big - p.ply() as i32);
        }
        if p.ply() as i32 == big - 1 {
            return 0;
        }
        if let Some(&s) = memo.get(&p.key()) {
            return s;
        }
        let s = (0..p.size().width).filter(|&c| p.can_play(c)).map(|c| -score(&p.play(c), big, memo)).max().unwrap();
        memo.insert(p.key(), s);
        s
    }
    let big = p.size().cells() as i32 + 1;
    let s = score(p, big, memo);
    match s {
        0 => MoveValue::Draw,
        s if s > 0 => MoveValue::Win((big - s) as u32 - p.ply()),
        s => MoveValue::Loss((big + s) as u32 - p.ply()),
    }
}
