//! The node arena as the threads of one parallel operation share it
//! (`pages.rs` for the arena, `par.rs` for the operation).
//!
//! Before the operation the arena reserves capacity for more pages and
//! extends its page levels and bitmap over them. During it:
//! - bitmap words are claimed whole by an atomic swap, so each free slot is
//!   handed out once; each level's word list and the spare pages are popped
//!   through atomic counters, and new pages past the arena's end through
//!   another, within the reserved capacity;
//! - a thread that claims a page writes its level (and, for a new page, its
//!   free records) before it publishes any node of it, so every thread that
//!   finds a node through the index sees its page's level;
//! - every slot handed out is charged to a budget (the node limit less the
//!   live slots); an operation past it fails with `Full`, as one past the
//!   reserved pages does.
//!
//! Afterwards [`Arena::finish_parallel`] takes back what the threads left:
//! their claims, the slots they gave back, the words they popped but could
//! not pay for, and the new pages.

use std::sync::atomic::{AtomicIsize, AtomicU64, AtomicUsize, Ordering};

use crate::bits::atomic;
use crate::store::pages::{Arena, Claim, Rec, Source, NO_LEVEL, PAGE, PAGE_WORDS};

/// One thread's part of the arena in a parallel operation.
#[derive(Default)]
pub(crate) struct Part {
    /// A claim per level.
    claims: Vec<Claim>,
    /// Slots handed out and given back (lost insertion races).
    spare: Vec<u32>,
    /// Words popped whose bits the budget could not pay for.
    unpaid: Vec<usize>,
    /// Slots handed out, less those given back.
    handed: isize,
    /// New pages claimed past the arena's end.
    new_pages: usize,
    /// Set when the budget ran out.
    spent: bool,
}

/// The arena's shared view. See the module documentation.
pub(crate) struct SharedArena<'a> {
    recs: *mut Rec,
    levels: *mut u32,
    bitmap: &'a [AtomicU64],
    words: &'a [Vec<u32>],
    words_left: Vec<AtomicUsize>,
    spare: &'a [u32],
    spare_left: AtomicUsize,
    next_page: AtomicUsize,
    cap_pages: usize,
    budget: AtomicIsize,
    /// Whether the budget is the node limit's.
    limited: bool,
}

// SAFETY: threads write only records and page levels of pages they claimed
// (through the atomic counters, each page by one thread) and slots handed
// out to them (through the bitmap's atomic swaps), and publish nodes with
// release ordering (`index_table.rs`); everything else is atomic or read-only.
unsafe impl Sync for SharedArena<'_> {}

impl<'a> SharedArena<'a> {
    /// Share `arena` (as many pages as its capacity holds) with a budget of
    /// `budget` slots to hand out, `limited` when the node limit sets it.
    pub fn new(arena: &'a mut Arena, budget: usize, limited: bool) -> SharedArena<'a> {
        let cap_pages = arena.recs.capacity() / PAGE;
        let pages = arena.pages();
        arena.levels.resize(cap_pages.max(pages), NO_LEVEL);
        arena.bitmap.resize(cap_pages.max(pages) * PAGE_WORDS, 0);
        let recs = arena.recs.as_mut_ptr();
        let levels = arena.levels.as_mut_ptr();
        SharedArena {
            recs,
            levels,
            bitmap: atomic(&mut arena.bitmap),
            words_left: arena.words.iter().map(|w| AtomicUsize::new(w.len())).collect(),
            words: &arena.words,
            spare_left: AtomicUsize::new(arena.spare.len()),
            spare: &arena.spare,
            next_page: AtomicUsize::new(pages),
            cap_pages,
            budget: AtomicIsize::new(budget.min(isize::MAX as usize) as isize),
            limited,
        }
    }

    /// A free slot of `level` for the thread whose part is `part`, or `None`
    /// when the budget or the reserved pages are used up.
    #[inline(always)]
    pub fn alloc(&self, part: &mut Part, level: u32) -> Option<u32> {
        if part.claims.len() <= level as usize {
            part.claims.resize(level as usize + 1, Claim::default());
        }
        let mut claim = std::mem::take(&mut part.claims[level as usize]);
        let id = claim.take(level, &mut PartSource { arena: self, part });
        part.claims[level as usize] = claim;
        part.handed += id.is_some() as isize;
        id
    }

    /// Give back slot `id`, handed out to `part` and never published.
    pub fn give_back(&self, part: &mut Part, id: u32) {
        // SAFETY: the slot was handed out to this thread and never published.
        unsafe { self.recs.add(id as usize).write(Rec::FREE) };
        part.spare.push(id);
        part.handed -= 1;
    }

    /// Write a node's record into a slot handed out to this thread.
    #[inline(always)]
    pub fn write(&self, id: u32, rec: Rec) {
        // SAFETY: the slot lies in the capacity and was handed out to this
        // thread, which publishes it only after this write.
        unsafe { self.recs.add(id as usize).write(rec) };
    }

    /// The record of a published slot (or a terminal).
    #[inline(always)]
    pub fn rec(&self, i: u32) -> Rec {
        // SAFETY: published records are never written during the operation.
        unsafe { *self.recs.add(i as usize) }
    }

    /// Hint that slot `i`'s record is read soon.
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        crate::prefetch::prefetch(self.recs.wrapping_add(i as usize));
    }

    /// The level of a published slot's page.
    #[inline(always)]
    pub fn level(&self, i: u32) -> u32 {
        // SAFETY: a published slot's page was claimed, and its level written,
        // before the slot was published.
        unsafe { *self.levels.add((i >> crate::store::pages::PAGE_BITS) as usize) }
    }

    /// What the arena needs back from the operation: see [`Arena::finish_parallel`].
    pub fn finish(self, parts: Vec<Part>) -> Returned {
        Returned {
            pages: self.next_page.load(Ordering::Relaxed).min(self.cap_pages),
            words_left: self.words_left.into_iter().map(AtomicUsize::into_inner).collect(),
            spare_left: self.spare_left.into_inner(),
            limited: self.limited,
            parts,
        }
    }
}

/// What a parallel operation leaves for the arena.
pub(crate) struct Returned {
    pages: usize,
    words_left: Vec<usize>,
    spare_left: usize,
    limited: bool,
    parts: Vec<Part>,
}

impl Returned {
    /// Whether the operation reached the node limit: a thread found the
    /// budget spent, and the limit set it.
    pub fn reached_limit(&self) -> bool {
        self.limited && self.parts.iter().any(|p| p.spent)
    }
}

/// A thread's [`Source`]: the shared view and the thread's part.
struct PartSource<'s, 'a> {
    arena: &'s SharedArena<'a>,
    part: &'s mut Part,
}

impl Source for PartSource<'_, '_> {
    #[inline]
    fn take_word(&mut self, w: usize) -> Option<u64> {
        let bits = self.arena.bitmap[w].swap(0, Ordering::Relaxed);
        let n = bits.count_ones() as isize;
        if n > 0 && self.arena.budget.fetch_sub(n, Ordering::Relaxed) < n {
            self.arena.budget.fetch_add(n, Ordering::Relaxed);
            self.arena.bitmap[w].fetch_or(bits, Ordering::Relaxed);
            self.part.unpaid.push(w);
            self.part.spent = true;
            return None;
        }
        Some(bits)
    }

    #[inline]
    fn pop_word(&mut self, level: u32) -> Option<usize> {
        let left = self.arena.words_left.get(level as usize)?;
        let k = left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).ok()?;
        Some(self.arena.words[level as usize][k - 1] as usize)
    }

    fn new_page(&mut self, level: u32) -> Option<usize> {
        let a = self.arena;
        let page = match a.spare_left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)) {
            Ok(k) => a.spare[k - 1] as usize,
            Err(_) => {
                let p = a.next_page.fetch_add(1, Ordering::Relaxed);
                if p >= a.cap_pages {
                    return None;
                }
                for i in p * PAGE..(p + 1) * PAGE {
                    // SAFETY: the page lies in the capacity and this thread claimed it.
                    unsafe { a.recs.add(i).write(Rec::FREE) };
                }
                self.part.new_pages += 1;
                p
            }
        };
        // SAFETY: the page was claimed by this thread alone.
        unsafe { a.levels.add(page).write(level) };
        for w in &a.bitmap[page * PAGE_WORDS..(page + 1) * PAGE_WORDS] {
            w.store(!0, Ordering::Relaxed);
        }
        Some(page)
    }
}

impl Arena {
    /// Take back the arena after a parallel operation (see [`SharedArena::finish`]).
    pub fn finish_parallel(&mut self, r: Returned) {
        // SAFETY: every page below `r.pages` was written: before the
        // operation, or by the thread that claimed it.
        unsafe { self.recs.set_len(r.pages * PAGE) };
        self.levels.truncate(r.pages);
        self.bitmap.truncate(r.pages * PAGE_WORDS);
        for (list, &left) in self.words.iter_mut().zip(&r.words_left) {
            list.truncate(left);
        }
        self.spare.truncate(r.spare_left);
        for mut part in r.parts {
            self.free += part.new_pages * PAGE;
            self.free = (self.free as isize - part.handed) as usize;
            for (level, claim) in part.claims.iter_mut().enumerate() {
                let words = &mut self.words;
                claim.release(&mut self.bitmap, |w| words[level].push(w as u32));
            }
            for i in part.spare {
                let w = i as usize / 64;
                self.bitmap[w] |= 1 << (i % 64);
                self.push_word(w);
            }
            for w in part.unpaid {
                self.push_word(w);
            }
        }
    }
}
