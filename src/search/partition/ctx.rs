//! What the parts of one ply are solved with.

use crate::bdd::Var;
use crate::encoding::StateSpace;
use crate::error::Result;
use crate::search::ply::transition::Transition;

use super::store::PartStore;
use super::{cell_vars, Share};

/// What one ply's parts are solved with: the rules, the parts folder (with
/// its cut), this process's share of the parts.
pub(super) struct Ctx<'a> {
    pub rules: &'a Transition,
    pub store: &'a PartStore,
    pub share: Share,
}

impl Ctx<'_> {
    /// The cut's variables in the frame of ply `ply`.
    pub fn vars(&self, space: &StateSpace, ply: u32) -> Vec<Var> {
        cell_vars(space, self.rules.frame_of(ply), self.store.cut()).expect("the partition's cut names cells")
    }

    /// This process's parts of ply `ply` not yet done.
    pub fn todo(&self, ply: u32) -> Result<Vec<u32>> {
        let records = self.store.records(ply)?;
        Ok((0..self.store.parts()).filter(|&p| self.share.has(p) && records[p as usize].is_none()).collect())
    }
}
