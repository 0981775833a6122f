//! Computed cache: direct-mapped and lossy, keyed by `(op, a, b, c)`.
//!
//! An entry's `op` word holds the operation's tag in its low 8 bits and, in
//! its upper 24 bits, a version the parallel operations use to detect torn
//! reads (see `par.rs`).
//!
//! Invariants: the length is a power of two; an entry with tag 0 is empty;
//! every node index stored in a non-empty entry (operands marked as nodes by
//! [`Op::node_operands`], and the result) refers to a live node. The GC keeps
//! this true by dropping entries that mention a freed node.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The cached operations; the discriminant is the cache tag (0 = empty entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u32)]
pub enum Op {
    Not = 1,
    And,
    Or,
    Xor,
    Diff,
    Imp,
    Ite,
    Exists,
    Forall,
    AndExists,
    Rename,
    Restrict,
    Image,
    Preimage,
    Minimize,
    /// Never stored: the steps of [`crate::bdd::Manager::split`], whose
    /// halves are cached as `And` and `Diff`.
    Split,
}

impl Op {
    /// Every operation, in tag order.
    pub const ALL: [Op; 16] = [
        Op::Not,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Diff,
        Op::Imp,
        Op::Ite,
        Op::Exists,
        Op::Forall,
        Op::AndExists,
        Op::Rename,
        Op::Restrict,
        Op::Image,
        Op::Preimage,
        Op::Minimize,
        Op::Split,
    ];

    /// Number of operations (length of per-operation statistic arrays).
    pub const COUNT: usize = Op::ALL.len();

    /// Position in per-operation arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize - 1
    }

    /// Lower-case name used in statistics output.
    pub fn name(self) -> &'static str {
        match self {
            Op::Not => "not",
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
            Op::Diff => "diff",
            Op::Imp => "imp",
            Op::Ite => "ite",
            Op::Exists => "exists",
            Op::Forall => "forall",
            Op::AndExists => "and_exists",
            Op::Rename => "rename",
            Op::Restrict => "restrict",
            Op::Image => "image",
            Op::Preimage => "preimage",
            Op::Minimize => "minimize",
            Op::Split => "split",
        }
    }

    /// Which of the operands `(b, c)` hold node indices (operand `a` always
    /// does). The others hold variable-set or renaming identifiers, or 0.
    fn node_operands(self) -> (bool, bool) {
        match self {
            Op::Not | Op::Exists | Op::Forall | Op::Rename => (false, false),
            Op::AndExists => (true, false),
            Op::Ite => (true, true),
            _ => (true, false),
        }
    }
}

#[derive(Clone, Copy, Default)]
#[repr(C)]
pub(crate) struct Entry {
    op: u32,
    a: u32,
    b: u32,
    c: u32,
    result: u32,
}

pub(crate) struct Cache {
    pub(crate) entries: Vec<Entry>,
    pub(crate) shift: u32,
}

/// The tag bits of an entry's `op` word.
pub(crate) const TAG_MASK: u32 = 0xff;

#[inline(always)]
pub(crate) fn slot(op: u32, a: u32, b: u32, c: u32, shift: u32) -> usize {
    let h = (a as u64 | (b as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (c as u64 | (op as u64) << 32).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    ((h ^ (h >> 32)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> shift) as usize
}

impl Cache {
    /// A cache of `len` entries, rounded up to a power of two (at least 256).
    pub fn new(len: usize) -> Cache {
        let len = len.next_power_of_two().max(256);
        Cache { entries: super::memory::filled(len, Entry::default()), shift: 64 - len.trailing_zeros() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>()
    }

    #[inline]
    pub fn get(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        let e = &self.entries[slot(op as u32, a, b, c, self.shift)];
        (e.op & TAG_MASK == op as u32 && e.a == a && e.b == b && e.c == c).then_some(e.result)
    }

    #[inline]
    pub fn put(&mut self, op: Op, a: u32, b: u32, c: u32, result: u32) {
        let i = slot(op as u32, a, b, c, self.shift);
        self.entries[i] = Entry { op: op as u32, a, b, c, result };
    }

    /// Grow to `len` entries (a power of two), keeping what still fits.
    /// Doubling works in place: an entry's slot gains one bit of its hash,
    /// so entry `i` moves to `2i` or `2i + 1`, which (going down from the
    /// top) are free by then. The table never exists twice (a copy held the
    /// old table beside the new one: half the new size more at its peak).
    pub fn resize(&mut self, len: usize) {
        let len = len.next_power_of_two().max(256);
        let old_len = self.entries.len();
        if len == old_len {
            return;
        }
        if len == 2 * old_len {
            super::memory::reserve_total(&mut self.entries, len);
            self.entries.resize(len, Entry::default());
            self.shift -= 1;
            for i in (0..old_len).rev() {
                let e = std::mem::take(&mut self.entries[i]);
                if e.op & TAG_MASK != 0 {
                    self.entries[slot(e.op & TAG_MASK, e.a, e.b, e.c, self.shift)] = e;
                }
            }
            return;
        }
        let old = std::mem::replace(&mut self.entries, super::memory::filled(len, Entry::default()));
        self.shift = 64 - len.trailing_zeros();
        for e in old.into_iter().filter(|e| e.op & TAG_MASK != 0) {
            self.entries[slot(e.op & TAG_MASK, e.a, e.b, e.c, self.shift)] = e;
        }
    }

    /// Drop every entry that mentions a node for which `live` is false.
    /// Returns the number of entries kept.
    /// With `parallel`, on the current rayon pool.
    pub fn retain_live(&mut self, live: impl Fn(u32) -> bool + Sync, parallel: bool) -> usize {
        let retain = |chunk: &mut [Entry]| -> usize {
            let mut kept = 0;
            for e in chunk.iter_mut().filter(|e| e.op & TAG_MASK != 0) {
                if Self::entry_live(e, &live) {
                    kept += 1;
                } else {
                    e.op = 0;
                }
            }
            kept
        };
        if parallel {
            self.entries.par_chunks_mut(1 << 16).map(retain).sum()
        } else {
            retain(&mut self.entries)
        }
    }

    /// Empty every entry.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    /// Index of the first entry that mentions a node for which `live` is false.
    pub fn first_stale(&self, live: impl Fn(u32) -> bool) -> Option<usize> {
        self.entries.iter().position(|e| e.op & TAG_MASK != 0 && !Self::entry_live(e, &live))
    }

    fn entry_live(e: &Entry, live: &impl Fn(u32) -> bool) -> bool {
        let (b_node, c_node) = Op::ALL[(e.op & TAG_MASK) as usize - 1].node_operands();
        live(e.a) && live(e.result) && (!b_node || live(e.b)) && (!c_node || live(e.c))
    }
}
