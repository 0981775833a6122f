//! Where a ply's time goes: its wall time split by phase, each phase without
//! the garbage collections run inside it (those are counted apart, as `gc_s`).

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::encoding::StateSpace;

/// Seconds of one ply, or of a whole pass, by phase.
///
/// Invariant: the phases of a ply add up to at most its `time_s`; the rest is
/// bookkeeping (pinning, saving checkpoints). A solve writes its solution
/// files within `count_s`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Removing (count) or splitting off (solve) the terminal states, where
    /// the player who just moved has four in a row.
    pub terminal_s: f64,
    /// Images (forward pass) and pre-images (retrograde pass), the joins of
    /// their parts included.
    pub image_s: f64,
    /// Counting the positions and BDD nodes of the ply's sets. In a solve
    /// that stores its solution, writing the ply's file too (beside the
    /// counting, or after it when the node table is large).
    pub count_s: f64,
    /// Garbage collection.
    pub gc_s: f64,
    /// Retrograde pass: sorting the non-terminal states into won, drawn and
    /// lost (`split3` depth-first, binary walks breadth-first). Zero in the
    /// forward pass, and not serialized then, so that records written before
    /// the field keep their checksums.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub split_s: f64,
}

/// How far a ply had come when its work was saved part way: its seconds and
/// phases so far. A process that takes the save up goes on from them, so the
/// ply's record holds the work of every process but what was lost unsaved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SoFar {
    pub time_s: f64,
    pub phases: Phases,
}

fn is_zero(s: &f64) -> bool {
    *s == 0.0
}

/// A phase of [`Phases`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Terminal,
    Image,
    Count,
    Gc,
    Split,
}

impl Phase {
    /// Every phase, in the order of declaration (so `ALL[p as usize] == p`).
    pub const ALL: [Phase; 5] = [Phase::Terminal, Phase::Image, Phase::Count, Phase::Gc, Phase::Split];

    /// What the phase does, as a message names it.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Terminal => "splitting off the terminal states",
            Phase::Image => "an image or pre-image",
            Phase::Count => "counting (and saving) a ply's sets",
            Phase::Gc => "a garbage collection",
            Phase::Split => "splitting a ply into won, drawn and lost",
        }
    }

    /// The phase that [`Phases::time`] is running now, if any. It reads one
    /// atomic and allocates nothing, so that the out-of-memory stop, which
    /// runs inside the allocator, can name the phase.
    pub fn current() -> Option<Phase> {
        (CURRENT.load(Ordering::Relaxed) as usize).checked_sub(1).map(|i| Phase::ALL[i])
    }

    /// Its code in [`CURRENT`].
    fn code(self) -> u8 {
        self as u8 + 1
    }
}

/// Write `head`, ` during <phase>` when [`Phase::current`] names one,
/// `: an allocation of <size>` and `tail` to the file descriptor `fd`. It
/// allocates nothing, for the handlers of a failed allocation, which run
/// inside the allocator.
#[cfg(unix)]
pub fn write_allocation_failure(fd: i32, head: &[u8], size: usize, tail: &[u8]) {
    let mut digits = [0u8; 20];
    let (mut i, mut n) = (digits.len(), size);
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let (during, phase): (&[u8], &[u8]) = match Phase::current() {
        Some(p) => (b" during ", p.name().as_bytes()),
        None => (b"", b""),
    };
    let parts: [&[u8]; 6] = [head, during, phase, b": an allocation of ", &digits[i..], tail];
    for part in parts {
        // SAFETY: write(2) of buffers that live on the stack or are static:
        // async-signal-safe, and it allocates nothing.
        unsafe { libc::write(fd, part.as_ptr().cast(), part.len()) };
    }
}

/// The phase [`Phases::time`] runs now: its index in [`Phase::ALL`] plus one
/// (0: none). The binary runs one pass at a time, so one value serves it.
static CURRENT: AtomicU8 = AtomicU8::new(0);

impl Phases {
    /// Run `f` on `space`, adding its wall time, less the collections it ran,
    /// to `phase`, and those collections to `gc_s`.
    pub fn time<T>(&mut self, space: &mut StateSpace, phase: Phase, f: impl FnOnce(&mut StateSpace) -> T) -> T {
        let (start, gc_before) = (Instant::now(), space.manager.gc_time());
        let outer = CURRENT.swap(phase.code(), Ordering::Relaxed);
        let r = f(space);
        CURRENT.store(outer, Ordering::Relaxed);
        *self = self.with_running(space, phase, start, gc_before);
        r
    }

    /// These phases with `phase`, running since `start` (when the manager's
    /// collections had taken `gc_before`), added as [`Phases::time`] adds it
    /// when it returns: for the phases so far of a ply saved part way.
    pub fn with_running(mut self, space: &StateSpace, phase: Phase, start: Instant, gc_before: Duration) -> Phases {
        let gc = (space.manager.gc_time() - gc_before).as_secs_f64();
        let rest = (start.elapsed().as_secs_f64() - gc).max(0.0);
        self.gc_s += gc;
        *match phase {
            Phase::Terminal => &mut self.terminal_s,
            Phase::Image => &mut self.image_s,
            Phase::Count => &mut self.count_s,
            Phase::Gc => &mut self.gc_s,
            Phase::Split => &mut self.split_s,
        } += rest;
        self
    }

    /// The phases of both, added.
    pub fn plus(self, o: Phases) -> Phases {
        Phases {
            terminal_s: self.terminal_s + o.terminal_s,
            image_s: self.image_s + o.image_s,
            count_s: self.count_s + o.count_s,
            gc_s: self.gc_s + o.gc_s,
            split_s: self.split_s + o.split_s,
        }
    }

    /// The sum of the phases of all `plies`, or `None` if one has none (a
    /// record written before phases were kept).
    pub fn total(plies: impl IntoIterator<Item = Option<Phases>>) -> Option<Phases> {
        plies.into_iter().try_fold(Phases::default(), |sum, p| p.map(|p| sum.plus(p)))
    }

    /// One line of shares of `time_s`, e.g. `image 45.1%, terminal 30.2%, ...`
    /// (with the share of sorting into won, drawn and lost when there is one).
    pub fn shares(&self, time_s: f64) -> String {
        let pct = |s: f64| if time_s > 0.0 { s / time_s * 100.0 } else { 0.0 };
        let other = (time_s - self.terminal_s - self.image_s - self.count_s - self.gc_s - self.split_s).max(0.0);
        let split =
            if self.split_s > 0.0 { format!("won/drawn/lost {:.1}%, ", pct(self.split_s)) } else { String::new() };
        format!(
            "image {:.1}%, terminal states {:.1}%, {split}counting {:.1}%, GC {:.1}%, other {:.1}%",
            pct(self.image_s),
            pct(self.terminal_s),
            pct(self.count_s),
            pct(self.gc_s),
            pct(other)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Phase;

    #[test]
    fn every_phase_is_listed_at_its_own_index() {
        for (i, &p) in Phase::ALL.iter().enumerate() {
            assert_eq!(p as usize, i, "{p:?}");
        }
    }
}
