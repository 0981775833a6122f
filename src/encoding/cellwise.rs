//! The standard encoding (Edelkamp & Kissmann): two variables per cell, one
//! per player ("this player has a disc here"), plus side to move.
//!
//! State variable `k = 2 * (col * height + row) + p` for player `p` (0 first,
//! 1 second); side to move is `k = 2 * width * height`, true when the first
//! player is to move.

use super::{Encoding, EncodingKind, Frame, Layout, StateVar};
use crate::bdd::{Bdd, Manager};
use crate::error::Result;
use crate::game::{BoardSize, Player, Position};

pub struct Cellwise {
    size: BoardSize,
}

impl Cellwise {
    pub fn new(size: BoardSize) -> Cellwise {
        Cellwise { size }
    }

    fn k(&self, col: u8, row: u8, player: Player) -> usize {
        2 * (col as usize * self.size.height as usize + row as usize) + (player == Player::Second) as usize
    }

    fn stm(&self) -> usize {
        2 * self.size.cells() as usize
    }

    /// Every state variable except those of column `col` and side to move.
    fn outside_column(&self, col: u8) -> Vec<usize> {
        (0..self.size.width)
            .filter(|&c| c != col)
            .flat_map(|c| (0..self.size.height).flat_map(move |r| [(c, r, Player::First), (c, r, Player::Second)]))
            .map(|(c, r, p)| self.k(c, r, p))
            .collect()
    }
}

impl Encoding for Cellwise {
    fn kind(&self) -> EncodingKind {
        EncodingKind::Cellwise
    }

    fn size(&self) -> BoardSize {
        self.size
    }

    fn state_vars(&self) -> Vec<StateVar> {
        let mut vars = Vec::with_capacity(self.stm() + 1);
        for col in 0..self.size.width {
            for row in 0..self.size.height {
                for slot in 0..2 {
                    let name = format!("c{}r{}p{}", col + 1, row + 1, slot + 1);
                    vars.push(StateVar { name, cell: Some((col, row)), slot });
                }
            }
        }
        vars.push(StateVar { name: "stm".into(), cell: None, slot: 0 });
        vars
    }

    fn initial(&self, m: &mut Manager, l: &Layout, frame: Frame) -> Result<Bdd> {
        let mut lits: Vec<(usize, bool)> = (0..self.stm()).map(|k| (k, false)).collect();
        lits.push((self.stm(), true));
        l.cube(m, frame, &lits)
    }

    fn column_move(&self, m: &mut Manager, l: &Layout, from: Frame, player: Player, col: u8) -> Result<Bdd> {
        let to = from.other();
        let h = self.size.height;
        let mut column = Bdd::FALSE;
        for row in 0..h {
            // Before: the cell is empty and the one below (if any) is occupied.
            let (me, them) = (self.k(col, row, player), self.k(col, row, player.other()));
            let mut pre = l.cube(m, from, &[(me, false), (them, false)])?;
            if row > 0 {
                let a = l.lit(m, from, self.k(col, row - 1, Player::First), true)?;
                let b = l.lit(m, from, self.k(col, row - 1, Player::Second), true)?;
                let below = m.or(a, b)?;
                pre = m.and(pre, below)?;
            }
            // After: the player's disc is there.
            let eff = l.cube(m, to, &[(me, true), (them, false)])?;
            // The column's other cells are unchanged.
            let others: Vec<usize> = (0..h)
                .filter(|&r| r != row)
                .flat_map(|r| [self.k(col, r, Player::First), self.k(col, r, Player::Second)])
                .collect();
            let same = l.identity(m, &others)?;
            let one = m.and_all(&[pre, eff, same])?;
            column = m.or(column, one)?;
        }
        let stm = l.cube(m, from, &[(self.stm(), player == Player::First)])?;
        let stm_next = l.cube(m, to, &[(self.stm(), player == Player::Second)])?;
        let rest = l.identity(m, &self.outside_column(col))?;
        Ok(m.and_all(&[column, stm, stm_next, rest])?)
    }

    fn line(&self, m: &mut Manager, l: &Layout, frame: Frame, player: Player, cells: &[(u8, u8); 4]) -> Result<Bdd> {
        let lits: Vec<(usize, bool)> = cells.iter().map(|&(c, r)| (self.k(c, r, player), true)).collect();
        l.cube(m, frame, &lits)
    }

    fn literals(&self, position: &Position) -> Vec<(usize, bool)> {
        let mut lits = vec![(self.stm(), position.to_move() == Player::First)];
        for col in 0..self.size.width {
            for row in 0..self.size.height {
                let occupant = position.cell(col, row);
                for p in [Player::First, Player::Second] {
                    lits.push((self.k(col, row, p), occupant == Some(p)));
                }
            }
        }
        lits
    }

    fn discs(&self, values: &[bool]) -> Option<(u128, u128)> {
        let (mut first, mut second) = (0u128, 0u128);
        let bits = self.size.column_bits();
        for col in 0..self.size.width {
            for row in 0..self.size.height {
                let bit = 1u128 << (col as u32 * bits + row as u32);
                if *values.get(self.k(col, row, Player::First))? {
                    first |= bit;
                }
                if *values.get(self.k(col, row, Player::Second))? {
                    second |= bit;
                }
            }
        }
        Some((first, second))
    }
}
