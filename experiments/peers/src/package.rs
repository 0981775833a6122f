//! What a BDD package offers the count: the Boolean operations, the
//! relational product, and a look at a function's top node (for counting
//! its models and its nodes the same way for every package).

use std::collections::HashMap;
use std::hash::Hash;

/// A BDD package with its manager set up. Operations panic when the
/// package runs out of nodes (this program measures; it does not recover).
pub trait Package {
    /// Whether the package has the in-place relational product
    /// ([`Package::relnext`]).
    const IN_PLACE: bool = false;
    /// Whether the package runs its operations on more than one thread.
    const THREADED: bool = false;

    /// A function: a handle the package keeps alive while it exists, equal
    /// to another exactly when they are the same function (with complement
    /// edges, `f` and `¬f` differ).
    type F: Clone + Eq + Hash;

    fn constant(&self, value: bool) -> Self::F;
    /// The function of variable `v` (positive literal).
    fn var(&self, v: u32) -> Self::F;
    fn not(&self, a: &Self::F) -> Self::F;
    fn and(&self, a: &Self::F, b: &Self::F) -> Self::F;
    fn or(&self, a: &Self::F, b: &Self::F) -> Self::F;
    fn equiv(&self, a: &Self::F, b: &Self::F) -> Self::F;
    /// `∃ vars. a ∧ b`, `vars` the conjunction of the variables.
    fn and_exists(&self, a: &Self::F, b: &Self::F, vars: &Self::F) -> Self::F;
    /// The successors of `a` (over the even variables) under `rel` (over
    /// the even state and odd next-state variables, interleaved), renamed
    /// back to the even variables; `vars` the conjunction of `rel`'s
    /// variables. Only where [`Package::IN_PLACE`].
    fn relnext(&self, _a: &Self::F, _rel: &Self::F, _vars: &Self::F) -> Self::F {
        unreachable!("the package has no in-place relational product")
    }
    /// The states (over the even variables) with a successor in `set`
    /// (over the even variables too) under `rel` (as for
    /// [`Package::relnext`]). Only where [`Package::IN_PLACE`].
    fn relprev(&self, _rel: &Self::F, _set: &Self::F, _vars: &Self::F) -> Self::F {
        unreachable!("the package has no in-place relational product")
    }
    /// The top variable of `f` and its cofactors, `None` for a constant.
    fn split(&self, f: &Self::F) -> Option<(u32, Self::F, Self::F)>;
    /// Whether `f` is the constant true.
    fn is_true(&self, f: &Self::F) -> bool;
    /// The models of `f` over variables `0, step, 2 step, ..` (`n` of them),
    /// which are all `f` mentions ([`models_of`] over [`Package::split`]).
    fn models(&self, f: &Self::F, step: u32, n: u32) -> u128 {
        models_of(f, &|g| self.split(g), &|g| self.is_true(g), step, n)
    }
    /// The internal nodes of `f` without complement edges ([`nodes_of`]).
    fn nodes(&self, f: &Self::F) -> u64 {
        nodes_of(f, &|g| self.split(g))
    }
    /// What the package says of itself after the run (its version, its
    /// statistics), one line.
    fn report(&self) -> String;
    /// The nodes the package holds now, by its own count, where asking
    /// changes nothing (the count takes their most at the end of each ply);
    /// `None` for a package that keeps its own peak ([`Package::peak_nodes`]).
    fn nodes_held(&self) -> Option<u64>;
    /// The package's own peak of live nodes, where it keeps one.
    fn peak_nodes(&self) -> Option<u64> {
        None
    }
    /// Seconds spent collecting garbage, where the package counts them.
    fn gc_seconds(&self) -> Option<f64>;
}

/// The models of `root` over variables `0, step, 2 step, ..` (`n` of
/// them), which are all it mentions: exact, whatever the package counts in.
/// `split` gives a node's top variable and cofactors (`None` for a
/// constant), `is_true` tells the constant true.
pub fn models_of<K: Clone + Eq + Hash>(
    root: &K,
    split: &impl Fn(&K) -> Option<(u32, K, K)>,
    is_true: &impl Fn(&K) -> bool,
    step: u32,
    n: u32,
) -> u128 {
    /// The top level of `f` and its models over the levels from there.
    fn walk<K: Clone + Eq + Hash>(
        f: &K,
        split: &impl Fn(&K) -> Option<(u32, K, K)>,
        is_true: &impl Fn(&K) -> bool,
        step: u32,
        n: u32,
        memo: &mut HashMap<K, (u32, u128)>,
    ) -> (u32, u128) {
        if let Some(&r) = memo.get(f) {
            return r;
        }
        let r = match split(f) {
            None => (n, u128::from(is_true(f))),
            Some((v, low, high)) => {
                let k = v / step;
                let scaled = |(at, c): (u32, u128)| c << (at - k - 1);
                let c = scaled(walk(&low, split, is_true, step, n, memo))
                    + scaled(walk(&high, split, is_true, step, n, memo));
                (k, c)
            }
        };
        memo.insert(f.clone(), r);
        r
    }
    let (top, c) = walk(root, split, is_true, step, n, &mut HashMap::new());
    c << top
}

/// The internal nodes of `root` as a BDD without complement edges (the
/// same figure for every package, and c4bdd's `bdd_nodes`), `split` as for
/// [`models_of`].
pub fn nodes_of<K: Clone + Eq + Hash>(root: &K, split: &impl Fn(&K) -> Option<(u32, K, K)>) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![root.clone()];
    while let Some(g) = stack.pop() {
        if let Some((_, low, high)) = split(&g) {
            if seen.insert(g) {
                stack.extend([low, high]);
            }
        }
    }
    seen.len() as u64
}
