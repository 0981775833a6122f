//! Model counting over a chosen variable set, node counts, evaluation, support.

use rustc_hash::{FxHashMap, FxHashSet};

use super::manager::{Manager, VarSet};
use super::node::{Bdd, Var};

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
        let set = &self.var_sets[over.0 as usize];
        // rank[level] = number of member levels above `level`.
        let mut rank = vec![0u32; self.var_count() + 1];
        let mut k = 0;
        for (level, r) in rank.iter_mut().enumerate() {
            *r = k;
            if set.member.get(level).copied().unwrap_or(false) {
                k += 1;
            }
        }
        let total = set.levels.len() as u32;
        let rank_of = |level: u32| {
            if level as usize >= self.var_count() {
                total
            } else {
                rank[level as usize]
            }
        };
        let mut memo: FxHashMap<u32, u128> = FxHashMap::default();
        // Post-order walk: (node, children done). memo[g] counts assignments
        // to the members at or below g's level.
        let mut stack = vec![(f.0, false)];
        while let Some((g, expanded)) = stack.pop() {
            if g <= 1 || (!expanded && memo.contains_key(&g)) {
                continue;
            }
            let n = self.node(g);
            if !expanded {
                stack.push((g, true));
                stack.push((n.low, false));
                stack.push((n.high, false));
                continue;
            }
            assert!(
                set.member.get(n.level as usize).copied().unwrap_or(false),
                "sat_count: the BDD depends on variable {} outside the counted set",
                self.var_at(super::node::Level(n.level)).0
            );
            let own = rank_of(n.level);
            let part = |c: u32| -> u128 {
                let base = if c <= 1 { c as u128 } else { memo[&c] };
                shl_exact(base, rank_of(self.level(c)) - own - 1)
            };
            let count = part(n.low).checked_add(part(n.high)).expect("sat_count overflows u128");
            memo.insert(g, count);
        }
        let base = if f.0 <= 1 { f.0 as u128 } else { memo[&f.0] };
        (shl_exact(base, rank_of(self.level(f.0))), memo.len())
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
