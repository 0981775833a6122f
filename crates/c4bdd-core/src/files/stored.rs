//! BDD files read in place: one path from a root to a terminal is walked
//! through positioned reads of the file, so a query touches about one node
//! per variable, whatever the file's size, and needs no manager.
//!
//! Two formats:
//! - [`StoredBdd::open`]: c4bdd's own ([`crate::files::io`], version 3). Opening
//!   reads the header and the tail (roots and block checksums) and checks
//!   them against the index checksum; every block of node records a walk
//!   touches is checked against its checksum before it is used.
//!   [`StoredBdd::verify`] reads the whole file and checks every block and
//!   the file's checksum.
//! - [`StoredBdd::open_records`]: arrays of fixed-size node records written
//!   by another program, in a [`RecordLayout`] the caller gives: record `k`
//!   is node `k`, nodes 0 and 1 are the terminals false and true, children
//!   come before parents (a post-order, as [`crate::Manager::visit_post_order`]
//!   numbers nodes), the root is the last record. Such files carry no
//!   checksum; a walk checks structure.
//!
//! Invariant of both: a walk only moves to a record of a smaller index and a
//! deeper level, so it ends within as many steps as there are variables; a
//! record that breaks this, or lies outside the file, is an error naming the
//! file, never a wrong answer or a hang.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::io::{header_bytes, BLOCK_NODES, FORMAT_VERSION, MAGIC, MAX_LABEL, NODE_BYTES};
use crate::store::node::MAX_VARS;

/// Blocks kept in memory per file (least recently used out first).
const CACHED_BLOCKS: usize = 256;

/// How a file of another program lays out its node records
/// ([`StoredBdd::open_records`]).
#[derive(Clone, Copy, Debug)]
pub struct RecordLayout {
    /// Bytes a record.
    pub bytes: u64,
    /// A record's variable id and children's indices, read from its first
    /// `bytes` bytes.
    pub decode: fn(&[u8]) -> NodeRecord,
}

/// Which layout the node records have.
#[derive(Clone, Copy, Debug)]
enum Records {
    /// c4bdd's: 12-byte records from `offset`; index `k >= 2` is record
    /// `k - 2`; indices 0 and 1 are the terminals.
    Native { offset: u64 },
    /// Another program's: records from offset 0 in `layout`; index `k` is
    /// record `k`.
    Foreign(RecordLayout),
}

/// A BDD file opened for walks.
pub struct StoredBdd {
    file: File,
    path: PathBuf,
    records: Records,
    /// Records in the file.
    count: u64,
    /// The level of each variable id (`u32::MAX` for an id not in the order).
    level: Vec<u32>,
    roots: Vec<u32>,
    /// Per block of native records, its checksum (empty for foreign ones).
    sums: Vec<u32>,
    cache: HashMap<u64, (u64, Box<[u8]>)>,
    tick: u64,
}

/// One node record: its variable id and its children's indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRecord {
    pub var: u32,
    pub low: u32,
    pub high: u32,
}

fn read_at(file: &File, path: &Path, at: u64, len: usize) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    file.read_exact_at(&mut buf, at).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    Ok(buf)
}

/// The length of a c4bdd BDD file and the checksum it ends with, once that
/// checksum was found to match every byte before it (read a megabyte at a
/// time, so a file of any size takes no more memory).
pub fn checked_size_and_checksum(path: &Path) -> Result<(u64, u32)> {
    let file = crate::files::io::open_regular(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let len = file.metadata().map_err(|source| Error::Io { path: path.to_path_buf(), source })?.len();
    let bad = |reason: &str| Error::BadFile { path: path.to_path_buf(), reason: reason.into() };
    if len < MAGIC.len() as u64 + 4 || read_at(&file, path, 0, MAGIC.len())? != MAGIC[..] {
        return Err(bad("not a c4bdd BDD file"));
    }
    let mut hasher = crc32fast::Hasher::new();
    let mut at = 0;
    while at < len - 4 {
        let n = (len - 4 - at).min(1 << 20);
        hasher.update(&read_at(&file, path, at, n as usize)?);
        at += n;
    }
    let stored = word(&read_at(&file, path, len - 4, 4)?, 0);
    if hasher.finalize() != stored {
        return Err(bad("failed its check: the file does not match its checksum"));
    }
    Ok((len, stored))
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

impl StoredBdd {
    /// Open a c4bdd BDD file saved under `label`: the header, the label, the
    /// roots and the block checksums are checked against the index checksum
    /// and the file's length; the node records are read when walked.
    pub fn open(path: &Path, label: &str) -> Result<StoredBdd> {
        let bad = |reason: String| Error::BadFile { path: path.to_path_buf(), reason };
        let file =
            crate::files::io::open_regular(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        let len = file.metadata().map_err(|source| Error::Io { path: path.to_path_buf(), source })?.len();
        let fixed = read_at(&file, path, 0, 16.min(len as usize))?;
        if fixed.len() < 16 || &fixed[..8] != MAGIC {
            return Err(bad("not a c4bdd BDD file (bad magic bytes)".into()));
        }
        let version = word(&fixed, 8);
        if version != FORMAT_VERSION {
            return Err(bad(format!(
                "format version {version} cannot be read in place (this build reads version {FORMAT_VERSION} so); \
                 write the solution again with this build"
            )));
        }
        let label_len = word(&fixed, 12) as u64;
        if label_len > MAX_LABEL as u64 {
            return Err(bad(format!("failed its check: a label of {label_len} bytes")));
        }
        let held = read_at(&file, path, 16, (label_len + 4).min(len.saturating_sub(16)) as usize)?;
        if held.len() as u64 != label_len + 4 || &held[..label_len as usize] != label.as_bytes() {
            let held = String::from_utf8_lossy(&held[..held.len().min(label_len as usize)]).into_owned();
            return Err(bad(format!("it holds {held}, not {label}")));
        }
        let vars = word(&held, label_len as usize) as u64;
        if vars > MAX_VARS as u64 {
            return Err(bad(format!("failed its check: {vars} variables")));
        }
        let at = 16 + label_len + 4;
        if at + 4 * vars + 12 > len {
            return Err(bad("truncated file".into()));
        }
        let rest = read_at(&file, path, at, (4 * vars + 12) as usize)?;
        let order: Vec<u32> = (0..vars as usize).map(|i| word(&rest, 4 * i)).collect();
        let count = u64::from_le_bytes(rest[4 * vars as usize..][..8].try_into().expect("eight bytes"));
        let root_count = word(&rest, 4 * vars as usize + 8);
        let offset = at + 4 * vars + 12;
        let blocks = count.div_ceil(BLOCK_NODES);
        let tail_len = 4 * (root_count as u64 + blocks) + 8;
        let end = count.checked_mul(NODE_BYTES).and_then(|n| n.checked_add(offset + tail_len));
        if end != Some(len) {
            return Err(bad(format!("{len} bytes, its header says {}", end.map_or("more".into(), |e| e.to_string()))));
        }
        let tail = read_at(&file, path, offset + count * NODE_BYTES, tail_len as usize)?;
        let mut index = crc32fast::Hasher::new();
        index.update(&header_bytes(version, label, &order, count, root_count));
        index.update(&tail[..tail.len() - 8]);
        if index.finalize() != word(&tail, tail.len() - 8) {
            return Err(bad("the header, roots and block checksums do not match their checksum".into()));
        }
        let roots: Vec<u32> = (0..root_count as usize).map(|i| word(&tail, 4 * i)).collect();
        let sums = (0..blocks as usize).map(|b| word(&tail, 4 * (root_count as usize + b))).collect();
        let level = levels(&order);
        let (records, path) = (Records::Native { offset }, path.to_path_buf());
        let stored = StoredBdd { file, path, records, count, level, roots, sums, cache: HashMap::new(), tick: 0 };
        if let Some(&r) = stored.roots.iter().find(|&&r| r as u64 >= count + 2) {
            return Err(stored.bad(format!("a root refers to node {r} of {}", count + 2)));
        }
        Ok(stored)
    }

    /// Open a file of node records in `layout`, the variable of id
    /// `order[l]` at level `l`; its one root is the last record. Records 0
    /// and 1 (the terminals) are not read by walks.
    pub fn open_records(path: &Path, layout: RecordLayout, order: &[u32]) -> Result<StoredBdd> {
        let bad = |reason: String| Error::BadFile { path: path.to_path_buf(), reason };
        let file =
            crate::files::io::open_regular(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        let len = file.metadata().map_err(|source| Error::Io { path: path.to_path_buf(), source })?.len();
        let size = layout.bytes;
        if size == 0 || len == 0 || len % size != 0 || len / size > u32::MAX as u64 {
            return Err(bad(format!("{len} bytes is not a whole number of {size}-byte records")));
        }
        let count = len / size;
        let (records, path, sums) = (Records::Foreign(layout), path.to_path_buf(), Vec::new());
        let (level, roots) = (levels(order), vec![(count - 1) as u32]);
        Ok(StoredBdd { file, path, records, count, level, roots, sums, cache: HashMap::new(), tick: 0 })
    }

    /// The roots: as saved, or a foreign file's one root.
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// The file's length and the checksum stored at its end (c4bdd's
    /// format; read, not computed: [`StoredBdd::verify`] computes it).
    pub fn size_and_checksum(&self) -> Result<(u64, u32)> {
        let len = self.file.metadata().map_err(|source| Error::Io { path: self.path.clone(), source })?.len();
        Ok((len, word(&read_at(&self.file, &self.path, len - 4, 4)?, 0)))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn bad(&self, reason: String) -> Error {
        Error::BadFile { path: self.path.clone(), reason }
    }

    /// Whether `index` is a terminal, and which.
    fn terminal(&self, index: u32) -> Option<bool> {
        (index <= 1).then_some(index == 1)
    }

    /// Whether the assignment `value` (indexed by variable id) satisfies the
    /// BDD rooted at `root`: one walk down, reading each record through the
    /// block cache.
    pub fn eval(&mut self, root: u32, value: &[bool]) -> Result<bool> {
        self.walk(root, |var, _| value.get(var as usize).copied().unwrap_or(false))
    }

    /// One assignment (indexed by variable id) that satisfies the BDD rooted
    /// at `root`, or `None` if none does: the walk takes the low edge unless
    /// it is false; variables it does not test are false.
    pub fn witness(&mut self, root: u32) -> Result<Option<Vec<bool>>> {
        let mut value = vec![false; self.level.len()];
        let found = self.walk(root, |var, low| {
            let high = low == 0;
            value[var as usize] = high;
            high
        })?;
        Ok(found.then_some(value))
    }

    /// The BDD rooted at `root` built in `m`, the file's variable id `v`
    /// standing for `var_of[v]`: the same function, whatever the levels of
    /// `m`. Each record is checked as a walk checks it (children of smaller
    /// index and deeper level, two different children, a known variable);
    /// an id without a variable is an error too. The result is not pinned.
    pub fn load_into(
        &mut self,
        m: &mut crate::Manager,
        root: u32,
        var_of: &[Option<crate::Var>],
    ) -> Result<crate::Bdd> {
        let mut built: HashMap<u32, crate::Bdd> = HashMap::new();
        self.build(m, root, None, var_of, &mut built)
    }

    /// [`StoredBdd::load_into`] of node `at`, whose parent is at level
    /// `above`; `built` holds the nodes built so far.
    fn build(
        &mut self,
        m: &mut crate::Manager,
        at: u32,
        above: Option<u32>,
        var_of: &[Option<crate::Var>],
        built: &mut HashMap<u32, crate::Bdd>,
    ) -> Result<crate::Bdd> {
        if let Some(t) = self.terminal(at) {
            return Ok(if t { crate::Bdd::TRUE } else { crate::Bdd::FALSE });
        }
        let r = self.record(at)?;
        let level = self.level.get(r.var as usize).copied().unwrap_or(u32::MAX);
        let var = var_of.get(r.var as usize).copied().flatten();
        if level == u32::MAX || above.is_some_and(|a| level <= a) || r.low >= at || r.high >= at || r.low == r.high {
            let reason = format!("node {at} is malformed (var {}, low {}, high {})", r.var, r.low, r.high);
            return Err(self.bad(format!("failed its check: {reason}")));
        }
        if let Some(&f) = built.get(&at) {
            return Ok(f);
        }
        let var =
            var.ok_or_else(|| self.bad(format!("node {at} tests variable {}, which has no meaning here", r.var)))?;
        let low = self.build(m, r.low, Some(level), var_of, built)?;
        let high = self.build(m, r.high, Some(level), var_of, built)?;
        let test = m.literal(var, true)?;
        let f = m.ite(test, high, low)?;
        built.insert(at, f);
        Ok(f)
    }

    /// Walk down from `root`, at each node taking the high edge where
    /// `high(var, low)` says so; returns the terminal reached.
    fn walk(&mut self, root: u32, mut high: impl FnMut(u32, u32) -> bool) -> Result<bool> {
        let mut at = root;
        let mut above = None;
        loop {
            if let Some(t) = self.terminal(at) {
                return Ok(t);
            }
            let r = self.record(at)?;
            let level = self.level.get(r.var as usize).copied().unwrap_or(u32::MAX);
            if level == u32::MAX || above.is_some_and(|a| level <= a) || r.low >= at || r.high >= at || r.low == r.high
            {
                let reason = format!("node {at} is malformed (var {}, low {}, high {})", r.var, r.low, r.high);
                return Err(self.bad(format!("failed its check: {reason}")));
            }
            above = Some(level);
            at = if high(r.var, r.low) { r.high } else { r.low };
        }
    }

    /// The record of node `index` (of a foreign file: any record; of
    /// c4bdd's: nodes from 2 on), reading (and checking) its block if it is
    /// not cached.
    pub fn record(&mut self, index: u32) -> Result<NodeRecord> {
        let (k, size) = match self.records {
            Records::Native { .. } => ((index as u64).wrapping_sub(2), NODE_BYTES),
            Records::Foreign(layout) => (index as u64, layout.bytes),
        };
        if k >= self.count {
            return Err(self.bad(format!("failed its check: node {index} lies outside the file")));
        }
        let (block, at) = (k / BLOCK_NODES, ((k % BLOCK_NODES) * size) as usize);
        self.tick += 1;
        let tick = self.tick;
        if let Some((used, bytes)) = self.cache.get_mut(&block) {
            *used = tick;
            return Ok(decode(self.records, &bytes[at..]));
        }
        let bytes = self.read_block(block)?;
        let record = decode(self.records, &bytes[at..]);
        if self.cache.len() >= CACHED_BLOCKS {
            let oldest = self.cache.iter().min_by_key(|(_, (used, _))| *used).map(|(&b, _)| b);
            oldest.map(|b| self.cache.remove(&b));
        }
        self.cache.insert(block, (tick, bytes));
        Ok(record)
    }

    /// Read block `block` of records, checked against its checksum (native).
    fn read_block(&self, block: u64) -> Result<Box<[u8]>> {
        let records = BLOCK_NODES.min(self.count - block * BLOCK_NODES);
        let (offset, size) = match self.records {
            Records::Native { offset } => (offset, NODE_BYTES),
            Records::Foreign(layout) => (0, layout.bytes),
        };
        let bytes = read_at(&self.file, &self.path, offset + block * BLOCK_NODES * size, (records * size) as usize)?;
        if let Some(&sum) = self.sums.get(block as usize) {
            if crc32fast::hash(&bytes) != sum {
                return Err(self.bad(format!("failed its check: block {block} of nodes does not match its checksum")));
            }
        }
        Ok(bytes.into_boxed_slice())
    }

    /// Read the whole file: every block against its checksum and, for
    /// c4bdd's format, the file's checksum (foreign files have none: every
    /// record's structure is checked instead).
    pub fn verify(&self) -> Result<()> {
        let blocks = self.count.div_ceil(BLOCK_NODES);
        for block in 0..blocks {
            let bytes = self.read_block(block)?;
            if let Records::Foreign(layout) = self.records {
                self.check_foreign(block, &bytes, layout)?;
            }
        }
        if let Records::Native { .. } = self.records {
            checked_size_and_checksum(&self.path)?;
        }
        Ok(())
    }

    /// Every foreign record of a block above the terminals: a known
    /// variable and two different children of smaller index (the order of
    /// levels is checked by each walk).
    fn check_foreign(&self, block: u64, bytes: &[u8], layout: RecordLayout) -> Result<()> {
        for (i, chunk) in bytes.chunks_exact(layout.bytes as usize).enumerate() {
            let index = block * BLOCK_NODES + i as u64;
            let r = (layout.decode)(chunk);
            let known = self.level.get(r.var as usize).is_some_and(|&l| l != u32::MAX);
            if index > 1 && !(known && (r.low as u64) < index && (r.high as u64) < index && r.low != r.high) {
                let reason = format!("node {index} is malformed (var {}, low {}, high {})", r.var, r.low, r.high);
                return Err(self.bad(format!("failed its check: {reason}")));
            }
        }
        Ok(())
    }
}

/// The record at the start of `bytes` in the layout `records`.
fn decode(records: Records, bytes: &[u8]) -> NodeRecord {
    match records {
        Records::Native { .. } => NodeRecord { var: word(bytes, 0), low: word(bytes, 4), high: word(bytes, 8) },
        Records::Foreign(layout) => (layout.decode)(bytes),
    }
}

/// The level of each variable id of `order` (the id at each level);
/// `u32::MAX` for an id it does not name.
fn levels(order: &[u32]) -> Vec<u32> {
    let mut level = vec![u32::MAX; order.iter().map(|&v| v as usize + 1).max().unwrap_or(0)];
    for (l, &v) in order.iter().enumerate() {
        level[v as usize] = l as u32;
    }
    level
}
