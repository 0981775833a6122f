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
pub fn layers(size: BoardSize, termination: bool, mut visit: impl FnMut(u32, &[u128])) -> Result<()> {
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
            next.extend((0..size.width).filter(|&c| p.can_play(c)).map(|c| pack(&p.play(c))));
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
    layers(size, termination, |_, layer| counts.push(layer.len() as u64))?;
    Ok(counts)
}

/// Outcome for the player to move, in minimax order (`Loss < Draw < Win`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

/// Every position of a board with its outcome for the player to move,
/// computed by explicit retrograde analysis over the enumerated layers.
pub struct ExplicitSolution {
    size: BoardSize,
    /// Per ply: sorted packed keys and their outcomes.
    layers: Vec<(Vec<u128>, Vec<Outcome>)>,
}

impl ExplicitSolution {
    /// Solve a board with at most 64 bitboard bits.
    pub fn solve(size: BoardSize) -> Result<ExplicitSolution> {
        let mut keys = Vec::new();
        layers(size, true, |_, layer| keys.push(layer.to_vec()))?;
        let mut layers: Vec<(Vec<u128>, Vec<Outcome>)> = Vec::with_capacity(keys.len());
        for (ply, layer) in keys.into_iter().enumerate().rev() {
            let next = layers.last();
            let outcomes = layer
                .iter()
                .map(|&key| {
                    let p = unpack(size, key);
                    if p.has_four(p.to_move().other()) {
                        return Outcome::Loss;
                    }
                    let Some((next_keys, next_outcomes)) = next else { return Outcome::Draw };
                    let child_outcome = |c: u8| {
                        let i = next_keys.binary_search(&pack(&p.play(c))).expect("children are in the next layer");
                        next_outcomes[i]
                    };
                    let worst_for_opponent = (0..size.width).filter(|&c| p.can_play(c)).map(child_outcome).min();
                    match worst_for_opponent {
                        Some(Outcome::Loss) => Outcome::Win,
                        Some(Outcome::Draw) => Outcome::Draw,
                        _ => Outcome::Loss,
                    }
                })
                .collect();
            debug_assert!(ply as u32 <= size.cells());
            layers.push((layer, outcomes));
        }
        layers.reverse();
        Ok(ExplicitSolution { size, layers })
    }

    /// The outcome of a reachable position for the player to move.
    pub fn outcome(&self, p: &Position) -> Option<Outcome> {
        let (keys, outcomes) = self.layers.get(p.ply() as usize)?;
        keys.binary_search(&pack(p)).ok().map(|i| outcomes[i])
    }

    /// Per ply, from the first player's view: `(won, drawn, lost, total, terminal)`.
    pub fn table(&self) -> Vec<(u64, u64, u64, u64, u64)> {
        self.layers
            .iter()
            .enumerate()
            .map(|(ply, (keys, outcomes))| {
                let n = |o: Outcome| outcomes.iter().filter(|&&x| x == o).count() as u64;
                let (win, draw, loss) = (n(Outcome::Win), n(Outcome::Draw), n(Outcome::Loss));
                let terminal = keys.iter().filter(|&&k| unpack(self.size, k).is_terminal_win()).count() as u64;
                let (won, lost) = if ply % 2 == 0 { (win, loss) } else { (loss, win) };
                (won, draw, lost, keys.len() as u64, terminal)
            })
            .collect()
    }

    /// Every position at a ply.
    pub fn positions(&self, ply: u32) -> Vec<Position> {
        self.layers.get(ply as usize).map_or(vec![], |(keys, _)| keys.iter().map(|&k| unpack(self.size, k)).collect())
    }
}
