//! Board sizes, players and explicit bitboard positions.
//!
//! Bitboard layout (Tromp's): bit `col * (height + 1) + row`, row 0 at the
//! bottom; each column has one extra always-empty bit on top, so four-in-a-row
//! tests by shifting never wrap from one column into the next. Positions fit
//! in a `u128`, which allows every board with `width * (height + 1) <= 128`.

use std::fmt;

use crate::error::{Error, Result};

/// Largest width or height c4bdd accepts (the paper's Table 1 goes to 13).
pub const MAX_SIDE: u8 = 13;

/// A board of `width` columns and `height` rows, each in `1..=MAX_SIDE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct BoardSize {
    pub width: u8,
    pub height: u8,
}

impl BoardSize {
    /// A board size, or an error naming the bad value.
    pub fn new(width: u32, height: u32) -> Result<BoardSize> {
        for (name, value) in [("width", width), ("height", height)] {
            if value == 0 || value > MAX_SIDE as u32 {
                return Err(Error::UnsupportedBoard { reason: format!("{name} {value} is outside 1..={MAX_SIDE}") });
            }
        }
        Ok(BoardSize { width: width as u8, height: height as u8 })
    }

    /// Number of cells, which is also the last ply.
    pub fn cells(self) -> u32 {
        self.width as u32 * self.height as u32
    }

    /// Bits per column in the bitboard (one spare on top).
    pub fn column_bits(self) -> u32 {
        self.height as u32 + 1
    }

    /// The smaller of a position key and its mirror image's (the columns in
    /// reverse order): a position and its mirror image have the same value.
    pub fn canonical(self, key: u128) -> u128 {
        key.min(self.mirror(key))
    }

    /// A bitboard (or key) with its columns in reverse order.
    pub fn mirror(self, bits: u128) -> u128 {
        let (h1, last) = (self.column_bits(), self.width as u32 - 1);
        let column = (1u128 << h1) - 1;
        (0..=last).fold(0, |m, c| m | ((bits >> (c * h1)) & column) << ((last - c) * h1))
    }

    /// Whether explicit bitboard positions (`u128`) support this board.
    pub fn fits_bitboard(self) -> bool {
        self.width as u32 * self.column_bits() <= 128
    }

    /// Every line of four cells `(col, row)`: vertical, horizontal, and both diagonals.
    pub fn lines(self) -> Vec<[(u8, u8); 4]> {
        let (w, h) = (self.width as i32, self.height as i32);
        let mut out = Vec::new();
        for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for c in 0..w {
                for r in 0..h {
                    let end = (c + 3 * dc, r + 3 * dr);
                    if end.0 < w && end.1 >= 0 && end.1 < h {
                        out.push(std::array::from_fn(|i| ((c + i as i32 * dc) as u8, (r + i as i32 * dr) as u8)));
                    }
                }
            }
        }
        out
    }
}

impl std::str::FromStr for BoardSize {
    type Err = String;

    /// A board written `WxH` (or `WXH`), e.g. `7x6`; the error is one line
    /// naming the text or the side out of range.
    fn from_str(text: &str) -> std::result::Result<BoardSize, String> {
        let bad = || format!("'{text}' is not a board like 7x6");
        let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
        let side = |v: &str| v.trim().parse::<u32>().map_err(|_| bad());
        BoardSize::new(side(w)?, side(h)?).map_err(|e| e.to_string())
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// The two players; `First` moves at even plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    First,
    Second,
}

impl Player {
    /// The player to move at a ply.
    pub fn to_move(ply: u32) -> Player {
        if ply.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
}

/// An explicit position: the discs of the side to move and all discs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    size: BoardSize,
    /// Discs of the player to move.
    current: u128,
    /// All discs.
    mask: u128,
    /// Discs played so far.
    ply: u32,
}

impl Position {
    /// The empty board.
    ///
    /// # Panics
    /// If the board does not fit a `u128` bitboard (`fits_bitboard`).
    pub fn empty(size: BoardSize) -> Position {
        assert!(size.fits_bitboard(), "board {size} does not fit a 128-bit bitboard");
        Position { size, current: 0, mask: 0, ply: 0 }
    }

    /// The position with the given discs of each player; the ply is their total.
    /// The caller guarantees a legal disc layout (columns filled bottom up).
    pub fn from_discs(size: BoardSize, first: u128, second: u128) -> Position {
        let mask = first | second;
        let ply = mask.count_ones();
        let current = if ply.is_multiple_of(2) { first } else { second };
        Position { size, current, mask, ply }
    }

    /// The position with the given discs of each player, if they make one:
    /// no cell held by both, each column filled from the bottom, and the
    /// first player with as many discs as the second or one more.
    pub fn from_layout(size: BoardSize, first: u128, second: u128) -> Option<Position> {
        let (a, b) = (first.count_ones(), second.count_ones());
        if !size.fits_bitboard() || first & second != 0 || !(a == b || a == b + 1) {
            return None;
        }
        let (bits, mask) = (size.column_bits(), first | second);
        let columns_ok = (0..size.width as u32).all(|col| {
            let column = (mask >> (col * bits)) & ((1u128 << bits) - 1);
            column & (column + 1) == 0 && column >> size.height == 0
        });
        (columns_ok && mask.checked_shr(size.width as u32 * bits).unwrap_or(0) == 0)
            .then(|| Position::from_discs(size, first, second))
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The player to move.
    pub fn to_move(&self) -> Player {
        Player::to_move(self.ply)
    }

    fn bottom(&self, col: u8) -> u128 {
        1u128 << (col as u32 * self.size.column_bits())
    }

    fn top(&self, col: u8) -> u128 {
        1u128 << (col as u32 * self.size.column_bits() + self.size.height as u32 - 1)
    }

    /// Whether a disc can be dropped into `col` (it exists and is not full).
    pub fn can_play(&self, col: u8) -> bool {
        col < self.size.width && self.mask & self.top(col) == 0
    }

    /// The position after dropping a disc into `col`.
    ///
    /// # Panics
    /// If `can_play(col)` is false.
    pub fn play(&self, col: u8) -> Position {
        assert!(self.can_play(col), "column {col} cannot be played");
        Position {
            size: self.size,
            current: self.current ^ self.mask,
            mask: self.mask | (self.mask + self.bottom(col)),
            ply: self.ply + 1,
        }
    }

    /// The mirror image: the columns in reverse order.
    pub fn mirror(&self) -> Position {
        let m = |p| self.size.mirror(self.discs(p));
        Position::from_discs(self.size, m(Player::First), m(Player::Second))
    }

    /// Discs of a player.
    pub fn discs(&self, player: Player) -> u128 {
        if player == self.to_move() {
            self.current
        } else {
            self.current ^ self.mask
        }
    }

    /// The occupant of a cell, if any.
    pub fn cell(&self, col: u8, row: u8) -> Option<Player> {
        let bit = 1u128 << (col as u32 * self.size.column_bits() + row as u32);
        if self.mask & bit == 0 {
            None
        } else if self.discs(Player::First) & bit != 0 {
            Some(Player::First)
        } else {
            Some(Player::Second)
        }
    }

    /// Number of discs in a column.
    pub fn column_height(&self, col: u8) -> u8 {
        let bits = (self.mask >> (col as u32 * self.size.column_bits())) & ((1u128 << self.size.height) - 1);
        bits.count_ones() as u8
    }

    /// Whether `player` has four in a row.
    pub fn has_four(&self, player: Player) -> bool {
        let b = self.discs(player);
        let h = self.size.column_bits();
        [1, h, h - 1, h + 1].into_iter().any(|d| {
            let m = b & (b >> d);
            m & (m >> (2 * d)) != 0
        })
    }

    /// Whether the player who just moved has four in a row.
    pub fn is_terminal_win(&self) -> bool {
        self.has_four(self.to_move().other())
    }

    /// Whether the game is over: the player who just moved has four in a row,
    /// or the board is full.
    pub fn is_terminal(&self) -> bool {
        self.has_four(self.to_move().other()) || self.ply == self.size.cells()
    }

    /// A key that identifies the position among positions of its board
    /// (Tromp's `current + mask`, unique because of the spare row).
    pub fn key(&self) -> u128 {
        self.current + self.mask
    }

    /// Parse a move string of columns numbered 1..=width from the left (e.g.
    /// "4453") and play it from the empty board. Errors name the bad move.
    pub fn from_moves(size: BoardSize, moves: &str) -> Result<Position> {
        if !size.fits_bitboard() {
            let reason = format!("board {size} is too large for explicit positions (width*(height+1) > 128)");
            return Err(Error::UnsupportedBoard { reason });
        }
        let mut p = Position::empty(size);
        for (i, ch) in moves.chars().enumerate() {
            let bad = |reason: String| Error::BadMoves { moves: shown(moves), reason };
            if p.has_four(p.to_move().other()) {
                return Err(bad(format!("move {} ('{ch}') comes after the game was won", i + 1)));
            }
            let col = ch.to_digit(10 + size.width as u32).filter(|&c| c >= 1 && c <= size.width as u32);
            let Some(col) = col else {
                return Err(bad(format!("move {} ('{ch}') is not a column 1..={}", i + 1, size.width)));
            };
            let col = (col - 1) as u8;
            if !p.can_play(col) {
                return Err(bad(format!("move {} plays column {} which is full", i + 1, col + 1)));
            }
            p = p.play(col);
        }
        Ok(p)
    }
}

/// A move string as an error shows it: whole up to 48 characters, else its
/// first 40 and how long it is.
fn shown(moves: &str) -> String {
    match moves.chars().count() {
        n if n <= 48 => moves.to_string(),
        n => format!("{}... ({n} characters)", moves.chars().take(40).collect::<String>()),
    }
}
