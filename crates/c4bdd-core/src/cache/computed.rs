//! Computed cache: direct-mapped and lossy, keyed by `(op, a, b, c)`.
//!
//! An entry is 16 bytes, aligned to 16, so that four fill a cache line and
//! none straddles two, and the parallel operations read and write it with one
//! 16-byte atomic access (see `par.rs`). Its `key` word holds the operation's
//! tag in its low 8 bits and the third operand `c` in its upper 24 bits: `c`
//! is never a node (a variable set, pairing or 0), and a step whose `c` does
//! not fit is not cached.
//!
//! Invariants: the length is a power of two; an entry with tag 0 is empty;
//! every node index stored in a non-empty entry (operands marked as nodes by
//! [`Op::b_is_node`], and the result) refers to a live node. The GC keeps
//! this true by dropping entries that mention a freed node.

use rayon::prelude::*;

/// The cached operations; the discriminant is the cache tag (0 = empty entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u32)]
pub enum Op {
    Not = 1,
    And,
    Or,
    Xor,
    Diff,
    Imp,
    Exists,
    Forall,
    AndExists,
    Rename,
    Restrict,
    Image,
    Preimage,
    Minimize,
    /// Never stored: the steps of [`crate::Manager::split`], whose
    /// halves are cached as `And` and `Diff`.
    Split,
    /// Never stored here: the steps of [`crate::Manager::split3`], which
    /// has a table of its own (`split3.rs`).
    Split3,
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
        Op::Exists,
        Op::Forall,
        Op::AndExists,
        Op::Rename,
        Op::Restrict,
        Op::Image,
        Op::Preimage,
        Op::Minimize,
        Op::Split,
        Op::Split3,
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
            Op::Exists => "exists",
            Op::Forall => "forall",
            Op::AndExists => "and_exists",
            Op::Rename => "rename",
            Op::Restrict => "restrict",
            Op::Image => "image",
            Op::Preimage => "preimage",
            Op::Minimize => "minimize",
            Op::Split => "split",
            Op::Split3 => "split3",
        }
    }

    /// Whether operand `b` holds a node index (operand `a` always does, `c`
    /// never). Otherwise it holds a variable-set or renaming identifier, or 0.
    fn b_is_node(self) -> bool {
        !matches!(self, Op::Not | Op::Exists | Op::Forall | Op::Rename)
    }
}

/// One cache entry: 16 bytes, aligned so that it never straddles a cache line.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub(crate) struct Entry {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) result: u32,
    /// The operation's tag (low 8 bits) and the operand `c` (upper 24 bits).
    pub(crate) key: u32,
}

impl Entry {
    /// The `key` word of `op` with third operand `c`, or `None` when `c` does not fit.
    #[inline(always)]
    fn key_of(op: Op, c: u32) -> Option<u32> {
        (c <= MAX_C).then_some(op as u32 | c << 8)
    }

    /// The entry for `op(a, b, c) = result`, or `None` when `c` does not fit.
    #[inline(always)]
    pub(crate) fn new(op: Op, a: u32, b: u32, c: u32, result: u32) -> Option<Entry> {
        Some(Entry { a, b, result, key: Self::key_of(op, c)? })
    }

    /// The result, when this entry holds `op(a, b, c)`.
    #[inline(always)]
    pub(crate) fn result_of(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        (Some(self.key) == Self::key_of(op, c) && self.a == a && self.b == b).then_some(self.result)
    }

    /// The entry as one 128-bit word (`a` in the low 32 bits), for atomic access.
    #[inline(always)]
    pub(crate) fn to_bits(self) -> u128 {
        self.a as u128 | (self.b as u128) << 32 | (self.result as u128) << 64 | (self.key as u128) << 96
    }

    #[inline(always)]
    pub(crate) fn from_bits(v: u128) -> Entry {
        Entry { a: v as u32, b: (v >> 32) as u32, result: (v >> 64) as u32, key: (v >> 96) as u32 }
    }

    #[inline(always)]
    fn tag(&self) -> u32 {
        self.key & TAG_MASK
    }

    /// The entry's slot among `2^(64 - shift)` (the entry must not be empty).
    #[inline(always)]
    fn slot(&self, shift: u32) -> usize {
        slot(self.tag(), self.a, self.b, self.key >> 8, shift)
    }
}

/// The largest operand `c` an entry holds (24 bits).
pub(crate) const MAX_C: u32 = (1 << 24) - 1;

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
        Cache { entries: vec![Entry::default(); len], shift: 64 - len.trailing_zeros() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>()
    }

    #[inline]
    pub fn get(&self, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        self.get_at(self.slot_of(op, a, b, c), op, a, b, c)
    }

    /// The slot of `op(a, b, c)` at the cache's present size (a later
    /// [`Cache::resize`] moves it; the size is `1 << (64 - shift)`).
    #[inline(always)]
    pub fn slot_of(&self, op: Op, a: u32, b: u32, c: u32) -> usize {
        slot(op as u32, a, b, c, self.shift)
    }

    /// [`Cache::get`] at a slot from [`Cache::slot_of`]. A slot taken before
    /// a resize reads another entry, whose key then does not match: a miss,
    /// never a wrong result.
    #[inline(always)]
    pub fn get_at(&self, slot: usize, op: Op, a: u32, b: u32, c: u32) -> Option<u32> {
        self.entries.get(slot).and_then(|e| e.result_of(op, a, b, c))
    }

    /// Hint that the entry of `op(a, b, c)` is read soon.
    #[inline(always)]
    pub fn prefetch(&self, op: Op, a: u32, b: u32, c: u32) {
        self.prefetch_at(self.slot_of(op, a, b, c));
    }

    /// Hint that the entry at `slot` is read soon.
    #[inline(always)]
    pub fn prefetch_at(&self, slot: usize) {
        if let Some(e) = self.entries.get(slot) {
            crate::prefetch::prefetch(e);
        }
    }

    #[inline]
    pub fn put(&mut self, op: Op, a: u32, b: u32, c: u32, result: u32) {
        if let Some(e) = Entry::new(op, a, b, c, result) {
            self.entries[slot(op as u32, a, b, c, self.shift)] = e;
        }
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
            crate::store::memory::reserve_total(&mut self.entries, len);
            self.entries.resize(len, Entry::default());
            self.shift -= 1;
            for i in (0..old_len).rev() {
                let e = std::mem::take(&mut self.entries[i]);
                if e.tag() != 0 {
                    self.entries[e.slot(self.shift)] = e;
                }
            }
            return;
        }
        let old = std::mem::replace(&mut self.entries, vec![Entry::default(); len]);
        self.shift = 64 - len.trailing_zeros();
        for e in old.into_iter().filter(|e| e.tag() != 0) {
            self.entries[e.slot(self.shift)] = e;
        }
    }

    /// Drop every entry that mentions a node for which `live` is false.
    /// Returns the number of entries kept.
    /// With `parallel`, on the current rayon pool.
    pub fn retain_live(&mut self, live: impl Fn(u32) -> bool + Sync, parallel: bool) -> usize {
        let retain = |chunk: &mut [Entry]| -> usize {
            let mut kept = 0;
            for e in chunk.iter_mut().filter(|e| e.tag() != 0) {
                if Self::entry_live(e, &live) {
                    kept += 1;
                } else {
                    e.key = 0;
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

    /// [`Cache::clear`], with `parallel` on the current rayon pool.
    pub fn clear_with(&mut self, parallel: bool) {
        if parallel {
            self.entries.par_chunks_mut(1 << 16).for_each(|c| c.fill(Entry::default()));
        } else {
            self.clear();
        }
    }

    /// Index of the first entry that mentions a node for which `live` is false.
    pub fn first_stale(&self, live: impl Fn(u32) -> bool) -> Option<usize> {
        self.entries.iter().position(|e| e.tag() != 0 && !Self::entry_live(e, &live))
    }

    fn entry_live(e: &Entry, live: &impl Fn(u32) -> bool) -> bool {
        let b_node = Op::ALL[e.tag() as usize - 1].b_is_node();
        live(e.a) && live(e.result) && (!b_node || live(e.b))
    }
}

#[cfg(test)]
mod tests {
    use super::{Cache, Entry, Op, MAX_C};

    #[test]
    fn an_entry_is_sixteen_aligned_bytes_and_one_word() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        assert_eq!(std::mem::align_of::<Entry>(), 16);
        let e = Entry::new(Op::Image, 7, 0xffff_fffe, MAX_C, 42).unwrap();
        assert_eq!(Entry::from_bits(e.to_bits()), e);
        assert_eq!(e.result_of(Op::Image, 7, 0xffff_fffe, MAX_C), Some(42));
        assert_eq!(e.result_of(Op::Preimage, 7, 0xffff_fffe, MAX_C), None);
        assert_eq!(e.result_of(Op::Image, 7, 0xffff_fffe, MAX_C - 1), None);
    }

    #[test]
    fn a_third_operand_beyond_24_bits_is_never_cached_nor_aliased() {
        let mut cache = Cache::new(256);
        assert!(Entry::new(Op::AndExists, 2, 3, MAX_C + 1, 5).is_none());
        cache.put(Op::AndExists, 2, 3, MAX_C + 1, 5);
        assert_eq!(cache.get(Op::AndExists, 2, 3, MAX_C + 1), None);
        // c = 2^24 would wrap to 0 in the key word: no entry answers for it.
        cache.put(Op::AndExists, 2, 3, 0, 9);
        assert_eq!(cache.get(Op::AndExists, 2, 3, 0), Some(9));
        assert_eq!(cache.get(Op::AndExists, 2, 3, MAX_C + 1), None);
    }
}
