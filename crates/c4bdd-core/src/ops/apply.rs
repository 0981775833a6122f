//! Negation, binary Boolean operations, the two-way split and if-then-else.
//!
//! Every recursive function follows one skeleton: terminal cases, normalised
//! operands, cache lookup, cofactors at the top level, recursion, `mk`, cache
//! insert. Results are reduced and ordered because they are built with `mk`.
//! The bodies are generic over a [`Recursor`], so one body serves both the
//! sequential and the parallel operation.

use crate::cache::computed::Op;
use crate::error::Result;
use crate::manager::{Manager, Step, Step2};
use crate::parallel::recursor::{Recursor, Seq};
use crate::store::node::Bdd;

impl Manager {
    /// `¬f`.
    pub fn not(&mut self, f: Bdd) -> Result<Bdd> {
        self.debug_check(&[f]);
        let r = self.not_rec(f.0);
        self.lift(r)
    }

    /// `f ∧ g`.
    pub fn and(&mut self, f: Bdd, g: Bdd) -> Result<Bdd> {
        self.apply(Op::And, f, g)
    }

    /// `f ∨ g`.
    pub fn or(&mut self, f: Bdd, g: Bdd) -> Result<Bdd> {
        self.apply(Op::Or, f, g)
    }

    /// `f ⊕ g`.
    pub fn xor(&mut self, f: Bdd, g: Bdd) -> Result<Bdd> {
        self.apply(Op::Xor, f, g)
    }

    /// `f ∧ ¬g`.
    pub fn diff(&mut self, f: Bdd, g: Bdd) -> Result<Bdd> {
        self.apply(Op::Diff, f, g)
    }

    /// `(f ∧ g, f ∧ ¬g)`: the two halves of `f` split by `g`, in one
    /// traversal of `f` and `g` (each half is also cached as `and` / `diff`).
    pub fn split(&mut self, f: Bdd, g: Bdd) -> Result<(Bdd, Bdd)> {
        self.debug_check(&[f, g]);
        let r = match self.threads() {
            1 => split(Seq::new(self), f.0, g.0, 0),
            _ => self.parallel(|s| split(s, f.0, g.0, 0)),
        };
        r.map(|(a, d)| (Bdd(a), Bdd(d))).map_err(|_| self.limit_error())
    }

    /// `f → g`.
    pub fn imp(&mut self, f: Bdd, g: Bdd) -> Result<Bdd> {
        self.apply(Op::Imp, f, g)
    }

    /// `f ↔ g`.
    pub fn iff(&mut self, f: Bdd, g: Bdd) -> Result<Bdd> {
        let x = self.xor(f, g)?;
        self.not(x)
    }

    /// `if f then g else h`, as `(f ∧ g) ∨ (h ∧ ¬f)`.
    pub fn ite(&mut self, f: Bdd, g: Bdd, h: Bdd) -> Result<Bdd> {
        self.debug_check(&[f, g, h]);
        let r = self.ite_rec(f.0, g.0, h.0);
        self.lift(r)
    }

    /// Conjunction of many BDDs (true for none).
    pub fn and_all(&mut self, fs: &[Bdd]) -> Result<Bdd> {
        fs.iter().try_fold(Bdd::TRUE, |acc, &f| self.and(acc, f))
    }

    /// Disjunction of many BDDs (false for none).
    pub fn or_all(&mut self, fs: &[Bdd]) -> Result<Bdd> {
        fs.iter().try_fold(Bdd::FALSE, |acc, &f| self.or(acc, f))
    }

    #[track_caller]
    fn apply(&mut self, op: Op, f: Bdd, g: Bdd) -> Result<Bdd> {
        self.debug_check(&[f, g]);
        let r = match self.threads() {
            1 if self.breadth_first() => self.apply_bfs(op, f.0, g.0),
            1 => apply(Seq::new(self), op, f.0, g.0, 0),
            _ => self.parallel(|s| apply(s, op, f.0, g.0, 0)),
        };
        self.lift(r)
    }

    /// `¬f` on the calling thread (for sequential operations built on it).
    pub(crate) fn not_rec(&mut self, f: u32) -> Step {
        not(Seq::new(self), f, 0)
    }

    /// `op(f, g)` on the calling thread (for sequential operations built on it).
    pub(crate) fn apply_rec(&mut self, op: Op, f: u32, g: u32) -> Step {
        apply(Seq::new(self), op, f, g, 0)
    }

    /// The result of `op(f, g)` when it follows without recursion:
    /// `Ok(r)`, or `Err(x)` for the negation of `x`.
    #[inline(always)]
    pub(crate) fn apply_terminal_case(op: Op, f: u32, g: u32) -> Option<std::result::Result<u32, u32>> {
        const F: u32 = 0;
        const T: u32 = 1;
        let r = match op {
            Op::And => match (f, g) {
                (F, _) | (_, F) => F,
                (T, x) | (x, T) => x,
                _ if f == g => f,
                _ => return None,
            },
            Op::Or => match (f, g) {
                (T, _) | (_, T) => T,
                (F, x) | (x, F) => x,
                _ if f == g => f,
                _ => return None,
            },
            Op::Xor => match (f, g) {
                _ if f == g => F,
                (F, x) | (x, F) => x,
                (T, x) | (x, T) => return Some(Err(x)),
                _ => return None,
            },
            Op::Diff => match (f, g) {
                (F, _) | (_, T) => F,
                (x, F) => x,
                _ if f == g => F,
                (T, x) => return Some(Err(x)),
                _ => return None,
            },
            Op::Imp => match (f, g) {
                (F, _) | (_, T) => T,
                (T, x) => x,
                _ if f == g => T,
                (x, F) => return Some(Err(x)),
                _ => return None,
            },
            _ => unreachable!("apply_rec called with {op:?}"),
        };
        Some(Ok(r))
    }

    /// The operands in the computed cache's order: commutative operations
    /// take the smaller index first.
    #[inline(always)]
    pub(crate) fn apply_operands(op: Op, f: u32, g: u32) -> (u32, u32) {
        match op {
            Op::And | Op::Or | Op::Xor if f > g => (g, f),
            _ => (f, g),
        }
    }

    /// The halves `(f ∧ g, f ∧ ¬g)` when they follow without recursion
    /// (`f = 1` is left to the caller: its second half is a negation).
    #[inline(always)]
    pub(crate) fn split_terminal_case(f: u32, g: u32) -> Option<(u32, u32)> {
        match (f, g) {
            (0, _) => Some((0, 0)),
            (_, 0) => Some((0, f)),
            (_, 1) => Some((f, 0)),
            _ if f == g => Some((f, 0)),
            _ => None,
        }
    }

    pub(crate) fn ite_rec(&mut self, f: u32, g: u32, h: u32) -> Step {
        // Terminal cases and reduction to binary operations.
        match (f, g, h) {
            (1, _, _) => return Ok(g),
            (0, _, _) => return Ok(h),
            _ if g == h => return Ok(g),
            _ => {}
        }
        let g = if g == f { 1 } else { g };
        let h = if h == f { 0 } else { h };
        match (g, h) {
            (1, 0) => return Ok(f),
            (0, 1) => return self.not_rec(f),
            (1, _) => return self.apply_rec(Op::Or, f, h),
            (_, 0) => return self.apply_rec(Op::And, f, g),
            (0, _) => return self.apply_rec(Op::Diff, h, f),
            (_, 1) => return self.apply_rec(Op::Imp, f, g),
            _ => {}
        }
        // The general case by three binary operations, each cached (a cache
        // entry holds two node operands).
        let then = self.apply_rec(Op::And, f, g)?;
        let other = self.apply_rec(Op::Diff, h, f)?;
        self.apply_rec(Op::Or, then, other)
    }
}

/// `¬f`.
pub(crate) fn not<R: Recursor>(r: R, f: u32, depth: u32) -> Step {
    if f <= 1 {
        return Ok(1 - f);
    }
    if let Some(x) = r.cached(Op::Not, f, 0, 0) {
        return Ok(x);
    }
    let n = r.node(f);
    let (low, high) = r.both(depth, move || not(r, n.low, depth + 1), move || not(r, n.high, depth + 1))?;
    let x = r.mk(n.level, low, high)?;
    r.put(Op::Not, f, 0, 0, x);
    Ok(x)
}

/// `op(f, g)` for the binary operations (and, or, xor, diff, imp).
pub(crate) fn apply<R: Recursor>(r: R, op: Op, f: u32, g: u32, depth: u32) -> Step {
    match Manager::apply_terminal_case(op, f, g) {
        Some(Ok(x)) => return Ok(x),
        Some(Err(x)) => return not(r, x, depth),
        None => {}
    }
    let (f, g) = Manager::apply_operands(op, f, g);
    if let Some(x) = r.cached(op, f, g, 0) {
        return Ok(x);
    }
    apply_missed(r, op, f, g, depth)
}

/// The step `op(f, g)` (operands ordered, no terminal case) whose lookup
/// missed: its halves, its node, its cache entry (inlined, so that
/// [`apply`] stays one body).
#[inline(always)]
pub(crate) fn apply_missed<R: Recursor>(r: R, op: Op, f: u32, g: u32, depth: u32) -> Step {
    let level = r.level(f).min(r.level(g));
    let (f0, f1) = r.cofactors(f, level);
    let (g0, g1) = r.cofactors(g, level);
    if Manager::apply_terminal_case(op, f1, g1).is_none() {
        let (a, b) = Manager::apply_operands(op, f1, g1);
        r.prefetch(op, a, b, 0);
    }
    let (low, high) =
        r.both(depth, move || apply(r, op, f0, g0, depth + 1), move || apply(r, op, f1, g1, depth + 1))?;
    let x = r.mk_known(level, low, high, [(f, (f0, f1)), (g, (g0, g1))])?;
    r.put(op, f, g, 0, x);
    Ok(x)
}

/// The halves `(f ∧ g, f ∧ ¬g)`, each also cached as `and` and `diff`.
pub(crate) fn split<R: Recursor>(r: R, f: u32, g: u32, depth: u32) -> Step2 {
    if let Some(x) = Manager::split_terminal_case(f, g) {
        return Ok(x);
    }
    if f == 1 {
        return Ok((g, not(r, g, depth)?));
    }
    let (fa, ga) = Manager::apply_operands(Op::And, f, g);
    let (and, diff) = (r.lookup(Op::And, fa, ga, 0), r.lookup(Op::Diff, f, g, 0));
    r.count(Op::Split, and.is_some() && diff.is_some());
    match (and, diff) {
        (Some(a), Some(d)) => return Ok((a, d)),
        (Some(a), None) => return Ok((a, apply(r, Op::Diff, f, g, depth)?)),
        (None, Some(d)) => return Ok((apply(r, Op::And, f, g, depth)?, d)),
        (None, None) => {}
    }
    let level = r.level(f).min(r.level(g));
    let (f0, f1) = r.cofactors(f, level);
    let (g0, g1) = r.cofactors(g, level);
    if Manager::split_terminal_case(f1, g1).is_none() && f1 != 1 {
        let (fa, ga) = Manager::apply_operands(Op::And, f1, g1);
        r.prefetch(Op::And, fa, ga, 0);
        r.prefetch_entry(Op::Diff, f1, g1, 0);
    }
    let ((a0, d0), (a1, d1)) =
        r.both(depth, move || split(r, f0, g0, depth + 1), move || split(r, f1, g1, depth + 1))?;
    let operands = [(f, (f0, f1)), (g, (g0, g1))];
    let a = r.mk_known(level, a0, a1, operands)?;
    let d = r.mk_known(level, d0, d1, operands)?;
    r.put(Op::And, fa, ga, 0, a);
    r.put(Op::Diff, f, g, 0, d);
    Ok((a, d))
}
