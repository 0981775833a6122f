//! Moves over variable orders. An order is a list of state-variable indices
//! in level order; moves act on its units. With the column grouping kept, a
//! unit is a run of consecutive variables of one column (the side-to-move
//! variable is a unit of its own), so no move splits a run; with the
//! grouping broken, every variable is a unit.

use rand::RngExt;

use crate::encoding::StateVar;

crate::named::named_enum! {
    /// Whether moves keep each column's run of variables together.
    pub enum Grouping ("grouping") {
        /// Move runs of one column's variables (and side to move) as blocks.
        Keep = "keep",
        /// Move single variables.
        Break = "break",
    }
}

/// An order with a line saying how it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub levels: Vec<usize>,
    pub how: String,
}

/// The units of an order: runs of consecutive variables of one column
/// ([`Grouping::Keep`]) or single variables.
pub fn units(levels: &[usize], vars: &[StateVar], grouping: Grouping) -> Vec<Vec<usize>> {
    let column = |v: usize| vars[v].cell.map(|(c, _)| c);
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &v in levels {
        match out.last_mut() {
            Some(unit) if grouping == Grouping::Keep && column(v).is_some() && column(unit[0]) == column(v) => {
                unit.push(v)
            }
            _ => out.push(vec![v]),
        }
    }
    out
}

/// A unit's name: its variable, or its first and last variables.
pub fn name(unit: &[usize], vars: &[StateVar]) -> String {
    match unit {
        [v] => vars[*v].name.clone(),
        _ => format!("{}..{}", vars[unit[0]].name, vars[unit[unit.len() - 1]].name),
    }
}

/// The order of `units` with unit `i` moved to position `to` (counted among
/// the units once `i` is taken out).
pub fn moved(units: &[Vec<usize>], i: usize, to: usize) -> Vec<usize> {
    let mut rest: Vec<&Vec<usize>> = units.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, u)| u).collect();
    rest.insert(to, &units[i]);
    rest.into_iter().flatten().copied().collect()
}

/// Sifting unit `i`: the order with it at each position, first to last
/// (one of them is the order itself).
pub fn sift(units: &[Vec<usize>], i: usize, vars: &[StateVar]) -> Vec<Candidate> {
    let unit = name(&units[i], vars);
    (0..units.len()).map(|to| Candidate { levels: moved(units, i, to), how: format!("sift {unit} to {to}") }).collect()
}

/// A random move of the order `levels`: a unit moved elsewhere, two units
/// swapped, or (with the grouping kept) a unit's variables reversed.
pub fn random(levels: &[usize], vars: &[StateVar], grouping: Grouping, rng: &mut impl rand::Rng) -> Candidate {
    let units = units(levels, vars, grouping);
    let n = units.len();
    if n < 2 {
        return Candidate { levels: levels.to_vec(), how: "none".into() };
    }
    let kinds = if grouping == Grouping::Keep { 3 } else { 2 };
    match rng.random_range(0..kinds) {
        0 => {
            let (i, to) = (rng.random_range(0..n), rng.random_range(0..n - 1));
            let to = if to >= i { to + 1 } else { to };
            Candidate { levels: moved(&units, i, to), how: format!("move {} to {to}", name(&units[i], vars)) }
        }
        1 => {
            let i = rng.random_range(0..n);
            let j = (i + 1 + rng.random_range(0..n - 1)) % n;
            let mut swapped = units.clone();
            swapped.swap(i, j);
            let how = format!("swap {} and {}", name(&units[i], vars), name(&units[j], vars));
            Candidate { levels: swapped.concat(), how }
        }
        _ => {
            let i = rng.random_range(0..n);
            let mut reversed = units.clone();
            reversed[i].reverse();
            Candidate { levels: reversed.concat(), how: format!("reverse {}", name(&units[i], vars)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{moved, random, sift, units, Grouping};
    use crate::encoding::{EncodingKind, OrderSpec};
    use crate::game::BoardSize;
    use rand::SeedableRng;

    fn setup() -> (Vec<crate::encoding::StateVar>, Vec<usize>) {
        let size = BoardSize::new(3, 2).unwrap();
        let vars = EncodingKind::Compressed.build(size).state_vars();
        let levels = OrderSpec::COLUMN_WISE.arrange(&vars, size, EncodingKind::Compressed).unwrap();
        (vars, levels)
    }

    fn is_permutation(levels: &[usize], n: usize) -> bool {
        let mut sorted = levels.to_vec();
        sorted.sort_unstable();
        sorted == (0..n).collect::<Vec<_>>()
    }

    #[test]
    fn kept_units_are_the_runs_of_a_column() {
        let (vars, levels) = setup();
        let kept = units(&levels, &vars, Grouping::Keep);
        // Side to move, then three columns of three variables.
        assert_eq!(kept.iter().map(Vec::len).collect::<Vec<_>>(), [1, 3, 3, 3]);
        assert_eq!(units(&levels, &vars, Grouping::Break).len(), 10);
        assert_eq!(super::name(&kept[1], &vars), "c1r1..c1r3");
    }

    #[test]
    fn sifting_places_a_unit_everywhere_once() {
        let (vars, levels) = setup();
        let kept = units(&levels, &vars, Grouping::Keep);
        let placed = sift(&kept, 0, &vars);
        assert_eq!(placed.len(), 4);
        assert_eq!(placed[0].levels, levels, "side to move first: the order itself");
        assert_eq!(placed[3].levels[9], levels[0], "side to move last");
        assert_eq!(moved(&kept, 3, 0)[..3], levels[7..]);
    }

    #[test]
    fn random_moves_are_permutations_and_repeat_with_the_seed() {
        let (vars, levels) = setup();
        for grouping in [Grouping::Keep, Grouping::Break] {
            let run = |seed| {
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
                (0..50).map(|_| random(&levels, &vars, grouping, &mut rng)).collect::<Vec<_>>()
            };
            let moves = run(7);
            assert!(moves.iter().all(|m| is_permutation(&m.levels, vars.len())));
            assert!(moves.iter().any(|m| m.levels != levels));
            assert_eq!(moves, run(7));
            if grouping == Grouping::Keep {
                // Every column's variables stay consecutive.
                for m in &moves {
                    assert_eq!(units(&m.levels, &vars, Grouping::Keep).len(), 4, "{}", m.how);
                }
            }
        }
    }
}
