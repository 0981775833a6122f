//! The per-level map of a breadth-first walk: which request of a level's
//! list a key names.

use crate::prefetch::prefetch;

/// Open-addressed map from a request's key to its index in its level's
/// list: a slot holds the index plus one, 0 if empty. The map keeps no
/// keys: the caller gives a key's hash (made by [`mix`]) with a test
/// `same(i)` of whether request `i` has that key, and `hash_of(i)` to place
/// request `i` again. The map stays at most half full.
#[derive(Default)]
pub(crate) struct LevelMap {
    slots: Vec<u32>,
}

/// The hash of a 64-bit key, as the map takes it: its high half spread
/// over every bit of the key.
#[inline(always)]
pub(crate) fn mix(key: u64) -> u64 {
    let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

impl LevelMap {
    #[inline(always)]
    fn slot(&self, hash: u64) -> usize {
        (hash >> 32) as usize & (self.slots.len() - 1)
    }

    /// Hint the home slot of `hash`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[self.slot(hash)]);
        }
    }

    /// The request the home slot of `hash` names, if any (to hint it).
    #[inline(always)]
    pub(crate) fn at_home(&self, hash: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        (self.slots[self.slot(hash)] as usize).checked_sub(1)
    }

    /// The index of the key, or `len` (the list's length) if it is new
    /// and then taken by the caller's push: `(index, new)`.
    #[inline(always)]
    pub(crate) fn find_or_insert(
        &mut self,
        hash: u64,
        len: usize,
        same: impl Fn(usize) -> bool,
        hash_of: impl Fn(usize) -> u64,
    ) -> (u32, bool) {
        if 2 * (len + 1) > self.slots.len() {
            self.grow(len, hash_of);
        }
        let mask = self.slots.len() - 1;
        let mut s = self.slot(hash);
        loop {
            match self.slots[s] {
                0 => {
                    self.slots[s] = len as u32 + 1;
                    return (len as u32, true);
                }
                v if same(v as usize - 1) => return (v - 1, false),
                _ => s = (s + 1) & mask,
            }
        }
    }

    /// The index of the key, if the map holds it.
    #[inline(always)]
    pub(crate) fn find(&self, hash: u64, same: impl Fn(usize) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut s = self.slot(hash);
        loop {
            match self.slots[s] {
                0 => return None,
                v if same(v as usize - 1) => return Some(v - 1),
                _ => s = (s + 1) & mask,
            }
        }
    }

    #[cold]
    fn grow(&mut self, len: usize, hash_of: impl Fn(usize) -> u64) {
        self.slots = vec![0; (self.slots.len() * 2).max(64)];
        let mask = self.slots.len() - 1;
        for i in 0..len {
            let mut s = self.slot(hash_of(i));
            while self.slots[s] != 0 {
                s = (s + 1) & mask;
            }
            self.slots[s] = i as u32 + 1;
        }
    }

    /// Empty the map of the list's `len` entries: all slots at once where
    /// the map is at least an eighth full, else each entry's (searched
    /// from its home past the slots already emptied), so that a clear
    /// costs about what the operation filled.
    pub(crate) fn clear(&mut self, len: usize, hash_of: impl Fn(usize) -> u64) {
        if self.slots.len() <= 8 * len {
            self.slots.fill(0);
            return;
        }
        let mask = self.slots.len() - 1;
        for i in 0..len {
            let mut s = self.slot(hash_of(i));
            while self.slots[s] != i as u32 + 1 {
                s = (s + 1) & mask;
            }
            self.slots[s] = 0;
        }
    }

    /// Bytes its slots hold.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys with a shared hash (every eighth key's) are told apart by `same`,
    /// found again after the map grows, and gone after either kind of clear.
    #[test]
    fn keys_are_found_told_apart_and_cleared() {
        let hash = |k: u64| mix(k / 8);
        for (n, spare) in [(1000u64, 0usize), (20, 1 << 12)] {
            let mut map = LevelMap { slots: vec![0; spare] };
            let mut list: Vec<u64> = Vec::new();
            for k in 0..n {
                let (i, new) = map.find_or_insert(hash(k), list.len(), |i| list[i] == k, |i| hash(list[i]));
                assert_eq!((i as usize, new), (list.len(), true));
                list.push(k);
            }
            for k in 0..n {
                let again = map.find_or_insert(hash(k), list.len(), |i| list[i] == k, |i| hash(list[i]));
                assert_eq!(again, (k as u32, false));
                assert_eq!(map.find(hash(k), |i| list[i] == k), Some(k as u32));
            }
            assert_eq!(map.find(hash(n), |i| list[i] == n), None);
            map.clear(list.len(), |i| hash(list[i]));
            assert!(map.slots.iter().all(|&s| s == 0));
            assert_eq!(map.find(hash(0), |i| list[i] == 0), None);
        }
    }
}
