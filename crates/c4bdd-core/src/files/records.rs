//! Loading a file's node records: read a chunk at a time (so that the
//! checksums run over long slices), checked and inserted in file order.
//!
//! A record's insertion looks its node up in the unique table, a read of
//! memory at random. Where a record's children are already in (always in a
//! file written level by level, `files/levels.rs`), its lookup is hinted
//! [`AHEAD`] records before it is made, and its children's entries of the
//! map twice as far ahead, so that many lookups are under way at once.

use std::io::Read;

use crate::files::io::{BlockSums, LoadError, NODE_BYTES};
use crate::manager::Manager;
use crate::prefetch::prefetch;
use crate::store::node::Var;

/// Node records read at a time.
const CHUNK: usize = 4096;
/// How many records ahead of its insertion a record's lookup is hinted.
const AHEAD: usize = 16;

/// File index -> (node in the manager, its level); the terminals first.
pub(super) type NodeMap = Vec<(u32, u32)>;

/// Read into `buf` until it is full or the stream ends: the bytes read, and
/// the error that stopped the reading early, if any (the stream's end is
/// the caller's to judge).
fn fill(r: &mut impl Read, buf: &mut [u8]) -> (usize, Option<std::io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// Record `j` of `buf`: its variable, low and high child.
#[inline(always)]
fn record(buf: &[u8], j: usize) -> (u32, u32, u32) {
    let at = j * NODE_BYTES as usize;
    let word = |i: usize| u32::from_le_bytes(buf[at + i..at + i + 4].try_into().expect("four bytes"));
    (word(0), word(4), word(8))
}

impl Manager {
    /// Read `count` node records from `r` (their bytes also into `blocks`)
    /// and insert them, each after checking it: a known variable, children
    /// below its own index and unequal, on deeper levels. Returns the map of
    /// every file index; the first failing record, a failed read or the
    /// stream's end before the last record is an error, returned once every
    /// record before it is in (as a record-by-record reader would).
    pub(super) fn load_records(
        &mut self,
        r: &mut impl Read,
        count: u64,
        expected: usize,
        blocks: &mut BlockSums,
    ) -> Result<NodeMap, LoadError> {
        let mut map: NodeMap = vec![(0, u32::MAX), (1, u32::MAX)];
        map.reserve(expected);
        let mut buf = vec![0u8; CHUNK * NODE_BYTES as usize];
        let mut done = 0u64;
        while done < count {
            let want = (count - done).min(CHUNK as u64) as usize;
            let (n, failed) = fill(r, &mut buf[..want * NODE_BYTES as usize]);
            let whole = n / NODE_BYTES as usize;
            blocks.add_records(&buf[..whole * NODE_BYTES as usize]);
            for j in 0..whole {
                self.hint_record(&map, &buf[..whole * NODE_BYTES as usize], j);
                self.insert_record(&mut map, record(&buf, j), done + j as u64 + 2)?;
            }
            if let Some(e) = failed {
                return Err(e.into());
            }
            if whole < want {
                return Err(LoadError::Bad("truncated file".into()));
            }
            done += whole as u64;
        }
        Ok(map)
    }

    /// Hint what the insertions of the records after `j` in `records` will
    /// read: the unique-table group of record `j + AHEAD` (when its children
    /// are in) and the map entries of the children of record `j + 2 AHEAD`.
    #[inline(always)]
    fn hint_record(&self, map: &NodeMap, records: &[u8], j: usize) {
        let total = records.len() / NODE_BYTES as usize;
        if j + 2 * AHEAD < total {
            let (_, low, high) = record(records, j + 2 * AHEAD);
            [low, high].iter().filter_map(|&c| map.get(c as usize)).for_each(|e| prefetch(e));
        }
        if j + AHEAD < total {
            let (var, low, high) = record(records, j + AHEAD);
            if let (true, Some(&(lo, _)), Some(&(hi, _))) =
                ((var as usize) < self.var_count(), map.get(low as usize), map.get(high as usize))
            {
                if lo != hi {
                    self.table.prefetch_home(crate::store::unique::hash(self.level_of(Var(var)).0, lo, hi));
                }
            }
        }
    }

    /// Check record `(var, low, high)`, file index `here`, against the map
    /// of the records before it, and insert it.
    #[inline]
    fn insert_record(
        &mut self,
        map: &mut NodeMap,
        (var, low, high): (u32, u32, u32),
        here: u64,
    ) -> Result<(), LoadError> {
        let bad = |s: String| Err(LoadError::Bad(s));
        if var as usize >= self.var_count() || low as u64 >= here || high as u64 >= here || low == high {
            return bad(format!("node {here} is malformed (var {var}, low {low}, high {high})"));
        }
        let level = self.level_of(Var(var)).0;
        let ((lo, lo_level), (hi, hi_level)) = (map[low as usize], map[high as usize]);
        if level >= lo_level || level >= hi_level {
            return bad(format!("node {here} breaks the variable order"));
        }
        let id = self.mk(level, lo, hi).map_err(|_| LoadError::Limit(self.limit_error()))?;
        map.push((id, level));
        Ok(())
    }
}
