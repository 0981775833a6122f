//! The free slots of the node arena, one bit a slot.
//!
//! Invariants:
//! - bit `i % 64` of `words[i / 64]` is set exactly when slot `i` is free;
//!   the words cover the arena's slots and no more (`len.div_ceil(64)` words
//!   for `len` slots), and bits of slots past its length are clear;
//! - `count` is the number of set bits;
//! - every word below `cursor` is zero, so the lowest free slot is the lowest
//!   set bit at or after `cursor`. Slots are handed out lowest first.
//!
//! A stack of free indices would hold four bytes a free slot (half a gigabyte
//! once 136 M slots have been freed); the bitmap holds an eighth of a byte a
//! slot, and a parallel operation claims a word (up to 64 slots) at a time.

use rayon::prelude::*;

/// Slots a bitmap word covers.
pub(crate) const WORD_SLOTS: usize = 64;

pub(crate) struct FreeSet {
    words: Vec<u64>,
    count: usize,
    cursor: usize,
}

/// See [`FreeSet::parallel_parts`].
pub(crate) struct FreeParts {
    pub words: *mut u64,
    /// Words that may hold free slots: `cursor..len`.
    pub cursor: usize,
    pub len: usize,
}

impl FreeSet {
    /// An empty set covering `len` slots.
    pub fn new(len: usize) -> FreeSet {
        FreeSet { words: vec![0; len.div_ceil(WORD_SLOTS)], count: 0, cursor: 0 }
    }

    /// Number of free slots.
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<u64>()
    }

    /// Cover the slots below `len` (the new ones are not free).
    pub fn cover(&mut self, len: usize) {
        let need = len.div_ceil(WORD_SLOTS);
        if self.words.len() < need {
            self.words.resize(need, 0);
        }
    }

    /// Cover slot `i`, just appended to an arena of `i` slots (not free).
    #[inline]
    pub fn push_slot(&mut self, i: usize) {
        if i.is_multiple_of(WORD_SLOTS) {
            self.words.push(0);
        }
    }

    /// Empty the set and cover `len` slots; then [`FreeSet::mark`] the free ones.
    pub fn reset(&mut self, len: usize) {
        self.words.truncate(len.div_ceil(WORD_SLOTS));
        self.words.fill(0);
        self.cover(len);
        (self.count, self.cursor) = (0, 0);
    }

    /// Mark the covered slot `i` free while the set is rebuilt after
    /// [`FreeSet::reset`] (the cursor stays at the start).
    #[inline]
    pub fn mark(&mut self, i: usize) {
        self.words[i / WORD_SLOTS] |= 1 << (i % WORD_SLOTS);
        self.count += 1;
    }

    /// Take the lowest free slot, if any.
    #[inline]
    pub fn take(&mut self) -> Option<u32> {
        if self.count == 0 {
            return None;
        }
        // A free slot exists at or after the cursor (invariants), so the scan ends.
        loop {
            let w = self.words[self.cursor];
            if w != 0 {
                self.words[self.cursor] = w & (w - 1);
                self.count -= 1;
                return Some((self.cursor * WORD_SLOTS + w.trailing_zeros() as usize) as u32);
            }
            self.cursor += 1;
        }
    }

    /// Mark the covered slot `i` free (it must not be free already).
    pub fn insert(&mut self, i: usize) {
        let (k, bit) = (i / WORD_SLOTS, 1u64 << (i % WORD_SLOTS));
        debug_assert!(self.words[k] & bit == 0, "slot {i} is already free");
        self.words[k] |= bit;
        self.count += 1;
        self.cursor = self.cursor.min(k);
    }

    /// Whether slot `i` is free.
    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / WORD_SLOTS).is_some_and(|w| w >> (i % WORD_SLOTS) & 1 == 1)
    }

    /// Make the set hold exactly the slots below `len` for which `is_free`
    /// holds, on the current rayon pool.
    pub fn rebuild_parallel(&mut self, len: usize, is_free: impl Fn(usize) -> bool + Sync) {
        self.reset(len);
        let fill = |(k, w): (usize, &mut u64)| {
            let base = k * WORD_SLOTS;
            *w = (0..WORD_SLOTS.min(len - base)).filter(|&j| is_free(base + j)).fold(0, |w, j| w | 1 << j);
            w.count_ones() as usize
        };
        self.count = self.words.par_iter_mut().enumerate().with_min_len(1 << 10).map(fill).sum();
    }

    /// Whether the set holds exactly the slots below `len` for which `is_free`
    /// holds, and its count and cursor are right.
    pub fn is_exact(&self, len: usize, is_free: impl Fn(usize) -> bool) -> bool {
        let bits: usize = self.words.iter().map(|w| w.count_ones() as usize).sum();
        let slots = self.words.len() * WORD_SLOTS;
        bits == self.count
            && self.words.len() == len.div_ceil(WORD_SLOTS)
            && self.words[..self.cursor.min(self.words.len())].iter().all(|&w| w == 0)
            && (0..slots).all(|i| self.contains(i) == (i < len && is_free(i)))
    }

    /// The words a parallel operation claims from (each word by one thread,
    /// which clears it, hands out its slots and at the end puts back those it
    /// did not hand out); see [`FreeSet::finish_parallel`].
    pub fn parallel_parts(&mut self) -> FreeParts {
        let len = if self.count == 0 { self.cursor } else { self.words.len() };
        FreeParts { words: self.words.as_mut_ptr(), cursor: self.cursor, len }
    }

    /// Take back the set after a parallel operation on an arena of `len`
    /// slots: `taken` of its slots were handed out (their bits cleared), and
    /// `spare` slots (handed out, then given back, or new and not used) are
    /// free again.
    pub fn finish_parallel(&mut self, len: usize, taken: usize, spare: &[u32]) {
        self.cover(len);
        self.count -= taken;
        for &i in spare {
            self.insert(i as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FreeSet, WORD_SLOTS};

    /// Slots 0..300 with every third (and slots 64..128 all) free.
    fn sample() -> (usize, impl Fn(usize) -> bool + Sync) {
        (300, |i: usize| i.is_multiple_of(3) || (64..128).contains(&i))
    }

    #[test]
    fn takes_the_lowest_free_slot_first_until_none_is_left() {
        let (len, is_free) = sample();
        let mut set = FreeSet::new(0);
        rebuild(&mut set, len, &is_free);
        let expected: Vec<u32> = (0..len).filter(|&i| is_free(i)).map(|i| i as u32).collect();
        assert_eq!(set.count(), expected.len());
        let mut taken = Vec::new();
        while let Some(i) = set.take() {
            taken.push(i);
        }
        assert_eq!(taken, expected);
        assert!(set.is_exact(len, |_| false));
        // Freed again, slots come back lowest first, whatever the cursor passed.
        for i in [250, 7, 130] {
            set.insert(i);
        }
        assert!(set.is_exact(len, |i| [7, 130, 250].contains(&i)));
        assert_eq!((set.take(), set.take(), set.take(), set.take()), (Some(7), Some(130), Some(250), None));
    }

    /// The sequential rebuild, as the collector does it.
    fn rebuild(set: &mut FreeSet, len: usize, is_free: impl Fn(usize) -> bool) {
        set.reset(len);
        for i in (0..len).rev().filter(|&i| is_free(i)) {
            set.mark(i);
        }
    }

    #[test]
    fn parallel_rebuild_equals_sequential_and_new_slots_are_not_free() {
        let (len, is_free) = sample();
        let (mut a, mut b) = (FreeSet::new(0), FreeSet::new(0));
        rebuild(&mut a, len, &is_free);
        b.rebuild_parallel(len, &is_free);
        assert_eq!(a.words, b.words);
        assert_eq!(a.count(), b.count());
        a.cover(len + 3 * WORD_SLOTS);
        assert!(a.is_exact(len + 3 * WORD_SLOTS, |i| i < len && is_free(i)));
        for i in len + 3 * WORD_SLOTS..len + 5 * WORD_SLOTS + 1 {
            a.push_slot(i);
        }
        assert_eq!(a.words.len(), (len + 5 * WORD_SLOTS + 1).div_ceil(WORD_SLOTS));
        assert!(a.is_exact(len + 5 * WORD_SLOTS + 1, |i| i < len && is_free(i)));
        // A smaller arena (after a rebuild) drops the words past it.
        rebuild(&mut a, 10, &is_free);
        assert_eq!(a.words.len(), 1);
        assert!(a.is_exact(10, &is_free));
    }

    #[test]
    fn a_parallel_operation_gives_back_what_it_did_not_use() {
        let (len, is_free) = sample();
        let mut set = FreeSet::new(0);
        rebuild(&mut set, len, &is_free);
        set.take();
        let parts = set.parallel_parts();
        assert_eq!((parts.cursor, parts.len), (0, len.div_ceil(WORD_SLOTS)));
        // One thread claims words 0 and 1, hands out word 0's slots and slot
        // 64, gives slot 3 back and leaves the rest of word 1 unused; two
        // fresh slots past the end go unused.
        // SAFETY: the words lie inside the set, which nothing else touches.
        let (w0, w1) = unsafe { (std::mem::take(&mut *parts.words), std::mem::take(&mut *parts.words.add(1))) };
        // SAFETY: as above; the thread puts back the bits it did not hand out.
        unsafe { *parts.words.add(1) |= w1 & !1 };
        let taken = (w0.count_ones() + 1) as usize;
        set.finish_parallel(len + 2, taken, &[3, len as u32 + 1]);
        let free = |i: usize| {
            (65..128).contains(&i) || i == 3 || ((128..len).contains(&i) && i.is_multiple_of(3)) || i == len + 1
        };
        assert!(set.is_exact(len + 2, free));
        assert_eq!(set.take(), Some(3));
    }
}
