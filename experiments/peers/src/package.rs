//! What a BDD package offers the count: the Boolean operations, the
//! relational product, and a look at a function's top node (for counting
//! its models and its nodes the same way for every package).

use std::collections::HashMap;
use std::hash::Hash;

/// A BDD package with its manager set up. Operations panic when the
/// package runs out of nodes (this program measures; it does not recover).
pub trait Package {
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
    /// The top variable of `f` and its cofactors, `None` for a constant.
    fn split(&self, f: &Self::F) -> Option<(u32, Self::F, Self::F)>;
    /// Whether `f` is the constant true.
    fn is_true(&self, f: &Self::F) -> bool;
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

/// The models of `f` over variables `0, step, 2 step, ..` (`n` of them),
/// which are all `f` mentions: exact, whatever the package counts in.
pub fn models<P: Package>(p: &P, f: &P::F, step: u32, n: u32) -> u128 {
    fn go<P: Package>(p: &P, f: &P::F, step: u32, n: u32, memo: &mut HashMap<P::F, (u32, u128)>) -> (u32, u128) {
        if let Some(&r) = memo.get(f) {
            return r;
        }
        let r = match p.split(f) {
            None => (n, u128::from(p.is_true(f))),
            Some((v, low, high)) => {
                let k = v / step;
                let scaled = |(at, c): (u32, u128)| c << (at - k - 1);
                let c = scaled(go(p, &low, step, n, memo)) + scaled(go(p, &high, step, n, memo));
                (k, c)
            }
        };
        memo.insert(f.clone(), r);
        r
    }
    let (top, c) = go(p, f, step, n, &mut HashMap::new());
    c << top
}

/// The internal nodes of `f` as a BDD without complement edges (the same
/// figure for every package, and c4bdd's `bdd_nodes`).
pub fn nodes<P: Package>(p: &P, f: &P::F) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![f.clone()];
    while let Some(g) = stack.pop() {
        if let Some((_, low, high)) = p.split(&g) {
            if seen.insert(g) {
                stack.extend([low, high]);
            }
        }
    }
    seen.len() as u64
}
