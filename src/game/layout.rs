//! Positions a user can paste, in two forms:
//!
//! - a **layout**: one character a cell, column by column from the bottom-left
//!   cell (a1) up each column and on to the top-right one, `x` for the first
//!   player, `o` for the second, `b` for a blank: the widely used 42-character
//!   rows of 7x6 positions, and width × height characters on any board;
//! - a **diagram**: rows from top to bottom with `.`, `x` and `o`, separated by
//!   newlines or `/` (spaces are ignored), e.g. `......./......./...x...` is
//!   not a full board but `.../.../xo.` on 3x3 is.
//!
//! A pasted board must be one that a game reaches: no disc above an empty
//! cell, as many discs of `x` as of `o` or one more, nobody with four in a
//! row (the game would be over), and an order of play, `x` and `o` in turn,
//! that builds it. [`parse`] says which of these fails.

use std::collections::HashSet;

use super::board::{BoardSize, Player, Position};

/// The most orders of play [`parse`] examines before it gives up (a check
/// that no order builds a board may have to try them all).
const MAX_EXAMINED: usize = 20_000_000;

/// A pasted board on `size` (which a layout of 42 cells may leave out, for
/// 7x6, and a diagram may leave out: its rows give it); errors are one line
/// and say why the text is not a reachable position. A game that is over is
/// one when its four in a row is the last mover's and a last move made it
/// (as `--moves` of a won game is).
pub fn parse(text: &str, size: Option<BoardSize>) -> Result<Position, String> {
    let text = text.trim();
    let is_diagram = text.contains(['/', '\n', '.']);
    let (size, cells) = if is_diagram { diagram(text, size)? } else { layout(text, size)? };
    if !size.fits_bitboard() {
        return Err(format!("board {size} is too large for explicit positions (width*(height+1) > 128)"));
    }
    for col in 0..size.width as usize {
        let column = &cells[col * size.height as usize..][..size.height as usize];
        if let Some(row) = (1..column.len()).find(|&r| column[r].is_some() && column[r - 1].is_none()) {
            return Err(format!("column {} has a disc in row {} above an empty cell", col + 1, row + 1));
        }
    }
    let count = |p: Player| cells.iter().filter(|c| **c == Some(p)).count();
    let (x, o) = (count(Player::First), count(Player::Second));
    if x != o && x != o + 1 {
        return Err(format!("x has {x} discs and o {o}: x (who moves first) has as many as o or one more"));
    }
    let position = board_of(size, &cells);
    let last = if x > o { Player::First } else { Player::Second };
    let name = |p: Player| if p == Player::First { "x" } else { "o" };
    if position.has_four(last.other()) {
        let why = format!(
            "{} has four in a row but {} moved last: no game goes on after a win",
            name(last.other()),
            name(last)
        );
        return Err(why);
    }
    if position.has_four(last) {
        // A game over: the last move made the four, from a board without one.
        let before = (0..size.width as usize).filter_map(|c| without_top(size, &cells, c, last));
        return match before.map(|b| reached(size, &b)).find(|r| *r != Ok(false)) {
            Some(Ok(_)) => Ok(position),
            Some(Err(e)) => Err(e),
            None => Err(format!("{} has four in a row that no last move made", name(last))),
        };
    }
    reached(size, &cells)?
        .then_some(position)
        .ok_or_else(|| "no order of play, x and o in turn, builds this board".into())
}

/// Whether an order of play, x and o in turn, builds the board of `cells`
/// (which has no four in a row); an error when too many orders were tried.
fn reached(size: BoardSize, cells: &[Option<Player>]) -> Result<bool, String> {
    playable_in_turn(size, cells)
        .ok_or_else(|| format!("more than {MAX_EXAMINED} partial orders of play tried: reachability unknown"))
}

/// The cells of the board before `player`'s disc on top of column `col`
/// was played, if that disc is `player`'s and the board before holds no
/// four in a row.
fn without_top(size: BoardSize, cells: &[Option<Player>], col: usize, player: Player) -> Option<Vec<Option<Player>>> {
    let h = size.height as usize;
    let top = (0..h).rev().find(|&r| cells[col * h + r].is_some())?;
    if cells[col * h + top] != Some(player) {
        return None;
    }
    let mut before = cells.to_vec();
    before[col * h + top] = None;
    let board = board_of(size, &before);
    (!board.has_four(Player::First) && !board.has_four(Player::Second)).then_some(before)
}

/// The position of `cells` (column by column, bottom up; no disc above an
/// empty cell), whoever is to move by the discs' counts.
fn board_of(size: BoardSize, cells: &[Option<Player>]) -> Position {
    let h = size.height as usize;
    let mut discs = [0u128; 2];
    for (i, cell) in cells.iter().enumerate() {
        if let Some(p) = cell {
            discs[(*p == Player::Second) as usize] |= 1u128 << ((i / h) as u32 * size.column_bits() + (i % h) as u32);
        }
    }
    Position::from_discs(size, discs[0], discs[1])
}

/// A layout's cells (column by column, bottom up) and board.
fn layout(text: &str, size: Option<BoardSize>) -> Result<(BoardSize, Vec<Option<Player>>), String> {
    let size = match size {
        Some(size) => size,
        None if text.chars().count() == 42 => BoardSize { width: 7, height: 6 },
        None => return Err(format!("a layout of {} cells needs the board (-W, -H)", text.chars().count())),
    };
    if text.chars().count() != size.cells() as usize {
        return Err(format!("a layout of {size} has {} cells, not {}", size.cells(), text.chars().count()));
    }
    let cells = text.chars().enumerate().map(|(i, c)| cell(c, 'b', || format!("character {}", i + 1)));
    let cells = cells.collect::<Result<_, _>>()?;
    Ok((size, cells))
}

/// A diagram's cells (column by column, bottom up) and board.
fn diagram(text: &str, size: Option<BoardSize>) -> Result<(BoardSize, Vec<Option<Player>>), String> {
    let rows: Vec<Vec<char>> = text
        .split(['/', '\n'])
        .map(|r| r.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect();
    let width = rows.first().map_or(0, Vec::len);
    if let Some(r) = rows.iter().position(|r| r.len() != width) {
        return Err(format!("row {} of the diagram has {} cells, the first has {width}", r + 1, rows[r].len()));
    }
    let found = BoardSize::new(width as u32, rows.len() as u32).map_err(|e| format!("the diagram: {e}"))?;
    if size.is_some_and(|s| s != found) {
        return Err(format!("the diagram is of {found}, the board is {}", size.unwrap()));
    }
    let mut cells = Vec::with_capacity(found.cells() as usize);
    for col in 0..width {
        for (r, row) in rows.iter().enumerate().rev() {
            cells.push(cell(row[col], '.', || format!("row {}, column {}", r + 1, col + 1))?);
        }
    }
    Ok((found, cells))
}

/// One cell's character: `x`, `o` or `blank`; `at` names where it is.
fn cell(c: char, blank: char, at: impl Fn() -> String) -> Result<Option<Player>, String> {
    match c.to_ascii_lowercase() {
        'x' => Ok(Some(Player::First)),
        'o' => Ok(Some(Player::Second)),
        b if b == blank => Ok(None),
        _ => Err(format!("{} ('{c}') is not x, o or {blank}", at())),
    }
}

/// Whether the discs of `cells` can be dropped in turn, x first: a search
/// over the columns' heights (the player to move follows from their sum).
/// Boards with no four in a row only: then no order ends the game early.
/// `None` when it gives up after [`MAX_EXAMINED`] partial orders.
fn playable_in_turn(size: BoardSize, cells: &[Option<Player>]) -> Option<bool> {
    let h = size.height as usize;
    let target: Vec<usize> = cells.chunks(h).map(|c| c.iter().filter(|x| x.is_some()).count()).collect();
    let total: usize = target.iter().sum();
    let mut seen = HashSet::new();
    let mut stack = vec![vec![0usize; target.len()]];
    while let Some(heights) = stack.pop() {
        let played: usize = heights.iter().sum();
        if played == total {
            return Some(true);
        }
        let mover = Player::to_move(played as u32);
        for col in 0..target.len() {
            if heights[col] < target[col] && cells[col * h + heights[col]] == Some(mover) {
                let mut next = heights.clone();
                next[col] += 1;
                if seen.len() >= MAX_EXAMINED {
                    return None;
                }
                if seen.insert(next.clone()) {
                    stack.push(next);
                }
            }
        }
    }
    Some(false)
}
