//! The compressed, bitboard-style encoding (Böck, after Tromp): one variable
//! per cell plus one spare row, plus side to move.
//!
//! Per column, cells below the lowest free cell hold the disc colour (true =
//! first player), the lowest free cell holds true, the cells above it false.
//! State variable `k = col * (height + 1) + row`, rows `0..=height`; side to
//! move is `k = width * (height + 1)`, true when the first player is to move.

use super::{Encoding, EncodingKind, Frame, Layout, StateVar};
use crate::bdd::{Bdd, Manager};
use crate::error::Result;
use crate::game::{BoardSize, Player, Position};

pub struct Compressed {
    size: BoardSize,
}

impl Compressed {
    pub fn new(size: BoardSize) -> Compressed {
        Compressed { size }
    }

    fn k(&self, col: u8, row: u8) -> usize {
        col as usize * (self.size.height as usize + 1) + row as usize
    }

    fn stm(&self) -> usize {
        self.size.width as usize * (self.size.height as usize + 1)
    }
}

impl Encoding for Compressed {
    fn kind(&self) -> EncodingKind {
        EncodingKind::Compressed
    }

    fn size(&self) -> BoardSize {
        self.size
    }

    fn state_vars(&self) -> Vec<StateVar> {
        let mut vars = Vec::with_capacity(self.stm() + 1);
        for col in 0..self.size.width {
            for row in 0..=self.size.height {
                vars.push(StateVar { name: format!("c{}r{}", col + 1, row + 1), cell: Some((col, row)), slot: 0 });
            }
        }
        vars.push(StateVar { name: "stm".into(), cell: None, slot: 0 });
        vars
    }

    fn initial(&self, m: &mut Manager, l: &Layout, frame: Frame) -> Result<Bdd> {
        let mut lits = vec![(self.stm(), true)];
        for col in 0..self.size.width {
            for row in 0..=self.size.height {
                lits.push((self.k(col, row), row == 0));
            }
        }
        l.cube(m, frame, &lits)
    }

    fn column_move(&self, m: &mut Manager, l: &Layout, from: Frame, player: Player, col: u8) -> Result<Bdd> {
        let to = from.other();
        let h = self.size.height;
        let colour = player == Player::First;
        let mut column = Bdd::FALSE;
        for height in 0..h {
            // Before: the marker is at `height` (true there, false above).
            let pre: Vec<(usize, bool)> = (height..=h).map(|r| (self.k(col, r), r == height)).collect();
            let pre = l.cube(m, from, &pre)?;
            // After: the disc's colour at `height`, the marker one up, false above.
            let eff: Vec<(usize, bool)> =
                (height..=h).map(|r| (self.k(col, r), if r == height { colour } else { r == height + 1 })).collect();
            let eff = l.cube(m, to, &eff)?;
            let below: Vec<usize> = (0..height).map(|r| self.k(col, r)).collect();
            let same = l.identity(m, &below)?;
            let one = m.and_all(&[pre, eff, same])?;
            column = m.or(column, one)?;
        }
        let stm = l.cube(m, from, &[(self.stm(), player == Player::First)])?;
        let stm_next = l.cube(m, to, &[(self.stm(), player == Player::Second)])?;
        let outside: Vec<usize> = (0..self.size.width)
            .filter(|&c| c != col)
            .flat_map(|c| (0..=h).map(move |r| (c, r)))
            .map(|(c, r)| self.k(c, r))
            .collect();
        let rest = l.identity(m, &outside)?;
        Ok(m.and_all(&[column, stm, stm_next, rest])?)
    }

    fn line(&self, m: &mut Manager, l: &Layout, frame: Frame, player: Player, cells: &[(u8, u8); 4]) -> Result<Bdd> {
        let colour = player == Player::First;
        let mut acc = Bdd::TRUE;
        for &(c, r) in cells {
            // The cell holds the player's colour and is below the marker: some
            // cell above it in the column is true.
            let own = l.lit(m, frame, self.k(c, r), colour)?;
            let mut above = Bdd::FALSE;
            for rr in r + 1..=self.size.height {
                let x = l.lit(m, frame, self.k(c, rr), true)?;
                above = m.or(above, x)?;
            }
            let cell = m.and(own, above)?;
            acc = m.and(acc, cell)?;
        }
        Ok(acc)
    }

    fn literals(&self, position: &Position) -> Vec<(usize, bool)> {
        let mut lits = vec![(self.stm(), position.to_move() == Player::First)];
        for col in 0..self.size.width {
            let height = position.column_height(col);
            for row in 0..=self.size.height {
                let value = if row < height { position.cell(col, row) == Some(Player::First) } else { row == height };
                lits.push((self.k(col, row), value));
            }
        }
        lits
    }

    fn discs(&self, values: &[bool]) -> Option<(u128, u128)> {
        let (mut first, mut second) = (0u128, 0u128);
        let bits = self.size.column_bits();
        for col in 0..self.size.width {
            // The highest set variable of the column marks its lowest free cell.
            let height = (0..=self.size.height).rev().find(|&row| values.get(self.k(col, row)) == Some(&true))?;
            for row in 0..height {
                let bit = 1u128 << (col as u32 * bits + row as u32);
                if values[self.k(col, row)] {
                    first |= bit;
                } else {
                    second |= bit;
                }
            }
        }
        Some((first, second))
    }
}
