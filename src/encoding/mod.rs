//! State encodings: how a Connect Four position becomes a set of Boolean
//! variables, and the BDDs of the game rules over them.
//!
//! Two frames of state variables, A and B, are interleaved in the variable
//! order (state variable `k` of A sits directly above the same variable of B).
//! A ply's states live in one frame; the image of a move relation lands in the
//! other, so no renaming is needed (the paper's §3.2). States at even plies are
//! in frame A (first player to move), at odd plies in frame B.
//!
//! Encodings use only the manager's public API.
//!
//! To add an encoding:
//! 1. write a type implementing [`Encoding`] in a file of its own (see
//!    `compressed.rs`): its state variables (named, with their cells, so
//!    that every variable order can arrange them), the empty board, a
//!    column's move relation, a winning line, and the literals of an
//!    explicit position;
//! 2. add a variant to [`EncodingKind`] and build it in
//!    [`EncodingKind::build`] and name it in [`EncodingKind::name`]; the
//!    command line (`--encoding`), specs (`encodings = [...]`) and the
//!    results' `encoding` column take it from there;
//! 3. the tests of `tests/it/count.rs` and `tests/it/solve.rs` run every
//!    encoding of [`EncodingKind::all`] against the explicit enumerator and
//!    solver, so the new one is checked from then on.
//!
//! To add a variable order, see [`order`].

mod cellwise;
mod compressed;
pub mod order;
pub mod rule;

use serde::{Deserialize, Serialize};

use crate::bdd::{Bdd, Config, Manager, Var, VarSet};
use crate::error::Result;
use crate::game::{BoardSize, Player, Position};
pub use order::OrderSpec;
pub use rule::{Major, OrderRule};

/// One of the two interleaved copies of the state variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Frame {
    A,
    B,
}

impl Frame {
    /// The frame that holds the states of a ply.
    pub fn of_ply(ply: u32) -> Frame {
        if ply.is_multiple_of(2) {
            Frame::A
        } else {
            Frame::B
        }
    }

    pub fn other(self) -> Frame {
        match self {
            Frame::A => Frame::B,
            Frame::B => Frame::A,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

crate::named::named_enum! {
    /// The available encodings.
    pub enum EncodingKind ("encoding", default Compressed) {
        /// Two variables per cell (first player's disc, second player's disc) plus side to move.
        Cellwise = "cellwise" | "standard",
        /// Bitboard-style: w*(h+1) variables plus side to move; per column the
        /// discs' colours below a 1 marking the lowest free cell, 0 above.
        Compressed = "compressed",
    }
}

impl EncodingKind {
    /// The encoding for a board.
    pub fn build(self, size: BoardSize) -> Box<dyn Encoding> {
        match self {
            EncodingKind::Cellwise => Box::new(cellwise::Cellwise::new(size)),
            EncodingKind::Compressed => Box::new(compressed::Compressed::new(size)),
        }
    }
}

/// What a state variable stands for, so that orders can arrange variables by
/// board geometry without knowing the encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateVar {
    /// Name used in custom orders, e.g. `c1r2p1` or `stm`.
    pub name: String,
    /// Column (0-based) and row (0-based, bottom first); `None` for side to move.
    pub cell: Option<(u8, u8)>,
    /// Index among the variables of the same cell (cellwise: 0 first player, 1 second).
    pub slot: u8,
}

/// The variables of both frames and their sets.
pub struct Layout {
    vars: [Vec<Var>; 2],
    sets: [VarSet; 2],
}

impl Layout {
    /// Manager variable of state variable `k` in a frame.
    #[inline]
    pub fn var(&self, frame: Frame, k: usize) -> Var {
        self.vars[frame.index()][k]
    }

    /// The set of all variables of a frame.
    pub fn set(&self, frame: Frame) -> VarSet {
        self.sets[frame.index()]
    }

    /// Number of state variables per frame.
    pub fn per_frame(&self) -> usize {
        self.vars[0].len()
    }

    /// The literal `k == value` in a frame.
    pub fn lit(&self, m: &mut Manager, frame: Frame, k: usize, value: bool) -> Result<Bdd> {
        Ok(m.literal(self.var(frame, k), value)?)
    }

    /// The conjunction of literals `(k, value)` in a frame.
    pub fn cube(&self, m: &mut Manager, frame: Frame, lits: &[(usize, bool)]) -> Result<Bdd> {
        let lits: Vec<(Var, bool)> = lits.iter().map(|&(k, v)| (self.var(frame, k), v)).collect();
        Ok(m.cube(&lits)?)
    }

    /// "State variable `k` is equal in both frames", conjoined over `ks`,
    /// built bottom-up so every intermediate BDD stays linear.
    pub fn identity(&self, m: &mut Manager, ks: &[usize]) -> Result<Bdd> {
        let mut ks = ks.to_vec();
        ks.sort_by_key(|&k| std::cmp::Reverse(m.level_of(self.var(Frame::A, k)).0));
        let mut acc = Bdd::TRUE;
        for k in ks {
            let a = self.lit(m, Frame::A, k, true)?;
            let b = self.lit(m, Frame::B, k, true)?;
            let same = m.iff(a, b)?;
            acc = m.and(same, acc)?;
        }
        Ok(acc)
    }
}

/// A state encoding. All BDDs are built in the given manager over the layout's
/// variables; "moves" relations go from `from` to `from.other()`.
pub trait Encoding: Send + Sync {
    fn kind(&self) -> EncodingKind;

    fn size(&self) -> BoardSize;

    /// The state variables of one frame, indexed by `k`.
    fn state_vars(&self) -> Vec<StateVar>;

    /// The empty board with the first player to move.
    fn initial(&self, m: &mut Manager, l: &Layout, frame: Frame) -> Result<Bdd>;

    /// The move relation of `player` dropping a disc into `col`, from frame
    /// `from` to the other frame, including "every other variable unchanged"
    /// and the change of side to move.
    fn column_move(&self, m: &mut Manager, l: &Layout, from: Frame, player: Player, col: u8) -> Result<Bdd>;

    /// "`player` has a disc on each of these cells" in a frame.
    fn line(&self, m: &mut Manager, l: &Layout, frame: Frame, player: Player, cells: &[(u8, u8); 4]) -> Result<Bdd>;

    /// The value of every state variable `k` for an explicit position.
    fn literals(&self, position: &Position) -> Vec<(usize, bool)>;

    /// The discs `(first, second)` that the values of the state variables
    /// (indexed by `k`) describe, if their cell variables describe discs at
    /// all; [`decode`] checks the rest.
    fn discs(&self, values: &[bool]) -> Option<(u128, u128)>;
}

/// The position whose state variables have `values` (indexed by `k`), if
/// there is one: the encoding's discs make a position whose every literal
/// is the value given.
pub fn decode(encoding: &dyn Encoding, values: &[bool]) -> Option<Position> {
    let (first, second) = encoding.discs(values)?;
    let position = Position::from_layout(encoding.size(), first, second)?;
    encoding.literals(&position).into_iter().all(|(k, v)| values.get(k) == Some(&v)).then_some(position)
}

/// A manager, an encoding and a variable order, ready for search.
pub struct StateSpace {
    pub manager: Manager,
    pub encoding: Box<dyn Encoding>,
    pub layout: Layout,
    /// The order's name as recorded in results.
    pub order_name: String,
    /// The state variables' names in level order (the resolved order).
    pub arrangement: Vec<String>,
}

impl StateSpace {
    /// Run `f` on a thread of the manager's pool (directly when there is no
    /// pool or the caller is one of its threads). A parallel operation then
    /// starts on that thread and the other threads take parts of it, instead
    /// of every operation, however small, being handed from the calling
    /// thread to the pool and waited for: a pass runs thousands of them (a
    /// collection's phases, counting's levels), each costing two thread
    /// switches.
    pub fn on_pool<R: Send>(&mut self, f: impl FnOnce(&mut StateSpace) -> R + Send) -> R {
        match self.manager.pool() {
            Some(pool) => pool.install(|| f(self)),
            None => f(self),
        }
    }

    /// Create the variables of both frames in the order's arrangement.
    pub fn new(kind: EncodingKind, size: BoardSize, order: &OrderSpec, config: Config) -> Result<StateSpace> {
        let encoding = kind.build(size);
        let state_vars = encoding.state_vars();
        let arranged = order.arrange(&state_vars, size, kind)?;
        let n = state_vars.len();
        let mut manager = Manager::try_new(config)?;
        let all = manager.add_vars(2 * n)?;
        // Variable 2k is state variable k of frame A, 2k + 1 the same of frame B.
        let vars = [(0..n).map(|k| all[2 * k]).collect::<Vec<_>>(), (0..n).map(|k| all[2 * k + 1]).collect()];
        let levels: Vec<Var> = arranged.iter().flat_map(|&k| [vars[0][k], vars[1][k]]).collect();
        manager.set_order(&levels)?;
        let sets = [manager.var_set(&vars[0])?, manager.var_set(&vars[1])?];
        let arrangement = arranged.iter().map(|&k| state_vars[k].name.clone()).collect();
        Ok(StateSpace { manager, encoding, layout: Layout { vars, sets }, order_name: order.name(), arrangement })
    }

    /// Number of states in a BDD over one frame.
    pub fn count(&self, f: Bdd, frame: Frame) -> u128 {
        self.manager.sat_count(f, self.layout.set(frame))
    }

    /// Number of states in a BDD over one frame, and its node count.
    pub fn count_and_size(&self, f: Bdd, frame: Frame) -> (u128, usize) {
        self.manager.sat_count_and_size(f, self.layout.set(frame))
    }

    /// The board.
    pub fn size(&self) -> BoardSize {
        self.encoding.size()
    }

    /// The empty board in frame A.
    pub fn initial(&mut self) -> Result<Bdd> {
        self.encoding.initial(&mut self.manager, &self.layout, Frame::A)
    }

    /// One relation per column for `player` moving from `from` (into the other frame).
    pub fn column_moves(&mut self, from: Frame, player: Player) -> Result<Vec<Bdd>> {
        (0..self.size().width)
            .map(|c| self.encoding.column_move(&mut self.manager, &self.layout, from, player, c))
            .collect()
    }

    /// One BDD per line of four: "`player` has it", over `frame`.
    pub fn lines(&mut self, frame: Frame, player: Player) -> Result<Vec<Bdd>> {
        let size = self.size();
        size.lines()
            .iter()
            .map(|cells| self.encoding.line(&mut self.manager, &self.layout, frame, player, cells))
            .collect()
    }

    /// The pairing of each frame-A variable with its frame-B copy (directly
    /// below it), for in-place images.
    pub fn pairing(&mut self) -> Result<crate::bdd::Pairing> {
        let pairs: Vec<(Var, Var)> = (0..self.layout.per_frame())
            .map(|k| (self.layout.var(Frame::A, k), self.layout.var(Frame::B, k)))
            .collect();
        Ok(self.manager.pairing(&pairs)?)
    }

    /// A renaming of frame B's variables onto frame A's (for putting the
    /// states of all plies into one BDD over frame A).
    pub fn b_to_a(&mut self) -> Result<crate::bdd::Renaming> {
        let pairs: Vec<(Var, Var)> = (0..self.layout.per_frame())
            .map(|k| (self.layout.var(Frame::B, k), self.layout.var(Frame::A, k)))
            .collect();
        Ok(self.manager.renaming(&pairs)?)
    }

    /// The state of an explicit position, in `frame`.
    pub fn encode(&mut self, position: &Position, frame: Frame) -> Result<Bdd> {
        let lits = self.encoding.literals(position);
        self.layout.cube(&mut self.manager, frame, &lits)
    }

    /// Whether a BDD over one frame (either) contains the position: one walk
    /// down the BDD, no node is built. The position's values are given to
    /// both frames' variables, so the answer does not depend on the frame.
    pub fn contains(&self, f: Bdd, position: &Position) -> bool {
        self.manager.eval(f, &self.assignment(position))
    }

    /// The position an assignment (by variable id) gives the state
    /// variables of `frame`, if it is one.
    pub fn position(&self, assignment: &[bool], frame: Frame) -> Option<Position> {
        let values: Vec<bool> = (0..self.layout.per_frame())
            .map(|k| assignment.get(self.layout.var(frame, k).0 as usize).copied().unwrap_or(false))
            .collect();
        decode(self.encoding.as_ref(), &values)
    }

    /// The value of every manager variable (by id) for a position: its
    /// state variables' values in both frames.
    pub fn assignment(&self, position: &Position) -> Vec<bool> {
        let mut assignment = vec![false; 2 * self.layout.per_frame()];
        for (k, value) in self.encoding.literals(position) {
            for frame in [Frame::A, Frame::B] {
                assignment[self.layout.var(frame, k).0 as usize] = value;
            }
        }
        assignment
    }
}
