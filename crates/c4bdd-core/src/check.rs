//! Invariant checker used by tests and debug assertions.

use rustc_hash::FxHashSet;

use crate::manager::Manager;
use crate::store::node::TERMINAL_LEVEL;
use crate::store::pages::PAGE;

impl Manager {
    /// Check every structural invariant: terminals intact; each live node has a
    /// valid level, live children of deeper level, distinct children; the
    /// unique table's index holds each live node and no duplicate; the
    /// arena's free slots and counts agree; pins point to live nodes.
    /// Returns a description of the first violation found.
    pub fn check(&self) -> Result<(), String> {
        let nodes = self.table.nodes();
        for t in 0..2 {
            if nodes.level(t) != TERMINAL_LEVEL {
                return Err(format!("terminal {t} has level {}", nodes.level(t)));
            }
        }
        let live = |i: u32| i <= 1 || nodes.is_node(i);
        let mut triples = FxHashSet::default();
        for i in (PAGE as u32..nodes.slots() as u32).filter(|&i| nodes.is_node(i)) {
            let n = nodes.get(i);
            if n.level as usize >= self.var_count() {
                return Err(format!("node {i} has level {} of {} variables", n.level, self.var_count()));
            }
            if !live(n.low) || !live(n.high) {
                return Err(format!("node {i} has a freed or invalid child ({}, {})", n.low, n.high));
            }
            if n.level >= self.level(n.low) || n.level >= self.level(n.high) {
                return Err(format!("node {i} at level {} is not above its children", n.level));
            }
            if !triples.insert((n.level, n.low, n.high)) {
                return Err(format!("node {i} duplicates another node ({}, {}, {})", n.level, n.low, n.high));
            }
            if !self.table.is_indexed(i) {
                return Err(format!("node {i} is missing from the unique table's index"));
            }
        }
        if triples.len() != self.live_nodes() {
            return Err(format!("{} nodes in the arena, {} counted live", triples.len(), self.live_nodes()));
        }
        self.table.check_arena()?;
        if let Some(p) = self.pins.keys().find(|&&p| !live(p)) {
            return Err(format!("pinned node {p} is not live"));
        }
        if let Some(e) = self.cache.first_stale(live) {
            return Err(format!("computed-cache entry {e} mentions a freed node"));
        }
        Ok(())
    }
}
