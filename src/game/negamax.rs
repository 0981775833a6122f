//! The search's inner loop: fail-soft negamax on bitboards of one word type
//! (`u64` or `u128`, [`super::bits`]), with the transposition table of
//! [`super::table`], the threat rules and move ordering, and optional probes
//! of a win/draw/loss table. Scores as in [`super::alphabeta`].

use super::alphabeta::{score_of, OutcomeProbe};
use super::bits::Bits;
use super::board::{BoardSize, Player, Position, MAX_SIDE};
use super::explicit::Outcome;
use super::table::{Slot, Table};

const SIDE: usize = MAX_SIDE as usize;

/// What [`super::alphabeta::Search`] asks of the loop, whatever its word.
pub(super) trait Engine {
    /// The fail-soft score of a position that is not over, within `(alpha, beta)`.
    fn negamax(&mut self, p: &Position, alpha: i32, beta: i32) -> i32;
    /// The legal moves of `p` in search order.
    fn ordered_moves(&self, p: &Position) -> Vec<u8>;
    /// Positions visited and probes answered so far.
    fn counts(&self) -> (u64, u64);
    /// Bytes of the transposition table and of one of its entries.
    fn table_bytes(&self) -> (usize, usize);
}

/// A position as the search plays it: the discs of the player to move and
/// all discs, and the same of its mirror image (the columns reversed), kept
/// move by move so that the key of the pair costs two additions.
#[derive(Clone, Copy, Default)]
struct Node<B> {
    mine: B,
    mask: B,
    mirror_mine: B,
    mirror_mask: B,
    ply: u32,
}

/// Moves in search order (at most one per column).
#[derive(Default)]
struct Moves {
    columns: [u8; SIDE],
    scores: [u32; SIDE],
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

/// The loop's state: the board's masks, the table, the probe and the counts.
pub(super) struct Negamax<'a, B: Bits> {
    size: BoardSize,
    big: i32,
    table: Table<B>,
    /// Columns centre first.
    order: [u8; SIDE],
    /// Every cell of the board, the bottom cell of each column.
    board: B,
    bottom: B,
    /// Each column's cells, its bottom cell, the bottom cell of its mirror.
    column: [B; SIDE],
    column_bottom: [B; SIDE],
    mirror_bottom: [B; SIDE],
    probe: Option<&'a mut dyn OutcomeProbe>,
    nodes: u64,
    probes: u64,
}

impl<'a, B: Bits> Negamax<'a, B> {
    /// A loop for `size` with a table of `2^log2_entries` entries.
    ///
    /// # Panics
    /// Unless the board's keys fit the table (`Table::fits`).
    pub fn new(size: BoardSize, log2_entries: u32, probe: Option<&'a mut dyn OutcomeProbe>) -> Self {
        let (w, h1) = (size.width as usize, size.column_bits());
        let mut order = [0u8; SIDE];
        let mut by_centre: Vec<u8> = (0..size.width).collect();
        by_centre.sort_by_key(|&c| ((2 * c as i32 - (w as i32 - 1)).abs(), c));
        order[..w].copy_from_slice(&by_centre);
        let cell = |c: usize| B::ONE << (c as u32 * h1);
        let column: [B; SIDE] =
            std::array::from_fn(|c| if c < w { B::low_mask(size.height as u32) << (c as u32 * h1) } else { B::ZERO });
        let column_bottom: [B; SIDE] = std::array::from_fn(|c| if c < w { cell(c) } else { B::ZERO });
        let mirror_bottom: [B; SIDE] = std::array::from_fn(|c| if c < w { cell(w - 1 - c) } else { B::ZERO });
        Negamax {
            size,
            big: size.cells() as i32 + 1,
            table: Table::new(w as u32 * h1, log2_entries),
            order,
            board: column.iter().fold(B::ZERO, |b, &c| b | c),
            bottom: column_bottom.iter().fold(B::ZERO, |b, &c| b | c),
            column,
            column_bottom,
            mirror_bottom,
            probe,
            nodes: 0,
            probes: 0,
        }
    }

    /// The node of a position (of this loop's board).
    fn node(&self, p: &Position) -> Node<B> {
        let (mine, mask) = (p.discs(p.to_move()), p.discs(Player::First) | p.discs(Player::Second));
        let word = B::from_u128;
        let mirror = |bits| word(self.size.mirror(bits));
        Node { mine: word(mine), mask: word(mask), mirror_mine: mirror(mine), mirror_mask: mirror(mask), ply: p.ply() }
    }

    /// The position of a node, for the probe.
    fn position(&self, n: &Node<B>) -> Position {
        let (mine, theirs) = (n.mine.to_u128(), (n.mine ^ n.mask).to_u128());
        match Player::to_move(n.ply) {
            Player::First => Position::from_discs(self.size, mine, theirs),
            Player::Second => Position::from_discs(self.size, theirs, mine),
        }
    }

    /// The node after the player to move drops a disc into column `c`.
    fn play(&self, n: &Node<B>, c: u8) -> Node<B> {
        let c = c as usize;
        Node {
            mine: n.mine ^ n.mask,
            mask: n.mask | (n.mask + self.column_bottom[c]),
            mirror_mine: n.mirror_mine ^ n.mirror_mask,
            mirror_mask: n.mirror_mask | (n.mirror_mask + self.mirror_bottom[c]),
            ply: n.ply + 1,
        }
    }

    /// The table slot of a node and its mirror image (Tromp's key
    /// `mine + mask`, the smaller of the two).
    fn slot(&self, n: &Node<B>) -> Slot<B> {
        self.table.slot((n.mine + n.mask).min(n.mirror_mine + n.mirror_mask))
    }

    /// The empty cells of the board where a disc of the player with discs
    /// `b` would complete four in a row (playable now or not).
    fn winning_cells(&self, b: B, mask: B) -> B {
        let d1 = self.size.column_bits();
        let mut r = (b << 1) & (b << 2) & (b << 3);
        for d in [d1, d1 - 1, d1 + 1] {
            let two_below = (b << d) & (b << (2 * d));
            r = r | (two_below & (b << (3 * d)));
            r = r | (two_below & (b >> d));
            let two_above = (b >> d) & (b >> (2 * d));
            r = r | (two_above & (b << d));
            r = r | (two_above & (b >> (3 * d)));
        }
        r & self.board & !mask
    }

    /// The cells worth playing for the player to move in `n` (cells
    /// `playable` now), who cannot win at once: none when every move lets the
    /// opponent win next (two cells where the opponent would win, or only
    /// moves below such a cell); only the block when the opponent could win
    /// next; never a move below a cell where the opponent would win. A move
    /// that loses at once can do no better than the earliest loss, so leaving
    /// it out keeps every exact value.
    fn non_losing(&self, n: &Node<B>, playable: B) -> B {
        let threats = self.winning_cells(n.mine ^ n.mask, n.mask);
        let forced = playable & threats;
        let candidates = match forced.ones() {
            0 => playable,
            1 => forced,
            _ => return B::ZERO,
        };
        candidates & !(threats >> 1)
    }

    /// The columns of the cells `cells` in search order: by the cells where
    /// the mover would then win, ties centre first.
    fn ordered(&self, n: &Node<B>, cells: B) -> Moves {
        let mut moves = Moves::default();
        for &c in &self.order[..self.size.width as usize] {
            let m = cells & self.column[c as usize];
            if m != B::ZERO {
                moves.insert(c, self.winning_cells(n.mine | m, n.mask | m).ones());
            }
        }
        moves
    }

    /// Narrow `(alpha, beta)` by the probe: the score to return when the
    /// probe settles the search (an exact value, a draw, or a window its
    /// outcome closes), else `None`.
    fn probed(&mut self, n: &Node<B>, alpha: &mut i32, beta: &mut i32) -> Option<i32> {
        let position = self.position(n);
        let probe = self.probe.as_mut()?;
        if let Some(value) = probe.exact(&position) {
            self.probes += 1;
            return Some(score_of(self.big, value, n.ply));
        }
        let outcome = probe.probe(&position)?;
        self.probes += 1;
        match outcome {
            Outcome::Draw => return Some(0),
            Outcome::Win => *alpha = (*alpha).max(0),
            Outcome::Loss => *beta = (*beta).min(0),
        }
        (*alpha >= *beta).then_some(*alpha)
    }

    /// Negamax of a node that is not over, within `(alpha, beta)`.
    fn search(&mut self, n: &Node<B>, mut alpha: i32, mut beta: i32) -> i32 {
        let nodes_before = self.nodes;
        self.nodes += 1;
        // The table's bucket is fetched while the threats are worked out.
        let slot = self.slot(n);
        self.table.prefetch(slot);
        let ply = n.ply as i32;
        let playable = (n.mask + self.bottom) & self.board;
        if self.winning_cells(n.mine, n.mask) & playable != B::ZERO {
            return self.big - (ply + 1);
        }
        if ply + 1 == self.size.cells() as i32 {
            return 0; // the last move fills the board without a win
        }
        let cells = self.non_losing(n, playable);
        if cells == B::ZERO {
            return -(self.big - (ply + 2)); // every move lets the opponent win next
        }
        // We cannot win before ply + 3, nor lose before ply + 2.
        beta = beta.min(self.big - (ply + 3));
        alpha = alpha.max(-(self.big - (ply + 2)));
        if alpha >= beta {
            return alpha;
        }
        if self.probe.is_some() {
            if let Some(score) = self.probed(n, &mut alpha, &mut beta) {
                return score;
            }
        }
        if let Some((lower, upper)) = self.table.find(slot) {
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
        let best = self.children(n, cells, alpha, beta);
        let bounds = if best <= alpha0 {
            (-self.big, best)
        } else if best >= beta0 {
            (best, self.big)
        } else {
            (best, best)
        };
        let work = (self.nodes - nodes_before).ilog2() as u8;
        self.table.store(slot, work, bounds);
        best
    }

    /// The best score of the moves into `cells`, searched in order within
    /// `(alpha, beta)` (fail-soft). Every child's bucket is fetched first,
    /// while the moves are ordered; a child the table already bounds low
    /// enough ends the search before any child is searched.
    fn children(&mut self, n: &Node<B>, cells: B, mut alpha: i32, beta: i32) -> i32 {
        let mut children = [Node::default(); SIDE];
        let mut slots = [None; SIDE];
        for c in 0..self.size.width as usize {
            if cells & self.column[c] != B::ZERO {
                children[c] = self.play(n, c as u8);
                let slot = self.slot(&children[c]);
                self.table.prefetch(slot);
                slots[c] = Some(slot);
            }
        }
        let moves = self.ordered(n, cells);
        for &c in &moves.columns[..moves.len] {
            if let Some((_, upper)) = slots[c as usize].and_then(|slot| self.table.find(slot)) {
                if -upper >= beta {
                    return -upper;
                }
            }
        }
        let mut best = -self.big;
        for &c in &moves.columns[..moves.len] {
            let v = -self.search(&children[c as usize], -beta, -alpha);
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
        best
    }
}

impl<B: Bits> Engine for Negamax<'_, B> {
    fn negamax(&mut self, p: &Position, alpha: i32, beta: i32) -> i32 {
        let n = self.node(p);
        self.search(&n, alpha, beta)
    }

    fn ordered_moves(&self, p: &Position) -> Vec<u8> {
        let n = self.node(p);
        let moves = self.ordered(&n, (n.mask + self.bottom) & self.board);
        moves.columns[..moves.len].to_vec()
    }

    fn counts(&self) -> (u64, u64) {
        (self.nodes, self.probes)
    }

    fn table_bytes(&self) -> (usize, usize) {
        (self.table.bytes(), B::BITS as usize / 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node played move by move equals the node of the position played the
    /// same way (its mirror image's discs included), on both words.
    fn played_nodes_match<B: Bits>(size: BoardSize) {
        let key_bits = size.width as u32 * size.column_bits();
        let log2 = (key_bits.saturating_sub(Table::<B>::TAG_BITS) + 1).max(8);
        let engine = Negamax::<B>::new(size, log2, None);
        let same = |a: &Node<B>, b: &Node<B>| {
            (a.mine, a.mask, a.mirror_mine, a.mirror_mask, a.ply)
                == (b.mine, b.mask, b.mirror_mine, b.mirror_mask, b.ply)
        };
        let (mut p, mut n) = (Position::empty(size), engine.node(&Position::empty(size)));
        let mut state = 7u64;
        while !p.is_terminal() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let moves: Vec<u8> = (0..size.width).filter(|&c| p.can_play(c)).collect();
            let c = moves[(state >> 33) as usize % moves.len()];
            (p, n) = (p.play(c), engine.play(&n, c));
            assert!(same(&n, &engine.node(&p)), "{size} at ply {}", p.ply());
            assert_eq!(engine.position(&n), p);
        }
    }

    #[test]
    fn nodes_played_move_by_move_keep_their_mirror_image() {
        for (w, h) in [(7, 6), (4, 4), (8, 7)] {
            played_nodes_match::<u64>(BoardSize::new(w, h).unwrap());
        }
        for (w, h) in [(7, 6), (13, 7)] {
            played_nodes_match::<u128>(BoardSize::new(w, h).unwrap());
        }
    }
}
