//! The node arena: 8-byte records `(low, high)` in pages of [`PAGE`] slots,
//! each page holding the nodes of one level, whose level is kept once per
//! page. A node's level is `levels[index >> PAGE_BITS]`: a small table (4
//! bytes per 32 KiB page) that stays in the processor's caches, read beside
//! the record itself.
//!
//! Invariants:
//! - page 0 holds the terminals (slots 0 and 1) and nothing else; its level
//!   is `TERMINAL_LEVEL`;
//! - every other page either has a level, and then each of its slots is a
//!   node of that level or free ([`Rec::FREE`]), or is spare (level
//!   [`NO_LEVEL`], every slot free, its bitmap words 0);
//! - a free slot of a page with a level has its bit set in the bitmap, or is
//!   held by a [`Claim`] (its bits, or a word of its page range), never both;
//!   a set bit is a free slot of a page with a level;
//! - each level's word list names every bitmap word of that level's pages
//!   that has a set bit (and maybe words that no longer have one);
//! - `free` counts the free slots of pages other than page 0: set bits,
//!   claimed slots and spare pages' slots.
//!
//! Slots are handed out per level through a [`Claim`]: the bits of one
//! bitmap word (up to 64 slots) taken at once, then the next word of the
//! level's list, then a spare or new page. The sequential manager has one
//! claim per level; each thread of a parallel operation has its own
//! (`par.rs`), and the same [`Claim::take`] serves both through a [`Source`].

use rayon::prelude::*;

use crate::store::node::{Node, NIL, TERMINAL_LEVEL};

/// Slots per page: `2^PAGE_BITS`.
pub(crate) const PAGE_BITS: u32 = 12;
/// Slots per page.
pub(crate) const PAGE: usize = 1 << PAGE_BITS;
/// Bitmap words per page.
pub(crate) const PAGE_WORDS: usize = PAGE / 64;
/// The level of a spare page.
pub(crate) const NO_LEVEL: u32 = u32::MAX;
/// Most slots an arena has: whole pages, every index below [`NIL`].
pub(crate) const MAX_SLOTS: usize = (NIL as usize / PAGE) * PAGE;

/// A slot's record: the children of its node, or [`Rec::FREE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Rec {
    pub low: u32,
    pub high: u32,
}

impl Rec {
    /// A free slot (also the terminals' record): no node has equal children.
    pub const FREE: Rec = Rec { low: NIL, high: NIL };

    /// Whether the slot holds no node (a terminal's slot reads as free).
    #[inline(always)]
    pub fn is_free(self) -> bool {
        self.low == self.high
    }
}

/// The slots a context is handing out for one level: the free bits of one
/// bitmap word, then the words `next..end` of a page it claimed whole.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Claim {
    bits: u64,
    word: usize,
    next: usize,
    end: usize,
}

/// Where claims get more slots: the arena itself (sequential) or its
/// shared view (parallel, `par.rs`).
pub(crate) trait Source {
    /// The set bits of bitmap word `w`, cleared there; `None` when the
    /// operation may hand out no more slots (its budget is spent).
    fn take_word(&mut self, w: usize) -> Option<u64>;
    /// A bitmap word of `level`'s list (it may have no set bit).
    fn pop_word(&mut self, level: u32) -> Option<usize>;
    /// A spare or new page, now of `level`, every slot free and its bits
    /// set; `None` when there is none within the reserved capacity.
    fn new_page(&mut self, level: u32) -> Option<usize>;
}

impl Claim {
    /// A free slot of `level`, from this claim or from `src`.
    #[inline(always)]
    pub fn take(&mut self, level: u32, src: &mut impl Source) -> Option<u32> {
        while self.bits == 0 {
            self.refill(level, src)?;
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some((self.word * 64 + bit) as u32)
    }

    #[inline(never)]
    fn refill(&mut self, level: u32, src: &mut impl Source) -> Option<()> {
        let w = if self.next < self.end {
            self.next += 1;
            self.next - 1
        } else if let Some(w) = src.pop_word(level) {
            w
        } else {
            let page = src.new_page(level)?;
            (self.next, self.end) = (page * PAGE_WORDS + 1, (page + 1) * PAGE_WORDS);
            page * PAGE_WORDS
        };
        self.word = w;
        self.bits = src.take_word(w)?;
        Some(())
    }

    /// Give back what the claim holds: its bits into `bitmap`, and every
    /// word it held or had yet to take into `words`.
    pub fn release(&mut self, bitmap: &mut [u64], mut words: impl FnMut(usize)) {
        if self.bits != 0 {
            bitmap[self.word] |= self.bits;
            words(self.word);
        }
        (self.next..self.end).for_each(&mut words);
        *self = Claim::default();
    }
}

/// The arena. See the module documentation.
pub(crate) struct Arena {
    /// Every slot, `pages * PAGE` of them.
    pub recs: Vec<Rec>,
    /// Each page's level.
    pub levels: Vec<u32>,
    /// A bit per slot: free and not claimed.
    pub bitmap: Vec<u64>,
    /// Per level: bitmap words that may have set bits.
    pub words: Vec<Vec<u32>>,
    /// Spare pages.
    pub spare: Vec<u32>,
    /// The sequential context's claim per level.
    claims: Vec<Claim>,
    /// Free slots outside page 0.
    pub free: usize,
}

/// A read-only view of the arena's nodes.
#[derive(Clone, Copy)]
pub(crate) struct Nodes<'a> {
    recs: &'a [Rec],
    levels: &'a [u32],
}

impl Nodes<'_> {
    /// The node in slot `i` (a free slot reads with its page's level and
    /// equal children).
    #[inline(always)]
    pub fn get(&self, i: u32) -> Node {
        let r = self.recs[i as usize];
        Node { level: self.levels[(i >> PAGE_BITS) as usize], low: r.low, high: r.high }
    }

    /// Hint that slot `i`'s record is read soon.
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        if let Some(r) = self.recs.get(i as usize) {
            crate::prefetch::prefetch(r);
        }
    }

    /// The level of slot `i`'s page.
    #[inline(always)]
    pub fn level(&self, i: u32) -> u32 {
        self.levels[(i >> PAGE_BITS) as usize]
    }

    /// Whether slot `i` holds an internal node.
    #[inline]
    pub fn is_node(&self, i: u32) -> bool {
        (i as usize) < self.recs.len() && i >= PAGE as u32 && !self.recs[i as usize].is_free()
    }

    /// Slots in all.
    pub fn slots(&self) -> usize {
        self.recs.len()
    }

    /// The pages of each level below `levels`, in increasing order.
    pub fn pages_by_level(&self, levels: usize) -> Vec<Vec<u32>> {
        let mut pages = vec![Vec::new(); levels];
        for (p, &level) in self.levels.iter().enumerate().skip(1) {
            if let Some(list) = pages.get_mut(level as usize) {
                list.push(p as u32);
            }
        }
        pages
    }
}

impl Arena {
    /// An arena of page 0 with room reserved for `initial` slots.
    pub fn new(initial: usize) -> Arena {
        let mut recs = Vec::with_capacity(initial.max(PAGE).next_multiple_of(PAGE));
        recs.resize(PAGE, Rec::FREE);
        Arena {
            recs,
            levels: vec![TERMINAL_LEVEL],
            bitmap: vec![0; PAGE_WORDS],
            words: Vec::new(),
            spare: Vec::new(),
            claims: Vec::new(),
            free: 0,
        }
    }

    /// The read-only view.
    #[inline(always)]
    pub fn nodes(&self) -> Nodes<'_> {
        Nodes { recs: &self.recs, levels: &self.levels }
    }

    /// Pages in all.
    pub fn pages(&self) -> usize {
        self.levels.len()
    }

    /// Internal nodes.
    #[inline]
    pub fn nodes_held(&self) -> usize {
        (self.pages() - 1) * PAGE - self.free
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.recs.capacity() * std::mem::size_of::<Rec>()
            + self.levels.capacity() * 4
            + self.bitmap.capacity() * 8
            + self.words.iter().map(|w| w.capacity() * 4).sum::<usize>()
            + self.spare.capacity() * 4
    }

    /// Make every level below `levels` known to the lists and claims.
    #[inline]
    pub fn cover_levels(&mut self, levels: usize) {
        if self.words.len() < levels {
            self.words.resize_with(levels, Vec::new);
            self.claims.resize(levels, Claim::default());
        }
    }

    /// A free slot of `level`, the arena growing by a page when it has
    /// none; `None` only when it has [`MAX_SLOTS`] slots.
    #[inline]
    pub fn alloc(&mut self, level: u32) -> Option<u32> {
        self.cover_levels(level as usize + 1);
        let mut claim = std::mem::take(&mut self.claims[level as usize]);
        let id = claim.take(level, &mut *self);
        self.claims[level as usize] = claim;
        self.free -= id.is_some() as usize;
        id
    }

    /// Put bitmap word `w` on its page's level's list.
    pub fn push_word(&mut self, w: usize) {
        let level = self.levels[w / PAGE_WORDS];
        self.words[level as usize].push(w as u32);
    }

    /// Free every node for which `keep` is false (with `parallel`, on the
    /// current rayon pool); pages left without a node become spare. Rebuilds
    /// the bitmap, the lists and the count. Returns the nodes freed.
    pub fn sweep(&mut self, keep: impl Fn(usize) -> bool + Sync, parallel: bool) -> usize {
        self.claims.fill(Claim::default());
        let one = |(k, ((recs, level), bits))| sweep_page((k + 1) * PAGE, recs, level, bits, &keep);
        let (recs, levels, bitmap) = (&mut self.recs[PAGE..], &mut self.levels[1..], &mut self.bitmap[PAGE_WORDS..]);
        let freed = if parallel {
            let pages = recs.par_chunks_mut(PAGE).zip(levels.par_iter_mut()).zip(bitmap.par_chunks_mut(PAGE_WORDS));
            pages.enumerate().map(one).sum()
        } else {
            let pages = recs.chunks_mut(PAGE).zip(levels.iter_mut()).zip(bitmap.chunks_mut(PAGE_WORDS));
            pages.enumerate().map(one).sum()
        };
        self.rebuild_lists();
        freed
    }

    /// The lists, the spare pages and the count, from the levels and the bitmap.
    fn rebuild_lists(&mut self) {
        self.words.iter_mut().for_each(Vec::clear);
        self.spare.clear();
        self.free = 0;
        for p in 1..self.pages() {
            let level = self.levels[p];
            if level == NO_LEVEL {
                self.spare.push(p as u32);
                self.free += PAGE;
                continue;
            }
            self.cover_levels(level as usize + 1);
            for w in p * PAGE_WORDS..(p + 1) * PAGE_WORDS {
                if self.bitmap[w] != 0 {
                    self.words[level as usize].push(w as u32);
                    self.free += self.bitmap[w].count_ones() as usize;
                }
            }
        }
        // Lists are popped from their ends: lowest slots first.
        self.spare.reverse();
        self.words.iter_mut().for_each(|w| w.reverse());
    }

    /// Whether the bitmap, the claims, the spare pages and the count agree
    /// with the records (see the module's invariants); the first
    /// disagreement otherwise.
    pub fn check(&self) -> Result<(), String> {
        let mut claimed = vec![false; self.bitmap.len()];
        let mut claimed_bits = vec![0u64; self.bitmap.len()];
        for c in &self.claims {
            claimed_bits[c.word] |= c.bits;
            (c.next..c.end).for_each(|w| claimed[w] = true);
        }
        let mut free = 0;
        for p in 1..self.pages() {
            let level = self.levels[p];
            for i in p * PAGE..(p + 1) * PAGE {
                let (w, bit) = (i / 64, 1u64 << (i % 64));
                let is_free = self.recs[i].is_free();
                let set = self.bitmap[w] & bit != 0;
                let held = claimed[w] || claimed_bits[w] & bit != 0;
                if level == NO_LEVEL && (!is_free || set) || level != NO_LEVEL && is_free != (set || held) {
                    return Err(format!(
                        "slot {i} of page {p} (level {level}): free {is_free}, bit {set}, claimed {held}"
                    ));
                }
                free += is_free as usize;
            }
        }
        if free != self.free {
            return Err(format!("{free} free slots, {} counted", self.free));
        }
        Ok(())
    }
}

/// Free the nodes of the page at slot `base` (records `recs`, level
/// `level`, bitmap words `bits`) for which `keep` is false, set its bits
/// for its free slots, and make it spare if none is left. Returns the
/// nodes freed.
fn sweep_page(base: usize, recs: &mut [Rec], level: &mut u32, bits: &mut [u64], keep: impl Fn(usize) -> bool) -> usize {
    bits.fill(0);
    if *level == NO_LEVEL {
        return 0;
    }
    let mut freed = 0;
    for (j, r) in recs.iter_mut().enumerate() {
        if !r.is_free() && !keep(base + j) {
            *r = Rec::FREE;
            freed += 1;
        }
        if r.is_free() {
            bits[j / 64] |= 1 << (j % 64);
        }
    }
    if bits.iter().all(|&w| w == !0) {
        *level = NO_LEVEL;
        bits.fill(0);
    }
    freed
}

impl Source for Arena {
    #[inline]
    fn take_word(&mut self, w: usize) -> Option<u64> {
        Some(std::mem::take(&mut self.bitmap[w]))
    }

    #[inline]
    fn pop_word(&mut self, level: u32) -> Option<usize> {
        self.words[level as usize].pop().map(|w| w as usize)
    }

    fn new_page(&mut self, level: u32) -> Option<usize> {
        let page = match self.spare.pop() {
            Some(p) => p as usize,
            None => {
                let p = self.pages();
                if (p + 1) * PAGE > MAX_SLOTS {
                    return None;
                }
                crate::store::memory::reserve_more(&mut self.recs, PAGE);
                self.recs.resize((p + 1) * PAGE, Rec::FREE);
                self.levels.push(NO_LEVEL);
                self.bitmap.resize((p + 1) * PAGE_WORDS, 0);
                self.free += PAGE;
                p
            }
        };
        self.levels[page] = level;
        self.bitmap[page * PAGE_WORDS..(page + 1) * PAGE_WORDS].fill(!0);
        Some(page)
    }
}

#[cfg(test)]
mod tests {
    use super::{Arena, Claim, Rec, Source, MAX_SLOTS, NO_LEVEL, PAGE, PAGE_WORDS};

    /// Hand out `n` slots of `level`, each given the record `(level, k)`
    /// (any two distinct children mark a slot as used).
    fn fill(a: &mut Arena, level: u32, n: usize) -> Vec<u32> {
        (0..n)
            .map(|k| {
                let id = a.alloc(level).expect("room");
                assert!(a.recs[id as usize].is_free(), "slot {id} handed out twice");
                a.recs[id as usize] = Rec { low: level, high: k as u32 + 1000 };
                id
            })
            .collect()
    }

    #[test]
    fn each_level_grows_in_pages_of_its_own() {
        let mut a = Arena::new(0);
        let ones = fill(&mut a, 1, PAGE + 10);
        let fives = fill(&mut a, 5, 3);
        let more = fill(&mut a, 1, 5);
        assert_eq!(a.pages(), 4, "page 0, two pages of level 1, one of level 5");
        for (ids, level) in [(&ones, 1), (&fives, 5), (&more, 1)] {
            assert!(ids.iter().all(|&i| a.nodes().level(i) == level && a.nodes().is_node(i)));
        }
        let mut all: Vec<u32> = ones.iter().chain(&fives).chain(&more).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), PAGE + 18);
        assert_eq!(a.nodes_held(), PAGE + 18);
        a.check().unwrap();
    }

    #[test]
    fn a_collection_frees_slots_for_their_level_and_empty_pages_for_any() {
        let mut a = Arena::new(0);
        let ones = fill(&mut a, 1, PAGE);
        let twos = fill(&mut a, 2, 100);
        let keep: Vec<u32> = twos.iter().step_by(2).copied().collect();
        let freed = a.sweep(|i| keep.contains(&(i as u32)), false);
        assert_eq!(freed, PAGE + 50);
        // The same collection on the pool leaves the same arena.
        let mut b = Arena::new(0);
        fill(&mut b, 1, PAGE);
        fill(&mut b, 2, 100);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(pool.install(|| b.sweep(|i| keep.contains(&(i as u32)), true)), freed);
        assert_eq!(
            (&b.recs, &b.levels, &b.bitmap, &b.words, &b.spare, b.free),
            (&a.recs, &a.levels, &a.bitmap, &a.words, &a.spare, a.free)
        );
        assert_eq!(a.nodes_held(), 50);
        let one_page = ones[0] as usize / PAGE;
        assert_eq!(a.levels[one_page], NO_LEVEL, "level 1's page has no node left: spare");
        assert_eq!(a.spare, vec![one_page as u32]);
        a.check().unwrap();
        // Level 2 refills its own freed slots before taking a page.
        let refill = fill(&mut a, 2, 50);
        assert!(refill.iter().all(|&i| twos.contains(&i)));
        // A new level takes the spare page; the arena does not grow.
        let pages = a.pages();
        let threes = fill(&mut a, 3, 10);
        assert!(threes.iter().all(|&i| i as usize / PAGE == one_page));
        assert_eq!(a.pages(), pages);
        a.check().unwrap();
    }

    /// A source whose only page is the last one below [`MAX_SLOTS`].
    struct Last;

    impl Source for Last {
        fn take_word(&mut self, _: usize) -> Option<u64> {
            Some(!0)
        }
        fn pop_word(&mut self, _: u32) -> Option<usize> {
            None
        }
        fn new_page(&mut self, _: u32) -> Option<usize> {
            Some(MAX_SLOTS / PAGE - 1)
        }
    }

    #[test]
    fn the_largest_slot_is_below_nil() {
        let mut claim = Claim::default();
        let mut src = Last;
        let first = claim.take(7, &mut src).unwrap();
        assert_eq!(first as usize, MAX_SLOTS - PAGE);
        let mut last = first;
        for _ in 1..PAGE {
            last = claim.take(7, &mut src).unwrap();
        }
        assert_eq!(last as usize, MAX_SLOTS - 1);
        assert!(last < super::NIL && (last as usize) < (MAX_SLOTS / PAGE) * PAGE);
        assert_eq!(PAGE_WORDS * 64, PAGE);
    }
}
