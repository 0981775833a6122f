//! A registered pairing's tables: which pair each level belongs to, and
//! the identity relation of each suffix of pairs (see `pairing.rs`).

use crate::store::node::TERMINAL_LEVEL;

/// A registered pairing of variables for [`Manager::image`](crate::Manager::image) and
/// [`Manager::preimage`](crate::Manager::preimage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pairing(pub(crate) u32);

pub(crate) struct PairingData {
    /// `pair[level]`: the pair a level belongs to, or `NO_PAIR`.
    pub(crate) pair: Vec<u32>,
    /// Per pair, in level order: the upper level (the lower one is next).
    pub(crate) upper: Vec<u32>,
    /// `identity[p]`: the relation `x_q = y_q` for every pair `q >= p`
    /// (`identity[pairs] = true`); pinned while the pairing is registered,
    /// empty once it is released.
    pub(crate) identity: Vec<u32>,
}

impl PairingData {
    /// The start of an in-place product step `(f, t)`: `Err(r)` when its
    /// result `r` needs no recursion, else `Ok(x)`, the upper level to split at.
    #[inline(always)]
    pub(crate) fn step_start(&self, f: u32, t: u32, level: impl Fn(u32) -> u32) -> Result<u32, u32> {
        if f == 0 || t == 0 {
            return Err(0);
        }
        let p = self.pair_of_level(level(f)).min(self.pair_of_level(level(t)));
        debug_assert!(p != NO_PAIR, "a level outside the pairing");
        if t == self.identity[p as usize] {
            return Err(f);
        }
        if t == 1 {
            return Err(1);
        }
        Ok(self.upper[p as usize])
    }

    /// The pair of a level (`pairs` for the terminals' level).
    #[inline(always)]
    pub(crate) fn pair_of_level(&self, level: u32) -> u32 {
        if level == TERMINAL_LEVEL {
            self.upper.len() as u32
        } else {
            self.pair[level as usize]
        }
    }
}

pub(crate) const NO_PAIR: u32 = u32::MAX;
