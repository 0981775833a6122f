//! The board and its compressed encoding, built on any [`Package`]:
//! exactly c4bdd's BDDs for `c4bdd count` (compressed encoding, column-wise
//! order, the frames' variables interleaved).

use crate::package::Package;

/// The board: state variable `k = col * (h + 1) + row` (rows `0..=h`; per
/// column the discs' colours, true for the first player, below a true
/// marker, false above it), then side to move (`k = w * (h + 1)`, true when
/// the first player moves). Variable `2k` is state variable `k` in frame A,
/// `2k + 1` the same in frame B, so the order is column-wise with the
/// frames interleaved, as in c4bdd.
pub struct Board {
    pub w: u32,
    pub h: u32,
}

impl Board {
    fn k(&self, col: u32, row: u32) -> u32 {
        col * (self.h + 1) + row
    }

    fn stm(&self) -> u32 {
        self.w * (self.h + 1)
    }

    /// Variables of one frame.
    pub fn state_vars(&self) -> u32 {
        self.stm() + 1
    }

    fn var(&self, frame: u32, k: u32) -> u32 {
        2 * k + frame
    }

    /// Every line of four cells: horizontal, vertical and both diagonals.
    fn lines(&self) -> Vec<[(u32, u32); 4]> {
        let (w, h) = (self.w as i32, self.h as i32);
        let mut lines = Vec::new();
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for c in 0..w {
                for r in 0..h {
                    let cells: Vec<(i32, i32)> = (0..4).map(|i| (c + i * dc, r + i * dr)).collect();
                    if cells.iter().all(|&(c, r)| (0..w).contains(&c) && (0..h).contains(&r)) {
                        lines.push(std::array::from_fn(|i| (cells[i].0 as u32, cells[i].1 as u32)));
                    }
                }
            }
        }
        lines
    }
}

/// BDDs of the board on package `p`.
pub struct Builder<'a, P: Package> {
    pub p: &'a P,
    pub b: &'a Board,
}

impl<P: Package> Builder<'_, P> {
    fn lit(&self, frame: u32, k: u32, value: bool) -> P::F {
        let v = self.p.var(self.b.var(frame, k));
        if value {
            v
        } else {
            self.p.not(&v)
        }
    }

    fn cube(&self, frame: u32, lits: &[(u32, bool)]) -> P::F {
        let mut acc = self.p.constant(true);
        for &(k, value) in lits.iter().rev() {
            acc = self.p.and(&acc, &self.lit(frame, k, value));
        }
        acc
    }

    /// `A_k ↔ B_k` for every `k` of `ks`.
    fn identity(&self, ks: &[u32]) -> P::F {
        let mut acc = self.p.constant(true);
        for &k in ks.iter().rev() {
            acc = self.p.and(&acc, &self.p.equiv(&self.lit(0, k, true), &self.lit(1, k, true)));
        }
        acc
    }

    /// The empty board, first player to move, in frame A.
    pub fn initial(&self) -> P::F {
        let b = self.b;
        let mut lits = vec![(b.stm(), true)];
        for col in 0..b.w {
            for row in 0..=b.h {
                lits.push((b.k(col, row), row == 0));
            }
        }
        self.cube(0, &lits)
    }

    /// The moves of `first` (the first player, or not) from `from` into the
    /// other frame, one relation per column.
    pub fn moves(&self, from: u32, first: bool) -> Vec<P::F> {
        let (b, p, to) = (self.b, self.p, 1 - from);
        let mut all = Vec::new();
        for col in 0..b.w {
            let mut column = p.constant(false);
            for height in 0..b.h {
                let pre: Vec<(u32, bool)> = (height..=b.h).map(|r| (b.k(col, r), r == height)).collect();
                let eff: Vec<(u32, bool)> =
                    (height..=b.h).map(|r| (b.k(col, r), if r == height { first } else { r == height + 1 })).collect();
                let below: Vec<u32> = (0..height).map(|r| b.k(col, r)).collect();
                let one = p.and(&p.and(&self.cube(from, &pre), &self.cube(to, &eff)), &self.identity(&below));
                column = p.or(&column, &one);
            }
            let outside: Vec<u32> =
                (0..b.w).filter(|&c| c != col).flat_map(|c| (0..=b.h).map(move |r| b.k(c, r))).collect();
            let stm = p.and(&self.cube(from, &[(b.stm(), first)]), &self.cube(to, &[(b.stm(), !first)]));
            all.push(p.and(&p.and(&column, &stm), &self.identity(&outside)));
        }
        all
    }

    /// States in `frame` where `first` (the first player, or not) has four
    /// in a row, one BDD per line.
    pub fn terminal(&self, frame: u32, first: bool) -> Vec<P::F> {
        let (b, p) = (self.b, self.p);
        let mut any = Vec::new();
        for line in b.lines() {
            let mut all = p.constant(true);
            for (c, r) in line {
                // The cell holds the player's colour below the column's marker.
                let mut above = p.constant(false);
                for rr in r + 1..=b.h {
                    above = p.or(&above, &self.lit(frame, b.k(c, rr), true));
                }
                all = p.and(&all, &p.and(&self.lit(frame, b.k(c, r), first), &above));
            }
            any.push(all);
        }
        any
    }

    /// The disjunction of `fs`, as a list of one.
    pub fn or_all(&self, fs: Vec<P::F>) -> Vec<P::F> {
        let mut acc = self.p.constant(false);
        for f in fs {
            acc = self.p.or(&acc, &f);
        }
        vec![acc]
    }

    /// The conjunction of a frame's variables (to quantify them).
    pub fn frame_vars(&self, frame: u32) -> P::F {
        let lits: Vec<(u32, bool)> = (0..self.b.state_vars()).map(|k| (k, true)).collect();
        self.cube(frame, &lits)
    }
}
