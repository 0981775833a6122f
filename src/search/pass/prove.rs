//! A stored strong solution proven from the game's rules, not from its
//! checksums: a checksum shows that a file is the one that was written, not
//! that what was written is right (a forged solution with its checksums
//! recomputed passes every byte-level check).
//!
//! The proof recomputes every ply's reachable states by a forward pass from
//! the empty board, then checks each ply `i` held, from the last one down,
//! against the sets stored for ply `i + 1` (from the view of the player to
//! move, `alive_i` the states of ply `i` where the player who just moved has
//! no four in a row):
//!
//! ```text
//! won_N  = ∅,   drawn_N = alive_N,   lost_N = states_N ∧ ¬alive_N
//! won_i   = alive_i ∧ pre(lost_{i+1})
//! drawn_i = alive_i ∧ ¬won_i ∧ pre(drawn_{i+1})
//! lost_i  = states_i ∧ ¬won_i ∧ ¬drawn_i
//! ```
//!
//! where `drawn_{i+1}` is what ply `i + 1` holds of neither won nor lost
//! when its store keeps no drawn set. Each stored set must equal the
//! equation's (BDDs are canonical, so equal sets are one node), so by
//! induction from the last ply every stored ply is the game's truth, and the
//! empty board's value is read from ply 0. The pre-images are the solver's
//! own (`Transition`), whose results the test suite checks against an
//! explicit solver; what the proof adds is that no stored set can differ
//! from them.

use std::ops::RangeInclusive;
use std::path::Path;

use crate::bdd::Bdd;
use crate::encoding::StateSpace;
use crate::error::Result;
use crate::search::files::bad;
use crate::search::pass::forward::forward_with;
use crate::search::ply::options::ForwardOptions;
use crate::search::ply::records::Value;
use crate::search::ply::transition::{with_retry, Transition};

/// A ply's stored sets for the player to move, `[won, drawn, lost]`, in
/// frame A of the proof's space: at most one of them `None` (a store that
/// keeps two of the three).
pub type StoredSets = [Option<Bdd>; 3];

/// What a proof established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The plies proven (the last one down to the lowest held).
    pub plies: RangeInclusive<u32>,
    /// The empty board's value, when ply 0 is held.
    pub value: Option<Value>,
}

/// Prove the plies `plies` (which must end with the board's last ply) of a
/// store whose ply sets `load` reads into `space` (frame A), and the value
/// `claimed` if the store states one; `done` is called after each ply. The
/// first set that the rules contradict is an error naming `dir`, the ply,
/// the set and how many positions differ.
pub fn prove(
    space: &mut StateSpace,
    (dir, plies, claimed): (&Path, RangeInclusive<u32>, Option<Value>),
    load: &mut dyn FnMut(&mut StateSpace, u32) -> Result<StoredSets>,
    done: &mut dyn FnMut(u32),
) -> Result<Proof> {
    let last = space.size().cells();
    if *plies.end() != last {
        let reason = format!("holds plies {}..={}: a proof starts at the last ply, {last}", plies.start(), plies.end());
        return Err(bad(dir, reason));
    }
    let opts = ForwardOptions::default();
    let rules = Transition::build(space, &opts)?;
    let proven = (|| -> Result<Option<Value>> {
        let (_, layers) = forward_with(space, &rules, true, |_| ())?;
        let mut above: Option<[Bdd; 2]> = None;
        for i in plies.clone().rev() {
            let stored = load(space, i)?;
            let [won, drawn, lost] = complete(space, (dir, i), layers[i as usize], stored)?;
            let want = by_rules(space, &rules, i, layers[i as usize], above)?;
            for ((name, got), want) in ["won", "drawn", "lost"].into_iter().zip([won, drawn, lost]).zip(want) {
                if got != want {
                    let m = &mut space.manager;
                    let differ = with_retry(m, &[got, want], |m| m.xor(got, want))?;
                    let n = space.count(differ, crate::encoding::Frame::A);
                    let reason = format!("ply {i}: its {name} set is not the rules' ({n} positions differ)");
                    return Err(bad(dir, reason));
                }
            }
            if let Some(prev) = above.replace([lost, drawn]) {
                prev.iter().for_each(|&f| space.manager.unpin(f));
            }
            space.manager.unpin(won);
            space.manager.maybe_gc(&[]);
            done(i);
        }
        layers.iter().for_each(|&f| space.manager.unpin(f));
        let value = above.filter(|_| *plies.start() == 0).map(|[lost, drawn]| match (lost, drawn) {
            (Bdd::FALSE, Bdd::FALSE) => Value::FirstPlayerWins,
            (Bdd::FALSE, _) => Value::Draw,
            _ => Value::SecondPlayerWins,
        });
        if let Some(f) = above {
            f.iter().for_each(|&f| space.manager.unpin(f));
        }
        Ok(value)
    })();
    rules.release(&mut space.manager);
    let value = proven?;
    if let (Some(claimed), Some(value)) = (claimed, value) {
        if claimed != value {
            let reason = format!("states the value {}, the proven ply 0 gives {}", claimed.name(), value.name());
            return Err(bad(dir, reason));
        }
    }
    Ok(Proof { plies, value })
}

/// The three sets of ply `i` (pinned) from its stored ones: each within the
/// ply's reachable `states`, no two sharing a position, the one not stored
/// what the other two leave of `states`.
fn complete(space: &mut StateSpace, (dir, i): (&Path, u32), states: Bdd, stored: StoredSets) -> Result<[Bdd; 3]> {
    let m = &mut space.manager;
    stored.iter().flatten().for_each(|&f| m.pin(f));
    let missing = stored.iter().filter(|f| f.is_none()).count();
    if missing > 1 {
        return Err(bad(dir, format!("ply {i}: {missing} of its three sets are missing")));
    }
    let mut seen = Bdd::FALSE;
    for (name, f) in ["won", "drawn", "lost"].iter().zip(stored).filter_map(|(n, f)| f.map(|f| (n, f))) {
        if with_retry(m, &[seen], |m| m.diff(f, states))? != Bdd::FALSE {
            return Err(bad(dir, format!("ply {i}: its {name} set holds states that are not reachable at ply {i}")));
        }
        if with_retry(m, &[seen], |m| m.and(f, seen))? != Bdd::FALSE {
            return Err(bad(dir, format!("ply {i}: its {name} set shares positions with another of its sets")));
        }
        let joined = with_retry(m, &[seen], |m| m.or(f, seen))?;
        m.pin(joined);
        m.unpin(seen);
        seen = joined;
    }
    let rest = with_retry(m, &[seen], |m| m.diff(states, seen))?;
    m.unpin(seen);
    if missing == 0 && rest != Bdd::FALSE {
        return Err(bad(dir, format!("ply {i}: its three sets leave reachable states out")));
    }
    if missing == 1 {
        m.pin(rest);
    }
    Ok(stored.map(|f| f.unwrap_or(rest)))
}

/// What the rules give ply `i` of `states` (pinned): `[won, drawn, lost]`,
/// from ply `i + 1`'s `[lost, drawn]` (`None` at the last ply).
fn by_rules(
    space: &mut StateSpace,
    rules: &Transition,
    i: u32,
    states: Bdd,
    above: Option<[Bdd; 2]>,
) -> Result<[Bdd; 3]> {
    let (alive, terminal) = rules.split_terminal(space, i, states)?;
    let Some([lost_next, drawn_next]) = above else { return Ok([Bdd::FALSE, alive, terminal]) };
    let m = &mut space.manager;
    m.pin(alive);
    let to_lost = rules.preimage(space, i, lost_next)?;
    space.manager.pin(to_lost);
    let to_drawn = rules.preimage(space, i, drawn_next)?;
    let m = &mut space.manager;
    m.pin(to_drawn);
    let won = with_retry(m, &[alive, to_lost, to_drawn], |m| m.and(alive, to_lost))?;
    m.pin(won);
    let not_won = with_retry(m, &[alive, won, to_drawn], |m| m.diff(alive, won))?;
    let drawn = with_retry(m, &[not_won, won, to_drawn], |m| m.and(not_won, to_drawn))?;
    m.pin(drawn);
    let lost = with_retry(m, &[won, drawn, states], |m| m.diff(states, won))?;
    let lost = with_retry(m, &[lost, won, drawn], |m| m.diff(lost, drawn))?;
    [alive, to_lost, to_drawn, won, drawn].iter().for_each(|&f| m.unpin(f));
    Ok([won, drawn, lost])
}
