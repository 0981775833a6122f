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
//! Its computed table is its own: a step has three node operands and three
//! results. An entry is 32 bytes, two 16-byte atomic words, `(f, g, h, won)`
//! and `(drawn, lost, seq)`, written under a sequence lock (`seq` odd while a
//! writer holds it): a reader takes an entry only if `seq` is even and
//! unchanged around its read of the key word, so it never combines two
//! writes. The table holds a sixteenth as many entries as the main cache (an
//! eighth of its bytes) and is emptied by every collection, so no entry
//! names a freed node.

use std::sync::atomic::Ordering;

use portable_atomic::AtomicU128;
use rayon::prelude::*;

use super::apply::split;
use super::cache::Op;
use super::manager::Manager;
use super::node::Bdd;
use super::recursor::{Recursor, Seq};
use super::unique::Full;
use crate::error::Result;

/// The result of a recursive three-way step.
pub(crate) type Step3 = std::result::Result<(u32, u32, u32), Full>;

#[repr(C, align(32))]
#[derive(Default)]
struct Slot {
    /// `f | g << 32 | h << 64 | won << 96`.
    key: AtomicU128,
    /// `drawn | lost << 32 | seq << 64`.
    rest: AtomicU128,
}

/// The three-way split's computed table (see the module documentation).
#[derive(Default)]
pub(crate) struct Split3Cache {
    slots: Vec<Slot>,
    shift: u32,
}

const SEQ_ONE: u128 = 1 << 64;

/// The main cache's entries per entry of the three-way split's table. The
/// 6x4 solve takes 9% more three-way steps with a sixteenth than with as
/// many entries as the main cache: most of its steps are distinct.
pub(crate) const SPLIT3_CACHE_DIVISOR: usize = 16;

impl Split3Cache {
    /// Hold `len` entries (a power of two, at least 256), emptied if the size changes.
    pub fn fit(&mut self, len: usize) {
        let len = len.next_power_of_two().max(256);
        if self.slots.len() != len {
            self.slots = Vec::new();
            self.slots = (0..len).map(|_| Slot::default()).collect();
            self.shift = 64 - len.trailing_zeros();
        }
    }

    /// Forget every entry (with `parallel`, on the current rayon pool).
    pub fn clear(&mut self, parallel: bool) {
        let empty = |chunk: &mut [Slot]| chunk.iter_mut().for_each(|s| *s = Slot::default());
        if parallel {
            self.slots.par_chunks_mut(1 << 15).for_each(empty);
        } else {
            empty(&mut self.slots);
        }
    }

    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    #[inline(always)]
    fn slot(&self, f: u32, g: u32, h: u32) -> &Slot {
        let x = (f as u64 | (g as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (h as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let i = ((x ^ (x >> 32)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> self.shift) as usize;
        &self.slots[i]
    }

    /// The cached results of `split3(f, g, h)` (`f` is never FALSE, so an
    /// empty entry matches no step).
    #[inline]
    pub fn get(&self, f: u32, g: u32, h: u32) -> Option<(u32, u32, u32)> {
        let s = self.slot(f, g, h);
        let before = s.rest.load(Ordering::Acquire);
        if before & SEQ_ONE != 0 {
            return None;
        }
        let key = s.key.load(Ordering::Acquire);
        if s.rest.load(Ordering::Acquire) != before {
            return None;
        }
        let key_of = f as u128 | (g as u128) << 32 | (h as u128) << 64;
        (key & !(u128::from(u32::MAX) << 96) == key_of).then_some((
            (key >> 96) as u32,
            before as u32,
            (before >> 32) as u32,
        ))
    }

    /// Remember `split3(f, g, h) = r` (skipped while another writer holds the entry).
    #[inline]
    pub fn put(&self, f: u32, g: u32, h: u32, r: (u32, u32, u32)) {
        let s = self.slot(f, g, h);
        let before = s.rest.load(Ordering::Relaxed);
        if before & SEQ_ONE != 0 {
            return;
        }
        let seq = before >> 64;
        if s.rest.compare_exchange(before, before + SEQ_ONE, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return;
        }
        s.key.store(f as u128 | (g as u128) << 32 | (h as u128) << 64 | (r.0 as u128) << 96, Ordering::Release);
        s.rest.store(r.1 as u128 | (r.2 as u128) << 32 | (seq + 2) << 64, Ordering::Release);
    }
}

impl Manager {
    /// `(f ∧ g, f ∧ ¬g ∧ h, f ∧ ¬g ∧ ¬h)` in one traversal (see the module
    /// documentation).
    pub fn split3(&mut self, f: Bdd, g: Bdd, h: Bdd) -> Result<(Bdd, Bdd, Bdd)> {
        self.split3_cache.fit(self.cache.len() / SPLIT3_CACHE_DIVISOR);
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
