//! The in-place products' breadth-first walk (see the module above).

use super::{behind, Bfs, Kid, Levels, Req, AHEAD, NODE, RING};
use crate::cache::computed::Op;
use crate::manager::{Manager, Step};
use crate::ops::pairing::{pair_missed, pair_split};
use crate::parallel::recursor::Seq;
use crate::store::unique::Full;

impl Manager {
    /// A product of an in-place step: a node, or a request. The walk reads
    /// no cache entry (see the module documentation) until it holds its most
    /// requests; it counts each product that is no terminal case as a step.
    #[inline(always)]
    fn pair_child(&mut self, lv: &mut Levels<4>, op: Op, f: u32, t: u32, id: u32) -> Result<Kid, Full> {
        let start = self.pairings[id as usize].step_start(f, t, |g| self.level(g));
        let x = match start {
            Ok(x) => x,
            Err(node) => return Ok((node, NODE)),
        };
        if let Some(kid) = lv.request(x as usize, (f, t), self.config.max_requests) {
            self.stats.steps[op.index()] += 1;
            return Ok(kid);
        }
        if let Some(node) = self.cached(op, f, t, id) {
            return Ok((node, NODE));
        }
        self.stats.bfs_past_bound += 1;
        pair_missed(Seq::new(self), op, (f, t, id), x, 0).map(|x| (x, NODE))
    }

    /// The in-place product `(f, t)` under pairing `id`: expand, then reduce.
    pub(super) fn pair_levels(&mut self, bfs: &mut Bfs, op: Op, (f, t, id): (u32, u32, u32)) -> Step {
        let mut lv = std::mem::take(&mut bfs.pair);
        lv.prepare(self.var_count());
        let node = self.pair_walk(bfs, &mut lv, op, (f, t, id));
        self.stats.bfs_peak_requests = self.stats.bfs_peak_requests.max(lv.held as u64);
        lv.clear();
        bfs.pair = lv;
        node
    }

    /// The body of [`Manager::pair_levels`]; on failure every map is empty.
    fn pair_walk(&mut self, bfs: &mut Bfs, lv: &mut Levels<4>, op: Op, (f, t, id): (u32, u32, u32)) -> Step {
        let root = self.pair_child(lv, op, f, t, id).inspect_err(|_| lv.clear_maps(0))?;
        for l in lv.top..lv.reqs.len() {
            lv.clear_map(l);
            self.expand_pair(lv, op, (l, id)).inspect_err(|_| lv.clear_maps(l + 1))?;
        }
        for l in (lv.top..lv.reqs.len()).rev() {
            self.reduce_pair(bfs, lv, l)?;
        }
        Ok(lv.resolve(root))
    }

    /// Expand level `l` of an in-place product, request by request (see
    /// [`behind`]), each request's record hinted `2 AHEAD` ticks before its
    /// step, its four products worked out (and their records hinted) `AHEAD`
    /// before.
    fn expand_pair(&mut self, lv: &mut Levels<4>, op: Op, (l, id): (usize, u32)) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let n = list.len();
        let mut ring = [[(0u32, 0u32); 4]; RING];
        let work = |s: &Self, req: &Req<4>| {
            let nodes = s.table.nodes();
            let split = pair_split(op, req.a, req.b, l as u32, |g, level| nodes.get(g).cofactors(g, level));
            let ((f0, f1), into0, into1) = split;
            let products = [(f0, into0.0), (f1, into0.1), (f0, into1.0), (f1, into1.1)];
            for &(f, _) in products.iter().filter(|&&(f, t)| f > 1 && t > 1) {
                nodes.prefetch(f);
            }
            products
        };
        let walked = 'walk: {
            for tick in 0..n + 2 * AHEAD {
                if let Some(j) = behind(tick, 0, n) {
                    self.table.nodes().prefetch(list[j].a);
                }
                if let Some(j) = behind(tick, AHEAD, n) {
                    ring[j % RING] = work(self, &list[j]);
                }
                let Some(i) = behind(tick, 2 * AHEAD, n) else { continue };
                for (k, &(f, t)) in ring[i % RING].iter().enumerate() {
                    match self.pair_child(lv, op, f, t, id) {
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

    /// Reduce level `l` of an in-place product: the joins of its requests'
    /// products as one batch of `or`s, then each request's node.
    fn reduce_pair(&mut self, bfs: &mut Bfs, lv: &mut Levels<4>, l: usize) -> Result<(), Full> {
        let mut list = std::mem::take(&mut lv.reqs[l]);
        let mut joins = std::mem::take(&mut bfs.joins);
        joins.clear();
        for req in &list {
            let k: [u32; 4] = std::array::from_fn(|j| lv.resolve((req.kids[j], req.at[j])));
            joins.extend([(k[0], k[1]), (k[2], k[3])]);
        }
        let mut joined = std::mem::take(&mut bfs.joined);
        let mut r = self.apply_batch(bfs, Op::Or, &joins, &mut joined);
        if r.is_ok() {
            r = self.make_nodes(&mut list, l as u32, None, |i, _| (joined[2 * i], joined[2 * i + 1]));
        }
        (bfs.joins, bfs.joined) = (joins, joined);
        lv.reqs[l] = list;
        r
    }
}
