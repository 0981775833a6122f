//! The ply above's parts as the parts of a ply read them: loaded once for
//! a run of parts that reach them, and an order of the parts in which
//! neighbours reach the same parts above.

use super::ctx::Ctx;
use super::store::{PartRecord, Set};
use crate::bdd::{Bdd, Manager};
use crate::encoding::StateSpace;
use crate::error::Result;
use crate::search::ply::transition::with_retry;

/// Sets of parts of the ply above, loaded and pinned; each is kept while
/// the part being solved reaches its part, so that a part that reaches the
/// same parts above as the one before it reads none of them again.
#[derive(Default)]
pub(super) struct Above {
    held: Vec<((u32, Set), Bdd)>,
    /// Sets read from disk, and sets asked for.
    pub read: usize,
    pub asked: usize,
}

impl Above {
    /// Unpin every held set whose part is not in `reach`.
    pub fn keep_only(&mut self, m: &mut Manager, reach: &[u32]) {
        self.held.retain(|&((q, _), f)| {
            let keep = reach.contains(&q);
            if !keep {
                m.unpin(f);
            }
            keep
        });
    }

    /// Unpin every held set.
    pub fn release(&mut self, m: &mut Manager) {
        self.keep_only(m, &[]);
    }

    /// The set `set` of the part of record `r` (of the ply above), held
    /// until [`Above::keep_only`] drops its part; loaded if not held.
    fn get(&mut self, space: &mut StateSpace, ctx: &Ctx, r: &PartRecord, set: Set, keep: Bdd) -> Result<Bdd> {
        self.asked += 1;
        if let Some(&(_, f)) = self.held.iter().find(|(key, _)| *key == (r.part, set)) {
            return Ok(f);
        }
        let frame = ctx.rules.frame_of(r.ply);
        // A load that meets the node limit is retried after a collection.
        let f = match ctx.store.load(space, r, set, frame) {
            Err(e) if e.is_node_limit() => {
                space.manager.gc(&[keep]);
                ctx.store.load(space, r, set, frame)?
            }
            loaded => loaded?,
        };
        self.read += 1;
        self.held.push(((r.part, set), f));
        Ok(f)
    }

    /// The union of `set` of the parts `reach` of the ply above (records
    /// `records`), pinned; parts whose record counts none are not read.
    pub fn union(
        &mut self,
        space: &mut StateSpace,
        ctx: &Ctx,
        records: &[PartRecord],
        reach: &[u32],
        set: Set,
    ) -> Result<Bdd> {
        let mut union = Bdd::FALSE;
        space.manager.pin(union);
        for &q in reach {
            let r = &records[q as usize];
            if set.count(r) == 0 {
                continue;
            }
            let f = self.get(space, ctx, r, set, union)?;
            let m = &mut space.manager;
            let joined = with_retry(m, &[union, f], |m| m.or(union, f))?;
            m.pin(joined);
            m.unpin(union);
            union = joined;
        }
        Ok(union)
    }
}

/// The parts `todo` in an order in which each part reaches as many of the
/// parts above that the part before it reaches as it can, by their nodes
/// (`weight` of a part above): greedily from the first part of `todo`,
/// each time the part not yet placed that shares the most weight with the
/// last one placed (the lowest number among equals). `reach[k]` is the
/// reach of `todo[k]`.
pub(super) fn order<R: AsRef<[u32]>>(todo: &[u32], reach: &[R], weight: impl Fn(u32) -> u64) -> Vec<usize> {
    let shared = |a: &[u32], b: &[u32]| a.iter().filter(|q| b.contains(q)).map(|&q| weight(q)).sum::<u64>();
    let mut left: Vec<usize> = (0..todo.len()).collect();
    let mut placed: Vec<usize> = Vec::with_capacity(todo.len());
    while !left.is_empty() {
        let at = match placed.last() {
            None => 0,
            Some(&last) => {
                let gain = |&(_, &k): &(usize, &usize)| {
                    (shared(reach[last].as_ref(), reach[k].as_ref()), std::cmp::Reverse(todo[k]))
                };
                left.iter().enumerate().max_by_key(gain).map(|(at, _)| at).expect("a part is left")
            }
        };
        placed.push(left.remove(at));
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::order;

    #[test]
    fn each_part_follows_the_one_it_shares_most_parts_above_with() {
        // Parts 0..4; 0 and 2 share part 7 above, 2 and 3 share 5, 1 shares nothing.
        let todo = [0, 1, 2, 3];
        let reach = [vec![0, 7], vec![1], vec![2, 7, 5], vec![3, 5]];
        let placed = order(&todo, &reach, |q| if q == 7 { 10 } else { 1 });
        assert_eq!(placed.iter().map(|&k| todo[k]).collect::<Vec<_>>(), [0, 2, 3, 1]);
    }

    #[test]
    fn every_part_is_placed_once() {
        let todo: Vec<u32> = (0..40).collect();
        let reach: Vec<Vec<u32>> = todo.iter().map(|&p| vec![p, (p * 7) % 40, (p + 3) % 40]).collect();
        let mut placed = order(&todo, &reach, |q| u64::from(q) + 1);
        assert_eq!(placed[0], 0);
        placed.sort_unstable();
        assert_eq!(placed, (0..40).collect::<Vec<_>>());
    }
}
