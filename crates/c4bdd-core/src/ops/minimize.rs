//! Minimization with respect to a care set: Coudert and Madre's `restrict`
//! (the generalized cofactor with sibling substitution).
//!
//! `minimize(f, care)` returns a BDD that agrees with `f` wherever `care`
//! holds and is free elsewhere; it is usually smaller than `f` (not always)
//! and depends on no variable that `f` does not depend on. Use it where only
//! part of the space matters, e.g. a ply's win/draw/loss sets, whose values
//! matter only on the reachable states of that ply.

use crate::cache::computed::Op;
use crate::error::Result;
use crate::manager::{Manager, Step};
use crate::store::node::Bdd;

impl Manager {
    /// A BDD equal to `f` on every assignment satisfying `care` (any BDD
    /// when `care` is false), usually smaller than `f`.
    pub fn minimize(&mut self, f: Bdd, care: Bdd) -> Result<Bdd> {
        self.debug_check(&[f, care]);
        let r = self.minimize_rec(f.0, care.0);
        self.lift(r)
    }

    fn minimize_rec(&mut self, f: u32, care: u32) -> Step {
        if care == 0 {
            return Ok(0);
        }
        if care == 1 || f <= 1 {
            return Ok(f);
        }
        if f == care {
            return Ok(1);
        }
        if let Some(r) = self.cached(Op::Minimize, f, care, 0) {
            return Ok(r);
        }
        let (fl, cl) = (self.level(f), self.level(care));
        let r = if cl < fl {
            // `f` does not test the care set's top variable: its value may be
            // chosen freely, so the care set becomes "either branch".
            let c = self.node(care);
            let either = self.apply_rec(Op::Or, c.low, c.high)?;
            self.minimize_rec(f, either)?
        } else {
            let (f0, f1) = self.cofactors(f, fl);
            let (c0, c1) = self.cofactors(care, fl);
            if c0 == 0 {
                // Only the high branch matters: take it for both.
                self.minimize_rec(f1, c1)?
            } else if c1 == 0 {
                self.minimize_rec(f0, c0)?
            } else {
                let low = self.minimize_rec(f0, c0)?;
                let high = self.minimize_rec(f1, c1)?;
                self.mk(fl, low, high)?
            }
        };
        self.cache.put(Op::Minimize, f, care, 0, r);
        Ok(r)
    }
}
