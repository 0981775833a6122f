//! The search's transposition table: two-entry buckets of one-word entries
//! (8 bytes with `u64` bitboards, 16 with `u128`).
//!
//! A position's key (`n` bits, below `2^n`) is multiplied by an odd constant
//! modulo `2^n`, a bijection: the product's top bits choose the bucket and its
//! low bits, the tag, are all the entry keeps of the key. Bucket and tag
//! together give the product back, so a tag equal in the chosen bucket means
//! the same position: the table is exact, never a hash that may collide.
//!
//! Entry layout, from the low bits: the tag ([`Table::TAG_BITS`] bits), the
//! work of the search that stored it (log2 of the positions it visited), the
//! lower and the upper bound on the score, each offset by 128 into a byte.
//! Scores lie within ±(cells + 1), at most ±105, so a stored upper bound's
//! byte is at least 23 and the all-zero word marks an empty slot.

use super::bits::Bits;

/// Where a position's entry lives: its bucket's first slot and its tag.
#[derive(Clone, Copy)]
pub(super) struct Slot<B> {
    bucket: usize,
    tag: B,
}

pub(super) struct Table<B: Bits> {
    /// Entries by slot; zeroed memory is an empty table.
    slots: Vec<B>,
    key_bits: u32,
    bucket_bits: u32,
}

impl<B: Bits> Table<B> {
    /// Bits of a key an entry holds.
    pub const TAG_BITS: u32 = B::BITS - 24;
    const WORK: u32 = Self::TAG_BITS;
    const LOWER: u32 = Self::TAG_BITS + 8;
    const UPPER: u32 = Self::TAG_BITS + 16;

    /// Whether keys of `key_bits` bits fit a table of `2^log2_entries`
    /// entries of this word: the bucket's index and the tag hold the key.
    pub fn fits(key_bits: u32, log2_entries: u32) -> bool {
        key_bits <= B::BITS && key_bits.saturating_sub(log2_entries - 1) <= Self::TAG_BITS
    }

    /// An empty table of `2^log2_entries` entries (`log2_entries >= 1`;
    /// fewer when the keys are fewer than the buckets).
    ///
    /// # Panics
    /// Unless [`Table::fits`].
    pub fn new(key_bits: u32, log2_entries: u32) -> Table<B> {
        assert!(Self::fits(key_bits, log2_entries), "{key_bits}-bit keys do not fit 2^{log2_entries} entries");
        let bucket_bits = (log2_entries - 1).min(key_bits);
        Table { slots: vec![B::ZERO; 2 << bucket_bits], key_bits, bucket_bits }
    }

    /// Bytes the table takes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * (B::BITS / 8) as usize
    }

    /// The slot of a key below `2^key_bits`.
    pub fn slot(&self, key: B) -> Slot<B> {
        let n = self.key_bits;
        let multiplier = B::from_u128(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
        let h = key.wrapping_mul(multiplier) & B::low_mask(n);
        let low = n - self.bucket_bits;
        Slot { bucket: 2 * (h >> low).to_u128() as usize, tag: h & B::low_mask(low) }
    }

    /// Ask the processor to bring the slot's bucket in.
    pub fn prefetch(&self, s: Slot<B>) {
        prefetch(&self.slots[s.bucket]);
    }

    /// The bounds stored for the slot's position, if any.
    pub fn find(&self, s: Slot<B>) -> Option<(i32, i32)> {
        let entry = [self.slots[s.bucket], self.slots[s.bucket + 1]].into_iter().find(|&e| Self::holds(e, s))?;
        let byte = |shift: u32| ((entry >> shift).to_u128() as u8) as i32 - 128;
        Some((byte(Self::LOWER), byte(Self::UPPER)))
    }

    /// Whether entry `e` is the slot's position's (not empty, the same tag).
    fn holds(e: B, s: Slot<B>) -> bool {
        e & B::low_mask(Self::TAG_BITS) == s.tag && e >> Self::UPPER != B::ZERO
    }

    /// Store bounds for the slot's position: in the bucket's first entry when
    /// it holds the same position or a search of no more work (which moves
    /// to the second), else in the second.
    pub fn store(&mut self, s: Slot<B>, work: u8, (lower, upper): (i32, i32)) {
        let byte = |score: i32| B::from_u128((score + 128) as u8 as u128);
        let e =
            s.tag | B::from_u128(work as u128) << Self::WORK | byte(lower) << Self::LOWER | byte(upper) << Self::UPPER;
        let first = self.slots[s.bucket];
        let first_work = (first >> Self::WORK).to_u128() as u8;
        if Self::holds(first, s) {
            self.slots[s.bucket] = e;
        } else if work >= first_work {
            self.slots[s.bucket + 1] = first;
            self.slots[s.bucket] = e;
        } else {
            self.slots[s.bucket + 1] = e;
        }
    }
}

/// Ask the processor to bring `x`'s cache line in (a hint; nothing elsewhere).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and `x` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounds made from a key, so that an entry found for the wrong key shows.
    fn bounds_of(key: u64) -> (i32, i32) {
        let a = (key % 97) as i32 - 48;
        (a, a + (key % 5) as i32)
    }

    /// Every key of a small key space stored in a table far smaller than it:
    /// whatever a lookup finds is the bounds stored for that very key, and
    /// the last key stored in each bucket is found.
    fn exact<B: Bits>(key_bits: u32, log2_entries: u32) {
        let mut table = Table::<B>::new(key_bits, log2_entries);
        let keys = 1u64 << key_bits;
        for key in 0..keys {
            let slot = table.slot(B::from_u128(key as u128));
            table.store(slot, 0, bounds_of(key));
            assert_eq!(table.find(slot), Some(bounds_of(key)), "key {key} just stored");
        }
        let mut found = 0;
        for key in 0..keys {
            if let Some(b) = table.find(table.slot(B::from_u128(key as u128))) {
                assert_eq!(b, bounds_of(key), "key {key}");
                found += 1;
            }
        }
        assert!(found >= 1 << log2_entries.min(key_bits), "{found} keys found");
    }

    #[test]
    fn a_tag_in_its_bucket_is_one_key() {
        exact::<u64>(14, 6);
        exact::<u64>(10, 16);
        exact::<u128>(12, 4);
    }
}
