//! The three-way split of a retrograde ply: its states by the pre-images of
//! the next ply's lost and drawn sets into won, drawn and lost (depth-first
//! by one `Manager::split3`, breadth-first by binary walks), whole or part
//! by part.
//!
//! The split takes the ply's states and the two pre-images pinned and
//! releases them (each pin taken once), and returns the three sets pinned.

use crate::bdd::{Bdd, Manager, Var};
use crate::error::Result;
use crate::search::ply::transition::{part_cube, with_retry};

/// `(states ∧ ¬won ∧ to_draw, states ∧ ¬won ∧ ¬to_draw)`, the drawn and
/// lost states, for `won ⊆ states`. A manager that walks breadth-first
/// ([`Manager::breadth_first`]) takes three binary walks: `rest = states ∧
/// ¬won`, `drawn = rest ∧ to_draw` and `lost = rest ∧ ¬drawn` (the same set,
/// as `drawn ⊆ rest`, by a shorter walk: `drawn` shares `rest`'s nodes).
/// One that walks depth-first takes one three-way split
/// (`Manager::split3`), whose first result is `won` again: a walk that
/// makes each node the moment its halves are known, whose table finds the
/// repeats of earlier plies.
fn drawn_and_lost(m: &mut Manager, states: Bdd, won: Bdd, to_draw: Bdd) -> Result<(Bdd, Bdd)> {
    if !m.breadth_first() {
        let (w, d, l) = with_retry(m, &[], |m| m.split3(states, won, to_draw))?;
        assert_eq!(w, won, "the won states split off again are the won states");
        return Ok((d, l));
    }
    let rest = with_retry(m, &[], |m| m.diff(states, won))?;
    m.pin(rest);
    let drawn = with_retry(m, &[], |m| m.and(rest, to_draw))?;
    m.pin(drawn);
    let lost = with_retry(m, &[], |m| m.diff(rest, drawn));
    m.unpin(drawn);
    m.unpin(rest);
    Ok((drawn, lost?))
}

/// The ply's `(win, draw, lost)`. The won states come first, whole:
/// `win = states ∧ to_lost`; the lost set's pre-image is then released
/// (and collected under the GC policy). Splitting `states` less `win` by
/// `to_draw` ([`drawn_and_lost`]) then gives the other two, so that the
/// peak holds one pre-image beside the three sets, not both (`win` has
/// about the nodes of `to_lost`).
///
/// With `vars`, that split runs part by part: the states and the drawn
/// set's pre-image are cut on `vars` (part `p` has variable `vars[k]` equal
/// to bit `k` of `p`), each part is split and its results joined
/// to the sets so far, and the part is then cut off those two inputs, so
/// that they shrink as the results grow; a collection may follow each part
/// (under the GC policy). The parts of a cut on variables above every other
/// share the nodes below the cut, so the cuts and joins make nodes at the
/// cut's levels only. Without `vars`, the one part is the whole ply.
pub(crate) fn split_ply(m: &mut Manager, [states, to_lost, to_draw]: [Bdd; 3], vars: &[Var]) -> Result<[Bdd; 3]> {
    let win = with_retry(m, &[], |m| m.and(states, to_lost))?;
    m.pin(win);
    m.unpin(to_lost);
    m.maybe_gc(&[]);
    let mut rest = [states, to_draw];
    let (mut draw, mut lost) = (Bdd::FALSE, Bdd::FALSE);
    for p in 0..1usize << vars.len() {
        let cube = part_cube(m, vars, p, &[])?;
        m.pin(cube);
        let won = with_retry(m, &[], |m| m.and(win, cube))?;
        m.pin(won);
        let mut part = [Bdd::FALSE; 2];
        for (input, piece) in rest.iter_mut().zip(&mut part) {
            let (inside, outside) = with_retry(m, &[], |m| m.split(*input, cube))?;
            m.pin(inside);
            m.pin(outside);
            m.unpin(*input);
            (*input, *piece) = (outside, inside);
        }
        m.unpin(cube);
        let (d, l) = drawn_and_lost(m, part[0], won, part[1])?;
        for (set, result) in [(&mut draw, d), (&mut lost, l)] {
            let joined = with_retry(m, &[d, l], |m| m.or(*set, result))?;
            m.pin(joined);
            m.unpin(*set);
            *set = joined;
        }
        [won, part[0], part[1]].iter().for_each(|&f| m.unpin(f));
        if p + 1 < 1 << vars.len() {
            m.maybe_gc(&[]);
        }
    }
    assert_eq!(rest, [Bdd::FALSE; 2], "every part of the inputs was split");
    Ok([win, draw, lost])
}
