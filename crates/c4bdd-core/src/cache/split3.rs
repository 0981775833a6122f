//! The three-way split's computed table. An entry is 32 bytes, two 16-byte
//! atomic words, `(f, g, h, won)` and `(drawn, lost, seq)`, written under a
//! sequence lock (`seq` odd while a writer holds it): a reader takes an entry
//! only if `seq` is even and unchanged around its read of the key word, so it
//! never combines two writes. The table holds a share of the main cache's
//! entries (`Config::split3_cache_ratio`; a sixteenth by default, an eighth
//! of its bytes) and is emptied by every collection, so no entry names a
//! freed node.

use std::sync::atomic::Ordering;

use portable_atomic::AtomicU128;
use rayon::prelude::*;

#[repr(C, align(32))]
#[derive(Default)]
struct Slot {
    /// `f | g << 32 | h << 64 | won << 96`.
    key: AtomicU128,
    /// `drawn | lost << 32 | seq << 64`.
    rest: AtomicU128,
}

/// The three-way split's computed table (see the module documentation).
#[derive(Default)]
pub(crate) struct Split3Cache {
    slots: Vec<Slot>,
    shift: u32,
}

const SEQ_ONE: u128 = 1 << 64;

impl Split3Cache {
    /// Hold `len` entries (a power of two, at least 256), emptied if the size changes.
    pub fn fit(&mut self, len: usize) {
        let len = len.next_power_of_two().max(256);
        if self.slots.len() != len {
            self.slots = Vec::new();
            self.slots = (0..len).map(|_| Slot::default()).collect();
            self.shift = 64 - len.trailing_zeros();
        }
    }

    /// Forget every entry (with `parallel`, on the current rayon pool).
    pub fn clear(&mut self, parallel: bool) {
        let empty = |chunk: &mut [Slot]| chunk.iter_mut().for_each(|s| *s = Slot::default());
        if parallel {
            self.slots.par_chunks_mut(1 << 15).for_each(empty);
        } else {
            empty(&mut self.slots);
        }
    }

    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    /// Hint that the entry of `(f, g, h)` is read soon.
    #[inline(always)]
    pub fn prefetch(&self, f: u32, g: u32, h: u32) {
        crate::prefetch::prefetch(self.slot(f, g, h));
    }

    #[inline(always)]
    fn slot(&self, f: u32, g: u32, h: u32) -> &Slot {
        let x = (f as u64 | (g as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (h as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let i = ((x ^ (x >> 32)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> self.shift) as usize;
        &self.slots[i]
    }

    /// The cached results of `split3(f, g, h)` (`f` is never FALSE, so an
    /// empty entry matches no step).
    #[inline]
    pub fn get(&self, f: u32, g: u32, h: u32) -> Option<(u32, u32, u32)> {
        let s = self.slot(f, g, h);
        let before = s.rest.load(Ordering::Acquire);
        if before & SEQ_ONE != 0 {
            return None;
        }
        let key = s.key.load(Ordering::Acquire);
        if s.rest.load(Ordering::Acquire) != before {
            return None;
        }
        let key_of = f as u128 | (g as u128) << 32 | (h as u128) << 64;
        (key & !(u128::from(u32::MAX) << 96) == key_of).then_some((
            (key >> 96) as u32,
            before as u32,
            (before >> 32) as u32,
        ))
    }

    /// Remember `split3(f, g, h) = r` (skipped while another writer holds the entry).
    #[inline]
    pub fn put(&self, f: u32, g: u32, h: u32, r: (u32, u32, u32)) {
        let s = self.slot(f, g, h);
        let before = s.rest.load(Ordering::Relaxed);
        if before & SEQ_ONE != 0 {
            return;
        }
        let seq = before >> 64;
        if s.rest.compare_exchange(before, before + SEQ_ONE, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return;
        }
        s.key.store(f as u128 | (g as u128) << 32 | (h as u128) << 64 | (r.0 as u128) << 96, Ordering::Release);
        s.rest.store(r.1 as u128 | (r.2 as u128) << 32 | (seq + 2) << 64, Ordering::Release);
    }
}
