//! Alpha-beta (negamax, fail-soft) on explicit bitboards with a
//! transposition table (two-entry buckets, a position and its mirror image
//! under one key, each bucket fetched ahead of its search), moves that lose at
//! once left out, move ordering by the winning cells a move makes (then centre
//! first), and optional probes of a win/draw/loss table, giving the exact
//! distance to the end of the game by null-window searches (the sign first,
//! then from the slow end outward).
//!
//! Scores are absolute, from the view of the player to move: a win that ends
//! the game at ply `t` scores `cells + 1 - t` (earlier wins score higher), a
//! loss at ply `t` scores `-(cells + 1 - t)` (later losses score higher), a
//! draw 0. A probe that knows a position is won, drawn or lost narrows the
//! window (a draw ends the search of that position), which skips every move
//! into a position the opponent does not lose when a win is known; one that
//! knows its exact value (an opening book) ends its search.

use super::board::{BoardSize, Position, MAX_SIDE};
use super::explicit::Outcome;

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
            MoveValue::Win(n) => write!(f, "win in {n} plies"),
            MoveValue::Draw => write!(f, "draw"),
            MoveValue::Loss(n) => write!(f, "loss in {n} plies"),
        }
    }
}

/// Moves in search order (at most one per column).
#[derive(Default)]
struct Moves {
    columns: [u8; MAX_SIDE as usize],
    scores: [u32; MAX_SIDE as usize],
    len: usize,
}

impl Moves {
    /// Add a move, after every move of a score at least as high.
    fn insert(&mut self, column: u8, score: u32) {
        let mut i = self.len;
        while i > 0 && self.scores[i - 1] < score {
            self.columns[i] = self.columns[i - 1];
            self.scores[i] = self.scores[i - 1];
            i -= 1;
        }
        (self.columns[i], self.scores[i]) = (column, score);
        self.len += 1;
    }
}

/// The widest position key a table entry holds: its high 24 bits hold the
/// search's work and the bounds.
pub const MAX_KEY_BITS: u32 = 104;

/// A transposition-table entry packed in 128 bits: the position's canonical
/// key + 1 in the low [`MAX_KEY_BITS`] bits (0 marks an empty slot), the work
/// of the search that stored it (log2 of the positions it visited), then the
/// lower and the upper bound on its score, each offset by 128 into a byte
/// (scores lie within ±(cells + 1), at most ±105 for keys that fit).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry(u128);

impl Entry {
    const KEY: u128 = (1 << MAX_KEY_BITS) - 1;
    const WORK: u32 = MAX_KEY_BITS;
    const LOWER: u32 = MAX_KEY_BITS + 8;
    const UPPER: u32 = MAX_KEY_BITS + 16;

    fn new(key: u128, work: u8, (lower, upper): (i32, i32)) -> Entry {
        let byte = |s: i32| (s + 128) as u8 as u128;
        Entry(key | (work as u128) << Self::WORK | byte(lower) << Self::LOWER | byte(upper) << Self::UPPER)
    }

    fn key(self) -> u128 {
        self.0 & Self::KEY
    }

    fn work(self) -> u8 {
        (self.0 >> Self::WORK) as u8
    }

    fn bounds(self) -> (i32, i32) {
        let byte = |shift: u32| ((self.0 >> shift) as u8) as i32 - 128;
        (byte(Self::LOWER), byte(Self::UPPER))
    }
}

/// A search with its transposition table; reuse it for several positions of
/// one board.
pub struct Search<'a> {
    size: BoardSize,
    big: i32,
    /// Entries ([`Entry`]) by slot; zeroed memory is an empty table.
    table: Vec<u128>,
    shift: u32,
    order: Vec<u8>,
    /// Bitboard masks: every cell of the board, the bottom cell of each
    /// column, and each column's cells.
    board: u128,
    bottom: u128,
    column: Vec<u128>,
    probe: Option<&'a mut dyn OutcomeProbe>,
    /// Positions visited so far.
    pub nodes: u64,
    /// Probes answered so far.
    pub probes: u64,
}

impl<'a> Search<'a> {
    /// A search with a table of `2^log2_entries` entries (16 bytes each).
    ///
    /// # Panics
    /// If the board's position keys are wider than [`MAX_KEY_BITS`].
    pub fn new(size: BoardSize, log2_entries: u32, probe: Option<&'a mut dyn OutcomeProbe>) -> Search<'a> {
        assert!(size.width as u32 * size.column_bits() <= MAX_KEY_BITS, "board {size} is too large for the search");
        let len = 1usize << log2_entries.clamp(4, 30);
        let mut order: Vec<u8> = (0..size.width).collect();
        order.sort_by_key(|&c| ((2 * c as i32 - (size.width as i32 - 1)).abs(), c));
        let h1 = size.column_bits();
        let column: Vec<u128> = (0..size.width as u32).map(|c| ((1u128 << size.height) - 1) << (c * h1)).collect();
        let bottom = (0..size.width as u32).fold(0, |b, c| b | 1u128 << (c * h1));
        Search {
            size,
            big: size.cells() as i32 + 1,
            table: vec![0; len],
            shift: 64 - len.trailing_zeros(),
            order,
            board: column.iter().fold(0, |b, c| b | c),
            bottom,
            column,
            probe,
            nodes: 0,
            probes: 0,
        }
    }

    /// The smaller of a position's key and its mirror image's (the columns
    /// in reverse order): both positions have the same score.
    fn canonical(&self, key: u128) -> u128 {
        self.size.canonical(key)
    }

    /// The first slot of the bucket of `key`: two entries, the first kept
    /// for the search of most work, the second for the latest of the others.
    fn bucket(&self, key: u128) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(17);
        2 * (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (self.shift + 1)) as usize
    }

    /// The entry of `key` in its bucket `b`, if any.
    fn find(&self, b: usize, key: u128) -> Option<Entry> {
        [self.table[b], self.table[b + 1]].into_iter().map(Entry).find(|e| e.key() == key)
    }

    /// Store `e` in its bucket `b`: in the first slot when it holds the same
    /// position or a search of no more work (which moves to the second).
    fn store(&mut self, b: usize, e: Entry) {
        let first = Entry(self.table[b]);
        if first.key() == e.key() {
            self.table[b] = e.0;
        } else if e.work() >= first.work() {
            self.table[b + 1] = first.0;
            self.table[b] = e.0;
        } else {
            self.table[b + 1] = e.0;
        }
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
    /// [`Search::move_values`] needs an exact search per move.
    pub fn value_and_move(&mut self, p: &Position) -> (MoveValue, u8) {
        let score = self.exact(p);
        let me = p.to_move();
        let (mine, theirs) = (p.discs(me), p.discs(me.other()));
        let playable = ((mine | theirs) + self.bottom) & self.board;
        let moves = self.ordered(mine, mine | theirs, playable);
        for &c in &moves.columns[..moves.len] {
            if self.keeps(p, c, score) {
                return (self.to_value(score, p.ply()), c);
            }
        }
        unreachable!("a position's score is the best of its moves' scores")
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
        self.negamax(&q, -score, -score + 1) <= -score
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
            let r = self.negamax(p, m, m + 1);
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

    /// The score of `value` at ply `ply` (the inverse of [`Search::to_value`]).
    fn score_of(&self, value: MoveValue, ply: u32) -> i32 {
        match value {
            MoveValue::Draw => 0,
            MoveValue::Win(n) => self.big - (ply + n) as i32,
            MoveValue::Loss(n) => -(self.big - (ply + n) as i32),
        }
    }

    fn to_value(&self, score: i32, ply: u32) -> MoveValue {
        match score {
            0 => MoveValue::Draw,
            s if s > 0 => MoveValue::Win((self.big - s) as u32 - ply),
            s => MoveValue::Loss((self.big + s) as u32 - ply),
        }
    }

    /// The empty cells of the board where a disc of the player with discs
    /// `b` would complete four in a row (playable now or not).
    fn winning_cells(&self, b: u128, mask: u128) -> u128 {
        let d1 = self.size.column_bits();
        let mut r = (b << 1) & (b << 2) & (b << 3);
        for d in [d1, d1 - 1, d1 + 1] {
            let two_below = (b << d) & (b << (2 * d));
            r |= two_below & (b << (3 * d));
            r |= two_below & (b >> d);
            let two_above = (b >> d) & (b >> (2 * d));
            r |= two_above & (b << d);
            r |= two_above & (b >> (3 * d));
        }
        r & self.board & !mask
    }

    /// The cells worth playing for the player to move (discs `mine`, cells
    /// `playable` now), who cannot win at once: none when every move lets the
    /// opponent win next (two cells where the opponent would win, or only
    /// moves below such a cell); only the block when the opponent could win
    /// next; never a move below a cell where the opponent would win. A move
    /// that loses at once can do no better than the earliest loss, so leaving
    /// it out keeps every exact value.
    fn non_losing(&self, mine: u128, theirs: u128, playable: u128) -> u128 {
        let threats = self.winning_cells(theirs, mine | theirs);
        let forced = playable & threats;
        let candidates = match forced.count_ones() {
            0 => playable,
            1 => forced,
            _ => return 0,
        };
        candidates & !(threats >> 1)
    }

    /// The columns of the cells `cells` in search order: by the cells where
    /// the mover (discs `mine`) would then win, ties centre first.
    fn ordered(&self, mine: u128, mask: u128, cells: u128) -> Moves {
        let mut moves = Moves::default();
        for &c in &self.order {
            let m = cells & self.column[c as usize];
            if m != 0 {
                moves.insert(c, self.winning_cells(mine | m, mask | m).count_ones());
            }
        }
        moves
    }

    /// Negamax of a position that is not over, within `(alpha, beta)`.
    fn negamax(&mut self, p: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        let nodes_before = self.nodes;
        self.nodes += 1;
        // The table's bucket is fetched while the threats are worked out.
        let key = self.canonical(p.key()) + 1;
        let bucket = self.bucket(key);
        prefetch(&self.table[bucket]);
        let ply = p.ply() as i32;
        let me = p.to_move();
        let (mine, theirs) = (p.discs(me), p.discs(me.other()));
        let playable = ((mine | theirs) + self.bottom) & self.board;
        if self.winning_cells(mine, mine | theirs) & playable != 0 {
            return self.big - (ply + 1);
        }
        if ply + 1 == self.size.cells() as i32 {
            return 0; // the last move fills the board without a win
        }
        let cells = self.non_losing(mine, theirs, playable);
        if cells == 0 {
            return -(self.big - (ply + 2)); // every move lets the opponent win next
        }
        // We cannot win before ply + 3, nor lose before ply + 2.
        beta = beta.min(self.big - (ply + 3));
        alpha = alpha.max(-(self.big - (ply + 2)));
        if alpha >= beta {
            return alpha;
        }
        if let Some(probe) = self.probe.as_mut() {
            if let Some(value) = probe.exact(p) {
                self.probes += 1;
                return self.score_of(value, p.ply());
            }
            if let Some(outcome) = probe.probe(p) {
                self.probes += 1;
                match outcome {
                    Outcome::Draw => return 0,
                    Outcome::Win => alpha = alpha.max(0),
                    Outcome::Loss => beta = beta.min(0),
                }
                if alpha >= beta {
                    return alpha;
                }
            }
        }
        if let Some(e) = self.find(bucket, key) {
            let (lower, upper) = e.bounds();
            if lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            if alpha >= beta {
                return alpha;
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = -self.big;
        // Ordered only now: most positions end at a bound above.
        let moves = self.ordered(mine, mine | theirs, cells);
        // Every child's bucket is fetched while the first child is searched.
        for &c in &moves.columns[1..moves.len] {
            let child = p.play(c);
            prefetch(&self.table[self.bucket(self.canonical(child.key()) + 1)]);
        }
        for &c in &moves.columns[..moves.len] {
            let v = -self.negamax(&p.play(c), -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let (lower, upper) = if best <= alpha0 {
            (-self.big, best)
        } else if best >= beta0 {
            (best, self.big)
        } else {
            (best, best)
        };
        let work = (self.nodes - nodes_before).ilog2() as u8;
        self.store(bucket, Entry::new(key, work, (lower, upper)));
        best
    }
}

/// Ask the processor to bring `x`'s cache line in (a hint; nothing elsewhere).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and `x` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
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
