//! Identifier types and the node record.
//!
//! Widths are fixed and documented: a [`Var`] and a [`Level`] fit in 16 bits of
//! meaning (at most [`MAX_VARS`] variables), a node index is a `u32`, so one
//! manager holds fewer than 2^32 nodes. A [`Node`] is the value read from the
//! arena (`pages.rs`), which stores 8 bytes a node and the level once per page.

/// Largest number of variables a manager accepts.
pub const MAX_VARS: usize = 1 << 15;

/// Level stored in the two terminal nodes: below every variable level, so that
/// `min(level(f), level(g))` picks the top variable of two operands.
pub(crate) const TERMINAL_LEVEL: u32 = u32::MAX - 1;

/// "No node": both children of a free slot's record (and of the terminals').
pub(crate) const NIL: u32 = u32::MAX;

/// A Boolean variable, named by the order in which it was created (0, 1, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Var(pub u32);

/// A position in the variable order: level 0 is tested first (the root side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Level(pub u32);

/// A handle to a BDD: the index of its root node in its manager.
///
/// A `Bdd` is plain data. It stays valid until the next garbage collection that
/// does not reach it from a pinned BDD or a root passed to
/// [`Manager::gc`](crate::Manager::gc). Handles of different managers must
/// not be mixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bdd(pub(crate) u32);

impl Bdd {
    /// The constant false function (terminal 0).
    pub const FALSE: Bdd = Bdd(0);
    /// The constant true function (terminal 1).
    pub const TRUE: Bdd = Bdd(1);

    /// Whether this is one of the two constant functions.
    #[inline]
    pub fn is_const(self) -> bool {
        self.0 <= 1
    }

    /// The raw node index, for diagnostics and hashing.
    #[inline]
    pub fn index(self) -> u32 {
        self.0
    }
}

/// One decision node: `if var(level) then high else low`, as read from the
/// arena (its record and its page's level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Node {
    pub level: u32,
    pub low: u32,
    pub high: u32,
}

impl Node {
    /// The cofactors of the function `f` whose node this is, with respect to
    /// the variable at `level <= self.level`: its children at its own level,
    /// else `f` twice (`f` does not depend on that variable).
    #[inline(always)]
    pub fn cofactors(self, f: u32, level: u32) -> (u32, u32) {
        if self.level == level {
            (self.low, self.high)
        } else {
            (f, f)
        }
    }
}

/// The node `(level, low, high)` when it is known without a unique-table
/// lookup: an operand whose cofactors at `level` are `(low, high)` with
/// `low != high` is that node (an operand below `level` has equal cofactors),
/// so the unique table would return the operand itself. An operation whose
/// result keeps an operand's sub-BDD (`f ∨ g` with `g` inside `f`) saves the
/// lookup's memory accesses this way.
#[inline(always)]
pub(crate) fn known_node(low: u32, high: u32, operands: [(u32, (u32, u32)); 2]) -> Option<u32> {
    operands.into_iter().find(|&(_, c)| c == (low, high) && c.0 != c.1).map(|(f, _)| f)
}
