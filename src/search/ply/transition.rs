//! The game's rules as BDDs: per ply parity the move relations and the
//! terminal states (four in a row), built once and pinned, with the image
//! and pre-image of a ply's states under them.

use serde::{Deserialize, Serialize};

use crate::bdd::{Bdd, Manager, Pairing, Var};
use crate::encoding::{Frame, StateSpace};
use crate::error::{Error, Result};
use crate::game::Player;

use crate::search::ply::options::{ForwardOptions, ImageStrategy, TerminalStrategy};

/// Run `op` (a core operation, or the crate's own); if it hits the node
/// limit, collect (keeping `roots`) and retry once.
pub(crate) fn with_retry<T, E: Into<Error>>(
    m: &mut Manager,
    roots: &[Bdd],
    mut op: impl FnMut(&mut Manager) -> std::result::Result<T, E>,
) -> Result<T> {
    match op(m).map_err(Into::into) {
        Err(e) if e.is_node_limit() => {
            m.gc(roots);
            op(m).map_err(Into::into)
        }
        r => r,
    }
}

/// A union of the first `steps` products of a (pre-)image. The products run
/// part by part (the operand's parts under the image split, one part when
/// there is none) and within a part relation by relation: step `k` is part
/// `k / relations`, relation `k % relations`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joined {
    pub steps: usize,
    pub union: Bdd,
}

impl Default for Joined {
    /// None joined yet: the empty set.
    fn default() -> Joined {
        Joined { steps: 0, union: Bdd::FALSE }
    }
}

/// What a (pre-)image is of: a ply's states (the forward pass), or the lost
/// or drawn set of the ply above (the retrograde pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOf {
    Image,
    PreImage(Target),
}

/// A step of a (pre-)image joined, for a progress line: `done` of its
/// `steps` products, `time_s` into ply `ply` (seconds an earlier process
/// saved with the union included).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub ply: u32,
    pub of: StepOf,
    pub done: usize,
    pub steps: usize,
    pub time_s: f64,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let of = match self.of {
            StepOf::Image => "image",
            StepOf::PreImage(Target::Lost) => "pre-image of the lost set",
            StepOf::PreImage(Target::Draw) => "pre-image of the drawn set",
        };
        let Step { ply, done, steps, time_s, .. } = self;
        write!(f, "ply {ply}: {of}, step {done} of {steps}, {time_s:.0} s into the ply")
    }
}

/// The relations and terminal BDDs, indexed by ply parity (0: the first
/// player moves from the ply's states), pinned from `build` until `release`.
pub struct Transition {
    image: ImageStrategy,
    /// The image split: operands cut on this many top variables of their frame.
    split: u8,
    /// The frame pairing of the in-place product (in-place strategies only).
    pairing: Option<Pairing>,
    /// Per parity: the relations from that ply's frame (one, or one per column).
    moves: [Vec<Bdd>; 2],
    /// Per parity: terminal BDDs over that ply's frame (one whole BDD, or one
    /// per line; empty when off): the player who just moved has four in a row.
    terminal: [Vec<Bdd>; 2],
}

impl Transition {
    /// Build (and pin) the relations and terminal BDDs of both parities, on
    /// the pool's thread like the passes that use them
    /// ([`StateSpace::on_pool`]).
    pub fn build(space: &mut StateSpace, opts: &ForwardOptions) -> Result<Transition> {
        space.on_pool(|space| Self::build_here(space, opts))
    }

    /// [`Transition::build`] on the calling thread.
    fn build_here(space: &mut StateSpace, opts: &ForwardOptions) -> Result<Transition> {
        let mut moves = [Vec::new(), Vec::new()];
        let mut terminal = [Vec::new(), Vec::new()];
        let pairing = match opts.image {
            ImageStrategy::InPlace | ImageStrategy::InPlaceColumns => Some(space.pairing()?),
            _ => None,
        };
        for parity in 0..2 {
            let frame = opts.image.frame_of(parity);
            let mover = if parity == 0 { Player::First } else { Player::Second };
            let mut columns = space.column_moves(frame, mover)?;
            let lines =
                if opts.terminal == TerminalStrategy::Off { Vec::new() } else { space.lines(frame, mover.other())? };
            terminal[parity as usize] = match opts.terminal {
                TerminalStrategy::Whole | TerminalStrategy::Fused if !lines.is_empty() => {
                    vec![space.manager.or_all(&lines)?]
                }
                _ => lines,
            };
            if opts.terminal == TerminalStrategy::Fused {
                for t in std::mem::take(&mut terminal[parity as usize]) {
                    for c in columns.iter_mut() {
                        *c = space.manager.diff(*c, t)?;
                    }
                }
            }
            moves[parity as usize] = match opts.image {
                ImageStrategy::Columns | ImageStrategy::InPlaceColumns => columns,
                ImageStrategy::Monolithic | ImageStrategy::InPlace => vec![space.manager.or_all(&columns)?],
            };
        }
        let rules = Transition { image: opts.image, split: opts.image_split, pairing, moves, terminal };
        for f in rules.all() {
            space.manager.pin(f);
        }
        Ok(rules)
    }

    fn all(&self) -> impl Iterator<Item = Bdd> + '_ {
        self.moves.iter().chain(&self.terminal).flatten().copied()
    }

    /// The frame that holds the states of a ply.
    pub fn frame_of(&self, ply: u32) -> Frame {
        self.image.frame_of(ply)
    }

    /// The terminal BDDs of ply `ply`'s frame (one whole BDD, or one per line).
    pub(crate) fn terminal_of(&self, ply: u32) -> &[Bdd] {
        &self.terminal[ply as usize % 2]
    }

    /// The states among `states` (of ply `ply`) where the player who just
    /// moved has not won, and those where they have: `(non-terminal, terminal)`.
    /// Without termination every state is non-terminal.
    pub fn split_terminal(&self, space: &mut StateSpace, ply: u32, states: Bdd) -> Result<(Bdd, Bdd)> {
        let m = &mut space.manager;
        if let [t] = self.terminal_of(ply)[..] {
            let (terminal, alive) = with_retry(m, &[states], |m| m.split(states, t))?;
            return Ok((alive, terminal));
        }
        let mut alive = states;
        for &t in self.terminal_of(ply) {
            alive = with_retry(m, &[states, alive], |m| m.diff(alive, t))?;
        }
        let terminal = with_retry(m, &[states, alive], |m| m.diff(states, alive))?;
        Ok((alive, terminal))
    }

    /// The states of ply `ply` (in its frame) with a move into `target` (a
    /// set of states of ply `ply + 1`, in that ply's frame): the pre-image.
    pub fn preimage(&self, space: &mut StateSpace, ply: u32, target: Bdd) -> Result<Bdd> {
        self.preimage_from(space, ply, target, Joined::default(), &mut |_, _| Ok(()))
    }

    /// [`Transition::preimage`] taken up from `from` (the union of the
    /// products before step `from.steps`); `done` sees the union after each
    /// step (the count of steps joined, and the union, alive until the next
    /// collection), for example to save it.
    pub fn preimage_from(
        &self,
        space: &mut StateSpace,
        ply: u32,
        target: Bdd,
        from: Joined,
        done: &mut dyn FnMut(&mut StateSpace, Joined) -> Result<()>,
    ) -> Result<Bdd> {
        self.apply_moves(space, (ply, &self.moves[ply as usize % 2]), target, false, from, done)
    }

    /// The relations of the moves from ply `ply`, each restricted to the
    /// states of `cube` (over that ply's frame) it moves from; pinned, for
    /// [`Transition::preimage_by`] and then [`Transition::release_moves`].
    pub fn moves_within(&self, m: &mut Manager, ply: u32, cube: Bdd) -> Result<Vec<Bdd>> {
        let mut within = Vec::new();
        for &relation in &self.moves[ply as usize % 2] {
            let f = with_retry(m, &[cube], |m| m.and(relation, cube))?;
            m.pin(f);
            within.push(f);
        }
        Ok(within)
    }

    /// Unpin relations made by [`Transition::moves_within`].
    pub fn release_moves(m: &mut Manager, relations: Vec<Bdd>) {
        relations.into_iter().for_each(|f| m.unpin(f));
    }

    /// [`Transition::preimage`] under `relations` (the moves from ply
    /// `ply`, restricted by [`Transition::moves_within`]): the states of the
    /// restriction's cube with a move into `target`.
    pub fn preimage_by(&self, space: &mut StateSpace, ply: u32, relations: &[Bdd], target: Bdd) -> Result<Bdd> {
        self.apply_moves(space, (ply, relations), target, false, Joined::default(), &mut |_, _| Ok(()))
    }

    /// The states of ply `ply + 1` from the non-terminal states `alive` of
    /// ply `ply`, taken up from `from` (the union of the products before step
    /// `from.steps`); `done` sees the union after each step, as in
    /// [`Transition::preimage_from`].
    pub fn image_from(
        &self,
        space: &mut StateSpace,
        ply: u32,
        alive: Bdd,
        from: Joined,
        done: &mut dyn FnMut(&mut StateSpace, Joined) -> Result<()>,
    ) -> Result<Bdd> {
        self.apply_moves(space, (ply, &self.moves[ply as usize % 2]), alive, true, from, done)
    }

    /// The image (`forward`) or pre-image of `f` under `relations`, the
    /// moves from ply `ply`, joined over the steps from `from` on (each part
    /// of `f` under the image split, each relation); collects garbage
    /// between steps. After
    /// the last one each pass decides: the forward pass collects once per
    /// image, the retrograde pass once per ply (a collection after its
    /// pre-image would set the next threshold from a peak).
    fn apply_moves(
        &self,
        space: &mut StateSpace,
        (ply, relations): (u32, &[Bdd]),
        f: Bdd,
        forward: bool,
        from: Joined,
        done: &mut dyn FnMut(&mut StateSpace, Joined) -> Result<()>,
    ) -> Result<Bdd> {
        let set = self.operand_set(space, ply, forward);
        let split_vars = self.split_vars(space, ply, forward);
        let steps = relations.len() << split_vars.len();
        let mut joined = from.union;
        let mut part = None;
        for k in from.steps..steps {
            let (p, rel) = (k / relations.len(), relations[k % relations.len()]);
            let source = match part {
                Some((q, source)) if q == p => source,
                _ => part_of(&mut space.manager, f, &split_vars, p, joined)?,
            };
            part = Some((p, source));
            let m = &mut space.manager;
            let product = with_retry(m, &[f, joined, source], |m| match (self.pairing, forward) {
                (Some(pairing), true) => m.image(source, rel, pairing),
                (Some(pairing), false) => m.preimage(source, rel, pairing),
                (None, true) => m.and_exists(source, rel, set),
                (None, false) => m.and_exists(rel, source, set),
            })?;
            joined = with_retry(m, &[f, joined, source, product], |m| m.or(joined, product))?;
            done(space, Joined { steps: k + 1, union: joined })?;
            if k + 1 < steps {
                space.manager.maybe_gc(&[f, joined, source]);
            }
        }
        Ok(joined)
    }

    /// The products an image (`forward`) or pre-image of the moves from ply
    /// `ply` joins: one per relation and part of its operand.
    pub fn steps(&self, space: &StateSpace, ply: u32, forward: bool) -> usize {
        self.moves[ply as usize % 2].len() << self.split_vars(space, ply, forward).len()
    }

    /// The frame of the operand of an image (`forward`: ply `ply`'s frame)
    /// or pre-image (ply `ply + 1`'s).
    fn operand_frame(&self, ply: u32, forward: bool) -> Frame {
        self.frame_of(if forward { ply } else { ply + 1 })
    }

    /// The variables of the operand's set ([`Transition::operand_frame`]).
    fn operand_set(&self, space: &StateSpace, ply: u32, forward: bool) -> crate::bdd::VarSet {
        space.layout.set(self.operand_frame(ply, forward))
    }

    /// The operand's top variables of cells the image split cuts on (at
    /// most `split`; see [`top_cell_vars`]).
    fn split_vars(&self, space: &StateSpace, ply: u32, forward: bool) -> Vec<Var> {
        top_cell_vars(space, self.operand_frame(ply, forward), self.split as usize)
    }

    /// Unpin everything `build` pinned.
    pub fn release(self, m: &mut Manager) {
        for f in self.all() {
            m.unpin(f);
        }
        if let Some(pairing) = self.pairing {
            m.release_pairing(pairing);
        }
    }
}

/// Part `p` of `f` under a split on `vars` (top first): `f` where each
/// variable `vars[i]` has the value of bit `i` of `p`; `f` itself when there
/// is no split. `keep` survives a collection on the node limit.
fn part_of(m: &mut Manager, f: Bdd, vars: &[Var], p: usize, keep: Bdd) -> Result<Bdd> {
    if vars.is_empty() {
        return Ok(f);
    }
    let cube = part_cube(m, vars, p, &[f, keep])?;
    m.pin(cube);
    let part = with_retry(m, &[f, keep], |m| m.and(f, cube));
    m.unpin(cube);
    part
}

/// The cube of part `p` of a cut on `vars` (top first): each variable
/// `vars[i]` equal to bit `i` of `p` (true when there is no variable).
/// `roots` survive a collection on the node limit.
pub(crate) fn part_cube(m: &mut Manager, vars: &[Var], p: usize, roots: &[Bdd]) -> Result<Bdd> {
    let literals: Vec<(Var, bool)> = vars.iter().enumerate().map(|(i, &v)| (v, (p >> i) & 1 == 1)).collect();
    with_retry(m, roots, |m| m.cube(&literals))
}

/// The first `k` variables of cells of `frame` in the order, top first:
/// the side to move is the same for every position of a ply, so it cuts
/// nothing. Fewer when the frame has fewer.
pub(crate) fn top_cell_vars(space: &StateSpace, frame: Frame, k: usize) -> Vec<Var> {
    let state_vars = space.encoding.state_vars();
    let cells: Vec<Var> =
        (0..state_vars.len()).filter(|&j| state_vars[j].cell.is_some()).map(|j| space.layout.var(frame, j)).collect();
    let in_order = space.manager.var_set_vars(space.layout.set(frame));
    in_order.into_iter().filter(|v| cells.contains(v)).take(k).collect()
}

/// Which set of the ply above a pre-image is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Lost,
    Draw,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bdd::Config;
    use crate::encoding::{EncodingKind, OrderSpec};
    use crate::game::BoardSize;

    /// The names, in the order, of the state variables `vars` stand for.
    fn names(space: &StateSpace, vars: &[Var]) -> Vec<String> {
        vars.iter().map(|&v| space.arrangement[space.manager.level_of(v).0 as usize / 2].clone()).collect()
    }

    #[test]
    fn the_cut_takes_the_top_variables_of_cells_below_the_side_to_move() {
        for kind in [EncodingKind::Compressed, EncodingKind::Cellwise] {
            let size = BoardSize::new(4, 4).unwrap();
            let space = StateSpace::new(kind, size, &OrderSpec::PAPER, Config::default()).unwrap();
            let cells: Vec<String> = space.arrangement.iter().filter(|n| *n != "stm").take(3).cloned().collect();
            assert_eq!(space.arrangement.iter().position(|n| n == "stm"), Some(0), "{kind}: the side to move on top");
            for frame in [Frame::A, Frame::B] {
                let vars = top_cell_vars(&space, frame, 3);
                assert_eq!(names(&space, &vars), cells, "{kind} {frame:?}");
                let set = space.manager.var_set_vars(space.layout.set(frame));
                assert!(vars.iter().all(|v| set.contains(v)), "{kind}: the cut is in frame {frame:?}");
            }
            let all = top_cell_vars(&space, Frame::A, 1000);
            assert_eq!(all.len(), space.arrangement.len() - 1, "{kind}: every variable but the side to move");
        }
    }
}
