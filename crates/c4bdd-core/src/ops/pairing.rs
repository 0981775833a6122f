//! In-place images: the relational product that reads and writes the same
//! variables.
//!
//! A [`Pairing`] couples variables `(x_p, y_p)` that sit on adjacent levels,
//! `x_p` directly above `y_p`. A state set `f` lives on the upper variables
//! `x`; a relation `R(x, y)` relates a state `x` to a state `y`. Then
//!
//! ```text
//! image(f, R)    = { x : ∃z. f(z) ∧ R(z, x) }    successors, over x again
//! preimage(f, R) = { x : ∃z. f(z) ∧ R(x, z) }    predecessors, over x again
//! ```
//!
//! so no renaming from `y` back to `x` is ever needed, and where the relation
//! is the identity on every remaining pair the result is `f`'s own sub-BDD,
//! shared rather than copied: for relations that change a few variables (a
//! game move), most of the result is the input's nodes. The pairing keeps the
//! identity relation of each suffix of pairs (pinned until
//! [`Manager::release_pairing`]) to detect this in O(1).

use crate::cache::computed::Op;
use crate::error::{Error, Result};
use crate::manager::{Manager, Step};
use crate::ops::apply::apply;
pub use crate::pairs::Pairing;
use crate::pairs::{PairingData, NO_PAIR};
use crate::parallel::recursor::{Recursor, Seq};
use crate::store::node::{Bdd, Var};

/// The cofactors of an in-place product step `(f, t)` at the upper level
/// `x`: `(f0, f1)`, then for each value `v` of the result's variable the
/// relation's cofactors to pair with `f0` and `f1`:
/// `r_v = ∨_u f_u ∧ R(u -> v)` for the image, `∨_u f_u ∧ R(v -> u)` for the
/// pre-image.
#[inline(always)]
pub(crate) fn pair_split(
    op: Op,
    f: u32,
    t: u32,
    x: u32,
    cofactors: impl Fn(u32, u32) -> (u32, u32),
) -> ((u32, u32), (u32, u32), (u32, u32)) {
    let (t0, t1) = cofactors(t, x);
    let (t00, t01) = cofactors(t0, x + 1);
    let (t10, t11) = cofactors(t1, x + 1);
    let (into0, into1) = if op == Op::Image { ((t00, t10), (t01, t11)) } else { ((t00, t01), (t10, t11)) };
    (cofactors(f, x), into0, into1)
}

impl Manager {
    /// Register a pairing of `(x, y)` variables, `x` directly above `y` in the
    /// order. Every variable a state set or relation mentions must be paired.
    pub fn pairing(&mut self, pairs: &[(Var, Var)]) -> Result<Pairing> {
        let invalid = |reason: String| Error::InvalidOrder { reason: format!("pairing: {reason}") };
        let mut uppers = Vec::with_capacity(pairs.len());
        let mut pair = vec![NO_PAIR; self.var_count()];
        for &(x, y) in pairs {
            if x.0 as usize >= self.var_count() || y.0 as usize >= self.var_count() {
                return Err(Error::UnknownVar { var: x.0.max(y.0), count: self.var_count() as u32 });
            }
            let (lx, ly) = (self.level_of(x).0, self.level_of(y).0);
            if ly != lx + 1 {
                return Err(invalid(format!("variable {} is not directly below variable {}", y.0, x.0)));
            }
            if pair[lx as usize] != NO_PAIR || pair[ly as usize] != NO_PAIR {
                return Err(invalid(format!("variable {} or {} is paired twice", x.0, y.0)));
            }
            pair[lx as usize] = 0;
            pair[ly as usize] = 0;
            uppers.push(lx);
        }
        uppers.sort_unstable();
        for (p, &lx) in uppers.iter().enumerate() {
            pair[lx as usize] = p as u32;
            pair[lx as usize + 1] = p as u32;
        }
        let mut identity = vec![1u32; uppers.len() + 1];
        for p in (0..uppers.len()).rev() {
            let (lx, below) = (uppers[p], identity[p + 1]);
            let y0 = self.mk(lx + 1, below, 0);
            let y1 = self.mk(lx + 1, 0, below);
            let x = match (y0, y1) {
                (Ok(y0), Ok(y1)) => self.mk(lx, y0, y1),
                _ => return Err(self.limit_error()),
            };
            identity[p] = self.lift(x)?.0;
            self.pin(Bdd(identity[p]));
        }
        self.pairings.push(PairingData { pair, upper: uppers, identity });
        Ok(Pairing(self.pairings.len() as u32 - 1))
    }

    /// Unpin a pairing's identity relations; the handle must not be used again.
    pub fn release_pairing(&mut self, pairing: Pairing) {
        for f in std::mem::take(&mut self.pairings[pairing.0 as usize].identity) {
            self.unpin(Bdd(f));
        }
    }

    fn check_pairing(&self, pairing: Pairing) {
        assert!(!self.pairings[pairing.0 as usize].identity.is_empty(), "pairing {} was released", pairing.0);
    }

    /// The successors of the states `f` (over the pairing's upper variables)
    /// under `relation` (over both), again over the upper variables.
    pub fn image(&mut self, f: Bdd, relation: Bdd, pairing: Pairing) -> Result<Bdd> {
        self.debug_check(&[f, relation]);
        self.check_pairing(pairing);
        let r = match self.threads() {
            1 if self.breadth_first() => self.pair_bfs(Op::Image, f.0, relation.0, pairing.0),
            1 => pair(Seq::new(self), Op::Image, f.0, relation.0, pairing.0, 0),
            _ => self.parallel(|s| pair(s, Op::Image, f.0, relation.0, pairing.0, 0)),
        };
        self.lift(r)
    }

    /// The predecessors of the states `f` (over the pairing's upper variables)
    /// under `relation` (over both), again over the upper variables.
    pub fn preimage(&mut self, f: Bdd, relation: Bdd, pairing: Pairing) -> Result<Bdd> {
        self.debug_check(&[f, relation]);
        self.check_pairing(pairing);
        let r = match self.threads() {
            1 if self.breadth_first() => self.pair_bfs(Op::Preimage, f.0, relation.0, pairing.0),
            1 => pair(Seq::new(self), Op::Preimage, f.0, relation.0, pairing.0, 0),
            _ => self.parallel(|s| pair(s, Op::Preimage, f.0, relation.0, pairing.0, 0)),
        };
        self.lift(r)
    }
}

/// Whether a step forks: two or more of its four products `(f_i, t_ij)` are
/// not empty. Only a forking step counts towards the depth that decides
/// where tasks are spawned, so that an operand held to one value on its top
/// variables (a part of an image split, or a ply's side to move) still
/// spawns as many tasks below them as a whole operand does.
fn forks(f0: u32, f1: u32, into0: (u32, u32), into1: (u32, u32)) -> bool {
    let products = [(f0, into0.0), (f1, into0.1), (f0, into1.0), (f1, into1.1)];
    products.iter().filter(|&&(f, t)| f != Bdd::FALSE.0 && t != Bdd::FALSE.0).count() >= 2
}

/// The in-place image or pre-image step `(f, t)` under pairing `id`.
pub(crate) fn pair<R: Recursor>(r: R, op: Op, f: u32, t: u32, id: u32, depth: u32) -> Step {
    let x = match r.pairing(id).step_start(f, t, |g| r.level(g)) {
        Ok(x) => x,
        Err(x) => return Ok(x),
    };
    if let Some(x) = r.cached(op, f, t, id) {
        return Ok(x);
    }
    pair_missed(r, op, (f, t, id), x, depth)
}

/// The in-place step `(f, t)` under pairing `id`, at upper level `x` (its
/// `step_start`), whose lookup missed: its products, their joins, its node,
/// its cache entry.
#[inline(always)]
pub(crate) fn pair_missed<R: Recursor>(r: R, op: Op, (f, t, id): (u32, u32, u32), x: u32, depth: u32) -> Step {
    let ((f0, f1), into0, into1) = pair_split(op, f, t, x, |g, level| r.cofactors(g, level));
    let below = depth + u32::from(forks(f0, f1, into0, into1));
    // The first product runs at once; the other three are hinted.
    for (g, t) in [(f1, into0.1), (f0, into1.0), (f1, into1.1)] {
        if g > 1 && t > 1 {
            r.prefetch(op, g, t, id);
        }
    }
    // `pair(f0, t.0) ∨ pair(f1, t.1)` for the result's low and high child.
    let join = |t: (u32, u32)| -> Step {
        let (a, b) = r.both(depth, move || pair(r, op, f0, t.0, id, below), move || pair(r, op, f1, t.1, id, below))?;
        apply(r, Op::Or, a, b, below)
    };
    let (low, high) = r.both(depth, || join(into0), || join(into1))?;
    let node = r.mk(x, low, high)?;
    r.put(op, f, t, id, node);
    Ok(node)
}
