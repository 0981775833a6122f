//! Invariant checker used by tests and debug assertions.

use rustc_hash::FxHashSet;

use super::manager::Manager;
use super::node::{FREE_LEVEL, TERMINAL_LEVEL};

impl Manager {
    /// Check every structural invariant: terminals intact; each live node has a
    /// valid level, live children of deeper level, distinct children; the
    /// unique table holds each live node in its chain and no duplicate; the free
    /// list has the recorded length; pins point to live nodes.
    /// Returns a description of the first violation found.
    pub fn check(&self) -> Result<(), String> {
        let nodes = &self.table.nodes;
        for (t, n) in nodes.iter().enumerate().take(2) {
            if n.level != TERMINAL_LEVEL {
                return Err(format!("terminal {t} has level {}", n.level));
            }
        }
        let live = |i: u32| (i as usize) < nodes.len() && nodes[i as usize].level != FREE_LEVEL;
        let mut triples = FxHashSet::default();
        let mut free = 0;
        for (i, n) in nodes.iter().enumerate().skip(2) {
            if n.level == FREE_LEVEL {
                free += 1;
                continue;
            }
            if n.level as usize >= self.var_count() {
                return Err(format!("node {i} has level {} of {} variables", n.level, self.var_count()));
            }
            if !live(n.low) || !live(n.high) {
                return Err(format!("node {i} has a freed or invalid child ({}, {})", n.low, n.high));
            }
            if n.low == n.high {
                return Err(format!("node {i} is redundant: both children are {}", n.low));
            }
            if n.level >= self.level(n.low) || n.level >= self.level(n.high) {
                return Err(format!("node {i} at level {} is not above its children", n.level));
            }
            if !triples.insert((n.level, n.low, n.high)) {
                return Err(format!("node {i} duplicates another node ({}, {}, {})", n.level, n.low, n.high));
            }
            if !self.table.is_in_chain(i as u32) {
                return Err(format!("node {i} is missing from its unique-table chain"));
            }
        }
        if free != self.table.free_count() || !self.table.free_set_is_exact() {
            return Err(format!("free set: {free} free slots, {} in the set", self.table.free_count()));
        }
        if let Some(p) = self.pins.keys().find(|&&p| !live(p)) {
            return Err(format!("pinned node {p} is not live"));
        }
        if let Some(e) = self.cache.first_stale(live) {
            return Err(format!("computed-cache entry {e} mentions a freed node"));
        }
        Ok(())
    }
}
