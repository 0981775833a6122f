//! The order in which [`Manager::save_to`] writes a file's nodes: level by
//! level from the bottom up, so that every node's children come before it
//! and a loader can look up a whole level's nodes ahead of their insertion.
//!
//! Within a level the nodes follow a breadth-first walk from the roots: the
//! roots (in their order) on their levels first, then, level by level from
//! the top, the low and then the high child of each node met for the first
//! time, in the order their parents were met. The order, and so the file's
//! bytes, depends only on the BDDs, not on where their nodes live.
//!
//! Both walks read nodes at random: each hints the records of the nodes
//! [`AHEAD`] places later in its level, the bits of their children half as
//! far ahead (and, writing, the children's file indices a quarter as far), so
//! that many memory reads are under way at once instead of one.

use crate::bits::{self, Rank};
use crate::files::io::FileIndex;
use crate::manager::Manager;
use crate::prefetch::prefetch;
use crate::store::node::{Bdd, Level, Var};
use crate::store::pages::Nodes;

/// How many nodes ahead in its level a walk hints a node's record.
const AHEAD: usize = 16;

/// The nodes below some roots, per level in the order of the module
/// documentation, and the set of their slots. Invariant: each internal node
/// below the roots is in `levels[its level]` exactly once, and its bit is set
/// in `bits`; no other bit is set.
pub(crate) struct LevelOrder {
    pub levels: Vec<Vec<u32>>,
    pub bits: Vec<u64>,
    pub count: usize,
}

/// Set slot `g`'s bit; whether it was clear.
#[inline(always)]
fn claim(bits: &mut [u64], g: u32) -> bool {
    let (w, bit) = (g as usize / 64, 1u64 << (g % 64));
    let clear = bits[w] & bit == 0;
    bits[w] |= bit;
    clear
}

/// Hint the word of `bits` that holds slot `g`'s bit.
#[inline(always)]
pub(super) fn prefetch_bit(bits: &[u64], g: u32) {
    if let Some(w) = bits.get(g as usize / 64) {
        prefetch(w);
    }
}

impl LevelOrder {
    /// Walk the nodes below `roots` (see the module documentation).
    pub fn walk(nodes: Nodes, var_count: usize, roots: &[Bdd]) -> LevelOrder {
        let mut order =
            LevelOrder { levels: vec![Vec::new(); var_count], bits: vec![0; bits::words(nodes.slots())], count: 0 };
        for r in roots {
            order.meet(nodes, r.0);
        }
        for level in 0..var_count {
            // A level's nodes have their children on deeper levels, so this
            // level's list does not grow while it is walked.
            let here = std::mem::take(&mut order.levels[level]);
            for (i, &g) in here.iter().enumerate() {
                if let Some(&a) = here.get(i + AHEAD) {
                    nodes.prefetch(a);
                }
                if let Some(&b) = here.get(i + AHEAD / 2) {
                    let n = nodes.get(b);
                    prefetch_bit(&order.bits, n.low);
                    prefetch_bit(&order.bits, n.high);
                }
                let n = nodes.get(g);
                order.meet(nodes, n.low);
                order.meet(nodes, n.high);
            }
            order.levels[level] = here;
        }
        order
    }

    /// Take internal node `g` into its level's list unless it is there.
    #[inline(always)]
    fn meet(&mut self, nodes: Nodes, g: u32) {
        if g > 1 && claim(&mut self.bits, g) {
            self.levels[nodes.level(g) as usize].push(g);
            self.count += 1;
        }
    }
}

impl Manager {
    /// Call `emit` with the variable and the children's file indices of each
    /// node of `order`, level by level from the bottom: 0 and 1 are the
    /// terminals, the k-th node emitted gets index k + 2. Returns the file
    /// indices (of every node, and so of the roots); an error of `emit` ends
    /// the visit.
    pub(super) fn emit_levels(
        &self,
        order: LevelOrder,
        mut emit: impl FnMut(Var, u32, u32) -> std::io::Result<()>,
    ) -> std::io::Result<FileIndex> {
        let nodes = self.table.nodes();
        let LevelOrder { levels, bits, count } = order;
        let rank = Rank::new(&bits);
        let mut index = FileIndex { bits, rank, local: vec![0; count] };
        let mut emitted = 0u32;
        for (level, here) in levels.iter().enumerate().rev() {
            let var = self.var_at(Level(level as u32));
            for (i, &g) in here.iter().enumerate() {
                if let Some(&a) = here.get(i + AHEAD) {
                    nodes.prefetch(a);
                    index.prefetch_bit(a);
                }
                if let Some(&b) = here.get(i + AHEAD / 2) {
                    let n = nodes.get(b);
                    index.prefetch_bit(n.low);
                    index.prefetch_bit(n.high);
                }
                if let Some(&c) = here.get(i + AHEAD / 4) {
                    let n = nodes.get(c);
                    index.prefetch_entry(n.low);
                    index.prefetch_entry(n.high);
                }
                let n = nodes.get(g);
                emit(var, index.get(n.low), index.get(n.high))?;
                emitted += 1;
                index.set(g, emitted + 1);
            }
        }
        Ok(index)
    }
}
