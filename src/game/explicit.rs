//! Explicit enumeration of positions, ply by ply: the oracle for small boards.
//!
//! Independent of the BDD code: positions are bitboards, each ply's set is a
//! sorted, deduplicated vector of packed `(mask, first player's discs)` pairs.

use super::board::{BoardSize, Player, Position};
use crate::error::{Error, Result};

/// Pack a position of a board with at most 64 bitboard bits.
fn pack(p: &Position) -> u128 {
    ((p.discs(Player::First) | p.discs(Player::Second)) << 64) | p.discs(Player::First)
}

/// Rebuild a position from its packed form and ply.
fn unpack(size: BoardSize, key: u128) -> Position {
    let (mask, first) = (key >> 64, key & u64::MAX as u128);
    Position::from_discs(size, first, mask ^ first)
}

/// The distinct positions at each ply `0..=cells`, as packed keys.
///
/// With `termination`, a position in which the player who just moved has four
/// in a row is counted at its ply but not expanded (the paper's forward pass);
/// without it, every position is expanded.
pub fn layers(
    size: BoardSize,
    termination: bool,
    mut visit: impl FnMut(u32, &[u128]),
) -> Result<()> {
    if size.width as u32 * size.column_bits() > 64 {
        let reason = format!("the explicit enumerator supports boards of at most 64 bitboard bits, {size} needs more");
        return Err(Error::UnsupportedBoard { reason });
    }
    let mut layer = vec![pack(&Position::empty(size))];
    visit(0, &layer);
    for ply in 0..size.cells() {
        let mut next = Vec::with_capacity(layer.len() * 2);
        for &key in &layer {
            let p = unpack(size, key);
            if termination && p.has_four(p.to_move().other()) {
                continue;
            }
            next.extend(
                (0..size.width)
                    .filter(|&c| p.can_play(c))
                    .map(|c| pack(&p.play(c))),
            );
        }
        next.sort_unstable();
        next.dedup();
        layer = next;
        visit(ply + 1, &layer);
    }
    Ok(())
}

/// Number of distinct positions at each ply `0..=cells`.
pub fn count_plies(size: BoardSize, termination: bool) -> Result<Vec<u64>> {
    let mut counts = Vec::with_capacity(size.cells() as usize + 1);
    layers(size, termination, |_, layer| {
        counts.push(layer.len() as u64)
    })?;
    Ok(counts)
}

/// Positions at one ply, decoded (for tests that compare individual states).
pub fn positions_at(size: BoardSize, termination: bool, ply: u32) -> Result<Vec<Position>> {
    let mut out = Vec::new();
    layers(size, termination, |p, layer| {
        if p == ply {
            out = layer.iter().map(|&k| unpack(size, k)).collect();
        }
    })?;
    Ok(out)
}
