//! Bit vectors over node slots (bit `g % 64` of word `g / 64` for slot `g`):
//! their atomic view for marking on several threads, the slots of their set
//! bits, dense positions of those bits, and a slice that tasks write at
//! distinct positions.

use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;

// The atomic view of a bit vector below relies on equal layouts.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// `bits` as atomics, for marking on several threads.
pub(crate) fn atomic(bits: &mut [u64]) -> &[AtomicU64] {
    // SAFETY: AtomicU64 has the size and (checked above) the alignment of
    // u64, and the exclusive borrow keeps every other access out while the
    // view lives.
    unsafe { &*(bits as *mut [u64] as *const [AtomicU64]) }
}

/// Words of a bit vector over `slots` slots.
pub(crate) fn words(slots: usize) -> usize {
    slots.div_ceil(64)
}

/// The slots of the set bits of `words`, whose first word is word `first`
/// of its bit vector, in increasing order.
pub(crate) fn set_slots(words: &[u64], first: usize) -> impl Iterator<Item = u32> + '_ {
    words.iter().enumerate().flat_map(move |(w, &word)| {
        let (base, mut rest) = (((first + w) * 64) as u32, word);
        std::iter::from_fn(move || {
            let bit = (rest != 0).then(|| rest.trailing_zeros())?;
            rest &= rest - 1;
            Some(base + bit)
        })
    })
}

/// A slice shared by tasks that write distinct positions: a raw pointer,
/// so that no reference to the whole slice exists while they write; it
/// borrows the slice exclusively for its lifetime, so nothing else touches
/// the slice meanwhile.
#[derive(Clone, Copy)]
pub(crate) struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    slice: PhantomData<&'a mut [T]>,
}

// SAFETY: the callers of `get` and `set` keep the contract stated there.
unsafe impl<T: Send> Send for Disjoint<'_, T> {}
// SAFETY: as for `Send`: tasks sharing it touch distinct positions only.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T: Copy> Disjoint<'a, T> {
    pub fn new(slice: &'a mut [T]) -> Disjoint<'a, T> {
        Disjoint { ptr: slice.as_mut_ptr(), len: slice.len(), slice: PhantomData }
    }

    /// The value at position `i`.
    ///
    /// # Safety
    /// No task writes position `i` meanwhile, and its last write happened
    /// before this read (e.g. in an earlier parallel section).
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> T {
        assert!(i < self.len);
        // SAFETY: in bounds; the caller rules out a concurrent write.
        unsafe { self.ptr.add(i).read() }
    }

    /// Write `v` at position `i`.
    ///
    /// # Safety
    /// No other task reads or writes position `i` meanwhile.
    #[inline(always)]
    pub unsafe fn set(&self, i: usize, v: T) {
        assert!(i < self.len);
        // SAFETY: in bounds; the caller rules out any concurrent access.
        unsafe { self.ptr.add(i).write(v) }
    }
}

/// Dense positions of the set bits: `position(g)` is the number of set bits
/// below slot `g`. Invariant: `before[w]` counts the set bits of words
/// `0..w` of the vector it was built from, which must not change after.
pub(crate) struct Rank {
    pub before: Vec<u32>,
}

impl Rank {
    pub fn new(bits: &[u64]) -> Rank {
        let mut total = 0u32;
        let before = bits
            .iter()
            .map(|w| {
                let at = total;
                total += w.count_ones();
                at
            })
            .collect();
        Rank { before }
    }

    /// The position of slot `g` among the set bits of `bits` (the vector
    /// this rank was built from).
    #[inline(always)]
    pub fn position(&self, bits: &[u64], g: u32) -> usize {
        let (w, below) = (g as usize / 64, (1u64 << (g % 64)) - 1);
        self.before[w] as usize + (bits[w] & below).count_ones() as usize
    }
}
