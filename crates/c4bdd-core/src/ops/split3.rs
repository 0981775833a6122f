//! The three-way split of a retrograde step, in one traversal:
//!
//! ```text
//! split3(f, g, h) = (f ∧ g,  f ∧ ¬g ∧ h,  f ∧ ¬g ∧ ¬h)
//! ```
//!
//! With `f` a ply's states, `g` the pre-image of the next ply's lost states
//! and `h` that of its drawn ones, these are the won, drawn and lost states
//! (the terminal ones among the last: the pre-images hold none of them; see
//! `search::backward`). Two [`Manager::split`]s give the same
//! results, the second over the intermediate `f ∧ ¬g`, whose nodes are built
//! only to be taken apart again.
//!
//! Its computed table is its own (`split3_cache.rs`): a step has three node
//! operands and three results.

use crate::cache::computed::Op;
use crate::error::Result;
use crate::manager::Manager;
use crate::ops::apply::split;
use crate::parallel::recursor::{Recursor, Seq};
use crate::store::node::Bdd;
use crate::store::unique::Full;

/// The result of a recursive three-way step.
pub(crate) type Step3 = std::result::Result<(u32, u32, u32), Full>;

impl Manager {
    /// `(f ∧ g, f ∧ ¬g ∧ h, f ∧ ¬g ∧ ¬h)` in one traversal (see the module
    /// documentation).
    pub fn split3(&mut self, f: Bdd, g: Bdd, h: Bdd) -> Result<(Bdd, Bdd, Bdd)> {
        self.debug_check(&[f, g, h]);
        self.split3_cache.fit(self.cache.len() / self.config.split3_cache_ratio.max(1));
        let r = match self.threads() {
            1 => split3(Seq::new(self), f.0, g.0, h.0, 0),
            _ => self.parallel(|s| split3(s, f.0, g.0, h.0, 0)),
        };
        r.map(|(w, d, l)| (Bdd(w), Bdd(d), Bdd(l))).map_err(|_| self.limit_error())
    }

    /// The steps of [`Manager::split3`] that need no three-way recursion
    /// (`None` for the others).
    #[inline(always)]
    pub(crate) fn split3_terminal_case(f: u32, g: u32, h: u32) -> Option<Shortcut> {
        Some(match (f, g, h) {
            (0, _, _) => Shortcut::Done((0, 0, 0)),
            _ if g == 1 || f == g => Shortcut::Done((f, 0, 0)),
            (_, 0, _) => Shortcut::Split(f, h, Halves::DrawnLost),
            _ if h == 0 || g == h => Shortcut::Split(f, g, Halves::WonLost),
            _ if h == 1 || f == h => Shortcut::Split(f, g, Halves::WonDrawn),
            _ => return None,
        })
    }
}

/// `(f ∧ g, f ∧ ¬g ∧ h, f ∧ ¬g ∧ ¬h)` in one traversal.
pub(crate) fn split3<R: Recursor>(r: R, f: u32, g: u32, h: u32, depth: u32) -> Step3 {
    match Manager::split3_terminal_case(f, g, h) {
        Some(Shortcut::Done(x)) => return Ok(x),
        Some(Shortcut::Split(a, b, halves)) => return Ok(place(split(r, a, b, depth)?, halves)),
        None => {}
    }
    let hit = r.split3_cache().get(f, g, h);
    r.count(Op::Split3, hit.is_some());
    if let Some(x) = hit {
        return Ok(x);
    }
    let level = r.level(f).min(r.level(g)).min(r.level(h));
    let (f0, f1) = r.cofactors(f, level);
    let (g0, g1) = r.cofactors(g, level);
    let (h0, h1) = r.cofactors(h, level);
    if Manager::split3_terminal_case(f1, g1, h1).is_none() {
        r.split3_cache().prefetch(f1, g1, h1);
        [f1, g1, h1].into_iter().for_each(|x| r.prefetch_node(x));
    }
    let (low, high) =
        r.both(depth, move || split3(r, f0, g0, h0, depth + 1), move || split3(r, f1, g1, h1, depth + 1))?;
    let operands = [(f, (f0, f1)), (g, (g0, g1)), (h, (h0, h1))];
    let x = join3(low, high, operands, |low, high, ops| r.mk_known(level, low, high, ops))?;
    r.split3_cache().put(f, g, h, x);
    Ok(x)
}

/// An operand and its cofactors at a step's level.
type Cofactored = (u32, (u32, u32));

/// The three results of a step from those of its halves, each node made by
/// `mk` (a `mk_known` at the step's level), which is told the operands the
/// result may equal: won may be `f` or `g`, drawn `f` or `h`, lost only `f`.
#[inline(always)]
pub(crate) fn join3(
    low: (u32, u32, u32),
    high: (u32, u32, u32),
    [fc, gc, hc]: [Cofactored; 3],
    mut mk: impl FnMut(u32, u32, [Cofactored; 2]) -> std::result::Result<u32, Full>,
) -> Step3 {
    Ok((mk(low.0, high.0, [fc, gc])?, mk(low.1, high.1, [fc, hc])?, mk(low.2, high.2, [fc, fc])?))
}

/// A step of [`Manager::split3`] without three-way recursion.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shortcut {
    /// The results themselves.
    Done((u32, u32, u32)),
    /// `split(a, b)`, its halves placed as the third field says.
    Split(u32, u32, Halves),
}

/// Where the halves of a two-way split go in a three-way result.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Halves {
    /// `g` is false: `split(f, h)` gives drawn and lost.
    DrawnLost,
    /// `h` is false or equals `g`: `split(f, g)` gives won and lost.
    WonLost,
    /// `h` is true or equals `f`: `split(f, g)` gives won and drawn.
    WonDrawn,
}

/// A two-way split's halves `(a, d)` in their places.
#[inline(always)]
pub(crate) fn place((a, d): (u32, u32), halves: Halves) -> (u32, u32, u32) {
    match halves {
        Halves::DrawnLost => (0, a, d),
        Halves::WonLost => (a, 0, d),
        Halves::WonDrawn => (a, d, 0),
    }
}
