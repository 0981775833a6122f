//! Quantification, the relational product, renaming and restriction.
//!
//! Variable sets and renamings are registered with the manager; their index
//! is part of the cache key, so results of different sets never mix.

use crate::cache::computed::Op;
use crate::error::Result;
use crate::manager::{Manager, Renaming, Step, VarSet};
use crate::store::node::{Bdd, Var};

impl Manager {
    /// `∃ vars: f`.
    pub fn exists(&mut self, f: Bdd, vars: VarSet) -> Result<Bdd> {
        self.debug_check(&[f]);
        let r = self.quant_rec(Op::Exists, f.0, vars.0);
        self.lift(r)
    }

    /// `∀ vars: f`.
    pub fn forall(&mut self, f: Bdd, vars: VarSet) -> Result<Bdd> {
        self.debug_check(&[f]);
        let r = self.quant_rec(Op::Forall, f.0, vars.0);
        self.lift(r)
    }

    /// `∃ vars: f ∧ g`, in one pass (the relational product).
    pub fn and_exists(&mut self, f: Bdd, g: Bdd, vars: VarSet) -> Result<Bdd> {
        self.debug_check(&[f, g]);
        let r = self.and_exists_rec(f.0, g.0, vars.0);
        self.lift(r)
    }

    /// `f` with every variable `x` replaced by the variable the renaming maps it to.
    pub fn rename(&mut self, f: Bdd, renaming: Renaming) -> Result<Bdd> {
        self.debug_check(&[f]);
        let r = self.rename_rec(f.0, renaming.0);
        self.lift(r)
    }

    /// `f` with the given variables fixed to the given values (a cofactor).
    pub fn restrict(&mut self, f: Bdd, assignment: &[(Var, bool)]) -> Result<Bdd> {
        self.debug_check(&[f]);
        let cube = self.cube(assignment)?;
        if cube == Bdd::FALSE {
            // Contradictory assignment: no point satisfies it.
            return Ok(Bdd::FALSE);
        }
        let r = self.restrict_rec(f.0, cube.0);
        self.lift(r)
    }

    /// The deepest member level of a set, `None` for the empty set.
    #[inline]
    fn set_last(&self, set: u32) -> Option<u32> {
        self.var_sets[set as usize].levels.last().copied()
    }

    #[inline]
    fn in_set(&self, set: u32, level: u32) -> bool {
        self.var_sets[set as usize].member.get(level as usize).copied().unwrap_or(false)
    }

    fn quant_rec(&mut self, op: Op, f: u32, set: u32) -> Step {
        let level = self.level(f);
        if f <= 1 || self.set_last(set).is_none_or(|last| level > last) {
            return Ok(f);
        }
        if let Some(r) = self.cached(op, f, set, 0) {
            return Ok(r);
        }
        let n = self.node(f);
        let (combine, absorbing) = if op == Op::Exists { (Op::Or, 1) } else { (Op::And, 0) };
        let low = self.quant_rec(op, n.low, set)?;
        let r = if self.in_set(set, level) {
            if low == absorbing {
                absorbing
            } else {
                let high = self.quant_rec(op, n.high, set)?;
                self.apply_rec(combine, low, high)?
            }
        } else {
            let high = self.quant_rec(op, n.high, set)?;
            self.mk(level, low, high)?
        };
        self.cache.put(op, f, set, 0, r);
        Ok(r)
    }

    pub(crate) fn and_exists_rec(&mut self, f: u32, g: u32, set: u32) -> Step {
        if f == 0 || g == 0 {
            return Ok(0);
        }
        if f == 1 || f == g {
            return self.quant_rec(Op::Exists, g, set);
        }
        if g == 1 {
            return self.quant_rec(Op::Exists, f, set);
        }
        let level = self.level(f).min(self.level(g));
        if self.set_last(set).is_none_or(|last| level > last) {
            return self.apply_rec(Op::And, f, g);
        }
        let (f, g) = if f > g { (g, f) } else { (f, g) };
        if let Some(r) = self.cached(Op::AndExists, f, g, set) {
            return Ok(r);
        }
        let (f0, f1) = self.cofactors(f, level);
        let (g0, g1) = self.cofactors(g, level);
        let quantified = self.in_set(set, level);
        if quantified {
            if let Some(r) = self.copy_shortcut(f0, f1, g0, g1, set) {
                let r = r?;
                self.cache.put(Op::AndExists, f, g, set, r);
                return Ok(r);
            }
        }
        let low = self.and_exists_rec(f0, g0, set)?;
        let r = if quantified {
            if low == 1 {
                1
            } else {
                let high = self.and_exists_rec(f1, g1, set)?;
                self.apply_rec(Op::Or, low, high)?
            }
        } else {
            let high = self.and_exists_rec(f1, g1, set)?;
            self.mk(level, low, high)?
        };
        self.cache.put(Op::AndExists, f, g, set, r);
        Ok(r)
    }

    /// The frame-copy shortcut of the relational product. When one operand's
    /// cofactors on the quantified variable x are `¬y ∧ A` and `y ∧ B`, with
    /// `y` an unquantified variable above everything else involved (the
    /// relation says "y = x"), then `∃x: S ∧ T = ite(y, ∃(S1 ∧ B), ∃(S0 ∧ A))`:
    /// one node instead of two intermediate ones and a disjunction.
    #[inline]
    fn copy_shortcut(&mut self, f0: u32, f1: u32, g0: u32, g1: u32, set: u32) -> Option<Step> {
        let pattern = |m: &Manager, t0: u32, t1: u32, s0: u32, s1: u32| {
            let (n0, n1) = (m.node(t0), m.node(t1));
            let y = n0.level;
            (t0 > 1 && t1 > 1 && n1.level == y && n0.high == 0 && n1.low == 0)
                .then_some((y, n0.low, n1.high))
                .filter(|&(y, _, _)| !m.in_set(set, y) && m.level(s0) > y && m.level(s1) > y)
        };
        let (y, s0, a, s1, b) = if let Some((y, a, b)) = pattern(self, g0, g1, f0, f1) {
            (y, f0, a, f1, b)
        } else {
            let (y, a, b) = pattern(self, f0, f1, g0, g1)?;
            (y, g0, a, g1, b)
        };
        let step = (|| {
            let low = self.and_exists_rec(s0, a, set)?;
            let high = self.and_exists_rec(s1, b, set)?;
            self.mk(y, low, high)
        })();
        Some(step)
    }

    fn rename_rec(&mut self, f: u32, renaming: u32) -> Step {
        let level = self.level(f);
        if f <= 1 || level > self.renamings[renaming as usize].last {
            return Ok(f);
        }
        if let Some(r) = self.cached(Op::Rename, f, renaming, 0) {
            return Ok(r);
        }
        let n = self.node(f);
        let low = self.rename_rec(n.low, renaming)?;
        let high = self.rename_rec(n.high, renaming)?;
        let target = self.renamings[renaming as usize].target[level as usize];
        let r = if target < self.level(low) && target < self.level(high) {
            // The new variable stays above both children: order is kept.
            self.mk(target, low, high)?
        } else {
            let var = self.mk(target, 0, 1)?;
            self.ite_rec(var, high, low)?
        };
        self.cache.put(Op::Rename, f, renaming, 0, r);
        Ok(r)
    }

    fn restrict_rec(&mut self, f: u32, cube: u32) -> Step {
        let mut cube = cube;
        let level = self.level(f);
        // Skip cube variables above f's top: f does not depend on them.
        while cube > 1 && self.level(cube) < level {
            cube = self.cube_next(cube);
        }
        if f <= 1 || cube == 1 {
            return Ok(f);
        }
        if let Some(r) = self.cached(Op::Restrict, f, cube, 0) {
            return Ok(r);
        }
        let n = self.node(f);
        let r = if self.level(cube) == level {
            let c = self.node(cube);
            let (branch, rest) = if c.low == 0 { (n.high, c.high) } else { (n.low, c.low) };
            self.restrict_rec(branch, rest)?
        } else {
            let low = self.restrict_rec(n.low, cube)?;
            let high = self.restrict_rec(n.high, cube)?;
            self.mk(level, low, high)?
        };
        self.cache.put(Op::Restrict, f, cube, 0, r);
        Ok(r)
    }

    /// The rest of a cube below its top literal.
    #[inline]
    fn cube_next(&self, cube: u32) -> u32 {
        let c = self.node(cube);
        if c.low == 0 {
            c.high
        } else {
            c.low
        }
    }
}
