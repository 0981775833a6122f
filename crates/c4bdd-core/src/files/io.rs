//! Saving and loading sets of BDDs.
//!
//! File layout (little-endian):
//! ```text
//! magic     8 bytes  "C4BDDSET"
//! version   u32      FORMAT_VERSION
//! label     u32 length, then that many bytes of UTF-8: what the file holds,
//!           in the words of whoever saved it (board, encoding, ply, sets)
//! vars      u32      number of variables
//! order     vars × u32, the variable at each level
//! nodes     u64      number of internal nodes
//! roots     u32      number of roots
//! node      nodes × (var u32, low u32, high u32), children first; index 0 and
//!           1 are the terminals, the k-th node written has index k + 2;
//!           written level by level from the bottom (`levels.rs`), loaded in
//!           any order that has children first
//! root      roots × u32
//! blocks    ceil(nodes / BLOCK_NODES) × u32, the CRC-32 of each block of
//!           BLOCK_NODES node records (the last one may be shorter)
//! index     u32      CRC-32 of the header (magic to roots count), the roots
//!           and the block checksums
//! crc32     u32      of every byte before it
//! ```
//! Loading checks the label against the one asked for, the header against
//! the manager, every node's children and order, the block checksums, the
//! exact length and the checksum, and reports the first problem; it never
//! returns a BDD from a file that fails any check. The label lies inside the
//! checksummed bytes, so a file cannot be passed off as another (a swapped
//! ply, another board). The block checksums let a reader that walks a file in
//! place ([`crate::files::stored`]) check the header, the roots and each block it
//! touches without reading the rest. Version 2 files (the same without
//! `blocks` and `index`) still load.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::bits::{self, Rank};
use crate::error::{Error, Result};
use crate::files::levels::LevelOrder;
use crate::manager::{run_on, Manager};
use crate::store::node::{Bdd, Level, Var};

/// The magic bytes at the start of every BDD file.
pub const MAGIC: &[u8; 8] = b"C4BDDSET";
/// The current format version.
pub const FORMAT_VERSION: u32 = 3;
/// The version before block checksums, still loaded.
const FORMAT_VERSION_UNBLOCKED: u32 = 2;
/// Node records per checksummed block.
pub const BLOCK_NODES: u64 = 512;
/// Bytes of a node record.
pub const NODE_BYTES: u64 = 12;
/// The longest label a file may carry.
pub(super) const MAX_LABEL: u32 = 4096;

/// Bytes encoded before they are checksummed and written (the last node may
/// take a chunk 12 bytes past it).
const SAVE_CHUNK: usize = 1 << 16;

/// The file indices of the saved nodes (see [`Manager::save_to`]): the
/// reached nodes are marked, a bit per slot of the node table, and each one's
/// index takes 4 bytes, found through the bits' rank (no array or hash map
/// over all slots). Invariant: `local` holds 0 for a node not yet written.
pub(super) struct FileIndex {
    /// The saved nodes' slots.
    pub bits: Vec<u64>,
    pub rank: Rank,
    /// Per saved node, in slot order: its index in the file, 0 until written.
    pub local: Vec<u32>,
}

impl FileIndex {
    /// The index in the file of a terminal (0 or 1) or of a saved node, 0
    /// when the node is not written yet.
    #[inline(always)]
    pub fn get(&self, f: u32) -> u32 {
        if f <= 1 {
            f
        } else {
            self.local[self.rank.position(&self.bits, f)]
        }
    }

    /// Give saved node `f` its index in the file.
    #[inline(always)]
    pub fn set(&mut self, f: u32, at: u32) {
        let p = self.rank.position(&self.bits, f);
        self.local[p] = at;
    }

    /// Hint the bit and rank words of slot `f` (of a terminal too).
    #[inline(always)]
    pub fn prefetch_bit(&self, f: u32) {
        crate::files::levels::prefetch_bit(&self.bits, f);
        if let Some(r) = self.rank.before.get(f as usize / 64) {
            crate::prefetch::prefetch(r);
        }
    }

    /// Hint the file index of saved node `f` (its bit and rank words read).
    #[inline(always)]
    pub fn prefetch_entry(&self, f: u32) {
        if f > 1 {
            if let Some(e) = self.local.get(self.rank.position(&self.bits, f)) {
                crate::prefetch::prefetch(e);
            }
        }
    }
}

/// The format version of the BDD file at `path` (an error if it is not one).
pub fn file_version(path: &Path) -> Result<u32> {
    let mut head = [0u8; 12];
    let mut file = open_regular(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    match file.read_exact(&mut head) {
        Ok(()) if &head[..8] == MAGIC => Ok(u32::from_le_bytes(head[8..].try_into().expect("four bytes"))),
        _ => Err(Error::BadFile { path: path.to_path_buf(), reason: "not a c4bdd BDD file".into() }),
    }
}

/// The label of the BDD file at `path`, read from its header alone (its
/// checksum, at the end, is not checked: a loader checks it).
pub fn file_label(path: &Path) -> Result<String> {
    let not_ours = || Error::BadFile { path: path.to_path_buf(), reason: "not a c4bdd BDD file".into() };
    let file = open_regular(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let mut r = BufReader::new(file);
    let mut head = [0u8; 12];
    if r.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
        return Err(not_ours());
    }
    read_label(&mut r).map_err(|_| not_ours())
}

/// The header of a file: magic, `version`, label, the variable at each
/// level, the node and root counts.
pub(super) fn header_bytes(version: u32, label: &str, order: &[u32], nodes: u64, roots: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(32 + label.len() + 4 * order.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(label.len() as u32).to_le_bytes());
    out.extend_from_slice(label.as_bytes());
    out.extend_from_slice(&(order.len() as u32).to_le_bytes());
    for var in order {
        out.extend_from_slice(&var.to_le_bytes());
    }
    out.extend_from_slice(&nodes.to_le_bytes());
    out.extend_from_slice(&roots.to_le_bytes());
    out
}

/// A node record's bytes.
fn record_bytes(var: u32, low: u32, high: u32) -> [u8; NODE_BYTES as usize] {
    let mut b = [0u8; NODE_BYTES as usize];
    b[0..4].copy_from_slice(&var.to_le_bytes());
    b[4..8].copy_from_slice(&low.to_le_bytes());
    b[8..12].copy_from_slice(&high.to_le_bytes());
    b
}

/// The checksums of the blocks of node records, as records pass.
#[derive(Default)]
pub(super) struct BlockSums {
    hasher: crc32fast::Hasher,
    in_block: u64,
    sums: Vec<u32>,
}

impl BlockSums {
    /// Take whole records, in file order, into their blocks' checksums.
    pub(super) fn add_records(&mut self, mut bytes: &[u8]) {
        debug_assert!(bytes.len().is_multiple_of(NODE_BYTES as usize), "whole records");
        while !bytes.is_empty() {
            let take = bytes.len().min(((BLOCK_NODES - self.in_block) * NODE_BYTES) as usize);
            self.hasher.update(&bytes[..take]);
            self.in_block += take as u64 / NODE_BYTES;
            bytes = &bytes[take..];
            if self.in_block == BLOCK_NODES {
                self.sums.push(std::mem::take(&mut self.hasher).finalize());
                self.in_block = 0;
            }
        }
    }

    /// Every block's checksum, the last (partial) one included.
    fn finish(mut self) -> Vec<u32> {
        if self.in_block > 0 {
            self.sums.push(self.hasher.finalize());
        }
        self.sums
    }
}

/// A reader or writer that checksums every byte it passes on.
struct Crc<T> {
    inner: T,
    hasher: crc32fast::Hasher,
}

impl<W: Write> Write for Crc<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Crc<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Why a stream could not be read as a BDD file.
#[derive(Debug)]
pub enum LoadError {
    /// The underlying reader failed.
    Io(std::io::Error),
    /// The bytes are not a valid file for this manager.
    Bad(String),
    /// The manager reached its node limit while rebuilding the BDDs.
    Limit(Error),
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> LoadError {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            LoadError::Bad("truncated file".into())
        } else {
            LoadError::Io(e)
        }
    }
}

fn read_u32(r: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// A label as [`Manager::save_to`] writes it; an over-long or non-UTF-8
/// one is refused.
fn read_label(r: &mut impl Read) -> std::result::Result<String, LoadError> {
    let len = read_u32(r)?;
    if len > MAX_LABEL {
        return Err(LoadError::Bad(format!("label of {len} bytes is out of range")));
    }
    let mut bytes = vec![0u8; len as usize];
    r.read_exact(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| LoadError::Bad("its label is not UTF-8".into()))
}

fn read_u64(r: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Open the stored file `path` for reading, only if it is a regular file:
/// a link (which could point anywhere) or a special file (a FIFO would
/// block the reader) is refused with `InvalidInput`.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    let kind = std::fs::symlink_metadata(path)?.file_type();
    if !kind.is_file() {
        let what = if kind.is_symlink() { "a link" } else { "not a regular file" };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}; stored files are read only as regular files"),
        ));
    }
    File::open(path)
}

/// Create the file `path` anew for writing: whatever is there (a file, a
/// link planted in its place) is removed first, never followed, and the
/// file is made with `O_EXCL`, which follows no link either.
pub fn create_fresh(path: &Path) -> std::io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_dir() => std::fs::remove_file(path)?,
        _ => {}
    }
    std::fs::OpenOptions::new().write(true).create_new(true).open(path)
}

/// Write `path` whole or not at all: `write` fills a fresh temporary file
/// `PATH.tmp` (made as [`create_fresh`] makes it), which is synced and
/// renamed over `path`; on any failure (a full disk) the temporary file is
/// removed, so nothing half-written stays.
pub fn replace_file<T>(path: &Path, write: impl FnOnce(&mut File) -> std::io::Result<T>) -> std::io::Result<T> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let written = create_fresh(&tmp).and_then(|mut file| {
        let value = write(&mut file)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(value)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

impl Manager {
    /// The exact size in bytes of what [`Manager::save_to`] writes for
    /// `roots` BDDs with `nodes` internal nodes in all (shared nodes once).
    /// `label` is the file's label.
    pub fn saved_size(&self, label: &str, nodes: u64, roots: usize) -> u64 {
        // magic, version, label, variable count, order, node count, root
        // count, nodes, roots, checksum
        let label = 4 + label.len() as u64;
        let blocks = nodes.div_ceil(BLOCK_NODES);
        8 + 4 + label + 4 + 4 * self.var_count() as u64 + 8 + 4 + NODE_BYTES * nodes + 4 * roots as u64 + 4 * blocks + 8
    }

    /// The variable at each level, as a file's header lists them.
    fn order_ids(&self) -> Vec<u32> {
        (0..self.var_count()).map(|level| self.var_at(Level(level as u32)).0).collect()
    }

    /// The file indices of the nodes below `roots`, none assigned yet.
    pub(super) fn file_index(&self, roots: &[Bdd]) -> FileIndex {
        let mut bits = vec![0u64; bits::words(self.table.slots())];
        let count = self.mark_from(&mut bits, &roots.iter().map(|r| r.0).collect::<Vec<_>>());
        let rank = Rank::new(&bits);
        FileIndex { bits, rank, local: vec![0; count] }
    }

    /// Visit the nodes below `roots` in post-order (depth-first from each
    /// root, low child first), each once, calling `emit(var, low, high)`
    /// with its children's indices in this numbering: 0 and 1 are the
    /// terminals false and true, the k-th node emitted is k + 2, so every
    /// node comes after its children. The numbering of c4bdd's files, and
    /// what a writer of another program's node arrays needs; an error of
    /// `emit` ends the visit and is returned.
    pub fn visit_post_order(
        &self,
        roots: &[Bdd],
        emit: impl FnMut(Var, u32, u32) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut index = self.file_index(roots);
        self.post_order(&mut index, roots, emit)
    }

    /// Visit the nodes below `roots` in post-order (depth-first from each
    /// root, low child first), each once, calling `emit` with its variable
    /// and its children's file indices: 0 and 1 are the terminals, the k-th
    /// node emitted gets index k + 2 (kept in `index`). The order depends only
    /// on the BDDs, not on where their nodes live.
    pub(super) fn post_order(
        &self,
        index: &mut FileIndex,
        roots: &[Bdd],
        mut emit: impl FnMut(Var, u32, u32) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        // The stack is the path from the root, so a node is never on it
        // twice. A node is emitted once both children are.
        let mut emitted = 0u32;
        let mut stack: Vec<u32> = Vec::new();
        for root in roots {
            if root.0 > 1 && index.get(root.0) == 0 {
                stack.push(root.0);
            }
            while let Some(&f) = stack.last() {
                let n = self.node(f);
                let (low, high) = (index.get(n.low), index.get(n.high));
                if n.low > 1 && low == 0 {
                    stack.push(n.low);
                    continue;
                }
                if n.high > 1 && high == 0 {
                    stack.push(n.high);
                    continue;
                }
                stack.pop();
                emit(self.var_at(Level(n.level)), low, high)?;
                emitted += 1;
                let at = index.rank.position(&index.bits, f);
                index.local[at] = emitted + 1;
            }
        }
        Ok(())
    }

    /// Write `roots` (and every node below them) to a stream under `label`
    /// (at most 4096 bytes); returns the CRC-32 stored at its end. The nodes
    /// are written level by level from the bottom (`files/levels.rs`),
    /// checksummed and written a chunk at a time.
    pub fn save_to(&self, roots: &[Bdd], label: &str, out: impl Write) -> std::io::Result<u32> {
        self.debug_check(roots);
        assert!(label.len() <= MAX_LABEL as usize, "a BDD file's label is at most {MAX_LABEL} bytes");
        let order = LevelOrder::walk(self.table.nodes(), self.var_count(), roots);
        let count = order.count;
        let mut w = Crc { inner: out, hasher: crc32fast::Hasher::new() };
        let mut chunk = header_bytes(FORMAT_VERSION, label, &self.order_ids(), count as u64, roots.len() as u32);
        chunk.reserve(SAVE_CHUNK + NODE_BYTES as usize);
        let mut index_crc = crc32fast::Hasher::new();
        index_crc.update(&chunk);
        let (mut blocks, mut records_from) = (BlockSums::default(), chunk.len());
        let mut written = 0u32;
        let index = self.emit_levels(order, |var, low, high| {
            chunk.extend_from_slice(&record_bytes(var.0, low, high));
            written += 1;
            if chunk.len() >= SAVE_CHUNK {
                blocks.add_records(&chunk[records_from..]);
                w.write_all(&chunk)?;
                chunk.clear();
                records_from = 0;
            }
            Ok(())
        })?;
        blocks.add_records(&chunk[records_from..]);
        debug_assert_eq!(written as usize, count, "every marked node is written once");
        let tail_start = chunk.len();
        for r in roots {
            chunk.extend_from_slice(&index.get(r.0).to_le_bytes());
        }
        for sum in blocks.finish() {
            chunk.extend_from_slice(&sum.to_le_bytes());
        }
        index_crc.update(&chunk[tail_start..]);
        chunk.extend_from_slice(&index_crc.finalize().to_le_bytes());
        w.write_all(&chunk)?;
        let crc = w.hasher.finalize();
        let mut out = w.inner;
        out.write_all(&crc.to_le_bytes())?;
        out.flush()?;
        Ok(crc)
    }

    /// Read BDDs written by [`Manager::save_to`] under `label` into this
    /// manager. The manager must have the same number of variables and the
    /// same order.
    pub fn load_from(&mut self, input: impl Read, label: &str) -> std::result::Result<Vec<Bdd>, LoadError> {
        self.load_with_room(input, label, 1 << 20)
    }

    /// [`Manager::load_from`], first making room in the node table for as
    /// many of the file's nodes as it says it holds, but at most `room` (a
    /// bound the caller knows, such as the file's length over 12 bytes, so
    /// that a damaged count cannot reserve memory before it is found out).
    fn load_with_room(&mut self, input: impl Read, label: &str, room: u64) -> std::result::Result<Vec<Bdd>, LoadError> {
        let mut r = Crc { inner: input, hasher: crc32fast::Hasher::new() };
        let bad = |s: String| Err(LoadError::Bad(s));
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return bad("not a c4bdd BDD file (bad magic bytes)".into());
        }
        let version = read_u32(&mut r)?;
        if version != FORMAT_VERSION && version != FORMAT_VERSION_UNBLOCKED {
            return bad(format!("format version {version}, this build reads version {FORMAT_VERSION}"));
        }
        let held = read_label(&mut r)?;
        if held != label {
            return bad(format!("it holds {held}, not {label}"));
        }
        let vars = read_u32(&mut r)? as usize;
        if vars != self.var_count() {
            return bad(format!("file has {vars} variables, the manager has {}", self.var_count()));
        }
        let order = self.order_ids();
        for (level, &ours) in order.iter().enumerate() {
            let v = read_u32(&mut r)?;
            if v != ours {
                return bad(format!("variable order differs at level {level} (file has variable {v})"));
            }
        }
        let count = read_u64(&mut r)?;
        if count >= u32::MAX as u64 - 2 {
            return bad(format!("node count {count} is out of range"));
        }
        let root_count = read_u32(&mut r)?;
        // Room for the file's nodes at once (fewer if some exist already), so
        // that the index does not grow, inserting every node again, while they load.
        let expected = count.min(room).min(self.table.max_nodes() as u64) as usize;
        let (pool, table) = (self.pool.as_deref(), &mut self.table);
        run_on(pool, |parallel| table.reserve(expected, expected, parallel));
        let mut blocks = BlockSums::default();
        let map = self.load_records(&mut r, count, expected, &mut blocks)?;
        let mut roots = Vec::with_capacity(root_count.min(1 << 20) as usize);
        let mut tail = Vec::new();
        for i in 0..root_count {
            let idx = read_u32(&mut r)?;
            tail.extend_from_slice(&idx.to_le_bytes());
            let Some(&(id, _)) = map.get(idx as usize) else {
                return bad(format!("root {i} refers to node {idx} of {}", map.len()));
            };
            roots.push(Bdd(id));
        }
        if version == FORMAT_VERSION {
            for (b, sum) in blocks.finish().into_iter().enumerate() {
                let stored = read_u32(&mut r)?;
                if stored != sum {
                    return bad(format!("block {b} of nodes does not match its checksum"));
                }
                tail.extend_from_slice(&stored.to_le_bytes());
            }
            let mut index = crc32fast::Hasher::new();
            index.update(&header_bytes(version, label, &order, count, root_count));
            index.update(&tail);
            if read_u32(&mut r)? != index.finalize() {
                return bad("the header, roots and block checksums do not match their checksum".into());
            }
        }
        let expected = r.hasher.clone().finalize();
        let stored = read_u32(&mut r.inner)?;
        if stored != expected {
            return bad(format!("checksum mismatch (stored {stored:08x}, computed {expected:08x})"));
        }
        let mut extra = [0u8; 1];
        if r.inner.read(&mut extra)? != 0 {
            return bad("trailing bytes after the checksum".into());
        }
        Ok(roots)
    }

    /// Save `roots` under `label` to `path` atomically: write a temporary
    /// file beside it, flush it to disk, then rename it over `path`. Returns
    /// the file's CRC-32.
    pub fn save(&self, roots: &[Bdd], label: &str, path: &Path) -> Result<u32> {
        replace_file(path, |file| {
            let mut w = BufWriter::with_capacity(1 << 20, file);
            let crc = self.save_to(roots, label, &mut w)?;
            w.flush()?;
            Ok(crc)
        })
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }

    /// Load BDDs saved by [`Manager::save`] under `label`; errors name the
    /// file, and a file of another label is refused.
    pub fn load(&mut self, path: &Path, label: &str) -> Result<Vec<Bdd>> {
        let io_err = |source| Error::Io { path: path.to_path_buf(), source };
        let file = open_regular(path).map_err(io_err)?;
        // Each node takes 12 bytes of the file.
        let room = file.metadata().map_err(io_err)?.len() / 12;
        match self.load_with_room(BufReader::with_capacity(1 << 20, file), label, room) {
            Ok(roots) => Ok(roots),
            Err(LoadError::Io(source)) => Err(Error::Io { path: path.to_path_buf(), source }),
            Err(LoadError::Bad(reason)) => {
                Err(Error::BadFile { path: path.to_path_buf(), reason: format!("failed its check: {reason}") })
            }
            Err(LoadError::Limit(e)) => Err(e),
        }
    }
}
