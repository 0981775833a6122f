//! The unique table's index: an open-addressed hash table of node indices,
//! in groups of [`GROUP_SLOTS`] slots that each fill one 64-byte cache line
//! with an 8-bit tag per slot.
//!
//! A slot holds a node index (0, the terminal false, which is never stored,
//! marks an empty slot) and its tag, eight bits of the node's hash (never
//! 0). A lookup reads the group its hash maps to, compares the node of
//! each slot whose tag matches (one node read where a tagless table reads
//! one per occupied slot), and goes on to the next group only when this
//! one is full: about one cache line and one node per lookup.
//!
//! Invariants:
//! - slots are only filled, never emptied, except by [`IndexTable::clear`]
//!   (the collector empties the table and inserts the survivors again);
//! - a node is put in the first empty slot of its probe sequence (its home
//!   group, then the following groups, wrapping around), so in each group
//!   the filled slots come first, and a lookup that meets an empty slot can
//!   stop;
//! - a slot's index is written before its tag (with release ordering when
//!   threads share the table): a set tag means a set index, and a reader
//!   that finds an index without its tag compares that node all the same;
//! - the table is never full: its owner grows it (or, for a parallel
//!   operation, sizes it beforehand) so that at most [`MAX_LOAD`] of its
//!   slots are filled.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

/// Slots per group: 12 indices and 12 tags fill 64 bytes.
pub(crate) const GROUP_SLOTS: usize = 12;

/// The share of slots a table may have filled; past it its owner grows it.
pub(crate) const MAX_LOAD: f64 = 0.9;

/// One cache line: 12 node indices and their tags (bytes 0..8 in
/// `tags[0]`, 8..12 in the low half of `tags[1]`).
#[repr(C, align(64))]
#[derive(Default)]
pub(crate) struct Group {
    index: [AtomicU32; GROUP_SLOTS],
    tags: [AtomicU64; 2],
}

const _: () = assert!(std::mem::size_of::<Group>() == 64);

/// Where a lookup stopped without finding its node: the first empty slot
/// of its probe sequence, `step` groups past the home group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Vacancy {
    step: usize,
    slot: usize,
}

impl Vacancy {
    /// The position right after this one: where a lookup goes on once
    /// another thread has filled this slot.
    pub fn next(self) -> Vacancy {
        Vacancy { step: self.step, slot: self.slot + 1 }
    }
}

/// The hash table. See the module documentation.
pub(crate) struct IndexTable {
    groups: Vec<Group>,
    /// Most entries at [`MAX_LOAD`].
    room: usize,
}

/// Most entries `groups` groups take at [`MAX_LOAD`].
pub(crate) fn room_of(groups: usize) -> usize {
    (groups as f64 * GROUP_SLOTS as f64 * MAX_LOAD) as usize
}

/// The tag of hash `h`: eight of its middle bits, never 0.
#[inline(always)]
fn tag_of(h: u64) -> u8 {
    ((h >> 32) as u8).max(1)
}

/// The slots of a group in [`scan`]'s masks.
const SLOTS_MASK: u32 = (1 << GROUP_SLOTS) - 1;

/// Bit `k` set for each of the group's slots `k` whose tag is `tag`, and
/// likewise (in the second value) for each whose tag is unset.
#[inline(always)]
fn scan(group: &Group, tag: u8) -> (u32, u32) {
    let lo = group.tags[0].load(Ordering::Acquire);
    let hi = group.tags[1].load(Ordering::Acquire);
    let (matching, unset) = byte_masks([lo, hi], tag);
    (matching & SLOTS_MASK, unset & SLOTS_MASK)
}

/// Bit `k` set for each byte `k` of `words` (little-endian) equal to `tag`,
/// and (second) for each equal to 0.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn byte_masks(words: [u64; 2], tag: u8) -> (u32, u32) {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x, _mm_setzero_si128};
    // SAFETY: SSE2, which these intrinsics need, is part of x86_64.
    unsafe {
        let v = _mm_set_epi64x(words[1] as i64, words[0] as i64);
        let matching = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(tag as i8)));
        let unset = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
        (matching as u32, unset as u32)
    }
}

/// Bit `k` set for each byte `k` of `words` (little-endian) equal to `tag`,
/// and (second) for each equal to 0.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn byte_masks(words: [u64; 2], tag: u8) -> (u32, u32) {
    let (mut matching, mut unset) = (0, 0);
    for k in 0..16 {
        let byte = (words[k / 8] >> (8 * (k % 8))) as u8;
        matching |= ((byte == tag) as u32) << k;
        unset |= ((byte == 0) as u32) << k;
    }
    (matching, unset)
}

impl IndexTable {
    /// A table of `groups` empty groups (at least one).
    pub fn new(groups: usize) -> IndexTable {
        let mut v = Vec::new();
        v.resize_with(groups.max(1), Group::default);
        IndexTable { room: room_of(v.len()), groups: v }
    }

    /// Groups that hold `entries` at a load of `load`.
    pub fn groups_for(entries: usize, load: f64) -> usize {
        ((entries as f64 / (GROUP_SLOTS as f64 * load)).ceil() as usize).max(1)
    }

    /// Most entries the table takes at [`MAX_LOAD`].
    #[inline]
    pub fn room(&self) -> usize {
        self.room
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Group>()
    }

    #[inline(always)]
    fn group(&self, h: u64, step: usize) -> &Group {
        let len = self.groups.len();
        let home = ((h as u128 * len as u128) >> 64) as usize;
        let at = home + step;
        &self.groups[if at >= len { at - len } else { at }]
    }

    /// The index whose node `is_key` accepts, looked up by the node's hash
    /// `h` from `from` on (`Vacancy::default()` for the start), or the first
    /// empty slot after `from` when there is none.
    #[inline]
    pub fn find(&self, h: u64, from: Vacancy, is_key: impl Fn(u32) -> bool) -> Result<u32, Vacancy> {
        let tag = tag_of(h);
        let mut at = from;
        loop {
            let group = self.group(h, at.step);
            let (matching, unset) = scan(group, tag);
            let after = !0u32 << at.slot;
            let mut m = matching & after;
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                let i = group.index[k].load(Ordering::Relaxed);
                if is_key(i) {
                    return Ok(i);
                }
                m &= m - 1;
            }
            // Slots whose tag is not yet written: empty, or just filled by another thread.
            let mut u = unset & after;
            while u != 0 {
                let k = u.trailing_zeros() as usize;
                let i = group.index[k].load(Ordering::Acquire);
                if i == 0 {
                    return Err(Vacancy { step: at.step, slot: k });
                }
                if is_key(i) {
                    return Ok(i);
                }
                u &= u - 1;
            }
            at = Vacancy { step: at.step + 1, slot: 0 };
            debug_assert!(at.step <= self.groups.len(), "the index table is full");
        }
    }

    /// Fill the vacancy `at` of hash `h` with `id`, with no other thread
    /// using the table.
    #[inline]
    pub fn fill(&mut self, h: u64, at: Vacancy, id: u32) {
        let group = self.group(h, at.step);
        group.index[at.slot].store(id, Ordering::Relaxed);
        let (word, shift) = (at.slot / 8, 8 * (at.slot % 8));
        let tags = group.tags[word].load(Ordering::Relaxed);
        group.tags[word].store(tags | (tag_of(h) as u64) << shift, Ordering::Relaxed);
    }

    /// Fill the vacancy `at` of hash `h` with `id` while other threads use
    /// the table; `Err` with the index another thread filled it with first.
    #[inline]
    pub fn claim(&self, h: u64, at: Vacancy, id: u32) -> Result<(), u32> {
        let group = self.group(h, at.step);
        group.index[at.slot].compare_exchange(0, id, Ordering::Release, Ordering::Acquire)?;
        let (word, shift) = (at.slot / 8, 8 * (at.slot % 8));
        group.tags[word].fetch_or((tag_of(h) as u64) << shift, Ordering::Release);
        Ok(())
    }

    /// Put `id`, which no slot holds, with hash `h`.
    pub fn insert_new(&mut self, h: u64, id: u32) {
        let at = self.find(h, Vacancy::default(), |_| false).expect_err("never found");
        self.fill(h, at, id);
    }

    /// [`IndexTable::insert_new`] while other threads insert too.
    pub fn insert_new_shared(&self, h: u64, id: u32) {
        let mut from = Vacancy::default();
        loop {
            let at = self.find(h, from, |_| false).expect_err("never found");
            match self.claim(h, at, id) {
                Ok(()) => return,
                Err(_) => from = at.next(),
            }
        }
    }

    /// Ask the processor to bring the home group of hash `h` into its cache
    /// (a hint; nothing on targets without one).
    #[inline(always)]
    pub fn prefetch(&self, h: u64) {
        crate::prefetch::prefetch(self.group(h, 0));
    }

    /// Call `each` with the indices in the home group of hash `h` whose
    /// tags match its own: the nodes a lookup of `h` reads first.
    #[inline(always)]
    pub fn home_matches(&self, h: u64, mut each: impl FnMut(u32)) {
        let group = self.group(h, 0);
        let (mut m, _) = scan(group, tag_of(h));
        while m != 0 {
            each(group.index[m.trailing_zeros() as usize].load(Ordering::Relaxed));
            m &= m - 1;
        }
    }

    /// Whether `id` is in the probe sequence of hash `h`.
    pub fn contains(&self, h: u64, id: u32) -> bool {
        self.find(h, Vacancy::default(), |i| i == id).is_ok()
    }

    /// Empty every slot (with `parallel`, on the current rayon pool).
    pub fn clear(&mut self, parallel: bool) {
        let empty = |g: &mut Group| *g = Group::default();
        if parallel {
            self.groups.par_iter_mut().with_min_len(1 << 12).for_each(empty);
        } else {
            self.groups.iter_mut().for_each(empty);
        }
    }

    /// Replace the table by an empty one of `groups` groups (the old one's
    /// memory is given back first).
    pub fn reset(&mut self, groups: usize, parallel: bool) {
        self.groups = Vec::new();
        let mut v: Vec<Group> = Vec::with_capacity(groups.max(1));
        if parallel {
            v.par_extend((0..groups.max(1)).into_par_iter().with_min_len(1 << 12).map(|_| Group::default()));
        } else {
            v.resize_with(groups.max(1), Group::default);
        }
        self.room = room_of(v.len());
        self.groups = v;
    }
}

#[cfg(test)]
mod tests {
    use super::{IndexTable, Vacancy, GROUP_SLOTS};

    /// A weak hash, so that keys crowd into few groups and overflow.
    fn crowded(key: u32) -> u64 {
        ((key % 5) as u64) << 60 | (key as u64) << 32
    }

    #[test]
    fn finds_what_was_filled_across_full_groups_and_wraps_around() {
        let mut t = IndexTable::new(8);
        let keys: Vec<u32> = (2..2 + 8 * GROUP_SLOTS as u32 * 9 / 10).collect();
        for &k in &keys {
            let at = t.find(crowded(k), Vacancy::default(), |i| i == k).expect_err("absent");
            t.fill(crowded(k), at, k);
        }
        for &k in &keys {
            assert_eq!(t.find(crowded(k), Vacancy::default(), |i| i == k), Ok(k));
            assert!(t.contains(crowded(k), k));
        }
        assert!(t.find(crowded(1000), Vacancy::default(), |i| i == 1000).is_err());
        t.clear(false);
        assert!(!t.contains(crowded(2), 2));
    }

    #[test]
    fn shared_inserts_from_threads_each_land_once() {
        let t = IndexTable::new(64);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        pool.install(|| {
            use rayon::prelude::*;
            (2..600u32).into_par_iter().for_each(|k| t.insert_new_shared(crowded(k), k));
        });
        for k in 2..600u32 {
            assert!(t.contains(crowded(k), k), "{k}");
        }
        let filled =
            t.groups.iter().flat_map(|g| g.index.iter()).filter(|i| i.load(std::sync::atomic::Ordering::Relaxed) != 0);
        assert_eq!(filled.count(), 598);
    }

    /// The masks of a group's tags, against each byte read one by one.
    #[test]
    fn byte_masks_mark_the_bytes_equal_to_the_tag_and_to_zero() {
        let words = [0x0011_2233_0044_5566u64, 0x7700_8899_AA00_BB22];
        for tag in [0x22u8, 0x00, 0x77, 0x01, 0x66] {
            let (matching, unset) = super::byte_masks(words, tag);
            for k in 0..16 {
                let byte = (words[k / 8] >> (8 * (k % 8))) as u8;
                assert_eq!(matching >> k & 1 == 1, byte == tag, "tag {tag:#x}, byte {k}");
                assert_eq!(unset >> k & 1 == 1, byte == 0, "byte {k}");
            }
        }
    }

    #[test]
    fn a_lost_claim_reports_the_winner() {
        let t = IndexTable::new(1);
        let at = t.find(7, Vacancy::default(), |_| false).expect_err("empty");
        assert_eq!(t.claim(7, at, 5), Ok(()));
        assert_eq!(t.claim(7, at, 6), Err(5));
        assert_eq!(t.find(7, Vacancy::default(), |i| i == 5), Ok(5));
    }
}
