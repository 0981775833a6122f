//! The binary operations' breadth-first walk: its expand sweep, and the
//! children it works out ahead (see the module above).

use super::{behind, key, Bfs, Kid, Levels, Req, AHEAD, NODE, RING};
use crate::cache::computed::Op;
use crate::manager::Manager;
use crate::ops::apply::apply_missed;
use crate::ops::level_map::mix;
use crate::parallel::recursor::Seq;
use crate::store::unique::Full;

/// A child of a binary step, worked out once when its parent is
/// cofactored: by `level`, the node `a` ([`Child::NODE`]), the negation of
/// `a` still to make ([`Child::NEGATE`]), or the open pair `(a, b)` (its
/// operands ordered) whose request is at `level` and whose cache entry is
/// at `slot` (for the cache's size then).
#[derive(Clone, Copy)]
struct Child {
    a: u32,
    b: u32,
    level: u32,
    slot: u32,
    /// The request's hash in its level's map.
    hash: u64,
}

impl Child {
    const NODE: u32 = u32::MAX;
    const NEGATE: u32 = u32::MAX - 1;
    /// A child that is the node `x`.
    const fn node(x: u32) -> Child {
        Child { a: x, b: 0, level: Child::NODE, slot: 0, hash: 0 }
    }

    #[inline(always)]
    fn open(&self) -> bool {
        self.level < Child::NEGATE
    }
}

impl Manager {
    /// The [`Child`] `op(a, b)` of a binary step.
    #[inline(always)]
    fn child(&self, op: Op, a: u32, b: u32) -> Child {
        match Manager::apply_terminal_case(op, a, b) {
            Some(Ok(x)) => Child::node(x),
            Some(Err(x)) => Child { level: Child::NEGATE, ..Child::node(x) },
            None => {
                let (a, b) = Manager::apply_operands(op, a, b);
                let (slot, hash) = (self.cache.slot_of(op, a, b, 0) as u32, mix(key(a, b)));
                Child { a, b, level: self.request_level(a, b) as u32, slot, hash }
            }
        }
    }

    /// A child of a binary step: a node, or a request. `shift` is the
    /// cache's when `c` was worked out (a slot of another size is taken again).
    #[inline(always)]
    fn apply_child(&mut self, lv: &mut Levels<2>, op: Op, c: Child, shift: u32) -> Result<Kid, Full> {
        match c.level {
            Child::NODE => return Ok((c.a, NODE)),
            Child::NEGATE => return self.not_rec(c.a).map(|x| (x, NODE)),
            _ => {}
        }
        let slot = if shift == self.cache.shift { c.slot as usize } else { self.cache.slot_of(op, c.a, c.b, 0) };
        if let Some(x) = self.cached_at(slot, op, c.a, c.b, 0) {
            return Ok((x, NODE));
        }
        match lv.request_hashed(c.level as usize, (c.a, c.b), c.hash, self.config.max_requests) {
            Some(kid) => Ok(kid),
            None => {
                self.stats.bfs_past_bound += 1;
                apply_missed(Seq::new(self), op, c.a, c.b, 0).map(|x| (x, NODE))
            }
        }
    }

    /// `op(a, b)` for each pair of `pairs`, into `out` in order.
    pub(super) fn apply_batch(
        &mut self,
        bfs: &mut Bfs,
        op: Op,
        pairs: &[(u32, u32)],
        out: &mut Vec<u32>,
    ) -> Result<(), Full> {
        let mut lv = std::mem::take(&mut bfs.apply);
        lv.prepare(self.var_count());
        let r = self.apply_levels(&mut lv, op, pairs, out);
        self.stats.bfs_peak_requests = self.stats.bfs_peak_requests.max(lv.held as u64);
        lv.clear();
        bfs.apply = lv;
        r
    }

    /// The body of [`Manager::apply_batch`].
    fn apply_levels(
        &mut self,
        lv: &mut Levels<2>,
        op: Op,
        pairs: &[(u32, u32)],
        out: &mut Vec<u32>,
    ) -> Result<(), Full> {
        let mut roots = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let (c, shift) = (self.child(op, a, b), self.cache.shift);
            match self.apply_child(lv, op, c, shift) {
                Ok(r) => roots.push(r),
                Err(e) => {
                    lv.clear_maps(0);
                    return Err(e);
                }
            }
        }
        for l in lv.top..lv.reqs.len() {
            lv.clear_map(l);
            if let Err(e) = self.expand_apply(lv, op, l) {
                lv.clear_maps(l + 1);
                return Err(e);
            }
        }
        for l in (lv.top..lv.reqs.len()).rev() {
            let mut list = std::mem::take(&mut lv.reqs[l]);
            let r = self.make_nodes(&mut list, l as u32, Some((op, 0)), |_, req| {
                (lv.resolve((req.kids[0], req.at[0])), lv.resolve((req.kids[1], req.at[1])))
            });
            lv.reqs[l] = list;
            r?;
        }
        out.clear();
        out.extend(roots.iter().map(|&r| lv.resolve(r)));
        Ok(())
    }

    /// Expand level `l` of a binary operation, request by request (see
    /// [`behind`]), each request's records hinted `2 AHEAD` ticks before its
    /// step, its children worked out (and their cache entries and records
    /// hinted) `AHEAD` before, their map slots hinted `AHEAD / 2` before and
    /// the requests those name `AHEAD / 4` before.
    fn expand_apply(&mut self, lv: &mut Levels<2>, op: Op, l: usize) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let (n, shift) = (list.len(), self.cache.shift);
        let mut ring = [[Child::node(0); 2]; RING];
        let records = |s: &Self, req: &Req<2>| {
            s.table.nodes().prefetch(req.a);
            s.table.nodes().prefetch(req.b);
        };
        let work = |s: &Self, req: &Req<2>| {
            let ((a0, a1), (b0, b1)) = (s.cofactors(req.a, l as u32), s.cofactors(req.b, l as u32));
            let children = [s.child(op, a0, b0), s.child(op, a1, b1)];
            for c in children.iter().filter(|c| c.open()) {
                s.cache.prefetch_at(c.slot as usize);
                s.table.nodes().prefetch(c.a);
                s.table.nodes().prefetch(c.b);
            }
            children
        };
        let slots = |lv: &Levels<2>, children: &[Child; 2]| {
            children.iter().filter(|c| c.open()).for_each(|c| lv.prefetch_slot(c.level as usize, c.hash));
        };
        let reqs = |lv: &Levels<2>, children: &[Child; 2]| {
            children.iter().filter(|c| c.open()).for_each(|c| lv.prefetch_req(c.level as usize, c.hash));
        };
        let walked = 'walk: {
            for t in 0..n + 2 * AHEAD {
                if let Some(j) = behind(t, 0, n) {
                    records(self, &list[j]);
                }
                if let Some(j) = behind(t, AHEAD, n) {
                    ring[j % RING] = work(self, &list[j]);
                }
                if let Some(j) = behind(t, 2 * AHEAD - AHEAD / 2, n) {
                    slots(lv, &ring[j % RING]);
                }
                if let Some(j) = behind(t, 2 * AHEAD - AHEAD / 4, n) {
                    reqs(lv, &ring[j % RING]);
                }
                let Some(i) = behind(t, 2 * AHEAD, n) else { continue };
                for (k, &c) in ring[i % RING].iter().enumerate() {
                    match self.apply_child(lv, op, c, shift) {
                        Ok(kid) => (list[i].kids[k], list[i].at[k]) = kid,
                        Err(e) => break 'walk Err(e),
                    }
                }
            }
            Ok(())
        };
        lv.reqs[l] = list;
        walked
    }
}
