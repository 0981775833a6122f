//! The two passes on a package: the forward count, and the strong solution
//! (the forward pass keeping every ply's states, then the retrograde pass of
//! the paper's §2.2, as `c4bdd solve`).

use crate::board::{Board, Builder};
use crate::package::Package;
use crate::{Image, Terminal};

/// What the images of a run need, per ply parity (the first player moves
/// from even plies): the moves from that ply's frame, the terminal states
/// of that frame (the player who just moved has four in a row), and the
/// variables an image (or pre-image) quantifies.
pub struct Rules<'a, P: Package> {
    p: &'a P,
    in_place: bool,
    moves: [Vec<P::F>; 2],
    terminal: [Vec<P::F>; 2],
    /// Per frame: its own variables, or in place all of the relation's.
    vars: [P::F; 2],
}

impl<'a, P: Package> Rules<'a, P> {
    /// The rules of `board` on `p`; in place, every ply's states are in
    /// frame A and the relations go from A to B.
    pub fn new(p: &'a P, board: &Board, image: Image, terminal: Terminal) -> Rules<'a, P> {
        let b = Builder { p, b: board };
        let in_place = image == Image::InPlace;
        let frame = |parity: u32| if in_place { 0 } else { parity };
        let mut moves = [b.moves(frame(0), true), b.moves(frame(1), false)];
        let mut lines = [b.terminal(frame(0), false), b.terminal(frame(1), true)];
        for parity in 0..2 {
            if image != Image::Columns {
                moves[parity] = b.or_all(std::mem::take(&mut moves[parity]));
            }
            if terminal == Terminal::Whole {
                lines[parity] = b.or_all(std::mem::take(&mut lines[parity]));
            }
        }
        let vars = if in_place {
            let all = p.and(&b.frame_vars(0), &b.frame_vars(1));
            [all.clone(), all]
        } else {
            [b.frame_vars(0), b.frame_vars(1)]
        };
        Rules { p, in_place, moves, terminal: lines, vars }
    }

    /// The states of ply `ply` that are not terminal.
    fn alive(&self, ply: u32, states: &P::F) -> P::F {
        let mut alive = states.clone();
        for t in &self.terminal[(ply % 2) as usize] {
            alive = self.p.and(&alive, &self.p.not(t));
        }
        alive
    }

    /// The states of ply `ply` that are terminal.
    fn terminal(&self, ply: u32, states: &P::F) -> P::F {
        let p = self.p;
        p.and(states, &p.not(&self.alive(ply, states)))
    }

    /// The states of ply `ply + 1` reached from the non-terminal states of
    /// ply `ply`.
    pub fn image(&self, ply: u32, states: &P::F) -> P::F {
        let parity = (ply % 2) as usize;
        let alive = self.alive(ply, states);
        self.join(parity, |rel| {
            if self.in_place {
                self.p.relnext(&alive, rel, &self.vars[parity])
            } else {
                self.p.and_exists(&alive, rel, &self.vars[parity])
            }
        })
    }

    /// The states of ply `ply` (not restricted to its reachable ones) with
    /// a move into `set`, a set of ply `ply + 1`.
    fn preimage(&self, ply: u32, set: &P::F) -> P::F {
        let parity = (ply % 2) as usize;
        self.join(parity, |rel| {
            if self.in_place {
                self.p.relprev(rel, set, &self.vars[parity])
            } else {
                self.p.and_exists(rel, set, &self.vars[1 - parity])
            }
        })
    }

    /// The disjunction of `product` over the moves of a ply parity (one
    /// relation, or one per column).
    fn join(&self, parity: usize, product: impl Fn(&P::F) -> P::F) -> P::F {
        let p = self.p;
        self.moves[parity].iter().fold(p.constant(false), |acc, rel| p.or(&acc, &product(rel)))
    }
}

/// Take the nodes `p` holds now into `held`, their most so far.
fn note<P: Package>(p: &P, held: &mut u64) {
    *held = (*held).max(p.nodes_held().unwrap_or(0));
}

/// The count: one line per ply (ply, positions, BDD nodes without
/// complement edges), then the total positions.
/// At the end of each ply, `held` takes the most nodes the package holds.
pub fn count<P: Package>(p: &P, board: &Board, rules: &Rules<P>, held: &mut u64) -> u128 {
    let (n, cells) = (board.state_vars(), board.w * board.h);
    let mut states = Builder { p, b: board }.initial();
    let mut total: u128 = 0;
    for ply in 0..=cells {
        // Counted over its own frame's variables: the models walk reads
        // variable v as level v / 2, the same for both frames.
        let positions = p.models(&states, 2, n);
        println!("{ply} {positions} {}", p.nodes(&states));
        total += positions;
        if ply < cells {
            states = rules.image(ply, &states);
        }
        note(p, held);
    }
    total
}

/// The strong solution: one line per ply from the last to the empty board
/// (ply, won, drawn, lost: positions from the first player's view, as
/// `c4bdd solve` writes them), then the value of the empty board for the
/// first player; returns the total positions. From the view of the player
/// to move at ply i (the module documentation of c4bdd's retrograde pass):
///
/// ```text
/// win_N  = false,  draw_N = states_N ∧ ¬terminal,  lost_N = states_N ∧ terminal
/// win_i  = pre-image(lost_{i+1}) ∧ states_i
/// draw_i = pre-image(draw_{i+1}) ∧ states_i ∧ ¬win_i
/// lost_i = states_i ∧ ¬win_i ∧ ¬draw_i
/// ```
///
/// (below the last ply no pre-image holds a terminal state, so the
/// terminal states fall into `lost_i`).
pub fn solve<P: Package>(p: &P, board: &Board, rules: &Rules<P>, held: &mut u64) -> u128 {
    let (n, cells) = (board.state_vars(), board.w * board.h);
    let mut layers = vec![Builder { p, b: board }.initial()];
    for ply in 0..cells {
        let next = rules.image(ply, &layers[ply as usize]);
        layers.push(next);
        note(p, held);
    }
    let last = &layers[cells as usize];
    let lost = rules.terminal(cells, last);
    let mut sets = [p.constant(false), p.and(last, &p.not(&lost)), lost];
    let mut total: u128 = 0;
    let mut value = "";
    for ply in (0..=cells).rev() {
        if ply < cells {
            let states = &layers[ply as usize];
            let win = p.and(states, &rules.preimage(ply, &sets[2]));
            let draw = p.and(&p.and(states, &rules.preimage(ply, &sets[1])), &p.not(&win));
            let lost = p.and(&p.and(states, &p.not(&win)), &p.not(&draw));
            sets = [win, draw, lost];
        }
        let [win, draw, lost] = sets.each_ref().map(|f| p.models(f, 2, n));
        let (won, lost) = if ply % 2 == 0 { (win, lost) } else { (lost, win) };
        println!("{ply} {won} {draw} {lost}");
        total += won + draw + lost;
        value = if won > 0 {
            "first player wins"
        } else if draw > 0 {
            "draw"
        } else {
            "second player wins"
        };
        layers.truncate(ply as usize);
        note(p, held);
    }
    println!("value of the empty board: {value}");
    total
}
