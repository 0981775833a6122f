//! Model counting over a chosen variable set, node counts, evaluation, support.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::manager::{Manager, VarSet};
use super::node::{Bdd, Node, Var};

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
        // rank[level] = number of member levels above `level`; the terminal
        // level ranks after all members.
        let mut rank = Vec::with_capacity(self.var_count() + 1);
        let mut k = 0;
        for level in 0..self.var_count() {
            rank.push(k);
            if set.member.get(level).copied().unwrap_or(false) {
                k += 1;
            }
        }
        rank.push(set.levels.len() as u32);
        let index = vec![0; self.table.nodes.len()];
        SatCounter { manager: self, over, rank, index, counts: Vec::new() }
    }

    /// Number of internal nodes of `f` (terminals not counted).
    pub fn node_count(&self, f: Bdd) -> usize {
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

    /// The value of `f` under an assignment indexed by variable.
    ///
    /// # Panics
    /// If the assignment is shorter than the number of variables `f` tests.
    pub fn eval(&self, f: Bdd, assignment: &[bool]) -> bool {
        let mut g = f.0;
        while g > 1 {
            let n = self.node(g);
            let var = self.var_at(super::node::Level(n.level));
            g = if assignment[var.0 as usize] { n.high } else { n.low };
        }
        g == 1
    }

    /// The variables `f` depends on, in level order.
    pub fn support(&self, f: Bdd) -> Vec<Var> {
        let mut levels: FxHashSet<u32> = FxHashSet::default();
        let mut seen: FxHashSet<u32> = FxHashSet::default();
        let mut stack = vec![f.0];
        while let Some(g) = stack.pop() {
            if g > 1 && seen.insert(g) {
                let n = self.node(g);
                levels.insert(n.level);
                stack.extend([n.low, n.high]);
            }
        }
        let mut levels: Vec<u32> = levels.into_iter().collect();
        levels.sort_unstable();
        levels.into_iter().map(|l| self.var_at(super::node::Level(l))).collect()
    }
}

/// `base * 2^gap`, panicking if it does not fit in a `u128`.
fn shl_exact(base: u128, gap: u32) -> u128 {
    if base == 0 {
        return 0;
    }
    match base.checked_shl(gap) {
        Some(v) if gap < 128 && v >> gap == base => v,
        _ => panic!("sat_count overflows u128"),
    }
}

/// Model counting with a memo shared across calls (see [`Manager::counter`]).
///
/// Invariant: for a visited node `g`, `index[g] = k + 1` and `counts[k]` is
/// the number of assignments to the counted variables at or below `g`'s level
/// that satisfy `g`; `index[g] = 0` for nodes not visited yet. The index is
/// dense over the node table (4 bytes per slot, allocated zeroed: pages never
/// touched cost nothing).
pub struct SatCounter<'a> {
    manager: &'a Manager,
    over: VarSet,
    /// Per level (and one past the last for terminals): counted levels above it.
    rank: Vec<u32>,
    index: Vec<u32>,
    counts: Vec<u128>,
}

impl SatCounter<'_> {
    /// The number of assignments to the counted variables that satisfy `f`.
    ///
    /// # Panics
    /// As [`Manager::sat_count`].
    pub fn count(&mut self, f: Bdd) -> u128 {
        if let Some(pool) = &self.manager.pool {
            pool.install(|| self.count_new_parallel(f.0));
            return self.scaled(f.0, 0);
        }
        let m = self.manager;
        // Post-order walk: (node, children done).
        let mut stack = vec![(f.0, false)];
        while let Some((g, expanded)) = stack.pop() {
            if g <= 1 || (!expanded && self.index[g as usize] != 0) {
                continue;
            }
            let n = m.node(g);
            if !expanded {
                stack.push((g, true));
                stack.push((n.low, false));
                stack.push((n.high, false));
                continue;
            }
            let count = self.node_count_of(&self.counts, n);
            self.counts.push(count);
            self.index[g as usize] = self.counts.len() as u32;
        }
        self.scaled(f.0, 0)
    }

    /// The count of a node whose children are counted.
    ///
    /// # Panics
    /// As [`Manager::sat_count`].
    fn node_count_of(&self, counts: &[u128], n: Node) -> u128 {
        let m = self.manager;
        assert!(
            m.var_sets[self.over.0 as usize].member.get(n.level as usize).copied().unwrap_or(false),
            "sat_count: the BDD depends on variable {} outside the counted set",
            m.var_at(super::node::Level(n.level)).0
        );
        let own = self.rank[n.level as usize];
        let child = |c: u32| self.scaled_in(counts, c, own + 1);
        child(n.low).checked_add(child(n.high)).expect("sat_count overflows u128")
    }

    /// Count the nodes below `f` not counted yet, on the current rayon pool:
    /// collect them with their levels (claiming each in `index` by a
    /// compare-and-swap), order them deepest level first (a counting sort),
    /// number them in that order, then count one level at a time, every node
    /// of a level in parallel (its children are deeper, so already counted).
    fn count_new_parallel(&mut self, f: u32) {
        let nodes = &self.manager.table.nodes;
        let found = {
            // SAFETY: AtomicU32 has the layout of u32; `index` is accessed
            // only through this view until the collection ends.
            let index = unsafe { &*(self.index.as_mut_slice() as *mut [u32] as *const [AtomicU32]) };
            let mut out = Vec::new();
            collect_uncounted(nodes, index, f, 0, &mut out);
            out
        };
        let mut width = vec![0usize; self.manager.var_count()];
        for &(level, _) in &found {
            width[level as usize] += 1;
        }
        // first[level]: where the level's nodes start, the deepest level first.
        let mut first = vec![0usize; width.len()];
        let mut at = 0;
        for level in (0..width.len()).rev() {
            first[level] = at;
            at += width[level];
        }
        let mut ids = vec![0u32; found.len()];
        let mut next = first.clone();
        for &(level, g) in &found {
            ids[next[level as usize]] = g;
            next[level as usize] += 1;
        }
        drop(found);
        let base = self.counts.len();
        for (j, &g) in ids.iter().enumerate() {
            self.index[g as usize] = (base + j + 1) as u32;
        }
        self.counts.resize(base + ids.len(), 0);
        let mut counts = std::mem::take(&mut self.counts);
        for level in (0..width.len()).rev().filter(|&l| width[l] > 0) {
            let range = first[level]..first[level] + width[level];
            let (deeper, this_level) = counts.split_at_mut(base + range.start);
            let this = &*self;
            this_level[..range.len()]
                .par_iter_mut()
                .zip(&ids[range])
                .for_each(|(c, &g)| *c = this.node_count_of(deeper, nodes[g as usize]));
        }
        self.counts = counts;
    }

    /// Distinct internal nodes visited so far, over all counted BDDs.
    pub fn visited(&self) -> usize {
        self.counts.len()
    }

    /// The count of the terminal or already counted node `c` over the counted
    /// variables of rank `from` and below (`from` at most `c`'s rank): the
    /// skipped variables above `c` are free.
    fn scaled(&self, c: u32, from: u32) -> u128 {
        self.scaled_in(&self.counts, c, from)
    }

    /// [`SatCounter::scaled`] with the counts of `c` and what it reaches in `counts`.
    fn scaled_in(&self, counts: &[u128], c: u32, from: u32) -> u128 {
        let base = if c <= 1 { c as u128 } else { counts[self.index[c as usize] as usize - 1] };
        let level = self.manager.level(c) as usize;
        shl_exact(base, self.rank[level.min(self.rank.len() - 1)] - from)
    }
}

/// `index` value of a node claimed by the parallel collection.
const CLAIMED: u32 = u32::MAX;

/// Append to `out` every internal node reachable from `f` whose `index` is
/// 0, with its level, claiming it (0 -> CLAIMED): in parallel tasks near the
/// top, below them with an explicit stack.
fn collect_uncounted(nodes: &[Node], index: &[AtomicU32], f: u32, depth: u32, out: &mut Vec<(u32, u32)>) {
    let claim = |g: u32| {
        g > 1
            && index[g as usize].load(Ordering::Relaxed) == 0
            && index[g as usize].compare_exchange(0, CLAIMED, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    };
    if depth < super::par::SPAWN_DEPTH {
        if claim(f) {
            let n = nodes[f as usize];
            out.push((n.level, f));
            let below = |g: u32| {
                let mut v = Vec::new();
                collect_uncounted(nodes, index, g, depth + 1, &mut v);
                v
            };
            let (a, b) = rayon::join(|| below(n.low), || below(n.high));
            out.extend(a);
            out.extend(b);
        }
        return;
    }
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        if claim(g) {
            let n = nodes[g as usize];
            out.push((n.level, g));
            stack.extend([n.low, n.high]);
        }
    }
}
