//! Model counting over a chosen variable set, node counts, evaluation, support.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::bits::{self, Disjoint, Rank};
use crate::manager::{run_on, Manager, VarSet};
use crate::store::node::{Bdd, Node, Var};
use crate::store::pages::PAGE_WORDS;

impl Manager {
    /// The number of assignments to the variables of `over` that satisfy `f`.
    ///
    /// This is the paper's state count: with two frames of variables, counting
    /// over one frame counts states while the other frame is absent from `f`.
    ///
    /// # Panics
    /// If `f` depends on a variable outside `over` (the count would not be
    /// defined), or if the count does not fit in a `u128` (more than 127
    /// variables in `over` and almost all assignments satisfying `f`).
    pub fn sat_count(&self, f: Bdd, over: VarSet) -> u128 {
        self.debug_check(&[f]);
        self.sat_count_and_size(f, over).0
    }

    /// [`Manager::sat_count`] and [`Manager::node_count`] of `f` in one traversal.
    ///
    /// # Panics
    /// As [`Manager::sat_count`].
    pub fn sat_count_and_size(&self, f: Bdd, over: VarSet) -> (u128, usize) {
        let mut counter = self.counter(over);
        (counter.count(f), counter.visited())
    }

    /// A model counter over `over` whose memo is shared by every BDD it
    /// counts: counting several BDDs that share nodes visits each node once.
    pub fn counter(&self, over: VarSet) -> SatCounter<'_> {
        let set = &self.var_sets[over.0 as usize];
        // above[level] = number of member levels above `level`; the terminal
        // level comes after all members.
        let mut above = Vec::with_capacity(self.var_count() + 1);
        let mut k = 0;
        for level in 0..self.var_count() {
            above.push(k);
            if set.member.get(level).copied().unwrap_or(false) {
                k += 1;
            }
        }
        above.push(set.levels.len() as u32);
        let marks = vec![0; bits::words(self.table.slots())];
        SatCounter { manager: self, over, above, marks, marked: 0, counts: None }
    }

    /// Number of internal nodes of `f` (terminals not counted).
    pub fn node_count(&self, f: Bdd) -> usize {
        self.debug_check(&[f]);
        self.node_count_many(&[f])
    }

    /// Number of distinct internal nodes reachable from any of `fs` (shared
    /// nodes are counted once; terminals are not counted).
    pub fn node_count_many(&self, fs: &[Bdd]) -> usize {
        let mut seen: FxHashSet<u32> = FxHashSet::default();
        let mut stack: Vec<u32> = fs.iter().map(|f| f.0).filter(|&f| f > 1).collect();
        while let Some(g) = stack.pop() {
            if seen.insert(g) {
                let n = self.node(g);
                stack.extend([n.low, n.high].into_iter().filter(|&c| c > 1));
            }
        }
        seen.len()
    }

    /// The internal nodes `f` would have in a BDD with complement edges (one
    /// terminal; an edge may negate the function it points to, a low edge
    /// never does): its distinct sub-functions that depend on their top
    /// variable, a sub-function and its negation counted once. `node_count(f)`
    /// less this is what complement edges would save on `f`.
    pub fn complement_edge_size(&self, f: Bdd) -> usize {
        // Per visited node: (its class, whether it is the class's negation);
        // the terminals are class 0, FALSE its negation.
        let mut class: FxHashMap<u32, (u32, bool)> = FxHashMap::default();
        let mut classes: FxHashMap<(u32, u32, u32, bool), u32> = FxHashMap::default();
        let mut stack = vec![(f.0, false)];
        while let Some((g, children_done)) = stack.pop() {
            if g <= 1 || class.contains_key(&g) {
                continue;
            }
            let n = self.node(g);
            if !children_done {
                stack.extend([(g, true), (n.low, false), (n.high, false)]);
                continue;
            }
            let of = |c: u32| if c <= 1 { (0, c == 0) } else { class[&c] };
            let (low, high) = (of(n.low), of(n.high));
            // A negated low edge is moved up: (x, ¬a, b) = ¬(x, a, ¬b).
            let next = classes.len() as u32 + 1;
            let id = *classes.entry((n.level, low.0, high.0, high.1 != low.1)).or_insert(next);
            class.insert(g, (id, low.1));
        }
        classes.len()
    }

    /// The value of `f` under an assignment indexed by variable.
    ///
    /// # Panics
    /// If the assignment is shorter than the number of variables `f` tests.
    pub fn eval(&self, f: Bdd, assignment: &[bool]) -> bool {
        self.debug_check(&[f]);
        let mut g = f.0;
        while g > 1 {
            let n = self.node(g);
            let var = self.var_at(crate::store::node::Level(n.level));
            g = if assignment[var.0 as usize] { n.high } else { n.low };
        }
        g == 1
    }

    /// The variables `f` depends on, in level order.
    pub fn support(&self, f: Bdd) -> Vec<Var> {
        self.support_of(&[f])
    }

    /// The variables any of `fs` depends on, in level order. Their nodes are
    /// marked in one bit vector over the node table's slots (a bit a slot, as
    /// the collector marks them), then the marked nodes' levels are read off.
    pub fn support_of(&self, fs: &[Bdd]) -> Vec<Var> {
        let mut bits = vec![0u64; bits::words(self.table.slots())];
        self.mark_from(&mut bits, &fs.iter().map(|f| f.0).collect::<Vec<_>>());
        let mut tested = vec![false; self.var_count()];
        for g in bits::set_slots(&bits, 0) {
            tested[self.node(g).level as usize] = true;
        }
        let levels = tested.iter().enumerate().filter(|&(_, &t)| t);
        levels.map(|(level, _)| self.var_at(crate::store::node::Level(level as u32))).collect()
    }
}

/// A model count held in the memo: `u64` while every node's count fits,
/// else `u128` (a memo entry is then twice the size).
trait Count: Copy + Default + Send + Sync {
    fn of_terminal(t: u32) -> Self;
    fn plus(self, other: Self) -> Option<Self>;
    /// `self * 2^gap`, or `None` if it does not fit.
    fn times_pow2(self, gap: u32) -> Option<Self>;
    fn wide(self) -> u128;
}

macro_rules! count_int {
    ($t:ty) => {
        impl Count for $t {
            fn of_terminal(t: u32) -> $t {
                t as $t
            }
            fn plus(self, other: $t) -> Option<$t> {
                <$t>::checked_add(self, other)
            }
            fn times_pow2(self, gap: u32) -> Option<$t> {
                match self {
                    0 => Some(0),
                    _ if gap >= <$t>::BITS || self.leading_zeros() < gap => None,
                    _ => Some(self << gap),
                }
            }
            fn wide(self) -> u128 {
                self as u128
            }
        }
    };
}
count_int!(u64);
count_int!(u128);

/// The memo's counts, in the order of the marked nodes' indices.
enum Counts {
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
}

/// Model counting with a memo shared by every BDD it counts: counting
/// several BDDs that share nodes visits each node once when all are added
/// before the first count (a BDD with new nodes counted later recomputes
/// the memo).
///
/// Invariants: `marks` has the bit of every internal node reachable from a
/// BDD added so far, `marked` of them; when `counts` is `Some`, it holds per
/// marked node, at the node's position among the marked ones (`rank`), the
/// number of assignments to the counted variables at or below its level
/// that satisfy it. The memo costs 1 bit per slot of the node table, half a
/// bit for the rank and 8 bytes per marked node (16 when a count needs more
/// than 64 bits).
pub struct SatCounter<'a> {
    manager: &'a Manager,
    over: VarSet,
    /// Per level (and one past the last for terminals): counted levels above it.
    above: Vec<u32>,
    marks: Vec<u64>,
    marked: usize,
    counts: Option<(Rank, Counts)>,
}

impl SatCounter<'_> {
    /// Add the nodes of `f` to the memo (counted at the next [`SatCounter::count`]).
    pub fn add(&mut self, f: Bdd) {
        let new = self.manager.mark_from(&mut self.marks, &[f.0]);
        if new > 0 {
            self.marked += new;
            self.counts = None;
        }
    }

    /// The number of assignments to the counted variables that satisfy `f`.
    ///
    /// # Panics
    /// As [`Manager::sat_count`].
    pub fn count(&mut self, f: Bdd) -> u128 {
        self.add(f);
        if self.counts.is_none() {
            let rank = Rank::new(&self.marks);
            let counts = match self.compute::<u64>(&rank) {
                Some(narrow) => Counts::Narrow(narrow),
                None => Counts::Wide(self.compute::<u128>(&rank).expect("sat_count overflows u128")),
            };
            self.counts = Some((rank, counts));
        }
        let (rank, counts) = self.counts.as_ref().expect("computed above");
        let base = match counts {
            Counts::Narrow(c) => self.base(rank, f.0, |i| c[i]).wide(),
            Counts::Wide(c) => self.base(rank, f.0, |i| c[i]),
        };
        base.times_pow2(self.gap(f.0, 0)).expect("sat_count overflows u128")
    }

    /// Distinct internal nodes added so far, over all BDDs.
    pub fn visited(&self) -> usize {
        self.marked
    }

    /// The counts of all marked nodes, or `None` if one does not fit in `C`:
    /// one level at a time from the deepest, each node from its children's
    /// counts; a level's nodes are those of its pages (`pages.rs`), its pages
    /// in parallel on the manager's pool.
    fn compute<C: Count>(&self, rank: &Rank) -> Option<Vec<C>> {
        let m = self.manager;
        let nodes = m.table.nodes();
        let mut counts = vec![C::default(); self.marked];
        let memo = Disjoint::new(&mut counts);
        for pages in nodes.pages_by_level(m.var_count()).iter().rev().filter(|p| !p.is_empty()) {
            // The marked nodes of one page, each from its children's counts
            // (at deeper levels) into its own position.
            let one = |&p: &u32| -> Option<()> {
                let first = p as usize * PAGE_WORDS;
                for g in bits::set_slots(&self.marks[first..first + PAGE_WORDS], first) {
                    // SAFETY: a child's position was written in an earlier
                    // level's section, which ended before this one began.
                    let v = self.node_count_of(rank, nodes.get(g), |i| unsafe { memo.get(i) })?;
                    // SAFETY: distinct nodes have distinct positions, and this
                    // level's positions are read by no task of this level.
                    unsafe { memo.set(rank.position(&self.marks, g), v) };
                }
                Some(())
            };
            run_on(m.pool.as_deref(), |parallel| {
                if parallel {
                    pages.par_iter().try_for_each(one)
                } else {
                    pages.iter().try_for_each(one)
                }
            })?;
        }
        Some(counts)
    }

    /// The count of a node whose children are counted (`get` reads the
    /// memo at a position), `None` if it does not fit.
    ///
    /// # Panics
    /// If the node's variable is outside the counted set.
    fn node_count_of<C: Count>(&self, rank: &Rank, n: Node, get: impl Fn(usize) -> C) -> Option<C> {
        let m = self.manager;
        assert!(
            m.var_sets[self.over.0 as usize].member.get(n.level as usize).copied().unwrap_or(false),
            "sat_count: the BDD depends on variable {} outside the counted set",
            m.var_at(crate::store::node::Level(n.level)).0
        );
        let own = self.above[n.level as usize] + 1;
        let child = |c: u32| self.base(rank, c, &get).times_pow2(self.gap(c, own));
        child(n.low)?.plus(child(n.high)?)
    }

    /// The memo's count of the terminal or counted node `c` (`get` reads
    /// the memo at a position).
    fn base<C: Count>(&self, rank: &Rank, c: u32, get: impl Fn(usize) -> C) -> C {
        if c <= 1 {
            C::of_terminal(c)
        } else {
            get(rank.position(&self.marks, c))
        }
    }

    /// Counted variables from the `from`-th down to `c`'s level, exclusive.
    fn gap(&self, c: u32, from: u32) -> u32 {
        let level = self.manager.level(c) as usize;
        self.above[level.min(self.above.len() - 1)] - from
    }
}
